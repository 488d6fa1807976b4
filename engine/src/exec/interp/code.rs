//! The interpreter's pre-decoded instruction set.
//!
//! Each Wasm function is translated once, at load time, into a flat array of
//! [`Op`]s with resolved branch targets and stack adjustments. A parallel array
//! maps every op back to the byte offset (pc) of the Wasm instruction it came
//! from, so traps and (later) probes report the original (fid, pc).

/// A memory immediate: static offset and memory index.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemArg {
    pub offset: u32,
    pub mem: u32,
}

/// A resolved branch: jump to `target`, moving the top `keep` values down to
/// `fp + base` (base counts locals and the label's operand height).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BrTarget {
    pub target: u32,
    pub base: u32,
    pub keep: u32,
}

/// `repr(u16)`: the interpreter dispatches on the tag (`hot::tag`). Every
/// payload is made of integers; the handler table is built at compile time
/// from one sample value of each variant (`hot/mod.rs`), and a variant that no
/// handler group or the cold-op list names does not compile.
#[derive(Copy, Clone, Debug, PartialEq)]
#[repr(u16)]
pub enum Op {
    Unreachable,
    /// Unconditional jump with no stack adjustment.
    Jump(u32),
    /// Pop an i32; jump if it is zero.
    JumpIfZero(u32),
    /// Pop an i32; jump if it is non-zero (no stack adjustment).
    JumpIfNonZero(u32),
    Br(BrTarget),
    BrIf(BrTarget),
    /// Index into `Compiled::br_tables`: `len` entries, the last is the default.
    BrTable {
        start: u32,
        len: u32,
    },
    Return,
    Call(u32),
    CallIndirect {
        ty: u32,
        table: u32,
    },
    ReturnCall(u32),
    ReturnCallIndirect {
        ty: u32,
        table: u32,
    },

    Drop,
    Select,

    LocalGet(u32),
    LocalSet(u32),
    LocalTee(u32),
    GlobalGet(u32),
    GlobalSet(u32),

    I32Load(MemArg),
    I64Load(MemArg),
    I32Load8S(MemArg),
    I32Load8U(MemArg),
    I32Load16S(MemArg),
    I32Load16U(MemArg),
    I64Load8S(MemArg),
    I64Load8U(MemArg),
    I64Load16S(MemArg),
    I64Load16U(MemArg),
    I64Load32S(MemArg),
    I64Load32U(MemArg),
    I32Store(MemArg),
    I64Store(MemArg),
    I32Store8(MemArg),
    I32Store16(MemArg),
    I64Store8(MemArg),
    I64Store16(MemArg),
    I64Store32(MemArg),
    MemorySize(u32),
    /// `memory.size` of memory 0 when its pages are 64 KiB (its size in
    /// bytes is in the interpreter's registers).
    MemorySize0,
    MemoryGrow(u32),
    MemoryFill(u32),
    MemoryCopy {
        dst: u32,
        src: u32,
    },
    MemoryInit {
        data: u32,
        mem: u32,
    },
    DataDrop(u32),

    Const(u64),

    I32Eqz,
    I32Eq,
    I32Ne,
    I32LtS,
    I32LtU,
    I32GtS,
    I32GtU,
    I32LeS,
    I32LeU,
    I32GeS,
    I32GeU,
    I64Eqz,
    I64Eq,
    I64Ne,
    I64LtS,
    I64LtU,
    I64GtS,
    I64GtU,
    I64LeS,
    I64LeU,
    I64GeS,
    I64GeU,
    F32Eq,
    F32Ne,
    F32Lt,
    F32Gt,
    F32Le,
    F32Ge,
    F64Eq,
    F64Ne,
    F64Lt,
    F64Gt,
    F64Le,
    F64Ge,

