//! One export for a whole `wasm:opcode:*` rule. When the code a probe
//! generates is the same for every opcode (up to the probe id its report
//! prints), the probe is one `wasm:opcode:*` export with one body, one
//! predicate and one allocator, instead of an export and an allocator per
//! opcode (607 of each): an engine parses, decodes and links far less to
//! load the monitor. The allocator takes the site's binary opcode (Part B
//! `opcode`) and finds the probe id in a table, so report rows are the same
//! as the per-opcode form's (`probe_id` `0_wasm:opcode:i32.add:before`).
//!
//! The engine's `*` matches every instruction, also `select t`, which has no
//! event of its own in the probe language: its rows say `typed_select`, as
//! whamm's (whose `*` includes its `typed_select` event).

use super::bound::PKey;
use super::fn_cx::FnCx;
use super::plan::{MatchPlan, ProbeLayout};
use super::probe::{alloc_accesses, static_call_params};
use super::repr::mem8;
use super::Cg;
use crate::ast::*;
use crate::check::{BoundInfo, CheckResult};
use monitor_abi::{Opcode, Param, StaticCall};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

/// The probe ids of a `wasm:opcode:*` allocator: per range of binary
/// opcodes (the one-byte ones, then one per prefix byte), a table of the
/// ids' string addresses in static data.
struct ProbeIdTable {
    /// (first opcode, number of opcodes, address of the table)
    ranges: Vec<(u32, u32, u32)>,
    /// The id of an opcode in no range (one this compiler does not know).
    fallback: u32,
}

impl ProbeIdTable {
    /// Push the address of the probe id of the opcode in local `op`.
    fn lookup(&self, cx: &mut FnCx, op: u32) {
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

impl<'a> Cg<'a> {
    /// The `wasm:opcode:*` event (with the plans' mode) when one export can
    /// stand for all the plans: they match every opcode, their code is the
    /// same (one group), and every parameter they read has a value at every
    /// instruction (no operand, immediate or per-opcode parameter, whose
    /// site rules differ by opcode). The per-opcode probe ids of the report
    /// then come from the `opcode` parameter of the allocator (Part B), so a
    /// portable monitor with a site record keeps one export per opcode.
    pub(super) fn star_event(
        &self,
        plans: &[MatchPlan],
        groups: &BTreeMap<String, Vec<usize>>,
        lay: &ProbeLayout,
        used: &HashMap<String, BoundInfo>,
    ) -> Option<monitor_abi::Event> {
        if groups.len() != 1 || (lay.has_site && self.opts.portable) || self.opts.per_opcode {
            return None;
        }
        let first = plans.first()?;
        let monitor_abi::Event::Opcode { mode, .. } = first.pattern_event else {
            return None;
        };
        let ops: BTreeSet<monitor_abi::Opcode> =
            plans.iter().filter_map(|pl| pl.spec.opcode).collect();
        let every = monitor_abi::Opcode::all().all(|o| ops.contains(&o));
        if !every || ops.len() != plans.len() || plans.iter().any(|pl| pl.after != first.after) {
            return None;
        }
        let env = first.env(used, self.opts.portable);
        let (init_access, _) = alloc_accesses(first, lay, &env, used);
        let accesses = [&first.body_access, &first.pred_access, &init_access];
        let mut keys = accesses
            .iter()
            .flat_map(|m| m.values())
            .flat_map(|a| env.pkeys(a));
        let everywhere = keys.all(|k| {
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
        });
        let guards_ok = first.guards.keys().all(|k| matches!(k, PKey::LocalTy(_)));
        (everywhere && guards_ok).then_some(monitor_abi::Event::Opcode {
            matches: monitor_abi::OpcodeMatch::Any,
            mode,
        })
    }

    /// Emit a probe whose plans [`star_event`](Self::star_event) accepted:
    /// one predicate, one body and one allocator for every opcode, under one
    /// export.
    pub(super) fn star_probe(
        &mut self,
        pi: usize,
        p: &Probe,
        plans: &[MatchPlan],
        event: monitor_abi::Event,
        lay: &ProbeLayout,
        head_tail: (u32, u32),
    ) {
        let checked: &'a CheckResult = self.checked;
        let used = &checked.probes[pi].used_bound;
        let pl = &plans[0];
        let env = pl.env(used, self.opts.portable);
        let pred_call = self.static_predicate(pl, &env, lay);
        let body = self.body_fn(p, pl, &env, lay);
        let mut abi_params = vec![];
        if lay.has_site {
            abi_params.push(Param::Call(self.star_alloc_fn(pi, plans, lay, head_tail)));
        }
        abi_params.extend(body.keys.iter().map(|k| k.param()));
        let pat = monitor_abi::Pattern {
            event,
            predicate: pred_call,
            params: abi_params,
        };
        self.export_match(p, &pat, body.func);
    }

    /// The allocator of a `wasm:opcode:*` export: the shared allocation of
    /// the probe's plans, with the probe id of the site's opcode, looked up
    /// from the `opcode` parameter.
    fn star_alloc_fn(
        &mut self,
        pi: usize,
        plans: &[MatchPlan],
        lay: &ProbeLayout,
        head_tail: (u32, u32),
    ) -> StaticCall {
        let (keys, _, core) = self.alloc_core_fn(pi, &plans[0], lay, head_tail);
        let mut all: Vec<PKey> = keys.clone();
        all.push(PKey::Opcode);
        all.sort();
        let env = plans[0].env(&self.checked.probes[pi].used_bound, self.opts.portable);
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

    /// The probe ids (`, 0_wasm:opcode:i32.add:before, `) of every binary
    /// opcode, as the per-opcode form's allocators would pass them.
    fn probe_id_table(&mut self, pi: usize, plans: &[MatchPlan]) -> ProbeIdTable {
        let by_op: HashMap<Opcode, &str> = plans
            .iter()
            .filter_map(|pl| pl.spec.opcode.map(|o| (o, pl.match_name.as_str())))
            .collect();
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
        let mut id = |name: &str| self.m.string(&format!(", {pi}_{name}, "));
        let fallback = id(&format!("wasm:opcode:*{mode}"));
        let mut entries: BTreeMap<u32, u32> = BTreeMap::new();
        for (code, op, camel) in monitor_abi::opcode::encodings() {
            let name = match by_op.get(&op) {
                Some(n) if camel == op.operator_name() => n.to_string(),
                _ => format!("wasm:opcode:{}{mode}", snake_case(camel)),
            };
            entries.insert(code, id(&name));
        }
        let mut last_sub: BTreeMap<u32, u32> = BTreeMap::new();
        for code in entries.keys() {
            let e = last_sub.entry(code >> 16).or_default();
            *e = (*e).max(code & 0xFFFF);
        }
        let mut ranges = vec![];
        for (prefix, last) in last_sub {
            let n = last + 1;
            let addr = self.m.static_alloc(4 * n);
            let bytes = (0..n)
                .map(|sub| entries.get(&(prefix << 16 | sub)).unwrap_or(&fallback))
                .flat_map(|a| a.to_le_bytes())
                .collect();
            self.m.data.push((addr, bytes));
            ranges.push((prefix << 16, n, addr));
        }
        ProbeIdTable { ranges, fallback }
    }
}
