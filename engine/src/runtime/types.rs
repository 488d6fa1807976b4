//! The store's types: every function, struct and array type any instance
//! (or an embedder's host function) uses, canonicalised per rec group
//! (iso-recursive equivalence: two modules defining the same group get the
//! same store type ids), with declared supertypes for subtype checks
//! (`call_indirect`, casts, import matching) and the object layout of each
//! struct and array type.

use std::collections::HashMap;

use crate::core::gc_types::{CompKind, HeapTy, SubTy};
use crate::core::module::ModuleInfo;
use crate::core::types::{FuncType, RefDetail, ValType};
use crate::runtime::gc::RefMap;

/// A type index inside the rec group being canonicalised (relative to the
/// group's start), as it appears in a group's key. Store ids stay below.
const REC_LOCAL: u32 = 0x8000_0000;

/// How objects of a struct or array type keep their values.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// First slot of each field (a struct's; an array's element is at 0).
    pub offsets: Box<[u32]>,
    /// Slots of one struct, or of one array element.
    pub slots: u32,
    /// Which slots of a struct are references the collector follows
    /// (an array's: `All` or `None` for its element type).
    pub refs: RefMap,
}

/// One store type: its definition with type indices as store ids.
#[derive(Clone, Debug)]
pub(crate) struct StoreType {
    pub sub: SubTy,
    pub layout: Layout,
}

/// The canonical types of a store.
#[derive(Default)]
pub(crate) struct TypeRegistry {
    groups: HashMap<Vec<SubTy>, u32>,
    pub types: Vec<StoreType>,
}

impl TypeRegistry {
    /// The key of module rec group `range` (its types with in-group
    /// indices relative, others as the store ids `ids` of earlier types);
    /// None if an earlier type has no id.
    fn key(
        m: &ModuleInfo,
        range: &std::ops::Range<u32>,
        ids: &[Option<u32>],
    ) -> Option<Vec<SubTy>> {
        let outside_ok = m.gc.types[range.start as usize..range.end as usize]
            .iter()
            .all(|t| {
                let ok = std::cell::Cell::new(true);
                let _ = t.map(&|i| {
                    if !range.contains(&i) && ids.get(i as usize).copied().flatten().is_none() {
                        ok.set(false);
                    }
                    i
                });
                ok.get()
            });
        if !outside_ok {
            return None;
        }
        let map = |i: u32| {
            if range.contains(&i) {
                REC_LOCAL + (i - range.start)
            } else {
                ids[i as usize].unwrap_or(u32::MAX)
            }
        };
        Some(
            m.gc.types[range.start as usize..range.end as usize]
                .iter()
                .map(|t| t.map(&map))
                .collect(),
        )
    }

    /// The store ids of a module's types, interning the groups not yet known.
    pub fn intern_module(&mut self, m: &ModuleInfo) -> Vec<u32> {
        let mut ids: Vec<Option<u32>> = Vec::with_capacity(m.gc.types.len());
        for range in &m.gc.groups {
            let key = Self::key(m, range, &ids).expect("earlier types are interned");
            let first = self.intern_group(key);
            ids.extend((0..range.len() as u32).map(|k| Some(first + k)));
        }
        ids.into_iter().map(|i| i.unwrap_or(u32::MAX)).collect()
    }

    /// The store ids a module's types have if the store knows them (a type
    /// the store has never seen: no value of the store has it).
    pub fn lookup_module(&self, m: &ModuleInfo) -> Vec<Option<u32>> {
        let mut ids: Vec<Option<u32>> = Vec::with_capacity(m.gc.types.len());
        for range in &m.gc.groups {
            let first = Self::key(m, range, &ids).and_then(|k| self.groups.get(&k).copied());
            ids.extend((0..range.len() as u32).map(|k| first.map(|f| f + k)));
        }
        ids
    }

    /// The store id of an embedder's function type (a final type alone in
    /// its group).
    pub fn intern_func(&mut self, t: &FuncType) -> u32 {
        self.intern_group(vec![SubTy::of_func(t)])
    }

    fn intern_group(&mut self, key: Vec<SubTy>) -> u32 {
        if let Some(&first) = self.groups.get(&key) {
            return first;
        }
        let first = self.types.len() as u32;
        let to_store = |i: u32| {
            if i >= REC_LOCAL {
                first + (i - REC_LOCAL)
            } else {
                i
            }
        };
        for t in &key {
            let sub = t.map(&to_store);
            self.types.push(StoreType {
                sub,
                layout: Layout {
                    offsets: Box::new([]),
                    slots: 0,
                    refs: RefMap::None,
                },
            });
        }
        for k in 0..key.len() {
            let id = first as usize + k;
            let layout = self.layout_of(&self.types[id].sub);
            self.types[id].layout = layout;
        }
        self.groups.insert(key, first);
        first
    }

    fn layout_of(&self, sub: &SubTy) -> Layout {
        let is_func = |i: u32| self.is_func(i);
        let mut offsets = Vec::with_capacity(sub.fields.len());
        let mut at = 0u32;
        for f in sub.fields.iter() {
            offsets.push(at);
            at += f.ty.slots() as u32;
        }
        let refs = match sub.kind {
            CompKind::Func => RefMap::None,
            CompKind::Array if sub.fields[0].ty.is_gc_ref(is_func) => RefMap::All,
            CompKind::Array => RefMap::None,
            CompKind::Struct => RefMap::from_flags(sub.fields.iter().flat_map(|f| {
                let r = f.ty.is_gc_ref(is_func);
                std::iter::repeat_n(r, f.ty.slots())
            })),
        };
        Layout {
            offsets: offsets.into(),
            slots: at,
            refs,
        }
    }

