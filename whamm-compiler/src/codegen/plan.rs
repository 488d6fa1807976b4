//! Probe planning: what a probe needs before any code is emitted. Per
//! probe: its per-site variables, the split of its predicate into
//! match-time and run-time conjuncts, the bound variables each part reads,
//! and the layout of its site record. Per matched event: how each bound
//! variable is read, the event's constants, which match-time conjuncts it
//! leaves undecided, and the type guards; matches whose code would be
//! identical are grouped to share one function.

use super::bound::{Access, BoundEnv, PKey, REC_FNAME, REC_HEADER};
use super::fn_cx::FnCx;
use super::fold::Const;
use super::repr::{mem_size, type_code};
use super::walk::*;
use super::Cg;
use crate::ast::*;
use crate::catalog::EventCatalog;
use crate::check::{BoundInfo, ProbeInfo};
use crate::diag::Diag;
use crate::rules::Match;
use crate::types::Type;
use monitor_abi::catalogue::AbiHook;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A per-site variable: a decorated declaration at the top of a probe body.
pub(super) struct SiteDecl<'e> {
    pub(super) name: &'e Ident,
    pub(super) ty: &'e TypeExpr,
    pub(super) init: Option<&'e Expr>,
    pub(super) report: bool,
}

/// What a probe needs, whichever event it matches.
pub(super) struct ProbeLayout<'e> {
    pub(super) site_decls: Vec<SiteDecl<'e>>,
    /// The conjuncts of the predicate, and which of them can be decided at
    /// match time (the others are tested at run time, in the body).
    pub(super) conj: Vec<&'e Expr>,
    pub(super) is_static: Vec<bool>,
    /// Bound variables read by the body and the run-time conjuncts, by the
    /// match-time conjuncts, and by per-site initializers.
    pub(super) body_vars: BTreeSet<String>,
    pub(super) pred_vars: BTreeSet<String>,
    pub(super) init_vars: BTreeSet<String>,
    /// The site record: buffer-passed static variables the body reads (and
    /// their offsets), `@static` call results, per-site variables (name,
    /// type, offset, reported), and the record's size.
    pub(super) rec_fields: Vec<(PKey, u32)>,
    pub(super) static_fields: Vec<(&'e Expr, Type, u32)>,
    pub(super) site_vars: Vec<(String, Type, u32, bool)>,
    pub(super) rec_size: u32,
    /// Whether the probe has a site record at all.
    pub(super) has_site: bool,
}

/// One export's plan.
#[derive(Clone)]
pub(super) struct MatchPlan {
    pub(super) pattern_event: monitor_abi::Event,
    pub(super) match_name: String,
    pub(super) consts: BTreeMap<String, Const>,
    pub(super) body_access: BTreeMap<String, Access>,
    pub(super) pred_access: BTreeMap<String, Access>,
    pub(super) static_conj: Vec<usize>,
    /// Type guards: `argtyN`/`localtyN` -> the required type code.
    pub(super) guards: BTreeMap<PKey, i32>,
    pub(super) spec: &'static monitor_abi::EventSpec,
    pub(super) after: bool,
    /// The constants (of `consts`) whose value the predicate and the
    /// allocator read at match time from a table, by the site's `opcode`,
    /// instead of folding them: the plan of a `wasm:opcode:*` export whose
    /// matches differ in them (`star.rs`). Empty otherwise.
    pub(super) variant: BTreeMap<String, super::star::CodeTable>,
}

impl MatchPlan {
    pub(super) fn env<'u>(
        &self,
        used: &'u HashMap<String, BoundInfo>,
        portable: bool,
    ) -> BoundEnv<'u> {
        BoundEnv {
            spec: self.spec,
            after: self.after,
            used,
            portable,
        }
    }
}

/// The per-site variables: decorated declarations at the top of the body.
fn site_decls(p: &Probe) -> Vec<SiteDecl<'_>> {
    let mut out = vec![];
    for s in &p.body.stmts {
        if let StmtKind::Decl {
            decorators,
            name,
            ty,
            init,
        } = &s.kind
        {
            if !decorators.is_empty() {
                out.push(SiteDecl {
                    name,
                    ty,
                    init: init.as_ref(),
                    report: decorators.iter().any(|(d, _)| *d == Decorator::Report),
                });
            }
        }
    }
    out
}

