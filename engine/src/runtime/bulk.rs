//! Bulk memory and table operations (`memory.copy/fill/init`, `data.drop`,
//! `table.copy/fill/init`, `elem.drop`), once for every tier: the interpreter
//! executes them from its cold path, JIT code through `jit::libcalls`.
//! Operands are those of the instruction in instance `inst`'s index spaces;
//! an out-of-bounds range traps before anything is written.

use std::rc::Rc;

use crate::core::error::TrapKind;
use crate::runtime::store::Store;

/// Two distinct elements of a slice, mutably.
fn two<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}

/// Copy `n` items from `src[s..]` to `dst[d..]` of two buffers that may be the
/// same one (`dst: None`): false unless both ranges are in bounds.
fn copy_items<T: Copy>(src: &mut [T], dst: Option<&mut [T]>, s: usize, d: usize, n: usize) -> bool {
    let len = |b: &[T]| b.len();
    let dlen = dst.as_deref().map_or(len(src), len);
    if s.saturating_add(n) > src.len() || d.saturating_add(n) > dlen {
        return false;
    }
    match dst {
        None => src.copy_within(s..s + n, d),
        Some(dst) => dst[d..d + n].copy_from_slice(&src[s..s + n]),
    }
    true
}

/// Copy `n` items from `s` of arena entry `sa` to `d` of entry `da` (the
/// same entry or two; `items` picks an entry's buffer): false unless in bounds.
fn copy_between<A, T: Copy>(
    arena: &mut [A],
    items: fn(&mut A) -> &mut [T],
    (sa, s): (usize, usize),
    (da, d): (usize, usize),
    n: usize,
) -> bool {
    if da == sa {
        copy_items(items(&mut arena[sa]), None, s, d, n)
    } else {
        let (src, dst) = two(arena, sa, da);
        copy_items(items(src), Some(items(dst)), s, d, n)
    }
}

/// Fill `dst[d..d + n]` with `v`: false unless in bounds.
fn fill_items<T: Copy>(dst: &mut [T], d: usize, n: usize, v: T) -> bool {
    dst.get_mut(d..d.saturating_add(n))
        .map(|r| r.fill(v))
        .is_some()
}

/// Copy `seg[s..s + n]` to `dst[d..]` (segment initialisation): false unless
/// both ranges are in bounds.
fn init_items<T: Copy>(dst: &mut [T], seg: &[T], d: usize, s: usize, n: usize) -> bool {
    match (
        dst.get_mut(d..d.saturating_add(n)),
        seg.get(s..s.saturating_add(n)),
    ) {
        (Some(to), Some(from)) => {
            to.copy_from_slice(from);
            true
        }
        _ => false,
    }
}

fn check(ok: bool, kind: TrapKind) -> Result<(), TrapKind> {
    if ok {
        Ok(())
    } else {
        Err(kind)
    }
}

impl Store {
    pub(crate) fn memory_copy(
        &mut self,
        inst: usize,
        dst_mem: u32,
        src_mem: u32,
        d: u64,
        s: u64,
        n: u64,
    ) -> Result<(), TrapKind> {
        let da = self.instances[inst].memories[dst_mem as usize].0 as usize;
        let sa = self.instances[inst].memories[src_mem as usize].0 as usize;
        let ok = copy_between(
            &mut self.memories,
            |m| &mut *m.data,
            (sa, s as usize),
            (da, d as usize),
            n as usize,
        );
        check(ok, TrapKind::MemoryOutOfBounds)
    }

    pub(crate) fn memory_fill(
        &mut self,
        inst: usize,
        mem: u32,
        d: u64,
        v: u8,
        n: u64,
    ) -> Result<(), TrapKind> {
        let m = self.instances[inst].memories[mem as usize].0 as usize;
        let ok = fill_items(&mut self.memories[m].data, d as usize, n as usize, v);
        check(ok, TrapKind::MemoryOutOfBounds)
    }

    pub(crate) fn memory_init(
        &mut self,
        inst: usize,
        mem: u32,
        seg: u32,
        d: u64,
        s: u32,
        n: u32,
    ) -> Result<(), TrapKind> {
        let idata = &self.instances[inst];
        let m = idata.memories[mem as usize].0 as usize;
        let module = idata.module.clone();
        let range = if idata.data_dropped[seg as usize] {
            0..0
        } else {
            module.datas[seg as usize].range.clone()
        };
        let ok = init_items(
            &mut self.memories[m].data,
            &module.bytes[range],
            d as usize,
            s as usize,
            n as usize,
        );
        check(ok, TrapKind::MemoryOutOfBounds)
    }

    pub(crate) fn data_drop(&mut self, inst: usize, seg: u32) {
        self.instances[inst].data_dropped[seg as usize] = true;
    }

    pub(crate) fn table_copy(
        &mut self,
        inst: usize,
        dst_t: u32,
        src_t: u32,
        d: u64,
        s: u64,
        n: u64,
    ) -> Result<(), TrapKind> {
        let da = self.instances[inst].tables[dst_t as usize].0 as usize;
        let sa = self.instances[inst].tables[src_t as usize].0 as usize;
        let ok = copy_between(
            &mut self.tables,
            |t| &mut *t.elems,
            (sa, s as usize),
            (da, d as usize),
            n as usize,
        );
        check(ok, TrapKind::TableOutOfBounds)
    }

    pub(crate) fn table_fill(
        &mut self,
        inst: usize,
        table: u32,
        d: u64,
        v: u64,
        n: u64,
    ) -> Result<(), TrapKind> {
        let t = self.instances[inst].tables[table as usize].0 as usize;
        let ok = fill_items(&mut self.tables[t].elems, d as usize, n as usize, v);
        check(ok, TrapKind::TableOutOfBounds)
    }

    pub(crate) fn table_init(
        &mut self,
        inst: usize,
        table: u32,
        seg: u32,
        d: u64,
        s: u32,
        n: u32,
    ) -> Result<(), TrapKind> {
        let t = self.instances[inst].tables[table as usize].0 as usize;
        let items = self.instances[inst].elems[seg as usize].clone();
        let ok = init_items(
            &mut self.tables[t].elems,
            &items,
            d as usize,
            s as usize,
            n as usize,
        );
        check(ok, TrapKind::TableOutOfBounds)
    }

    pub(crate) fn elem_drop(&mut self, inst: usize, seg: u32) {
        self.instances[inst].elems[seg as usize] = Rc::from([]);
    }
}
