//! The compiled-code cache on disk.
//!
//! Cranelift's incremental cache does the keying: before compiling a
//! function it hashes the function's IR together with the target ISA and its
//! flags (and Cranelift's version), and asks a key-value store for machine
//! code compiled from exactly that IR. A key therefore covers everything that
//! changes code: the module's bytes, the monitors woven into it, the vmctx
//! layout, our translator's version and every flag that reaches the IR. This
//! file is the store: one file per key under the cache directory.
//!
//! An entry is never trusted blindly. Its file is `MAGIC`, the payload's
//! length and SHA-256, then the payload; a file that is short, too long, or
//! whose digest differs is ignored (and the function compiled as if it were
//! missing), and Cranelift checks the payload's version marker and decodes it
//! as data before using it. Entries are written to a temporary file and
//! renamed into place, so a reader never sees half an entry. The directory is
//! created private to the user (mode 0700); the checks protect against
//! truncation and corruption, not against someone who may write there on
//! purpose (the same trust Wasmtime places in its cache directory).

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cranelift_codegen::incremental_cache::CacheKvStore;
use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"WZCODE01";
const HEADER: usize = MAGIC.len() + 8 + 32;

/// A cache directory and what happened there (shared by compile threads).
#[derive(Debug)]
pub struct CodeCache {
    dir: PathBuf,
    pub(crate) hits: AtomicUsize,
    pub(crate) misses: AtomicUsize,
    /// Entries that failed a check (and were compiled afresh).
    pub(crate) rejected: AtomicUsize,
}

impl CodeCache {
    /// A cache in `dir` (created if missing, private to the user).
    pub fn open(dir: &Path) -> std::io::Result<Arc<CodeCache>> {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir)?;
        Ok(Arc::new(CodeCache {
            dir: dir.to_path_buf(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            rejected: AtomicUsize::new(0),
        }))
    }

    fn path(&self, key: &[u8]) -> PathBuf {
        entry_path(&self.dir, key)
    }

    /// The payload of a well-formed entry, if `bytes` is one.
    fn check(bytes: &[u8]) -> Option<&[u8]> {
        let (head, payload) = bytes.split_at_checked(HEADER)?;
        let (magic, rest) = head.split_at(MAGIC.len());
        let (len, digest) = rest.split_at(8);
        let len = u64::from_le_bytes(len.try_into().ok()?);
        (magic == MAGIC
            && len == payload.len() as u64
            && Sha256::digest(payload).as_slice() == digest)
            .then_some(payload)
    }

    fn write(&self, key: &[u8], payload: &[u8]) -> std::io::Result<()> {
        write_entry(&self.path(key), payload)
    }
}

/// The file of entry `key` in cache directory `dir`.
fn entry_path(dir: &Path, key: &[u8]) -> PathBuf {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    dir.join(hex)
}

/// Write `payload` as the entry at `path` (through a temporary file).
fn write_entry(path: &Path, payload: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(MAGIC)?;
    f.write_all(&(payload.len() as u64).to_le_bytes())?;
    f.write_all(&Sha256::digest(payload))?;
    f.write_all(payload)?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// An entry read by the engine itself rather than by Cranelift (the dyn
/// tier's records, `warm.rs`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    Missing,
    /// The file is there but fails the checks.
    Damaged,
    Found(Vec<u8>),
}

/// Read entry `key` of the cache in `dir`, checked as every entry is.
pub(crate) fn read(dir: &Path, key: &[u8]) -> Entry {
    let Ok(bytes) = std::fs::read(entry_path(dir, key)) else {
        return Entry::Missing;
    };
    match CodeCache::check(&bytes) {
        Some(p) => Entry::Found(p.to_vec()),
        None => Entry::Damaged,
    }
}

/// Store `payload` as entry `key` of the cache in `dir` (created private to
/// the user if missing).
pub(crate) fn write(dir: &Path, key: &[u8], payload: &[u8]) -> std::io::Result<()> {
    CodeCache::open(dir)?;
    write_entry(&entry_path(dir, key), payload)
}

/// A compile thread's handle on the cache (Cranelift wants `&mut`).
pub(crate) struct Store<'a>(pub(crate) &'a CodeCache);

impl CacheKvStore for Store<'_> {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let Ok(bytes) = std::fs::read(self.0.path(key)) else {
            self.0.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        match CodeCache::check(&bytes) {
            Some(p) => {
                self.0.hits.fetch_add(1, Ordering::Relaxed);
                Some(Cow::Owned(p.to_vec()))
            }
            None => {
                self.0.rejected.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    fn insert(&mut self, key: &[u8], val: Vec<u8>) {
        // A cache that cannot be written only costs the next run a compile.
        let _ = self.0.write(key, &val);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_damage_is_rejected() {
        let dir = std::env::temp_dir().join(format!("wizeng-cache-test-{}", std::process::id()));
        let c = CodeCache::open(&dir).unwrap();
        let mut s = Store(&c);
        assert!(s.get(b"k1").is_none());
        s.insert(b"k1", b"machine code".to_vec());
        assert_eq!(s.get(b"k1").as_deref(), Some(&b"machine code"[..]));
        // Truncated, then altered: both ignored.
        let path = c.path(b"k1");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(s.get(b"k1").is_none());
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(s.get(b"k1").is_none());
        assert_eq!(c.rejected.load(Ordering::Relaxed), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
