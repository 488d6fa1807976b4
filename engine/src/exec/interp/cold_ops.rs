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
                let d = self.rd(self.sp - 1) as u32 as u64;
                let r = self.store.memories[ma].grow(d) as i32 as u32 as u64;
                self.wr(self.sp - 1, r);
                self.refresh_mem();
            }
            Op::MemoryFill(mi) => self.bulk(|s, d, v, n| s.memory_fill(inst, mi, d, v as u8, n))?,
            Op::MemoryCopy { dst, src } => {
                self.bulk(|s, d, x, n| s.memory_copy(inst, dst, src, d, x as u32, n))?
            }
            Op::MemoryInit { data, mem } => {
                self.bulk(|s, d, x, n| s.memory_init(inst, mem, data, d, x as u32, n))?
            }
            Op::DataDrop(i) => self.store.data_drop(inst, i),
            Op::RefFunc(f) => {
                let r = self.store.instances[inst].funcs[f as usize].0 as u64 + 1;
                self.push(r)
            }
            Op::TableGet(t) => {
                let ta = self.store.instances[inst].tables[t as usize].0 as usize;
                let i = self.rd(self.sp - 1) as u32 as usize;
                match self.store.tables[ta].elems.get(i) {
                    Some(&v) => self.wr(self.sp - 1, v),
                    None => return Err(self.trap(TrapKind::TableOutOfBounds)),
                }
            }
            Op::TableSet(t) => {
                let v = self.pop();
                let i = self.pop() as u32 as usize;
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
                let n = self.pop() as u32 as u64;
                let init = self.pop();
                let ta = self.store.instances[inst].tables[t as usize].0 as usize;
                let r = self.store.tables[ta].grow(n, init) as i32 as u32 as u64;
                self.push(r)
            }
            Op::TableFill(t) => self.bulk(|s, i, v, n| s.table_fill(inst, t, i, v, n))?,
            Op::TableCopy { dst, src } => {
                self.bulk(|s, d, x, n| s.table_copy(inst, dst, src, d, x as u32, n))?
            }
            Op::TableInit { elem, table } => {
                self.bulk(|s, d, x, n| s.table_init(inst, table, elem, d, x as u32, n))?
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

    /// A bulk memory/table op: pops `(d, x, n)` (`x` a source offset or a
    /// fill value, as u64), runs `f` and traps with its error.
    #[inline(always)]
    fn bulk(
        &mut self,
        f: impl FnOnce(&mut Store, u32, u64, u32) -> Result<(), TrapKind>,
    ) -> Result<(), Trap> {
        let n = self.pop() as u32;
        let x = self.pop();
        let d = self.pop() as u32;
        f(self.store, d, x, n).map_err(|k| self.trap(k))
    }
}
