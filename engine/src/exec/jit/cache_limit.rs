//! A size limit for the compiled-code cache's directory.
//!
//! Every run adds entries (machine code per function, the dyn tier's
//! records, match results, compiled scripts) and nothing else removes them,
//! so without a limit the directory only grows: a large module with a
//! per-instruction monitor leaves an entry of tens of megabytes. When the
//! hourly sweep (`CodeCache::sweep_if_due`, or [`sweep`] in a process of its
//! own) finds the entries larger than
//! the limit ([`Config::code_cache_limit`](crate::Config)), it removes the
//! least recently used until they fit in three quarters of it, so that the
//! next sweeps have nothing to do for a while (Wasmtime's cache cleans up
//! the same way, with a soft limit and a lower target).
//!
//! "Recently used" is a file's access time, or its modification time when
//! that is later. Linux's default `relatime` updates the access time at the
//! first read after a write and then at most daily, which is fine enough to
//! tell a module run every day from one run once last month; on a file
//! system mounted `noatime` the oldest written go first. Removing an entry
//! another process is about to read only costs that process a compile.

use std::path::PathBuf;
use std::time::SystemTime;

use super::cache::CodeCache;

/// An entry file and what eviction weighs.
struct Found {
    path: PathBuf,
    size: u64,
    used: SystemTime,
}

/// Entry files are named by their key in hex (the stamp file and
/// temporary files are not entries).
fn is_entry(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The entries of `dir` with their sizes and last uses.
fn entries(dir: &std::path::Path) -> Vec<Found> {
    let Ok(list) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    list.flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_entry))
        .filter_map(|e| {
            let m = e.metadata().ok().filter(|m| m.is_file())?;
            let written = m.modified().ok()?;
            let used = m.accessed().ok().map_or(written, |a| a.max(written));
            Some(Found {
                path: e.path(),
                size: m.len(),
                used,
            })
        })
        .collect()
}

/// Sweep cache directory `dir` now: remove the leftovers of killed writers,
/// then the least recently used entries beyond `limit` (0: no limit), as
/// a compiler thread does when the sweep is due. A directory of 100k
/// entries takes a second or more to list, longer than a short run lives,
/// so the CLI runs this in a detached process of its own
/// (`wizeng --sweep-cache=DIR`) once it claimed the sweep
/// ([`super::cache::claim_sweep`]).
pub fn sweep(dir: &std::path::Path, limit: u64) -> std::io::Result<(usize, Evicted)> {
    if !dir.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{}: not a directory", dir.display()),
        ));
    }
    let c = CodeCache::open(dir)?;
    let leftovers = c.sweep_leftovers();
    Ok((leftovers, c.evict_over(limit)))
}

/// What a sweep of the size limit did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Evicted {
    /// Entries removed.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The entries' bytes after the sweep.
    pub left: u64,
}

impl CodeCache {
    /// If the directory's entries take more than `limit` bytes, remove the
    /// least recently used until they take at most three quarters of it
    /// (`limit` 0: no limit).
    pub(crate) fn evict_over(&self, limit: u64) -> Evicted {
        let mut found = entries(self.dir());
        let total: u64 = found.iter().map(|f| f.size).sum();
        let mut out = Evicted {
            left: total,
            ..Evicted::default()
        };
        if limit == 0 || total <= limit {
            return out;
        }
        let target = limit / 4 * 3;
        found.sort_by_key(|f| f.used);
        for f in found {
            if out.left <= target {
                break;
            }
            if std::fs::remove_file(&f.path).is_ok() {
                out.files += 1;
                out.bytes += f.size;
                out.left -= f.size;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A file of `size` bytes last used `age` seconds ago.
    fn entry(dir: &std::path::Path, name: &str, size: usize, age: u64) {
        let p = dir.join(name);
        std::fs::write(&p, vec![0u8; size]).unwrap();
        let t = SystemTime::now() - Duration::from_secs(age);
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_times(std::fs::FileTimes::new().set_accessed(t).set_modified(t))
            .unwrap();
    }

    #[test]
    fn least_recently_used_entries_go_first_down_to_three_quarters() {
        let dir = std::env::temp_dir().join(format!("wizeng-limit-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let c = CodeCache::open(&dir).unwrap();
        // Five entries of 100 bytes, aa the oldest; a stamp and a temporary
        // file that are not entries and stay.
        for (i, name) in ["aa", "bb", "cc", "dd", "ee"].iter().enumerate() {
            entry(&dir, name, 100, 1000 - 100 * i as u64);
        }
        std::fs::write(dir.join("swept.stamp"), vec![0u8; 1000]).unwrap();
        std::fs::write(dir.join("ff.tmp1"), vec![0u8; 1000]).unwrap();
        // Within the limit: nothing happens.
        let none = c.evict_over(500);
        assert_eq!(
            none,
            Evicted {
                files: 0,
                bytes: 0,
                left: 500
            }
        );
        assert_eq!(c.evict_over(0).files, 0);
        // Over 400: down to 300, the two oldest removed.
        let e = c.evict_over(400);
        assert_eq!(
            e,
            Evicted {
                files: 2,
                bytes: 200,
                left: 300
            }
        );
        let left: Vec<bool> = ["aa", "bb", "cc", "dd", "ee", "swept.stamp", "ff.tmp1"]
            .iter()
            .map(|n| dir.join(n).exists())
            .collect();
        assert_eq!(left, [false, false, true, true, true, true, true]);
        // A read makes an old entry recent (its access time): cc, then dd
        // is the oldest.
        entry(&dir, "cc", 100, 0);
        assert_eq!(c.evict_over(280).files, 1);
        assert!(!dir.join("dd").exists() && dir.join("cc").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
