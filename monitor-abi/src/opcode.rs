//! Opcode mnemonics, categories and immediates, derived from wasmparser's
//! operator list.
//!
//! # How the mnemonic table is derived
//!
//! The table is generated from [`wasmparser::for_each_operator!`] (wasmparser
//! 0.217.1), so there is no second hand-written list of instructions. Each
//! operator's CamelCase variant name (`I64Load32U`, `LocalGet`, `BrIf`) is
//! turned into the standard text-format mnemonic by these rules:
//!
//! 1. Split the name into words, each starting at an uppercase letter and
//!    running over the following lowercase letters and digits
//!    (`I8x16ExtractLaneS` → `I8x16 Extract Lane S`), and lowercase them.
//! 2. Join with `_`, except that a `.` follows the first word when it is a
//!    *namespace* (`i32 i64 f32 f64 v128 i8x16 i16x8 i32x4 i64x2 f32x4 f64x2
//!    local global memory table ref data elem struct array i31 any extern
//!    atomic`), and a `.` follows the word `atomic` and an `rmw`/`rmwN` word
//!    that comes right after `atomic` (`i32.atomic.rmw8.add_u`,
//!    `memory.atomic.notify`).
//! 3. Fix-ups of the joined text, for words the text format writes as one:
//!    `and_not`→`andnot`, `ext_add`→`extadd`, `ext_mul`→`extmul`,
//!    `q15_mulr`→`q15mulr`, `p_min`→`pmin`, `p_max`→`pmax`.
//! 4. Whole-name exceptions: `TypedSelect`→`select` (wasmparser has two
//!    operators for one mnemonic); `RefTestNonNull`→`ref.test`,
//!    `RefTestNullable`→`ref.test null`, `RefCastNonNull`→`ref.cast`,
//!    `RefCastNullable`→`ref.cast null`: the text format writes both forms
//!    `ref.test`, but Wizard's opcode table (the monitor ABI's reference)
//!    names the nullable ones with ` null`, so they are events of their own.
//!
//! The unit tests cross-check every derived mnemonic against wasmparser's
//! snake-case visitor names (`visit_i64_load32_u`) and a list of known names.
//!
//! Operators that share a mnemonic (rule 4) share one [`Opcode`]: the first in
//! wasmparser's order is *canonical*, and [`opcode_of`] maps the others to it,
//! so `wasm:opcode:select` matches both forms of `select`.
//!
//! The probe language cannot write a space in an event name: there the
//! nullable forms are `ref.test_null` and `ref.cast_null` (whamm's names),
//! [`Opcode::event_name`]; everywhere else (export names, `opname`) the
//! mnemonic is Wizard's.
//!
//! # Categories
//!
//! [`Category`] follows the section headings of the Wasm specification's
//! instruction chapter, plus two for post-2.0 proposals:
//! `control`(0), `parametric`(1), `variable`(2), `table`(3), `memory`(4),
//! `numeric`(5), `vector`(6), `reference`(7), `aggregate`(8, GC struct/array/
//! i31 and `any.convert_extern`/`extern.convert_any`), `atomic`(9, the threads
//! and shared-everything-threads proposals). Every instruction with a memarg
//! (including `v128.load*`/`v128.store*`) is `memory`; `data.drop` is
//! `memory`, `elem.drop` is `table`; constants are `numeric` (`v128.const` is
//! `vector`); exception-handling instructions are `control`.

use std::fmt;
use std::sync::OnceLock;

pub use crate::names::camel_to_mnemonic;

use crate::valtype::ConstValue;

macro_rules! define_opcode_table {
    ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* $(,)? })? => $visit:ident )*) => {
        /// One variant per wasmparser operator, in wasmparser's order; its
        /// discriminant is the raw operator index.
        #[allow(dead_code, clippy::enum_variant_names)]
        #[repr(u16)]
        #[derive(Clone, Copy)]
        enum OpIndex { $($op,)* }

        /// `(proposal, CamelCase name, visitor name, immediate field names)`
        /// for every wasmparser operator, in order.
        static RAW_OPERATORS: &[(&str, &str, &str, &str)] = &[
            $( (stringify!($proposal), stringify!($op), stringify!($visit), stringify!($($($arg)*)?)), )*
        ];

        fn raw_index(op: &wasmparser::Operator<'_>) -> u16 {
            match op {
                $( wasmparser::Operator::$op { .. } => OpIndex::$op as u16, )*
            }
        }

        fn flatten_raw(op: &wasmparser::Operator<'_>, out: &mut Vec<ConstValue>) {
            match op {
                $(
                    #[allow(unused_variables)]
                    wasmparser::Operator::$op $({ $($arg),* })? => {
                        $( $( Flatten::flatten($arg, out); )* )?
                    }
                )*
            }
        }

        fn memarg_raw(op: &wasmparser::Operator<'_>) -> Option<wasmparser::MemArg> {
            match op {
                $(
                    #[allow(unused_variables)]
                    wasmparser::Operator::$op $({ $($arg),* })? => {
                        $( $( if let Some(m) = Flatten::memarg($arg) { return Some(m); } )* )?
                        None
                    }
                )*
            }
        }
    };
}

