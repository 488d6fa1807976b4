//! Handlers: float comparisons, arithmetic and conversions (also
//! float-to-int), and float superinstructions.

use super::*;

// With NaN operands, x86's SSE arithmetic returns its first operand's NaN
// (quieted), and so does the JIT's code, which keeps the Wasm operand order.
// Rust's `a + b` and `a * b` may be emitted with the operands swapped (both
// are commutative), which picks the other NaN when both operands are NaNs:
// a difference between the tiers a program sees through `reinterpret`. The
// Wasm spec allows either NaN; these keep the tiers bit-identical, at no
// cost: one instruction, the operands in Wasm order. (`-` and `/` are not
// commutative, so the compiler keeps their order.)
#[cfg(target_arch = "x86_64")]
mod ordered {
    macro_rules! ordered {
        ($name:ident, $t:ty, $ins:literal) => {
            #[inline(always)]
            pub(crate) fn $name(a: $t, b: $t) -> $t {
                let mut r = a;
                // SAFETY: register-only arithmetic (no memory, no stack, no
                // flags the compiler relies on).
                unsafe {
                    std::arch::asm!(
                        concat!($ins, " {r}, {b}"),
                        r = inout(xmm_reg) r,
                        b = in(xmm_reg) b,
                        options(pure, nomem, nostack, preserves_flags)
                    )
                };
                r
            }
        };
    }
    ordered!(add32, f32, "addss");
    ordered!(mul32, f32, "mulss");
    ordered!(add64, f64, "addsd");
    ordered!(mul64, f64, "mulsd");
}

#[cfg(not(target_arch = "x86_64"))]
mod ordered {
    pub(crate) fn add32(a: f32, b: f32) -> f32 {
        a + b
    }
    pub(crate) fn mul32(a: f32, b: f32) -> f32 {
        a * b
    }
    pub(crate) fn add64(a: f64, b: f64) -> f64 {
        a + b
    }
    pub(crate) fn mul64(a: f64, b: f64) -> f64 {
        a * b
    }
}

pub(super) use ordered::{add32, add64, mul32, mul64};

/// `x + y * z` as the two Wasm instructions compute it (no fused multiply-add).
#[inline(always)]
pub(super) fn mul_add64(x: f64, y: f64, z: f64) -> f64 {
    add64(x, mul64(y, z))
}

fn f32_min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f32::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}
fn f32_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f32::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}
fn f64_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}
fn f64_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}

/// Checked float -> int truncation: Err(kind) on NaN or out of range.
/// `lo` and `hi` are exclusive bounds of the representable range (after trunc).
#[inline(always)]
fn trunc_check(x: f64, lo: f64, hi: f64) -> Result<f64, TrapKind> {
    if x.is_nan() {
        Err(TrapKind::InvalidConversionToInteger)
    } else if x <= lo || x >= hi {
        Err(TrapKind::IntegerOverflow)
    } else {
        Ok(x.trunc())
    }
}

