//! The match result to weave: per function, the probe calls at each site and
//! the operand stack where probes read it ([`Plan`]), recorded by [`Recorder`]
//! while the matcher runs.

use rustc_hash::FxHashMap as HashMap;

use wasmparser::Operator;

use crate::core::error::LoadError;
use crate::core::module::Module;
use crate::core::probe::{ArgSource, Instrumenter, ProbeCall, Probes, Site, When};
use crate::core::types::{FuncAddr, ValType};
use crate::monitor::inline::{FrameOp, FrameUse};

/// Probes of one function.
#[derive(Default)]
pub struct FuncPlan {
    pub entry: Vec<ProbeCall>,
    pub before: SiteCalls,
    pub after: SiteCalls,
    /// The operand stack at sites whose probes read operands or take `frame`,
    /// by (pc, after); the entry site is (0, false).
    pub stacks: HashMap<(u32, bool), SiteStack>,
    /// At most how many runs of its code between block splits have probes
    /// (`blockcount::BlockBound`), counted while it was matched: what lets
    /// its block counters be planned when it is first woven
    /// (`blockcount::LazyBlocks`; the match cache keeps it). `None` when
    /// not known: its counters are then planned at load.
    pub blocks_bound: Option<u32>,
}

/// The probe calls at the sites of one kind (before or after the
/// instruction) of one function, by pc. Sites arrive in program order, so
/// this is a sorted list (binary search), and a site's calls are inline
/// when there is one: a plan holds one entry per matched site, which on a
/// large app with a probe on every instruction is millions.
#[derive(Default)]
pub struct SiteCalls {
    pcs: Vec<u32>,
    calls: Vec<Probes>,
}

impl SiteCalls {
    /// The calls at `pc`, if it has any.
    pub fn get(&self, pc: &u32) -> Option<&[ProbeCall]> {
        self.pcs.binary_search(pc).ok().map(|i| &self.calls[i][..])
    }

    /// A cursor for looking sites up in ascending pc order.
    pub fn cursor(&self) -> SiteCursor<'_> {
        SiteCursor {
            sites: Some(self),
            at: 0,
        }
    }

    /// How many calls there are at all the sites.
    pub fn num_calls(&self) -> usize {
        self.calls.iter().map(|c| c.len()).sum()
    }

    pub fn contains_key(&self, pc: &u32) -> bool {
        self.pcs.binary_search(pc).is_ok()
    }

    /// How many sites have calls.
    pub fn len(&self) -> usize {
        self.pcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pcs.is_empty()
    }

    /// Every site with its calls, by pc.
    pub fn iter(&self) -> impl Iterator<Item = (&u32, &[ProbeCall])> {
        self.pcs.iter().zip(self.calls.iter().map(|c| &c[..]))
    }

    /// Sites given in ascending pc order, with their calls (a plan kept
    /// by the match cache, `monitor::match_cache`).
    pub(crate) fn from_sorted(pcs: Vec<u32>, calls: Vec<Probes>) -> SiteCalls {
        debug_assert!(pcs.windows(2).all(|w| w[0] < w[1]) && pcs.len() == calls.len());
        SiteCalls { pcs, calls }
    }

    /// Keep only the sites `keep` accepts (by pc), at their exact size.
    fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let mut out = 0;
        for i in 0..self.pcs.len() {
            if keep(self.pcs[i]) {
                self.pcs.swap(out, i);
                self.calls.swap(out, i);
                out += 1;
            }
        }
        self.pcs.truncate(out);
        self.calls.truncate(out);
        self.pcs.shrink_to_fit();
        self.calls.shrink_to_fit();
    }

    /// The sites, at their exact size; `self` keeps its buffers, empty.
    fn take_exact(&mut self) -> SiteCalls {
        let out = SiteCalls {
            pcs: self.pcs.as_slice().into(),
            calls: self.calls.drain(..).collect(),
        };
        self.pcs.clear();
        out
    }

    /// Add `calls` at `pc` (after any already there).
    fn add(&mut self, pc: u32, calls: Probes) {
        // Sites arrive in program order: usually past the last one.
        if self.pcs.last().is_none_or(|&last| last < pc) {
            self.pcs.push(pc);
            self.calls.push(calls);
            return;
        }
        match self.pcs.binary_search(&pc) {
            Ok(i) => self.calls[i].extend(calls),
            Err(i) => {
                self.pcs.insert(i, pc);
                self.calls.insert(i, calls);
            }
        }
    }
}

