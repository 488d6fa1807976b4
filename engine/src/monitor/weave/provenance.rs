//! The provenance of a woven function ([`FuncOrigin`]): the original pc of
//! every woven instruction, the monitor export each probe call calls, and
//! where every inlined instruction came from.

use super::body::Body;
use crate::core::provenance::FuncOrigin;

/// The entries with their woven pcs moved past the body's local
/// declarations, in place (they are the body's: one per woven and inlined
/// instruction, not copied).
fn after_header<T>(mut entries: Vec<(u32, T)>, header_len: u32) -> Vec<(u32, T)> {
    for e in &mut entries {
        e.0 += header_len;
    }
    entries
}

/// The provenance of the function woven into `b` (whose pcs count from its
/// code; the table's from its local declarations), taken out of `b`.
pub(super) fn func_origin(b: &mut Body<'_>) -> FuncOrigin {
    FuncOrigin {
        pcs: after_header(std::mem::take(&mut b.pcs), b.header_len),
        probe_calls: after_header(std::mem::take(&mut b.probe_calls), b.header_len),
        inlined: after_header(std::mem::take(&mut b.inlined), b.header_len),
    }
}
