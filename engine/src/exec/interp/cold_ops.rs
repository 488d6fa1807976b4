//! The interpreter's ops on memories, tables and segments other than loads
//! and stores: memory.size/grow, bulk memory and table ops, table access,
//! ref.func, ref.as_non_null, data.drop and elem.drop. `hot::run` hands them to `exec.rs`.

use super::code::Op;
use super::exec::Interp;
use crate::core::error::{Trap, TrapKind};
use crate::runtime::store::Store;

impl Interp<'_> {
    /// Executes `op`, one of the ops of this file.
    #[inline(never)]
    pub(super) fn store_op(&mut self, op: Op) -> Result<(), Trap> {
        let inst = self.inst;
        match op {
            Op::MemorySize(mi) => {
                let ma = self.store.instances[inst].memories[mi as usize].0 as usize;
                let pages = self.store.memories[ma].pages();
                self.push(pages)
            }
            Op::MemoryGrow(mi) => {
                let ma = self.store.instances[inst].memories[mi as usize].0 as usize;
                let d = self.rd(self.sp - 1);
                let m = &mut self.store.memories[ma];
                // A 64-bit memory takes and returns an i64.
                let r = if m.ty.index64 {
                    m.grow(d) as u64
                } else {
                    m.grow(d as u32 as u64) as i32 as u32 as u64
                };
                self.wr(self.sp - 1, r);
                self.refresh_mem();
            }
            Op::MemoryFill(mi) => {
                let w = self.mem64(mi);
                self.bulk(|s, d, v, n| s.memory_fill(inst, mi, idx(d, w), v as u8, idx(n, w)))?
            }
            Op::MemoryCopy { dst, src } => {
                let (dw, sw) = (self.mem64(dst), self.mem64(src));
                // The length has the smaller of the two index types.
                self.bulk(|s, d, x, n| {
                    s.memory_copy(inst, dst, src, idx(d, dw), idx(x, sw), idx(n, dw && sw))
                })?
            }
            Op::MemoryInit { data, mem } => {
                let w = self.mem64(mem);
                self.bulk(|s, d, x, n| {
                    s.memory_init(inst, mem, data, idx(d, w), x as u32, n as u32)
                })?
            }
            Op::DataDrop(i) => self.store.data_drop(inst, i),
            Op::RefFunc(f) => {
                let r = self.store.instances[inst].funcs[f as usize].0 as u64 + 1;
                self.push(r)
            }
            Op::TableGet(t) => {
                let ta = self.store.instances[inst].tables[t as usize].0 as usize;
                let i = idx(self.rd(self.sp - 1), self.table64(t)) as usize;
                match self.store.tables[ta].elems.get(i) {
                    Some(&v) => self.wr(self.sp - 1, v),
                    None => return Err(self.trap(TrapKind::TableOutOfBounds)),
                }
            }
            Op::TableSet(t) => {
                let v = self.pop();
                let i = idx(self.pop(), self.table64(t)) as usize;
                let ta = self.store.instances[inst].tables[t as usize].0 as usize;
                match self.store.tables[ta].elems.get_mut(i) {
                    Some(e) => *e = v,
                    None => return Err(self.trap(TrapKind::TableOutOfBounds)),
                }
            }
            Op::TableSize(t) => {
                let ta = self.store.instances[inst].tables[t as usize].0 as usize;
                let len = self.store.tables[ta].elems.len() as u64;
                self.push(len)
            }
            Op::TableGrow(t) => {
                let w = self.table64(t);
                let n = idx(self.pop(), w);
                let init = self.pop();
                let ta = self.store.instances[inst].tables[t as usize].0 as usize;
                let r = self.store.tables[ta].grow(n, init);
                // A 64-bit table returns an i64.
                self.push(if w { r as u64 } else { r as i32 as u32 as u64 })
            }
            Op::TableFill(t) => {
                let w = self.table64(t);
                self.bulk(|s, i, v, n| s.table_fill(inst, t, idx(i, w), v, idx(n, w)))?
            }
            Op::TableCopy { dst, src } => {
                let (dw, sw) = (self.table64(dst), self.table64(src));
                self.bulk(|s, d, x, n| {
                    s.table_copy(inst, dst, src, idx(d, dw), idx(x, sw), idx(n, dw && sw))
                })?
            }
            Op::TableInit { elem, table } => {
                let w = self.table64(table);
                self.bulk(|s, d, x, n| {
                    s.table_init(inst, table, elem, idx(d, w), x as u32, n as u32)
                })?
            }
            Op::ElemDrop(e) => self.store.elem_drop(inst, e),
            Op::RefAsNonNull => {
                if self.rd(self.sp - 1) == 0 {
                    return Err(self.trap(TrapKind::NullReference));
                }
            }
            _ => unreachable!("hot op {op:?} returned as cold"),
        }
        Ok(())
    }

    /// Whether memory `mi` of the running instance is a 64-bit memory.
    fn mem64(&self, mi: u32) -> bool {
        let ma = self.store.instances[self.inst].memories[mi as usize].0 as usize;
        self.store.memories[ma].ty.index64
    }

    /// Whether table `t` of the running instance is a 64-bit table.
    fn table64(&self, t: u32) -> bool {
        let ta = self.store.instances[self.inst].tables[t as usize].0 as usize;
        self.store.tables[ta].ty.index64
    }

    /// A bulk memory or table op: pops `(d, x, n)` as raw slots (the caller narrows
    /// them to their index types with [`idx`]), runs `f` and traps with its error.
    #[inline(always)]
    fn bulk(
        &mut self,
        f: impl FnOnce(&mut Store, u64, u64, u64) -> Result<(), TrapKind>,
    ) -> Result<(), Trap> {
        let n = self.pop();
        let x = self.pop();
        let d = self.pop();
        f(self.store, d, x, n).map_err(|k| self.trap(k))
    }
}

/// An address, index or length operand of a memory or table op: an i64 for
/// a 64-bit memory or table (`wide`), else an i32.
#[inline(always)]
fn idx(v: u64, wide: bool) -> u64 {
    if wide {
        v
    } else {
        v as u32 as u64
    }
}
