//! Operand / result types of instructions, needed to type `argN` (and
//! `argN` as results in `:after` mode).
//!
//! Most instructions have a fixed stack effect derived from their mnemonic
//! (`i32.add`: `[i32 i32] -> [i32]`). Others depend on context — the callee
//! of a `call`, a local's type, a label's types, a memory's index type —
//! which the caller supplies through a [`TypeResolver`]. Every resolver
//! method has a default that returns "unknown" (or memory32), so a resolver
//! only implements what it has.
//!
//! Covered: MVP, sign-extension, saturating truncation, bulk memory,
//! reference types, tail calls, SIMD, relaxed SIMD, threads atomics,
//! typed function references (`call_ref`, `br_on_null`, ...), `ref.eq`,
//! exception handling (`throw`, `throw_ref`, `try_table` and the legacy
//! `try`/`catch`/`catch_all`/`rethrow`/`delegate`), and the GC instructions
//! but `br_on_cast(_fail)`: struct and array accessors and allocations through
//! [`TypeResolver::fields`] (a packed `i8`/`i16` field reads and writes as
//! `i32`). `br_on_cast(_fail)` and shared-everything-threads return `None`.

use wasmparser::{BlockType, FuncType, Operator, RefType, ValType};

use crate::opcode::opcode_of;

/// Types popped (`params`, bottom to top: the last is `arg0`) and pushed
/// (`results`, bottom to top: the last is `arg0` in `:after` mode).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StackEffect {
    /// Popped operand types, in stack order (bottom first).
    pub params: Vec<ValType>,
    /// Pushed result types, in stack order (bottom first).
    pub results: Vec<ValType>,
}

impl StackEffect {
    fn new(params: Vec<ValType>, results: Vec<ValType>) -> Self {
        StackEffect { params, results }
    }

    /// The type of `argN` before the instruction: operand N counted from the
    /// top of the stack.
    pub fn arg(&self, n: u32) -> Option<ValType> {
        nth_from_top(&self.params, n)
    }

    /// The type of `argN` in `:after` mode: result N counted from the top.
    pub fn result(&self, n: u32) -> Option<ValType> {
        nth_from_top(&self.results, n)
    }
}

fn nth_from_top(v: &[ValType], n: u32) -> Option<ValType> {
    let n = usize::try_from(n).ok()?;
    v.len()
        .checked_sub(n.checked_add(1)?)
        .and_then(|i| v.get(i))
        .copied()
}

/// Context an instruction's stack effect may depend on. All methods default
/// to "unknown" (memory/table index type i32).
pub trait TypeResolver {
    /// The type of function `func_idx` (imports count).
    fn function_type(&self, _func_idx: u32) -> Option<FuncType> {
        None
    }
    /// The function type at `type_idx` in the type section.
    fn type_at(&self, _type_idx: u32) -> Option<FuncType> {
        None
    }
    /// The declared type of local `idx` (params first).
    fn local_type(&self, _idx: u32) -> Option<ValType> {
        None
    }
    /// The type of global `idx`.
    fn global_type(&self, _idx: u32) -> Option<ValType> {
        None
    }
    /// The element type of table `idx`.
    fn table_elem_type(&self, _idx: u32) -> Option<RefType> {
        None
    }
    /// Whether table `idx` is a 64-bit table.
    fn table_is_64(&self, _idx: u32) -> bool {
        false
    }
    /// Whether memory `idx` is a 64-bit memory.
    fn memory_is_64(&self, _idx: u32) -> bool {
        false
    }
    /// The type of tag `idx` (its params are the payload).
    fn tag_type(&self, _idx: u32) -> Option<FuncType> {
        None
    }
    /// The types a branch to label `depth` carries.
    fn label_types(&self, _depth: u32) -> Option<Vec<ValType>> {
        None
    }
    /// The result types of the current function.
    fn return_types(&self) -> Option<Vec<ValType>> {
        None
    }
    /// The result types of the innermost enclosing block (for `end`/`else`).
    fn block_results(&self) -> Option<Vec<ValType>> {
        None
    }
    /// The type of the operand `depth` positions below the top of the stack at
    /// this instruction (0 = top), for `drop`, untyped `select`, `ref.is_null`.
    fn operand_type(&self, _depth: u32) -> Option<ValType> {
        None
    }
    /// The fields of struct type `type_idx`, or the one element field of
    /// array type `type_idx` (GC accessors and allocations).
    fn fields(&self, _type_idx: u32) -> Option<Vec<wasmparser::FieldType>> {
        None
    }
}