wasmparser::for_each_operator!(define_opcode_table);

// `OPCODE_NAMES`: `(mnemonic, event name, category id, has a memarg)` of every
// wasmparser operator, in order, computed by `build.rs` with the rules of
// `names.rs` (the same wasmparser, so the same operators).
include!(concat!(env!("OUT_DIR"), "/opcode_names.rs"));

/// The memory immediate of any memory-accessing instruction (loads, stores,
/// SIMD lane and splat loads, atomics), with its full 64-bit offset; `None`
/// for an instruction without one. It is always the first immediate, so its
/// offset is `imm2`.
pub fn memarg(op: &wasmparser::Operator<'_>) -> Option<wasmparser::MemArg> {
    memarg_raw(op)
}

/// The instruction category as the probe language exposes it
/// (`category_name` / `category_id`). See the module docs for the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Structured control, branches, calls, exceptions.
    Control,
    /// `drop`, `select`.
    Parametric,
    /// `local.*`, `global.*`.
    Variable,
    /// `table.*`, `elem.drop`.
    Table,
    /// Loads, stores, `memory.*`, `data.drop`.
    Memory,
    /// Scalar numeric instructions, including constants.
    Numeric,
    /// SIMD instructions other than loads/stores.
    Vector,
    /// `ref.*` (except `ref.i31`).
    Reference,
    /// GC `struct.*`, `array.*`, `ref.i31`, `i31.*`, extern/any conversions.
    Aggregate,
    /// Threads (`*.atomic.*`, `atomic.fence`) and shared-everything atomics.
    Atomic,
}

impl Category {
    /// All categories, in id order.
    pub const ALL: [Category; 10] = [
        Category::Control,
        Category::Parametric,
        Category::Variable,
        Category::Table,
        Category::Memory,
        Category::Numeric,
        Category::Vector,
        Category::Reference,
        Category::Aggregate,
        Category::Atomic,
    ];

    /// `category_name`: lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Category::Control => "control",
            Category::Parametric => "parametric",
            Category::Variable => "variable",
            Category::Table => "table",
            Category::Memory => "memory",
            Category::Numeric => "numeric",
            Category::Vector => "vector",
            Category::Reference => "reference",
            Category::Aggregate => "aggregate",
            Category::Atomic => "atomic",
        }
    }

    /// `category_id`: stable small integer (position in [`Category::ALL`]).
    pub fn id(self) -> u32 {
        self as u32
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

struct Entry {
    proposal: &'static str,
    camel: &'static str,
    mnemonic: &'static str,
    /// The probe language's event name: the mnemonic with `_` for ` `.
    event: &'static str,
    canonical: u16,
    category: Category,
    has_memarg: bool,
}

struct Table {
    entries: Vec<Entry>,
    by_mnemonic: rustc_hash::FxHashMap<&'static str, u16>,
    by_event: rustc_hash::FxHashMap<&'static str, u16>,
}

/// An operator's row of `OPCODE_NAMES`, computed (leaked: they live as long
/// as the process, like the table).
fn names_of(proposal: &str, camel: &str, args: &str) -> (&'static str, &'static str, u8, bool) {
    let r = crate::names::row(proposal, camel, args);
    let same = r.event == r.mnemonic;
    let mnemonic: &'static str = r.mnemonic.leak();
    let event: &'static str = if same { mnemonic } else { r.event.leak() };
    (mnemonic, event, r.category, r.has_memarg)
}

/// The table, made at its first use: every monitor load and app match needs
/// it, so it is built without copies (the mnemonics live as long as the
/// process, like the table) and indexed with a cheap hash.
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let n = RAW_OPERATORS.len();
        let mut entries = Vec::with_capacity(n);
        let mut by_mnemonic = rustc_hash::FxHashMap::default();
        by_mnemonic.reserve(n);
        let mut by_event = rustc_hash::FxHashMap::default();
        by_event.reserve(n);
        // (Computed here only if the build's list does not fit this
        // wasmparser: it always should.)
        let built = OPCODE_NAMES.len() == n;
        for (i, (proposal, camel, _visit, args)) in RAW_OPERATORS.iter().enumerate() {
            let idx = u16::try_from(i).unwrap_or(u16::MAX);
            let (mnemonic, event, category, has_memarg) = match built {
                true => OPCODE_NAMES[i],
                false => names_of(proposal, camel, args),
            };
            let category = Category::ALL.get(usize::from(category)).copied();
            let category = category.unwrap_or(Category::Numeric);
            let canonical = *by_mnemonic.entry(mnemonic).or_insert(idx);
            by_event.entry(event).or_insert(canonical);
            entries.push(Entry {
                proposal,
                camel,
                mnemonic,
                event,
                canonical,
                category,
                has_memarg,
            });
        }
        Table {
            entries,
            by_mnemonic,
            by_event,
        }
    })
}

