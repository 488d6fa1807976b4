//! Wasm GC's type system as a module declares it: recursive type groups,
//! declared supertypes, `final`, struct and array types with packed and
//! mutable fields, and full reference types (nullability, abstract or
//! concrete heap type). The store canonicalises these per rec group
//! (`runtime::types`), so two modules defining the same group get the same
//! store type ids.

use crate::core::types::{FuncType, ValType};

/// A heap type: abstract, or a concrete type (a module type index in a
/// module's declarations, a store type id in the store's).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeapTy {
    Func,
    NoFunc,
    Extern,
    NoExtern,
    Any,
    Eq,
    I31,
    Struct,
    Array,
    None,
    Exn,
    NoExn,
    Concrete(u32),
}

impl HeapTy {
    pub(crate) fn of(h: wasmparser::HeapType) -> HeapTy {
        use wasmparser::AbstractHeapType as A;
        match h {
            wasmparser::HeapType::Concrete(i) => {
                HeapTy::Concrete(i.as_module_index().unwrap_or(u32::MAX))
            }
            wasmparser::HeapType::Abstract { ty, .. } => match ty {
                A::Func => HeapTy::Func,
                A::NoFunc => HeapTy::NoFunc,
                A::Extern => HeapTy::Extern,
                A::NoExtern => HeapTy::NoExtern,
                A::Any => HeapTy::Any,
                A::Eq => HeapTy::Eq,
                A::I31 => HeapTy::I31,
                A::Struct => HeapTy::Struct,
                A::Array => HeapTy::Array,
                A::None => HeapTy::None,
                A::Exn => HeapTy::Exn,
                A::NoExn => HeapTy::NoExn,
            },
        }
    }

    /// The same heap type with a concrete index mapped by `f`.
    pub fn map(self, f: impl FnOnce(u32) -> u32) -> HeapTy {
        match self {
            HeapTy::Concrete(i) => HeapTy::Concrete(f(i)),
            h => h,
        }
    }
}

/// A value or field type with everything type equivalence compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FullType {
    I32,
    I64,
    F32,
    F64,
    V128,
    /// Packed field types (struct fields and array elements only).
    I8,
    I16,
    Ref {
        nullable: bool,
        heap: HeapTy,
    },
}

impl FullType {
    pub(crate) fn of_val(t: wasmparser::ValType) -> FullType {
        match t {
            wasmparser::ValType::I32 => FullType::I32,
            wasmparser::ValType::I64 => FullType::I64,
            wasmparser::ValType::F32 => FullType::F32,
            wasmparser::ValType::F64 => FullType::F64,
            wasmparser::ValType::V128 => FullType::V128,
            wasmparser::ValType::Ref(r) => FullType::Ref {
                nullable: r.is_nullable(),
                heap: HeapTy::of(r.heap_type()),
            },
        }
    }

    fn of_storage(t: wasmparser::StorageType) -> FullType {
        match t {
            wasmparser::StorageType::I8 => FullType::I8,
            wasmparser::StorageType::I16 => FullType::I16,
            wasmparser::StorageType::Val(v) => FullType::of_val(v),
        }
    }

    /// The nullable reference to `heap`, or the numeric type of a
    /// [`ValType`] (for function types made by an embedder).
    pub fn of_valtype(t: ValType) -> FullType {
        match t {
            ValType::I32 => FullType::I32,
            ValType::I64 => FullType::I64,
            ValType::F32 => FullType::F32,
            ValType::F64 => FullType::F64,
            ValType::V128 => FullType::V128,
            ValType::FuncRef => FullType::Ref {
                nullable: true,
                heap: HeapTy::Func,
            },
            ValType::ExternRef => FullType::Ref {
                nullable: true,
                heap: HeapTy::Extern,
            },
            ValType::ExnRef => FullType::Ref {
                nullable: true,
                heap: HeapTy::Exn,
            },
        }
    }

    /// The same type with a concrete index mapped by `f`.
    pub fn map(self, f: impl FnOnce(u32) -> u32) -> FullType {
        match self {
            FullType::Ref { nullable, heap } => FullType::Ref {
                nullable,
                heap: heap.map(f),
            },
            t => t,
        }
    }

    /// Slots a value of this type takes in an object (packed types one).
    pub fn slots(self) -> usize {
        if self == FullType::V128 {
            2
        } else {
            1
        }
    }

    /// A reference the collector follows: any reference but a function
    /// reference (`is_func` tells whether a concrete type is a function type).
    pub fn is_gc_ref(self, is_func: impl Fn(u32) -> bool) -> bool {
        match self {
            FullType::Ref { heap, .. } => match heap {
                HeapTy::Func | HeapTy::NoFunc => false,
                HeapTy::Concrete(i) => !is_func(i),
                _ => true,
            },
            _ => false,
        }
    }
}

