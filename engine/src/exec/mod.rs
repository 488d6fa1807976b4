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

mod api;

pub(crate) use api::{state, state_mut};
pub use api::{BackgroundStats, WarmStats};