/// A resolver that knows nothing: only context-free instructions resolve.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoContext;
impl TypeResolver for NoContext {}

const I32: ValType = ValType::I32;
const I64: ValType = ValType::I64;
const F32: ValType = ValType::F32;
const F64: ValType = ValType::F64;
const V128: ValType = ValType::V128;

fn scalar(name: &str) -> Option<ValType> {
    match name {
        "i32" => Some(I32),
        "i64" => Some(I64),
        "f32" => Some(F32),
        "f64" => Some(F64),
        "v128" => Some(V128),
        _ => None,
    }
}

fn lane_scalar(shape: &str) -> Option<ValType> {
    match shape {
        "i8x16" | "i16x8" | "i32x4" => Some(I32),
        "i64x2" => Some(I64),
        "f32x4" => Some(F32),
        "f64x2" => Some(F64),
        _ => None,
    }
}

fn block_sig(bt: &BlockType, r: &dyn TypeResolver) -> Option<(Vec<ValType>, Vec<ValType>)> {
    match bt {
        BlockType::Empty => Some((vec![], vec![])),
        BlockType::Type(t) => Some((vec![], vec![*t])),
        BlockType::FuncType(i) => r
            .type_at(*i)
            .map(|f| (f.params().to_vec(), f.results().to_vec())),
    }
}

fn addr(r: &dyn TypeResolver, mem: u32) -> ValType {
    if r.memory_is_64(mem) {
        I64
    } else {
        I32
    }
}

fn tidx(r: &dyn TypeResolver, table: u32) -> ValType {
    if r.table_is_64(table) {
        I64
    } else {
        I32
    }
}

