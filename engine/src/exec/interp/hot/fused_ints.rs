//! Handlers: integer superinstructions (a binop fused with its
//! local or constant operands and its destination, and other fused
//! arithmetic; see `fused.rs`).

use super::*;

handlers! {
    group: fused_int_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_I32AddLL: Op::I32AddLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_add(b)) as u64);
            },
    h_I32AddLC: Op::I32AddLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_add(b)) as u64);
            },
    h_I32AddC: Op::I32AddC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_add(b)) as u64);
            },
    h_I32AddL: Op::I32AddL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_add(b)) as u64);
            },
    h_I32SubLL: Op::I32SubLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_sub(b)) as u64);
            },
    h_I32SubLC: Op::I32SubLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_sub(b)) as u64);
            },
    h_I32SubC: Op::I32SubC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_sub(b)) as u64);
            },
    h_I32SubL: Op::I32SubL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_sub(b)) as u64);
            },
    h_I32MulLL: Op::I32MulLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_mul(b)) as u64);
            },
    h_I32MulLC: Op::I32MulLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_mul(b)) as u64);
            },
    h_I32MulC: Op::I32MulC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_mul(b)) as u64);
            },
    h_I32MulL: Op::I32MulL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_mul(b)) as u64);
            },
    h_I32AndLL: Op::I32AndLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a & b) as u64);
            },
    h_I32AndLC: Op::I32AndLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a & b) as u64);
            },
    h_I32AndC: Op::I32AndC(b) => {
                let a = top!() as u32;
                set_top!((a & b) as u64);
            },
    h_I32AndL: Op::I32AndL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a & b) as u64);
            },
    h_I32OrLL: Op::I32OrLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a | b) as u64);
            },
    h_I32OrLC: Op::I32OrLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a | b) as u64);
            },
    h_I32OrC: Op::I32OrC(b) => {
                let a = top!() as u32;
                set_top!((a | b) as u64);
            },
    h_I32OrL: Op::I32OrL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a | b) as u64);
            },
    h_I32XorLL: Op::I32XorLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a ^ b) as u64);
            },
    h_I32XorLC: Op::I32XorLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a ^ b) as u64);
            },
    h_I32XorC: Op::I32XorC(b) => {
                let a = top!() as u32;
                set_top!((a ^ b) as u64);
            },
    h_I32XorL: Op::I32XorL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a ^ b) as u64);
            },
    h_I32ShlLL: Op::I32ShlLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_shl(b)) as u64);
            },
    h_I32ShlLC: Op::I32ShlLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_shl(b)) as u64);
            },
    h_I32ShlC: Op::I32ShlC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_shl(b)) as u64);
            },
    h_I32ShlL: Op::I32ShlL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_shl(b)) as u64);
            },
    h_I32ShrSLL: Op::I32ShrSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrSLC: Op::I32ShrSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrSC: Op::I32ShrSC(b) => {
                let a = top!() as u32;
                set_top!(((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrSL: Op::I32ShrSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrULL: Op::I32ShrULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_shr(b)) as u64);
            },
    h_I32ShrULC: Op::I32ShrULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_shr(b)) as u64);
            },
    h_I32ShrUC: Op::I32ShrUC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_shr(b)) as u64);
            },
    h_I32ShrUL: Op::I32ShrUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_shr(b)) as u64);
            },
    h_I32EqLL: Op::I32EqLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a == b) as u32) as u64);
            },
    h_I32EqLC: Op::I32EqLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a == b) as u32) as u64);
            },
    h_I32EqC: Op::I32EqC(b) => {
                let a = top!() as u32;
                set_top!(((a == b) as u32) as u64);
            },
    h_I32EqL: Op::I32EqL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a == b) as u32) as u64);
            },
    h_I32NeLL: Op::I32NeLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a != b) as u32) as u64);
            },
    h_I32NeLC: Op::I32NeLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a != b) as u32) as u64);
            },
    h_I32NeC: Op::I32NeC(b) => {
                let a = top!() as u32;
                set_top!(((a != b) as u32) as u64);
            },
    h_I32NeL: Op::I32NeL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a != b) as u32) as u64);
            },
    h_I32LtSLL: Op::I32LtSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtSLC: Op::I32LtSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtSC: Op::I32LtSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtSL: Op::I32LtSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtULL: Op::I32LtULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a < b) as u32) as u64);
            },
    h_I32LtULC: Op::I32LtULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a < b) as u32) as u64);
            },
    h_I32LtUC: Op::I32LtUC(b) => {
                let a = top!() as u32;
                set_top!(((a < b) as u32) as u64);
            },
    h_I32LtUL: Op::I32LtUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a < b) as u32) as u64);
            },
    h_I32GtSLL: Op::I32GtSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtSLC: Op::I32GtSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtSC: Op::I32GtSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtSL: Op::I32GtSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtULL: Op::I32GtULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a > b) as u32) as u64);
            },
    h_I32GtULC: Op::I32GtULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a > b) as u32) as u64);
            },
    h_I32GtUC: Op::I32GtUC(b) => {
                let a = top!() as u32;
                set_top!(((a > b) as u32) as u64);
            },
    h_I32GtUL: Op::I32GtUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a > b) as u32) as u64);
            },
    h_I32LeSLL: Op::I32LeSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeSLC: Op::I32LeSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeSC: Op::I32LeSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeSL: Op::I32LeSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeULL: Op::I32LeULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a <= b) as u32) as u64);
            },
    h_I32LeULC: Op::I32LeULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a <= b) as u32) as u64);
            },
    h_I32LeUC: Op::I32LeUC(b) => {
                let a = top!() as u32;
                set_top!(((a <= b) as u32) as u64);
            },
    h_I32LeUL: Op::I32LeUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a <= b) as u32) as u64);
            },
    h_I32GeSLL: Op::I32GeSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeSLC: Op::I32GeSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeSC: Op::I32GeSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeSL: Op::I32GeSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeULL: Op::I32GeULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a >= b) as u32) as u64);
            },
    h_I32GeULC: Op::I32GeULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a >= b) as u32) as u64);
            },
    h_I32GeUC: Op::I32GeUC(b) => {
                let a = top!() as u32;
                set_top!(((a >= b) as u32) as u64);
            },
    h_I32GeUL: Op::I32GeUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a >= b) as u32) as u64);
            },
    h_I32AddMulLC: Op::I32AddMulLC { a, c } => {
                let v = (loc!(a) as u32).wrapping_mul(c);
                set_top!((top!() as u32).wrapping_add(v) as u64);
            },
    h_I32AddShlLC: Op::I32AddShlLC { a, c } => {
                let v = (loc!(a) as u32).wrapping_shl(c);
                set_top!((top!() as u32).wrapping_add(v) as u64);
            },
    h_I32Add3: Op::I32Add3 => {
                let z = rd!(sp - 1) as u32;
                let y = rd!(sp - 2) as u32;
                let x = rd!(sp - 3) as u32;
                sp -= 2;
                set_top!(x.wrapping_add(y).wrapping_add(z) as u64);
            },
    h_I32AddS: Op::I32AddS(dst) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                put!(dst, a.wrapping_add(b) as u64);
            },
    h_Inc2: Op::Inc2 { c, a, b, d } => {
                wr!(fp + a as usize, (loc!(a) as u32).wrapping_add(c as i32 as u32) as u64);
                wr!(fp + b as usize, (loc!(b) as u32).wrapping_add(d) as u64);
            },
    h_I32AddMulLLC: Op::I32AddMulLLC { x, a, c } => {
                push!((loc!(x) as u32).wrapping_add((loc!(a) as u32).wrapping_mul(c)) as u64)
            },
}
