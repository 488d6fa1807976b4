//! Value types, function types and runtime values shared by every tier.

use std::fmt;

/// A Wasm value type the engine can represent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValType {
    I32,
    I64,
    F32,
    F64,
    V128,
    FuncRef,
    ExternRef,
    /// `exnref` (exception handling): a slot is 0 for null, else the
    /// store's handle of an exception object (low two bits 00).
    ExnRef,
}

impl ValType {
    pub(crate) fn from_wasmparser(t: wasmparser::ValType) -> ValType {
        match t {
            wasmparser::ValType::I32 => ValType::I32,
            wasmparser::ValType::I64 => ValType::I64,
            wasmparser::ValType::F32 => ValType::F32,
            wasmparser::ValType::F64 => ValType::F64,
            wasmparser::ValType::V128 => ValType::V128,
            wasmparser::ValType::Ref(r) => ValType::of_ref(r),
        }
    }

    /// The representation of a reference type: every function reference
    /// (`funcref`, `(ref null? $t)` of a function type, `nofunc`) is a
    /// [`ValType::FuncRef`]; every other one (the `extern`, `any` and `exn`
    /// hierarchies, one slot encoding: [`crate::core::refs`]) an
    /// [`ValType::ExternRef`]. [`RefDetail`] keeps the nullability and the
    /// heap type. Without the module's types a concrete type is taken for a
    /// function type (`core::gc_types::ModuleTypes::val_of_ref` knows).
    pub(crate) fn of_ref(r: wasmparser::RefType) -> ValType {
        use wasmparser::{AbstractHeapType as A, HeapType as H};
        match r.heap_type() {
            H::Abstract {
                ty: A::Func | A::NoFunc,
                ..
            }
            | H::Concrete(_) => ValType::FuncRef,
            H::Abstract {
                ty: A::Exn | A::NoExn,
                ..
            } => ValType::ExnRef,
            _ => ValType::ExternRef,
        }
    }

    pub fn is_ref(self) -> bool {
        matches!(
            self,
            ValType::FuncRef | ValType::ExternRef | ValType::ExnRef
        )
    }

    /// Value-stack slots (64-bit) a value of this type occupies: 2 for `v128`
    /// (low half first), 1 for everything else.
    pub fn slots(self) -> usize {
        if self == ValType::V128 {
            2
        } else {
            1
        }
    }
}

/// Slots a sequence of values occupies (see [`ValType::slots`]).
pub fn slot_count(tys: &[ValType]) -> usize {
    tys.iter().map(|t| t.slots()).sum()
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValType::I32 => "i32",
            ValType::I64 => "i64",
            ValType::F32 => "f32",
            ValType::F64 => "f64",
            ValType::V128 => "v128",
            ValType::FuncRef => "funcref",
            ValType::ExternRef => "externref",
            ValType::ExnRef => "exnref",
        })
    }
}

/// A function signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct FuncType {
    pub params: Box<[ValType]>,
    pub results: Box<[ValType]>,
}

impl FuncType {
    pub fn new(params: impl Into<Box<[ValType]>>, results: impl Into<Box<[ValType]>>) -> Self {
        FuncType {
            params: params.into(),
            results: results.into(),
        }
    }

    /// No parameter or result is a reference: a call can pass its slots
    /// between tiers as they are (a reference may need converting).
    pub fn is_numeric(&self) -> bool {
        self.params
            .iter()
            .chain(self.results.iter())
            .all(|t| !t.is_ref())
    }
}

impl fmt::Display for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[ValType]| {
            v.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(f, "({}) -> ({})", list(&self.params), list(&self.results))
    }
}

/// Address of a function in a [`crate::Store`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncAddr(pub u32);
/// Address of a linear memory in a [`crate::Store`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemAddr(pub u32);
/// Address of a table in a [`crate::Store`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableAddr(pub u32);
/// Address of a global in a [`crate::Store`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalAddr(pub u32);
/// Address of an exception tag in a [`crate::Store`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TagAddr(pub u32);
/// Handle of an instance in a [`crate::Store`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstanceId(pub u32);

