//! Operators and conversions: arithmetic and comparison instructions per
//! representation, short-circuit logic, value equality, and the numeric
//! conversions between language types.

use super::fn_cx::{FnCx, Label};
use super::repr::*;
use super::Cg;
use crate::ast::*;
use crate::types::Type;
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

impl Cg<'_> {
    /// Wrap an i32-represented value to its type's width.
    pub(super) fn normalize(&mut self, cx: &mut FnCx, t: &Type) {
        match t {
            Type::U8 => {
                cx.e(I::I32Const(0xff));
                cx.e(I::I32And);
            }
            Type::U16 => {
                cx.e(I::I32Const(0xffff));
                cx.e(I::I32And);
            }
            Type::I8 => cx.e(I::I32Extend8S),
            Type::I16 => cx.e(I::I32Extend16S),
            _ => {}
        }
    }

    /// Apply `op` to two values of type `t` on the stack (wrapping integer
    /// results to the type's width).
    pub(super) fn arith(&mut self, cx: &mut FnCx, op: BinOp, t: &Type) {
        use BinOp::*;
        let s = t.is_signed();
        let ins = match vt(t) {
            VT::I32 => int_ins(op, s, false),
            VT::I64 => int_ins(op, s, true),
            // float `%` is C's fmod (the sign of the dividend), as in whamm
            VT::F32 if op == Rem => I::Call(self.m.rt("fmod32")),
            VT::F64 if op == Rem => I::Call(self.m.rt("fmod64")),
            VT::F32 => float_ins(op, false),
            VT::F64 => float_ins(op, true),
            _ => I::Unreachable,
        };
        cx.e(ins);
        if matches!(
            op,
            Add | Sub | Mul | Shl | BitAnd | BitOr | BitXor | Div | Rem | Shr
        ) {
            self.normalize(cx, t);
        }
    }

    pub(super) fn binary(&mut self, cx: &mut FnCx, op: BinOp, a: &Expr, b: &Expr, t: &Type) {
        use BinOp::*;
        match op {
            And | Or => {
                self.expr_to(cx, a, &Type::Bool);
                cx.e(I::If(BlockType::Result(VT::I32)));
                cx.labels.push(Label::Other);
                if op == And {
                    self.expr_to(cx, b, &Type::Bool);
                    cx.e(I::Else);
                    cx.e(I::I32Const(0));
                } else {
                    cx.e(I::I32Const(1));
                    cx.e(I::Else);
                    self.expr_to(cx, b, &Type::Bool);
                }
                cx.labels.pop();
                cx.e(I::End);
            }
            Shl | Shr => {
                self.expr_to(cx, a, t);
                let tb = self.ty(b);
                self.expr(cx, b);
                match (vt(&tb), vt(t)) {
                    (VT::I64, VT::I32) => cx.e(I::I32WrapI64),
                    (VT::I32, VT::I64) => cx.e(I::I64ExtendI32U),
                    _ => {}
                }
                self.arith(cx, op, t);
            }
            _ => {
                let (ta, tb) = (self.ty(a), self.ty(b));
                let ot = if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
                    Type::join(&ta, &tb).unwrap_or(ta.clone())
                } else {
                    t.clone()
                };
                self.expr_to(cx, a, &ot);
                self.expr_to(cx, b, &ot);
                if matches!(op, Eq | Ne) && !ot.is_numeric() && ot != Type::Bool {
                    self.eq_values(cx, &ot);
                    if op == Ne {
                        cx.e(I::I32Eqz);
                    }
                    return;
                }
                self.arith(cx, op, &ot);
            }
        }
    }

    /// Compare two values of type t on the stack (a then b) for equality.
    pub(super) fn eq_values(&mut self, cx: &mut FnCx, t: &Type) {
        let ls = leaves(t);
        let v = vts(t);
        let tb = cx.spill(&v);
        let ta = cx.spill(&v);
        cx.e(I::I32Const(1));
        for (i, lt) in ls.iter().enumerate() {
            cx.e(I::LocalGet(ta[i]));
            cx.e(I::LocalGet(tb[i]));
            match lt {
                Type::Str => cx.e(I::Call(self.m.rt("str_eq"))),
                // bitwise: every byte equal
                Type::V128 => {
                    cx.e(I::I8x16Eq);
                    cx.e(I::I8x16AllTrue);
                }
                _ => self.arith(cx, BinOp::Eq, lt),
            }
            cx.e(I::I32And);
        }
    }

    /// Convert the value on the stack from `from` to `to`.
    pub(super) fn convert(&mut self, cx: &mut FnCx, from: &Type, to: &Type) {
        if from == to || from.is_error() || to.is_error() {
            return;
        }
        match (from, to) {
            // a vector's lanes (lane 0 first), and back
            (Type::V128, _) | (_, Type::V128) => self.convert_v128(cx, from, to),
            (Type::Tuple(fs), Type::Tuple(ts)) => {
                let tmp = cx.spill(&vts(from));
                let mut k = 0usize;
                for (f, t) in fs.iter().zip(ts) {
                    let n = nleaves(f) as usize;
                    for l in &tmp[k..k + n] {
                        cx.e(I::LocalGet(*l));
                    }
                    k += n;
                    self.convert(cx, f, t);
                }
            }
            // a float is true unless it equals 0 (NaN is true), as in whamm
            (Type::F32, Type::Bool) => {
                cx.e(I::F32Const(0.0.into()));
                cx.e(I::F32Ne);
            }
            (Type::F64, Type::Bool) => {
                cx.e(I::F64Const(0.0.into()));
                cx.e(I::F64Ne);
            }
            (f, Type::Bool) if f.is_int() => {
                if vt(f) == VT::I64 {
                    cx.e(I::I64Eqz);
                } else {
                    cx.e(I::I32Eqz);
                }
                cx.e(I::I32Eqz);
            }
            (Type::Bool, t) if t.is_int() => {
                if vt(t) == VT::I64 {
                    cx.e(I::I64ExtendI32U);
                }
            }
            (f, t) if f.is_int() && t.is_int() => match (vt(f), vt(t)) {
                (VT::I32, VT::I32) => self.normalize(cx, t),
                (VT::I32, VT::I64) => cx.e(if f.is_signed() {
                    I::I64ExtendI32S
                } else {
                    I::I64ExtendI32U
                }),
                (VT::I64, VT::I32) => {
                    cx.e(I::I32WrapI64);
                    self.normalize(cx, t);
                }
                _ => {}
            },
            (f, t) if f.is_int() && t.is_float() => {
                let s = f.is_signed();
                cx.e(match (vt(f), vt(t), s) {
                    (VT::I32, VT::F32, true) => I::F32ConvertI32S,
                    (VT::I32, VT::F32, false) => I::F32ConvertI32U,
                    (VT::I32, VT::F64, true) => I::F64ConvertI32S,
                    (VT::I32, VT::F64, false) => I::F64ConvertI32U,
                    (VT::I64, VT::F32, true) => I::F32ConvertI64S,
                    (VT::I64, VT::F32, false) => I::F32ConvertI64U,
                    (VT::I64, VT::F64, true) => I::F64ConvertI64S,
                    _ => I::F64ConvertI64U,
                });
            }
            (f, t) if f.is_float() && t.is_int() => float_to_int(cx, f, t),
            (Type::F32, Type::F64) => cx.e(I::F64PromoteF32),
            (Type::F64, Type::F32) => cx.e(I::F32DemoteF64),
            _ => {}
        }
    }

    /// A vector to its lanes (lane 0 first, one value each), or lanes
    /// (spilled from the stack) into a vector.
    fn convert_v128(&mut self, cx: &mut FnCx, from: &Type, to: &Type) {
        if *from == Type::V128 {
            let Some((lt, n)) = to.v128_lanes() else {
                return;
            };
            let v = cx.local(VT::V128);
            cx.e(I::LocalSet(v));
            for k in 0..n as u8 {
                cx.e(I::LocalGet(v));
                cx.e(lane_ins(&lt, k, false));
            }
        } else {
            let Some((lt, _)) = from.v128_lanes() else {
                return;
            };
            let tmp = cx.spill(&vts(from));
            cx.e(I::V128Const(0));
            for (k, l) in tmp.iter().enumerate() {
                cx.e(I::LocalGet(*l));
                cx.e(lane_ins(&lt, k as u8, true));
            }
        }
    }
}

