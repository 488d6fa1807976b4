//! Facts about single operators that several layers need.

use wasmparser::Operator;

/// The memory argument of a load or store (not of bulk or atomic memory ops).
pub fn memarg_of(op: &Operator<'_>) -> Option<wasmparser::MemArg> {
    use Operator as O;
    match op {
        O::I32Load { memarg }
        | O::I64Load { memarg }
        | O::F32Load { memarg }
        | O::F64Load { memarg }
        | O::I32Load8S { memarg }
        | O::I32Load8U { memarg }
        | O::I32Load16S { memarg }
        | O::I32Load16U { memarg }
        | O::I64Load8S { memarg }
        | O::I64Load8U { memarg }
        | O::I64Load16S { memarg }
        | O::I64Load16U { memarg }
        | O::I64Load32S { memarg }
        | O::I64Load32U { memarg }
        | O::I32Store { memarg }
        | O::I64Store { memarg }
        | O::F32Store { memarg }
        | O::F64Store { memarg }
        | O::I32Store8 { memarg }
        | O::I32Store16 { memarg }
        | O::I64Store8 { memarg }
        | O::I64Store16 { memarg }
        | O::I64Store32 { memarg } => Some(*memarg),
        _ => None,
    }
}