/// A runtime value. Floats are kept as raw bits so NaN payloads survive.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Value {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    FuncRef(Option<FuncAddr>),
    ExternRef(Option<u32>),
    /// An `exnref`: the store's handle of an exception object (never 0).
    ExnRef(Option<u32>),
    /// A `v128`, lane 0 in the low bits.
    V128(u128),
    /// A non-null reference of the `any` hierarchy that is not a host
    /// reference (an `i31` or a heap object); its type is
    /// [`ValType::ExternRef`], the representation of every non-function
    /// reference. Null is `ExternRef(None)`, a host reference `ExternRef(Some(n))`.
    AnyRef(GcRef),
}

/// What a [`GcRef`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GcKind {
    I31(u32),
    Struct,
    Array,
    Exception,
    /// A heap object read where no store was at hand: a store refuses it.
    Unknown,
}

/// An `i31` or a handle to an object of a store's heap, as the embedder
/// sees it. Only the engine makes object handles; a store accepts one only
/// if it is its own and the object is still the one the handle was made
/// for (`Store::check_value`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GcRef {
    slot: u64,
    heap: u64,
    serial: u64,
    kind: GcKind,
}

impl GcRef {
    /// An `i31` reference (its low 31 bits).
    pub fn i31(v: u32) -> GcRef {
        GcRef {
            slot: crate::core::refs::i31(v),
            heap: 0,
            serial: 0,
            kind: GcKind::I31(v & 0x7fff_ffff),
        }
    }

    pub fn kind(&self) -> GcKind {
        self.kind
    }

    /// The slot (`core::refs` encoding).
    pub(crate) fn slot(&self) -> u64 {
        self.slot
    }

    /// The heap identity and allocation serial an object handle was made with.
    pub(crate) fn origin(&self) -> (u64, u64) {
        (self.heap, self.serial)
    }

    /// The handle of an object (`slot`) of heap `heap`, allocated as `serial`.
    pub(crate) fn object(slot: u64, heap: u64, serial: u64, kind: GcKind) -> GcRef {
        GcRef {
            slot,
            heap,
            serial,
            kind,
        }
    }
}

impl Value {
    pub fn ty(&self) -> ValType {
        match self {
            Value::I32(_) => ValType::I32,
            Value::I64(_) => ValType::I64,
            Value::F32(_) => ValType::F32,
            Value::F64(_) => ValType::F64,
            Value::FuncRef(_) => ValType::FuncRef,
            Value::ExternRef(_) => ValType::ExternRef,
            Value::ExnRef(_) => ValType::ExnRef,
            Value::V128(_) => ValType::V128,
            Value::AnyRef(_) => ValType::ExternRef,
        }
    }

    /// The default (zero) value of a type.
    pub fn default_of(ty: ValType) -> Value {
        Value::from_slot(ty, 0)
    }

    /// Encode into `ty.slots()` slots (`out` holds at least that many).
    pub fn write_slots(self, out: &mut [u64]) {
        match self {
            Value::V128(v) => {
                out[0] = v as u64;
                out[1] = (v >> 64) as u64;
            }
            v => out[0] = v.to_slot(),
        }
    }

    /// Decode a value of type `ty` from the first `ty.slots()` of `s`.
    pub fn read_slots(ty: ValType, s: &[u64]) -> Value {
        match ty {
            ValType::V128 => Value::V128(s[0] as u128 | (s[1] as u128) << 64),
            t => Value::from_slot(t, s[0]),
        }
    }

    /// Write values into consecutive slots (see [`ValType::slots`]) at the
    /// start of `out`.
    pub fn write_all_slots(vals: &[Value], out: &mut [u64]) {
        let mut i = 0;
        for v in vals {
            v.write_slots(&mut out[i..]);
            i += v.ty().slots();
        }
    }

