//! Layer 1, core: what a module *is*, independent of how it runs.
//!
//! Types and values, typed errors, the decoded and validated module (with each
//! body's original bytes, so probes can name `(fid, pc)` in it), provenance maps
//! from rewritten code back to original sites, and the tier-independent probe
//! interface ([`probe`]) through which the execution tiers learn about
//! instrumentation. Nothing here depends on another layer.

pub mod error;
pub mod gc_types;
pub mod module;
pub mod operators;
pub mod probe;
pub mod provenance;
pub mod refs;
pub mod site_walk;
pub mod types;