/// Looks up the sites of a [`SiteCalls`] by ascending pc, each lookup
/// starting where the last ended (a weave visits sites in order).
#[derive(Default)]
pub struct SiteCursor<'a> {
    sites: Option<&'a SiteCalls>,
    at: usize,
}

impl<'a> SiteCursor<'a> {
    /// The calls at `pc`, if it has any; `pc` must not be below the last
    /// one asked for.
    pub fn get(&mut self, pc: u32) -> Option<&'a [ProbeCall]> {
        let s = self.sites?;
        while s.pcs.get(self.at).is_some_and(|p| *p < pc) {
            self.at += 1;
        }
        (s.pcs.get(self.at) == Some(&pc)).then(|| &s.calls[self.at][..])
    }
}

/// The operand stack of the probed frame at a site, from validation.
#[derive(Clone, Debug, Default)]
pub struct SiteStack {
    /// Operand types, top first (up to the first unknown one).
    pub types: Vec<ValType>,
    /// The same as validation has them (a typed function reference is
    /// more precise than its `ValType`).
    pub declared: Vec<wasmparser::ValType>,
    /// Operand height of the frame: what `get_num_operands` returns there.
    pub height: u32,
    /// How many operands from the top the woven code at the site can pop and
    /// push back (those of the innermost block it is in).
    pub accessible: u32,
}

impl SiteStack {
    fn at(site: &Site<'_, '_>, when: When) -> SiteStack {
        let v = site.validator;
        let declared: Vec<wasmparser::ValType> = (0..v.operand_stack_height())
            .map_while(|d| v.get_operand_type(d as usize).flatten())
            .map(|t| module_indexed(v.resources(), t))
            .collect();
        let types = declared
            .iter()
            .map(|t| ValType::from_wasmparser(*t))
            .collect();
        let height = v.operand_stack_height();
        let block = v.get_control_frame(0).map_or(0, |f| f.height as u32);
        let mut accessible = height.saturating_sub(block);
        // Probes at a `loop` are woven inside it (see `blockcount::layout`),
        // where only the loop's params could be reached: none are used.
        if when == When::Before && matches!(site.op, Some(Operator::Loop { .. })) {
            accessible = 0;
        }
        SiteStack {
            types,
            declared,
            height,
            accessible,
        }
    }

    /// Whether inlined code at this site can access the frame this way with
    /// the ABI's semantics (else the accessor would trap, or its operand is out
    /// of the woven code's reach).
    fn allows(&self, u: FrameUse, local_types: &[ValType]) -> bool {
        let i = u.index as usize;
        match u.op {
            FrameOp::Pc | FrameOp::Fid | FrameOp::NumLocals | FrameOp::NumOperands => true,
            FrameOp::Local { ty, .. } => local_types.get(i) == Some(&ty),
            FrameOp::Operand { ty, .. } => {
                u.index < self.accessible && self.types.get(i) == Some(&ty)
            }
        }
    }
}

