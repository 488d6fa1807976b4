//! Layer 4, the monitor subsystem: monitors are Wasm modules beside the app.
//!
//! [`matcher`] loads monitors, parses their probe rules and binds them at each
//! site of the app (static predicates and calls run here); [`weave`] and
//! [`inline`] turn a match into instrumented code for the compiled tiers;
//! [`blockcount`] counts straight-line blocks once; [`frames`] and [`dyninstr`]
//! are the frame-accessor and dynamic-probe imports; [`standalone`] writes an
//! instrumented app and its monitors as one module; [`session`] runs an app
//! with its monitors from loading to `wasm:exit` (what the CLI does);
//! [`builtin`] are the monitors selected by name (`monitors/*.mm`, compiled at
//! build time) and [`report`] renders their reports as tables, with source
//! lines from the app's DWARF ([`dwarf`]); [`profile`] renders the call-tree
//! profile (table, folded stacks, flame graph). Depends on every layer below.

pub mod blockcount;
pub mod builtin;
pub mod dwarf;
pub mod dyninstr;
pub mod frames;
pub mod inline;
pub mod match_cache;
pub mod matcher;
pub(crate) mod plain;
pub mod profile;
pub mod report;
pub(crate) mod script;
pub mod session;
pub mod standalone;
pub mod weave;
