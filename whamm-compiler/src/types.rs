//! Types of the probe language (docs/probe-language.md#types-and-conversions) and the implicit-conversion rules.
//! The rules are documented in docs/probe-language-decisions.md.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    /// A 128-bit SIMD vector (Wasm `v128`): opaque except for `==`/`!=`
    /// and the lane casts ([`Type::v128_lanes`]).
    V128,
    Bool,
    Str,
    Tuple(Vec<Type>),
    Map(Box<Type>, Box<Type>),
    /// The "type" of a statement-like call that returns nothing.
    Unit,
    /// Produced after an error has been reported; compatible with everything
    /// so that one mistake is reported once.
    Error,
}

impl Type {
    pub fn is_int(&self) -> bool {
        matches!(
            self,
            Type::U8
                | Type::I8
                | Type::U16
                | Type::I16
                | Type::U32
                | Type::I32
                | Type::U64
                | Type::I64
        )
    }
    pub fn is_float(&self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }
    pub fn is_numeric(&self) -> bool {
        self.is_int() || self.is_float()
    }
    pub fn is_signed(&self) -> bool {
        matches!(self, Type::I8 | Type::I16 | Type::I32 | Type::I64)
    }
    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }
    /// For a tuple that can stand for the lanes of a `v128` (16 x `u8`/`i8`,
    /// 8 x `u16`/`i16`, 4 x `u32`/`i32`/`f32`, 2 x `u64`/`i64`/`f64`: one
    /// numeric type filling 128 bits), the lane type and count.
    pub fn v128_lanes(&self) -> Option<(Type, u32)> {
        let Type::Tuple(ts) = self else {
            return None;
        };
        let lane = ts.first()?;
        if !lane.is_numeric() || ts.iter().any(|t| t != lane) {
            return None;
        }
        (lane.bits() * ts.len() as u32 == 128).then(|| (lane.clone(), ts.len() as u32))
    }
    /// Bit width of a numeric type.
    pub fn bits(&self) -> u32 {
        match self {
            Type::U8 | Type::I8 => 8,
            Type::U16 | Type::I16 => 16,
            Type::U32 | Type::I32 | Type::F32 => 32,
            Type::U64 | Type::I64 | Type::F64 => 64,
            Type::V128 => 128,
            Type::Bool => 1,
            _ => 0,
        }
    }
    /// The range of values of an integer type.
    pub fn int_range(&self) -> Option<(i128, i128)> {
        if !self.is_int() {
            return None;
        }
        let b = self.bits();
        Some(if self.is_signed() {
            (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
        } else {
            (0, (1i128 << b) - 1)
        })
    }

    /// Whether a value of type `self` converts implicitly (losslessly) to `to`.
    ///
    /// * identical types;
    /// * unsigned to a wider unsigned, signed to a wider signed;
    /// * unsigned to a strictly wider signed (`u8 -> i16`, `u32 -> i64`);
    /// * `f32 -> f64`;
    /// * element-wise for tuples; maps and strings only to themselves.
    ///
    /// Integers never convert implicitly to floats or `bool` (use `as`).
    pub fn widens_to(&self, to: &Type) -> bool {
        if self == to || self.is_error() || to.is_error() {
            return true;
        }
        match (self, to) {
            (a, b) if a.is_int() && b.is_int() => {
                if a.is_signed() == b.is_signed() {
                    a.bits() <= b.bits()
                } else {
                    !a.is_signed() && a.bits() < b.bits()
                }
            }
            (Type::F32, Type::F64) => true,
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.widens_to(y))
            }
            _ => false,
        }
    }

    /// Whether a value of type `self` may be stored where `to` is expected
    /// (an initialiser, an assignment, a map key or tuple key, an argument,
    /// a returned value): every lossless conversion ([`Type::widens_to`]),
    /// and, as whamm allows, any integer to any integer (the value wraps as
    /// with `as`), element by element in tuples.
    pub fn assignable_to(&self, to: &Type) -> bool {
        if self.widens_to(to) {
            return true;
        }
        match (self, to) {
            (a, b) if a.is_int() && b.is_int() => true,
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.assignable_to(y))
            }
            _ => false,
        }
    }

    /// The smallest type both convert to implicitly, if any (for binary
    /// operators and the arms of `?:`).
    pub fn join(a: &Type, b: &Type) -> Option<Type> {
        if a.is_error() {
            return Some(b.clone());
        }
        if b.is_error() || a.widens_to(b) {
            return Some(if b.is_error() { a.clone() } else { b.clone() });
        }
        if b.widens_to(a) {
            return Some(a.clone());
        }
        if a.is_int() && b.is_int() {
            // one signed, one unsigned: the signed type wide enough for both
            let bits = a.bits().max(b.bits()) * 2;
            return match bits {
                16 => Some(Type::I16),
                32 => Some(Type::I32),
                64 => Some(Type::I64),
                _ => None, // u64 with a signed type: no common type
            };
        }
        if let (Type::Tuple(x), Type::Tuple(y)) = (a, b) {
            if x.len() == y.len() {
                let mut v = vec![];
                for (p, q) in x.iter().zip(y) {
                    v.push(Type::join(p, q)?);
                }
                return Some(Type::Tuple(v));
            }
        }
        None
    }

    /// Whether `e as to` is allowed for an expression of type `self`.
    pub fn can_cast_to(&self, to: &Type) -> bool {
        if self == to || self.is_error() || to.is_error() {
            return true;
        }
        match (self, to) {
            (a, b) if a.is_numeric() && b.is_numeric() => true,
            (Type::Bool, b) if b.is_int() => true,
            (a, Type::Bool) if a.is_numeric() => true,
            // a vector and its lanes (docs/probe-language.md#types-and-conversions)
            (Type::V128, t) | (t, Type::V128) => t.v128_lanes().is_some(),
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.can_cast_to(y))
            }
            // bool -> float, str, maps, v128 -> scalars: no cast
            _ => false,
        }
    }

    /// Types usable as map keys: numbers, bool, str, v128, and tuples of those.
    pub fn is_hashable(&self) -> bool {
        match self {
            Type::Map(..) | Type::Unit => false,
            Type::Tuple(v) => v.iter().all(|t| t.is_hashable()),
            _ => true,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::U8 => f.write_str("u8"),
            Type::I8 => f.write_str("i8"),
            Type::U16 => f.write_str("u16"),
            Type::I16 => f.write_str("i16"),
            Type::U32 => f.write_str("u32"),
            Type::I32 => f.write_str("i32"),
            Type::U64 => f.write_str("u64"),
            Type::I64 => f.write_str("i64"),
            Type::F32 => f.write_str("f32"),
            Type::F64 => f.write_str("f64"),
            Type::V128 => f.write_str("v128"),
            Type::Bool => f.write_str("bool"),
            Type::Str => f.write_str("str"),
            Type::Tuple(v) => {
                f.write_str("(")?;
                for (i, t) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            Type::Map(k, v) => write!(f, "map<{k}, {v}>"),
            Type::Unit => f.write_str("()"),
            Type::Error => f.write_str("{error}"),
        }
    }
}

