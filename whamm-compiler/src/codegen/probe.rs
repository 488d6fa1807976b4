//! Probe emission: for each group of matches with identical code, the
//! match-time predicate function (`$pred_N`), the body function, and per
//! match the site-record allocator (`$alloc_N`) and the export whose name
//! is the monitor-ABI pattern.

use super::bound::{Access, BoundEnv, PKey, REC_FNAME};
use super::fn_cx::FnCx;
use super::fold::Const;
use super::plan::{group_plans, MatchPlan, ProbeLayout};
use super::report::ProbeSites;
use super::repr::*;
use super::walk::expr_vars;
use super::Cg;
use crate::ast::*;
use crate::check::{BoundInfo, CheckResult};
use crate::diag::Diag;
use crate::types::Type;
use monitor_abi::{Param, StaticCall};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use wasm_encoder::{BlockType, ExportKind, Instruction as I, ValType as VT};

/// The body function of a group of matches, and the ABI parameters it takes
/// after the site record.
pub(super) struct BodyFn {
    pub(super) func: u32,
    pub(super) keys: Vec<PKey>,
}

/// The parameter types of a static call taking `keys` (buffer-passed
/// variables as (ptr, len)).
pub(super) fn static_call_params(keys: &[PKey], env: &BoundEnv) -> Vec<VT> {
    let mut params = vec![];
    for k in keys {
        if k.is_buf() {
            params.extend([VT::I32, VT::I32]);
        } else {
            params.push(vt(&env.pkey_type(k, None)));
        }
    }
    params
}

impl<'a> Cg<'a> {
    /// A probe on instruction events: plan it, then emit each group of
    /// matches.
    pub(super) fn probe(&mut self, pi: usize, p: &Probe) {
        let checked: &'a CheckResult = self.checked;
        let info = &checked.probes[pi];
        let used = &info.used_bound;
        let Some(lay) = self.probe_layout(p, used) else {
            return;
        };
        let head = self.m.global(VT::I32, zero_const(VT::I32));
        let tail = self.m.global(VT::I32, zero_const(VT::I32));
        self.sites.push(ProbeSites {
            head,
            tail,
            report: lay
                .site_vars
                .iter()
                .filter(|v| v.3)
                .map(|v| (v.0.clone(), v.1.clone(), v.2))
                .collect(),
        });
        let Some(plans) = self.plan_matches(p, info, &lay) else {
            return;
        };
        if let Some(star) = self.star_plan(&plans, &lay, used) {
            self.star_probe(pi, p, &plans, star, &lay, (head, tail));
            return;
        }
        for (_, members) in group_plans(&plans, used, self.opts.portable) {
            let pl = &plans[members[0]];
            let env = pl.env(used, self.opts.portable);
            let pred_call = self.static_predicate(pl, &env, &lay);
            let body = self.body_fn(p, pl, &env, &lay);
            for &mi in &members {
                let mut abi_params = vec![];
                if lay.has_site {
                    let alloc = self.alloc_fn(pi, &plans[mi], &lay, (head, tail));
                    abi_params.push(Param::Call(alloc));
                }
                abi_params.extend(body.keys.iter().map(|k| k.param()));
                let pat = monitor_abi::Pattern {
                    event: plans[mi].pattern_event,
                    predicate: pred_call.clone(),
                    params: abi_params,
                };
                self.export_match(p, &pat, body.func);
            }
        }
    }

    /// The match-time predicate of a group (`$pred_N`): its type guards and
    /// undecided match-time conjuncts; `None` if there are none.
    pub(super) fn static_predicate(
        &mut self,
        pl: &MatchPlan,
        env: &BoundEnv,
        lay: &ProbeLayout,
    ) -> Option<StaticCall> {
        if pl.static_conj.is_empty() && pl.guards.is_empty() {
            return None;
        }
        let mut keys: BTreeSet<PKey> = pl.pred_access.values().flat_map(|a| env.pkeys(a)).collect();
        keys.extend(pl.guards.keys().cloned());
        if reads_variant(pl, &pl.pred_access) {
            keys.insert(PKey::Opcode);
        }
        let keys: Vec<PKey> = keys.into_iter().collect();
        let params = static_call_params(&keys, env);
        let f = self.m.declare(&params, &[VT::I32]);
        let mut cx = FnCx::new(&params, None);
        let saved = cx.local(VT::I32);
        cx.e(I::GlobalGet(0));
        cx.e(I::LocalSet(saved));
        let locals = self.bind_params(&mut cx, &keys, env, true);
        self.bind_bound(&mut cx, &pl.pred_access, &pl.consts, &locals, env, None);
        bind_variant(&mut cx, pl, &pl.pred_access, &locals, env);
        let res = cx.local(VT::I32);
        cx.e(I::I32Const(1));
        cx.e(I::LocalSet(res));
        for (k, code) in &pl.guards {
            cx.e(I::LocalGet(locals[k].0));
            cx.e(I::I32Const(*code));
            cx.e(I::I32Eq);
            cx.e(I::LocalGet(res));
            cx.e(I::I32And);
            cx.e(I::LocalSet(res));
        }
        for i in &pl.static_conj {
            self.expr_to(&mut cx, lay.conj[*i], &Type::Bool);
            cx.e(I::LocalGet(res));
            cx.e(I::I32And);
            cx.e(I::LocalSet(res));
        }
        cx.e(I::LocalGet(saved));
        cx.e(I::GlobalSet(0));
        cx.e(I::LocalGet(res));
        self.m.define(f, cx.finish());
        self.counter += 1;
        let name = format!("$pred_{}", self.counter);
        self.m.export(&name, ExportKind::Func, f);
        Some(StaticCall {
            name,
            params: keys.iter().map(|k| k.param()).collect(),
        })
    }

