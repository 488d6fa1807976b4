//! Making and reading GC objects of the store's struct and array types
//! (shared by the interpreter's GC ops and constant expressions): field
//! values are slots, packed (`i8`, `i16`) fields keep their low bits.

use crate::core::error::{Trap, TrapKind};
use crate::core::gc_types::FullType;
use crate::core::module::ConstOp;
use crate::runtime::gc::{Object, ObjectKind, RefMap};
use crate::runtime::store::Store;

/// Largest array (in slots) the engine allocates; a longer `array.new`
/// traps as out of memory would.
const MAX_ARRAY_SLOTS: u64 = 1 << 28;

/// A value stored in a field of type `t`: packed types keep their bits.
pub(crate) fn pack(t: FullType, v: u64) -> u64 {
    match t {
        FullType::I8 => v & 0xff,
        FullType::I16 => v & 0xffff,
        _ => v,
    }
}

/// A packed field's value as an i32: sign- or zero-extended.
pub(crate) fn unpack(t: FullType, v: u64, signed: bool) -> u64 {
    match (t, signed) {
        (FullType::I8, true) => v as u8 as i8 as i32 as u32 as u64,
        (FullType::I16, true) => v as u16 as i16 as i32 as u32 as u64,
        _ => v,
    }
}

impl Store {
    /// A struct of store type `ty` with its fields' slots (in layout order).
    pub(crate) fn new_struct(&mut self, ty: u32, slots: Vec<u64>) -> u64 {
        let st = &self.types.types[ty as usize];
        let refs = st.layout.refs.clone();
        let mut slots = slots;
        let mut at = 0;
        for f in st.sub.fields.iter() {
            slots[at] = pack(f.ty, slots[at]);
            at += f.ty.slots();
        }
        self.heap.alloc(Object {
            kind: ObjectKind::Struct,
            ty,
            slots: slots.into(),
            refs,
            bytes: Box::new([]),
        })
    }

    /// An array of store type `ty`: `len` elements, each `elem` (its slots).
    pub(crate) fn new_array_fill(&mut self, ty: u32, len: u64, elem: &[u64]) -> Result<u64, Trap> {
        let per = elem.len() as u64;
        let slots = len.saturating_mul(per.max(1));
        let heap_after = (self.heap.stats().live_bytes).saturating_add(slots.saturating_mul(8));
        if slots > MAX_ARRAY_SLOTS || heap_after > self.config.max_gc_heap_bytes {
            return Err(Trap::new(TrapKind::OutOfMemory));
        }
        let t = self.elem_type(ty);
        let elem: Vec<u64> = elem.iter().map(|v| pack(t, *v)).collect();
        let slots: Vec<u64> = elem
            .iter()
            .copied()
            .cycle()
            .take((len * per) as usize)
            .collect();
        Ok(self.new_array(ty, slots))
    }

    /// An array of store type `ty` with its elements' slots.
    pub(crate) fn new_array(&mut self, ty: u32, slots: Vec<u64>) -> u64 {
        let t = self.elem_type(ty);
        let slots: Vec<u64> = slots.into_iter().map(|v| pack(t, v)).collect();
        let refs = match self.types.types[ty as usize].layout.refs {
            RefMap::All => RefMap::All,
            _ => RefMap::None,
        };
        self.heap.alloc(Object {
            kind: ObjectKind::Array,
            ty,
            slots: slots.into(),
            refs,
            bytes: Box::new([]),
        })
    }

    /// The element type of array type `ty`.
    pub(crate) fn elem_type(&self, ty: u32) -> FullType {
        self.types.types[ty as usize].sub.fields[0].ty
    }

    /// Slots of each field of store type `ty` (a struct's fields, an
    /// array's element), with their types.
    pub(crate) fn field_types(&self, ty: u32) -> Vec<FullType> {
        self.types.types[ty as usize]
            .sub
            .fields
            .iter()
            .map(|f| f.ty)
            .collect()
    }

    /// A GC operation of a constant expression (`type_ids`: the instance's
    /// store type ids): pops its operands from `st`, returns the reference.
    pub(crate) fn eval_gc_const(
        &mut self,
        type_ids: &[u32],
        op: &ConstOp,
        st: &mut Vec<u128>,
    ) -> Result<u64, Trap> {
        let pop_slots = |st: &mut Vec<u128>, tys: &[FullType]| -> Vec<u64> {
            let vals: Vec<u128> = st.split_off(st.len().saturating_sub(tys.len()));
            let mut out = Vec::new();
            for (t, v) in tys.iter().zip(vals) {
                out.push(v as u64);
                if t.slots() == 2 {
                    out.push((v >> 64) as u64);
                }
            }
            out
        };
        Ok(match *op {
            ConstOp::StructNew(t) | ConstOp::StructNewDefault(t) => {
                let id = type_ids[t as usize];
                let tys = self.field_types(id);
                let slots = if matches!(op, ConstOp::StructNew(_)) {
                    pop_slots(st, &tys)
                } else {
                    vec![0; self.types.types[id as usize].layout.slots as usize]
                };
                self.new_struct(id, slots)
            }
            ConstOp::ArrayNew(t) | ConstOp::ArrayNewDefault(t) => {
                let id = type_ids[t as usize];
                let len = st.pop().unwrap_or(0) as u32 as u64;
                let et = self.elem_type(id);
                let elem = if matches!(op, ConstOp::ArrayNew(_)) {
                    pop_slots(st, &[et])
                } else {
                    vec![0; et.slots()]
                };
                self.new_array_fill(id, len, &elem)?
            }
            ConstOp::ArrayNewFixed(t, n) => {
                let id = type_ids[t as usize];
                let et = self.elem_type(id);
                let tys = vec![et; n as usize];
                let slots = pop_slots(st, &tys);
                self.new_array(id, slots)
            }
            ConstOp::RefI31 => crate::core::refs::i31(st.pop().unwrap_or(0) as u32),
            _ => 0,
        })
    }
}