/// What a type defines.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CompKind {
    Func,
    Struct,
    Array,
}

/// One field (or a function's parameter or result).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub ty: FullType,
    pub mutable: bool,
}

/// One defined type: a function type (params then results in `fields`,
/// `num_params` of them params), a struct (its fields) or an array (one
/// field: the element).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubTy {
    pub kind: CompKind,
    pub fields: Box<[Field]>,
    pub num_params: u32,
    /// The declared supertype (a type index, or store type id).
    pub supertype: Option<u32>,
    pub is_final: bool,
}

impl SubTy {
    pub(crate) fn of(s: &wasmparser::SubType) -> SubTy {
        use wasmparser::CompositeInnerType as C;
        let field = |f: &wasmparser::FieldType| Field {
            ty: FullType::of_storage(f.element_type),
            mutable: f.mutable,
        };
        let (kind, fields, num_params) = match &s.composite_type.inner {
            C::Func(f) => {
                let fields = f
                    .params()
                    .iter()
                    .chain(f.results())
                    .map(|t| Field {
                        ty: FullType::of_val(*t),
                        mutable: false,
                    })
                    .collect();
                (CompKind::Func, fields, f.params().len() as u32)
            }
            C::Struct(st) => (CompKind::Struct, st.fields.iter().map(field).collect(), 0),
            C::Array(a) => (CompKind::Array, Box::from([field(&a.0)]), 0),
        };
        SubTy {
            kind,
            fields,
            num_params,
            supertype: s.supertype_idx.and_then(|i| i.as_module_index()),
            is_final: s.is_final,
        }
    }

    /// A final function type without supertype (an embedder's function type).
    pub fn of_func(t: &FuncType) -> SubTy {
        SubTy {
            kind: CompKind::Func,
            fields: t
                .params
                .iter()
                .chain(t.results.iter())
                .map(|v| Field {
                    ty: FullType::of_valtype(*v),
                    mutable: false,
                })
                .collect(),
            num_params: t.params.len() as u32,
            supertype: None,
            is_final: true,
        }
    }

    /// The same type with every type index (fields and supertype) mapped by `f`.
    pub fn map(&self, f: &impl Fn(u32) -> u32) -> SubTy {
        SubTy {
            kind: self.kind,
            fields: self
                .fields
                .iter()
                .map(|x| Field {
                    ty: x.ty.map(f),
                    mutable: x.mutable,
                })
                .collect(),
            num_params: self.num_params,
            supertype: self.supertype.map(f),
            is_final: self.is_final,
        }
    }
}

/// A module's types: every type in index order, and its rec groups
/// (`groups[k]` is the range of type indices of group `k`).
#[derive(Clone, Debug, Default)]
pub struct ModuleTypes {
    pub types: Vec<SubTy>,
    pub groups: Vec<std::ops::Range<u32>>,
}

impl ModuleTypes {
    /// Add one rec group from the type section.
    pub(crate) fn push_group(&mut self, rec: &wasmparser::RecGroup) {
        let start = self.types.len() as u32;
        for sub in rec.types() {
            self.types.push(SubTy::of(sub));
        }
        self.groups.push(start..self.types.len() as u32);
    }

    /// Whether module type `i` is a function type.
    pub fn is_func(&self, i: u32) -> bool {
        self.types
            .get(i as usize)
            .is_some_and(|t| t.kind == CompKind::Func)
    }

    /// The engine's representation of a reference type of this module.
    pub fn val_of_ref(&self, r: wasmparser::RefType) -> ValType {
        match HeapTy::of(r.heap_type()) {
            HeapTy::Func | HeapTy::NoFunc => ValType::FuncRef,
            HeapTy::Concrete(i) if self.is_func(i) => ValType::FuncRef,
            _ => ValType::ExternRef,
        }
    }

    /// The engine's representation of a value type of this module.
    pub fn val(&self, t: wasmparser::ValType) -> ValType {
        match t {
            wasmparser::ValType::Ref(r) => self.val_of_ref(r),
            t => ValType::from_wasmparser(t),
        }
    }
}

