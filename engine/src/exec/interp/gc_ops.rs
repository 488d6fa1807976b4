//! Wasm GC instructions in the interpreter (all cold ops, run from
//! `exec.rs`): struct and array allocation and access, `i31`, `ref.eq`,
//! type tests and casts. Objects live in the store's heap
//! (`runtime::gc`); references are slots as `core::refs` encodes them.
//! Every allocating op calls `maybe_collect` before popping its operands.

use super::code::{Cast, Op};
use super::exec::Interp;
use crate::core::error::{Trap, TrapKind};
use crate::core::gc_types::FullType;
use crate::core::refs;
use crate::runtime::gc::objects::unpack;

/// The op of a GC instruction that is one op of its own (casts and the
/// conversions are translated in `compile.rs`).
pub(super) fn gc_op(op: &wasmparser::Operator<'_>) -> Option<Op> {
    use wasmparser::Operator as W;
    Some(match *op {
        W::StructNew { struct_type_index } => Op::StructNew(struct_type_index),
        W::StructNewDefault { struct_type_index } => Op::StructNewDefault(struct_type_index),
        W::StructGet {
            struct_type_index: ty,
            field_index: field,
        } => Op::StructGet { ty, field, ext: 0 },
        W::StructGetS {
            struct_type_index: ty,
            field_index: field,
        } => Op::StructGet { ty, field, ext: 1 },
        W::StructGetU {
            struct_type_index: ty,
            field_index: field,
        } => Op::StructGet { ty, field, ext: 2 },
        W::StructSet {
            struct_type_index: ty,
            field_index: field,
        } => Op::StructSet { ty, field },
        W::ArrayNew { array_type_index } => Op::ArrayNew(array_type_index),
        W::ArrayNewDefault { array_type_index } => Op::ArrayNewDefault(array_type_index),
        W::ArrayNewFixed {
            array_type_index: ty,
            array_size: n,
        } => Op::ArrayNewFixed { ty, n },
        W::ArrayNewData {
            array_type_index: ty,
            array_data_index: data,
        } => Op::ArrayNewData { ty, data },
        W::ArrayNewElem {
            array_type_index: ty,
            array_elem_index: elem,
        } => Op::ArrayNewElem { ty, elem },
        W::ArrayGet {
            array_type_index: ty,
        } => Op::ArrayGet { ty, ext: 0 },
        W::ArrayGetS {
            array_type_index: ty,
        } => Op::ArrayGet { ty, ext: 1 },
        W::ArrayGetU {
            array_type_index: ty,
        } => Op::ArrayGet { ty, ext: 2 },
        W::ArraySet { array_type_index } => Op::ArraySet(array_type_index),
        W::ArrayLen => Op::ArrayLen,
        W::ArrayFill { array_type_index } => Op::ArrayFill(array_type_index),
        W::ArrayCopy {
            array_type_index_dst: dst,
            array_type_index_src: src,
        } => Op::ArrayCopy { dst, src },
        W::ArrayInitData {
            array_type_index: ty,
            array_data_index: data,
        } => Op::ArrayInitData { ty, data },
        W::ArrayInitElem {
            array_type_index: ty,
            array_elem_index: elem,
        } => Op::ArrayInitElem { ty, elem },
        W::RefI31 => Op::RefI31,
        W::I31GetS => Op::I31GetS,
        W::I31GetU => Op::I31GetU,
        W::RefEq => Op::RefEq,
        _ => return None,
    })
}

/// Bytes a packed or numeric element takes in a data segment.
fn data_size(t: FullType) -> u64 {
    match t {
        FullType::I8 => 1,
        FullType::I16 => 2,
        FullType::I32 | FullType::F32 => 4,
        FullType::V128 => 16,
        _ => 8,
    }
}

/// The slots of one element of type `t` read from little-endian `b`.
fn from_bytes(t: FullType, b: &[u8]) -> [u64; 2] {
    let mut x = [0u8; 16];
    x[..b.len()].copy_from_slice(b);
    let v = u128::from_le_bytes(x);
    [
        v as u64,
        if t == FullType::V128 {
            (v >> 64) as u64
        } else {
            0
        },
    ]
}

