//! Handlers: integer comparisons, arithmetic, bit operations and
//! integer-to-integer conversions.

use super::*;

handlers! {
    group: int_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_I32Eqz: Op::I32Eqz => un!(u32, u32, |a| (a == 0) as u32),
    h_I32Eq: Op::I32Eq => bin!(u32, u32, |a, b| (a == b) as u32),
    h_I32Ne: Op::I32Ne => bin!(u32, u32, |a, b| (a != b) as u32),
    h_I32LtS: Op::I32LtS => bin!(u32, u32, |a, b| ((a as i32) < (b as i32)) as u32),
    h_I32LtU: Op::I32LtU => bin!(u32, u32, |a, b| (a < b) as u32),
    h_I32GtS: Op::I32GtS => bin!(u32, u32, |a, b| ((a as i32) > (b as i32)) as u32),
    h_I32GtU: Op::I32GtU => bin!(u32, u32, |a, b| (a > b) as u32),
    h_I32LeS: Op::I32LeS => bin!(u32, u32, |a, b| ((a as i32) <= (b as i32)) as u32),
    h_I32LeU: Op::I32LeU => bin!(u32, u32, |a, b| (a <= b) as u32),
    h_I32GeS: Op::I32GeS => bin!(u32, u32, |a, b| ((a as i32) >= (b as i32)) as u32),
    h_I32GeU: Op::I32GeU => bin!(u32, u32, |a, b| (a >= b) as u32),
    h_I64Eqz: Op::I64Eqz => un!(u64, u64, |a| (a == 0) as u64),
    h_I64Eq: Op::I64Eq => bin!(u64, u64, |a, b| (a == b) as u64),
    h_I64Ne: Op::I64Ne => bin!(u64, u64, |a, b| (a != b) as u64),
    h_I64LtS: Op::I64LtS => bin!(u64, u64, |a, b| ((a as i64) < (b as i64)) as u64),
    h_I64LtU: Op::I64LtU => bin!(u64, u64, |a, b| (a < b) as u64),
    h_I64GtS: Op::I64GtS => bin!(u64, u64, |a, b| ((a as i64) > (b as i64)) as u64),
    h_I64GtU: Op::I64GtU => bin!(u64, u64, |a, b| (a > b) as u64),
    h_I64LeS: Op::I64LeS => bin!(u64, u64, |a, b| ((a as i64) <= (b as i64)) as u64),
    h_I64LeU: Op::I64LeU => bin!(u64, u64, |a, b| (a <= b) as u64),
    h_I64GeS: Op::I64GeS => bin!(u64, u64, |a, b| ((a as i64) >= (b as i64)) as u64),
    h_I64GeU: Op::I64GeU => bin!(u64, u64, |a, b| (a >= b) as u64),
    h_I32Clz: Op::I32Clz => un!(u32, u32, |a| a.leading_zeros()),
    h_I32Ctz: Op::I32Ctz => un!(u32, u32, |a| a.trailing_zeros()),
    h_I32Popcnt: Op::I32Popcnt => un!(u32, u32, |a| a.count_ones()),
    h_I32Add: Op::I32Add => bin!(u32, u32, |a, b| a.wrapping_add(b)),
    h_I32Sub: Op::I32Sub => bin!(u32, u32, |a, b| a.wrapping_sub(b)),
    h_I32Mul: Op::I32Mul => bin!(u32, u32, |a, b| a.wrapping_mul(b)),
    h_I32DivS: Op::I32DivS => {
                let b = rd!(sp - 1) as u32 as i32;
                let a = rd!(sp - 2) as u32 as i32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                if a == i32::MIN && b == -1 {
                    trap!(TrapKind::IntegerOverflow);
                }
                sp -= 1;
                wr!(sp - 1, (a / b) as u32 as u64);
            },
    h_I32DivU: Op::I32DivU => {
                let b = rd!(sp - 1) as u32;
                let a = rd!(sp - 2) as u32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, (a / b) as u64);
            },
    h_I32RemS: Op::I32RemS => {
                let b = rd!(sp - 1) as u32 as i32;
                let a = rd!(sp - 2) as u32 as i32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a.wrapping_rem(b) as u32 as u64);
            },
    h_I32RemU: Op::I32RemU => {
                let b = rd!(sp - 1) as u32;
                let a = rd!(sp - 2) as u32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, (a % b) as u64);
            },
    h_I32And: Op::I32And => bin!(u32, u32, |a, b| a & b),
    h_I32Or: Op::I32Or => bin!(u32, u32, |a, b| a | b),
    h_I32Xor: Op::I32Xor => bin!(u32, u32, |a, b| a ^ b),
    h_I32Shl: Op::I32Shl => bin!(u32, u32, |a, b| a.wrapping_shl(b)),
    h_I32ShrS: Op::I32ShrS => bin!(u32, u32, |a, b| (a as i32).wrapping_shr(b) as u32),
    h_I32ShrU: Op::I32ShrU => bin!(u32, u32, |a, b| a.wrapping_shr(b)),
    h_I32Rotl: Op::I32Rotl => bin!(u32, u32, |a, b| a.rotate_left(b & 31)),
    h_I32Rotr: Op::I32Rotr => bin!(u32, u32, |a, b| a.rotate_right(b & 31)),
    h_I64Clz: Op::I64Clz => un!(u64, u64, |a| a.leading_zeros()),
    h_I64Ctz: Op::I64Ctz => un!(u64, u64, |a| a.trailing_zeros()),
    h_I64Popcnt: Op::I64Popcnt => un!(u64, u64, |a| a.count_ones()),
    h_I64Add: Op::I64Add => bin!(u64, u64, |a, b| a.wrapping_add(b)),
    h_I64Sub: Op::I64Sub => bin!(u64, u64, |a, b| a.wrapping_sub(b)),
    h_I64Mul: Op::I64Mul => bin!(u64, u64, |a, b| a.wrapping_mul(b)),
    h_I64DivS: Op::I64DivS => {
                let b = rd!(sp - 1) as i64;
                let a = rd!(sp - 2) as i64;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                if a == i64::MIN && b == -1 {
                    trap!(TrapKind::IntegerOverflow);
                }
                sp -= 1;
                wr!(sp - 1, (a / b) as u64);
            },
    h_I64DivU: Op::I64DivU => {
                let b = rd!(sp - 1);
                let a = rd!(sp - 2);
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a / b);
            },
    h_I64RemS: Op::I64RemS => {
                let b = rd!(sp - 1) as i64;
                let a = rd!(sp - 2) as i64;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a.wrapping_rem(b) as u64);
            },
    h_I64RemU: Op::I64RemU => {
                let b = rd!(sp - 1);
                let a = rd!(sp - 2);
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a % b);
            },
    h_I64And: Op::I64And => bin!(u64, u64, |a, b| a & b),
    h_I64Or: Op::I64Or => bin!(u64, u64, |a, b| a | b),
    h_I64Xor: Op::I64Xor => bin!(u64, u64, |a, b| a ^ b),
    h_I64Shl: Op::I64Shl => bin!(u64, u64, |a, b| a.wrapping_shl(b as u32)),
    h_I64ShrS: Op::I64ShrS => bin!(u64, u64, |a, b| (a as i64).wrapping_shr(b as u32) as u64),
    h_I64ShrU: Op::I64ShrU => bin!(u64, u64, |a, b| a.wrapping_shr(b as u32)),
    h_I64Rotl: Op::I64Rotl => bin!(u64, u64, |a, b| a.rotate_left((b & 63) as u32)),
    h_I64Rotr: Op::I64Rotr => bin!(u64, u64, |a, b| a.rotate_right((b & 63) as u32)),
    h_I32WrapI64: Op::I32WrapI64 => un!(u64, u32, |a| a as u32),
    h_I64ExtendI32S: Op::I64ExtendI32S => un!(u64, u64, |a| a as u32 as i32 as i64),
    h_I64ExtendI32U: Op::I64ExtendI32U => un!(u64, u64, |a| a as u32),
    h_I32Extend8S: Op::I32Extend8S => un!(u64, u32, |a| a as u8 as i8 as i32 as u32),
    h_I32Extend16S: Op::I32Extend16S => un!(u64, u32, |a| a as u16 as i16 as i32 as u32),
    h_I64Extend8S: Op::I64Extend8S => un!(u64, u64, |a| a as u8 as i8 as i64),
    h_I64Extend16S: Op::I64Extend16S => un!(u64, u64, |a| a as u16 as i16 as i64),
    h_I64Extend32S: Op::I64Extend32S => un!(u64, u64, |a| a as u32 as i32 as i64),
    h_RefIsNull: Op::RefIsNull => un!(u64, u64, |a| (a == 0) as u64),
    h_TableIndex64: Op::TableIndex64 => un!(u64, u64, |a| a.min(u32::MAX as u64)),
}
