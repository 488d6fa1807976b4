//! The small set of Wasm value types the ABI talks about, and typed constants.

use std::fmt;

/// A Wasm value type as it appears in the monitor ABI (parameter bindings,
/// provided-import signatures, immediate constants).
///
/// This is deliberately smaller than [`wasmparser::ValType`]: the ABI only ever
/// names these seven types. Conversions to and from `wasmparser` are provided
/// (the reverse is fallible for GC / typed references).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValType {
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `v128`
    V128,
    /// `funcref` (nullable)
    FuncRef,
    /// `externref` (nullable)
    ExternRef,
}

impl ValType {
    /// The text-format name (`i32`, `funcref`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValType::I32 => "i32",
            ValType::I64 => "i64",
            ValType::F32 => "f32",
            ValType::F64 => "f64",
            ValType::V128 => "v128",
            ValType::FuncRef => "funcref",
            ValType::ExternRef => "externref",
        }
    }

    /// The binary-format type code byte (`0x7F` for `i32`, `0x6F` for `externref`, ...).
    pub fn code(self) -> u8 {
        match self {
            ValType::I32 => 0x7F,
            ValType::I64 => 0x7E,
            ValType::F32 => 0x7D,
            ValType::F64 => 0x7C,
            ValType::V128 => 0x7B,
            ValType::FuncRef => 0x70,
            ValType::ExternRef => 0x6F,
        }
    }

    /// Converts to the equivalent `wasmparser` type.
    pub fn to_wasmparser(self) -> wasmparser::ValType {
        match self {
            ValType::I32 => wasmparser::ValType::I32,
            ValType::I64 => wasmparser::ValType::I64,
            ValType::F32 => wasmparser::ValType::F32,
            ValType::F64 => wasmparser::ValType::F64,
            ValType::V128 => wasmparser::ValType::V128,
            ValType::FuncRef => wasmparser::ValType::FUNCREF,
            ValType::ExternRef => wasmparser::ValType::EXTERNREF,
        }
    }

    /// Converts from a `wasmparser` type; `None` for reference types other than
    /// nullable `funcref` / `externref`.
    pub fn from_wasmparser(ty: wasmparser::ValType) -> Option<ValType> {
        match ty {
            wasmparser::ValType::I32 => Some(ValType::I32),
            wasmparser::ValType::I64 => Some(ValType::I64),
            wasmparser::ValType::F32 => Some(ValType::F32),
            wasmparser::ValType::F64 => Some(ValType::F64),
            wasmparser::ValType::V128 => Some(ValType::V128),
            wasmparser::ValType::Ref(r) if r == wasmparser::RefType::FUNCREF => {
                Some(ValType::FuncRef)
            }
            wasmparser::ValType::Ref(r) if r == wasmparser::RefType::EXTERNREF => {
                Some(ValType::ExternRef)
            }
            wasmparser::ValType::Ref(_) => None,
        }
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<ValType> for wasmparser::ValType {
    fn from(v: ValType) -> Self {
        v.to_wasmparser()
    }
}

/// A typed constant, e.g. one flattened immediate (`immN`) of an instruction.
///
/// Floats are kept as raw IEEE-754 bits so that NaN payloads survive and the
/// type can implement `Eq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstValue {
    /// An `i32` constant (also used for every index, label, lane, flags value).
    I32(i32),
    /// An `i64` constant (`i64.const`).
    I64(i64),
    /// The raw bits of an `f32` constant (`f32.const`).
    F32Bits(u32),
    /// The raw bits of an `f64` constant (`f64.const`).
    F64Bits(u64),
    /// A `v128` constant (`v128.const`), little-endian lane order.
    V128(u128),
}

impl ConstValue {
    /// The Wasm type of this constant.
    pub fn val_type(&self) -> ValType {
        match self {
            ConstValue::I32(_) => ValType::I32,
            ConstValue::I64(_) => ValType::I64,
            ConstValue::F32Bits(_) => ValType::F32,
            ConstValue::F64Bits(_) => ValType::F64,
            ConstValue::V128(_) => ValType::V128,
        }
    }

    /// The `f32` value, if this is an `F32Bits`.
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            ConstValue::F32Bits(b) => Some(f32::from_bits(*b)),
            _ => None,
        }
    }

    /// The `f64` value, if this is an `F64Bits`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ConstValue::F64Bits(b) => Some(f64::from_bits(*b)),
            _ => None,
        }
    }

    /// The `i32` value, if this is an `I32`.
    pub fn as_i32(&self) -> Option<i32> {
        match self {
            ConstValue::I32(v) => Some(*v),
            _ => None,
        }
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::I32(v) => write!(f, "i32:{v}"),
            ConstValue::I64(v) => write!(f, "i64:{v}"),
            ConstValue::F32Bits(b) => write!(f, "f32:{}", f32::from_bits(*b)),
            ConstValue::F64Bits(b) => write!(f, "f64:{}", f64::from_bits(*b)),
            ConstValue::V128(v) => write!(f, "v128:0x{v:032x}"),
        }
    }
}
