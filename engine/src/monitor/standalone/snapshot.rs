//! The monitors' state as it is at emit time (after their start functions
//! and static calls ran): each memory as active data segments of its non-zero
//! runs, each global with its current value, each table with its current
//! contents, each element segment with its current items and each passive
//! data segment unless dropped.

use wasm_encoder::reencode::Reencode;
use wasm_encoder::ConstExpr;

use super::encode::Merged;
use super::remap::Addrs;
use super::{reencode_err, unsupported};
use crate::core::error::LoadError;
use crate::core::module::{DataMode, ElemMode};
use crate::core::types::{ValType, Value};

/// Zero bytes tolerated inside one snapshot data segment.
const ZERO_GAP: usize = 16;

/// A table's contents: (merged table, element type, items from index 0).
pub(super) type TableSnapshot = (u32, ValType, Vec<ConstExpr>);
/// A run of memory bytes: (merged memory, offset, bytes).
pub(super) type MemorySnapshot<'a> = (u32, usize, &'a [u8]);

fn null_of(t: ValType) -> ConstExpr {
    ConstExpr::ref_null(wasm_encoder::HeapType::Abstract {
        shared: false,
        ty: if t == ValType::ExternRef {
            wasm_encoder::AbstractHeapType::Extern
        } else {
            wasm_encoder::AbstractHeapType::Func
        },
    })
}

pub(super) fn ref_type(t: ValType) -> wasm_encoder::RefType {
    if t == ValType::ExternRef {
        wasm_encoder::RefType::EXTERNREF
    } else {
        wasm_encoder::RefType::FUNCREF
    }
}

impl Addrs {
    /// A reference value (a global's or a table slot's) as a constant expression.
    fn ref_expr(&self, v: Value) -> Result<ConstExpr, LoadError> {
        match v {
            Value::FuncRef(None) => Ok(null_of(ValType::FuncRef)),
            Value::ExternRef(None) => Ok(null_of(ValType::ExternRef)),
            Value::FuncRef(Some(a)) => Ok(ConstExpr::ref_func(self.func(a)?)),
            Value::ExternRef(Some(_)) => Err(unsupported("a non-null externref in monitor state")),
            other => Err(unsupported(format!("{other} is not a reference"))),
        }
    }
}

fn value_expr(addrs: &Addrs, v: Value) -> Result<ConstExpr, LoadError> {
    Ok(match v {
        Value::I32(x) => ConstExpr::i32_const(x),
        Value::I64(x) => ConstExpr::i64_const(x),
        Value::F32(b) => ConstExpr::f32_const(f32::from_bits(b)),
        Value::F64(b) => ConstExpr::f64_const(f64::from_bits(b)),
        r => addrs.ref_expr(r)?,
    })
}

/// Non-zero runs of `bytes` (zero gaps up to [`ZERO_GAP`] kept inside a run).
fn nonzero_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        while end < bytes.len() && bytes[end] != 0 {
            end += 1;
        }
        match runs.last_mut() {
            Some(last) if start - last.1 <= ZERO_GAP => last.1 = end,
            _ => runs.push((start, end)),
        }
        i = end;
    }
    runs
}

impl<'a> Merged<'a> {
    /// Each instance's defined tables, at their current size; their contents.
    pub(super) fn monitor_tables(
        &mut self,
        tabs: &mut wasm_encoder::TableSection,
    ) -> Result<Vec<TableSnapshot>, LoadError> {
        let mut snap_elems: Vec<TableSnapshot> = Vec::new();
        for (k, idata) in self.insts.iter().enumerate() {
            let m = &idata.module;
            for (i, t) in self.mons[k].tables.iter().enumerate() {
                let addr = idata.tables[m.num_imported_tables as usize + i];
                let inst = &self.store.tables[addr.0 as usize];
                let mut ty = self.mon_maps[k].table_type(t.ty).map_err(reencode_err)?;
                ty.minimum = inst.elems.len() as u64;
                tabs.table(ty);
                let items = inst
                    .elems
                    .iter()
                    .map(|s| self.addrs.ref_expr(Value::from_slot(inst.ty.elem, *s)))
                    .collect::<Result<Vec<_>, _>>()?;
                snap_elems.push((self.addrs.tables[&addr], inst.ty.elem, items));
            }
        }
        Ok(snap_elems)
    }

