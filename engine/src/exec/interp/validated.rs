//! Modules validated by an earlier run: loading them again skips validating
//! their bodies.
//!
//! A lazily translated module's bodies are validated twice: all of them at
//! load (so that an invalid module fails to load), and each one again when it
//! is first translated for the interpreter or compiled. On a large module
//! the first pass is most of a warm run's start-up (commanderkeen, 3.2 MB:
//! about 20 ms, a third of what the Wasmtime CLI takes for the whole run).
//! So after a load that validated every body of a lazily translated module,
//! the loader writes a record into the code cache's directory, keyed by the
//! module's bytes but its data section's (SHA-256), the features it was
//! validated with and this executable; a later load of the same bytes that finds the record leaves
//! its bodies for their first use. The record lists the functions that load
//! translated at once (those that may have to run interpreted, which
//! `load.rs` finds while validating), so that they still are, and
//! whether a body converts between `any` and `extern` (which the loader
//! otherwise finds by parsing every body once more, when the two opcode
//! bytes occur anywhere in the module: most large ones).
//!
//! A record is written only for a module that was valid, so with an honest
//! cache nothing observable changes. A record is checked like every cache
//! entry (length and checksum of the file); one that does not decode is
//! ignored (the module is validated as usual). Whatever a record says, no
//! body runs unvalidated: the translator and the JIT validate each body
//! they translate. Only where an invalid body is reported could change (at
//! its first call instead of at load), for a record someone forged.
//!
//! The embedder turns this on ([`remember_validated_modules_in`]; the CLI does
//! with its code cache on); a load with an instrumenter never uses it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};
use wasmparser::WasmFeatures;

/// The record's version: a new layout gets new keys.
const VERSION: &[u8] = b"wizeng validated module 1\0";

static DIR: OnceLock<PathBuf> = OnceLock::new();

/// Keep records of validated modules in `dir` (the code cache's directory),
/// for every load of this process from now on (the first call decides).
pub fn remember_validated_modules_in(dir: &Path) {
    let _ = DIR.set(dir.to_path_buf());
}

/// A module's record: where it is, and what it said.
pub(crate) struct Record {
    dir: PathBuf,
    key: [u8; 32],
    /// What a sound record said, if one was found: the module was
    /// validated before.
    pub found: Option<Found>,
}

/// What a record says of its module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// The functions translated at load, ascending.
    pub eager: Vec<u32>,
    /// A body converts between `any` and `extern` (`load::converts_extern`).
    pub converts_extern: bool,
}

/// The record of the module of `bytes` validated with `features`, if
/// records are kept ([`remember_validated_modules_in`]).
pub(crate) fn lookup(bytes: &[u8], features: WasmFeatures) -> Option<Record> {
    lookup_in(DIR.get()?, bytes, features)
}

pub(crate) fn lookup_in(dir: &Path, bytes: &[u8], features: WasmFeatures) -> Option<Record> {
    let exe = crate::exec::exe_identity()?;
    // The data section's contents cannot change whether a body is valid
    // (its segment count is the data count section's), and the sections
    // outside the code are validated at every load anyway: they are not
    // hashed (a large module's data is often most of it).
    let data = data_section(bytes).unwrap_or(bytes.len()..bytes.len());
    let key: [u8; 32] = Sha256::new()
        .chain_update(VERSION)
        .chain_update((exe.len() as u64).to_le_bytes())
        .chain_update(exe)
        .chain_update(format!("{features:?}"))
        .chain_update((bytes.len() as u64).to_le_bytes())
        .chain_update(&bytes[..data.start])
        .chain_update(&bytes[data.end..])
        .finalize()
        .into();
    let found = read(dir, &key).and_then(|p| decode(&p));
    Some(Record {
        dir: dir.to_path_buf(),
        key,
        found,
    })
}

impl Record {
    /// The module was validated: write its record. Errors are ignored (the
    /// next load validates again).
    pub(crate) fn save(&self, found: &Found) {
        write(&self.dir, &self.key, &encode(found));
    }
}

/// The contents of the data section of the module `bytes`, if it has one
/// (and its section headers read soundly).
fn data_section(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    const DATA: u8 = 11;
    let mut at = 8;
    while at < bytes.len() {
        let id = bytes[at];
        let (size, len) = leb_u32(bytes.get(at + 1..)?)?;
        let start = at + 1 + len;
        let end = start
            .checked_add(size as usize)
            .filter(|&e| e <= bytes.len())?;
        if id == DATA {
            return Some(start..end);
        }
        at = end;
    }
    None
}

