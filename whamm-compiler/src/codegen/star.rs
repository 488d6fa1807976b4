//! One export for a whole `wasm:opcode:*` rule. When the code a probe
//! generates is the same for every opcode up to match-time constants, the
//! probe is one `wasm:opcode:*` export with one body, one predicate and one
//! allocator, instead of an export and an allocator per opcode (607 of
//! each): an engine parses, decodes and links far less to load the monitor.
//!
//! What differs by opcode is looked up, by the site's binary opcode (Part B
//! `opcode`), in tables of static data, at match time only:
//!
//! * the probe id the report prints (`0_wasm:opcode:i32.add:before`), by the
//!   allocator, so report rows are the per-opcode form's;
//! * the event's constants (`opname`, `category_id`, ...) that the match-time
//!   predicate or the per-site initializers read (whamm's `coverage.mm`:
//!   `/ at_func_end || opname != "end" /`; the built-in `imix`:
//!   `report unshared var category: u32 = category_id;`). The predicate then
//!   runs at every site (a static call), but its results are kept by the
//!   engine's match cache like the allocators'.
//!
//! A body that reads such a constant keeps the per-opcode form: there it is
//! folded, and a body runs every time its instruction does.
//!
//! The engine's `*` matches every instruction, also `select t`, which has no
//! event of its own in the probe language: its rows say `typed_select`, as
//! whamm's (whose `*` includes its `typed_select` event), and its constants
//! are `select`'s.

use super::bound::{Access, PKey};
use super::fn_cx::FnCx;
use super::fold::Const;
use super::plan::{shape_key, MatchPlan, ProbeLayout};
use super::probe::{alloc_accesses, static_call_params};
use super::repr::{mem8, vt};
use super::Cg;
use crate::ast::*;
use crate::check::{BoundInfo, CheckResult};
use monitor_abi::{Opcode, Param, StaticCall};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

/// A table of i32 values by binary opcode in static data: per range of
/// opcodes (the one-byte ones, then one per prefix byte), one entry each.
#[derive(Clone, Debug)]
pub(super) struct CodeTable {
    /// (first opcode, number of opcodes, address of the entries)
    ranges: Vec<(u32, u32, u32)>,
    /// The value of an opcode in no range (one this compiler does not know).
    fallback: u32,
}

impl CodeTable {
    /// Push the value of the opcode in local `op`.
    pub(super) fn lookup(&self, cx: &mut FnCx, op: u32) {
        let t = cx.local(VT::I32);
        cx.e(I::Block(BlockType::Result(VT::I32)));
        for &(lo, n, addr) in &self.ranges {
            cx.e(I::LocalGet(op));
            cx.e(I::I32Const(lo as i32));
            cx.e(I::I32Sub);
            cx.e(I::LocalTee(t));
            cx.e(I::I32Const(n as i32));
            cx.e(I::I32LtU);
            cx.e(I::If(BlockType::Empty));
            cx.e(I::LocalGet(t));
            cx.e(I::I32Const(2));
            cx.e(I::I32Shl);
            cx.e(I::I32Load(mem8(addr, 2)));
            cx.e(I::Br(1));
            cx.e(I::End);
        }
        cx.e(I::I32Const(self.fallback as i32));
        cx.e(I::End);
    }
}

/// How a probe becomes one `wasm:opcode:*` export.
pub(super) struct Star {
    event: monitor_abi::Event,
    /// The constants whose values differ by opcode.
    variant: BTreeSet<String>,
    /// The match-time conjuncts left undecided for some opcode.
    static_conj: Vec<usize>,
}