/// The match result of a whole module, by function index.
#[derive(Default)]
pub struct Plan {
    pub funcs: HashMap<u32, FuncPlan>,
    /// The functions (ascending) that the interpreter translates at load
    /// when it translates lazily (`exec::interp::load::needs_eager`: they
    /// might have to run interpreted): their woven bodies are never
    /// deferred ([`super::weave_lazy`], which also keeps those weaving adds
    /// reference-typed locals or blocks to). Recorded by [`Recorder`] from
    /// every instruction and local, reached or not; a plan restored from
    /// elsewhere must carry it.
    pub eager_funcs: Vec<u32>,
    /// Whether a body converts between `any` and `extern`
    /// (`any.convert_extern`, `extern.convert_any`), which makes the
    /// interpreter translate the module at load: recorded by [`Recorder`]
    /// from every instruction; `None` when not known (a plan restored from
    /// elsewhere: the module's bodies are scanned for it then).
    pub converts_extern: Option<bool>,
    /// Whether a call takes `frame` or an opaque app reference (what
    /// [`Plan::frames_need_interpreter`] looks for): recorded by
    /// [`Recorder`]; `None` when not known (a restored plan).
    pub takes_frames: Option<bool>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    /// Drop the calls weaving never emits: those of the sites counted
    /// through their block (`FuncBlocks::folded`, planned for this plan),
    /// but at a function's final `end` (whether it has probes decides how
    /// the body is wrapped, `blockcount::wrapped`). A function's weave skips
    /// counted sites, so it is the same without them; with a probe on every
    /// instruction they are nearly all of the plan, which a lazily woven
    /// module keeps until the end of the run. Operand stacks are kept.
    pub fn drop_folded(
        &mut self,
        m: &crate::core::module::ModuleInfo,
        func_blocks: &HashMap<u32, crate::monitor::blockcount::FuncBlocks>,
    ) {
        use crate::monitor::blockcount::key;
        for (f, fp) in self.funcs.iter_mut() {
            let Some(fb) = func_blocks.get(f).filter(|fb| !fb.folded.is_empty()) else {
                continue;
            };
            // (Keys ascend, and so do the pcs of each kind: one walk each.)
            let folded = |at: &mut usize, k: u64| {
                while fb.folded.get(*at).is_some_and(|x| *x < k) {
                    *at += 1;
                }
                fb.folded.get(*at) == Some(&k)
            };
            if folded(&mut 0, key(0, When::Entry)) {
                fp.entry = Vec::new();
            }
            let body = m.body(*f);
            let end_pc = (body.range.end - 1 - body.range.start) as u32;
            let mut at = 0;
            fp.before
                .retain(|pc| !folded(&mut at, key(pc, When::Before)) || pc == end_pc);
            let mut at = 0;
            fp.after.retain(|pc| !folded(&mut at, key(pc, When::After)));
        }
    }
    /// Whether some probe needs the interpreter, so the app must run there:
    /// it takes an opaque app reference (`ArgSource::OpaqueOperand`/
    /// `OpaqueLocal`), or a materialised frame: it takes `frame` and is not inlined with every use of
    /// the handle an intrinsic (`inline::frame_uses`) that is valid at every
    /// site of that probe (locals and operands of the accessed type,
    /// operands within the woven code's reach: `SiteStack::allows`).
    pub fn frames_need_interpreter(
        &self,
        m: &Module,
        store: &crate::runtime::store::Store,
        cfg: &crate::monitor::inline::InlineConfig,
    ) -> bool {
        // (No call takes what it looks for: no walk over every call.)
        if self.takes_frames == Some(false) {
            return false;
        }
        let mut uses: HashMap<(FuncAddr, u32), Option<crate::monitor::inline::FrameUses>> =
            HashMap::default();
        let mut needs = |f: u32, c: &ProbeCall, stack: Option<&SiteStack>| -> bool {
            // An opaque app reference is made by the interpreter only.
            let opaque = |a: &ArgSource| {
                matches!(a, ArgSource::OpaqueOperand(_) | ArgSource::OpaqueLocal(_))
            };
            if c.args.iter().any(opaque) {
                return true;
            }
            let Some(p) = c.args.iter().position(|a| *a == ArgSource::Frame) else {
                return false;
            };
            if !cfg.enabled || c.args.iter().filter(|a| **a == ArgSource::Frame).count() > 1 {
                return true;
            }
            let fu = uses.entry((c.func, p as u32)).or_insert_with(|| {
                crate::monitor::inline::frame_uses_if_inlinable(store, c.func, p as u32, cfg)
            });
            let (Some(fu), Some(stack)) = (fu, stack) else {
                return true;
            };
            if f < m.num_imported_funcs || f >= m.num_funcs() {
                return true;
            }
            let local_types: Vec<ValType> = (m.func_type(f).params.iter())
                .chain(&m.body(f).locals)
                .copied()
                .collect();
            !fu.uses().all(|u| stack.allows(u, &local_types))
        };
        self.funcs.iter().any(|(f, fp)| {
            let site = |pc: u32, after: bool| fp.stacks.get(&(pc, after));
            fp.entry.iter().any(|c| needs(*f, c, site(0, false)))
                || fp
                    .before
                    .iter()
                    .any(|(pc, cs)| cs.iter().any(|c| needs(*f, c, site(*pc, false))))
                || fp
                    .after
                    .iter()
                    .any(|(pc, cs)| cs.iter().any(|c| needs(*f, c, site(*pc, true))))
        })
    }
}

