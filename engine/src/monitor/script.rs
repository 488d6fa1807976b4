//! `.mm` monitors on the command line: compiled in-process by the whamm
//! compiler, and kept in the compiled-code cache's directory so that the
//! next run of the same script does not compile it again.
//!
//! A kept script is keyed by this build of the engine (which contains the
//! compiler), the script's path as given (it appears in diagnostics), its
//! bytes, and each library's name and bytes. The entry holds the rendered
//! warnings (printed again on a hit, so a hit looks like a compile) and the
//! monitor's bytes, checked as every cache entry is. A script that does not
//! compile is never kept.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::exec::jit::cache::{self, Entry};
use crate::monitor::session::SessionError;

/// The entry format's version: a new layout gets new keys.
const VERSION: &[u8] = b"wizeng compiled script 1";

/// Compile the `.mm` monitor at `path` (the monitor libraries' signatures
/// from `libs`, each named by its file's base name), or take it from the
/// cache in `cache_dir`. Errors are rendered as `whamm check` prints them;
/// warnings go to stderr. Also says whether the cache had it.
pub(crate) fn compile(
    path: &str,
    libs: &[&str],
    cache_dir: Option<&Path>,
) -> Result<(Vec<u8>, bool), SessionError> {
    let src = std::fs::read(path)
        .map_err(|e| SessionError::Compile(format!("error: cannot read {path}: {e}\n")))?;
    let mut lib_bytes = Vec::new();
    for lib in libs {
        let b = std::fs::read(lib)
            .map_err(|e| SessionError::Monitor(format!("monitor library {lib}: {e}")))?;
        lib_bytes.push((*lib, b));
    }
    let key = cache_dir.and_then(|d| Some((d, key(path, &src, &lib_bytes)?)));
    if let Some((dir, key)) = &key {
        if let Entry::Found(e) = cache::read(dir, key) {
            if let Some((warnings, bytes)) = split(&e) {
                eprint!("{warnings}");
                return Ok((bytes.to_vec(), true));
            }
        }
    }
    let (bytes, warnings) = build(path, &src, &lib_bytes)?;
    eprint!("{warnings}");
    if let Some((dir, key)) = &key {
        let mut e = (warnings.len() as u64).to_le_bytes().to_vec();
        e.extend_from_slice(warnings.as_bytes());
        e.extend_from_slice(&bytes);
        // (A cache that cannot be written only costs the next run a compile.)
        let _ = cache::write(dir, key, &e);
    }
    Ok((bytes, false))
}

fn key(path: &str, src: &[u8], libs: &[(&str, Vec<u8>)]) -> Option<[u8; 32]> {
    let mut h = Sha256::new();
    h.update(VERSION);
    h.update(crate::exec::exe_identity()?);
    for part in [path.as_bytes(), src] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    for (name, bytes) in libs {
        for part in [name.as_bytes(), bytes] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    Some(h.finalize().into())
}

/// An entry's warnings and monitor bytes.
fn split(e: &[u8]) -> Option<(&str, &[u8])> {
    let n = usize::try_from(u64::from_le_bytes(e.get(..8)?.try_into().ok()?)).ok()?;
    let rest = &e[8..];
    let warnings = std::str::from_utf8(rest.get(..n)?).ok()?;
    Some((warnings, &rest[n..]))
}

/// Compile the script: its bytes and its rendered warnings.
fn build(
    path: &str,
    src: &[u8],
    libs: &[(&str, Vec<u8>)],
) -> Result<(Vec<u8>, String), SessionError> {
    let src = String::from_utf8_lossy(src).into_owned();
    let mut opts = whamm_compiler::codegen::Options::default();
    for (lib, bytes) in libs {
        let name = Path::new(lib)
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let sigs = whamm_compiler::libs::read_library(bytes)
            .map_err(|e| SessionError::Monitor(format!("monitor library {lib}: {e}")))?;
        opts.libs.insert(name, sigs);
    }
    match whamm_compiler::build(&src, &opts) {
        Ok((bytes, warnings)) => Ok((bytes, whamm_compiler::diag::render(path, &src, &warnings))),
        Err(diags) => {
            let n = diags.iter().filter(|d| d.is_error()).count();
            Err(SessionError::Compile(format!(
                "{}error: {path} failed with {n} error{}\n",
                whamm_compiler::diag::render(path, &src, &diags),
                if n == 1 { "" } else { "s" }
            )))
        }
    }
}
