//! Direct increments: a site's probe calls that do nothing but increment
//! counters at fixed addresses of monitor memories become `Op::MonInc*` in
//! the interpreter, both in the code `--mode=int` runs (the matcher's
//! `Instrumenter::direct_increments`) and in the plain bodies the dyn tier
//! interprets (`exec::interp::plain`).

use crate::core::probe::{ArgSource, Direct, DirectInc, ProbeCall};
use crate::monitor::blockcount::{pure_increment, Inc};
use crate::monitor::inline::ZeroTested;
use crate::runtime::store::Store;

/// Let the dyn tier interpret `store`'s lazily woven functions from their
/// plain bodies until they are compiled.
pub(crate) fn enable(store: &mut Store) {
    let mut zero_tested = ZeroTested::default();
    crate::exec::interp::plain::set_direct(
        store,
        Box::new(move |store, calls| direct_increments(store, &mut zero_tested, calls)),
    );
}

/// `calls` as direct increments, if each is one or more increments, or one
/// increment either way of a zero test of an operand.
pub(crate) fn direct_increments(
    store: &mut Store,
    zero_tested: &mut ZeroTested,
    calls: &[ProbeCall],
) -> Option<Vec<Direct>> {
    let mut out = Vec::new();
    for c in calls {
        // A call that reads an operand is usually one only as a zero test
        // (evaluated with the operand unknown it is not), so that is tried
        // first; either way it is the same increment.
        if c.args.iter().any(|a| matches!(a, ArgSource::Operand(_))) {
            if let Some(d) = select(store, zero_tested, c) {
                out.push(d);
                continue;
            }
        }
        for inc in pure_increment(store, c)? {
            out.push(Direct::Inc(direct_inc(store, inc)?));
        }
    }
    Some(out)
}

/// Call `c` as one increment if an operand it only tests against zero is
/// non-zero and another if it is zero.
fn select(store: &mut Store, zero_tested: &mut ZeroTested, c: &ProbeCall) -> Option<Direct> {
    let (p, operand, _) = zero_tested.of(store, c)?;
    let mut one = |v: u64| {
        let mut cv = c.clone();
        cv.args[p] = ArgSource::Const(v);
        match pure_increment(store, &cv)?.as_slice() {
            [inc] => direct_inc(store, *inc),
            _ => None,
        }
    };
    let (nz, z) = (one(1)?, one(0)?);
    Some(Direct::Select { operand, nz, z })
}

/// `inc` at its address in its memory (in bounds: `pure_increment` checked
/// it; memories never move or shrink), if the interpreter's ops can do it.
fn direct_inc(store: &mut Store, inc: Inc) -> Option<DirectInc> {
    let delta = u32::try_from(inc.delta).ok()?;
    // (A zero-extended counter or a store stays a probe call.)
    if !matches!(inc.width, 4 | 8) || inc.zext || inc.set {
        return None;
    }
    let mem = &mut store.memories[inc.mem.0 as usize].data;
    let addr = mem.as_mut_ptr().wrapping_add(inc.ea as usize) as u64;
    Some(DirectInc {
        addr,
        width: inc.width,
        delta,
    })
}
