//! Validating the bodies of a large lazily translated module on two threads.
//!
//! Loading such a module validates every body without translating it
//! ([`super::validate_only`]); on a large application (boa, 4.4 MB) that is
//! most of its load. The bodies are independent once the module's sections
//! are validated, so the loader keeps them ([`Job`]s) until the end of the
//! code section and validates them here, on the calling thread and one
//! worker, which take chunks of consecutive bodies in ascending order. The
//! caller gets what a validation in order would have found: the outcome of
//! every body before the first invalid one, and that body's error (the
//! lowest index's, with the same message).

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use wasmparser::{
    BinaryReader, FuncToValidate, FuncValidatorAllocations, FunctionBody, WasmFeatures,
};

use super::{validate_only, Checked};
use crate::core::error::LoadError;
use crate::core::module::Resources;

/// A code section at least this large (bytes) is validated on two threads;
/// a smaller one on the loading thread alone, in order. Measured on a
/// shared two-core machine, the loads of wasure's wasm-r3 modules with code
/// sections of 290-610 KB went either way by ±0.7 ms (of 2.5-6.5 ms);
/// commanderkeen (3.0 MB of code) went from 17.8 to 13.7 ms, boa (4.0 MB)
/// from 32 to 18 ms.
pub(super) const MIN_CODE_SIZE: usize = 512 * 1024;

/// Bodies per chunk a thread takes at a time: small enough to balance
/// bodies of very different sizes, large enough that taking one is cheap.
const CHUNK: usize = 16;

/// A body kept for validation.
pub(super) struct Job {
    /// Its index in the function index space.
    pub index: u32,
    /// Its type index.
    pub ty: u32,
    /// Its defined index (its slot of the module's code).
    pub defined: usize,
    /// Where it is in the module's bytes.
    pub range: Range<usize>,
}

impl Job {
    /// The body, read from the module's `bytes`.
    pub fn body<'b>(&self, bytes: &'b [u8]) -> FunctionBody<'b> {
        FunctionBody::new(BinaryReader::new(
            &bytes[self.range.clone()],
            self.range.start,
        ))
    }

    fn validator(
        &self,
        resources: &Resources,
        features: WasmFeatures,
    ) -> FuncToValidate<Resources> {
        FuncToValidate {
            resources: resources.clone(),
            index: self.index,
            ty: self.ty,
            features,
        }
    }
}

/// Validate `jobs` (ascending) on this thread and a worker: the outcome of
/// every job before the first invalid one, and its error. Without a worker
/// (the thread cannot be started) this thread validates them all.
pub(super) fn validate(
    bytes: &[u8],
    jobs: &[Job],
    resources: &Resources,
    features: WasmFeatures,
) -> (Vec<Checked>, Option<LoadError>) {
    let next = AtomicUsize::new(0);
    let first_error = AtomicUsize::new(usize::MAX);
    let work = || take_chunks(bytes, jobs, resources, features, &next, &first_error);
    let (mut done, theirs) = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("wizeng-validate".into())
            .spawn_scoped(s, work);
        let mine = work();
        let theirs = worker.map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        (mine, theirs.unwrap_or_default())
    });
    done.extend(theirs);
    done.sort_unstable_by_key(|(i, _)| *i);
    let mut checked = Vec::with_capacity(jobs.len());
    // Every job before the first error was validated (chunks are taken in
    // ascending order, and one is given up only after an error before it).
    for (i, r) in done {
        debug_assert_eq!(i, checked.len(), "a job before the first error was skipped");
        match r {
            Ok(c) => checked.push(c),
            Err(e) => return (checked, Some(e)),
        }
    }
    (checked, None)
}

/// Validate chunks of `jobs` until none is left (or every one left is
/// after an invalid body): each job's position and outcome.
fn take_chunks(
    bytes: &[u8],
    jobs: &[Job],
    resources: &Resources,
    features: WasmFeatures,
    next: &AtomicUsize,
    first_error: &AtomicUsize,
) -> Vec<(usize, Result<Checked, LoadError>)> {
    let mut out = Vec::new();
    let mut allocs = FuncValidatorAllocations::default();
    loop {
        let start = next.fetch_add(CHUNK, Relaxed);
        if start >= jobs.len() || start > first_error.load(Relaxed) {
            return out;
        }
        for (i, job) in jobs.iter().enumerate().skip(start).take(CHUNK) {
            let mut v = job.validator(resources, features).into_validator(allocs);
            let r = validate_only(&mut v, &job.body(bytes), features);
            allocs = v.into_allocations();
            let failed = r.is_err();
            out.push((i, r));
            if failed {
                first_error.fetch_min(i, Relaxed);
                break;
            }
        }
    }
}