/// The stack effect of `op`, using `r` for context; `None` if it needs
/// context `r` does not provide, or the instruction is not covered (see the
/// module docs).
///
/// Conventions: `block`/`loop` pop and push their parameters; `if` also pops
/// its i32 condition; `end` pops and pushes the enclosing block's results;
/// `else` pops them and pushes nothing; branches, `return`, `unreachable` and
/// tail calls push nothing.
pub fn stack_effect(op: &Operator<'_>, r: &dyn TypeResolver) -> Option<StackEffect> {
    use wasmparser::AbstractHeapType as A;
    use Operator as O;
    let e = StackEffect::new;
    Some(match op {
        O::Unreachable | O::Nop => e(vec![], vec![]),
        O::Block { blockty }
        | O::Loop { blockty }
        | O::Try { blockty }
        | O::TryTable {
            try_table: wasmparser::TryTable { ty: blockty, .. },
        } => {
            let (p, _) = block_sig(blockty, r)?;
            e(p.clone(), p)
        }
        O::If { blockty } => {
            let (mut p, _) = block_sig(blockty, r)?;
            let keep = p.clone();
            p.push(I32);
            e(p, keep)
        }
        O::Else => e(r.block_results()?, vec![]),
        O::End | O::Delegate { .. } => {
            let res = r.block_results()?;
            e(res.clone(), res)
        }
        // A legacy catch clause ends the code before it (as `else`) and
        // starts with the payload.
        O::Catch { tag_index } => e(
            r.block_results()?,
            r.tag_type(*tag_index)?.params().to_vec(),
        ),
        O::CatchAll => e(r.block_results()?, vec![]),
        O::Throw { tag_index } => e(r.tag_type(*tag_index)?.params().to_vec(), vec![]),
        O::ThrowRef => e(vec![ValType::EXNREF], vec![]),
        O::Rethrow { .. } => e(vec![], vec![]),
        O::Br { relative_depth } => e(r.label_types(*relative_depth)?, vec![]),
        O::BrIf { relative_depth } => {
            let l = r.label_types(*relative_depth)?;
            let mut p = l.clone();
            p.push(I32);
            e(p, l)
        }
        O::BrTable { targets } => {
            let mut p = r.label_types(targets.default())?;
            p.push(I32);
            e(p, vec![])
        }
        O::Return => e(r.return_types()?, vec![]),
        O::Call { function_index } => {
            let f = r.function_type(*function_index)?;
            e(f.params().to_vec(), f.results().to_vec())
        }
        O::ReturnCall { function_index } => {
            e(r.function_type(*function_index)?.params().to_vec(), vec![])
        }
        O::CallIndirect {
            type_index,
            table_index,
        } => {
            let f = r.type_at(*type_index)?;
            let mut p = f.params().to_vec();
            p.push(tidx(r, *table_index));
            e(p, f.results().to_vec())
        }
        O::ReturnCallIndirect {
            type_index,
            table_index,
        } => {
            let mut p = r.type_at(*type_index)?.params().to_vec();
            p.push(tidx(r, *table_index));
            e(p, vec![])
        }
        O::CallRef { type_index } => {
            let f = r.type_at(*type_index)?;
            let mut p = f.params().to_vec();
            p.push(r.operand_type(0)?);
            e(p, f.results().to_vec())
        }
        O::ReturnCallRef { type_index } => {
            let mut p = r.type_at(*type_index)?.params().to_vec();
            p.push(r.operand_type(0)?);
            e(p, vec![])
        }
        O::RefAsNonNull => {
            let t = r.operand_type(0)?;
            e(vec![t], vec![non_null(t)?])
        }
        O::BrOnNull { relative_depth } => {
            // Not taken: the reference stays, known non-null.
            let t = r.operand_type(0)?;
            let mut p = r.label_types(*relative_depth)?;
            let mut res = p.clone();
            p.push(t);
            res.push(non_null(t)?);
            e(p, res)
        }
        O::BrOnCast {
            relative_depth,
            to_ref_type,
            ..
        } => {
            // Not taken: the reference stays, non-null if the cast accepts null.
            let t = r.operand_type(0)?;
            let mut res = r.label_types(*relative_depth)?;
            res.pop()?;
            let mut p = res.clone();
            p.push(t);
            res.push(if to_ref_type.is_nullable() {
                non_null(t)?
            } else {
                t
            });
            e(p, res)
        }
        O::BrOnCastFail {
            relative_depth,
            to_ref_type,
            ..
        } => {
            // Not taken: the cast succeeded.
            let mut res = r.label_types(*relative_depth)?;
            res.pop()?;
            let mut p = res.clone();
            p.push(r.operand_type(0)?);
            res.push(ValType::Ref(*to_ref_type));
            e(p, res)
        }
        O::BrOnNonNull { relative_depth } => {
            // The label takes the non-null reference last; not taken, the null is dropped.
            let mut res = r.label_types(*relative_depth)?;
            res.pop()?;
            let mut p = res.clone();
            p.push(r.operand_type(0)?);
            e(p, res)
        }
        O::Drop => e(vec![r.operand_type(0)?], vec![]),
        O::Select => {
            let t = r.operand_type(1)?;
            e(vec![t, t, I32], vec![t])
        }
        O::TypedSelect { ty } => e(vec![*ty, *ty, I32], vec![*ty]),
        O::LocalGet { local_index } => e(vec![], vec![r.local_type(*local_index)?]),
        O::LocalSet { local_index } => e(vec![r.local_type(*local_index)?], vec![]),
        O::LocalTee { local_index } => {
            let t = r.local_type(*local_index)?;
            e(vec![t], vec![t])
        }
        O::GlobalGet { global_index } => e(vec![], vec![r.global_type(*global_index)?]),
        O::GlobalSet { global_index } => e(vec![r.global_type(*global_index)?], vec![]),
        O::MemorySize { mem } => e(vec![], vec![addr(r, *mem)]),
        O::MemoryGrow { mem } => e(vec![addr(r, *mem)], vec![addr(r, *mem)]),
        O::MemoryFill { mem } => e(vec![addr(r, *mem), I32, addr(r, *mem)], vec![]),
        O::MemoryCopy { dst_mem, src_mem } => {
            let (d, s) = (addr(r, *dst_mem), addr(r, *src_mem));
            let n = if d == I64 && s == I64 { I64 } else { I32 };
            e(vec![d, s, n], vec![])
        }
        O::MemoryInit { mem, .. } => e(vec![addr(r, *mem), I32, I32], vec![]),
        O::DataDrop { .. } | O::ElemDrop { .. } | O::AtomicFence => e(vec![], vec![]),
        O::MemoryDiscard { mem } => e(vec![addr(r, *mem), addr(r, *mem)], vec![]),
        O::TableGet { table } => e(
            vec![tidx(r, *table)],
            vec![ValType::Ref(r.table_elem_type(*table)?)],
        ),
        O::TableSet { table } => e(
            vec![tidx(r, *table), ValType::Ref(r.table_elem_type(*table)?)],
            vec![],
        ),
        O::TableSize { table } => e(vec![], vec![tidx(r, *table)]),
        O::TableGrow { table } => {
            let t = tidx(r, *table);
            e(vec![ValType::Ref(r.table_elem_type(*table)?), t], vec![t])
        }
        O::TableFill { table } => {
            let t = tidx(r, *table);
            e(vec![t, ValType::Ref(r.table_elem_type(*table)?), t], vec![])
        }
        O::TableCopy {
            dst_table,
            src_table,
        } => {
            let (d, s) = (tidx(r, *dst_table), tidx(r, *src_table));
            let n = if d == I64 && s == I64 { I64 } else { I32 };
            e(vec![d, s, n], vec![])
        }
        O::TableInit { table, .. } => e(vec![tidx(r, *table), I32, I32], vec![]),
        O::RefNull { hty } => e(vec![], vec![ValType::Ref(RefType::new(true, *hty)?)]),
        O::RefIsNull => e(vec![r.operand_type(0)?], vec![I32]),
        O::RefFunc { .. } => e(vec![], vec![ValType::FUNCREF]),
        O::RefEq => {
            let eqref = ValType::Ref(RefType::EQREF);
            e(vec![eqref, eqref], vec![I32])
        }
        // GC instructions whose operand and result types need no field types.
        O::RefI31 => e(vec![I32], vec![abs_ref(false, A::I31)?]),
        O::I31GetS | O::I31GetU => e(vec![abs_ref(true, A::I31)?], vec![I32]),
        O::ArrayLen => e(vec![abs_ref(true, A::Array)?], vec![I32]),
        O::StructNewDefault {
            struct_type_index: t,
        } => e(vec![], vec![concrete(*t)?]),
        O::ArrayNewDefault {
            array_type_index: t,
        } => e(vec![I32], vec![concrete(*t)?]),
        O::ArrayNewData {
            array_type_index: t,
            ..
        }
        | O::ArrayNewElem {
            array_type_index: t,
            ..
        } => e(vec![I32, I32], vec![concrete(*t)?]),
        O::RefTestNonNull { .. } | O::RefTestNullable { .. } => {
            e(vec![r.operand_type(0)?], vec![I32])
        }
        O::RefCastNonNull { hty } => e(
            vec![r.operand_type(0)?],
            vec![ValType::Ref(RefType::new(false, *hty)?)],
        ),
        O::RefCastNullable { hty } => e(
            vec![r.operand_type(0)?],
            vec![ValType::Ref(RefType::new(true, *hty)?)],
        ),
        O::AnyConvertExtern => e(vec![r.operand_type(0)?], vec![abs_ref(true, A::Any)?]),
        O::ExternConvertAny => e(vec![r.operand_type(0)?], vec![abs_ref(true, A::Extern)?]),
        O::StructNew { .. }
        | O::StructGet { .. }
        | O::StructGetS { .. }
        | O::StructGetU { .. }
        | O::StructSet { .. }
        | O::ArrayNew { .. }
        | O::ArrayNewFixed { .. }
        | O::ArrayGet { .. }
        | O::ArrayGetS { .. }
        | O::ArrayGetU { .. }
        | O::ArraySet { .. }
        | O::ArrayFill { .. }
        | O::ArrayCopy { .. }
        | O::ArrayInitData { .. }
        | O::ArrayInitElem { .. } => return aggregate(op, r),
        O::MemoryAtomicNotify { memarg } => e(vec![addr(r, memarg.memory), I32], vec![I32]),
        O::MemoryAtomicWait32 { memarg } => e(vec![addr(r, memarg.memory), I32, I64], vec![I32]),
        O::MemoryAtomicWait64 { memarg } => e(vec![addr(r, memarg.memory), I64, I64], vec![I32]),
        _ => return by_mnemonic(op, r),
    })
}