    I32Clz,
    I32Ctz,
    I32Popcnt,
    I32Add,
    I32Sub,
    I32Mul,
    I32DivS,
    I32DivU,
    I32RemS,
    I32RemU,
    I32And,
    I32Or,
    I32Xor,
    I32Shl,
    I32ShrS,
    I32ShrU,
    I32Rotl,
    I32Rotr,
    I64Clz,
    I64Ctz,
    I64Popcnt,
    I64Add,
    I64Sub,
    I64Mul,
    I64DivS,
    I64DivU,
    I64RemS,
    I64RemU,
    I64And,
    I64Or,
    I64Xor,
    I64Shl,
    I64ShrS,
    I64ShrU,
    I64Rotl,
    I64Rotr,

    F32Abs,
    F32Neg,
    F32Ceil,
    F32Floor,
    F32Trunc,
    F32Nearest,
    F32Sqrt,
    F32Add,
    F32Sub,
    F32Mul,
    F32Div,
    F32Min,
    F32Max,
    F32Copysign,
    F64Abs,
    F64Neg,
    F64Ceil,
    F64Floor,
    F64Trunc,
    F64Nearest,
    F64Sqrt,
    F64Add,
    F64Sub,
    F64Mul,
    F64Div,
    F64Min,
    F64Max,
    F64Copysign,

    I32WrapI64,
    I32TruncF32S,
    I32TruncF32U,
    I32TruncF64S,
    I32TruncF64U,
    I64ExtendI32S,
    I64ExtendI32U,
    I64TruncF32S,
    I64TruncF32U,
    I64TruncF64S,
    I64TruncF64U,
    F32ConvertI32S,
    F32ConvertI32U,
    F32ConvertI64S,
    F32ConvertI64U,
    F32DemoteF64,
    F64ConvertI32S,
    F64ConvertI32U,
    F64ConvertI64S,
    F64ConvertI64U,
    F64PromoteF32,
    I32Extend8S,
    I32Extend16S,
    I64Extend8S,
    I64Extend16S,
    I64Extend32S,
    I32TruncSatF32S,
    I32TruncSatF32U,
    I32TruncSatF64S,
    I32TruncSatF64U,
    I64TruncSatF32S,
    I64TruncSatF32U,
    I64TruncSatF64S,
    I64TruncSatF64U,

    RefIsNull,
    RefFunc(u32),
    TableGet(u32),
    TableSet(u32),
    TableSize(u32),
    TableGrow(u32),
    TableFill(u32),
    TableCopy {
        dst: u32,
        src: u32,
    },
    TableInit {
        elem: u32,
        table: u32,
    },
    ElemDrop(u32),

