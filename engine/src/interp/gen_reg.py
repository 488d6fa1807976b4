#!/usr/bin/env python3
"""Generates the register-form ops of the interpreter (see compile.rs, "register
translation"): the variants in code.rs and the arms in exec.rs between the
`BEGIN GENERATED` / `END GENERATED` markers, and all of reg.rs.

usage: python3 engine/src/interp/gen_reg.py   (rewrites the three files in place)
"""
import os, re

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, commutes-to (for the imm form with a constant left operand), expr)
I32 = [
    ("Add", "Add", "a.wrapping_add(b)"), ("Sub", None, "a.wrapping_sub(b)"), ("Mul", "Mul", "a.wrapping_mul(b)"),
    ("And", "And", "a & b"), ("Or", "Or", "a | b"), ("Xor", "Xor", "a ^ b"),
    ("Shl", None, "a.wrapping_shl(b)"), ("ShrS", None, "(a as i32).wrapping_shr(b) as u32"), ("ShrU", None, "a.wrapping_shr(b)"),
    ("Rotl", None, "a.rotate_left(b & 31)"), ("Rotr", None, "a.rotate_right(b & 31)"),
    ("Eq", "Eq", "a == b"), ("Ne", "Ne", "a != b"),
    ("LtS", "GtS", "(a as i32) < (b as i32)"), ("LtU", "GtU", "a < b"),
    ("GtS", "LtS", "(a as i32) > (b as i32)"), ("GtU", "LtU", "a > b"),
    ("LeS", "GeS", "(a as i32) <= (b as i32)"), ("LeU", "GeU", "a <= b"),
    ("GeS", "LeS", "(a as i32) >= (b as i32)"), ("GeU", "LeU", "a >= b"),
]
I32CMP = ["Eq", "Ne", "LtS", "LtU", "GtS", "GtU", "LeS", "LeU", "GeS", "GeU"]
NEG = {"Eq": "Ne", "Ne": "Eq", "LtS": "GeS", "LtU": "GeU", "GtS": "LeS", "GtU": "LeU", "LeS": "GtS", "LeU": "GtU", "GeS": "LtS", "GeU": "LtU"}
I64 = [
    ("Add", "a.wrapping_add(b)"), ("Sub", "a.wrapping_sub(b)"), ("Mul", "a.wrapping_mul(b)"),
    ("And", "a & b"), ("Or", "a | b"), ("Xor", "a ^ b"),
    ("Shl", "a.wrapping_shl(b as u32)"), ("ShrS", "(a as i64).wrapping_shr(b as u32) as u64"), ("ShrU", "a.wrapping_shr(b as u32)"),
    ("Eq", "a == b"), ("Ne", "a != b"),
    ("LtS", "(a as i64) < (b as i64)"), ("LtU", "a < b"), ("GtS", "(a as i64) > (b as i64)"), ("GtU", "a > b"),
    ("LeS", "(a as i64) <= (b as i64)"), ("LeU", "a <= b"), ("GeS", "(a as i64) >= (b as i64)"), ("GeU", "a >= b"),
]
F64 = [("Add", "a + b", False), ("Sub", "a - b", False), ("Mul", "a * b", False), ("Div", "a / b", False),
       ("Min", "f64_min(a, b)", False), ("Max", "f64_max(a, b)", False),
       ("Eq", "a == b", True), ("Ne", "a != b", True), ("Lt", "a < b", True), ("Gt", "a > b", True), ("Le", "a <= b", True), ("Ge", "a >= b", True)]
F32 = [("Add", "a + b", False), ("Sub", "a - b", False), ("Mul", "a * b", False), ("Div", "a / b", False),
       ("Min", "f32_min(a, b)", False), ("Max", "f32_max(a, b)", False),
       ("Eq", "a == b", True), ("Ne", "a != b", True), ("Lt", "a < b", True), ("Gt", "a > b", True), ("Le", "a <= b", True), ("Ge", "a >= b", True)]
