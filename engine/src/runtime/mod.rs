//! Layer 2, runtime: the store and everything a running instance owns.
//!
//! Functions, memories, tables, globals and instances live in the [`store`]'s
//! arenas; [`linear_memory`] reserves each memory with guard pages; `bulk` is
//! the one implementation of the bulk memory and table operations; [`vm`] is the
//! layout of the views compiled code reads (kept in sync by the store); [`wasi`]
//! provides WASI preview1 as host functions; `atomics` is the threads
//! proposal's wait/notify in a one-thread store; [`gc`] is the heap of GC
//! objects and exceptions, and its collector; [`exn`] holds exception tags.
//! Depends only on [`crate::core`].

pub(crate) mod atomics;
pub(crate) mod bulk;
pub mod exn;
pub mod gc;
pub mod linear_memory;
pub mod store;
pub(crate) mod types;
pub(crate) mod value_stack;
pub mod vm;
pub mod wasi;