    // ---- superinstructions (fused at translation; see compile.rs `Fuse`) ----
    /// `local.get a; local.get b; i32.add` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32AddLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32AddLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32AddC(u32),
    /// Top of stack op local.
    I32AddL(u32),
    /// `local.get a; local.get b; i32.sub` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32SubLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32SubLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32SubC(u32),
    /// Top of stack op local.
    I32SubL(u32),
    /// `local.get a; local.get b; i32.mul` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32MulLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32MulLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32MulC(u32),
    /// Top of stack op local.
    I32MulL(u32),
    /// `local.get a; local.get b; i32.and` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32AndLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32AndLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32AndC(u32),
    /// Top of stack op local.
    I32AndL(u32),
    /// `local.get a; local.get b; i32.or` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32OrLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32OrLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32OrC(u32),
    /// Top of stack op local.
    I32OrL(u32),
    /// `local.get a; local.get b; i32.xor` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32XorLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32XorLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32XorC(u32),
    /// Top of stack op local.
    I32XorL(u32),
    /// `local.get a; local.get b; i32.shl` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32ShlLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32ShlLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32ShlC(u32),
    /// Top of stack op local.
    I32ShlL(u32),
    /// `local.get a; local.get b; i32.shrs` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32ShrSLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32ShrSLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32ShrSC(u32),
    /// Top of stack op local.
    I32ShrSL(u32),
    /// `local.get a; local.get b; i32.shru` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32ShrULL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32ShrULC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32ShrUC(u32),
    /// Top of stack op local.
    I32ShrUL(u32),
    /// `local.get a; local.get b; i32.eq` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32EqLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32EqLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32EqC(u32),
    /// Top of stack op local.
    I32EqL(u32),
    /// `local.get a; local.get b; i32.ne` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32NeLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32NeLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32NeC(u32),
    /// Top of stack op local.
    I32NeL(u32),
    /// `local.get a; local.get b; i32.lts` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32LtSLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32LtSLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32LtSC(u32),
    /// Top of stack op local.
    I32LtSL(u32),
    /// `local.get a; local.get b; i32.ltu` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32LtULL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32LtULC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32LtUC(u32),
    /// Top of stack op local.
    I32LtUL(u32),
    /// `local.get a; local.get b; i32.gts` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32GtSLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32GtSLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32GtSC(u32),
    /// Top of stack op local.
    I32GtSL(u32),
    /// `local.get a; local.get b; i32.gtu` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32GtULL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32GtULC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32GtUC(u32),
    /// Top of stack op local.
    I32GtUL(u32),
    /// `local.get a; local.get b; i32.les` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32LeSLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32LeSLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32LeSC(u32),
    /// Top of stack op local.
    I32LeSL(u32),
    /// `local.get a; local.get b; i32.leu` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32LeULL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32LeULC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32LeUC(u32),
    /// Top of stack op local.
    I32LeUL(u32),
    /// `local.get a; local.get b; i32.ges` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32GeSLL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32GeSLC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32GeSC(u32),
    /// Top of stack op local.
    I32GeSL(u32),
    /// `local.get a; local.get b; i32.geu` (+ `local.set/tee dst`, see [`DST_PUSH`]).
    I32GeULL {
        a: u32,
        b: u32,
        dst: u32,
    },
    I32GeULC {
        a: u32,
        c: u32,
        dst: u32,
    },
    /// Top of stack op constant.
    I32GeUC(u32),
    /// Top of stack op local.
    I32GeUL(u32),
    /// Jump if i32.eq (stack operands, const, local/const, local/local).
    JmpI32Eq(u32),
    JmpI32EqC {
        c: u32,
        t: u32,
    },
    JmpI32EqLC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32EqLL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.ne (stack operands, const, local/const, local/local).
    JmpI32Ne(u32),
    JmpI32NeC {
        c: u32,
        t: u32,
    },
    JmpI32NeLC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32NeLL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.lts (stack operands, const, local/const, local/local).
    JmpI32LtS(u32),
    JmpI32LtSC {
        c: u32,
        t: u32,
    },
    JmpI32LtSLC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32LtSLL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.ltu (stack operands, const, local/const, local/local).
    JmpI32LtU(u32),
    JmpI32LtUC {
        c: u32,
        t: u32,
    },
    JmpI32LtULC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32LtULL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.gts (stack operands, const, local/const, local/local).
    JmpI32GtS(u32),
    JmpI32GtSC {
        c: u32,
        t: u32,
    },
    JmpI32GtSLC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32GtSLL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.gtu (stack operands, const, local/const, local/local).
    JmpI32GtU(u32),
    JmpI32GtUC {
        c: u32,
        t: u32,
    },
    JmpI32GtULC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32GtULL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.les (stack operands, const, local/const, local/local).
    JmpI32LeS(u32),
    JmpI32LeSC {
        c: u32,
        t: u32,
    },
    JmpI32LeSLC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32LeSLL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.leu (stack operands, const, local/const, local/local).
    JmpI32LeU(u32),
    JmpI32LeUC {
        c: u32,
        t: u32,
    },
    JmpI32LeULC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32LeULL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.ges (stack operands, const, local/const, local/local).
    JmpI32GeS(u32),
    JmpI32GeSC {
        c: u32,
        t: u32,
    },
    JmpI32GeSLC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32GeSLL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// Jump if i32.geu (stack operands, const, local/const, local/local).
    JmpI32GeU(u32),
    JmpI32GeUC {
        c: u32,
        t: u32,
    },
    JmpI32GeULC {
        a: u32,
        c: u32,
        t: u32,
    },
    JmpI32GeULL {
        a: u32,
        b: u32,
        t: u32,
    },
    /// f64.add forms: top op local, local op local (push), top op const.
    F64AddL(u32),
    F64AddLL(u32, u32),
    F64AddC(u64),
    /// f64.sub forms: top op local, local op local (push), top op const.
    F64SubL(u32),
    F64SubLL(u32, u32),
    F64SubC(u64),
    /// f64.mul forms: top op local, local op local (push), top op const.
    F64MulL(u32),
    F64MulLL(u32, u32),
    F64MulC(u64),
    /// f64.div forms: top op local, local op local (push), top op const.
    F64DivL(u32),
    F64DivLL(u32, u32),
    F64DivC(u64),
    /// `local.get a; i32.load/f32.load off` (memory 0).
    I32LoadL {
        a: u32,
        off: u32,
    },
    /// `local.get a; i64.load/f64.load off` (memory 0).
    I64LoadL {
        a: u32,
        off: u32,
    },
    /// `local.get a; local.get b; i32.add; i32.load/f32.load off` (memory 0).
    I32LoadLL {
        a: u32,
        b: u32,
        off: u32,
    },
    /// `local.get a; local.get b; i32.add; i64.load/f64.load off` (memory 0).
    I64LoadLL {
        a: u32,
        b: u32,
        off: u32,
    },
    /// `i32.add` of the stack top and local `b`, then `i32.load/f32.load off` (memory 0).
    I32LoadSL {
        b: u32,
        off: u32,
    },
    /// `i32.add` of the stack top and local `b`, then `i64.load/f64.load off` (memory 0).
    I64LoadSL {
        b: u32,
        off: u32,
    },
    /// `local.get src; local.set dst`.
    LocalCopy {
        src: u32,
        dst: u32,
    },
    /// `*.const c; local.set dst`.
    LocalSetConst {
        dst: u32,
        c: u64,
    },
    /// `i32.add` of the stack top and `local.get a; i32.const c; i32.mul`.
    I32AddMulLC {
        a: u32,
        c: u32,
    },
    /// `i32.add` of the stack top and `local.get a; i32.const c; i32.shl`.
    I32AddShlLC {
        a: u32,
        c: u32,
    },
    /// `i32.add; i32.add`: the sum of the top three operands.
    I32Add3,
    /// `i32.add; local.set/tee dst` (`dst` as in [`DST_PUSH`]/[`DST_TEE`]).
    I32AddS(u32),
    /// `f64.add; f64.add`: `x + (y + z)` of the top three operands.
    F64Add3,
    /// `f64.mul; f64.add`: `x + (y * z)` of the top three operands (two roundings).
    F64MulAdd,
    /// `local.get a; local.get b` (not consumed by a fused op).
    LocalGet2(u32, u32),
    /// `local.tee a; local.get b`.
    TeeGet(u32, u32),
    /// `i32.add` of the top two operands, then `i32.load/f32.load off` (memory 0).
    I32LoadSS {
        off: u32,
    },
    /// `i32.add` of the top two operands, then `i64.load/f64.load off` (memory 0).
    I64LoadSS {
        off: u32,
    },
    /// `I32LoadL` + `local.set/tee dst` (`dst` as in [`DST_PUSH`]/[`DST_TEE`]).
    I32LoadLS {
        a: u32,
        off: u32,
        dst: u32,
    },
    /// `I64LoadL` + `local.set/tee dst`.
    I64LoadLS {
        a: u32,
        off: u32,
        dst: u32,
    },
    /// `I32LoadSL` + `local.set/tee dst`.
    I32LoadSLS {
        b: u32,
        off: u32,
        dst: u32,
    },
    /// `I64LoadSL` + `local.set/tee dst`.
    I64LoadSLS {
        b: u32,
        off: u32,
        dst: u32,
    },
    /// `I64LoadSS` (an f64 load) + `f64.add`: `x + load(p + q + off)` (the load's pc).
    F64AddLoadSS {
        off: u32,
    },
    /// `f32.add` of the top operand and a local / of two locals / of the top and a constant (bits).
    F32AddL(u32),
    F32AddLL(u32, u32),
    F32AddC(u32),
    /// `f32.sub` of the top operand and a local / of two locals / of the top and a constant (bits).
    F32SubL(u32),
    F32SubLL(u32, u32),
    F32SubC(u32),
    /// `f32.mul` of the top operand and a local / of two locals / of the top and a constant (bits).
    F32MulL(u32),
    F32MulLL(u32, u32),
    F32MulC(u32),
    /// `f32.div` of the top operand and a local / of two locals / of the top and a constant (bits).
    F32DivL(u32),
    F32DivLL(u32, u32),
    F32DivC(u32),
    /// Two in-place increments: `local a += c; local b += d`.
    Inc2 {
        c: i16,
        a: u32,
        b: u32,
        d: u32,
    },
    /// A load from memory 0 at `(local a + c) + off` (the add wraps at 32 bits).
    I32LoadLC {
        a: u32,
        c: u32,
        off: u32,
    },
    I64LoadLC {
        a: u32,
        c: u32,
        off: u32,
    },
    /// `local.get x` + [`Op::I32AddMulLC`]: push `x + a * c`.
    I32AddMulLLC {
        x: u32,
        a: u32,
        c: u32,
    },
    /// Three `local.get`s.
    LocalGet3(u32, u32, u32),
    /// `local.tee t; i64.store off` (memory 0).
    I64StoreTee {
        t: u32,
        off: u32,
    },
    /// [`Op::F64MulAdd`] + `f64.store off` (memory 0): store `x + y * z` at
    /// the address below `x`.
    F64MulAddStore {
        off: u32,
    },
    /// [`Op::F64MulAdd`] + `local.tee t; f64.store off` (memory 0).
    F64MulAddTeeStore {
        t: u32,
        off: u32,
    },
    /// [`Op::F64MulAdd`] whose `z` is [`Op::I64LoadLL`] (at the load's pc).
    F64MulAddLoadLL {
        a: u32,
        b: u32,
        off: u32,
    },
    /// [`Op::F64MulAdd`] whose `z` is [`Op::I64LoadSL`] (at the load's pc).
    F64MulAddLoadSL {
        b: u32,
        off: u32,
    },
    /// `local.tee t; i32.store off` (memory 0).
    I32StoreTee {
        t: u32,
        off: u32,
    },
    /// `local.get a; local.get b; i32.gt_s; select`.
    SelectGtSLL {
        a: u32,
        b: u32,
    },
    /// `local.get a; local.get b; i32.lt_s; select`.
    SelectLtSLL {
        a: u32,
        b: u32,
    },
    /// `local a += c` (kept as `local.tee`) + [`Op::JmpI32NeC`]: the loop
    /// counter step; jump to `t` if the new value is not `k`.
    IncJmpNe {
        c: i16,
        a: u32,
        k: u32,
        t: u32,
    },
    /// Fire the probes of `Compiled::probes[n]`.
    Probe(u32),
    /// A probe that is a pure counter increment, performed directly
    /// ([`crate::core::probe::DirectInc`]): the 8- or 4-byte counter at address
    /// `(hi << 32) | lo` (in a monitor memory) += `delta`.
    MonInc64 {
        lo: u32,
        hi: u32,
        delta: u32,
    },
    MonInc32 {
        lo: u32,
        hi: u32,
        delta: u32,
    },
    /// [`crate::core::probe::Direct::Select`]: increment `Compiled::sel_incs[k][0]`
    /// if operand `n` (from the top) is non-zero, else `[1]`.
    MonIncSel {
        n: u32,
        k: u32,
    },
    /// A dynamic probe site (`Store::dyn_sites[n]`) patched over an op: fire the
    /// site's probes, then execute the op it replaced.
    DynProbe(u32),
    /// Placeholder for an instruction that needs no op, so dynamic probes can be
    /// attached to it (emitted only when a monitor uses `whamm:dyninstr`).
    Nop,
    /// Dyn tier: a loop header (empty operand stack, no params) counting its
    /// iterations (the count lives in the op); at the threshold the rest of the
    /// activation continues in compiled code (OSR). Emitted only for modules
    /// loaded for the dyn tier.
    LoopHead(u32),

