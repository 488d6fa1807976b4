//! Bound variables: how each event variable a probe uses is read (an ABI
//! parameter, a derived value, a constant of the event, a field of the site
//! record), the parameters of generated functions that bind them, and the
//! code that reads them.

use super::fn_cx::FnCx;
use super::fold::Const;
use super::repr::mem8;
use super::Cg;
use crate::check::BoundInfo;
use crate::types::Type;
use monitor_abi::Param;
use std::collections::{BTreeMap, HashMap};
use wasm_encoder::{Instruction as I, ValType as VT};

/// How a probe reads a bound variable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Access {
    Const(String),
    P(PKey),
    /// `align`: imm0 & 0x3f
    Align,
    /// `addr`: operand k
    Addr(u32),
    /// `effective_addr`: operand k + offset
    EffAddr(u32),
    /// `target` of br_table: min(arg0, num_targets)
    Target,
    /// `failed` of memory.grow:after: result == -1
    Failed,
    /// A static value the engine passes as (ptr, len) in `whamm_buffer`, only
    /// to static calls (`fname`, `target_fn_*`, `targets`): a parameter of
    /// static predicates and allocators, read from the site record in bodies
    Buf(PKey),
    /// `resolved_fid` of call_indirect: `wizeng:app.table_fid(imm1, arg0)`
    Resolved,
}

/// A monitor-ABI parameter with a canonical order (see docs).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum PKey {
    Fid,
    Pc,
    AtFuncEnd,
    ProbeId,
    NumTargets,
    InstrCount,
    Offset,
    Opidx,
    /// The binary opcode (Part B `opcode`): only the allocator of a
    /// `wasm:opcode:*` export takes it, to find the site's probe id.
    Opcode,
    RefFuncBefore,
    DefaultTarget,
    Imm(u32),
    ArgTy(u32),
    LocalTy(u32),
    Fname,
    Targets,
    TargetFnName,
    TargetFnType,
    TargetImpModule,
    Arg(u32),
    Local(u32),
}

impl PKey {
    pub(super) fn param(&self) -> Param {
        match self {
            PKey::Fid => Param::Fid,
            PKey::Pc => Param::Pc,
            PKey::AtFuncEnd => Param::AtFuncEnd,
            PKey::ProbeId => Param::ProbeId,
            PKey::NumTargets => Param::NumTargets,
            PKey::InstrCount => Param::InstrCount,
            PKey::Offset => Param::Offset,
            PKey::Opidx => Param::Opidx,
            PKey::Opcode => Param::Opcode,
            PKey::RefFuncBefore => Param::RefFuncBefore,
            PKey::DefaultTarget => Param::DefaultTarget,
            PKey::Imm(n) => Param::Imm(*n),
            PKey::ArgTy(n) => Param::ArgTy(*n),
            PKey::LocalTy(n) => Param::LocalTy(*n),
            PKey::Fname => Param::Fname,
            PKey::Targets => Param::Targets,
            PKey::TargetFnName => Param::TargetFnName,
            PKey::TargetFnType => Param::TargetFnType,
            PKey::TargetImpModule => Param::TargetImpModule,
            PKey::Arg(n) => Param::Arg(*n),
            PKey::Local(n) => Param::Local(*n),
        }
    }

    /// Passed as (ptr, len) in `whamm_buffer`, only to static calls.
    pub(super) fn is_buf(&self) -> bool {
        matches!(
            self,
            PKey::Fname
                | PKey::Targets
                | PKey::TargetFnName
                | PKey::TargetFnType
                | PKey::TargetImpModule
        )
    }

    /// The buffer-passed static variable of this name.
    pub(super) fn buf(name: &str) -> Option<PKey> {
        Some(match name {
            "fname" => PKey::Fname,
            "targets" => PKey::Targets,
            "target_fn_name" => PKey::TargetFnName,
            "target_fn_type" => PKey::TargetFnType,
            "target_imp_module" => PKey::TargetImpModule,
            _ => return None,
        })
    }
}