/// The bound variables (of `used`) that `exprs` mention.
fn bound_vars_of<'e>(
    exprs: impl Iterator<Item = &'e Expr>,
    used: &HashMap<String, BoundInfo>,
) -> BTreeSet<String> {
    let mut vars = BTreeSet::new();
    for e in exprs {
        expr_vars(e, &mut vars);
    }
    vars.retain(|v| used.contains_key(v));
    vars
}

impl<'a> Cg<'a> {
    /// Analyse a probe and lay out its site record; `None` after reporting
    /// an error.
    pub(super) fn probe_layout<'e>(
        &mut self,
        p: &'e Probe,
        used: &HashMap<String, BoundInfo>,
    ) -> Option<ProbeLayout<'e>> {
        let site_decls = site_decls(p);
        let mut conj = vec![];
        if let Some(pe) = &p.pred {
            conjuncts(pe, &mut conj);
        }
        let is_static: Vec<bool> = conj
            .iter()
            .map(|c| match_time(c, used, &self.libraries))
            .collect();
        // `@static` calls of the body and the run-time conjuncts are made at
        // match time, in the site allocator; the body reads the record.
        let conj_where_static = |want: bool| {
            conj.iter()
                .zip(&is_static)
                .filter(move |(_, s)| **s == want)
                .map(|(c, _)| *c)
        };
        let dyn_conj: Vec<&Expr> = conj_where_static(false).collect();
        let statics = static_exprs(&p.body, &dyn_conj);
        self.check_static_calls(&statics, used)?;
        // the body proper: per-site declarations are initialized at match
        // time, by the allocator
        let body = Block {
            stmts: p
                .body
                .stmts
                .iter()
                .filter(|s| !matches!(&s.kind, StmtKind::Decl { decorators, .. } if !decorators.is_empty()))
                .cloned()
                .collect(),
            span: p.body.span,
        };
        let mut body_vars = BTreeSet::new();
        block_vars(&body, &mut body_vars);
        body_vars.extend(bound_vars_of(dyn_conj.iter().copied(), used));
        body_vars.retain(|v| used.contains_key(v));
        let pred_vars = bound_vars_of(conj_where_static(true), used);
        let init_vars = bound_vars_of(site_decls.iter().filter_map(|d| d.init), used);
        self.check_site_inits(p, &site_decls, &init_vars, used)?;
        let mut lay = ProbeLayout {
            site_decls,
            conj,
            is_static,
            body_vars,
            pred_vars,
            init_vars,
            rec_fields: vec![],
            static_fields: vec![],
            site_vars: vec![],
            rec_size: 0,
            has_site: false,
        };
        self.lay_out_record(&mut lay, statics);
        Some(lay)
    }

    /// `@static` calls must only use what is known at match time.
    fn check_static_calls(
        &mut self,
        statics: &[&Expr],
        used: &HashMap<String, BoundInfo>,
    ) -> Option<()> {
        for st in statics {
            if !match_time(st, used, &self.libraries) {
                self.err(
                    Diag::error(
                        "the arguments of a `@static` call must be known at match time",
                        st.span,
                    )
                    .with_label("uses a global, local, map, function or dynamic bound variable")
                    .with_note("`@static` calls run once per matched site, before the program runs: use literals and static bound variables (fid, pc, fname, immN, ...)"),
                );
                return None;
            }
        }
        Some(())
    }

    /// Per-site initializers run at match time: static bound variables only.
    fn check_site_inits(
        &mut self,
        p: &Probe,
        decls: &[SiteDecl],
        init_vars: &BTreeSet<String>,
        used: &HashMap<String, BoundInfo>,
    ) -> Option<()> {
        // a plain variable of the body does not exist yet at match time
        let plain: BTreeSet<&str> = p
            .body
            .stmts
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Decl {
                    decorators, name, ..
                } if decorators.is_empty() => Some(name.name.as_str()),
                _ => None,
            })
            .collect();
        for e in decls.iter().filter_map(|d| d.init) {
            let mut s = BTreeSet::new();
            expr_vars(e, &mut s);
            if let Some(v) = s.iter().find(|v| plain.contains(v.as_str())) {
                self.err(
                    Diag::error(
                        format!("the initializer of a per-site variable cannot use `{v}`, a variable of the probe body"),
                        e.span,
                    )
                    .with_note("per-site variables are initialized once per site, at match time, before the body ever runs; assign it in the body instead"),
                );
                return None;
            }
        }
        for v in init_vars {
            if !used[v].is_static {
                let span = decls
                    .iter()
                    .find_map(|d| {
                        d.init
                            .filter(|e| {
                                let mut s = BTreeSet::new();
                                expr_vars(e, &mut s);
                                s.contains(v)
                            })
                            .map(|e| e.span)
                    })
                    .unwrap_or(p.rule_span);
                self.err(Diag::error(format!("the initializer of a per-site variable can only use static bound variables, not `{v}`"), span).with_note("per-site variables are initialized once per site, at match time"));
                return None;
            }
        }
        Some(())
    }

    /// Site record layout: next, fid, pc, fname, probe_id, then the
    /// buffer-passed static variables the body reads, the `@static` call
    /// results, and the per-site variables.
    fn lay_out_record<'e>(&self, lay: &mut ProbeLayout<'e>, statics: Vec<&'e Expr>) {
        let mut rec_size = REC_HEADER;
        for k in lay.body_vars.iter().filter_map(|v| PKey::buf(v)) {
            if k == PKey::Fname {
                lay.rec_fields.push((k, REC_FNAME));
            } else {
                lay.rec_fields.push((k, rec_size));
                rec_size += 8;
            }
        }
        for st in statics {
            let t = self.ty(st);
            lay.static_fields.push((st, t.clone(), rec_size));
            rec_size += mem_size(&t).max(8);
        }
        lay.has_site = !lay.site_decls.is_empty()
            || !lay.rec_fields.is_empty()
            || !lay.static_fields.is_empty();
        for d in &lay.site_decls {
            lay.site_vars
                .push((d.name.name.clone(), d.ty.ty.clone(), rec_size, d.report));
            rec_size += mem_size(&d.ty.ty).max(8);
        }
        lay.rec_size = rec_size;
    }

    /// Plan every match of a probe; `None` after reporting an error.
    pub(super) fn plan_matches(
        &mut self,
        p: &Probe,
        info: &ProbeInfo,
        lay: &ProbeLayout,
    ) -> Option<Vec<MatchPlan>> {
        let mut plans = vec![];
        for m in &info.matches {
            if let Some(plan) = self.plan_match(p, info, m, lay)? {
                plans.push(plan);
            }
        }
        Some(plans)
    }

    /// The plan of one match: `Some(None)` when the event is unknown or the
    /// predicate is false for it at compile time, `None` after an error.
    fn plan_match(
        &mut self,
        p: &Probe,
        info: &ProbeInfo,
        m: &Match,
        lay: &ProbeLayout,
    ) -> Option<Option<MatchPlan>> {
        let Some(spec) = monitor_abi::catalogue().get(m.event.key) else {
            return Some(None);
        };
        let mode = m
            .mode
            .as_deref()
            .and_then(monitor_abi::ProbeMode::from_name);
        let Some(AbiHook::Probe(ev)) = spec.abi_hook(mode) else {
            self.err(Diag::error(
                format!("the target cannot honour `{}`", m.name()),
                p.rule_span,
            ));
            return None;
        };
        let after = mode == Some(monitor_abi::ProbeMode::After);
        if after && self.opts.portable {
            self.err(Diag::error(
                format!(
                    "mode `after` of `{}` needs monitor ABI Part B (docs/monitor-abi.md#part-b); not available with --portable",
                    m.event.name()
                ),
                p.rule_span,
            ));
            return None;
        }
        let env = BoundEnv {
            spec,
            after,
            used: &info.used_bound,
            portable: self.opts.portable,
        };
        let (consts, body_access, pred_access) = self.bound_accesses(p, m, &env, lay)?;
        let Some(static_conj) = self.undecided_conjuncts(&env, &consts, lay) else {
            return Some(None);
        };
        Some(Some(MatchPlan {
            guards: self.type_guards(info, m),
            pattern_event: ev,
            match_name: m.name(),
            consts,
            body_access,
            pred_access,
            static_conj,
            spec,
            after,
            variant: BTreeMap::new(),
        }))
    }

    /// How the body, the match-time predicate (and the initializers) read
    /// each bound variable they use, and the event's constants among them.
    #[allow(clippy::type_complexity)]
    fn bound_accesses(
        &mut self,
        p: &Probe,
        m: &Match,
        env: &BoundEnv,
        lay: &ProbeLayout,
    ) -> Option<(
        BTreeMap<String, Const>,
        BTreeMap<String, Access>,
        BTreeMap<String, Access>,
    )> {
        let mut consts = BTreeMap::new();
        let mut body_access = BTreeMap::new();
        let mut pred_access = BTreeMap::new();
        let mut init_access = BTreeMap::new();
        for (set, out) in [
            (&lay.body_vars, &mut body_access),
            (&lay.pred_vars, &mut pred_access),
            (&lay.init_vars, &mut init_access),
        ] {
            for v in set.iter() {
                match env.access(v) {
                    Ok(Access::Const(c)) => {
                        consts.insert(c.clone(), env.constant(&c));
                        out.insert(v.clone(), Access::Const(c));
                    }
                    Ok(a) => {
                        out.insert(v.clone(), a);
                    }
                    Err(msg) => {
                        let span =
                            first_use_span(&p.body, p.pred.as_ref(), v).unwrap_or(p.rule_span);
                        self.err(
                            Diag::error(msg, span)
                                .with_note(format!("while compiling `{}`", m.name())),
                        );
                        return None;
                    }
                }
            }
        }
        Some((consts, body_access, pred_access))
    }

    /// Fold the match-time conjuncts with this event's constants: the
    /// indices of those still undecided, or `None` if one is false.
    fn undecided_conjuncts(
        &self,
        env: &BoundEnv,
        consts: &BTreeMap<String, Const>,
        lay: &ProbeLayout,
    ) -> Option<Vec<usize>> {
        let mut static_conj = vec![];
        let mut dead = false;
        for (i, c) in lay.conj.iter().enumerate() {
            if !lay.is_static[i] {
                continue;
            }
            let mut cx = FnCx::new(&[], None);
            for (k, c2) in consts {
                cx.bound.insert(
                    k.clone(),
                    super::bound::Bound::Const(c2.clone(), env.var_type(k)),
                );
            }
            match self.fold(&cx, c) {
                Some(Const::Bool(false)) => dead = true,
                Some(Const::Bool(true)) => {}
                _ => static_conj.push(i),
            }
        }
        (!dead).then_some(static_conj)
    }

    /// Type guards (docs/monitor-abi.md#part-b `argtyN`/`localtyN`): a variable whose type
    /// depends on the site and that a type bound fixed is only bound where
    /// it has that type; elsewhere the predicate says no.
    fn type_guards(&self, info: &ProbeInfo, m: &Match) -> BTreeMap<PKey, i32> {
        let mut guards = BTreeMap::new();
        if self.opts.portable {
            return guards;
        }
        for b in &info.rule.bounds {
            let idx = |p: &str| b.var.strip_prefix(p).and_then(|d| d.parse::<u32>().ok());
            let k = match (idx("arg").or_else(|| idx("res")), idx("local")) {
                (Some(n), _) => PKey::ArgTy(n),
                (_, Some(n)) => PKey::LocalTy(n),
                _ => continue,
            };
            let dependent = self
                .cat
                .bound_var(&m.event, m.mode.as_deref(), &b.var)
                .is_some_and(|v| v.ty == crate::catalog::VarType::SiteDependent);
            if dependent {
                guards.insert(k, type_code(&b.ty));
            }
        }
        guards
    }
}

