//! `wizeng`: a WebAssembly engine whose instrumentation monitors are Wasm modules.
//!
//! Code map:
//! - [`module`]: loader (decode + validate with wasmparser), the module representation
//!   that keeps each function's original bytecode (probes name (fid, pc) in it).
//! - [`store`]: runtime entities (functions, memories, tables, globals, instances),
//!   instantiation, linking, host functions.
//! - [`interp`]: the interpreter tier (pre-decoded code with a pc side table).
//! - [`jit`]: the Cranelift JIT tier.
//! - [`wasi`]: WASI preview1 host functions.
//! - [`error`]: typed errors (load, link, trap).
#![deny(unsafe_op_in_unsafe_fn)]

pub mod core;
pub mod exec;
pub mod monitor;
pub mod runtime;

// The embedding API at the crate root; the layers keep their own paths too.
pub use crate::core::{error, module, probe, types};
pub use exec::{interp, jit};
pub use monitor::{blockcount, dyninstr, frames, inline, standalone, weave};
pub use runtime::{linear_memory, store, wasi};

pub use error::{InstantiateError, LinkError, LoadError, LoadErrorKind, Trap, TrapKind, TrapSite};
pub use exec::{BackgroundStats, WarmStats};
pub use module::Module;
pub use store::{Caller, Config, HostFn, Linker, RawHostFn, Store, Tier};
pub use types::*;
