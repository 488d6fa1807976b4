//! The provenance of a woven function ([`FuncOrigin`]): the original pc of
//! every woven instruction, the monitor export each probe call calls, and
//! where every inlined instruction came from.

use super::body::Body;
use crate::core::provenance::FuncOrigin;

/// The entries with their woven pcs moved past the body's local declarations.
fn after_header<T: Clone>(entries: &[(u32, T)], header_len: u32) -> Vec<(u32, T)> {
    entries
        .iter()
        .map(|(w, o)| (w + header_len, o.clone()))
        .collect()
}

/// The provenance of the function woven into `b` (whose pcs count from its
/// code; the table's from its local declarations).
pub(super) fn func_origin(b: &Body<'_>) -> FuncOrigin {
    FuncOrigin {
        pcs: after_header(&b.pcs, b.header_len),
        probe_calls: after_header(&b.probe_calls, b.header_len),
        inlined: after_header(&b.inlined, b.header_len),
    }
}