/// A float to integer type `t`: saturating (a narrow type saturates to its
/// own range, not wrapping).
fn float_to_int(cx: &mut FnCx, f: &Type, t: &Type) {
    let s = t.is_signed();
    let wide = vt(t) == VT::I64;
    // narrow types: saturate through i32 (signed keeps negatives)
    cx.e(match (vt(f), wide, s || !wide && t.bits() < 32) {
        (VT::F32, false, true) => I::I32TruncSatF32S,
        (VT::F32, false, false) => I::I32TruncSatF32U,
        (VT::F64, false, true) => I::I32TruncSatF64S,
        (VT::F64, false, false) => I::I32TruncSatF64U,
        (VT::F32, true, true) => I::I64TruncSatF32S,
        (VT::F32, true, false) => I::I64TruncSatF32U,
        (VT::F64, true, true) => I::I64TruncSatF64S,
        _ => I::I64TruncSatF64U,
    });
    if !wide && t.bits() < 32 {
        // saturate to the narrow type's range (not wrap)
        let (lo, hi) = if s {
            (-(1i32 << (t.bits() - 1)), (1i32 << (t.bits() - 1)) - 1)
        } else {
            (0, (1i32 << t.bits()) - 1)
        };
        let v = cx.local(VT::I32);
        cx.e(I::LocalSet(v));
        cx.e(I::I32Const(hi));
        cx.e(I::LocalGet(v));
        cx.e(I::LocalGet(v));
        cx.e(I::I32Const(hi));
        cx.e(I::I32GtS);
        cx.e(I::Select);
        cx.e(I::LocalSet(v));
        cx.e(I::I32Const(lo));
        cx.e(I::LocalGet(v));
        cx.e(I::LocalGet(v));
        cx.e(I::I32Const(lo));
        cx.e(I::I32LtS);
        cx.e(I::Select);
    }
}

