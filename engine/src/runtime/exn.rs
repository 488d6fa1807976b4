//! Exception handling's store entities: tags (declared by modules, imported
//! and exported like globals) and exception objects (a tag and its payload),
//! which `exnref` values name.
//!
//! Exception objects live in the store's GC heap ([`crate::runtime::gc`]) as
//! [`ObjectKind::Exception`] objects: the tag's store address and the
//! payload's slots, references among them traced. An `exnref` slot is 0 for
//! null, else the object's slot ([`crate::core::refs::object`]: low two bits
//! 00).

use crate::core::types::{FuncType, TagAddr, ValType};
use crate::runtime::gc::{Heap, Object, ObjectKind, RefMap};

/// A tag: the function type of its payload (no results) and the type's
/// identity across modules (its recursion group and position), which an
/// import must match exactly.
#[derive(Clone, Debug)]
pub struct TagInst {
    pub ty: FuncType,
    pub(crate) identity: (Vec<FuncType>, u32),
}

/// A new exception of tag `tag` (of type `ty`) with `payload` (the params'
/// slots); its slot.
pub(crate) fn alloc(heap: &mut Heap, tag: TagAddr, ty: &FuncType, payload: &[u64]) -> u64 {
    let flags = ty.params.iter().flat_map(|t| {
        let traced = t.is_ref() && *t != ValType::FuncRef;
        std::iter::repeat_n(traced, t.slots())
    });
    heap.alloc(Object {
        kind: ObjectKind::Exception,
        ty: tag.0,
        slots: payload.into(),
        refs: RefMap::from_flags(flags),
        bytes: Box::new([]),
    })
}

/// The tag and payload of the exception `slot` names (None for null or
/// anything else).
pub(crate) fn get(heap: &Heap, slot: u64) -> Option<(TagAddr, &[u64])> {
    let o = heap.get(slot)?;
    (o.kind == ObjectKind::Exception).then(|| (TagAddr(o.ty), &o.slots[..]))
}