    /// Decode values of types `tys` from consecutive slots.
    pub fn from_slots(tys: &[ValType], s: &[u64]) -> Vec<Value> {
        Value::iter_slots(tys, s).collect()
    }

    /// The values of types `tys` in consecutive slots, in order.
    pub fn iter_slots<'a>(tys: &'a [ValType], s: &'a [u64]) -> impl Iterator<Item = Value> + 'a {
        let mut i = 0;
        tys.iter().map(move |t| {
            let v = Value::read_slots(*t, &s[i..]);
            i += t.slots();
            v
        })
    }

    /// Encode a one-slot value into the untyped 64-bit slot representation used
    /// by the interpreter (a `v128` gives its low half: use [`Value::write_slots`]).
    /// References: 0 is null; a function reference is its address plus one,
    /// others are encoded as [`crate::core::refs`] says.
    pub fn to_slot(self) -> u64 {
        match self {
            Value::I32(v) => v as u32 as u64,
            Value::I64(v) => v as u64,
            Value::F32(b) => b as u64,
            Value::F64(b) => b,
            Value::FuncRef(None) | Value::ExternRef(None) | Value::ExnRef(None) => 0,
            Value::ExnRef(Some(h)) => h as u64,
            Value::FuncRef(Some(a)) => a.0 as u64 + 1,
            Value::ExternRef(Some(a)) => crate::core::refs::host(a),
            Value::V128(v) => v as u64,
            Value::AnyRef(r) => r.slot(),
        }
    }

    pub fn from_slot(ty: ValType, s: u64) -> Value {
        match ty {
            ValType::I32 => Value::I32(s as u32 as i32),
            ValType::I64 => Value::I64(s as i64),
            ValType::F32 => Value::F32(s as u32),
            ValType::F64 => Value::F64(s),
            ValType::FuncRef => Value::FuncRef(if s == 0 {
                None
            } else {
                Some(FuncAddr((s - 1) as u32))
            }),
            // Host references and null are `Value::ExternRef`s; an i31 or
            // object is an `AnyRef` (an object's handle is unchecked here:
            // `Store::seal` completes it).
            ValType::ExternRef => match crate::core::refs::as_i31(s) {
                Some(v) => Value::AnyRef(GcRef::i31(v)),
                None if s != 0 && crate::core::refs::as_host(s).is_none() => {
                    Value::AnyRef(GcRef::object(s, 0, 0, GcKind::Unknown))
                }
                None => Value::ExternRef(crate::core::refs::as_host(s)),
            },
            ValType::ExnRef => Value::ExnRef(if s == 0 { None } else { Some(s as u32) }),
            ValType::V128 => Value::V128(s as u128),
        }
    }

    pub fn i32(&self) -> Option<i32> {
        if let Value::I32(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    pub fn i64(&self) -> Option<i64> {
        if let Value::I64(v) = self {
            Some(*v)
        } else {
            None
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::I32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::F32(b) => write!(f, "{}", f32::from_bits(*b)),
            Value::F64(b) => write!(f, "{}", f64::from_bits(*b)),
            Value::FuncRef(None) | Value::ExternRef(None) | Value::ExnRef(None) => {
                write!(f, "null")
            }
            Value::ExnRef(Some(h)) => write!(f, "exnref:{h}"),
            Value::FuncRef(Some(a)) => write!(f, "funcref:{}", a.0),
            Value::ExternRef(Some(a)) => write!(f, "externref:{a}"),
            Value::V128(v) => write!(f, "0x{v:032x}"),
            Value::AnyRef(r) => match r.kind() {
                GcKind::I31(v) => write!(f, "i31:{v}"),
                k => write!(f, "{}", format!("{k:?}").to_lowercase()),
            },
        }
    }
}

/// The kind of an importable/exportable entity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExternKind {
    Func,
    Table,
    Memory,
    Global,
    Tag,
}

impl fmt::Display for ExternKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExternKind::Func => "function",
            ExternKind::Table => "table",
            ExternKind::Memory => "memory",
            ExternKind::Global => "global",
            ExternKind::Tag => "tag",
        })
    }
}