    /// The body function of a group: (site record,) then one parameter per
    /// ABI value the body reads; tests the run-time conjuncts, then runs
    /// the statements.
    pub(super) fn body_fn(
        &mut self,
        p: &Probe,
        pl: &MatchPlan,
        env: &BoundEnv,
        lay: &ProbeLayout,
    ) -> BodyFn {
        let keys: Vec<PKey> = pl
            .body_access
            .values()
            .flat_map(|a| env.pkeys(a))
            .filter(|k| !k.is_buf())
            .collect::<BTreeSet<PKey>>()
            .into_iter()
            .collect();
        let key_types = body_key_types(&keys, pl, env);
        let mut params = vec![];
        if lay.has_site {
            params.push(VT::I32);
        }
        params.extend(key_types.iter().map(vt));
        let f = self.m.declare(&params, &[]);
        let mut cx = FnCx::new(&params, None);
        let rec = if lay.has_site { Some(0u32) } else { None };
        let first = u32::from(lay.has_site);
        let mut locals = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            let l = first + i as u32;
            self.normalize_param(&mut cx, l, &key_types[i]);
            locals.insert(k.clone(), (l, key_types[i].clone()));
        }
        self.bind_bound(
            &mut cx,
            &pl.body_access,
            &pl.consts,
            &locals,
            env,
            rec.map(|r| (r, &lay.rec_fields[..])),
        );
        if let Some(r) = rec {
            bind_record(&mut cx, r, lay);
        }
        self.run_time_predicate(&mut cx, lay);
        self.stmts(&mut cx, &p.body.stmts, true);
        self.m.define(f, cx.finish());
        BodyFn { func: f, keys }
    }

    /// Return early unless every run-time conjunct holds.
    fn run_time_predicate(&mut self, cx: &mut FnCx, lay: &ProbeLayout) {
        for (i, c) in lay.conj.iter().enumerate() {
            if lay.is_static[i] {
                continue; // decided at match time (or folded to true)
            }
            self.expr_to(cx, c, &Type::Bool);
            cx.e(I::I32Eqz);
            cx.e(I::If(BlockType::Empty));
            cx.e(I::Return);
            cx.e(I::End);
        }
    }

    /// Export the body function under the pattern's name.
    pub(super) fn export_match(&mut self, p: &Probe, pat: &monitor_abi::Pattern, f: u32) {
        let mut name = pat.to_string();
        // Two probes on one event with the same parameters: export names
        // must differ, so the n-th copy gets n spaces after the event (the
        // ABI grammar's `ws`).
        let ev_len = format!("wasm:{}", pat.event).len();
        let mut pad = 0;
        while self.export_names.contains(&name) {
            pad += 1;
            let canon = pat.to_string();
            name = format!(
                "{}{}{}",
                &canon[..ev_len],
                " ".repeat(pad),
                &canon[ev_len..]
            );
        }
        self.export_names.insert(name.clone());
        debug_assert!(monitor_abi::parse_export_name(&name).is_ok(), "{name}");
        if let Err(e) = monitor_abi::parse_export_name(&name) {
            self.err(Diag::error(
                format!("internal compiler error: export name `{name}` does not parse: {e}"),
                p.rule_span,
            ));
        }
        self.m.export(&name, ExportKind::Func, f);
    }

    /// The site allocator of one match (`$alloc_N`), run once per matched
    /// site: allocates and links the record, fills its header and static
    /// fields, makes the `@static` calls and initializes the per-site
    /// variables; returns the record.
    fn alloc_fn(
        &mut self,
        pi: usize,
        pl: &MatchPlan,
        lay: &ProbeLayout,
        head_tail: (u32, u32),
    ) -> StaticCall {
        let (keys, params, core) = self.alloc_core_fn(pi, pl, lay, head_tail);
        // the probe id as the report prints it, between separators
        let label = self.numbering.label(pi, &pl.match_name);
        let pid = self.m.string(&format!(", {label}, "));
        let f = self.m.declare(&params, &[VT::I32]);
        let mut cx = FnCx::new(&params, None);
        for l in 0..params.len() as u32 {
            cx.e(I::LocalGet(l));
        }
        cx.e(I::I32Const(pid as i32));
        cx.e(I::Call(core));
        self.m.define(f, cx.finish());
        self.export_alloc(f, &keys)
    }

    /// Export an allocator as `$alloc_N` taking `keys`.
    pub(super) fn export_alloc(&mut self, f: u32, keys: &[PKey]) -> StaticCall {
        self.counter += 1;
        let name = format!("$alloc_{}", self.counter);
        self.m.export(&name, ExportKind::Func, f);
        StaticCall {
            name,
            params: keys.iter().map(|k| k.param()).collect(),
        }
    }

    /// The allocation proper of a match (shared by the matches whose code
    /// is the same): its keys, the parameters they take (without the probe
    /// id, which the allocation takes last) and its function.
    pub(super) fn alloc_core_fn(
        &mut self,
        pi: usize,
        pl: &MatchPlan,
        lay: &ProbeLayout,
        (head, tail): (u32, u32),
    ) -> (Vec<PKey>, Vec<VT>, u32) {
        let checked: &'a CheckResult = self.checked;
        let used = &checked.probes[pi].used_bound;
        let env = pl.env(used, self.opts.portable);
        let (init_access, consts) = alloc_accesses(pl, lay, &env, used);
        let mut keys: BTreeSet<PKey> = init_access.values().flat_map(|a| env.pkeys(a)).collect();
        keys.extend([PKey::Fid, PKey::Pc, PKey::Fname]);
        if reads_variant(pl, &init_access) {
            keys.insert(PKey::Opcode);
        }
        keys.extend(lay.rec_fields.iter().map(|(k, _)| k.clone()));
        let keys: Vec<PKey> = keys.into_iter().collect();
        let params = static_call_params(&keys, &env);
        // The allocation proper takes the probe id as a last parameter, so
        // that the matches of a probe share it (`alloc_core`); each match's
        // `$alloc_N` only adds its probe id.
        let mut core_params = params.clone();
        core_params.push(VT::I32);
        let mut cx = FnCx::new(&core_params, None);
        let locals = self.bind_params(&mut cx, &keys, &env, false);
        let rec = cx.local(VT::I32);
        cx.e(I::I32Const(lay.rec_size as i32));
        cx.e(I::Call(self.m.rt("alloc")));
        cx.e(I::LocalSet(rec));
        let fields = [(PKey::Fid, 4u32), (PKey::Pc, 8), (PKey::Fname, REC_FNAME)];
        for (k, off) in fields.iter().chain(&lay.rec_fields) {
            cx.e(I::LocalGet(rec));
            cx.e(I::LocalGet(locals[k].0));
            cx.e(I::I32Store(mem8(*off, 2)));
        }
        cx.e(I::LocalGet(rec));
        cx.e(I::LocalGet(params.len() as u32));
        cx.e(I::I32Store(mem8(16, 2)));
        link_record(&mut cx, rec, head, tail);
        self.bind_bound(&mut cx, &init_access, &consts, &locals, &env, None);
        bind_variant(&mut cx, pl, &init_access, &locals, &env);
        self.init_record(&mut cx, rec, lay);
        cx.e(I::LocalGet(rec));
        let core = self.alloc_core(&core_params, cx.finish());
        (keys, params, core)
    }

    /// The function of an allocator's code with parameters `params`: the
    /// existing one if another match generated the same code (the matches of
    /// `wasm:opcode:*` differ in their probe id only), else a new one. One
    /// function instead of one per opcode keeps the monitor small (its
    /// decoding and translation cost grows with its code).
    fn alloc_core(&mut self, params: &[VT], code: wasm_encoder::Function) -> u32 {
        let mut key = vec![];
        wasm_encoder::Encode::encode(&code, &mut key);
        let key = (format!("{params:?}"), key);
        if let Some(&f) = self.alloc_cores.get(&key) {
            return f;
        }
        let f = self.m.declare(params, &[VT::I32]);
        self.m.define(f, code);
        self.alloc_cores.insert(key, f);
        f
    }

    /// Make the `@static` calls into the record (first: initializers may
    /// use them too), then initialize the per-site variables.
    fn init_record(&mut self, cx: &mut FnCx, rec: u32, lay: &ProbeLayout) {
        for (e, t, off) in &lay.static_fields {
            let ExprKind::Static(inner) = &e.kind else {
                continue;
            };
            self.expr(cx, inner);
            let loc = Loc::Mem(Base::Local(rec), *off);
            self.store_from_stack(cx, t, &loc);
            let v = Var { ty: t.clone(), loc };
            cx.statics.insert((e.span.lo, e.span.hi), v);
        }
        for (d, (name, t, off, _)) in lay.site_decls.iter().zip(&lay.site_vars) {
            let loc = Loc::Mem(Base::Local(rec), *off);
            self.init_maps(cx, t, &loc);
            if let Some(e) = d.init {
                self.expr_to(cx, e, t);
                self.store_from_stack(cx, t, &loc);
            }
            // later initializers may read it (`var n: u32 = s.len();`)
            let v = Var { ty: t.clone(), loc };
            cx.site_vars.insert(name.clone(), v);
        }
    }
}

