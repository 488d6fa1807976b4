//! The store's heap of garbage-collected objects (Wasm GC structs and arrays,
//! exception objects) and its collector.
//!
//! Design: a non-moving mark-sweep collector over an arena of objects
//! addressed by index ([`crate::core::refs`] encodes an index as a slot).
//! Objects never move, so a handle stays valid as long as the object is
//! reachable; a collection marks from the roots the engine enumerates
//! precisely (globals, tables, element segments, the interpreter's value
//! stacks through stack maps, values held by the embedder) and frees the rest,
//! whose indices are reused. Compiled (JIT) code never holds a heap reference:
//! functions that could are interpreted. Collections happen only at
//! allocations, when the bytes allocated since the last collection exceed a
//! budget proportional to the live bytes after it.

mod heap;
pub(crate) mod objects;
mod opaque;

pub use heap::{GcStats, Heap, Object, ObjectKind, RefMap};
pub use opaque::OpaqueRefs;