/// The map type of `targets`.
pub(super) fn targets_type() -> Type {
    Type::Map(Box::new(Type::U32), Box::new(Type::U32))
}

/// The site record of a probe: a fixed header `[next, fid, pc, fname,
/// probe_id, pad]` (`probe_id` the string `, ID, ` as the report prints it),
/// then one 8-byte field per other buffer-passed static
/// variable the body uses, then the per-site variables.
pub(super) const REC_HEADER: u32 = 24;
pub(super) const REC_FNAME: u32 = 12;

/// Offset of a buffer-passed variable in the site record.
pub(super) fn rec_offset(fields: &[(PKey, u32)], k: &PKey) -> Option<u32> {
    fields.iter().find(|(f, _)| f == k).map(|(_, o)| *o)
}

/// The bound variables of one matched event (and mode) of a probe.
pub(super) struct BoundEnv<'a> {
    pub(super) spec: &'static monitor_abi::EventSpec,
    pub(super) after: bool,
    pub(super) used: &'a HashMap<String, BoundInfo>,
    pub(super) portable: bool,
}

impl BoundEnv<'_> {
    pub(super) fn imm_type(&self) -> Type {
        match self.spec.event {
            Some("i64.const") => Type::I64,
            Some("f32.const") => Type::F32,
            Some("f64.const") => Type::F64,
            Some("i32.const") => Type::I32,
            _ => Type::U32,
        }
    }

    /// The type a PKey's value has in the language.
    pub(super) fn pkey_type(&self, k: &PKey, name_ty: Option<&Type>) -> Type {
        match k {
            PKey::Fid
            | PKey::Pc
            | PKey::NumTargets
            | PKey::InstrCount
            | PKey::Opidx
            | PKey::Opcode
            | PKey::ProbeId
            | PKey::DefaultTarget
            | PKey::ArgTy(_)
            | PKey::LocalTy(_) => Type::U32,
            PKey::AtFuncEnd => Type::Bool,
            PKey::RefFuncBefore => Type::I32,
            PKey::Offset => Type::U64,
            PKey::Imm(_) => self.imm_type(),
            PKey::Targets => targets_type(),
            PKey::Fname | PKey::TargetFnName | PKey::TargetFnType | PKey::TargetImpModule => {
                Type::Str
            }
            PKey::Arg(_) | PKey::Local(_) => name_ty.cloned().unwrap_or(Type::I32),
        }
    }

    pub(super) fn addr_operand(&self) -> u32 {
        let m = self.spec.event.unwrap_or("");
        if m.contains("cmpxchg") || m.contains("wait") {
            2
        } else if m.contains("store")
            || m.contains("rmw")
            || m.contains("notify")
            || m.contains("_lane")
        {
            1
        } else {
            0
        }
    }

    /// The immediate naming the table `resolved_fid` reads: `table.get`'s
    /// first, `call_indirect`'s second (its type index is first).
    pub(super) fn table_imm(&self) -> u32 {
        u32::from(self.spec.event != Some("table.get"))
    }

    pub(super) fn access(&self, name: &str) -> Result<Access, String> {
        let idx = |p: &str| name.strip_prefix(p).and_then(|d| d.parse::<u32>().ok());
        let op = self.spec.opcode;
        let part_b = matches!(
            name,
            "opidx"
                | "target_fn_name"
                | "target_fn_type"
                | "target_imp_module"
                | "targets"
                | "default_target"
                | "resolved_fid"
        );
        if part_b && self.portable {
            return Err(format!(
                "`{name}` needs monitor ABI Part B (docs/monitor-abi.md#part-b); not available with --portable"
            ));
        }
        Ok(match name {
            "fid" => Access::P(PKey::Fid),
            "pc" => Access::P(PKey::Pc),
            "at_func_end" => Access::P(PKey::AtFuncEnd),
            "probe_id" => Access::P(PKey::ProbeId),
            "num_targets" => Access::P(PKey::NumTargets),
            "instr_count" => Access::P(PKey::InstrCount),
            "offset" => Access::P(PKey::Offset),
            "fname" | "targets" | "target_fn_name" | "target_fn_type" | "target_imp_module" => {
                Access::Buf(PKey::buf(name).unwrap_or(PKey::Fname))
            }
            "opidx" => Access::P(PKey::Opidx),
            "default_target" => Access::P(PKey::DefaultTarget),
            "resolved_fid" if self.spec.event == Some("ref.func") => Access::P(PKey::Imm(0)),
            // whamm's look-back: the function of a `ref.func` just before, else -1
            "resolved_fid"
                if matches!(
                    self.spec.event,
                    Some("call_ref" | "return_call_ref" | "table.set")
                ) =>
            {
                Access::P(PKey::RefFuncBefore)
            }
            "resolved_fid" => Access::Resolved,
            "opname" | "category_name" | "category_id" | "bytecode" | "data_size" | "is_write" => {
                Access::Const(name.to_string())
            }
            "align" => Access::Align,
            "memory" => Access::P(PKey::Imm(1)),
            "addr" => Access::Addr(self.addr_operand()),
            "effective_addr" => Access::EffAddr(self.addr_operand()),
            "table_entry_idx" => Access::P(PKey::Arg(0)),
            "target" => Access::Target,
            "failed" => Access::Failed,
            _ => {
                if let Some(n) = idx("imm") {
                    Access::P(PKey::Imm(n))
                } else if let Some(n) = idx("local") {
                    Access::P(PKey::Local(n))
                } else if let Some(n) = idx("arg") {
                    if self.after {
                        return Err(format!("`{name}` (an operand) is not available in mode `after`: the engine passes the results; use `res{n}`"));
                    }
                    Access::P(PKey::Arg(n))
                } else if let Some(n) = idx("res") {
                    Access::P(PKey::Arg(n))
                } else {
                    let _ = op;
                    return Err(format!(
                        "bound variable `{name}` is not supported by the back end"
                    ));
                }
            }
        })
    }

    pub(super) fn pkeys(&self, a: &Access) -> Vec<PKey> {
        match a {
            Access::Const(_) => vec![],
            Access::P(k) => vec![k.clone()],
            Access::Align => vec![PKey::Imm(0)],
            Access::Addr(k) => vec![PKey::Arg(*k)],
            Access::EffAddr(k) => vec![PKey::Arg(*k), PKey::Offset],
            Access::Target => vec![PKey::Arg(0), PKey::NumTargets],
            Access::Failed => vec![PKey::Arg(0)],
            Access::Buf(k) => vec![k.clone()],
            Access::Resolved => vec![PKey::Arg(0), PKey::Imm(self.table_imm())],
        }
    }

    pub(super) fn constant(&self, name: &str) -> Const {
        let op = self.spec.opcode;
        match name {
            "opname" => Const::Str(op.map(|o| o.mnemonic().to_string()).unwrap_or_default()),
            // whamm's categories (categories.rs), not the spec sections
            "category_name" => Const::Str(
                op.map(|o| crate::categories::of(o).1.to_string())
                    .unwrap_or_default(),
            ),
            "category_id" => {
                Const::Int(op.map(|o| crate::categories::of(o).0 as i128).unwrap_or(0))
            }
            "bytecode" => Const::Int(op.and_then(crate::bytecode::of).unwrap_or(0) as i128),
            "data_size" => {
                Const::Int(op.and_then(monitor_abi::catalogue::data_size).unwrap_or(0) as i128)
            }
            "is_write" => {
                Const::Bool(op.is_some_and(|o| o.is_store() || o.mnemonic().contains("rmw")))
            }
            _ => Const::Int(0),
        }
    }

    pub(super) fn var_type(&self, name: &str) -> Type {
        self.used
            .get(name)
            .map(|b| b.ty.clone())
            .unwrap_or(Type::Error)
    }
}