/// Records the probes an inner instrumenter attaches, into a [`Plan`]
/// ([`Recorder::into_plan`]): for matching without translating
/// ([`Module::new_matched`]), so it gives the caller no probes back (they
/// are moved into the plan, not copied).
pub struct Recorder<'a> {
    pub inner: &'a mut dyn Instrumenter,
    plan: Plan,
    /// The function being matched and its probes so far; its sites grow
    /// in buffers reused from function to function, and are copied once,
    /// at their exact size, when it is complete (a vector grown by
    /// doubling is copied about twice and holds up to twice its length).
    cur: Option<(u32, FuncPlan)>,
    /// The bound on the counted blocks of the function being matched.
    bound: crate::monitor::blockcount::BlockBound,
}

impl<'a> Recorder<'a> {
    pub fn new(inner: &'a mut dyn Instrumenter) -> Recorder<'a> {
        Recorder {
            inner,
            plan: Plan {
                converts_extern: Some(false),
                takes_frames: Some(false),
                ..Plan::default()
            },
            cur: None,
            bound: Default::default(),
        }
    }

    /// The plan of every site matched so far.
    pub fn into_plan(mut self) -> Plan {
        self.finish_function();
        self.plan
    }

    /// Move the function being matched, if it got probes, into the plan.
    fn finish_function(&mut self) {
        let Some((f, fp)) = self.cur.as_mut() else {
            return;
        };
        let done = FuncPlan {
            entry: std::mem::take(&mut fp.entry),
            before: fp.before.take_exact(),
            after: fp.after.take_exact(),
            stacks: std::mem::take(&mut fp.stacks),
            blocks_bound: Some(std::mem::take(&mut self.bound).finish()),
        };
        let empty = done.entry.is_empty() && done.before.is_empty() && done.after.is_empty();
        if !empty {
            self.plan.funcs.insert(*f, done);
        }
    }

    /// The plan of function `f`, the one being matched.
    fn func(&mut self, f: u32) -> &mut FuncPlan {
        if self.cur.as_ref().is_none_or(|c| c.0 != f) {
            self.finish_function();
            let fp = self.cur.take().map_or_else(FuncPlan::default, |c| c.1);
            self.cur = Some((f, fp));
        }
        &mut self.cur.as_mut().expect("set above").1
    }
}

impl Instrumenter for Recorder<'_> {
    fn begin_function(
        &mut self,
        func_idx: u32,
        body: &[u8],
        body_offset: usize,
    ) -> Result<(), LoadError> {
        self.func(func_idx);
        self.inner.begin_function(func_idx, body, body_offset)
    }
    fn dynamic(&self) -> bool {
        self.inner.dynamic()
    }
    fn after_sites(&self) -> bool {
        self.inner.after_sites()
    }
    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Probes, LoadError> {
        if self.plan.eager_funcs.last() != Some(&site.func_idx) && needs_eager(when, site) {
            self.plan.eager_funcs.push(site.func_idx);
        }
        if let (When::Before, Some(Operator::AnyConvertExtern | Operator::ExternConvertAny)) =
            (when, site.op)
        {
            self.plan.converts_extern = Some(true);
        }
        let calls = self.inner.probes(when, site)?;
        // An unreached instruction gets no probes (the translator drops them too).
        let probed = !calls.is_empty() && site.reached;
        match when {
            When::After => self.bound.after(probed),
            _ => self.bound.before(site.op, site.at_func_end, probed),
        }
        if probed {
            // Whether a probe reads the operand stack, and whether one takes
            // what may need the interpreter (`frames_need_interpreter`).
            let (mut needs_stack, mut frames) = (false, false);
            for a in calls.iter().flat_map(|c| c.args.iter()) {
                match a {
                    ArgSource::Operand(_) => needs_stack = true,
                    ArgSource::OpaqueOperand(_) | ArgSource::Frame => {
                        (needs_stack, frames) = (true, true)
                    }
                    ArgSource::OpaqueLocal(_) => frames = true,
                    _ => {}
                }
            }
            if frames {
                self.plan.takes_frames = Some(true);
            }
            let fp = self.func(site.func_idx);
            if needs_stack {
                fp.stacks
                    .insert((site.pc, when == When::After), SiteStack::at(site, when));
            }
            match when {
                When::Entry => fp.entry.extend(calls),
                When::Before => fp.before.add(site.pc, calls),
                When::After => fp.after.add(site.pc, calls),
            }
        }
        // (Kept here, not given back: see the type's docs.)
        Ok(Probes::new())
    }
}