/// Heap subtyping, given each concrete type's kind and declared supertype
/// (module indices or store ids, as long as both closures agree).
pub fn heap_sub(
    a: HeapTy,
    b: HeapTy,
    kind: &impl Fn(u32) -> Option<CompKind>,
    sup: &impl Fn(u32) -> Option<u32>,
) -> bool {
    use HeapTy as H;
    let top = |i: u32| match kind(i) {
        Some(CompKind::Func) => H::Func,
        Some(CompKind::Struct) => H::Struct,
        _ => H::Array,
    };
    match (a, b) {
        (H::Concrete(mut x), H::Concrete(y)) => loop {
            if x == y {
                return true;
            }
            match sup(x) {
                Some(s) => x = s,
                None => return false,
            }
        },
        (H::Concrete(x), b) => heap_sub(top(x), b, kind, sup),
        (H::None, H::Concrete(y)) => kind(y) != Some(CompKind::Func),
        (H::NoFunc, H::Concrete(y)) => kind(y) == Some(CompKind::Func),
        (_, H::Concrete(_)) => false,
        (a, b) if a == b => true,
        (H::NoFunc, H::Func) | (H::NoExtern, H::Extern) | (H::NoExn, H::Exn) => true,
        (H::None, H::I31 | H::Struct | H::Array | H::Eq | H::Any) => true,
        (H::I31 | H::Struct | H::Array, H::Eq | H::Any) => true,
        (H::Eq, H::Any) => true,
        _ => false,
    }
}

/// A module's types with equivalent ones identified: `canon[i]` is the
/// first type index equivalent to `i` (same position in an identical rec
/// group).
struct Canon<'a> {
    types: &'a ModuleTypes,
    canon: Vec<u32>,
}

impl ModuleTypes {
    fn canon(&self) -> Canon<'_> {
        const LOCAL: u32 = 0x8000_0000;
        let mut seen: std::collections::HashMap<Vec<SubTy>, u32> = Default::default();
        let mut canon: Vec<u32> = Vec::with_capacity(self.types.len());
        for g in &self.groups {
            let map = |i: u32| {
                if g.contains(&i) {
                    LOCAL + (i - g.start)
                } else {
                    canon.get(i as usize).copied().unwrap_or(i)
                }
            };
            let key: Vec<SubTy> = self.types[g.start as usize..g.end as usize]
                .iter()
                .map(|t| t.map(&map))
                .collect();
            let first = *seen.entry(key).or_insert(g.start);
            canon.extend((0..g.len() as u32).map(|k| first + k));
        }
        Canon { types: self, canon }
    }
}

impl Canon<'_> {
    fn c(&self, i: u32) -> u32 {
        self.canon.get(i as usize).copied().unwrap_or(i)
    }

    fn heap_sub(&self, a: HeapTy, b: HeapTy) -> bool {
        let kind = |i: u32| self.types.types.get(i as usize).map(|t| t.kind);
        let sup = |i: u32| {
            self.types
                .types
                .get(i as usize)
                .and_then(|t| t.supertype)
                .map(|s| self.c(s))
        };
        heap_sub(a.map(|i| self.c(i)), b.map(|i| self.c(i)), &kind, &sup)
    }

    /// Value subtyping within this module (numeric types by equality).
    fn val_sub(&self, a: FullType, b: FullType) -> bool {
        match (a, b) {
            (
                FullType::Ref {
                    nullable: na,
                    heap: ha,
                },
                FullType::Ref {
                    nullable: nb,
                    heap: hb,
                },
            ) => (!na || nb) && self.heap_sub(ha, hb),
            (a, b) => a == b,
        }
    }

    /// Field `a` of a subtype against field `b` of its supertype: mutable
    /// fields are invariant, immutable ones covariant.
    fn field_sub(&self, a: Field, b: Field) -> bool {
        a.mutable == b.mutable
            && self.val_sub(a.ty, b.ty)
            && (!a.mutable || self.val_sub(b.ty, a.ty))
    }
}

impl ModuleTypes {
    /// Checks every declared supertype: not final, the same kind, and a
    /// matching definition (wasmparser 0.217 misses some of these).
    pub fn check_subtypes(&self) -> Result<(), String> {
        if self.types.iter().all(|t| t.supertype.is_none()) {
            return Ok(());
        }
        let c = self.canon();
        for (i, t) in self.types.iter().enumerate() {
            let Some(s) = t.supertype.and_then(|s| self.types.get(s as usize)) else {
                continue;
            };
            let ok = !s.is_final
                && s.kind == t.kind
                && match t.kind {
                    CompKind::Func => {
                        let np = t.num_params as usize;
                        t.num_params == s.num_params
                            && t.fields.len() == s.fields.len()
                            && t.fields[..np]
                                .iter()
                                .zip(&s.fields[..np])
                                .all(|(a, b)| c.val_sub(b.ty, a.ty))
                            && t.fields[np..]
                                .iter()
                                .zip(&s.fields[np..])
                                .all(|(a, b)| c.val_sub(a.ty, b.ty))
                    }
                    _ => {
                        t.fields.len() >= s.fields.len()
                            && t.fields
                                .iter()
                                .zip(s.fields.iter())
                                .all(|(a, b)| c.field_sub(*a, *b))
                    }
                };
            if !ok {
                return Err(format!("sub type {i} does not match its supertype"));
            }
        }
        Ok(())
    }
}
