//! Exception handling's store entities: tags (declared by modules, imported
//! and exported like globals) and exception objects (a tag and its payload),
//! which `exnref` values name by handle.
//!
//! Exception objects live in a small arena behind a narrow interface
//! ([`Exceptions::alloc`], [`Exceptions::get`]): a handle is `(index + 1) << 2`
//! (nonzero, low two bits 00, the encoding of the GC heap's object handles),
//! so an `exnref` slot is 0 for null and the handle otherwise. Nothing is
//! freed: objects live as long as the store (no collector here).

use crate::core::types::{FuncType, TagAddr};

/// A tag: the function type of its payload (no results) and the type's
/// identity across modules (its recursion group and position), which an
/// import must match exactly.
#[derive(Clone, Debug)]
pub struct TagInst {
    pub ty: FuncType,
    pub(crate) identity: (Vec<FuncType>, u32),
}

/// A thrown exception: its tag and the payload's slots (the tag type's
/// params, in the value stack's layout).
#[derive(Clone, Debug)]
pub struct ExnObject {
    pub tag: TagAddr,
    pub payload: Box<[u64]>,
}

/// The store's exception objects.
#[derive(Default)]
pub struct Exceptions {
    objects: Vec<ExnObject>,
}

impl Exceptions {
    /// A new exception object; returns its handle.
    pub fn alloc(&mut self, tag: TagAddr, payload: &[u64]) -> u32 {
        self.objects.push(ExnObject {
            tag,
            payload: payload.into(),
        });
        (self.objects.len() as u32) << 2
    }

    /// The object of `handle` (None for 0 or a handle this store never made).
    pub fn get(&self, handle: u32) -> Option<&ExnObject> {
        if handle & 3 != 0 {
            return None;
        }
        self.objects.get((handle >> 2).checked_sub(1)? as usize)
    }
}