/// An unsigned LEB128 of at most 32 bits at the start of `b`, and its length.
fn leb_u32(b: &[u8]) -> Option<(u32, usize)> {
    let mut v = 0u32;
    for (i, &byte) in b.iter().take(5).enumerate() {
        v |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// A record's payload: a flag byte (1: converts), the count, the functions.
fn encode(found: &Found) -> Vec<u8> {
    let mut out = vec![found.converts_extern as u8];
    out.extend((found.eager.len() as u32).to_le_bytes());
    for f in &found.eager {
        out.extend(f.to_le_bytes());
    }
    out
}

/// What a sound record's payload says.
fn decode(payload: &[u8]) -> Option<Found> {
    let (&flags, payload) = payload.split_first()?;
    if flags > 1 {
        return None;
    }
    let (n, rest) = payload.split_at_checked(4)?;
    let n = u32::from_le_bytes(n.try_into().ok()?) as usize;
    if rest.len() != n.checked_mul(4)? {
        return None;
    }
    let funcs: Vec<u32> = rest
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    funcs.windows(2).all(|w| w[0] < w[1]).then_some(Found {
        eager: funcs,
        converts_extern: flags == 1,
    })
}

#[cfg(wizeng_jit)]
fn read(dir: &Path, key: &[u8]) -> Option<Vec<u8>> {
    match crate::exec::jit::cache::read(dir, key) {
        crate::exec::jit::cache::Entry::Found(p) => Some(p),
        _ => None,
    }
}

#[cfg(wizeng_jit)]
fn write(dir: &Path, key: &[u8], payload: &[u8]) {
    let _ = crate::exec::jit::cache::write(dir, key, payload);
}

// Without the JIT there is no code cache to keep records in.
#[cfg(not(wizeng_jit))]
fn read(_: &Path, _: &[u8]) -> Option<Vec<u8>> {
    None
}

#[cfg(not(wizeng_jit))]
fn write(_: &Path, _: &[u8], _: &[u8]) {}

#[cfg(all(test, wizeng_jit))]
mod tests {
    use super::*;

    fn found(eager: &[u32], converts_extern: bool) -> Found {
        Found {
            eager: eager.to_vec(),
            converts_extern,
        }
    }

    #[test]
    fn a_record_is_found_for_the_same_bytes_only() {
        let dir = std::env::temp_dir().join(format!("wizeng-validated-{}", std::process::id()));
        let f = WasmFeatures::default();
        let r = lookup_in(&dir, b"module a", f).unwrap();
        assert_eq!(r.found, None);
        r.save(&found(&[3, 9], true));
        let again = lookup_in(&dir, b"module a", f).unwrap().found;
        assert_eq!(again, Some(found(&[3, 9], true)));
        assert_eq!(lookup_in(&dir, b"module b", f).unwrap().found, None);
        let other = f ^ WasmFeatures::SIMD;
        assert_eq!(lookup_in(&dir, b"module a", other).unwrap().found, None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_data_section_is_found_and_left_out_of_the_key() {
        let wat = |data: &str| {
            wat::parse_str(format!(
                r#"(module (memory 1) (func (result i32) (i32.const 1)) (data (i32.const 0) "{data}"))"#
            ))
            .unwrap()
        };
        let (a, b) = (wat("abcdef"), wat("uvwxyz"));
        let range = data_section(&a).unwrap();
        assert!(a[range.clone()].windows(6).any(|w| w == b"abcdef"));
        assert_eq!(data_section(&a[..range.end - 1]), None, "a cut section");
        assert_eq!(data_section(&wat::parse_str("(module)").unwrap()), None);
        let dir =
            std::env::temp_dir().join(format!("wizeng-validated-data-{}", std::process::id()));
        let f = WasmFeatures::default();
        lookup_in(&dir, &a, f).unwrap().save(&found(&[], false));
        assert!(lookup_in(&dir, &b, f).unwrap().found.is_some());
        // A different body is another module.
        let c = wat::parse_str(
            r#"(module (memory 1) (func (result i32) (i32.const 2)) (data (i32.const 0) "abcdef"))"#,
        )
        .unwrap();
        assert!(lookup_in(&dir, &c, f).unwrap().found.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_payload_must_be_exact_and_ascending() {
        for f in [found(&[], false), found(&[1, 2], true)] {
            assert_eq!(decode(&encode(&f)), Some(f.clone()));
            let full = encode(&f);
            for n in 0..full.len() {
                assert_eq!(decode(&full[..n]), None, "cut at {n}");
            }
            let mut longer = full.clone();
            longer.push(0);
            assert_eq!(decode(&longer), None);
        }
        assert_eq!(decode(&encode(&found(&[2, 1], false))), None);
        assert_eq!(decode(&encode(&found(&[2, 2], false))), None);
        let mut bad_flag = encode(&found(&[1], false));
        bad_flag[0] = 2;
        assert_eq!(decode(&bad_flag), None);
    }
}