/// The value type a field is read and written as (packed ones as `i32`).
fn unpacked(f: &wasmparser::FieldType) -> ValType {
    match f.element_type {
        wasmparser::StorageType::Val(t) => t,
        wasmparser::StorageType::I8 | wasmparser::StorageType::I16 => I32,
    }
}

/// A nullable reference to concrete type `t` (what GC accessors pop).
fn concrete_null(t: u32) -> Option<ValType> {
    Some(ValType::Ref(RefType::new(
        true,
        wasmparser::HeapType::Concrete(wasmparser::UnpackedIndex::Module(t)),
    )?))
}

/// Struct and array accessors and allocations: their field types come from
/// the resolver.
fn aggregate(op: &Operator<'_>, r: &dyn TypeResolver) -> Option<StackEffect> {
    use Operator as O;
    let e = |p: Vec<ValType>, res: Vec<ValType>| Some(StackEffect::new(p, res));
    let field = |t: u32, i: u32| r.fields(t)?.get(i as usize).map(unpacked);
    let elem = |t: u32| field(t, 0);
    match *op {
        O::StructNew {
            struct_type_index: t,
        } => {
            let fs = r.fields(t)?.iter().map(unpacked).collect();
            e(fs, vec![concrete(t)?])
        }
        O::StructGet {
            struct_type_index: t,
            field_index: i,
        }
        | O::StructGetS {
            struct_type_index: t,
            field_index: i,
        }
        | O::StructGetU {
            struct_type_index: t,
            field_index: i,
        } => e(vec![concrete_null(t)?], vec![field(t, i)?]),
        O::StructSet {
            struct_type_index: t,
            field_index: i,
        } => e(vec![concrete_null(t)?, field(t, i)?], vec![]),
        O::ArrayNew {
            array_type_index: t,
        } => e(vec![elem(t)?, I32], vec![concrete(t)?]),
        O::ArrayNewFixed {
            array_type_index: t,
            array_size: n,
        } => e(vec![elem(t)?; n as usize], vec![concrete(t)?]),
        O::ArrayGet {
            array_type_index: t,
        }
        | O::ArrayGetS {
            array_type_index: t,
        }
        | O::ArrayGetU {
            array_type_index: t,
        } => e(vec![concrete_null(t)?, I32], vec![elem(t)?]),
        O::ArraySet {
            array_type_index: t,
        } => e(vec![concrete_null(t)?, I32, elem(t)?], vec![]),
        O::ArrayFill {
            array_type_index: t,
        } => e(vec![concrete_null(t)?, I32, elem(t)?, I32], vec![]),
        O::ArrayCopy {
            array_type_index_dst: d,
            array_type_index_src: s,
        } => e(
            vec![concrete_null(d)?, I32, concrete_null(s)?, I32, I32],
            vec![],
        ),
        O::ArrayInitData {
            array_type_index: t,
            ..
        }
        | O::ArrayInitElem {
            array_type_index: t,
            ..
        } => e(vec![concrete_null(t)?, I32, I32, I32], vec![]),
        _ => None,
    }
}