/// Whether the interpreter would translate the function of `site` at load
/// (`exec::interp::load::needs_eager`), as far as this site shows: at the
/// entry, from its locals; before an instruction, from the instruction.
fn needs_eager(when: When, site: &Site<'_, '_>) -> bool {
    use crate::exec::interp::load as l;
    match (when, site.op) {
        (When::Entry, _) => {
            let v = site.validator;
            (0..v.len_locals()).any(|i| v.get_local_type(i).is_some_and(l::maybe_heap_ref))
        }
        (When::Before, Some(op)) => l::needs_eager(op),
        _ => false,
    }
}

/// `t` with a concrete heap type named by the module's type index:
/// validation has it as a canonical id, which an encoder cannot write.
fn module_indexed(
    res: &impl wasmparser::WasmModuleResources,
    t: wasmparser::ValType,
) -> wasmparser::ValType {
    use wasmparser::{HeapType, RefType, UnpackedIndex};
    let wasmparser::ValType::Ref(r) = t else {
        return t;
    };
    let HeapType::Concrete(want @ UnpackedIndex::Id(_)) = r.heap_type() else {
        return t;
    };
    let mut i = 0;
    while res.sub_type_at(i).is_some() {
        let mut h = HeapType::Concrete(UnpackedIndex::Module(i));
        if res.check_heap_type(&mut h, 0).is_ok() && h == HeapType::Concrete(want) {
            let module = HeapType::Concrete(UnpackedIndex::Module(i));
            return RefType::new(r.is_nullable(), module).map_or(t, wasmparser::ValType::Ref);
        }
        i += 1;
    }
    t
}

/// The probes a [`Recorder`] recorded, given again without matching again
/// (static calls have effects: they run once per site): for translating the
/// original module for the interpreter after a match made without
/// translating ([`Module::new_matched`]). Direct increments are `inner`'s.
pub struct Replay<'a> {
    pub plan: &'a Plan,
    pub inner: &'a mut dyn Instrumenter,
}

impl Instrumenter for Replay<'_> {
    fn begin_function(&mut self, _: u32, _: &[u8], _: usize) -> Result<(), LoadError> {
        Ok(())
    }
    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Probes, LoadError> {
        let Some(fp) = self.plan.funcs.get(&site.func_idx).filter(|_| site.reached) else {
            return Ok(Probes::new());
        };
        let calls = match when {
            When::Entry => Some(&fp.entry[..]),
            When::Before => fp.before.get(&site.pc),
            When::After => fp.after.get(&site.pc),
        };
        Ok(calls.map_or(Probes::new(), |c| c.iter().cloned().collect()))
    }
    fn direct_increments(
        &mut self,
        calls: &[ProbeCall],
    ) -> Option<Vec<crate::core::probe::Direct>> {
        self.inner.direct_increments(calls)
    }
}
