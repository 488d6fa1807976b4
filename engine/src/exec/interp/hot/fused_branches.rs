//! Handlers: superinstructions that fuse an i32 comparison with a
//! branch or a `select`.

use super::*;

handlers! {
    group: fused_branch_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_JmpI32Eq: Op::JmpI32Eq(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32EqC: Op::JmpI32EqC { c: b, t } => {
                let a = pop!() as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32EqLC: Op::JmpI32EqLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32EqLL: Op::JmpI32EqLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32Ne: Op::JmpI32Ne(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32NeC: Op::JmpI32NeC { c: b, t } => {
                let a = pop!() as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32NeLC: Op::JmpI32NeLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32NeLL: Op::JmpI32NeLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32LtS: Op::JmpI32LtS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtSC: Op::JmpI32LtSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtSLC: Op::JmpI32LtSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtSLL: Op::JmpI32LtSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtU: Op::JmpI32LtU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32LtUC: Op::JmpI32LtUC { c: b, t } => {
                let a = pop!() as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32LtULC: Op::JmpI32LtULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32LtULL: Op::JmpI32LtULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32GtS: Op::JmpI32GtS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtSC: Op::JmpI32GtSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtSLC: Op::JmpI32GtSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtSLL: Op::JmpI32GtSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtU: Op::JmpI32GtU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32GtUC: Op::JmpI32GtUC { c: b, t } => {
                let a = pop!() as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32GtULC: Op::JmpI32GtULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32GtULL: Op::JmpI32GtULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32LeS: Op::JmpI32LeS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeSC: Op::JmpI32LeSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeSLC: Op::JmpI32LeSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeSLL: Op::JmpI32LeSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeU: Op::JmpI32LeU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32LeUC: Op::JmpI32LeUC { c: b, t } => {
                let a = pop!() as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32LeULC: Op::JmpI32LeULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32LeULL: Op::JmpI32LeULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32GeS: Op::JmpI32GeS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeSC: Op::JmpI32GeSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeSLC: Op::JmpI32GeSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeSLL: Op::JmpI32GeSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeU: Op::JmpI32GeU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_JmpI32GeUC: Op::JmpI32GeUC { c: b, t } => {
                let a = pop!() as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_JmpI32GeULC: Op::JmpI32GeULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_JmpI32GeULL: Op::JmpI32GeULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_SelectGtSLL: Op::SelectGtSLL { a, b } => {
                select_by!((loc!(a) as u32 as i32) > (loc!(b) as u32 as i32))
            },
    h_SelectLtSLL: Op::SelectLtSLL { a, b } => {
                select_by!((loc!(a) as u32 as i32) < (loc!(b) as u32 as i32))
            },
    h_IncJmpNe: Op::IncJmpNe { c, a, k, t } => {
                let v = (loc!(a) as u32).wrapping_add(c as i32 as u32);
                wr!(fp + a as usize, v as u64);
                if v != k {
                    jump!(t);
                }
            },
}