/// A reference to an abstract heap type.
fn abs_ref(nullable: bool, ty: wasmparser::AbstractHeapType) -> Option<ValType> {
    Some(ValType::Ref(RefType::new(
        nullable,
        wasmparser::HeapType::Abstract { shared: false, ty },
    )?))
}

/// A non-null reference to concrete type `t` (a module type index).
fn concrete(t: u32) -> Option<ValType> {
    Some(ValType::Ref(RefType::new(
        false,
        wasmparser::HeapType::Concrete(wasmparser::UnpackedIndex::Module(t)),
    )?))
}

/// The non-nullable version of a reference type.
fn non_null(t: ValType) -> Option<ValType> {
    match t {
        ValType::Ref(rt) => Some(ValType::Ref(RefType::new(false, rt.heap_type())?)),
        _ => None,
    }
}

/// Memory-accessing and numeric/vector instructions, by mnemonic shape.
fn by_mnemonic(op: &Operator<'_>, r: &dyn TypeResolver) -> Option<StackEffect> {
    let m = opcode_of(op).mnemonic();
    let (prefix, rest) = m.split_once('.')?;
    let e = |p: Vec<ValType>, res: Vec<ValType>| Some(StackEffect::new(p, res));
    let memarg = memarg_of(op);
    if let Some(mem) = memarg {
        let a = addr(r, mem);
        let t = scalar(prefix)?;
        if let Some(at) = rest.strip_prefix("atomic.") {
            if at.starts_with("load") {
                return e(vec![a], vec![t]);
            }
            if at.starts_with("store") {
                return e(vec![a, t], vec![]);
            }
            if at.contains("cmpxchg") {
                return e(vec![a, t, t], vec![t]);
            }
            if at.starts_with("rmw") {
                return e(vec![a, t], vec![t]);
            }
            return None;
        }
        if rest.ends_with("_lane") {
            return if rest.starts_with("load") {
                e(vec![a, V128], vec![V128])
            } else {
                e(vec![a, V128], vec![])
            };
        }
        if rest.starts_with("load") {
            return e(vec![a], vec![t]);
        }
        if rest.starts_with("store") {
            return e(vec![a, t], vec![]);
        }
        return None;
    }
    if let Some(t) = scalar(prefix).filter(|t| *t != V128) {
        return numeric(t, rest);
    }
    vector(prefix, rest)
}

