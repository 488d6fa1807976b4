//! Handlers: loads and stores, and the superinstructions that fuse a
//! load or store with address arithmetic or local accesses.

use super::*;

handlers! {
    group: memory_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_I32Load: Op::I32Load(m) => load!(m, 4, |b| u32::from_le_bytes(b) as u64),
    h_I64Load: Op::I64Load(m) => load!(m, 8, |b| u64::from_le_bytes(b)),
    h_I32Load8S: Op::I32Load8S(m) => load!(m, 1, |b| b[0] as i8 as i32 as u32 as u64),
    h_I32Load8U: Op::I32Load8U(m) => load!(m, 1, |b| b[0] as u64),
    h_I32Load16S: Op::I32Load16S(m) => load!(m, 2, |b| i16::from_le_bytes(b) as i32 as u32 as u64),
    h_I32Load16U: Op::I32Load16U(m) => load!(m, 2, |b| u16::from_le_bytes(b) as u64),
    h_I64Load8S: Op::I64Load8S(m) => load!(m, 1, |b| b[0] as i8 as i64 as u64),
    h_I64Load8U: Op::I64Load8U(m) => load!(m, 1, |b| b[0] as u64),
    h_I64Load16S: Op::I64Load16S(m) => load!(m, 2, |b| i16::from_le_bytes(b) as i64 as u64),
    h_I64Load16U: Op::I64Load16U(m) => load!(m, 2, |b| u16::from_le_bytes(b) as u64),
    h_I64Load32S: Op::I64Load32S(m) => load!(m, 4, |b| i32::from_le_bytes(b) as i64 as u64),
    h_I64Load32U: Op::I64Load32U(m) => load!(m, 4, |b| u32::from_le_bytes(b) as u64),
    h_MemorySize0: Op::MemorySize0 => push!(r.mem_len >> 16),
    h_I32Store: Op::I32Store(m) => store_!(m, 4, |v| (v as u32).to_le_bytes()),
    h_I64Store: Op::I64Store(m) => store_!(m, 8, |v| v.to_le_bytes()),
    h_I32Store8: Op::I32Store8(m) | Op::I64Store8(m) => store_!(m, 1, |v| [v as u8]),
    h_I32Store16: Op::I32Store16(m) | Op::I64Store16(m) => {
                store_!(m, 2, |v| (v as u16).to_le_bytes())
            },
    h_I64Store32: Op::I64Store32(m) => store_!(m, 4, |v| (v as u32).to_le_bytes()),
    // Superinstructions.
    h_I32LoadL: Op::I32LoadL { a, off } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 4);
                push!(u32::from_le_bytes(b) as u64)
            },
    h_I64LoadL: Op::I64LoadL { a, off } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 8);
                push!(u64::from_le_bytes(b))
            },
    h_I32LoadLL: Op::I32LoadLL { a, b, off } => {
                let b = load0!(
                    (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    4
                );
                push!(u32::from_le_bytes(b) as u64)
            },
    h_I64LoadLL: Op::I64LoadLL { a, b, off } => {
                let b = load0!(
                    (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    8
                );
                push!(u64::from_le_bytes(b))
            },
    h_I32LoadSL: Op::I32LoadSL { b, off } => {
                let b = load0!(
                    (top!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    4
                );
                set_top!(u32::from_le_bytes(b) as u64)
            },
    h_I64LoadSL: Op::I64LoadSL { b, off } => {
                let b = load0!(
                    (top!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    8
                );
                set_top!(u64::from_le_bytes(b))
            },
    h_I32LoadSS: Op::I32LoadSS { off } => {
                let b = pop!() as u32;
                let a = (top!() as u32).wrapping_add(b) as u64 + off as u64;
                set_top!(u32::from_le_bytes(load0!(a, 4)) as u64);
            },
    h_I64LoadSS: Op::I64LoadSS { off } => {
                let b = pop!() as u32;
                let a = (top!() as u32).wrapping_add(b) as u64 + off as u64;
                set_top!(u64::from_le_bytes(load0!(a, 8)));
            },
    h_I32LoadLS: Op::I32LoadLS { a, off, dst } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 4);
                put!(dst, u32::from_le_bytes(b) as u64);
            },
    h_I64LoadLS: Op::I64LoadLS { a, off, dst } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 8);
                put!(dst, u64::from_le_bytes(b));
            },
    h_I32LoadSLS: Op::I32LoadSLS { b, off, dst } => {
                let a = (pop!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                put!(dst, u32::from_le_bytes(load0!(a, 4)) as u64);
            },
    h_I64LoadSLS: Op::I64LoadSLS { b, off, dst } => {
                let a = (pop!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                put!(dst, u64::from_le_bytes(load0!(a, 8)));
            },
    h_F64AddLoadSS: Op::F64AddLoadSS { off } => {
                let q = rd!(sp - 1) as u32;
                let p = rd!(sp - 2) as u32;
                let x = f64::from_bits(rd!(sp - 3));
                let y = f64::from_bits(u64::from_le_bytes(load0!(
                    p.wrapping_add(q) as u64 + off as u64,
                    8
                )));
                sp -= 2;
                set_top!(super::floats::add64(x, y).to_bits());
            },
    h_I32LoadLC: Op::I32LoadLC { a, c, off } => {
                let ea = (loc!(a) as u32).wrapping_add(c) as u64 + off as u64;
                push!(u32::from_le_bytes(load0!(ea, 4)) as u64);
            },
    h_I64LoadLC: Op::I64LoadLC { a, c, off } => {
                let ea = (loc!(a) as u32).wrapping_add(c) as u64 + off as u64;
                push!(u64::from_le_bytes(load0!(ea, 8)));
            },
    h_I64StoreTee: Op::I64StoreTee { t, off } => {
                let v = rd!(sp - 1);
                wr!(fp + t as usize, v);
                let a = rd!(sp - 2) as u32 as u64 + off as u64;
                store0!(a, v.to_le_bytes());
                shrink!(2);
            },
    h_F64MulAddStore: Op::F64MulAddStore { off } => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                let a = rd!(sp - 4) as u32 as u64 + off as u64;
                store0!(a, super::floats::mul_add64(x, y, z).to_bits().to_le_bytes());
                shrink!(4);
            },
    h_F64MulAddTeeStore: Op::F64MulAddTeeStore { t, off } => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                let v = super::floats::mul_add64(x, y, z).to_bits();
                wr!(fp + t as usize, v);
                let a = rd!(sp - 4) as u32 as u64 + off as u64;
                store0!(a, v.to_le_bytes());
                shrink!(4);
            },
    h_F64MulAddLoadLL: Op::F64MulAddLoadLL { a, b, off } => {
                let ea = (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                let z = f64::from_bits(u64::from_le_bytes(load0!(ea, 8)));
                let y = f64::from_bits(rd!(sp - 1));
                let x = f64::from_bits(rd!(sp - 2));
                sp -= 1;
                set_top!(super::floats::mul_add64(x, y, z).to_bits());
            },
    h_F64MulAddLoadSL: Op::F64MulAddLoadSL { b, off } => {
                let ea = (rd!(sp - 1) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                let z = f64::from_bits(u64::from_le_bytes(load0!(ea, 8)));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!(super::floats::mul_add64(x, y, z).to_bits());
            },
    h_I32StoreTee: Op::I32StoreTee { t, off } => {
                let v = rd!(sp - 1);
                wr!(fp + t as usize, v);
                let a = rd!(sp - 2) as u32 as u64 + off as u64;
                store0!(a, (v as u32).to_le_bytes());
                shrink!(2);
            },
    // Accesses to 64-bit memories: the effective address replaces the
    // address operand, then the access (with offset 0) runs.
    h_Mem64: Op::Mem64(k) => {
                // SAFETY: `code` is the running function's (invariant at
                // `Regs`); translation made `k` an index of its `mem64`.
                let acc: &Mem64Access = unsafe { &*(*r.code).mem64.as_ptr().add(k as usize) };
                let d = acc.depth as usize;
                let addr = if d == 0 { top!() } else { mem_rd!(sp - (d + 1)) };
                // Memories are at most 4 GiB: anything at or above is out of
                // bounds. (Atomics, cold, take the whole address: they check
                // alignment first.)
                let ea = match addr.checked_add(acc.offset) {
                    Some(ea) if ea <= u32::MAX as u64 || matches!(acc.inner, Op::Atomic { .. }) => ea,
                    _ => trap!(TrapKind::MemoryOutOfBounds),
                };
                if d == 0 {
                    tos = ea;
                } else {
                    mem_wr!(sp - (d + 1), ea);
                }
                let inner: *const Op = &acc.inner;
                // SAFETY: the `Regs` invariants hold; `inner` is a valid op
                // that lives as long as the code.
                return unsafe { handler_of(inner)(r, inner, ip, sp, fp, tos) };
            },
}