/// A compact instruction identifier: one per distinct text-format mnemonic.
///
/// The value is wasmparser's operator index of the canonical operator for the
/// mnemonic; it is stable for a given wasmparser version only, so persist the
/// [`mnemonic`](Opcode::mnemonic) instead.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opcode(u16);

macro_rules! opcode_consts {
    ($($name:ident = $op:ident),* $(,)?) => {
        impl Opcode {
            $(
                #[doc = concat!("The opcode of wasmparser's `Operator::", stringify!($op), "`.")]
                pub const $name: Opcode = Opcode(OpIndex::$op as u16);
            )*
        }
    };
}

opcode_consts! {
    UNREACHABLE = Unreachable, NOP = Nop, BLOCK = Block, LOOP = Loop, IF = If, ELSE = Else,
    END = End, BR = Br, BR_IF = BrIf, BR_TABLE = BrTable, RETURN = Return, CALL = Call,
    CALL_INDIRECT = CallIndirect, RETURN_CALL = ReturnCall,
    RETURN_CALL_INDIRECT = ReturnCallIndirect, DROP = Drop, SELECT = Select,
    LOCAL_GET = LocalGet, LOCAL_SET = LocalSet, LOCAL_TEE = LocalTee, GLOBAL_GET = GlobalGet,
    GLOBAL_SET = GlobalSet, MEMORY_SIZE = MemorySize, MEMORY_GROW = MemoryGrow,
    I32_CONST = I32Const, I64_CONST = I64Const, F32_CONST = F32Const, F64_CONST = F64Const,
    I32_ADD = I32Add, I32_LOAD = I32Load, I32_STORE = I32Store, TRY_TABLE = TryTable,
}