handlers! {
    group: float_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_F32Eq: Op::F32Eq => f32cmp!(|a, b| a == b),
    h_F32Ne: Op::F32Ne => f32cmp!(|a, b| a != b),
    h_F32Lt: Op::F32Lt => f32cmp!(|a, b| a < b),
    h_F32Gt: Op::F32Gt => f32cmp!(|a, b| a > b),
    h_F32Le: Op::F32Le => f32cmp!(|a, b| a <= b),
    h_F32Ge: Op::F32Ge => f32cmp!(|a, b| a >= b),
    h_F64Eq: Op::F64Eq => f64cmp!(|a, b| a == b),
    h_F64Ne: Op::F64Ne => f64cmp!(|a, b| a != b),
    h_F64Lt: Op::F64Lt => f64cmp!(|a, b| a < b),
    h_F64Gt: Op::F64Gt => f64cmp!(|a, b| a > b),
    h_F64Le: Op::F64Le => f64cmp!(|a, b| a <= b),
    h_F64Ge: Op::F64Ge => f64cmp!(|a, b| a >= b),
    h_F32Abs: Op::F32Abs => un!(u32, u32, |a| a & 0x7fff_ffff),
    h_F32Neg: Op::F32Neg => un!(u32, u32, |a| a ^ 0x8000_0000),
    h_F32Copysign: Op::F32Copysign => bin!(u32, u32, |a, b| (a & 0x7fff_ffff) | (b & 0x8000_0000)),
    h_F32Ceil: Op::F32Ceil => f32un!(|a| a.ceil()),
    h_F32Floor: Op::F32Floor => f32un!(|a| a.floor()),
    h_F32Trunc: Op::F32Trunc => f32un!(|a| a.trunc()),
    h_F32Nearest: Op::F32Nearest => f32un!(|a| a.round_ties_even()),
    h_F32Sqrt: Op::F32Sqrt => f32un!(|a| a.sqrt()),
    h_F32Add: Op::F32Add => f32bin!(|a, b| add32(a, b)),
    h_F32Sub: Op::F32Sub => f32bin!(|a, b| a - b),
    h_F32Mul: Op::F32Mul => f32bin!(|a, b| mul32(a, b)),
    h_F32Div: Op::F32Div => f32bin!(|a, b| a / b),
    h_F32Min: Op::F32Min => f32bin!(|a, b| f32_min(a, b)),
    h_F32Max: Op::F32Max => f32bin!(|a, b| f32_max(a, b)),
    h_F64Abs: Op::F64Abs => un!(u64, u64, |a| a & 0x7fff_ffff_ffff_ffff),
    h_F64Neg: Op::F64Neg => un!(u64, u64, |a| a ^ 0x8000_0000_0000_0000),
    h_F64Copysign: Op::F64Copysign => bin!(u64, u64, |a, b| (a & 0x7fff_ffff_ffff_ffff)
                | (b & 0x8000_0000_0000_0000)),
    h_F64Ceil: Op::F64Ceil => f64un!(|a| a.ceil()),
    h_F64Floor: Op::F64Floor => f64un!(|a| a.floor()),
    h_F64Trunc: Op::F64Trunc => f64un!(|a| a.trunc()),
    h_F64Nearest: Op::F64Nearest => f64un!(|a| a.round_ties_even()),
    h_F64Sqrt: Op::F64Sqrt => f64un!(|a| a.sqrt()),
    h_F64Add: Op::F64Add => f64bin!(|a, b| add64(a, b)),
    h_F64Sub: Op::F64Sub => f64bin!(|a, b| a - b),
    h_F64Mul: Op::F64Mul => f64bin!(|a, b| mul64(a, b)),
    h_F64Div: Op::F64Div => f64bin!(|a, b| a / b),
    h_F64Min: Op::F64Min => f64bin!(|a, b| f64_min(a, b)),
    h_F64Max: Op::F64Max => f64bin!(|a, b| f64_max(a, b)),
    h_I32TruncF32S: Op::I32TruncF32S
            | Op::I32TruncF32U
            | Op::I32TruncF64S
            | Op::I32TruncF64U
            | Op::I64TruncF32S
            | Op::I64TruncF32U
            | Op::I64TruncF64S
            | Op::I64TruncF64U => {
                let s = rd!(sp - 1);
                let x = match *op {
                    Op::I32TruncF32S | Op::I32TruncF32U | Op::I64TruncF32S | Op::I64TruncF32U => {
                        f32::from_bits(s as u32) as f64
                    }
                    _ => f64::from_bits(s),
                };
                let r = match *op {
                    Op::I32TruncF32S | Op::I32TruncF64S => {
                        trunc_check(x, -2147483649.0, 2147483648.0).map(|v| v as i32 as u32 as u64)
                    }
                    Op::I32TruncF32U | Op::I32TruncF64U => {
                        trunc_check(x, -1.0, 4294967296.0).map(|v| v as u32 as u64)
                    }
                    Op::I64TruncF32S | Op::I64TruncF64S => {
                        // -2^63 is representable; anything below it is not.
                        if x.is_nan() {
                            Err(TrapKind::InvalidConversionToInteger)
                        } else if x < -9223372036854775808.0 || x >= 9223372036854775808.0 {
                            Err(TrapKind::IntegerOverflow)
                        } else {
                            Ok(x as i64 as u64)
                        }
                    }
                    _ => trunc_check(x, -1.0, 18446744073709551616.0).map(|v| v as u64),
                };
                match r {
                    Ok(v) => wr!(sp - 1, v),
                    Err(k) => trap!(k),
                }
            },
    h_F32ConvertI32S: Op::F32ConvertI32S => un!(u64, u32, |a| (a as u32 as i32 as f32).to_bits()),
    h_F32ConvertI32U: Op::F32ConvertI32U => un!(u64, u32, |a| (a as u32 as f32).to_bits()),
    h_F32ConvertI64S: Op::F32ConvertI64S => un!(u64, u32, |a| (a as i64 as f32).to_bits()),
    h_F32ConvertI64U: Op::F32ConvertI64U => un!(u64, u32, |a| (a as f32).to_bits()),
    h_F32DemoteF64: Op::F32DemoteF64 => un!(u64, u32, |a| (f64::from_bits(a) as f32).to_bits()),
    h_F64ConvertI32S: Op::F64ConvertI32S => un!(u64, u64, |a| (a as u32 as i32 as f64).to_bits()),
    h_F64ConvertI32U: Op::F64ConvertI32U => un!(u64, u64, |a| (a as u32 as f64).to_bits()),
    h_F64ConvertI64S: Op::F64ConvertI64S => un!(u64, u64, |a| (a as i64 as f64).to_bits()),
    h_F64ConvertI64U: Op::F64ConvertI64U => un!(u64, u64, |a| (a as f64).to_bits()),
    h_F64PromoteF32: Op::F64PromoteF32 => un!(u64, u64, |a| (f32::from_bits(a as u32) as f64).to_bits()),
    h_I32TruncSatF32S: Op::I32TruncSatF32S => un!(u64, u32, |a| f32::from_bits(a as u32) as i32 as u32),
    h_I32TruncSatF32U: Op::I32TruncSatF32U => un!(u64, u32, |a| f32::from_bits(a as u32) as u32),
    h_I32TruncSatF64S: Op::I32TruncSatF64S => un!(u64, u32, |a| f64::from_bits(a) as i32 as u32),
    h_I32TruncSatF64U: Op::I32TruncSatF64U => un!(u64, u32, |a| f64::from_bits(a) as u32),
    h_I64TruncSatF32S: Op::I64TruncSatF32S => un!(u64, u64, |a| f32::from_bits(a as u32) as i64),
    h_I64TruncSatF32U: Op::I64TruncSatF32U => un!(u64, u64, |a| f32::from_bits(a as u32) as u64),
    h_I64TruncSatF64S: Op::I64TruncSatF64S => un!(u64, u64, |a| f64::from_bits(a) as i64),
    h_I64TruncSatF64U: Op::I64TruncSatF64U => un!(u64, u64, |a| f64::from_bits(a) as u64),
    // Superinstructions.
    h_F64AddL: Op::F64AddL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!(add64(a, b).to_bits());
            },
    h_F64AddLL: Op::F64AddLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!(add64(a, b).to_bits());
            },
    h_F64AddC: Op::F64AddC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!(add64(a, b).to_bits());
            },
    h_F64SubL: Op::F64SubL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!((a - b).to_bits());
            },
    h_F64SubLL: Op::F64SubLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!((a - b).to_bits());
            },
    h_F64SubC: Op::F64SubC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!((a - b).to_bits());
            },
    h_F64MulL: Op::F64MulL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!(mul64(a, b).to_bits());
            },
    h_F64MulLL: Op::F64MulLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!(mul64(a, b).to_bits());
            },
    h_F64MulC: Op::F64MulC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!(mul64(a, b).to_bits());
            },
    h_F64DivL: Op::F64DivL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!((a / b).to_bits());
            },
    h_F64DivLL: Op::F64DivLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!((a / b).to_bits());
            },
    h_F64DivC: Op::F64DivC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!((a / b).to_bits());
            },
    h_F64Add3: Op::F64Add3 => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!(add64(x, add64(y, z)).to_bits());
            },
    h_F64MulAdd: Op::F64MulAdd => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!(mul_add64(x, y, z).to_bits());
            },
    h_F32AddL: Op::F32AddL(y) => f32_with!(loc!(y), |a, b| add32(a, b)),
    h_F32AddLL: Op::F32AddLL(x, y) => f32_ll!(x, y, |a, b| add32(a, b)),
    h_F32AddC: Op::F32AddC(c) => f32_with!(c, |a, b| add32(a, b)),
    h_F32SubL: Op::F32SubL(y) => f32_with!(loc!(y), |a, b| a - b),
    h_F32SubLL: Op::F32SubLL(x, y) => f32_ll!(x, y, |a, b| a - b),
    h_F32SubC: Op::F32SubC(c) => f32_with!(c, |a, b| a - b),
    h_F32MulL: Op::F32MulL(y) => f32_with!(loc!(y), |a, b| mul32(a, b)),
    h_F32MulLL: Op::F32MulLL(x, y) => f32_ll!(x, y, |a, b| mul32(a, b)),
    h_F32MulC: Op::F32MulC(c) => f32_with!(c, |a, b| mul32(a, b)),
    h_F32DivL: Op::F32DivL(y) => f32_with!(loc!(y), |a, b| a / b),
    h_F32DivLL: Op::F32DivLL(x, y) => f32_ll!(x, y, |a, b| a / b),
    h_F32DivC: Op::F32DivC(c) => f32_with!(c, |a, b| a / b),
}