/// The language type of each body parameter: operands read through derived
/// accessors (addr, target, ...) are u32.
fn body_key_types(keys: &[PKey], pl: &MatchPlan, env: &BoundEnv) -> Vec<Type> {
    let name_ty = |k: &PKey| -> Option<Type> {
        pl.body_access
            .iter()
            .find(|(_, a)| **a == Access::P(k.clone()))
            .map(|(n, _)| env.var_type(n))
    };
    keys.iter()
        .map(|k| {
            let t = env.pkey_type(k, name_ty(k).as_ref());
            if matches!(k, PKey::Arg(_)) && name_ty(k).is_none() {
                Type::U32
            } else {
                t
            }
        })
        .collect()
}

/// In a body, `@static` results and per-site variables live in the record
/// (local `r`).
fn bind_record(cx: &mut FnCx, r: u32, lay: &ProbeLayout) {
    for (e, t, off) in &lay.static_fields {
        cx.statics.insert(
            (e.span.lo, e.span.hi),
            Var {
                ty: t.clone(),
                loc: Loc::Mem(Base::Local(r), *off),
            },
        );
    }
    for (n, t, off, _) in &lay.site_vars {
        cx.site_vars.insert(
            n.clone(),
            Var {
                ty: t.clone(),
                loc: Loc::Mem(Base::Local(r), *off),
            },
        );
    }
}