    pub fn is_func(&self, id: u32) -> bool {
        self.types
            .get(id as usize)
            .is_some_and(|t| t.sub.kind == CompKind::Func)
    }

    pub fn kind(&self, id: u32) -> Option<CompKind> {
        self.types.get(id as usize).map(|t| t.sub.kind)
    }

    /// Whether store type `a` is `b` or declares it as a (transitive) supertype.
    pub fn is_subtype(&self, mut a: u32, b: u32) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.types.get(a as usize).and_then(|t| t.sub.supertype) {
                Some(s) => a = s,
                None => return false,
            }
        }
    }

    /// Heap subtyping over store ids.
    pub fn heap_sub(&self, a: HeapTy, b: HeapTy) -> bool {
        let kind = |i: u32| self.kind(i);
        let sup = |i: u32| self.types.get(i as usize).and_then(|t| t.sub.supertype);
        crate::core::gc_types::heap_sub(a, b, &kind, &sup)
    }

    /// Whether a reference of type (`ty`, `have`) is one of (`ty`, `want`)
    /// (both in store ids).
    pub fn ref_matches(&self, ty: ValType, have: RefDetail, want: RefDetail) -> bool {
        (have.non_null || !want.non_null) && self.heap_sub(have.heap_of(ty), want.heap_of(ty))
    }

    /// Whether two reference types are the same (both in store ids).
    pub fn ref_equal(&self, ty: ValType, a: RefDetail, b: RefDetail) -> bool {
        a.non_null == b.non_null && a.heap_of(ty) == b.heap_of(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::module::{BodyCtx, BodyTranslator, Module};

    /// Modules without functions need no translator.
    struct NoBodies;
    impl BodyTranslator for NoBodies {
        fn body(
            &mut self,
            _: &BodyCtx<'_>,
            _: &mut crate::core::module::BodyValidator,
            _: &wasmparser::FunctionBody<'_>,
        ) -> Result<(), crate::core::error::LoadError> {
            unreachable!("no bodies")
        }
        fn finish(&mut self) -> Box<dyn std::any::Any> {
            Box::new(())
        }
    }

    fn module(wat: &str) -> Module {
        let bytes = wat::parse_str(wat).unwrap();
        Module::decode(
            &bytes,
            crate::core::module::supported_features(),
            &mut NoBodies,
        )
        .unwrap()
    }

    #[test]
    fn equal_rec_groups_of_two_modules_share_ids() {
        let mut reg = TypeRegistry::default();
        let a = module(
            "(module (rec (type $n (struct (field (ref null $n)))) (type (array i8)))
                     (type $s (sub (struct (field i32)))) (type (sub $s (struct (field i32 f64)))))",
        );
        // The same groups with other names, and one group that differs.
        let b = module(
            "(module (type (func)) (rec (type $m (struct (field (ref null $m)))) (type (array i8)))
                     (type $t (sub (struct (field i32)))) (type (sub $t (struct (field i32 f32)))))",
        );
        let ia = reg.intern_module(&a);
        let ib = reg.intern_module(&b);
        assert_eq!(ia[..3], ib[1..4]);
        assert_ne!(ia[3], ib[4]);
        // Subtyping follows declared supertypes only.
        assert!(reg.is_subtype(ia[3], ia[2]) && reg.is_subtype(ib[4], ia[2]));
        assert!(!reg.is_subtype(ia[2], ia[3]) && !reg.is_subtype(ia[0], ia[2]));
        // Layouts: the self-reference is a reference slot, the i8 array's is not.
        assert!(matches!(
            reg.types[ia[0] as usize].layout.refs,
            RefMap::Mask(_)
        ));
        assert!(matches!(
            reg.types[ia[1] as usize].layout.refs,
            RefMap::None
        ));
        assert_eq!(reg.types[ia[3] as usize].layout.slots, 2);
        // A module's types can be looked up without interning.
        assert_eq!(
            reg.lookup_module(&b),
            ib.iter().map(|i| Some(*i)).collect::<Vec<_>>()
        );
        let c = module("(module (type (struct (field i64))))");
        assert_eq!(reg.lookup_module(&c), vec![None]);
    }

    #[test]
    fn abstract_heap_subtyping() {
        use HeapTy as H;
        let reg = TypeRegistry::default();
        for (a, b) in [
            (H::None, H::Eq),
            (H::I31, H::Any),
            (H::Struct, H::Eq),
            (H::NoFunc, H::Func),
            (H::NoExtern, H::Extern),
            (H::NoExn, H::Exn),
        ] {
            assert!(reg.heap_sub(a, b), "{a:?} <: {b:?}");
            assert!(!reg.heap_sub(b, a), "not {b:?} <: {a:?}");
        }
        assert!(!reg.heap_sub(H::Extern, H::Any) && !reg.heap_sub(H::Func, H::Any));
    }
}
