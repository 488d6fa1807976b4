//! The interpreter tier: Wasm bodies are translated at load time (in the same
//! pass as validation) into a compact pre-decoded form ([`code::Op`]) with
//! resolved branches and a side table from each op back to its original pc.

mod atomics;
pub mod code;
mod cold_ops;
pub(crate) mod compile;
pub(crate) mod dynsites;
mod exec;
pub(crate) mod frames;
mod fused;
mod gc_ops;
pub(crate) mod gc_roots;
mod hot;
pub(crate) mod load;
pub use load::{translated, translated_lazily};
pub(crate) mod plain;
mod probes;
pub(crate) mod simd;
mod simd_fast;
#[cfg(target_arch = "x86_64")]
mod simd_x86;
pub(crate) mod stackmap;
mod unwind;
pub mod validated;
mod woven;

pub(crate) use atomics::atomic_memarg;
pub(crate) use exec::{invoke, invoke_slots};
#[cfg(feature = "op-stats")]
pub use hot::print_op_stats;
