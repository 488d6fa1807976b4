//! The value representation: how a language type maps to Wasm values, to
//! 8-byte memory slots, and to the names the report prints; places
//! (locals, globals, memory) that hold values.

use super::fn_cx::FnCx;
use crate::types::Type;
use wasm_encoder::{Instruction as I, MemArg, ValType as VT};

pub(super) fn vt(t: &Type) -> VT {
    match t {
        Type::U64 | Type::I64 => VT::I64,
        Type::F32 => VT::F32,
        Type::F64 => VT::F64,
        Type::V128 => VT::V128,
        _ => VT::I32,
    }
}

/// Scalar leaves of a type, in order.
pub(super) fn leaves(t: &Type) -> Vec<Type> {
    let mut v = vec![];
    fn go(t: &Type, v: &mut Vec<Type>) {
        match t {
            Type::Tuple(ts) => ts.iter().for_each(|t| go(t, v)),
            Type::Unit | Type::Error => {}
            t => v.push(t.clone()),
        }
    }
    go(t, &mut v);
    v
}

pub(super) fn vts(t: &Type) -> Vec<VT> {
    leaves(t).iter().map(vt).collect()
}

pub(super) fn nleaves(t: &Type) -> u32 {
    leaves(t).len() as u32
}

/// Bytes a leaf takes in memory: 8, or 16 for a `v128`.
pub(super) fn leaf_bytes(t: &Type) -> u32 {
    if *t == Type::V128 {
        16
    } else {
        8
    }
}

/// Bytes the leaves of `t` take in memory (map keys and values, site
/// records, scratch): the sum of their [`leaf_bytes`].
pub(super) fn mem_size(t: &Type) -> u32 {
    leaves(t).iter().map(leaf_bytes).sum()
}

/// The memory offset of each leaf of `t`, from the value's start.
pub(super) fn leaf_offsets(t: &Type) -> Vec<u32> {
    let mut off = 0;
    leaves(t)
        .iter()
        .map(|l| {
            let o = off;
            off += leaf_bytes(l);
            o
        })
        .collect()
}

/// Leaf range of tuple field `idx`.
pub(super) fn field_range(t: &Type, idx: u32) -> (u32, Type) {
    if let Type::Tuple(ts) = t {
        let start: u32 = ts[..idx as usize].iter().map(nleaves).sum();
        (start, ts[idx as usize].clone())
    } else {
        (0, Type::Error)
    }
}

/// The ABI type code (`argtyN`, monitor_abi::type_code) of a value of `t`.
pub(super) fn type_code(t: &Type) -> i32 {
    let abi = match vt(t) {
        VT::I64 => monitor_abi::ValType::I64,
        VT::F32 => monitor_abi::ValType::F32,
        VT::F64 => monitor_abi::ValType::F64,
        VT::V128 => monitor_abi::ValType::V128,
        _ => monitor_abi::ValType::I32,
    };
    monitor_abi::type_code(Some(abi))
}

/// The whamm type as printed in the report (no spaces).
pub fn type_name(t: &Type) -> String {
    match t {
        Type::Tuple(v) => format!(
            "({})",
            v.iter().map(type_name).collect::<Vec<_>>().join(",")
        ),
        Type::Map(k, v) => format!("map<{},{}>", type_name(k), type_name(v)),
        t => t.to_string(),
    }
}

/// The report's `wasm_type` column, as whamm writes it: the Wasm types of
/// the value's representation, `(i32; i32)` for a string (address and
/// length), a tuple's flattened elements, `i32` for a map (its id).
pub(super) fn wasm_type_name(t: &Type) -> String {
    fn flat(t: &Type, out: &mut Vec<&'static str>) {
        match t {
            Type::Tuple(ts) => ts.iter().for_each(|t| flat(t, out)),
            Type::Str => out.extend(["i32", "i32"]),
            Type::Map(..) => out.push("i32"),
            t => out.push(match vt(t) {
                VT::I64 => "i64",
                VT::F32 => "f32",
                VT::F64 => "f64",
                VT::V128 => "v128",
                _ => "i32",
            }),
        }
    }
    let mut v = vec![];
    flat(t, &mut v);
    if v.len() == 1 {
        v[0].to_string()
    } else {
        format!("({})", v.join("; "))
    }
}

