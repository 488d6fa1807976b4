//! SIMD superinstructions, chosen from the ops matrix and filter kernels
//! execute most (`scripts/bench-simd.sh`'s mat4: a splatted scalar times a
//! constant row, summed): a binary op with a `v128.const` right operand, two
//! binary ops in a row (also when the first has such a constant), and
//! `v128.load32_splat` without `SimdMem`'s kind
//! tests, also with its `local + const` address. None of them can trap but
//! the load, whose pc the fused op keeps (it is emitted at the load).

use wasmparser::Operator;

use super::Translator;
use crate::exec::interp::code::{Op, DST_PUSH};
use crate::exec::interp::simd::{MemOp, Shape, SimdOp};

/// Whether `op` may fuse with the op before it (see `compile::fusable`).
pub(super) fn fuses(op: &Operator<'_>) -> bool {
    SimdOp::from_operator(op).is_some_and(|s| s.shape() == Shape::Binary)
}

impl Translator<'_> {
    /// Emit SIMD op `o`, fused with the op before it where a rule applies.
    pub(super) fn emit_simd(&mut self, o: Op) {
        let fused = match (self.last(1), o) {
            (Some(Op::V128Const(k)), Op::SimdBinary(o)) => Some(Op::SimdBinaryK { o, k }),
            (Some(Op::SimdBinary(o1)), Op::SimdBinary(o2)) => Some(Op::SimdBinary2 { o1, o2 }),
            (Some(Op::SimdBinaryK { o: o1, k }), Op::SimdBinary(o2)) => {
                Some(Op::SimdBinaryK2 { o1, o2, k })
            }
            (
                Some(Op::I32AddLC {
                    a,
                    c,
                    dst: DST_PUSH,
                }),
                Op::SimdMem {
                    kind: MemOp::Load32Splat,
                    m,
                    ..
                },
            ) if m.mem == 0 => Some(Op::V128Load32SplatLC {
                a,
                c,
                off: m.offset,
            }),
            (
                _,
                Op::SimdMem {
                    kind: MemOp::Load32Splat,
                    m,
                    ..
                },
            ) => {
                self.emit(Op::V128Load32Splat(m));
                return;
            }
            _ => None,
        };
        match fused {
            Some(f) => {
                // At this instruction's pc: the only part that can trap.
                self.pop_ops(1);
                self.emit(f);
            }
            None => {
                self.emit(o);
            }
        }
    }
}
