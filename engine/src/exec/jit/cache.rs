//! The compiled-code cache on disk.
//!
//! Cranelift's incremental cache does the keying: before compiling a
//! function it hashes the function's IR together with the target ISA and its
//! flags (and Cranelift's version), and asks a key-value store for machine
//! code compiled from exactly that IR. A key therefore covers everything that
//! changes code: the module's bytes, the monitors woven into it, the vmctx
//! layout, our translator's version and every flag that reaches the IR. A
//! module's functions (woven or not) are keyed by their source instead
//! (`by_source.rs`: no IR is built for a hit), and the trampolines by their
//! types (`tramps.rs`). This file is the store: one file per key under the
//! cache directory.
//!
//! An entry is never trusted blindly. Its file is `MAGIC`, the payload's
//! length and XXH3-128 checksum, then the payload; a file that is short, too
//! long, or whose checksum differs is ignored (and the function compiled as if it were
//! missing), and Cranelift checks the payload's version marker and decodes it
//! as data before using it. Entries are written to a temporary file and
//! renamed into place, so a reader never sees half an entry. The directory is
//! created private to the user (mode 0700); the checks protect against
//! truncation and corruption, not against someone who may write there on
//! purpose (the same trust Wasmtime places in its cache directory), so the
//! checksum needs no collision resistance: XXH3 checks a warm monitored
//! run's ~0.6 MB of entries in a tenth of the time SHA-256 took (keys, which
//! name their inputs, stay SHA-256). A file of the earlier layout
//! (`WZCODE01`, SHA-256) fails the magic and is rewritten.
//!
//! A process that exits while its compiler thread writes an entry leaves the
//! temporary file (`NAME.tmpPID`) behind; the compiler thread of a later run
//! removes those whose process is gone (`CodeCache::sweep_leftovers`), when
//! it has nothing else to do, at most once an hour per directory. The same
//! sweep keeps the directory within its size limit (`cache_limit.rs`).

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use cranelift_codegen::incremental_cache::CacheKvStore;
use xxhash_rust::xxh3::xxh3_128;

const MAGIC: &[u8; 8] = b"WZCODE02";
const HEADER: usize = MAGIC.len() + 8 + 16;

/// An entry's payload checksum, as its header holds it.
fn checksum(payload: &[u8]) -> [u8; 16] {
    xxh3_128(payload).to_le_bytes()
}

/// A cache directory and what happened there (shared by compile threads).
#[derive(Debug)]
pub struct CodeCache {
    dir: PathBuf,
    pub(crate) hits: AtomicUsize,
    pub(crate) misses: AtomicUsize,
    /// Entries that failed a check (and were compiled afresh).
    pub(crate) rejected: AtomicUsize,
    /// Of `hits`, functions placed from an entry keyed by their source
    /// (`by_source.rs`: no IR built).
    pub(crate) by_source: AtomicUsize,
    /// Of `by_source`, functions of a woven module.
    pub(crate) by_source_woven: AtomicUsize,
    /// The most bytes its entries may take (0: no limit; see
    /// `cache_limit.rs`).
    pub(crate) limit: AtomicU64,
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
            by_source: AtomicUsize::new(0),
            by_source_woven: AtomicUsize::new(0),
            limit: AtomicU64::new(crate::runtime::store::DEFAULT_CACHE_LIMIT),
        }))
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &[u8]) -> PathBuf {
        entry_path(&self.dir, key)
    }

    /// The payload of a well-formed entry, if `bytes` is one.
    fn check(bytes: &[u8]) -> Option<&[u8]> {
        let (head, payload) = bytes.split_at_checked(HEADER)?;
        let (magic, rest) = head.split_at(MAGIC.len());
        let (len, sum) = rest.split_at(8);
        let len = u64::from_le_bytes(len.try_into().ok()?);
        (magic == MAGIC && len == payload.len() as u64 && checksum(payload) == sum)
            .then_some(payload)
    }

    fn write(&self, key: &[u8], payload: &[u8]) -> std::io::Result<()> {
        write_entry(&self.path(key), payload)
    }

    /// Remove the temporary files of writers that are gone (a process cut
    /// off while writing an entry, see [`write_entry`]); how many. A file
    /// of a process still running (or of another process that got its pid)
    /// stays, unless it is more than a day old.
    pub(crate) fn sweep_leftovers(&self) -> usize {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let procs = Path::new("/proc/self").exists();
        let mut removed = 0;
        for e in dir.flatten() {
            let name = e.file_name();
            let Some(pid) = name.to_str().and_then(leftover_pid) else {
                continue;
            };
            let gone = procs && !Path::new(&format!("/proc/{pid}")).exists();
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 24 * 3600);
            if (gone || old) && pid != std::process::id() && std::fs::remove_file(e.path()).is_ok()
            {
                removed += 1;
            }
        }
        removed
    }
}