    // Typed function references (`ref.as_non_null`, `call_ref` and
    // `return_call_ref` are cold: `exec.rs`).
    /// `br_on_null`: pop a null reference and branch; leave a non-null one.
    BrOnNull(BrTarget),
    /// `br_on_non_null`: branch with a non-null reference (it is the last
    /// value the label keeps); pop a null one.
    BrOnNonNull(BrTarget),
    /// Trap with `null reference` if the top operand is null.
    RefAsNonNull,
    /// Pop a function reference and call it (null traps); the arguments are
    /// below it. The type needs no check: validation guarantees it.
    CallRef,
    ReturnCallRef,
    /// `throw` of tag index `.0`: pops its payload, raises the exception.
    Throw(u32),
    /// `throw_ref`: pops an exnref (null traps) and raises its exception.
    ThrowRef,
    /// Legacy `rethrow`: raises the exception in local slot `.0` (where
    /// the enclosing legacy `catch` stored it).
    Rethrow(u32),

    // Threads: every atomic memory instruction but `atomic.fence` (no op:
    // one thread). Cold, see `super::atomics`.
    Atomic {
        op: AtomicOp,
        m: MemArg,
    },

    // SIMD. A `v128` takes two slots, its low half first (deeper); the
    // semantics are in `super::simd`.
    LocalGet128(u32),
    LocalSet128(u32),
    LocalTee128(u32),
    GlobalGet128(u32),
    GlobalSet128(u32),
    /// `select` of two `v128`s.
    Select128,
    /// Push `Compiled::v128_consts[k]`.
    V128Const(u32),
    SimdUnary(SimdOp),
    SimdBinary(SimdOp),
    SimdTernary(SimdOp),
    SimdTest(SimdOp),
    SimdShift(SimdOp),
    SimdSplat(SimdOp),
    SimdLane {
        kind: LaneOp,
        lane: u8,
    },
    /// `i8x16.shuffle` with the lane indices in `Compiled::v128_consts[k]`
    /// (and on x86-64 its byte-shuffle masks in `k + 1` and `k + 2`,
    /// `simd_fast::shuffle_consts`).
    Shuffle(u32),
    /// `v128.load` and `v128.store` (the common case of `SimdMem`).
    V128Load(MemArg),
    V128Store(MemArg),
    /// Any other v128 load or store (`lane` for the lane forms).
    SimdMem {
        kind: MemOp,
        lane: u8,
        m: MemArg,
    },
    // SIMD superinstructions (`compile/simd.rs`).
    /// `v128.const k` then binary op `o`: the constant is the right operand.
    SimdBinaryK {
        o: SimdOp,
        k: u32,
    },
    /// Binary ops `o1` then `o2` on the top three `v128`s: `o2(a, o1(b, c))`.
    SimdBinary2 {
        o1: SimdOp,
        o2: SimdOp,
    },
    /// `SimdBinaryK { o: o1, k }` then `SimdBinary(o2)`: `o2(a, o1(b, K))`.
    SimdBinaryK2 {
        o1: SimdOp,
        o2: SimdOp,
        k: u32,
    },
    /// `v128.load32_splat` (`SimdMem` without its kind tests).
    V128Load32Splat(MemArg),
    /// `local.get a; i32.const c; i32.add; v128.load32_splat offset=off` of memory 0.
    V128Load32SplatLC {
        a: u32,
        c: u32,
        off: u32,
    },