/// An entity in the store that can be imported or exported.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Extern {
    Func(FuncAddr),
    Table(TableAddr),
    Memory(MemAddr),
    Global(GlobalAddr),
    Tag(TagAddr),
}

impl Extern {
    pub fn kind(&self) -> ExternKind {
        match self {
            Extern::Func(_) => ExternKind::Func,
            Extern::Table(_) => ExternKind::Table,
            Extern::Memory(_) => ExternKind::Memory,
            Extern::Global(_) => ExternKind::Global,
            Extern::Tag(_) => ExternKind::Tag,
        }
    }
}

/// Limits of a memory (in 64 KiB pages) or table (in elements).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    pub min: u64,
    pub max: Option<u64>,
}

/// What typed function references and GC add to a reference type (a
/// [`ValType::FuncRef`] or [`ValType::ExternRef`]), for matching imports: the
/// default is a nullable reference to the top of the value type's hierarchy
/// (`funcref`, `externref`). Ignored for other value types.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct RefDetail {
    /// `(ref $t)` / `(ref func)`: null is not a value of the type.
    pub non_null: bool,
    /// `(ref null? $t)`: the concrete type, as a type index in a module's
    /// declarations and as the store's interned type id in a store's
    /// globals and tables.
    pub concrete: Option<u32>,
    /// An abstract heap type other than the hierarchy's top (`any`, `eq`,
    /// `i31`, `struct`, `array`, `none`, `nofunc`, `noextern`, `exn`,
    /// `noexn`, or `func`/`extern` themselves); None with `concrete` or
    /// for the top.
    pub heap: Option<crate::core::gc_types::HeapTy>,
}

impl RefDetail {
    pub(crate) fn of(r: wasmparser::RefType, gc: &crate::core::gc_types::ModuleTypes) -> RefDetail {
        use crate::core::gc_types::HeapTy;
        let _ = gc;
        let heap = HeapTy::of(r.heap_type());
        RefDetail {
            non_null: !r.is_nullable(),
            concrete: match heap {
                HeapTy::Concrete(i) => Some(i),
                _ => None,
            },
            heap: match heap {
                HeapTy::Concrete(_) => None,
                h => Some(h),
            },
        }
    }

    /// The heap type (concrete, abstract, or the top of `ty`'s hierarchy).
    pub fn heap_of(self, ty: ValType) -> crate::core::gc_types::HeapTy {
        use crate::core::gc_types::HeapTy;
        match (self.concrete, self.heap) {
            (Some(i), _) => HeapTy::Concrete(i),
            (None, Some(h)) => h,
            (None, None) if ty == ValType::FuncRef => HeapTy::Func,
            (None, None) => HeapTy::Extern,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TableType {
    pub elem: ValType,
    pub limits: Limits,
    /// The element type's nullability and concrete type.
    pub detail: RefDetail,
    /// An `i64` table (table64, part of memory64): indices, sizes and
    /// lengths are i64.
    pub index64: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemoryType {
    pub limits: Limits,
    /// Declared `shared` (threads): only a shared memory matches the import
    /// of a shared one, and only an unshared one that of an unshared one.
    pub shared: bool,
    /// An `i64` memory (memory64): addresses, sizes and lengths are i64.
    pub index64: bool,
    /// log2 of the page size in bytes: 16 (64 KiB), or 0 (one byte) with
    /// custom-page-sizes. An import matches only the same page size.
    pub page_size_log2: u8,
}

impl MemoryType {
    /// The page size in bytes.
    pub fn page_size(&self) -> u64 {
        1 << self.page_size_log2
    }

    /// Most pages a memory of this type can have here: 4 GiB of them (see
    /// `runtime::store::MAX_PAGES`).
    pub fn max_pages_here(&self) -> u64 {
        (1u64 << 32) >> self.page_size_log2
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GlobalType {
    pub ty: ValType,
    pub mutable: bool,
    /// For a reference type: its nullability and concrete type.
    pub detail: RefDetail,
}