/// Group the plans whose code would be identical (keyed by everything the
/// generated functions depend on), in key order.
pub(super) fn group_plans(
    plans: &[MatchPlan],
    used: &HashMap<String, BoundInfo>,
    portable: bool,
) -> BTreeMap<String, Vec<usize>> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, pl) in plans.iter().enumerate() {
        let key = format!(
            "{:?}|{:?}|{}",
            pl.consts,
            pl.static_conj,
            shape_key(pl, used, portable)
        );
        groups.entry(key).or_default().push(i);
    }
    groups
}

/// What a plan's code depends on besides the event's constants and the
/// match-time conjuncts they leave undecided: how bound variables are read,
/// the type guards and the parameters' types.
pub(super) fn shape_key(
    pl: &MatchPlan,
    used: &HashMap<String, BoundInfo>,
    portable: bool,
) -> String {
    let env = pl.env(used, portable);
    let body_keys: BTreeSet<PKey> = pl
        .body_access
        .values()
        .flat_map(|a| env.pkeys(a))
        .filter(|k| !k.is_buf())
        .collect();
    // the immediates' type (i64 for `i64.const`) matters only to code
    // that reads one
    let reads_imm = [&pl.body_access, &pl.pred_access]
        .iter()
        .flat_map(|m| m.values())
        .flat_map(|a| env.pkeys(a))
        .any(|k| matches!(k, PKey::Imm(_)));
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}",
        pl.body_access,
        pl.pred_access,
        pl.guards,
        body_keys
            .iter()
            .map(|k| env.pkey_type(k, None))
            .collect::<Vec<_>>(),
        reads_imm.then(|| env.imm_type())
    )
}