impl Opcode {
    /// Looks up a text-format mnemonic (exact, case-sensitive: `i32.add`).
    pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
        table().by_mnemonic.get(mnemonic).map(|&i| Opcode(i))
    }

    /// Like [`from_mnemonic`](Self::from_mnemonic) but ASCII case-insensitive,
    /// as the probe language's glob matching is.
    pub fn from_mnemonic_ignore_case(mnemonic: &str) -> Option<Opcode> {
        Opcode::from_mnemonic(&mnemonic.to_ascii_lowercase())
    }

    /// The standard text-format mnemonic (`i64.load32_u`), Wizard's for the
    /// nullable `ref.test null` and `ref.cast null`.
    pub fn mnemonic(self) -> &'static str {
        table()
            .entries
            .get(usize::from(self.0))
            .map(|e| e.mnemonic)
            .unwrap_or("")
    }

    /// The probe language's event name: the mnemonic, `ref.test_null` and
    /// `ref.cast_null` for the two with a space.
    pub fn event_name(self) -> &'static str {
        table()
            .entries
            .get(usize::from(self.0))
            .map(|e| e.event)
            .unwrap_or("")
    }

    /// Looks up an [event name](Self::event_name) or a mnemonic.
    pub fn from_event_name(name: &str) -> Option<Opcode> {
        let t = table();
        t.by_event
            .get(name)
            .or_else(|| t.by_mnemonic.get(name))
            .map(|&i| Opcode(i))
    }

    /// The wasmparser variant name of the canonical operator (`I64Load32U`).
    pub fn operator_name(self) -> &'static str {
        table()
            .entries
            .get(usize::from(self.0))
            .map(|e| e.camel)
            .unwrap_or("")
    }

    /// The wasmparser proposal tag (`mvp`, `simd`, `bulk_memory`, ...).
    pub fn proposal(self) -> &'static str {
        table()
            .entries
            .get(usize::from(self.0))
            .map(|e| e.proposal)
            .unwrap_or("")
    }

    /// The instruction's category.
    pub fn category(self) -> Category {
        table()
            .entries
            .get(usize::from(self.0))
            .map(|e| e.category)
            .unwrap_or(Category::Numeric)
    }

    /// `category_name` as the probe language binds it.
    pub fn category_name(self) -> &'static str {
        self.category().name()
    }

    /// `category_id` as the probe language binds it.
    pub fn category_id(self) -> u32 {
        self.category().id()
    }

    /// Whether the instruction has a memarg immediate (so `offset` applies).
    pub fn has_memarg(self) -> bool {
        table()
            .entries
            .get(usize::from(self.0))
            .is_some_and(|e| e.has_memarg)
    }

    /// The [`binary_opcode`] of the opcode's canonical operator (`select`:
    /// 0x1B), `None` if no encoding decodes to it.
    pub fn binary_opcode(self) -> Option<u32> {
        OPCODE_CODES
            .get(usize::from(self.0))
            .copied()
            .filter(|c| *c != u32::MAX)
    }

    /// The compact numeric id.
    pub fn index(self) -> u16 {
        self.0
    }

    /// The opcode with this [`index`](Self::index), if it is a canonical opcode.
    pub fn from_index(index: u16) -> Option<Opcode> {
        table()
            .entries
            .get(usize::from(index))
            .filter(|e| e.canonical == index)
            .map(|_| Opcode(index))
    }

    /// All opcodes (one per distinct mnemonic), in wasmparser's order.
    pub fn all() -> impl Iterator<Item = Opcode> {
        table()
            .entries
            .iter()
            .enumerate()
            .filter(|(i, e)| usize::from(e.canonical) == *i)
            .map(|(_, e)| Opcode(e.canonical))
    }

    /// Whether this opcode starts a structured block (`block`, `loop`, `if`,
    /// `try`, `try_table`).
    pub fn is_block_structured(self) -> bool {
        matches!(
            self.mnemonic(),
            "block" | "loop" | "if" | "try" | "try_table"
        )
    }

    /// Whether this opcode is a branch (`br`, `br_if`, `br_table`,
    /// `br_on_*`).
    pub fn is_branch(self) -> bool {
        self.mnemonic().starts_with("br")
    }

    /// Whether this opcode is a direct or indirect call (including tail calls
    /// and `call_ref`).
    pub fn is_call(self) -> bool {
        matches!(
            self.mnemonic(),
            "call"
                | "call_indirect"
                | "return_call"
                | "return_call_indirect"
                | "call_ref"
                | "return_call_ref"
        )
    }

    /// Whether this opcode is a load (has a memarg and produces a value from memory).
    pub fn is_load(self) -> bool {
        self.has_memarg()
            && self.mnemonic().contains(".load")
            && !self.mnemonic().contains("atomic.rmw")
    }

    /// Whether this opcode is a store.
    pub fn is_store(self) -> bool {
        self.has_memarg() && self.mnemonic().contains(".store")
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Opcode({})", self.mnemonic())
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

/// The opcode of a decoded operator (aliases such as `TypedSelect` map to the
/// canonical opcode of their mnemonic).
pub fn opcode_of(op: &wasmparser::Operator<'_>) -> Opcode {
    let raw = raw_index(op);
    let canonical = table()
        .entries
        .get(usize::from(raw))
        .map(|e| e.canonical)
        .unwrap_or(raw);
    Opcode(canonical)
}

/// The instruction's opcode in the binary format, the value of the `opcode`
/// parameter (Part B, `docs/monitor-abi.md#parameters`): the opcode byte
/// (`0x6A` for `i32.add`, `0x1C` for `select t`), or for an instruction with
/// a prefix byte (0xFB GC, 0xFC misc, 0xFD SIMD, 0xFE threads) the prefix
/// times 0x10000 plus its sub-opcode (`memory.copy`, `0xFC 10`, is
/// `0xFC000A`). Computed at build time by decoding every encoding.
pub fn binary_opcode(op: &wasmparser::Operator<'_>) -> u32 {
    OPCODE_CODES
        .get(usize::from(raw_index(op)))
        .copied()
        .unwrap_or(u32::MAX)
}

/// Every instruction encoding the decoder knows: its [`binary_opcode`], its
/// [`Opcode`] and wasmparser's operator name (`TypedSelect` for `select t`,
/// whose opcode is `select`'s), in wasmparser's order.
pub fn encodings() -> impl Iterator<Item = (u32, Opcode, &'static str)> {
    let t = table();
    OPCODE_CODES
        .iter()
        .zip(&t.entries)
        .filter(|(c, _)| **c != u32::MAX)
        .map(|(c, e)| (*c, Opcode(e.canonical), e.camel))
}

/// The immediates of `op`, flattened for `immN`
/// (`docs/monitor-abi.md#immediates`).
///
/// * integers and every index (local, global, function, type, table, memory,
///   label, data, elem, tag, field, lane) are one `i32` each, in binary order;
///   `i64.const` is one `i64`, `f32.const`/`f64.const` one float (raw bits),
///   `v128.const` one `v128`;
/// * a memarg is three `i32`s: align flags, memory index, offset. The align
///   flags are the binary encoding's field: log2(alignment), plus bit 6 (0x40)
///   when the memory index is not 0 (multi-memory). The offset is truncated to
///   32 bits (the typed, full `offset` param is i64);
/// * `br_table` is the number of labels minus one (i.e. the non-default target
///   count), then each target label, then the default label;
/// * a block type is its type code as the binary format's signed (s33) value:
///   -64 (`0x40`) for the empty type, -1 (`0x7F`) `i32`, -2 `i64`, -3 `f32`,
///   -4 `f64`, -5 `v128`, -16 `funcref`, -17 `externref`, or the non-negative
///   type index;
/// * a heap type immediate (`ref.null t`, `ref.test`, `ref.cast`) uses the
///   same signed code (concrete heap types: their type index);
/// * `i8x16.shuffle` is 16 lane `i32`s;
/// * as in Wizard, which reads none for them: `select t` and `br_on_cast*`
///   have no immediates;
/// * beyond the ABI (GC, exceptions, threads): `try_table` is its block type
///   only, as in Wizard (an `immN` beyond it is no match); `atomic.fence` is
///   its reserved zero byte, as in Wizard; atomic ordering is 0 = seq_cst,
///   1 = acq_rel.
pub fn flatten_immediates(op: &wasmparser::Operator<'_>) -> Vec<ConstValue> {
    use wasmparser::Operator as O;
    if matches!(
        op,
        O::TypedSelect { .. } | O::BrOnCast { .. } | O::BrOnCastFail { .. }
    ) {
        return Vec::new();
    }
    // `atomic.fence`'s reserved byte (always 0), which Wizard reads as imm0.
    if matches!(op, O::AtomicFence) {
        return vec![ConstValue::I32(0)];
    }
    let mut out = Vec::new();
    flatten_raw(op, &mut out);
    out
}

/// The signed (s7/s33) code of a value type; concrete reference types give
/// their heap type's code or index.
pub fn valtype_code(ty: &wasmparser::ValType) -> i32 {
    match ty {
        wasmparser::ValType::I32 => -1,
        wasmparser::ValType::I64 => -2,
        wasmparser::ValType::F32 => -3,
        wasmparser::ValType::F64 => -4,
        wasmparser::ValType::V128 => -5,
        wasmparser::ValType::Ref(r) => heap_type_code(&r.heap_type()),
    }
}

/// The signed code of a heap type (`func` = -16 / 0x70, `extern` = -17 / 0x6F,
/// ...), or the type index of a concrete heap type (-1 if it is not a module
/// index).
pub fn heap_type_code(ht: &wasmparser::HeapType) -> i32 {
    use wasmparser::AbstractHeapType as A;
    match ht {
        wasmparser::HeapType::Abstract { ty, .. } => {
            let byte: i32 = match ty {
                A::Func => 0x70,
                A::Extern => 0x6F,
                A::Any => 0x6E,
                A::Eq => 0x6D,
                A::I31 => 0x6C,
                A::Struct => 0x6B,
                A::Array => 0x6A,
                A::Exn => 0x69,
                A::None => 0x71,
                A::NoExtern => 0x72,
                A::NoFunc => 0x73,
                A::NoExn => 0x74,
            };
            byte - 0x80
        }
        wasmparser::HeapType::Concrete(idx) => {
            idx.as_module_index().map(|i| i as i32).unwrap_or(-1)
        }
    }
}

/// Flattening of one immediate field into `immN` constants.
trait Flatten {
    fn flatten(&self, out: &mut Vec<ConstValue>);
    /// The field itself if it is a memory immediate.
    fn memarg(&self) -> Option<wasmparser::MemArg> {
        None
    }
}

impl Flatten for u32 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(*self as i32));
    }
}
impl Flatten for u8 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(i32::from(*self)));
    }
}
impl Flatten for i32 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(*self));
    }
}
impl Flatten for i64 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I64(*self));
    }
}
impl Flatten for wasmparser::Ieee32 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::F32Bits(self.bits()));
    }
}
impl Flatten for wasmparser::Ieee64 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::F64Bits(self.bits()));
    }
}
impl Flatten for wasmparser::V128 {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::V128(self.i128() as u128));
    }
}
impl Flatten for [u8; 16] {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.extend(self.iter().map(|b| ConstValue::I32(i32::from(*b))));
    }
}
impl Flatten for wasmparser::MemArg {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        let flags = i32::from(self.align) | if self.memory != 0 { 0x40 } else { 0 };
        out.push(ConstValue::I32(flags));
        out.push(ConstValue::I32(self.memory as i32));
        out.push(ConstValue::I32(self.offset as u32 as i32));
    }
    fn memarg(&self) -> Option<wasmparser::MemArg> {
        Some(*self)
    }
}
impl Flatten for wasmparser::BrTable<'_> {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(self.len() as i32));
        for t in self.targets().flatten() {
            out.push(ConstValue::I32(t as i32));
        }
        out.push(ConstValue::I32(self.default() as i32));
    }
}
impl Flatten for wasmparser::BlockType {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        let code = match self {
            wasmparser::BlockType::Empty => -64,
            wasmparser::BlockType::Type(t) => valtype_code(t),
            wasmparser::BlockType::FuncType(i) => *i as i32,
        };
        out.push(ConstValue::I32(code));
    }
}
impl Flatten for wasmparser::ValType {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(valtype_code(self)));
    }
}
impl Flatten for wasmparser::HeapType {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(heap_type_code(self)));
    }
}
impl Flatten for wasmparser::RefType {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        out.push(ConstValue::I32(i32::from(self.is_nullable())));
        out.push(ConstValue::I32(heap_type_code(&self.heap_type())));
    }
}
impl Flatten for wasmparser::Ordering {
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        let v = match self {
            wasmparser::Ordering::SeqCst => 0,
            wasmparser::Ordering::AcqRel => 1,
        };
        out.push(ConstValue::I32(v));
    }
}
impl Flatten for wasmparser::TryTable {
    /// As in Wizard: the block type only (it binds no catch clauses).
    fn flatten(&self, out: &mut Vec<ConstValue>) {
        self.ty.flatten(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::{EXCEPTIONS, FIXUPS};

    /// `camel_to_mnemonic` searches for fix-ups only in names with an `_`.
    #[test]
    fn every_fixup_has_an_underscore() {
        assert!(FIXUPS.iter().all(|(from, _)| from.contains('_')));
    }

    #[test]
    fn derived_mnemonics_match_wasmparser_visitor_names() {
        for (_, camel, visit, _) in RAW_OPERATORS {
            if EXCEPTIONS.iter().any(|(c, _)| c == camel) {
                continue;
            }
            let m = camel_to_mnemonic(camel);
            let v = visit.strip_prefix("visit_").unwrap_or(visit);
            assert_eq!(m.replace('.', "_"), v, "{camel}");
        }
    }

    #[test]
    fn known_mnemonics() {
        let known = [
            ("I32Add", "i32.add"),
            ("BrIf", "br_if"),
            ("CallIndirect", "call_indirect"),
            ("MemoryGrow", "memory.grow"),
            ("LocalGet", "local.get"),
            ("I64Load32U", "i64.load32_u"),
            ("I32TruncSatF32S", "i32.trunc_sat_f32_s"),
            ("RefIsNull", "ref.is_null"),
            ("ReturnCallIndirect", "return_call_indirect"),
            ("MemoryCopy", "memory.copy"),
            ("I32Extend8S", "i32.extend8_s"),
            ("I64ExtendI32U", "i64.extend_i32_u"),
            ("F32DemoteF64", "f32.demote_f64"),
            ("I32WrapI64", "i32.wrap_i64"),
            ("DataDrop", "data.drop"),
            ("ElemDrop", "elem.drop"),
            ("TableGrow", "table.grow"),
            ("TypedSelect", "select"),
            ("V128AndNot", "v128.andnot"),
            ("I16x8ExtAddPairwiseI8x16S", "i16x8.extadd_pairwise_i8x16_s"),
            ("I32x4ExtMulHighI16x8U", "i32x4.extmul_high_i16x8_u"),
            ("I16x8Q15MulrSatS", "i16x8.q15mulr_sat_s"),
            ("F64x2PMax", "f64x2.pmax"),
            ("I8x16Shuffle", "i8x16.shuffle"),
            ("V128Load8x8S", "v128.load8x8_s"),
            ("V128Load32Zero", "v128.load32_zero"),
            ("V128Store16Lane", "v128.store16_lane"),
            ("I8x16ExtractLaneU", "i8x16.extract_lane_u"),
            ("I32x4TruncSatF64x2SZero", "i32x4.trunc_sat_f64x2_s_zero"),
            ("F64x2PromoteLowF32x4", "f64x2.promote_low_f32x4"),
            ("I32AtomicRmw8AddU", "i32.atomic.rmw8.add_u"),
            ("I64AtomicRmwCmpxchg", "i64.atomic.rmw.cmpxchg"),
            ("MemoryAtomicWait32", "memory.atomic.wait32"),
            ("AtomicFence", "atomic.fence"),
            ("RefTestNullable", "ref.test null"),
            ("RefCastNonNull", "ref.cast"),
            ("AnyConvertExtern", "any.convert_extern"),
        ];
        for (camel, m) in known {
            assert_eq!(camel_to_mnemonic(camel), m);
            assert!(Opcode::from_mnemonic(m).is_some(), "{m} missing");
        }
        assert_eq!(Opcode::from_mnemonic("i32.add"), Some(Opcode::I32_ADD));
        assert_eq!(Opcode::CALL.mnemonic(), "call");
        assert_eq!(Opcode::from_mnemonic("I32.ADD"), None);
        assert_eq!(
            Opcode::from_mnemonic_ignore_case("I32.ADD"),
            Some(Opcode::I32_ADD)
        );
        assert_eq!(Opcode::from_mnemonic("i32.plus"), None);
        assert_eq!(Opcode::from_mnemonic(""), None);
    }

    /// Every operator has an encoding, no two the same; known ones are the
    /// binary format's.
    #[test]
    fn binary_opcodes() {
        let mut seen = std::collections::HashMap::new();
        for (code, op, camel) in encodings() {
            assert!(
                code < 0x100 || (0xFB..=0xFE).contains(&(code >> 16)),
                "{camel}"
            );
            assert!(code < 0x100 || code & 0xFFFF < 0x200, "{camel}");
            assert!(op.binary_opcode().is_some(), "{camel}");
            if let Some(other) = seen.insert(code, camel) {
                panic!("{camel} and {other} both {code:#x}");
            }
        }
        assert_eq!(
            seen.len(),
            RAW_OPERATORS.len(),
            "operators without an encoding"
        );
        for (m, code) in [
            ("unreachable", 0x00),
            ("select", 0x1B),
            ("i32.add", 0x6A),
            ("i64.eq", 0x51),
            ("end", 0x0B),
            ("i32.trunc_sat_f32_s", 0xFC0000),
            ("memory.copy", 0xFC000A),
            ("ref.test", 0xFB0014),
            ("ref.test null", 0xFB0015),
            ("v128.load", 0xFD0000),
            ("i64x2.extmul_high_i32x4_u", 0xFD00DF),
            ("f64x2.convert_low_i32x4_u", 0xFD00FF),
            ("i8x16.relaxed_swizzle", 0xFD0100),
            ("memory.atomic.notify", 0xFE0000),
        ] {
            let op = Opcode::from_mnemonic(m).unwrap();
            assert_eq!(op.binary_opcode(), Some(code), "{m}");
        }
        let typed = wasmparser::Operator::TypedSelect {
            ty: wasmparser::ValType::I32,
        };
        assert_eq!(binary_opcode(&typed), 0x1C);
        assert_eq!(binary_opcode(&wasmparser::Operator::Select), 0x1B);
        let copy = wasmparser::Operator::MemoryCopy {
            dst_mem: 0,
            src_mem: 0,
        };
        assert_eq!(binary_opcode(&copy), 0xFC000A);
    }

    #[test]
    fn every_mnemonic_round_trips_and_is_unique() {
        let mut seen = std::collections::HashSet::new();
        let mut n = 0;
        for op in Opcode::all() {
            let m = op.mnemonic();
            assert!(!m.is_empty());
            assert!(seen.insert(m), "duplicate {m}");
            assert_eq!(Opcode::from_mnemonic(m), Some(op));
            assert_eq!(Opcode::from_index(op.index()), Some(op));
            let word = m.strip_suffix(" null").unwrap_or(m);
            assert!(
                word.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || b == b'.'
                    || b == b'_'),
                "{m}"
            );
            assert!(word == m || matches!(word, "ref.test" | "ref.cast"), "{m}");
            assert_eq!(Opcode::from_event_name(op.event_name()), Some(op));
            assert_eq!(op.event_name(), m.replace(' ', "_"));
            n += 1;
        }
        // One operator (typed select) is an alias.
        assert_eq!(n + 1, RAW_OPERATORS.len());
        let test_null = Opcode::from_mnemonic("ref.test null").unwrap();
        assert_eq!(test_null.event_name(), "ref.test_null");
        assert_eq!(
            Opcode::from_event_name("ref.cast_null").unwrap().mnemonic(),
            "ref.cast null"
        );
        assert_ne!(Opcode::from_mnemonic("ref.test"), Some(test_null));
    }

    #[test]
    fn proposals_present() {
        let count = |p: &str| Opcode::all().filter(|o| o.proposal() == p).count();
        assert_eq!(count("mvp"), 172);
        assert_eq!(count("sign_extension"), 5);
        assert_eq!(count("saturating_float_to_int"), 8);
        assert_eq!(count("bulk_memory"), 7);
        assert!(count("reference_types") >= 8); // typed select is an alias
        assert_eq!(count("tail_call"), 2);
        assert_eq!(count("simd"), 236);
    }

    #[test]
    fn categories() {
        let cat = |m: &str| Opcode::from_mnemonic(m).map(|o| o.category_name());
        assert_eq!(cat("br_if"), Some("control"));
        assert_eq!(cat("call_indirect"), Some("control"));
        assert_eq!(cat("select"), Some("parametric"));
        assert_eq!(cat("local.tee"), Some("variable"));
        assert_eq!(cat("global.get"), Some("variable"));
        assert_eq!(cat("table.get"), Some("table"));
        assert_eq!(cat("elem.drop"), Some("table"));
        assert_eq!(cat("i64.load32_u"), Some("memory"));
        assert_eq!(cat("v128.load"), Some("memory"));
        assert_eq!(cat("memory.grow"), Some("memory"));
        assert_eq!(cat("data.drop"), Some("memory"));
        assert_eq!(cat("i32.add"), Some("numeric"));
        assert_eq!(cat("i32.const"), Some("numeric"));
        assert_eq!(cat("v128.const"), Some("vector"));
        assert_eq!(cat("i8x16.add"), Some("vector"));
        assert_eq!(cat("ref.is_null"), Some("reference"));
        assert_eq!(cat("struct.new"), Some("aggregate"));
        assert_eq!(cat("i32.atomic.load"), Some("atomic"));
        for (i, c) in Category::ALL.iter().enumerate() {
            assert_eq!(c.id() as usize, i);
        }
        assert!(Opcode::from_mnemonic("i32.load").is_some_and(|o| o.is_load() && !o.is_store()));
        assert!(Opcode::from_mnemonic("i64.store32").is_some_and(|o| o.is_store()));
    }

    /// The names `build.rs` computed are the ones the rules of `names.rs`
    /// give at run time, for every operator of this wasmparser.
    #[test]
    fn built_names_are_the_rules_names() {
        assert_eq!(OPCODE_NAMES.len(), RAW_OPERATORS.len());
        for (built, (proposal, camel, _, args)) in OPCODE_NAMES.iter().zip(RAW_OPERATORS) {
            assert_eq!(*built, names_of(proposal, camel, args), "{camel}");
        }
    }
}