/// Parse a type name as used in catalogue entries and rule type bounds.
pub fn parse_type_name(s: &str) -> Option<Type> {
    Some(match s.trim() {
        "u8" => Type::U8,
        "i8" => Type::I8,
        "u16" => Type::U16,
        "i16" => Type::I16,
        "u32" => Type::U32,
        "i32" => Type::I32,
        "u64" => Type::U64,
        "i64" => Type::I64,
        "f32" => Type::F32,
        "f64" => Type::F64,
        "v128" => Type::V128,
        "bool" => Type::Bool,
        "str" => Type::Str,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn widening() {
        assert!(Type::U8.widens_to(&Type::U32));
        assert!(Type::U8.widens_to(&Type::I16));
        assert!(!Type::U32.widens_to(&Type::I32));
        assert!(!Type::I32.widens_to(&Type::U64));
        assert!(!Type::I32.widens_to(&Type::F64));
        assert_eq!(Type::join(&Type::U32, &Type::I32), Some(Type::I64));
        assert_eq!(Type::join(&Type::U64, &Type::I64), None);
        assert!(Type::I32.can_cast_to(&Type::F32));
        assert!(!Type::Str.can_cast_to(&Type::I32));
    }
    #[test]
    fn v128() {
        let t = Type::Tuple;
        assert!(!Type::V128.widens_to(&Type::U32));
        assert!(!Type::U32.assignable_to(&Type::V128));
        assert!(!Type::V128.assignable_to(&Type::Tuple(vec![Type::I64, Type::I64])));
        assert_eq!(Type::join(&Type::V128, &Type::V128), Some(Type::V128));
        assert_eq!(Type::join(&Type::V128, &Type::I64), None);
        assert!(Type::V128.can_cast_to(&t(vec![Type::U32; 4])));
        assert!(t(vec![Type::F64; 2]).can_cast_to(&Type::V128));
        assert!(Type::V128.can_cast_to(&t(vec![Type::I8; 16])));
        assert!(!Type::V128.can_cast_to(&t(vec![Type::I32; 3])));
        assert!(!Type::V128.can_cast_to(&t(vec![Type::I32, Type::U32, Type::I32, Type::I32])));
        assert!(!Type::V128.can_cast_to(&t(vec![Type::Bool; 16])));
        assert!(!Type::V128.can_cast_to(&Type::U64));
        assert!(Type::V128.is_hashable());
    }
}
