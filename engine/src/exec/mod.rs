//! Layer 3, execution tiers: the interpreter, the Cranelift JIT and the policy
//! that moves code between them.
//!
//! The tiers know instrumentation only through [`crate::core::probe`]: a probe
//! site is a list of calls with argument sources (or direct counter increments),
//! decided by whoever implements [`crate::core::probe::Instrumenter`]. Depends on
//! [`crate::core`] and [`crate::runtime`].

pub mod interp;
#[cfg(wizeng_jit)]
pub mod jit;
#[cfg(not(wizeng_jit))]
#[path = "jit_unavailable.rs"]
pub mod jit;
pub(crate) mod tiering;

/// This build of the engine: its executable's path, size, modification time
/// and inode (any rebuild changes them), read once per process. Keys of
/// cache entries whose contents depend on the engine's own code include it
/// (`jit/by_source.rs`, `jit/warm.rs`, `interp/validated.rs`, and the monitor
/// layer's match and script caches).
pub(crate) fn exe_identity() -> Option<&'static [u8]> {
    static ID: std::sync::OnceLock<Option<Vec<u8>>> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        let md = std::fs::metadata(&exe).ok()?;
        let t = md
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let mut id = exe.to_string_lossy().into_owned().into_bytes();
        id.extend(md.len().to_le_bytes());
        id.extend(t.as_nanos().to_le_bytes());
        #[cfg(unix)]
        id.extend(std::os::unix::fs::MetadataExt::ino(&md).to_le_bytes());
        Some(id)
    })
    .as_deref()
}

mod api;

pub(crate) use api::{state, state_mut};
pub use api::{BackgroundStats, WarmStats};