/// The file whose modification time is that of a directory's last sweep.
const SWEEP_STAMP: &str = "swept.stamp";

/// How often a cache directory is swept: listing one of 100k entries takes
/// milliseconds of a core (a compiler thread's, but on two cores the main
/// thread's too), far more than leftovers cost.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

impl CodeCache {
    /// [`CodeCache::sweep_leftovers`] and then [`CodeCache::evict_over`] the
    /// limit, if the directory was not swept in the last [`SWEEP_EVERY`] (by
    /// any process: the time is the stamp file's); how many leftovers went.
    pub(crate) fn sweep_if_due(&self) -> usize {
        if !claim_sweep(&self.dir) {
            return 0;
        }
        let removed = self.sweep_leftovers();
        self.evict_over(self.limit.load(Ordering::Relaxed));
        removed
    }
}

/// Claim the next sweep of cache directory `dir`: `true` (and the stamp file
/// now says so) if no process claimed one in the last hour (`SWEEP_EVERY`); the
/// claimer then sweeps ([`super::cache_limit::sweep`]), in a process that
/// lives long enough for it: the CLI hands it to a detached child.
///
/// A directory without a stamp (new) gets one, and its first sweep an hour
/// later: there is nothing to sweep yet.
pub fn claim_sweep(dir: &Path) -> bool {
    let stamp = dir.join(SWEEP_STAMP);
    let age = match std::fs::metadata(&stamp).and_then(|m| m.modified()) {
        Ok(t) => t.elapsed().unwrap_or_default(),
        Err(_) => {
            let _ = std::fs::write(&stamp, b"");
            return false;
        }
    };
    age >= SWEEP_EVERY && std::fs::write(&stamp, b"").is_ok()
}