/// `TypedSelect` -> `typed_select` (whamm's name of an event the probe
/// language lacks).
fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Every binary opcode with the plan of its opcode (`select t`: `select`'s)
/// and its wasmparser operator name.
fn encodings(plans: &[MatchPlan]) -> Vec<(u32, &MatchPlan, &'static str)> {
    let by_op: HashMap<Opcode, &MatchPlan> = plans
        .iter()
        .filter_map(|pl| pl.spec.opcode.map(|o| (o, pl)))
        .collect();
    monitor_abi::opcode::encodings()
        .filter_map(|(code, op, camel)| by_op.get(&op).map(|pl| (code, *pl, camel)))
        .collect()
}

/// The parameters whose values every instruction has (no operand, immediate
/// or per-opcode parameter, whose site rules differ by opcode).
fn everywhere(k: &PKey) -> bool {
    matches!(
        k,
        PKey::Fid
            | PKey::Pc
            | PKey::AtFuncEnd
            | PKey::Opidx
            | PKey::ProbeId
            | PKey::Fname
            | PKey::Local(_)
            | PKey::LocalTy(_)
    )
}

impl<'a> Cg<'a> {
    /// Whether one `wasm:opcode:*` export can stand for all the plans of a
    /// probe: they match every opcode in one mode, read bound variables the
    /// same way, only parameters every instruction has, and constants that
    /// differ by opcode (32-bit ones) only at match time. The tables need
    /// the Part B `opcode` parameter: a portable monitor keeps one export
    /// per opcode where it would use one.
    pub(super) fn star_plan(
        &self,
        plans: &[MatchPlan],
        lay: &ProbeLayout,
        used: &HashMap<String, BoundInfo>,
    ) -> Option<Star> {
        let first = plans.first()?;
        let monitor_abi::Event::Opcode { mode, .. } = first.pattern_event else {
            return None;
        };
        let ops: BTreeSet<Opcode> = plans.iter().filter_map(|pl| pl.spec.opcode).collect();
        let every = Opcode::all().all(|o| ops.contains(&o));
        let shape = shape_key(first, used, self.opts.portable);
        let same = plans
            .iter()
            .all(|pl| pl.after == first.after && shape_key(pl, used, self.opts.portable) == shape);
        if self.opts.per_opcode || !every || ops.len() != plans.len() || !same {
            return None;
        }
        let env = first.env(used, self.opts.portable);
        let (init_access, _) = alloc_accesses(first, lay, &env, used);
        let accesses = [&first.body_access, &first.pred_access, &init_access];
        let mut keys = accesses
            .iter()
            .flat_map(|m| m.values())
            .flat_map(|a| env.pkeys(a));
        let guards_ok = first.guards.keys().all(|k| matches!(k, PKey::LocalTy(_)));
        if !keys.all(|k| everywhere(&k)) || !guards_ok {
            return None;
        }
        let variant: BTreeSet<String> = first
            .consts
            .keys()
            .filter(|c| {
                plans
                    .iter()
                    .any(|pl| pl.consts.get(*c) != first.consts.get(*c))
            })
            .cloned()
            .collect();
        let is_variant = |a: &Access| matches!(a, Access::Const(c) if variant.contains(c));
        let reads = |m: &BTreeMap<String, Access>| m.values().any(is_variant);
        // the tables hold 32-bit values
        let wide = [&first.pred_access, &init_access]
            .iter()
            .flat_map(|m| m.iter())
            .any(|(n, a)| is_variant(a) && vt(&env.var_type(n)) != VT::I32);
        let needs_opcode = lay.has_site || !variant.is_empty();
        if reads(&first.body_access) || wide || (needs_opcode && self.opts.portable) {
            return None;
        }
        let static_conj: BTreeSet<usize> = plans
            .iter()
            .flat_map(|pl| pl.static_conj.iter().copied())
            .collect();
        Some(Star {
            event: monitor_abi::Event::Opcode {
                matches: monitor_abi::OpcodeMatch::Any,
                mode,
            },
            variant,
            static_conj: static_conj.into_iter().collect(),
        })
    }

    /// Emit a probe as [`star_plan`](Self::star_plan) said: one predicate,
    /// one body and one allocator for every opcode, under one export.
    pub(super) fn star_probe(
        &mut self,
        pi: usize,
        p: &Probe,
        plans: &[MatchPlan],
        star: Star,
        lay: &ProbeLayout,
        head_tail: (u32, u32),
    ) {
        let checked: &'a CheckResult = self.checked;
        let used = &checked.probes[pi].used_bound;
        let mut pl = plans[0].clone();
        pl.static_conj = star.static_conj;
        for c in &star.variant {
            let table = self.const_table(plans, c);
            pl.variant.insert(c.clone(), table);
        }
        let env = pl.env(used, self.opts.portable);
        let pred_call = self.static_predicate(&pl, &env, lay);
        let body = self.body_fn(p, &pl, &env, lay);
        let mut abi_params = vec![];
        if lay.has_site {
            abi_params.push(Param::Call(
                self.star_alloc_fn(pi, &pl, plans, lay, head_tail),
            ));
        }
        abi_params.extend(body.keys.iter().map(|k| k.param()));
        let pat = monitor_abi::Pattern {
            event: star.event,
            predicate: pred_call,
            params: abi_params,
        };
        self.export_match(p, &pat, body.func);
    }

    /// The allocator of a `wasm:opcode:*` export: the allocation of the
    /// star plan `pl`, with the probe id of the site's opcode, looked up
    /// from the `opcode` parameter.
    fn star_alloc_fn(
        &mut self,
        pi: usize,
        pl: &MatchPlan,
        plans: &[MatchPlan],
        lay: &ProbeLayout,
        head_tail: (u32, u32),
    ) -> StaticCall {
        let (keys, _, core) = self.alloc_core_fn(pi, pl, lay, head_tail);
        let mut all: BTreeSet<PKey> = keys.iter().cloned().collect();
        all.insert(PKey::Opcode);
        let all: Vec<PKey> = all.into_iter().collect();
        let env = pl.env(&self.checked.probes[pi].used_bound, self.opts.portable);
        let params = static_call_params(&all, &env);
        // each key's first local in the new parameter list
        let mut first = HashMap::new();
        let mut l = 0u32;
        for k in &all {
            first.insert(k.clone(), l);
            l += if k.is_buf() { 2 } else { 1 };
        }
        let table = self.probe_id_table(pi, plans);
        let f = self.m.declare(&params, &[VT::I32]);
        let mut cx = FnCx::new(&params, None);
        for k in &keys {
            cx.e(I::LocalGet(first[k]));
            if k.is_buf() {
                cx.e(I::LocalGet(first[k] + 1));
            }
        }
        table.lookup(&mut cx, first[&PKey::Opcode]);
        cx.e(I::Call(core));
        self.m.define(f, cx.finish());
        self.export_alloc(f, &all)
    }

    /// The probe ids (`, 96_wasm:opcode:i32.add:before, `) of every binary
    /// opcode, as the per-opcode form's allocators would pass them.
    fn probe_id_table(&mut self, pi: usize, plans: &[MatchPlan]) -> CodeTable {
        // the mode as the plans' names end (`:before`)
        let mode = plans
            .first()
            .and_then(|pl| {
                let op = pl.spec.opcode?;
                let rest = pl.match_name.strip_prefix("wasm:opcode:")?;
                rest.strip_prefix(op.event_name())
            })
            .unwrap_or("")
            .to_string();
        let first = self.numbering.first(pi);
        let fallback = self.m.string(&format!(", {first}_wasm:opcode:*{mode}, "));
        let mut values = BTreeMap::new();
        for (code, pl, camel) in encodings(plans) {
            let name = match pl.spec.opcode {
                Some(op) if camel != op.operator_name() => {
                    format!("wasm:opcode:{}{mode}", snake_case(camel))
                }
                _ => pl.match_name.clone(),
            };
            let label = self.numbering.label(pi, &name);
            values.insert(code, self.m.string(&format!(", {label}, ")));
        }
        self.code_table(&values, fallback)
    }

    /// The values of the event constant `c` by binary opcode: integers and
    /// bools as i32, strings as their addresses.
    fn const_table(&mut self, plans: &[MatchPlan], c: &str) -> CodeTable {
        let mut values = BTreeMap::new();
        for (code, pl, _) in encodings(plans) {
            let v = match pl.consts.get(c) {
                Some(Const::Int(i)) => *i as u32,
                Some(Const::Bool(b)) => u32::from(*b),
                Some(Const::Str(s)) => self.m.string(s),
                _ => 0,
            };
            values.insert(code, v);
        }
        self.code_table(&values, 0)
    }

    /// Lay out a table of `values` by binary opcode in static data.
    fn code_table(&mut self, values: &BTreeMap<u32, u32>, fallback: u32) -> CodeTable {
        let mut last_sub: BTreeMap<u32, u32> = BTreeMap::new();
        for code in values.keys() {
            let e = last_sub.entry(code >> 16).or_default();
            *e = (*e).max(code & 0xFFFF);
        }
        let mut ranges = vec![];
        for (prefix, last) in last_sub {
            let n = last + 1;
            let addr = self.m.static_alloc(4 * n);
            let bytes = (0..n)
                .map(|sub| values.get(&(prefix << 16 | sub)).unwrap_or(&fallback))
                .flat_map(|a| a.to_le_bytes())
                .collect();
            self.m.data.push((addr, bytes));
            ranges.push((prefix << 16, n, addr));
        }
        CodeTable { ranges, fallback }
    }
}