/// The memory index of a memarg-carrying operator. The memarg is always the
/// first immediate, so it is recovered from the flattened immediates
/// (flags, memory, offset) instead of a list of ~100 operators.
fn memarg_of(op: &Operator<'_>) -> Option<u32> {
    if !opcode_of(op).has_memarg() {
        return None;
    }
    let imms = crate::opcode::flatten_immediates(op);
    imms.get(1).and_then(|c| c.as_i32()).map(|m| m as u32)
}

fn numeric(t: ValType, op: &str) -> Option<StackEffect> {
    let e = |p: Vec<ValType>, r: Vec<ValType>| Some(StackEffect::new(p, r));
    match op {
        "const" => return e(vec![], vec![t]),
        "eqz" => return e(vec![t], vec![I32]),
        "eq" | "ne" | "lt_s" | "lt_u" | "gt_s" | "gt_u" | "le_s" | "le_u" | "ge_s" | "ge_u"
        | "lt" | "gt" | "le" | "ge" => return e(vec![t, t], vec![I32]),
        "clz" | "ctz" | "popcnt" | "abs" | "neg" | "ceil" | "floor" | "trunc" | "nearest"
        | "sqrt" | "extend8_s" | "extend16_s" | "extend32_s" => return e(vec![t], vec![t]),
        "add" | "sub" | "mul" | "div_s" | "div_u" | "rem_s" | "rem_u" | "and" | "or" | "xor"
        | "shl" | "shr_s" | "shr_u" | "rotl" | "rotr" | "div" | "min" | "max" | "copysign" => {
            return e(vec![t, t], vec![t])
        }
        _ => {}
    }
    // Conversions: `wrap_i64`, `trunc_sat_f32_s`, `extend_i32_u`, `demote_f64`.
    let parts: Vec<&str> = op.split('_').collect();
    let src = parts
        .iter()
        .rev()
        .find_map(|p| scalar(p).filter(|s| *s != V128))?;
    e(vec![src], vec![t])
}

fn vector(shape: &str, op: &str) -> Option<StackEffect> {
    let e = |p: Vec<ValType>, r: Vec<ValType>| Some(StackEffect::new(p, r));
    if shape != "v128" && lane_scalar(shape).is_none() {
        return None;
    }
    if op == "const" {
        return e(vec![], vec![V128]);
    }
    if op == "splat" {
        return e(vec![lane_scalar(shape)?], vec![V128]);
    }
    if op.starts_with("extract_lane") {
        return e(vec![V128], vec![lane_scalar(shape)?]);
    }
    if op == "replace_lane" {
        return e(vec![V128, lane_scalar(shape)?], vec![V128]);
    }
    if matches!(op, "any_true" | "all_true" | "bitmask") {
        return e(vec![V128], vec![I32]);
    }
    if matches!(op, "shl" | "shr_s" | "shr_u") {
        return e(vec![V128, I32], vec![V128]);
    }
    if op == "bitselect"
        || op.starts_with("relaxed_madd")
        || op.starts_with("relaxed_nmadd")
        || op == "relaxed_laneselect"
        || (op.starts_with("relaxed_dot") && op.ends_with("add_s"))
    {
        return e(vec![V128, V128, V128], vec![V128]);
    }
    let unary_prefixes = [
        "not",
        "abs",
        "neg",
        "popcnt",
        "sqrt",
        "ceil",
        "floor",
        "trunc",
        "nearest",
        "extend_",
        "convert_",
        "demote_",
        "promote_",
        "extadd_pairwise_",
        "relaxed_trunc_",
    ];
    if unary_prefixes
        .iter()
        .any(|p| op == p.trim_end_matches('_') || (p.ends_with('_') && op.starts_with(p)))
        || op.starts_with("trunc_sat_")
    {
        return e(vec![V128], vec![V128]);
    }
    e(vec![V128, V128], vec![V128])
}