/// How a bound variable is read inside a generated function.
#[derive(Clone, Debug)]
pub(super) enum Bound {
    Const(Const, Type),
    /// A local holding the value (of the given type).
    Local(u32, Type),
    Align(u32),
    EffAddr(u32, u32),
    Target(u32, u32),
    Failed(u32),
    /// A pointer (string, map) stored in the site record (local) at this offset.
    Rec(u32, u32),
    /// `resolved_fid`: locals holding the table index and the entry index.
    Resolved(u32, u32),
}

impl Cg<'_> {
    /// Normalize a narrow-typed parameter in place (e.g. `arg0: u8`).
    pub(super) fn normalize_param(&mut self, cx: &mut FnCx, l: u32, t: &Type) {
        if matches!(t, Type::U8 | Type::I8 | Type::U16 | Type::I16 | Type::Bool) {
            cx.e(I::LocalGet(l));
            if *t == Type::Bool {
                cx.e(I::I32Eqz);
                cx.e(I::I32Eqz);
            } else {
                self.normalize(cx, t);
            }
            cx.e(I::LocalSet(l));
        }
    }

    /// Bind static-call params to locals: returns PKey -> (local, type).
    /// `fname` (ptr, len) is copied to a heap string; in an allocator
    /// (`pred` false) once per function (see `cached_fname`).
    pub(super) fn bind_params(
        &mut self,
        cx: &mut FnCx,
        keys: &[PKey],
        env: &BoundEnv,
        pred: bool,
    ) -> HashMap<PKey, (u32, Type)> {
        let mut out = HashMap::new();
        let mut l = 0u32;
        for k in keys {
            let fid = out.get(&PKey::Fid).map(|x: &(u32, Type)| x.0);
            if let (PKey::Fname, Some(fid), false) = (k, fid, pred) {
                let s = self.cached_fname(cx, fid, l);
                out.insert(k.clone(), (s, env.pkey_type(k, None)));
                l += 2;
            } else if k.is_buf() {
                let s = cx.local(VT::I32);
                cx.e(I::LocalGet(l));
                cx.e(I::LocalGet(l + 1));
                let f = match k {
                    PKey::Targets => "map_from_u32s",
                    // the language's names are empty where the engine says `func#N`
                    PKey::Fname | PKey::TargetFnName => "name_from",
                    _ => "str_from",
                };
                cx.e(I::Call(self.m.rt(f)));
                cx.e(I::LocalSet(s));
                out.insert(k.clone(), (s, env.pkey_type(k, None)));
                l += 2;
            } else {
                out.insert(k.clone(), (l, env.pkey_type(k, None)));
                l += 1;
            }
        }
        out
    }

    /// `fname` as a heap string in a new local, from the (ptr, len) in
    /// locals `p`, `p + 1`, copied only when the site's function (local
    /// `fid`) is not the previous allocation's: sites are matched in program
    /// order, so a function's sites share one copy of its name (one monitor
    /// instance matches one app, so the fid names the function).
    fn cached_fname(&mut self, cx: &mut FnCx, fid: u32, p: u32) -> u32 {
        let (last_fid, last_name) = *self.fname_cache.get_or_insert_with(|| {
            (
                self.m
                    .global(VT::I32, wasm_encoder::ConstExpr::i32_const(-1)),
                self.m
                    .global(VT::I32, wasm_encoder::ConstExpr::i32_const(0)),
            )
        });
        let s = cx.local(VT::I32);
        cx.e(I::LocalGet(fid));
        cx.e(I::GlobalGet(last_fid));
        cx.e(I::I32Eq);
        cx.e(I::If(wasm_encoder::BlockType::Empty));
        cx.e(I::GlobalGet(last_name));
        cx.e(I::LocalSet(s));
        cx.e(I::Else);
        cx.e(I::LocalGet(p));
        cx.e(I::LocalGet(p + 1));
        cx.e(I::Call(self.m.rt("name_from")));
        cx.e(I::LocalTee(s));
        cx.e(I::GlobalSet(last_name));
        cx.e(I::LocalGet(fid));
        cx.e(I::GlobalSet(last_fid));
        cx.e(I::End);
        s
    }

    pub(super) fn bind_bound(
        &mut self,
        cx: &mut FnCx,
        access: &BTreeMap<String, Access>,
        consts: &BTreeMap<String, Const>,
        locals: &HashMap<PKey, (u32, Type)>,
        env: &BoundEnv,
        rec: Option<(u32, &[(PKey, u32)])>,
    ) {
        for (name, a) in access {
            let get = |k: &PKey| locals.get(k).map(|x| x.0).unwrap_or(0);
            let b = match a {
                Access::Const(c) => Bound::Const(consts[c].clone(), env.var_type(name)),
                Access::P(k) => {
                    let (l, t) = locals.get(k).cloned().unwrap_or((0, Type::U32));
                    Bound::Local(
                        l,
                        if matches!(k, PKey::Arg(_) | PKey::Local(_)) {
                            env.var_type(name)
                        } else {
                            t
                        },
                    )
                }
                Access::Align => Bound::Align(get(&PKey::Imm(0))),
                Access::Addr(k) => Bound::Local(get(&PKey::Arg(*k)), Type::U32),
                Access::EffAddr(k) => Bound::EffAddr(get(&PKey::Arg(*k)), get(&PKey::Offset)),
                Access::Target => Bound::Target(get(&PKey::Arg(0)), get(&PKey::NumTargets)),
                Access::Failed => Bound::Failed(get(&PKey::Arg(0))),
                Access::Buf(k) => {
                    match (
                        locals.get(k),
                        rec.and_then(|(r, f)| Some((r, rec_offset(f, k)?))),
                    ) {
                        (Some((l, t)), _) => Bound::Local(*l, t.clone()),
                        (None, Some((r, off))) => Bound::Rec(r, off),
                        // unreachable: bodies read every buffer variable from the record
                        _ => Bound::Const(Const::Str(String::new()), Type::Str),
                    }
                }
                Access::Resolved => {
                    Bound::Resolved(get(&PKey::Imm(env.table_imm())), get(&PKey::Arg(0)))
                }
            };
            cx.bound.insert(name.clone(), b);
        }
    }

    pub(super) fn bound(&mut self, cx: &mut FnCx, b: &Bound, want: &Type) {
        match b {
            Bound::Const(c, t) => {
                self.push_const(cx, c, t);
                self.convert(cx, t, want);
            }
            Bound::Local(l, t) => {
                cx.e(I::LocalGet(*l));
                self.convert(cx, t, want);
            }
            Bound::Align(l) => {
                cx.e(I::LocalGet(*l));
                cx.e(I::I32Const(0x3f));
                cx.e(I::I32And);
            }
            Bound::EffAddr(a, o) => {
                cx.e(I::LocalGet(*a));
                cx.e(I::I64ExtendI32U);
                cx.e(I::LocalGet(*o));
                cx.e(I::I64Add);
            }
            Bound::Target(a, n) => {
                cx.e(I::LocalGet(*a));
                cx.e(I::LocalGet(*n));
                cx.e(I::LocalGet(*a));
                cx.e(I::LocalGet(*n));
                cx.e(I::I32LtU);
                cx.e(I::Select);
            }
            Bound::Failed(a) => {
                cx.e(I::LocalGet(*a));
                cx.e(I::I32Const(-1));
                cx.e(I::I32Eq);
            }
            Bound::Rec(r, off) => {
                cx.e(I::LocalGet(*r));
                cx.e(I::I32Load(mem8(*off, 2)));
            }
            Bound::Resolved(table, entry) => {
                cx.e(I::LocalGet(*table));
                cx.e(I::LocalGet(*entry));
                match self.app_table_fid {
                    Some(f) => cx.e(I::Call(f)),
                    None => {
                        // unreachable: `resolved_fid` is only bound when the import exists
                        cx.e(I::Drop);
                        cx.e(I::Drop);
                        cx.e(I::I32Const(-1));
                    }
                }
                self.convert(cx, &Type::I32, want);
            }
        }
    }
}