/// The instruction that reads lane `k` of a vector as a value of type
/// `lane` (narrow integer lanes sign- or zero-extended as the language keeps
/// them), or with `replace` the one that writes it.
fn lane_ins(lane: &Type, k: u8, replace: bool) -> I<'static> {
    match (lane, replace) {
        (Type::I8, false) => I::I8x16ExtractLaneS(k),
        (Type::U8, false) => I::I8x16ExtractLaneU(k),
        (Type::I8 | Type::U8, true) => I::I8x16ReplaceLane(k),
        (Type::I16, false) => I::I16x8ExtractLaneS(k),
        (Type::U16, false) => I::I16x8ExtractLaneU(k),
        (Type::I16 | Type::U16, true) => I::I16x8ReplaceLane(k),
        (Type::I32 | Type::U32, false) => I::I32x4ExtractLane(k),
        (Type::I32 | Type::U32, true) => I::I32x4ReplaceLane(k),
        (Type::F32, false) => I::F32x4ExtractLane(k),
        (Type::F32, true) => I::F32x4ReplaceLane(k),
        (Type::I64 | Type::U64, false) => I::I64x2ExtractLane(k),
        (Type::I64 | Type::U64, true) => I::I64x2ReplaceLane(k),
        (Type::F64, false) => I::F64x2ExtractLane(k),
        (Type::F64, true) => I::F64x2ReplaceLane(k),
        _ => I::Unreachable,
    }
}

/// The instruction of an integer operator: `wide` for i64, `s` for the
/// signed forms.
fn int_ins(op: BinOp, s: bool, wide: bool) -> I<'static> {
    use BinOp::*;
    let sign = |signed: (I<'static>, I<'static>), unsigned: (I<'static>, I<'static>)| {
        if s {
            signed
        } else {
            unsigned
        }
    };
    let (i32_ins, i64_ins) = match op {
        Add => (I::I32Add, I::I64Add),
        Sub => (I::I32Sub, I::I64Sub),
        Mul => (I::I32Mul, I::I64Mul),
        Div => sign((I::I32DivS, I::I64DivS), (I::I32DivU, I::I64DivU)),
        Rem => sign((I::I32RemS, I::I64RemS), (I::I32RemU, I::I64RemU)),
        BitAnd => (I::I32And, I::I64And),
        BitOr => (I::I32Or, I::I64Or),
        BitXor => (I::I32Xor, I::I64Xor),
        Shl => (I::I32Shl, I::I64Shl),
        Shr => sign((I::I32ShrS, I::I64ShrS), (I::I32ShrU, I::I64ShrU)),
        Eq => (I::I32Eq, I::I64Eq),
        Ne => (I::I32Ne, I::I64Ne),
        Lt => sign((I::I32LtS, I::I64LtS), (I::I32LtU, I::I64LtU)),
        Le => sign((I::I32LeS, I::I64LeS), (I::I32LeU, I::I64LeU)),
        Gt => sign((I::I32GtS, I::I64GtS), (I::I32GtU, I::I64GtU)),
        Ge => sign((I::I32GeS, I::I64GeS), (I::I32GeU, I::I64GeU)),
        And | Or => return I::Unreachable,
    };
    if wide {
        i64_ins
    } else {
        i32_ins
    }
}

/// The instruction of a float operator: `wide` for f64.
fn float_ins(op: BinOp, wide: bool) -> I<'static> {
    use BinOp::*;
    let (f32_ins, f64_ins) = match op {
        Add => (I::F32Add, I::F64Add),
        Sub => (I::F32Sub, I::F64Sub),
        Mul => (I::F32Mul, I::F64Mul),
        Div => (I::F32Div, I::F64Div),
        Eq => (I::F32Eq, I::F64Eq),
        Ne => (I::F32Ne, I::F64Ne),
        Lt => (I::F32Lt, I::F64Lt),
        Le => (I::F32Le, I::F64Le),
        Gt => (I::F32Gt, I::F64Gt),
        Ge => (I::F32Ge, I::F64Ge),
        _ => return I::Unreachable,
    };
    if wide {
        f64_ins
    } else {
        f32_ins
    }
}