    /// Each instance's defined memories, at their current size; their bytes.
    pub(super) fn monitor_memories(
        &mut self,
        mems: &mut wasm_encoder::MemorySection,
    ) -> Vec<MemorySnapshot<'a>> {
        let store = self.store;
        let mut snap_data: Vec<MemorySnapshot<'a>> = Vec::new();
        for (k, idata) in self.insts.iter().enumerate() {
            let m = &idata.module;
            for (i, mt) in self.mons[k].memories.iter().enumerate() {
                let addr = idata.memories[m.num_imported_memories as usize + i];
                let inst = store.memory(addr);
                let mut ty = self.mon_maps[k].memory_type(*mt);
                ty.minimum = inst.pages();
                mems.memory(ty);
                let bytes: &'a [u8] = &inst.data;
                for (s, e) in nonzero_runs(bytes) {
                    snap_data.push((self.addrs.memories[&addr], s, &bytes[s..e]));
                }
            }
        }
        snap_data
    }

    /// Each instance's defined globals, with their current values.
    pub(super) fn monitor_globals(
        &mut self,
        gs: &mut wasm_encoder::GlobalSection,
    ) -> Result<(), LoadError> {
        for (k, idata) in self.insts.iter().enumerate() {
            let m = &idata.module;
            for (i, g) in self.mons[k].globals.iter().enumerate() {
                let addr = idata.globals[m.num_imported_globals as usize + i];
                let ty = self.mon_maps[k].global_type(g.ty).map_err(reencode_err)?;
                gs.global(ty, &value_expr(&self.addrs, self.store.global_value(addr))?);
            }
        }
        Ok(())
    }

    /// Each instance's element segments (declared ones as they are, the
    /// others passive with their current items, empty if dropped), then the
    /// tables' contents as active segments.
    pub(super) fn monitor_elems(
        &mut self,
        els: &mut wasm_encoder::ElementSection,
        snap_elems: &[TableSnapshot],
    ) -> Result<(), LoadError> {
        for (k, idata) in self.insts.iter().enumerate() {
            for (i, seg) in idata.module.elems.iter().enumerate() {
                if matches!(seg.mode, ElemMode::Declared) {
                    self.mon_maps[k]
                        .parse_element(els, self.mons[k].elems[i].clone())
                        .map_err(reencode_err)?;
                    continue;
                }
                let items = idata.elems[i]
                    .iter()
                    .map(|s| self.addrs.ref_expr(Value::from_slot(seg.ty, *s)))
                    .collect::<Result<Vec<_>, _>>()?;
                els.passive(wasm_encoder::Elements::Expressions(
                    ref_type(seg.ty),
                    &items,
                ));
            }
        }
        for (table, ty, items) in snap_elems {
            if items.is_empty() {
                continue;
            }
            els.active(
                Some(*table),
                &ConstExpr::i32_const(0),
                wasm_encoder::Elements::Expressions(ref_type(*ty), items),
            );
        }
        Ok(())
    }

    /// Each instance's data segments (passive; empty unless passive and not
    /// dropped), then the memories' bytes as active segments.
    pub(super) fn monitor_datas(
        &self,
        ds: &mut wasm_encoder::DataSection,
        snap_data: &[MemorySnapshot],
    ) {
        for (k, idata) in self.insts.iter().enumerate() {
            for (i, seg) in idata.module.datas.iter().enumerate() {
                // Active segments were applied (and dropped) at instantiation; the
                // memory snapshot has their bytes.
                let keep = matches!(seg.mode, DataMode::Passive) && !idata.data_dropped[i];
                let bytes: &[u8] = if keep {
                    self.mons[k].datas[i].data
                } else {
                    &[]
                };
                ds.passive(bytes.iter().copied());
            }
        }
        for (mem, off, bytes) in snap_data {
            ds.active(
                *mem,
                &ConstExpr::i32_const(*off as i32),
                bytes.iter().copied(),
            );
        }
    }
}