# unary: (name, expr of x: u64 -> u64)
UN = [
    ("I32Eqz", "(x as u32 == 0) as u64"), ("I64Eqz", "(x == 0) as u64"),
    ("I32Clz", "(x as u32).leading_zeros() as u64"), ("I32Ctz", "(x as u32).trailing_zeros() as u64"),
    ("F64Neg", "x ^ 0x8000_0000_0000_0000"), ("F64Abs", "x & 0x7fff_ffff_ffff_ffff"),
    ("F64Sqrt", "{ let a = f64::from_bits(x); (if a.is_nan() { a + a } else { a.sqrt() }).to_bits() }"),
    ("F32Neg", "(x as u32 ^ 0x8000_0000) as u64"), ("F32Abs", "(x as u32 & 0x7fff_ffff) as u64"),
    ("F32Sqrt", "{ let a = f32::from_bits(x as u32); (if a.is_nan() { a + a } else { a.sqrt() }).to_bits() as u64 }"),
    ("I32WrapI64", "x as u32 as u64"), ("I64ExtendI32S", "x as u32 as i32 as i64 as u64"), ("I64ExtendI32U", "x as u32 as u64"),
    ("F64ConvertI32S", "(x as u32 as i32 as f64).to_bits()"), ("F64ConvertI32U", "(x as u32 as f64).to_bits()"),
    ("F64ConvertI64S", "(x as i64 as f64).to_bits()"), ("F64PromoteF32", "(f32::from_bits(x as u32) as f64).to_bits()"),
    ("F32DemoteF64", "(f64::from_bits(x) as f32).to_bits() as u64"), ("F32ConvertI32S", "(x as u32 as i32 as f32).to_bits() as u64"),
    ("I32Extend8S", "x as u8 as i8 as i32 as u32 as u64"), ("I32Extend16S", "x as u16 as i16 as i32 as u32 as u64"),
]
# loads from memory 0: (name, bytes, conversion of b: [u8; n] -> u64)
LOADS = [("I32Load", 4, "u32::from_le_bytes(b) as u64"), ("I64Load", 8, "u64::from_le_bytes(b)"),
         ("I32Load8S", 1, "b[0] as i8 as i32 as u32 as u64"), ("I32Load8U", 1, "b[0] as u64"),
         ("I32Load16S", 2, "i16::from_le_bytes(b) as i32 as u32 as u64"), ("I32Load16U", 2, "u16::from_le_bytes(b) as u64")]
STORES = [("I32Store", 4, "(v as u32).to_le_bytes()"), ("I64Store", 8, "v.to_le_bytes()"),
          ("I32Store8", 1, "[v as u8]"), ("I32Store16", 2, "(v as u16).to_le_bytes()")]

bins = []  # (enum name, variant rr, variant ri or None, exec rr body, exec ri body)
for n, _, e in I32:
    bins.append(("I32" + n, f"let a = r!(a) as u32; let b = r!(b) as u32; w!(dst, ({e}) as u64);",
                 f"let a = r!(a) as u32; let b = imm; w!(dst, ({e}) as u64);"))
for n, e in I64:
    bins.append(("I64" + n, f"let a = r!(a); let b = r!(b); w!(dst, ({e}) as u64);", None))
for n, e, cmp in F64:
    res = f"({e}) as u64" if cmp else f"({e}).to_bits()"
    bins.append(("F64" + n, f"let a = f64::from_bits(r!(a)); let b = f64::from_bits(r!(b)); w!(dst, {res});", None))
for n, e, cmp in F32:
    res = f"({e}) as u64" if cmp else f"({e}).to_bits() as u64"
    bins.append(("F32" + n, f"let a = f32::from_bits(r!(a) as u32); let b = f32::from_bits(r!(b) as u32); w!(dst, {res});", None))

variants, arms = [], []
variants.append("    // ---- register forms (operands and results are fp-relative slots; see compile.rs) ----")
for name, rr, ri in bins:
    variants.append(f"    {name}R {{ dst: u32, a: u32, b: u32 }},")
    arms.append(f"            Op::{name}R {{ dst, a, b }} => {{ {rr} }}")
    if ri:
        variants.append(f"    {name}I {{ dst: u32, a: u32, imm: u32 }},")
        arms.append(f"            Op::{name}I {{ dst, a, imm }} => {{ {ri} }}")
for name, e in UN:
    variants.append(f"    {name}R {{ dst: u32, a: u32 }},")
    arms.append(f"            Op::{name}R {{ dst, a }} => {{ let x = r!(a); w!(dst, {e}); }}")
for name, nb, conv in LOADS:
    variants.append(f"    {name}R {{ dst: u32, addr: u32, off: u32 }},")
    arms.append(f"            Op::{name}R {{ dst, addr, off }} => {{ let b = load0!(r!(addr) as u32 as u64 + off as u64, {nb}); w!(dst, {conv}); }}")