impl Interp<'_> {
    /// Executes a GC op.
    #[inline(never)]
    pub(super) fn gc_op(&mut self, op: Op) -> Result<(), Trap> {
        match op {
            Op::StructNew(t) | Op::StructNewDefault(t) => self.struct_new(t, op),
            Op::StructGet { ty, field, ext } => self.struct_get(ty, field, ext),
            Op::StructSet { ty, field } => self.struct_set(ty, field),
            Op::ArrayNew(t) | Op::ArrayNewDefault(t) => self.array_new(t, op),
            Op::ArrayNewFixed { ty, n } => {
                self.maybe_collect();
                let id = self.type_id(ty);
                let per = self.store.elem_type(id).slots();
                let n = n as usize * per;
                let slots = self.pop_slots(n);
                let r = self.store.new_array(id, slots);
                self.push(r);
                Ok(())
            }
            Op::ArrayNewData { ty, data } => self.array_new_data(ty, data),
            Op::ArrayNewElem { ty, elem } => self.array_new_elem(ty, elem),
            Op::ArrayGet { ty, ext } => self.array_get(ty, ext),
            Op::ArraySet(ty) => self.array_set(ty),
            Op::ArrayLen => {
                let r = self.pop();
                let len = self.array_len(r)?;
                self.push(len as u64);
                Ok(())
            }
            Op::ArrayFill(ty) => self.array_fill(ty),
            Op::ArrayCopy { dst, src } => self.array_copy(dst, src),
            Op::ArrayInitData { ty, data } => self.array_init_data(ty, data),
            Op::ArrayInitElem { ty, elem } => self.array_init_elem(ty, elem),
            Op::RefI31 => {
                let v = self.pop() as u32;
                self.push(refs::i31(v));
                Ok(())
            }
            Op::I31GetS | Op::I31GetU => {
                let r = self.pop();
                let v = refs::as_i31(r).ok_or_else(|| self.trap(TrapKind::NullI31Reference))?;
                let v = if op == Op::I31GetS {
                    ((v << 1) as i32 >> 1) as u32
                } else {
                    v
                };
                self.push(v as u64);
                Ok(())
            }
            Op::RefEq => {
                let b = self.pop();
                let a = self.pop();
                self.push((a == b) as u64);
                Ok(())
            }
            Op::RefTest(k) => {
                let r = self.pop();
                let c = self.code.casts[k as usize];
                let ok = self.ref_is(r, c);
                self.push(ok as u64);
                Ok(())
            }
            Op::RefCast(k) => {
                let r = self.rd(self.sp - 1);
                let c = self.code.casts[k as usize];
                if self.ref_is(r, c) {
                    Ok(())
                } else {
                    Err(self.trap(TrapKind::CastFailure))
                }
            }
            Op::CastTest(k) => {
                let r = self.rd(self.sp - 1);
                let c = self.code.casts[k as usize];
                let ok = self.ref_is(r, c) != c.on_fail;
                self.push(ok as u64);
                Ok(())
            }
            _ => unreachable!("not a GC op: {op:?}"),
        }
    }

    /// The store type id of module type `ty` of the running instance.
    fn type_id(&self, ty: u32) -> u32 {
        self.store.instances[self.inst].type_ids[ty as usize]
    }

    /// Pops the top `n` slots, in stack order.
    fn pop_slots(&mut self, n: usize) -> Vec<u64> {
        let v = self.slots(self.sp - n, n).to_vec();
        self.sp -= n;
        v
    }

    /// Whether reference `r` is of the cast's target type.
    fn ref_is(&self, r: u64, c: Cast) -> bool {
        let type_ids = &self.store.instances[self.inst].type_ids;
        self.store.slot_is(r, c.nullable, c.heap, type_ids)
    }

    fn struct_new(&mut self, ty: u32, op: Op) -> Result<(), Trap> {
        self.maybe_collect();
        let id = self.type_id(ty);
        let n = self.store.types.types[id as usize].layout.slots as usize;
        let slots = if matches!(op, Op::StructNew(_)) {
            self.pop_slots(n)
        } else {
            vec![0; n]
        };
        let r = self.store.new_struct(id, slots);
        self.push(r);
        Ok(())
    }

    /// Field `field` of struct type `ty`: its first slot and type.
    fn field(&self, ty: u32, field: u32) -> (usize, FullType) {
        let st = &self.store.types.types[self.type_id(ty) as usize];
        (
            st.layout.offsets[field as usize] as usize,
            st.sub.fields[field as usize].ty,
        )
    }

    fn struct_get(&mut self, ty: u32, field: u32, ext: u32) -> Result<(), Trap> {
        let (at, ft) = self.field(ty, field);
        let r = self.pop();
        let Some(obj) = self.store.heap.get(r) else {
            return Err(self.trap(TrapKind::NullStructReference));
        };
        let (lo, hi) = (obj.slots[at], obj.slots.get(at + 1).copied().unwrap_or(0));
        self.push(unpack(ft, lo, ext == 1));
        if ft.slots() == 2 {
            self.push(hi);
        }
        Ok(())
    }

    fn struct_set(&mut self, ty: u32, field: u32) -> Result<(), Trap> {
        let (at, ft) = self.field(ty, field);
        let v = self.pop_slots(ft.slots());
        let r = self.pop();
        let Some(obj) = self.store.heap.get_mut(r) else {
            return Err(self.trap(TrapKind::NullStructReference));
        };
        obj.slots[at] = crate::runtime::gc::objects::pack(ft, v[0]);
        if ft.slots() == 2 {
            obj.slots[at + 1] = v[1];
        }
        Ok(())
    }

    fn array_new(&mut self, ty: u32, op: Op) -> Result<(), Trap> {
        self.maybe_collect();
        let id = self.type_id(ty);
        let per = self.store.elem_type(id).slots();
        let len = self.pop() as u32 as u64;
        let elem = if matches!(op, Op::ArrayNew(_)) {
            self.pop_slots(per)
        } else {
            vec![0; per]
        };
        let r = self
            .store
            .new_array_fill(id, len, &elem)
            .map_err(|t| self.trap(t.kind))?;
        self.push(r);
        Ok(())
    }

    /// Element type of array type `ty` and its slots per element.
    fn elem(&self, ty: u32) -> (FullType, usize) {
        let t = self.store.elem_type(self.type_id(ty));
        (t, t.slots())
    }

    /// Length of the array `r` names (trap on null).
    fn array_len(&self, r: u64) -> Result<u32, Trap> {
        let Some(obj) = self.store.heap.get(r) else {
            return Err(self.trap(TrapKind::NullArrayReference));
        };
        let per = self.store.elem_type(obj.ty).slots();
        Ok((obj.slots.len() / per) as u32)
    }

    /// Checks that `[start, start + n)` is within array `r` (null traps).
    fn array_range(&self, r: u64, start: u32, n: u32) -> Result<(), Trap> {
        let len = self.array_len(r)?;
        if start as u64 + n as u64 > len as u64 {
            return Err(self.trap(TrapKind::ArrayOutOfBounds));
        }
        Ok(())
    }

    fn array_get(&mut self, ty: u32, ext: u32) -> Result<(), Trap> {
        let (t, per) = self.elem(ty);
        let i = self.pop() as u32;
        let r = self.pop();
        self.array_range(r, i, 1)?;
        let obj = self.store.heap.get(r).expect("checked");
        let at = i as usize * per;
        let (lo, hi) = (obj.slots[at], obj.slots.get(at + 1).copied().unwrap_or(0));
        self.push(unpack(t, lo, ext == 1));
        if per == 2 {
            self.push(hi);
        }
        Ok(())
    }

    fn array_set(&mut self, ty: u32) -> Result<(), Trap> {
        let (t, per) = self.elem(ty);
        let v = self.pop_slots(per);
        let i = self.pop() as u32;
        let r = self.pop();
        self.array_range(r, i, 1)?;
        let obj = self.store.heap.get_mut(r).expect("checked");
        let at = i as usize * per;
        obj.slots[at] = crate::runtime::gc::objects::pack(t, v[0]);
        if per == 2 {
            obj.slots[at + 1] = v[1];
        }
        Ok(())
    }

    fn array_fill(&mut self, ty: u32) -> Result<(), Trap> {
        let (t, per) = self.elem(ty);
        let n = self.pop() as u32;
        let mut v = self.pop_slots(per);
        v[0] = crate::runtime::gc::objects::pack(t, v[0]);
        let d = self.pop() as u32;
        let r = self.pop();
        self.array_range(r, d, n)?;
        let obj = self.store.heap.get_mut(r).expect("checked");
        for k in 0..n as usize {
            let at = (d as usize + k) * per;
            obj.slots[at..at + per].copy_from_slice(&v);
        }
        Ok(())
    }

    fn array_copy(&mut self, dst: u32, _src: u32) -> Result<(), Trap> {
        let (_, per) = self.elem(dst);
        let n = self.pop() as u32;
        let s = self.pop() as u32;
        let sr = self.pop();
        let d = self.pop() as u32;
        let dr = self.pop();
        if dr == 0 || sr == 0 {
            return Err(self.trap(TrapKind::NullArrayReference));
        }
        self.array_range(dr, d, n)?;
        self.array_range(sr, s, n)?;
        let (s, d, n) = (s as usize * per, d as usize * per, n as usize * per);
        if dr == sr {
            let obj = self.store.heap.get_mut(dr).expect("checked");
            obj.slots.copy_within(s..s + n, d);
        } else {
            let from = self.store.heap.get(sr).expect("checked").slots[s..s + n].to_vec();
            let obj = self.store.heap.get_mut(dr).expect("checked");
            obj.slots[d..d + n].copy_from_slice(&from);
        }
        Ok(())
    }

    /// Elements `[s, s + n)` of data segment `data` as slots for element
    /// type `t` (out of bounds of the segment traps).
    fn data_elems(&self, t: FullType, data: u32, s: u32, n: u32) -> Result<Vec<u64>, Trap> {
        let inst = &self.store.instances[self.inst];
        let seg = &inst.module.datas[data as usize];
        let bytes: &[u8] = if inst.data_dropped[data as usize] {
            &[]
        } else {
            &inst.module.bytes[seg.range.clone()]
        };
        let size = data_size(t);
        let end = s as u64 + n as u64 * size;
        if end > bytes.len() as u64 {
            return Err(self.trap(TrapKind::MemoryOutOfBounds));
        }
        let mut out = Vec::with_capacity(n as usize * t.slots());
        for k in 0..n as u64 {
            let at = (s as u64 + k * size) as usize;
            let v = from_bytes(t, &bytes[at..at + size as usize]);
            out.extend_from_slice(&v[..t.slots()]);
        }
        Ok(out)
    }

    /// Items `[s, s + n)` of element segment `elem` (out of bounds traps).
    fn elem_items(&self, elem: u32, s: u32, n: u32) -> Result<Vec<u64>, Trap> {
        let items = &self.store.instances[self.inst].elems[elem as usize];
        if s as u64 + n as u64 > items.len() as u64 {
            return Err(self.trap(TrapKind::TableOutOfBounds));
        }
        Ok(items[s as usize..(s + n) as usize].to_vec())
    }

    fn array_new_data(&mut self, ty: u32, data: u32) -> Result<(), Trap> {
        self.maybe_collect();
        let (t, _) = self.elem(ty);
        let n = self.pop() as u32;
        let s = self.pop() as u32;
        let slots = self.data_elems(t, data, s, n)?;
        let r = self.store.new_array(self.type_id(ty), slots);
        self.push(r);
        Ok(())
    }

    fn array_new_elem(&mut self, ty: u32, elem: u32) -> Result<(), Trap> {
        self.maybe_collect();
        let n = self.pop() as u32;
        let s = self.pop() as u32;
        let slots = self.elem_items(elem, s, n)?;
        let r = self.store.new_array(self.type_id(ty), slots);
        self.push(r);
        Ok(())
    }

    fn array_init_data(&mut self, ty: u32, data: u32) -> Result<(), Trap> {
        let (t, per) = self.elem(ty);
        let n = self.pop() as u32;
        let s = self.pop() as u32;
        let d = self.pop() as u32;
        let r = self.pop();
        self.array_range(r, d, n)?;
        let slots = self.data_elems(t, data, s, n)?;
        let obj = self.store.heap.get_mut(r).expect("checked");
        let at = d as usize * per;
        obj.slots[at..at + slots.len()].copy_from_slice(&slots);
        Ok(())
    }

    fn array_init_elem(&mut self, _ty: u32, elem: u32) -> Result<(), Trap> {
        let n = self.pop() as u32;
        let s = self.pop() as u32;
        let d = self.pop() as u32;
        let r = self.pop();
        self.array_range(r, d, n)?;
        let slots = self.elem_items(elem, s, n)?;
        let obj = self.store.heap.get_mut(r).expect("checked");
        obj.slots[d as usize..d as usize + slots.len()].copy_from_slice(&slots);
        Ok(())
    }
}
