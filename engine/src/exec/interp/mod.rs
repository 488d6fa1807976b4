//! The interpreter tier: Wasm bodies are translated at load time (in the same
//! pass as validation) into a compact pre-decoded form ([`code::Op`]) with
//! resolved branches and a side table from each op back to its original pc.

pub mod code;
pub(crate) mod compile;
mod cold_ops;
mod exec;
mod fused;
mod hot;
mod probes;
pub(crate) mod dynsites;
pub(crate) mod frames;
pub(crate) mod load;

pub(crate) use exec::invoke;
#[cfg(feature = "op-stats")]
pub use hot::print_op_stats;
