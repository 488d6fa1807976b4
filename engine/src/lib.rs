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

pub mod blockcount;
mod bulk;
pub mod dyninstr;
pub mod error;
pub mod frames;
pub mod inline;
pub mod instrument;
pub mod interp;
pub mod jit;
pub mod linear_memory;
pub mod module;
pub mod monitor;
pub mod standalone;
pub mod store;
pub mod types;
pub mod wasi;
pub mod weave;

pub use error::{InstantiateError, LinkError, LoadError, LoadErrorKind, Trap, TrapKind, TrapSite};
pub use module::Module;
pub use store::{Caller, Config, HostFn, Linker, Store, Tier};
pub use types::*;