pub(super) fn mem8(offset: u32, align: u32) -> MemArg {
    MemArg {
        offset: offset as u64,
        align,
        memory_index: 0,
    }
}

pub(super) fn zero_const(t: VT) -> wasm_encoder::ConstExpr {
    match t {
        VT::I64 => wasm_encoder::ConstExpr::i64_const(0),
        VT::F32 => wasm_encoder::ConstExpr::f32_const(0.0),
        VT::F64 => wasm_encoder::ConstExpr::f64_const(0.0),
        VT::V128 => wasm_encoder::ConstExpr::v128_const(0),
        _ => wasm_encoder::ConstExpr::i32_const(0),
    }
}

pub(super) fn zero_ins(t: VT) -> I<'static> {
    match t {
        VT::I64 => I::I64Const(0),
        VT::F32 => I::F32Const(0.0),
        VT::F64 => I::F64Const(0.0),
        VT::V128 => I::V128Const(0),
        _ => I::I32Const(0),
    }
}

// ------------------------------------------------------------- places

#[derive(Clone, Debug)]
pub(super) enum Loc {
    Locals(Vec<u32>),
    Globals(Vec<u32>),
    /// Leaves at `base + off` onwards, 8 bytes each (16 for a `v128`,
    /// [`leaf_offsets`]).
    Mem(Base, u32),
}

#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // Addr: static addresses (kept for globals in memory)
pub(super) enum Base {
    Local(u32),
    Addr(u32),
}

impl Loc {
    /// Leaves `start..start + n` of a place holding a value of type `whole`.
    pub(super) fn sub(&self, whole: &Type, start: u32, n: u32) -> Loc {
        match self {
            Loc::Locals(v) => Loc::Locals(v[start as usize..(start + n) as usize].to_vec()),
            Loc::Globals(v) => Loc::Globals(v[start as usize..(start + n) as usize].to_vec()),
            Loc::Mem(b, off) => {
                let skip: u32 = leaves(whole)[..start as usize].iter().map(leaf_bytes).sum();
                Loc::Mem(*b, off + skip)
            }
        }
    }
}

/// A variable: its type and where its leaves live.
#[derive(Clone, Debug)]
pub(super) struct Var {
    pub(super) ty: Type,
    pub(super) loc: Loc,
}

pub(super) fn push_base(cx: &mut FnCx, b: Base) {
    match b {
        Base::Local(l) => cx.e(I::LocalGet(l)),
        Base::Addr(a) => cx.e(I::I32Const(a as i32)),
    }
}

pub(super) fn load_leaf(cx: &mut FnCx, t: &Type, off: u32) {
    cx.e(match vt(t) {
        VT::I64 => I::I64Load(mem8(off, 3)),
        VT::F32 => I::F32Load(mem8(off, 2)),
        VT::F64 => I::F64Load(mem8(off, 3)),
        VT::V128 => I::V128Load(mem8(off, 3)),
        _ => I::I32Load(mem8(off, 2)),
    });
}

/// Store a leaf (address, value on the stack) as a canonical 8-byte slot
/// (16 bytes for a `v128`).
pub(super) fn store_leaf(cx: &mut FnCx, t: &Type, off: u32) {
    match vt(t) {
        VT::I64 => cx.e(I::I64Store(mem8(off, 3))),
        VT::V128 => cx.e(I::V128Store(mem8(off, 3))),
        VT::F64 => cx.e(I::F64Store(mem8(off, 3))),
        VT::F32 => {
            cx.e(I::I32ReinterpretF32);
            cx.e(I::I64ExtendI32U);
            cx.e(I::I64Store(mem8(off, 3)));
        }
        _ => {
            cx.e(I::I64ExtendI32U);
            cx.e(I::I64Store(mem8(off, 3)));
        }
    }
}