    /// Any load, store, SIMD or atomic access to a 64-bit memory (memory64):
    /// `Compiled::mem64[k]` has the access. Its own op, so that the 32-bit
    /// memory handlers stay as they are.
    Mem64(u32),
    /// Before `call_indirect` of a 64-bit table: the i64 index, saturated to
    /// u32::MAX (no table is that long, so it stays out of bounds).
    TableIndex64,

    // Wasm GC, all cold (`super::gc_ops`). `ty` is a module type index;
    // `ext` of a get: 0 plain, 1 signed (`_s`), 2 unsigned (`_u`).
    StructNew(u32),
    StructNewDefault(u32),
    StructGet {
        ty: u32,
        field: u32,
        ext: u32,
    },
    StructSet {
        ty: u32,
        field: u32,
    },
    ArrayNew(u32),
    ArrayNewDefault(u32),
    ArrayNewFixed {
        ty: u32,
        n: u32,
    },
    ArrayNewData {
        ty: u32,
        data: u32,
    },
    ArrayNewElem {
        ty: u32,
        elem: u32,
    },
    ArrayGet {
        ty: u32,
        ext: u32,
    },
    ArraySet(u32),
    ArrayLen,
    ArrayFill(u32),
    ArrayCopy {
        dst: u32,
        src: u32,
    },
    ArrayInitData {
        ty: u32,
        data: u32,
    },
    ArrayInitElem {
        ty: u32,
        elem: u32,
    },
    RefI31,
    I31GetS,
    I31GetU,
    RefEq,
    /// `ref.test` of `Compiled::casts[k]`: pop a reference, push 1 if it is
    /// of the target type.
    RefTest(u32),
    /// `ref.cast`: trap unless the top reference is of the target type.
    RefCast(u32),
    /// Push whether the top reference (kept) is of `casts[k]`'s type, or
    /// is not (`Cast::on_fail`): `br_on_cast(_fail)` is this and a `BrIf`.
    CastTest(u32),
}