for name, nb, conv in STORES:
    variants.append(f"    {name}R {{ addr: u32, val: u32, off: u32 }},")
    arms.append(f"            Op::{name}R {{ addr, val, off }} => {{ let v = r!(val); store0!(r!(addr) as u32 as u64 + off as u64, {nb}, {conv}); }}")
I32E = dict((n, e) for n, _, e in I32)
for c in I32CMP:
    variants.append(f"    JmpI32{c}R {{ a: u32, b: u32, t: u32 }},")
    variants.append(f"    JmpI32{c}I {{ a: u32, imm: u32, t: u32 }},")
    arms.append(f"            Op::JmpI32{c}R {{ a, b, t }} => {{ let a = r!(a) as u32; let b = r!(b) as u32; if {I32E[c]} {{ jump!(t); }} }}")
    arms.append(f"            Op::JmpI32{c}I {{ a, imm, t }} => {{ let a = r!(a) as u32; let b = imm; if {I32E[c]} {{ jump!(t); }} }}")
variants += [
    "    /// Jump if the i32 in slot `c` is non-zero / zero.",
    "    JmpNzR { c: u32, t: u32 },",
    "    JmpZR { c: u32, t: u32 },",
    "    /// Slot copy (`local.set` of an operand, materialising a deferred `local.get`).",
    "    Copy { dst: u32, src: u32 },",
    "    /// Write a constant to a slot.",
    "    ConstTo { dst: u32, c: u64 },",
]
arms += [
    "            Op::JmpNzR { c, t } => { if r!(c) as u32 != 0 { jump!(t); } }",
    "            Op::JmpZR { c, t } => { if r!(c) as u32 == 0 { jump!(t); } }",
    "            Op::Copy { dst, src } => w!(dst, r!(src)),",
    "            Op::ConstTo { dst, c } => w!(dst, c),",
]

def splice(path, text):
    src = open(path).read()
    pat = re.compile(r"(// BEGIN GENERATED[^\n]*\n).*?([ \t]*// END GENERATED)", re.S)
    assert pat.search(src), path
    src = pat.sub(lambda m: m.group(1) + text + "\n" + m.group(2), src, count=1)
    open(path, "w").write(src)

splice(os.path.join(HERE, "code.rs"), "\n".join(variants))
splice(os.path.join(HERE, "exec.rs"), "\n".join(arms))

# reg.rs: the translator's view of the register ops.
R = []
R.append("//! Register-form op helpers for the translator (generated by gen_reg.py; do not edit).")
R.append("#![allow(dead_code)]\n\nuse super::code::*;\nuse wasmparser::Operator;\n")
names = [b[0] for b in bins]
R.append("/// The binary ops with a register form.")
R.append("#[derive(Copy, Clone, PartialEq, Eq, Debug)]")
R.append("pub(crate) enum RBin { " + ", ".join(names) + " }")
R.append("impl RBin {")
R.append("    pub(crate) fn of(op: &Operator<'_>) -> Option<RBin> {")
R.append("        Some(match op { " + " ".join(f"Operator::{n} => RBin::{n}," for n in names) + " _ => return None })")
R.append("    }")
R.append("    pub(crate) fn rr(self, dst: u32, a: u32, b: u32) -> Op {")
R.append("        match self { " + " ".join(f"RBin::{n} => Op::{n}R {{ dst, a, b }}," for n in names) + " }")
R.append("    }")
R.append("    /// The immediate form (`b` constant), if the op has one.")
R.append("    pub(crate) fn ri(self, dst: u32, a: u32, imm: u32) -> Option<Op> {")
R.append("        Some(match self { " + " ".join(f"RBin::{n} => Op::{n}I {{ dst, a, imm }}," for n, _, ri in bins if ri) + " _ => return None })")
R.append("    }")
R.append("    /// The op computing the same with swapped operands (for a constant left operand).")
R.append("    pub(crate) fn swapped(self) -> Option<RBin> {")
R.append("        Some(match self { " + " ".join(f"RBin::I32{n} => RBin::I32{s}," for n, s, _ in I32 if s) + " _ => return None })")
R.append("    }")
R.append("    /// A jump taken when this i32 comparison holds (negated: when it does not).")
R.append("    pub(crate) fn jump(op: &Op, negate: bool, t: u32) -> Option<Op> {")
R.append("        Some(match *op {")
for c in I32CMP:
    R.append(f"            Op::I32{c}R {{ a, b, .. }} => if negate {{ Op::JmpI32{NEG[c]}R {{ a, b, t }} }} else {{ Op::JmpI32{c}R {{ a, b, t }} }},")
    R.append(f"            Op::I32{c}I {{ a, imm, .. }} => if negate {{ Op::JmpI32{NEG[c]}I {{ a, imm, t }} }} else {{ Op::JmpI32{c}I {{ a, imm, t }} }},")