/// The writer's pid, if `name` is a temporary entry file (`HEX.tmpPID`).
fn leftover_pid(name: &str) -> Option<u32> {
    let (key, pid) = name.split_once(".tmp")?;
    let hex = !key.is_empty() && key.bytes().all(|b| b.is_ascii_hexdigit());
    let pid = pid.parse().ok().filter(|_| hex)?;
    Some(pid)
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
    f.write_all(&checksum(payload))?;
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

/// Read entry `key` of the cache in `dir`, checked as every entry is (as
/// [`CodeCache::check`] does). The header is read first and the payload
/// straight into a buffer of its own: a match cache entry is half a
/// megabyte, which moving to the front of the file's bytes cost a pass over.
pub(crate) fn read(dir: &Path, key: &[u8]) -> Entry {
    use std::io::{ErrorKind, Read};
    let Ok(mut f) = std::fs::File::open(entry_path(dir, key)) else {
        return Entry::Missing;
    };
    let mut head = [0u8; HEADER];
    match f.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Entry::Damaged,
        Err(_) => return Entry::Missing,
    }
    let (magic, rest) = head.split_at(MAGIC.len());
    let (len, sum) = rest.split_at(8);
    let len = u64::from_le_bytes(len.try_into().expect("8 bytes"));
    let Ok(size) = f.metadata().map(|m| m.len()) else {
        return Entry::Missing;
    };
    // (The file's size bounds the buffer: a damaged length cannot ask for
    // more.)
    if magic != MAGIC || size.checked_sub(HEADER as u64) != Some(len) {
        return Entry::Damaged;
    }
    let mut payload = Vec::with_capacity(len as usize);
    if f.read_to_end(&mut payload).is_err() {
        return Entry::Missing;
    }
    match payload.len() as u64 == len && checksum(&payload) == sum {
        true => Entry::Found(payload),
        false => Entry::Damaged,
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
        // Every single-bit flip anywhere in the file is caught.
        for i in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert!(CodeCache::check(&bad).is_none(), "bit {i} flipped");
        }
        // An entry of the earlier layout (SHA-256) is not read as this one.
        let mut old = b"WZCODE01".to_vec();
        old.extend(12u64.to_le_bytes());
        old.extend([0u8; 32]);
        old.extend(b"machine code");
        std::fs::write(&path, &old).unwrap();
        assert!(s.get(b"k1").is_none());
        assert_eq!(c.rejected.load(Ordering::Relaxed), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `read` (the engine's own entries) checks what `check` checks.
    #[test]
    fn read_gives_the_payload_and_refuses_damage() {
        let dir = std::env::temp_dir().join(format!("wizeng-read-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(read(&dir, b"k"), Entry::Missing);
        write(&dir, b"k", b"a kept record").unwrap();
        assert_eq!(read(&dir, b"k"), Entry::Found(b"a kept record".to_vec()));
        write(&dir, b"empty", b"").unwrap();
        assert_eq!(read(&dir, b"empty"), Entry::Found(Vec::new()));
        let path = entry_path(&dir, b"k");
        let bytes = std::fs::read(&path).unwrap();
        for n in 0..bytes.len() {
            std::fs::write(&path, &bytes[..n]).unwrap();
            assert_eq!(read(&dir, b"k"), Entry::Damaged, "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        std::fs::write(&path, &longer).unwrap();
        assert_eq!(read(&dir, b"k"), Entry::Damaged, "a byte more");
        for i in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[i / 8] ^= 1 << (i % 8);
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(read(&dir, b"k"), Entry::Damaged, "bit {i} flipped");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn leftovers_of_gone_writers_are_swept() {
        let dir = std::env::temp_dir().join(format!("wizeng-sweep-test-{}", std::process::id()));
        let c = CodeCache::open(&dir).unwrap();
        let mut s = Store(&c);
        s.insert(b"k1", b"code".to_vec());
        // No process has pid u32::MAX - 1 (above Linux's pid_max); this one
        // is running; the others are not temporary files.
        let gone = dir.join(format!("abcd.tmp{}", u32::MAX - 1));
        let mine = dir.join(format!("abcd.tmp{}", std::process::id()));
        let other = dir.join("notes.tmp1x");
        for p in [&gone, &mine, &other] {
            std::fs::write(p, b"").unwrap();
        }
        assert_eq!(leftover_pid("00ff.tmp12"), Some(12));
        assert_eq!(leftover_pid("zz.tmp12"), None);
        assert_eq!(leftover_pid("00ff.tmp"), None);
        assert_eq!(c.sweep_leftovers(), 1);
        assert!(!gone.exists() && mine.exists() && other.exists());
        assert_eq!(s.get(b"k1").as_deref(), Some(&b"code"[..]));
        // A run sweeps only if no run did in the last hour; a directory
        // without a stamp gets one (its first sweep is an hour later).
        std::fs::write(&gone, b"").unwrap();
        assert_eq!(c.sweep_if_due(), 0);
        assert!(gone.exists());
        let two_hours_ago = std::time::SystemTime::now() - 2 * SWEEP_EVERY;
        std::fs::File::options()
            .write(true)
            .open(dir.join(SWEEP_STAMP))
            .unwrap()
            .set_modified(two_hours_ago)
            .unwrap();
        assert_eq!(c.sweep_if_due(), 1);
        std::fs::write(&gone, b"").unwrap();
        assert_eq!(c.sweep_if_due(), 0);
        assert!(gone.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