/// Append the record in local `rec` to the probe's list:
/// if tail { tail.next = rec } else { head = rec }; tail = rec.
fn link_record(cx: &mut FnCx, rec: u32, head: u32, tail: u32) {
    cx.e(I::GlobalGet(tail));
    cx.e(I::If(BlockType::Empty));
    cx.e(I::GlobalGet(tail));
    cx.e(I::LocalGet(rec));
    cx.e(I::I32Store(mem8(0, 2)));
    cx.e(I::Else);
    cx.e(I::LocalGet(rec));
    cx.e(I::GlobalSet(head));
    cx.e(I::End);
    cx.e(I::LocalGet(rec));
    cx.e(I::GlobalSet(tail));
}

/// How the allocator reads the bound variables of the initializers and
/// `@static` calls, and the event constants among them.
pub(super) fn alloc_accesses(
    pl: &MatchPlan,
    lay: &ProbeLayout,
    env: &BoundEnv,
    used: &HashMap<String, BoundInfo>,
) -> (BTreeMap<String, Access>, BTreeMap<String, Const>) {
    let mut init_access = BTreeMap::new();
    let mut consts = pl.consts.clone();
    let inits = lay.site_decls.iter().filter_map(|d| d.init);
    for e in inits.chain(lay.static_fields.iter().map(|s| s.0)) {
        let mut vs = BTreeSet::new();
        expr_vars(e, &mut vs);
        for v in vs {
            if used.contains_key(&v) {
                if let Ok(a) = env.access(&v) {
                    if let Access::Const(c) = &a {
                        consts.insert(c.clone(), env.constant(c));
                    }
                    init_access.insert(v, a);
                }
            }
        }
    }
    (init_access, consts)
}

/// Whether code reading `access` reads one of the plan's variant constants.
fn reads_variant(pl: &MatchPlan, access: &BTreeMap<String, Access>) -> bool {
    access
        .values()
        .any(|a| matches!(a, Access::Const(c) if pl.variant.contains_key(c)))
}

/// Bind the variant constants `access` reads to locals, looked up by the
/// site's `opcode` (`star.rs`), instead of the folded constants.
fn bind_variant(
    cx: &mut FnCx,
    pl: &MatchPlan,
    access: &BTreeMap<String, Access>,
    locals: &HashMap<PKey, (u32, Type)>,
    env: &BoundEnv,
) {
    let Some((op, _)) = locals.get(&PKey::Opcode) else {
        return;
    };
    for (name, a) in access {
        let Access::Const(c) = a else { continue };
        let Some(table) = pl.variant.get(c) else {
            continue;
        };
        let l = cx.local(VT::I32);
        table.lookup(cx, *op);
        cx.e(I::LocalSet(l));
        cx.bound.insert(
            name.clone(),
            super::bound::Bound::Local(l, env.var_type(name)),
        );
    }
}