R.append("            _ => return None,")
R.append("        })")
R.append("    }")
R.append("}")
un = [n for n, _ in UN]
R.append("/// The unary ops with a register form.")
R.append("#[derive(Copy, Clone, PartialEq, Eq, Debug)]")
R.append("pub(crate) enum RUn { " + ", ".join(un) + " }")
R.append("impl RUn {")
R.append("    pub(crate) fn of(op: &Operator<'_>) -> Option<RUn> {")
R.append("        Some(match op { " + " ".join(f"Operator::{n} => RUn::{n}," for n in un) + " _ => return None })")
R.append("    }")
R.append("    pub(crate) fn make(self, dst: u32, a: u32) -> Op {")
R.append("        match self { " + " ".join(f"RUn::{n} => Op::{n}R {{ dst, a }}," for n in un) + " }")
R.append("    }")
R.append("}")
R.append("/// A load from memory 0 in register form (`wide`: 8 bytes), by Wasm operator.")
R.append("pub(crate) fn load_r(op: &Operator<'_>, dst: u32, addr: u32, off: u32) -> Option<Op> {")
R.append("    Some(match op {")
R.append("        Operator::I32Load { .. } | Operator::F32Load { .. } => Op::I32LoadR { dst, addr, off },")
R.append("        Operator::I64Load { .. } | Operator::F64Load { .. } => Op::I64LoadR { dst, addr, off },")
for n, _, _ in LOADS[2:]:
    R.append(f"        Operator::{n} {{ .. }} => Op::{n}R {{ dst, addr, off }},")
R.append("        _ => return None,")
R.append("    })")
R.append("}")
R.append("pub(crate) fn store_r(op: &Operator<'_>, addr: u32, val: u32, off: u32) -> Option<Op> {")
R.append("    Some(match op {")
R.append("        Operator::I32Store { .. } | Operator::F32Store { .. } => Op::I32StoreR { addr, val, off },")
R.append("        Operator::I64Store { .. } | Operator::F64Store { .. } => Op::I64StoreR { addr, val, off },")
R.append("        Operator::I32Store8 { .. } => Op::I32Store8R { addr, val, off },")
R.append("        Operator::I32Store16 { .. } => Op::I32Store16R { addr, val, off },")
R.append("        _ => return None,")
R.append("    })")
R.append("}")
dsts = [f"Op::{n}R {{ dst, .. }}" for n in names] + [f"Op::{n}I {{ dst, .. }}" for n, _, ri in bins if ri] \
     + [f"Op::{n}R {{ dst, .. }}" for n in un] + [f"Op::{n}R {{ dst, .. }}" for n, _, _ in LOADS] + ["Op::Copy { dst, .. }", "Op::ConstTo { dst, .. }"]
R.append("/// The result slot of a register op.")
R.append("pub(crate) fn dst_mut(op: &mut Op) -> Option<&mut u32> {")
R.append("    match op {")
for d in dsts:
    R.append(f"        {d} => Some(dst),")
R.append("        _ => None,")
R.append("    }")
R.append("}")
jumps = ["Op::Jump(t)", "Op::JumpIfZero(t)", "Op::JumpIfNonZero(t)", "Op::JmpNzR { t, .. }", "Op::JmpZR { t, .. }"] + \
        [f"Op::JmpI32{c}R {{ t, .. }}" for c in I32CMP] + [f"Op::JmpI32{c}I {{ t, .. }}" for c in I32CMP]
R.append("/// The jump target of a branch op, for patching.")
R.append("pub(crate) fn jump_target_mut(op: &mut Op) -> Option<&mut u32> {")
R.append("    match op {")
for j in jumps:
    R.append(f"        {j} => Some(t),")
R.append("        Op::Br(b) | Op::BrIf(b) => Some(&mut b.target),")
R.append("        _ => None,")
R.append("    }")
R.append("}")
open(os.path.join(HERE, "reg.rs"), "w").write("\n".join(R) + "\n")