/// The target of a cast or type test (`Op::RefTest`, `Op::RefCast`,
/// `Op::CastTest`): a heap type with module type indices.
#[derive(Copy, Clone, Debug)]
pub struct Cast {
    pub heap: crate::core::gc_types::HeapTy,
    pub nullable: bool,
    /// `br_on_cast_fail`: the test's result is inverted.
    pub on_fail: bool,
}

/// An access to a 64-bit memory (`Op::Mem64`). The address operand is an
/// i64 `depth` slots below the top of the stack. The handler adds `offset`;
/// an effective address that overflows or lies at or above 4 GiB (no memory
/// is larger, see `runtime::store::MAX_PAGES`) traps; any other replaces
/// the address, and `inner` (the same access with offset 0) runs. (An
/// atomic `inner`, which checks alignment before bounds, gets any effective
/// address that does not overflow.)
#[derive(Copy, Clone, Debug)]
pub struct Mem64Access {
    pub inner: Op,
    pub offset: u64,
    pub depth: u32,
}

pub use super::atomics::{AtomicKind, AtomicOp};
pub use super::simd::{LaneOp, MemOp, SimdOp};

/// `dst` of a fused `LL`/`LC` binop: push the result (no local written).
pub const DST_PUSH: u32 = u32::MAX;
/// Flag in `dst`: write local `dst & !DST_TEE` and also push (a fused `local.tee`).
pub const DST_TEE: u32 = 0x8000_0000;

