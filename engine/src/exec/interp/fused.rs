//! Superinstruction helpers (generated shapes; see compile.rs `fuse_*`).
#![allow(dead_code)]

use super::code::*;

/// The fusable i32 binary ops.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum I32Bin {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    Eq,
    Ne,
    LtS,
    LtU,
    GtS,
    GtU,
    LeS,
    LeU,
    GeS,
    GeU,
}
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum F64Bin {
    Add,
    Sub,
    Mul,
    Div,
}
/// Operand forms of a fused binop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Form {
    Plain,
    LL(u32, u32, u32),
    LC(u32, u32, u32),
    C(u32),
    L(u32),
}
impl I32Bin {
    pub(crate) fn of(op: &Op) -> Option<I32Bin> {
        Some(match op {
            Op::I32Add => I32Bin::Add,
            Op::I32Sub => I32Bin::Sub,
            Op::I32Mul => I32Bin::Mul,
            Op::I32And => I32Bin::And,
            Op::I32Or => I32Bin::Or,
            Op::I32Xor => I32Bin::Xor,
            Op::I32Shl => I32Bin::Shl,
            Op::I32ShrS => I32Bin::ShrS,
            Op::I32ShrU => I32Bin::ShrU,
            Op::I32Eq => I32Bin::Eq,
            Op::I32Ne => I32Bin::Ne,
            Op::I32LtS => I32Bin::LtS,
            Op::I32LtU => I32Bin::LtU,
            Op::I32GtS => I32Bin::GtS,
            Op::I32GtU => I32Bin::GtU,
            Op::I32LeS => I32Bin::LeS,
            Op::I32LeU => I32Bin::LeU,
            Op::I32GeS => I32Bin::GeS,
            Op::I32GeU => I32Bin::GeU,
            _ => return None,
        })
    }
    pub(crate) fn make(self, f: Form) -> Op {
        match (self, f) {
            (I32Bin::Add, Form::Plain) => Op::I32Add,
            (I32Bin::Add, Form::LL(a, b, dst)) => Op::I32AddLL { a, b, dst },
            (I32Bin::Add, Form::LC(a, c, dst)) => Op::I32AddLC { a, c, dst },
            (I32Bin::Add, Form::C(c)) => Op::I32AddC(c),
            (I32Bin::Add, Form::L(b)) => Op::I32AddL(b),
            (I32Bin::Sub, Form::Plain) => Op::I32Sub,
            (I32Bin::Sub, Form::LL(a, b, dst)) => Op::I32SubLL { a, b, dst },
            (I32Bin::Sub, Form::LC(a, c, dst)) => Op::I32SubLC { a, c, dst },
            (I32Bin::Sub, Form::C(c)) => Op::I32SubC(c),
            (I32Bin::Sub, Form::L(b)) => Op::I32SubL(b),
            (I32Bin::Mul, Form::Plain) => Op::I32Mul,
            (I32Bin::Mul, Form::LL(a, b, dst)) => Op::I32MulLL { a, b, dst },
            (I32Bin::Mul, Form::LC(a, c, dst)) => Op::I32MulLC { a, c, dst },
            (I32Bin::Mul, Form::C(c)) => Op::I32MulC(c),
            (I32Bin::Mul, Form::L(b)) => Op::I32MulL(b),
            (I32Bin::And, Form::Plain) => Op::I32And,
            (I32Bin::And, Form::LL(a, b, dst)) => Op::I32AndLL { a, b, dst },
            (I32Bin::And, Form::LC(a, c, dst)) => Op::I32AndLC { a, c, dst },
            (I32Bin::And, Form::C(c)) => Op::I32AndC(c),
            (I32Bin::And, Form::L(b)) => Op::I32AndL(b),
            (I32Bin::Or, Form::Plain) => Op::I32Or,
            (I32Bin::Or, Form::LL(a, b, dst)) => Op::I32OrLL { a, b, dst },
            (I32Bin::Or, Form::LC(a, c, dst)) => Op::I32OrLC { a, c, dst },
            (I32Bin::Or, Form::C(c)) => Op::I32OrC(c),
            (I32Bin::Or, Form::L(b)) => Op::I32OrL(b),
            (I32Bin::Xor, Form::Plain) => Op::I32Xor,
            (I32Bin::Xor, Form::LL(a, b, dst)) => Op::I32XorLL { a, b, dst },
            (I32Bin::Xor, Form::LC(a, c, dst)) => Op::I32XorLC { a, c, dst },
            (I32Bin::Xor, Form::C(c)) => Op::I32XorC(c),
            (I32Bin::Xor, Form::L(b)) => Op::I32XorL(b),
            (I32Bin::Shl, Form::Plain) => Op::I32Shl,
            (I32Bin::Shl, Form::LL(a, b, dst)) => Op::I32ShlLL { a, b, dst },
            (I32Bin::Shl, Form::LC(a, c, dst)) => Op::I32ShlLC { a, c, dst },
            (I32Bin::Shl, Form::C(c)) => Op::I32ShlC(c),
            (I32Bin::Shl, Form::L(b)) => Op::I32ShlL(b),
            (I32Bin::ShrS, Form::Plain) => Op::I32ShrS,
            (I32Bin::ShrS, Form::LL(a, b, dst)) => Op::I32ShrSLL { a, b, dst },
            (I32Bin::ShrS, Form::LC(a, c, dst)) => Op::I32ShrSLC { a, c, dst },
            (I32Bin::ShrS, Form::C(c)) => Op::I32ShrSC(c),
            (I32Bin::ShrS, Form::L(b)) => Op::I32ShrSL(b),
            (I32Bin::ShrU, Form::Plain) => Op::I32ShrU,
            (I32Bin::ShrU, Form::LL(a, b, dst)) => Op::I32ShrULL { a, b, dst },
            (I32Bin::ShrU, Form::LC(a, c, dst)) => Op::I32ShrULC { a, c, dst },
            (I32Bin::ShrU, Form::C(c)) => Op::I32ShrUC(c),
            (I32Bin::ShrU, Form::L(b)) => Op::I32ShrUL(b),
            (I32Bin::Eq, Form::Plain) => Op::I32Eq,
            (I32Bin::Eq, Form::LL(a, b, dst)) => Op::I32EqLL { a, b, dst },
            (I32Bin::Eq, Form::LC(a, c, dst)) => Op::I32EqLC { a, c, dst },
            (I32Bin::Eq, Form::C(c)) => Op::I32EqC(c),
            (I32Bin::Eq, Form::L(b)) => Op::I32EqL(b),
            (I32Bin::Ne, Form::Plain) => Op::I32Ne,
            (I32Bin::Ne, Form::LL(a, b, dst)) => Op::I32NeLL { a, b, dst },
            (I32Bin::Ne, Form::LC(a, c, dst)) => Op::I32NeLC { a, c, dst },
            (I32Bin::Ne, Form::C(c)) => Op::I32NeC(c),
            (I32Bin::Ne, Form::L(b)) => Op::I32NeL(b),
            (I32Bin::LtS, Form::Plain) => Op::I32LtS,
            (I32Bin::LtS, Form::LL(a, b, dst)) => Op::I32LtSLL { a, b, dst },
            (I32Bin::LtS, Form::LC(a, c, dst)) => Op::I32LtSLC { a, c, dst },
            (I32Bin::LtS, Form::C(c)) => Op::I32LtSC(c),
            (I32Bin::LtS, Form::L(b)) => Op::I32LtSL(b),
            (I32Bin::LtU, Form::Plain) => Op::I32LtU,
            (I32Bin::LtU, Form::LL(a, b, dst)) => Op::I32LtULL { a, b, dst },
            (I32Bin::LtU, Form::LC(a, c, dst)) => Op::I32LtULC { a, c, dst },
            (I32Bin::LtU, Form::C(c)) => Op::I32LtUC(c),
            (I32Bin::LtU, Form::L(b)) => Op::I32LtUL(b),
            (I32Bin::GtS, Form::Plain) => Op::I32GtS,
            (I32Bin::GtS, Form::LL(a, b, dst)) => Op::I32GtSLL { a, b, dst },
            (I32Bin::GtS, Form::LC(a, c, dst)) => Op::I32GtSLC { a, c, dst },
            (I32Bin::GtS, Form::C(c)) => Op::I32GtSC(c),
            (I32Bin::GtS, Form::L(b)) => Op::I32GtSL(b),
            (I32Bin::GtU, Form::Plain) => Op::I32GtU,
            (I32Bin::GtU, Form::LL(a, b, dst)) => Op::I32GtULL { a, b, dst },
            (I32Bin::GtU, Form::LC(a, c, dst)) => Op::I32GtULC { a, c, dst },
            (I32Bin::GtU, Form::C(c)) => Op::I32GtUC(c),
            (I32Bin::GtU, Form::L(b)) => Op::I32GtUL(b),
            (I32Bin::LeS, Form::Plain) => Op::I32LeS,
            (I32Bin::LeS, Form::LL(a, b, dst)) => Op::I32LeSLL { a, b, dst },
            (I32Bin::LeS, Form::LC(a, c, dst)) => Op::I32LeSLC { a, c, dst },
            (I32Bin::LeS, Form::C(c)) => Op::I32LeSC(c),
            (I32Bin::LeS, Form::L(b)) => Op::I32LeSL(b),
            (I32Bin::LeU, Form::Plain) => Op::I32LeU,
            (I32Bin::LeU, Form::LL(a, b, dst)) => Op::I32LeULL { a, b, dst },
            (I32Bin::LeU, Form::LC(a, c, dst)) => Op::I32LeULC { a, c, dst },
            (I32Bin::LeU, Form::C(c)) => Op::I32LeUC(c),
            (I32Bin::LeU, Form::L(b)) => Op::I32LeUL(b),
            (I32Bin::GeS, Form::Plain) => Op::I32GeS,
            (I32Bin::GeS, Form::LL(a, b, dst)) => Op::I32GeSLL { a, b, dst },
            (I32Bin::GeS, Form::LC(a, c, dst)) => Op::I32GeSLC { a, c, dst },
            (I32Bin::GeS, Form::C(c)) => Op::I32GeSC(c),
            (I32Bin::GeS, Form::L(b)) => Op::I32GeSL(b),
            (I32Bin::GeU, Form::Plain) => Op::I32GeU,
            (I32Bin::GeU, Form::LL(a, b, dst)) => Op::I32GeULL { a, b, dst },
            (I32Bin::GeU, Form::LC(a, c, dst)) => Op::I32GeULC { a, c, dst },
            (I32Bin::GeU, Form::C(c)) => Op::I32GeUC(c),
            (I32Bin::GeU, Form::L(b)) => Op::I32GeUL(b),
        }
    }
    /// Decompose a (possibly fused) i32 binop.
    pub(crate) fn split(op: &Op) -> Option<(I32Bin, Form)> {
        Some(match *op {
            Op::I32Add => (I32Bin::Add, Form::Plain),
            Op::I32AddLL { a, b, dst } => (I32Bin::Add, Form::LL(a, b, dst)),
            Op::I32AddLC { a, c, dst } => (I32Bin::Add, Form::LC(a, c, dst)),
            Op::I32AddC(c) => (I32Bin::Add, Form::C(c)),
            Op::I32AddL(b) => (I32Bin::Add, Form::L(b)),
            Op::I32Sub => (I32Bin::Sub, Form::Plain),
            Op::I32SubLL { a, b, dst } => (I32Bin::Sub, Form::LL(a, b, dst)),
            Op::I32SubLC { a, c, dst } => (I32Bin::Sub, Form::LC(a, c, dst)),
            Op::I32SubC(c) => (I32Bin::Sub, Form::C(c)),
            Op::I32SubL(b) => (I32Bin::Sub, Form::L(b)),
            Op::I32Mul => (I32Bin::Mul, Form::Plain),
            Op::I32MulLL { a, b, dst } => (I32Bin::Mul, Form::LL(a, b, dst)),
            Op::I32MulLC { a, c, dst } => (I32Bin::Mul, Form::LC(a, c, dst)),
            Op::I32MulC(c) => (I32Bin::Mul, Form::C(c)),
            Op::I32MulL(b) => (I32Bin::Mul, Form::L(b)),
            Op::I32And => (I32Bin::And, Form::Plain),
            Op::I32AndLL { a, b, dst } => (I32Bin::And, Form::LL(a, b, dst)),
            Op::I32AndLC { a, c, dst } => (I32Bin::And, Form::LC(a, c, dst)),
            Op::I32AndC(c) => (I32Bin::And, Form::C(c)),
            Op::I32AndL(b) => (I32Bin::And, Form::L(b)),
            Op::I32Or => (I32Bin::Or, Form::Plain),
            Op::I32OrLL { a, b, dst } => (I32Bin::Or, Form::LL(a, b, dst)),
            Op::I32OrLC { a, c, dst } => (I32Bin::Or, Form::LC(a, c, dst)),
            Op::I32OrC(c) => (I32Bin::Or, Form::C(c)),
            Op::I32OrL(b) => (I32Bin::Or, Form::L(b)),
            Op::I32Xor => (I32Bin::Xor, Form::Plain),
            Op::I32XorLL { a, b, dst } => (I32Bin::Xor, Form::LL(a, b, dst)),
            Op::I32XorLC { a, c, dst } => (I32Bin::Xor, Form::LC(a, c, dst)),
            Op::I32XorC(c) => (I32Bin::Xor, Form::C(c)),
            Op::I32XorL(b) => (I32Bin::Xor, Form::L(b)),
            Op::I32Shl => (I32Bin::Shl, Form::Plain),
            Op::I32ShlLL { a, b, dst } => (I32Bin::Shl, Form::LL(a, b, dst)),
            Op::I32ShlLC { a, c, dst } => (I32Bin::Shl, Form::LC(a, c, dst)),
            Op::I32ShlC(c) => (I32Bin::Shl, Form::C(c)),
            Op::I32ShlL(b) => (I32Bin::Shl, Form::L(b)),
            Op::I32ShrS => (I32Bin::ShrS, Form::Plain),
            Op::I32ShrSLL { a, b, dst } => (I32Bin::ShrS, Form::LL(a, b, dst)),
            Op::I32ShrSLC { a, c, dst } => (I32Bin::ShrS, Form::LC(a, c, dst)),
            Op::I32ShrSC(c) => (I32Bin::ShrS, Form::C(c)),
            Op::I32ShrSL(b) => (I32Bin::ShrS, Form::L(b)),
            Op::I32ShrU => (I32Bin::ShrU, Form::Plain),
            Op::I32ShrULL { a, b, dst } => (I32Bin::ShrU, Form::LL(a, b, dst)),
            Op::I32ShrULC { a, c, dst } => (I32Bin::ShrU, Form::LC(a, c, dst)),
            Op::I32ShrUC(c) => (I32Bin::ShrU, Form::C(c)),
            Op::I32ShrUL(b) => (I32Bin::ShrU, Form::L(b)),
            Op::I32Eq => (I32Bin::Eq, Form::Plain),
            Op::I32EqLL { a, b, dst } => (I32Bin::Eq, Form::LL(a, b, dst)),
            Op::I32EqLC { a, c, dst } => (I32Bin::Eq, Form::LC(a, c, dst)),
            Op::I32EqC(c) => (I32Bin::Eq, Form::C(c)),
            Op::I32EqL(b) => (I32Bin::Eq, Form::L(b)),
            Op::I32Ne => (I32Bin::Ne, Form::Plain),
            Op::I32NeLL { a, b, dst } => (I32Bin::Ne, Form::LL(a, b, dst)),
            Op::I32NeLC { a, c, dst } => (I32Bin::Ne, Form::LC(a, c, dst)),
            Op::I32NeC(c) => (I32Bin::Ne, Form::C(c)),
            Op::I32NeL(b) => (I32Bin::Ne, Form::L(b)),
            Op::I32LtS => (I32Bin::LtS, Form::Plain),
            Op::I32LtSLL { a, b, dst } => (I32Bin::LtS, Form::LL(a, b, dst)),
            Op::I32LtSLC { a, c, dst } => (I32Bin::LtS, Form::LC(a, c, dst)),
            Op::I32LtSC(c) => (I32Bin::LtS, Form::C(c)),
            Op::I32LtSL(b) => (I32Bin::LtS, Form::L(b)),
            Op::I32LtU => (I32Bin::LtU, Form::Plain),
            Op::I32LtULL { a, b, dst } => (I32Bin::LtU, Form::LL(a, b, dst)),
            Op::I32LtULC { a, c, dst } => (I32Bin::LtU, Form::LC(a, c, dst)),
            Op::I32LtUC(c) => (I32Bin::LtU, Form::C(c)),
            Op::I32LtUL(b) => (I32Bin::LtU, Form::L(b)),
            Op::I32GtS => (I32Bin::GtS, Form::Plain),
            Op::I32GtSLL { a, b, dst } => (I32Bin::GtS, Form::LL(a, b, dst)),
            Op::I32GtSLC { a, c, dst } => (I32Bin::GtS, Form::LC(a, c, dst)),
            Op::I32GtSC(c) => (I32Bin::GtS, Form::C(c)),
            Op::I32GtSL(b) => (I32Bin::GtS, Form::L(b)),
            Op::I32GtU => (I32Bin::GtU, Form::Plain),
            Op::I32GtULL { a, b, dst } => (I32Bin::GtU, Form::LL(a, b, dst)),
            Op::I32GtULC { a, c, dst } => (I32Bin::GtU, Form::LC(a, c, dst)),
            Op::I32GtUC(c) => (I32Bin::GtU, Form::C(c)),
            Op::I32GtUL(b) => (I32Bin::GtU, Form::L(b)),
            Op::I32LeS => (I32Bin::LeS, Form::Plain),
            Op::I32LeSLL { a, b, dst } => (I32Bin::LeS, Form::LL(a, b, dst)),
            Op::I32LeSLC { a, c, dst } => (I32Bin::LeS, Form::LC(a, c, dst)),
            Op::I32LeSC(c) => (I32Bin::LeS, Form::C(c)),
            Op::I32LeSL(b) => (I32Bin::LeS, Form::L(b)),
            Op::I32LeU => (I32Bin::LeU, Form::Plain),
            Op::I32LeULL { a, b, dst } => (I32Bin::LeU, Form::LL(a, b, dst)),
            Op::I32LeULC { a, c, dst } => (I32Bin::LeU, Form::LC(a, c, dst)),
            Op::I32LeUC(c) => (I32Bin::LeU, Form::C(c)),
            Op::I32LeUL(b) => (I32Bin::LeU, Form::L(b)),
            Op::I32GeS => (I32Bin::GeS, Form::Plain),
            Op::I32GeSLL { a, b, dst } => (I32Bin::GeS, Form::LL(a, b, dst)),
            Op::I32GeSLC { a, c, dst } => (I32Bin::GeS, Form::LC(a, c, dst)),
            Op::I32GeSC(c) => (I32Bin::GeS, Form::C(c)),
            Op::I32GeSL(b) => (I32Bin::GeS, Form::L(b)),
            Op::I32GeU => (I32Bin::GeU, Form::Plain),
            Op::I32GeULL { a, b, dst } => (I32Bin::GeU, Form::LL(a, b, dst)),
            Op::I32GeULC { a, c, dst } => (I32Bin::GeU, Form::LC(a, c, dst)),
            Op::I32GeUC(c) => (I32Bin::GeU, Form::C(c)),
            Op::I32GeUL(b) => (I32Bin::GeU, Form::L(b)),
            _ => return None,
        })
    }
    /// The negated comparison (for `if`, which jumps when the condition is false).
    pub(crate) fn negate(self) -> Option<I32Bin> {
        Some(match self {
            I32Bin::Eq => I32Bin::Ne,
            I32Bin::Ne => I32Bin::Eq,
            I32Bin::LtS => I32Bin::GeS,
            I32Bin::LtU => I32Bin::GeU,
            I32Bin::GtS => I32Bin::LeS,
            I32Bin::GtU => I32Bin::LeU,
            I32Bin::LeS => I32Bin::GtS,
            I32Bin::LeU => I32Bin::GtU,
            I32Bin::GeS => I32Bin::LtS,
            I32Bin::GeU => I32Bin::LtU,
            _ => return None,
        })
    }
    /// A jump taken when this comparison holds; None if not a comparison or the form has no jump.
    pub(crate) fn jump(self, f: Form, t: u32) -> Option<Op> {
        Some(match (self, f) {
            (I32Bin::Eq, Form::Plain) => Op::JmpI32Eq(t),
            (I32Bin::Eq, Form::C(c)) => Op::JmpI32EqC { c, t },
            (I32Bin::Eq, Form::LC(a, c, DST_PUSH)) => Op::JmpI32EqLC { a, c, t },
            (I32Bin::Eq, Form::LL(a, b, DST_PUSH)) => Op::JmpI32EqLL { a, b, t },
            (I32Bin::Ne, Form::Plain) => Op::JmpI32Ne(t),
            (I32Bin::Ne, Form::C(c)) => Op::JmpI32NeC { c, t },
            (I32Bin::Ne, Form::LC(a, c, DST_PUSH)) => Op::JmpI32NeLC { a, c, t },
            (I32Bin::Ne, Form::LL(a, b, DST_PUSH)) => Op::JmpI32NeLL { a, b, t },
            (I32Bin::LtS, Form::Plain) => Op::JmpI32LtS(t),
            (I32Bin::LtS, Form::C(c)) => Op::JmpI32LtSC { c, t },
            (I32Bin::LtS, Form::LC(a, c, DST_PUSH)) => Op::JmpI32LtSLC { a, c, t },
            (I32Bin::LtS, Form::LL(a, b, DST_PUSH)) => Op::JmpI32LtSLL { a, b, t },
            (I32Bin::LtU, Form::Plain) => Op::JmpI32LtU(t),
            (I32Bin::LtU, Form::C(c)) => Op::JmpI32LtUC { c, t },
            (I32Bin::LtU, Form::LC(a, c, DST_PUSH)) => Op::JmpI32LtULC { a, c, t },
            (I32Bin::LtU, Form::LL(a, b, DST_PUSH)) => Op::JmpI32LtULL { a, b, t },
            (I32Bin::GtS, Form::Plain) => Op::JmpI32GtS(t),
            (I32Bin::GtS, Form::C(c)) => Op::JmpI32GtSC { c, t },
            (I32Bin::GtS, Form::LC(a, c, DST_PUSH)) => Op::JmpI32GtSLC { a, c, t },
            (I32Bin::GtS, Form::LL(a, b, DST_PUSH)) => Op::JmpI32GtSLL { a, b, t },
            (I32Bin::GtU, Form::Plain) => Op::JmpI32GtU(t),
            (I32Bin::GtU, Form::C(c)) => Op::JmpI32GtUC { c, t },
            (I32Bin::GtU, Form::LC(a, c, DST_PUSH)) => Op::JmpI32GtULC { a, c, t },
            (I32Bin::GtU, Form::LL(a, b, DST_PUSH)) => Op::JmpI32GtULL { a, b, t },
            (I32Bin::LeS, Form::Plain) => Op::JmpI32LeS(t),
            (I32Bin::LeS, Form::C(c)) => Op::JmpI32LeSC { c, t },
            (I32Bin::LeS, Form::LC(a, c, DST_PUSH)) => Op::JmpI32LeSLC { a, c, t },
            (I32Bin::LeS, Form::LL(a, b, DST_PUSH)) => Op::JmpI32LeSLL { a, b, t },
            (I32Bin::LeU, Form::Plain) => Op::JmpI32LeU(t),
            (I32Bin::LeU, Form::C(c)) => Op::JmpI32LeUC { c, t },
            (I32Bin::LeU, Form::LC(a, c, DST_PUSH)) => Op::JmpI32LeULC { a, c, t },
            (I32Bin::LeU, Form::LL(a, b, DST_PUSH)) => Op::JmpI32LeULL { a, b, t },
            (I32Bin::GeS, Form::Plain) => Op::JmpI32GeS(t),
            (I32Bin::GeS, Form::C(c)) => Op::JmpI32GeSC { c, t },
            (I32Bin::GeS, Form::LC(a, c, DST_PUSH)) => Op::JmpI32GeSLC { a, c, t },
            (I32Bin::GeS, Form::LL(a, b, DST_PUSH)) => Op::JmpI32GeSLL { a, b, t },
            (I32Bin::GeU, Form::Plain) => Op::JmpI32GeU(t),
            (I32Bin::GeU, Form::C(c)) => Op::JmpI32GeUC { c, t },
            (I32Bin::GeU, Form::LC(a, c, DST_PUSH)) => Op::JmpI32GeULC { a, c, t },
            (I32Bin::GeU, Form::LL(a, b, DST_PUSH)) => Op::JmpI32GeULL { a, b, t },
            _ => return None,
        })
    }
}
impl F64Bin {
    pub(crate) fn of(op: &Op) -> Option<F64Bin> {
        Some(match op {
            Op::F64Add => F64Bin::Add,
            Op::F64Sub => F64Bin::Sub,
            Op::F64Mul => F64Bin::Mul,
            Op::F64Div => F64Bin::Div,
            _ => return None,
        })
    }
    pub(crate) fn l(self, b: u32) -> Op {
        match self {
            F64Bin::Add => Op::F64AddL(b),
            F64Bin::Sub => Op::F64SubL(b),
            F64Bin::Mul => Op::F64MulL(b),
            F64Bin::Div => Op::F64DivL(b),
        }
    }
    pub(crate) fn ll(self, a: u32, b: u32) -> Op {
        match self {
            F64Bin::Add => Op::F64AddLL(a, b),
            F64Bin::Sub => Op::F64SubLL(a, b),
            F64Bin::Mul => Op::F64MulLL(a, b),
            F64Bin::Div => Op::F64DivLL(a, b),
        }
    }
    pub(crate) fn c(self, c: u64) -> Op {
        match self {
            F64Bin::Add => Op::F64AddC(c),
            F64Bin::Sub => Op::F64SubC(c),
            F64Bin::Mul => Op::F64MulC(c),
            F64Bin::Div => Op::F64DivC(c),
        }
    }
}
/// The jump target of a branch op (plain or fused), for patching.
pub(crate) fn jump_target_mut(op: &mut Op) -> Option<&mut u32> {
    Some(match op {
        Op::Jump(t) | Op::JumpIfZero(t) | Op::JumpIfNonZero(t) => t,
        Op::IncJmpNe { t, .. } => t,
        Op::Br(b) | Op::BrIf(b) | Op::BrOnNull(b) | Op::BrOnNonNull(b) => &mut b.target,
        Op::JmpI32Eq(t)
        | Op::JmpI32EqC { t, .. }
        | Op::JmpI32EqLC { t, .. }
        | Op::JmpI32EqLL { t, .. } => t,
        Op::JmpI32Ne(t)
        | Op::JmpI32NeC { t, .. }
        | Op::JmpI32NeLC { t, .. }
        | Op::JmpI32NeLL { t, .. } => t,
        Op::JmpI32LtS(t)
        | Op::JmpI32LtSC { t, .. }
        | Op::JmpI32LtSLC { t, .. }
        | Op::JmpI32LtSLL { t, .. } => t,
        Op::JmpI32LtU(t)
        | Op::JmpI32LtUC { t, .. }
        | Op::JmpI32LtULC { t, .. }
        | Op::JmpI32LtULL { t, .. } => t,
        Op::JmpI32GtS(t)
        | Op::JmpI32GtSC { t, .. }
        | Op::JmpI32GtSLC { t, .. }
        | Op::JmpI32GtSLL { t, .. } => t,
        Op::JmpI32GtU(t)
        | Op::JmpI32GtUC { t, .. }
        | Op::JmpI32GtULC { t, .. }
        | Op::JmpI32GtULL { t, .. } => t,
        Op::JmpI32LeS(t)
        | Op::JmpI32LeSC { t, .. }
        | Op::JmpI32LeSLC { t, .. }
        | Op::JmpI32LeSLL { t, .. } => t,
        Op::JmpI32LeU(t)
        | Op::JmpI32LeUC { t, .. }
        | Op::JmpI32LeULC { t, .. }
        | Op::JmpI32LeULL { t, .. } => t,
        Op::JmpI32GeS(t)
        | Op::JmpI32GeSC { t, .. }
        | Op::JmpI32GeSLC { t, .. }
        | Op::JmpI32GeSLL { t, .. } => t,
        Op::JmpI32GeU(t)
        | Op::JmpI32GeUC { t, .. }
        | Op::JmpI32GeULC { t, .. }
        | Op::JmpI32GeULL { t, .. } => t,
        _ => return None,
    })
}
