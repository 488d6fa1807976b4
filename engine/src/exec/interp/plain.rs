//! Plain bodies of a lazily woven module (the dyn tier with monitors): a
//! function the interpreter runs before it is compiled is translated from
//! the app's own code ([`PlainBody`]) with its probes fired beside it, as
//! `--mode=int` fires them (direct increments where a probe is nothing but
//! counter increments, probe calls otherwise), instead of from its woven
//! body. Only a function the dyn tier compiles (hot at a call, or at a loop:
//! OSR) is woven, by the JIT, from the woven module's made body.
//!
//! The translated code's pcs are the original's ([`Compiled::plain`]). An
//! OSR entry into the woven body is made at the woven `loop` the original
//! loop became ([`osr_pc`]); the interpreter's iteration count sits before
//! that loop's probes there (`ModuleCtx::loop_head_first`), as the woven
//! body has them inside the loop, so no probe fires twice or is skipped.
//! The woven body's added locals (scratch) start at zero there, as at a
//! call: weaving writes each before it reads it.

use std::rc::Rc;

use super::code::Compiled;
use crate::core::error::LoadError;
use crate::core::module::{Module, PlainBody};
use crate::core::probe::{Direct, Instrumenter, ProbeCall, Probes, Site, When};
use crate::runtime::store::{Store, Tier};

/// What a plain body's probes become in the interpreter: a site's calls as
/// direct increments when they are nothing else (see
/// [`Instrumenter::direct_increments`]), given by the monitors' side
/// ([`set_direct`]).
pub(crate) type DirectFn = Box<dyn FnMut(&mut Store, &[ProbeCall]) -> Option<Vec<Direct>>>;

/// Let the interpreter translate plain bodies in `store`, with `direct`
/// deciding direct increments.
pub(crate) fn set_direct(store: &mut Store, direct: DirectFn) {
    crate::exec::state_mut(store).plain_direct = Some(direct);
}

/// The code of defined function `func_idx` of instance `inst` for a call
/// the interpreter runs: [`super::load::func_code`], translated from its
/// plain body if it has one and the store interprets plain bodies.
pub(crate) fn code_for_call(
    store: &mut Store,
    inst: usize,
    func_idx: u32,
) -> Result<&Rc<Compiled>, crate::core::error::Trap> {
    let m = &store.instances[inst].module;
    if !super::load::translated(m, func_idx)
        && m.lazy.is_some()
        && store.config.tier == Tier::Dyn
        && crate::exec::state(store).plain_direct.is_some()
    {
        translate_plain(store, inst, func_idx);
    }
    super::load::func_code(&store.instances[inst].module, func_idx)
}

/// Translate `func_idx`'s plain body into its slot, if it has one (else
/// the slot stays empty: its made body is translated as usual).
#[cold]
#[inline(never)]
fn translate_plain(store: &mut Store, inst: usize, func_idx: u32) {
    let m = store.instances[inst].module.clone();
    let d = (func_idx - m.num_imported_funcs) as usize;
    let Some(body) = m.lazy.as_ref().and_then(|l| l.plain(d, func_idx)) else {
        return;
    };
    let Some(mut direct) = crate::exec::state_mut(store).plain_direct.take() else {
        return;
    };
    let r = translate(&m, func_idx, &body, &mut |calls| direct(store, calls));
    crate::exec::state_mut(store).plain_direct = Some(direct);
    // (On failure the made body is translated instead, and its error,
    // if any, reported as for any body.)
    if let Ok(c) = r {
        super::load::set_code(&m, func_idx, c);
    }
}

/// `body` translated for `m`'s function `func_idx`, its pcs the original's.
fn translate(
    m: &Module,
    func_idx: u32,
    body: &PlainBody,
    direct: &mut dyn FnMut(&[ProbeCall]) -> Option<Vec<Direct>>,
) -> Result<Compiled, LoadError> {
    let start = m.body(func_idx).range.start;
    let func = m.func_to_validate(func_idx)?;
    let mut v = func.into_validator(Default::default());
    let reader = wasmparser::BinaryReader::new(&body.bytes, start);
    let fb = wasmparser::FunctionBody::new(reader);
    let mut ctx = super::load::module_ctx(m);
    ctx.loop_head_first = true;
    let mut probes = PlainProbes {
        body,
        direct,
        at: [0; 3],
    };
    let mut c = super::compile::translate(&mut v, &fb, &ctx, Some(&mut probes))?;
    for pc in &mut c.pcs {
        *pc = body.original_pc(*pc);
    }
    c.plain = true;
    Ok(c)
}

/// A plain body's probes, by the site's pc in the plain body.
struct PlainProbes<'a> {
    body: &'a PlainBody,
    direct: &'a mut dyn FnMut(&[ProbeCall]) -> Option<Vec<Direct>>,
    /// Cursors into `body.pcs`, `body.before` and `body.after`: sites are
    /// asked for in ascending pc order, every instruction's.
    at: [usize; 3],
}

/// Advance cursor `at` past the entries of `list` whose key is below `k`;
/// the entry there if its key is `k`.
fn seek<'l, T>(list: &'l [(u32, T)], at: &mut usize, k: u32) -> Option<&'l T> {
    while list.get(*at).is_some_and(|e| e.0 < k) {
        *at += 1;
    }
    list.get(*at).filter(|e| e.0 == k).map(|e| &e.1)
}

impl Instrumenter for PlainProbes<'_> {
    fn begin_function(&mut self, _: u32, _: &[u8], _: usize) -> Result<(), LoadError> {
        Ok(())
    }

    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Probes, LoadError> {
        if !site.reached {
            return Ok(Probes::new());
        }
        let (sites, k) = match when {
            When::Entry => return Ok(self.body.entry.clone()),
            When::Before => (&self.body.before, 1),
            When::After => (&self.body.after, 2),
        };
        let [pcs, rest @ ..] = &mut self.at;
        let Some(&pc) = seek(&self.body.pcs, pcs, site.pc) else {
            return Ok(Probes::new());
        };
        Ok(seek(sites, &mut rest[k - 1], pc)
            .cloned()
            .unwrap_or_default())
    }

    fn after_sites(&self) -> bool {
        !self.body.after.is_empty()
    }

    fn direct_increments(&mut self, calls: &[ProbeCall]) -> Option<Vec<Direct>> {
        (self.direct)(calls)
    }
}

/// How many of `m`'s functions run their plain bodies (for `--metrics`).
pub fn plain_count(m: &Module) -> usize {
    super::load::module_code(m)
        .translated()
        .filter(|c| c.plain)
        .count()
}

/// The pc of the woven `loop` that plain `code`'s loop at op `op_index`
/// became, in function `code.func_idx`'s made body (woven now if it was
/// not yet): where the OSR entry starts. `None` if no app `loop` of the
/// woven body comes from it.
#[cold]
pub(crate) fn osr_pc(m: &Module, code: &Compiled, op_index: usize) -> Option<u32> {
    let idx = code.func_idx;
    let orig = *code.pcs.get(op_index)?;
    let bytes = m.body_bytes(idx).ok()?;
    let o = m.origin.as_ref()?;
    let fb = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(bytes, 0));
    let mut ops = fb.get_operators_reader().ok()?;
    while !ops.eof() {
        let (op, off) = ops.read_with_offset().ok()?;
        let off = off as u32;
        if matches!(op, wasmparser::Operator::Loop { .. })
            && o.pc(idx, off) == orig
            && o.inlined_at(idx, off).is_none()
            && o.probe_call(idx, off).is_none()
        {
            return Some(off);
        }
    }
    None
}