/// A translated function.
#[derive(Debug, Default)]
pub struct Compiled {
    /// Ops in cells: dynamic probes patch them in place (single-threaded).
    pub ops: Vec<std::cell::Cell<Op>>,
    /// Original pc (byte offset in the function body) of each op.
    pub pcs: Vec<u32>,
    pub br_tables: Vec<BrTarget>,
    /// Slots (not values: a `v128` takes two) of the params, of the params
    /// plus declared locals, and of the results.
    pub num_params: u32,
    pub num_locals: u32,
    pub num_results: u32,
    /// Maximum operand stack height.
    pub max_height: u32,
    /// Function index in the module's function index space.
    pub func_idx: u32,
    /// Types of the locals, params first (for frame accessors).
    pub local_types: Vec<crate::core::types::ValType>,
    /// Probe sites of this function (instrumented modules only).
    pub probes: Vec<Vec<crate::core::probe::ProbeCall>>,
    /// Slot offset of each local (params first) when some local is a `v128`;
    /// empty when every local is one slot (local i is slot i).
    pub local_slots: Vec<u32>,
    /// `v128.const` values and `i8x16.shuffle` lane lists.
    pub v128_consts: Vec<u128>,
    /// The (non-zero, zero) increments of `Op::MonIncSel`.
    pub sel_incs: Vec<[crate::core::probe::DirectInc; 2]>,
    /// The accesses of `Op::Mem64`.
    pub mem64: Vec<Mem64Access>,
    /// The targets of `Op::RefTest`, `Op::RefCast` and `Op::CastTest`.
    pub casts: Vec<Cast>,
    /// Exception handlers (`try_table`, legacy `try`), in the order their
    /// blocks open: a nested region comes after the one around it.
    pub handlers: Vec<TryRegion>,
    /// The JIT must not compile this function (it uses instructions or
    /// types only the interpreter runs: exception handling, Wasm GC): every
    /// tier runs it interpreted (`Translator::require_interpreter`).
    pub interp_only: bool,
    /// Translated from a lazily woven module's plain body (`plain.rs`):
    /// `pcs` are the original function's, probes fire beside the code.
    pub plain: bool,
    /// Where this function's frames hold heap references (GC roots); `None`
    /// if it cannot hold any.
    pub(crate) gc_maps: Option<Box<super::stackmap::StackMaps>>,
}

