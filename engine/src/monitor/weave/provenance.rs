//! The provenance table of a woven module ([`Origin`]): per defined function,
//! the original pc of every woven instruction, the monitor export each probe
//! call calls, and where every inlined instruction came from.

use std::sync::Arc;

use super::body::Body;
use super::{InlinedFrom, Origin};

/// The provenance of the functions woven so far (in order).
#[derive(Default)]
pub(super) struct Provenance {
    pcs: Vec<Vec<(u32, u32)>>,
    probe_calls: Vec<Vec<(u32, Arc<str>)>>,
    inlined: Vec<Vec<(u32, InlinedFrom)>>,
}

/// The entries with their woven pcs moved past the body's local declarations.
fn after_header<T: Clone>(entries: &[(u32, T)], header_len: u32) -> Vec<(u32, T)> {
    entries
        .iter()
        .map(|(w, o)| (w + header_len, o.clone()))
        .collect()
}

impl Provenance {
    /// Record the next woven function (`b`, whose pcs count from its code).
    pub(super) fn push(&mut self, b: &Body<'_>) {
        self.pcs.push(after_header(&b.pcs, b.header_len));
        self.probe_calls
            .push(after_header(&b.probe_calls, b.header_len));
        self.inlined.push(after_header(&b.inlined, b.header_len));
    }

    /// The table of a module with `orig_imports` function imports, to which
    /// weaving added `shift`.
    pub(super) fn into_origin(self, orig_imports: u32, shift: u32) -> Origin {
        Origin {
            orig_imports,
            shift,
            pcs: self.pcs,
            probe_calls: self.probe_calls,
            inlined: self.inlined,
            ..Origin::default()
        }
    }
}