/// The ops `start..end` of a `try_table` body or a legacy `try` body, and
/// what catches an exception thrown there.
#[derive(Clone, Debug)]
pub struct TryRegion {
    pub start: u32,
    pub end: u32,
    /// Tried in order; none for a legacy `try ... delegate`.
    pub catches: Vec<Catch>,
    /// The region tried next in this activation when no catch matches (the
    /// enclosing one, or a `delegate`'s target); None: the caller's.
    pub outer: Option<u32>,
}

/// One catch clause: where the exception lands.
#[derive(Clone, Debug)]
pub struct Catch {
    /// The tag index it catches; None for `catch_all`.
    pub tag: Option<u32>,
    /// The branch: the operand stack is cut to `fp + base`, the payload (and
    /// the exnref, with `push_ref`) pushed, and execution goes on at `target`.
    pub to: BrTarget,
    pub push_ref: bool,
    /// Legacy `catch`: the local slot that keeps the exnref for `rethrow`.
    pub exn_slot: Option<u32>,
}

impl Compiled {
    /// The first slot of local `i` (relative to the frame pointer).
    pub fn local_slot(&self, i: usize) -> usize {
        match self.local_slots.get(i) {
            Some(s) => *s as usize,
            None => i,
        }
    }

    /// Where the operand stack starts, relative to the frame pointer: after
    /// the locals and one scratch slot. The interpreter keeps the top operand
    /// in a register; the slot below the operand stack absorbs its spill when
    /// the stack is empty, so no spill ever lands on a local.
    pub fn operand_base(&self) -> usize {
        self.num_locals as usize + 1
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn op_is_compact() {
        assert!(std::mem::size_of::<super::Op>() <= 16);
    }
}
