//! `wizeng:app` queries of the application's memories and data segments
//! (docs/monitor-abi.md#application-queries): `memory_read`,
//! `memory_read64`, `data_read`, `memory_size`, `page_size`,
//! `active_data_start` and `active_data_len`.
//!
//! Static calls run while the app is matched, before it is instantiated, and
//! monitors' start functions run even earlier. Until the app is instantiated
//! the answers come from its module as declared ([`AppDecl`], filled by
//! `Monitors::set_app`, or before the monitors start by
//! `Session::announce_app`): its memories' initial sizes, and their initial
//! contents (zeros and the active data segments); afterwards from its live
//! instance.

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::types::{FuncType, ValType, Value};
use crate::runtime::store::{Linker, Store};

/// One data segment of the app as declared.
#[derive(Debug, Clone)]
struct DeclSeg {
    /// `Some((memory, offset))` for an active segment; the offset is `None`
    /// when it is not a constant (e.g. an imported global).
    active: Option<(u32, Option<u64>)>,
    bytes: Vec<u8>,
}

/// What the app's module declares about its memories and data.
#[derive(Debug, Clone, Default)]
pub struct AppDecl {
    /// Per memory (imports first): (initial size in pages, log2 page size,
    /// imported).
    memories: Vec<(u64, u8, bool)>,
    segments: Vec<DeclSeg>,
}

/// Shared by the host functions and the matcher.
pub(super) type AppMemories = Rc<RefCell<AppDecl>>;

impl AppDecl {
    /// Read what `bytes` (an app module) declares; parts that cannot be read
    /// are left out (the app's own validation reports them).
    pub fn read(bytes: &[u8]) -> AppDecl {
        let mut d = AppDecl::default();
        let mut globals: Vec<Option<u64>> = Vec::new();
        let decl =
            |m: wasmparser::MemoryType, imp| (m.initial, m.page_size_log2.unwrap_or(16) as u8, imp);
        for p in wasmparser::Parser::new(0).parse_all(bytes) {
            match p {
                Ok(wasmparser::Payload::ImportSection(r)) => {
                    for i in r.into_iter().flatten() {
                        match i.ty {
                            wasmparser::TypeRef::Memory(m) => d.memories.push(decl(m, true)),
                            wasmparser::TypeRef::Global(_) => globals.push(None),
                            _ => {}
                        }
                    }
                }
                Ok(wasmparser::Payload::MemorySection(r)) => d
                    .memories
                    .extend(r.into_iter().flatten().map(|m| decl(m, false))),
                Ok(wasmparser::Payload::GlobalSection(r)) => {
                    for g in r.into_iter().flatten() {
                        let v = (!g.ty.mutable)
                            .then(|| const_value(&g.init_expr, &globals))
                            .flatten();
                        globals.push(v);
                    }
                }
                Ok(wasmparser::Payload::DataSection(r)) => {
                    for s in r.into_iter().flatten() {
                        let active = match s.kind {
                            wasmparser::DataKind::Passive => None,
                            wasmparser::DataKind::Active {
                                memory_index,
                                offset_expr,
                            } => Some((memory_index, const_value(&offset_expr, &globals))),
                        };
                        d.segments.push(DeclSeg {
                            active,
                            bytes: s.data.to_vec(),
                        });
                    }
                }
                Err(_) => break,
                Ok(_) => {}
            }
        }
        d
    }

    /// The active segments of memory `mem` whose offsets are known:
    /// (offset, length).
    fn active_of(&self, mem: u32) -> impl Iterator<Item = (u64, &[u8])> {
        self.segments.iter().filter_map(move |s| match s.active {
            Some((m, Some(off))) if m == mem => Some((off, &s.bytes[..])),
            _ => None,
        })
    }

    /// (start, length) of the union of memory `mem`'s active segments, as
    /// whamm defines it: from the lowest offset to the highest end; (0, 0)
    /// without segments; `None` if there is no memory `mem`.
    fn active_span(&self, mem: u32) -> Option<(u64, u64)> {
        self.memories.get(mem as usize)?;
        let mut span: Option<(u64, u64)> = None;
        for (off, b) in self.active_of(mem) {
            let end = off + b.len() as u64;
            span = Some(span.map_or((off, end), |(s, e)| (s.min(off), e.max(end))));
        }
        Some(span.map_or((0, 0), |(s, e)| (s, e - s)))
    }

    /// `len` bytes from `off` of memory `mem` as instantiation will
    /// initialize it: zeros, then the active segments in order. `None` out of
    /// bounds, and for an imported memory (its contents come from elsewhere).
    fn initial_bytes(&self, mem: usize, off: usize, len: usize) -> Option<Vec<u8>> {
        let &(pages, log2, imported) = self.memories.get(mem)?;
        let size = pages.checked_shl(log2 as u32)?;
        let end = off.checked_add(len)?;
        if imported || end as u64 > size {
            return None;
        }
        let mut out = vec![0u8; len];
        for (s, b) in self.active_of(mem as u32) {
            let s = usize::try_from(s).unwrap_or(usize::MAX);
            let e = s.saturating_add(b.len());
            let (lo, hi) = (s.max(off), e.min(end));
            if lo < hi {
                out[lo - off..hi - off].copy_from_slice(&b[lo - s..hi - s]);
            }
        }
        Some(out)
    }
}

/// The value of a constant expression (`i32.const`, `i64.const`,
/// `global.get` of a known immutable global, and the extended-constant
/// arithmetic); `None` for anything else. i32 values are zero-extended.
fn const_value(e: &wasmparser::ConstExpr<'_>, globals: &[Option<u64>]) -> Option<u64> {
    use wasmparser::Operator as O;
    let mut stack: Vec<u64> = Vec::new();
    let mut r = e.get_operators_reader();
    while !r.eof() {
        let op = r.read().ok()?;
        let v = match op {
            O::I32Const { value } => value as u32 as u64,
            O::I64Const { value } => value as u64,
            O::GlobalGet { global_index } => (*globals.get(global_index as usize)?)?,
            O::I32Add | O::I32Sub | O::I32Mul | O::I64Add | O::I64Sub | O::I64Mul => {
                let (b, a) = (stack.pop()?, stack.pop()?);
                let v = match op {
                    O::I32Add | O::I64Add => a.wrapping_add(b),
                    O::I32Sub | O::I64Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                };
                match op {
                    O::I32Add | O::I32Sub | O::I32Mul => v as u32 as u64,
                    _ => v,
                }
            }
            O::End => break,
            _ => return None,
        };
        stack.push(v);
    }
    stack.pop()
}

/// An `(mem: i32) -> i32` query of `wizeng:app`: its answer about app
/// memory `mem` (the live one once the app is instantiated, else as
/// declared), `None` when the app has no such memory (the import returns -1).
type Query = fn(&Store, &AppDecl, usize) -> Option<i64>;

/// The memory's (pages, log2 page size): live, else as declared.
fn size_of(store: &Store, d: &AppDecl, m: usize) -> Option<(u64, u8)> {
    live(store, m).or_else(|| d.memories.get(m).map(|&(n, log2, _)| (n, log2)))
}

const QUERIES: [(&str, Query); 4] = [
    ("memory_size", |s, d, m| {
        size_of(s, d, m).map(|(n, _)| n as i64)
    }),
    ("page_size", |s, d, m| {
        size_of(s, d, m).map(|(_, log2)| 1i64 << log2)
    }),
    ("active_data_start", |_, d, m| {
        d.active_span(m as u32).map(|(s, _)| s as i64)
    }),
    ("active_data_len", |_, d, m| {
        d.active_span(m as u32).map(|(_, n)| n as i64)
    }),
];

/// Define the `(mem) -> i32` queries ([`QUERIES`]: `memory_size` in pages,
/// `page_size` in bytes, `active_data_start` and `active_data_len`; -1 if
/// the app has no memory `mem`) and the reads ([`define_reads`]).
pub(super) fn define(linker: &mut Linker, store: &mut Store, decls: &AppMemories) {
    for (name, query) in QUERIES {
        let decls = decls.clone();
        linker.func(
            store,
            monitor_abi::imports::MODULE_APP,
            name,
            FuncType::new([ValType::I32], [ValType::I32]),
            move |c, a, r| {
                let m = usize::try_from(a[0].i32().unwrap_or(-1)).ok();
                let v = m.and_then(|m| query(c.store, &decls.borrow(), m));
                r[0] = Value::I32(v.map_or(-1, |v| v as i32));
                Ok(())
            },
        );
    }
    define_reads(linker, store, decls);
}

/// `memory_read(mem, src, dst, len)` and `data_read(seg, off, dst, len)`:
/// bytes of the app's memory or data segment (a dropped one is empty)
/// copied into the calling monitor's memory 0; 0, or -1 when a range is out
/// of bounds. Before the app is instantiated they read it as declared.
/// `memory_read64` takes an i64 `src` (for a 64-bit app memory; both read
/// either kind of memory).
fn define_reads(linker: &mut Linker, store: &mut Store, decls: &AppMemories) {
    let (i32t, i64t) = (ValType::I32, ValType::I64);
    for (name, from_data, src) in [
        ("memory_read", false, i32t),
        ("memory_read64", false, i64t),
        ("data_read", true, i32t),
    ] {
        let decls = decls.clone();
        linker.func(
            store,
            monitor_abi::imports::MODULE_APP,
            name,
            FuncType::new([i32t, src, i32t, i32t], [i32t]),
            move |c, a, r| {
                let arg = |i: usize| match a[i] {
                    Value::I64(v) => usize::try_from(v as u64).unwrap_or(usize::MAX),
                    ref v => v.i32().unwrap_or(0) as u32 as usize,
                };
                let (idx, off, len) = (arg(0), arg(1), arg(3));
                let bytes = match c.store.app {
                    Some(_) => app_bytes(c.store, from_data, idx, off, len),
                    None => declared_bytes(&decls.borrow(), from_data, idx, off, len),
                };
                let ok = match (bytes, c.memory0()) {
                    (Some(b), Ok(mem)) => match mem.get_mut(arg(2)..arg(2) + b.len()) {
                        Some(dst) => {
                            dst.copy_from_slice(&b);
                            true
                        }
                        None => false,
                    },
                    _ => false,
                };
                r[0] = Value::I32(if ok { 0 } else { -1 });
                Ok(())
            },
        );
    }
}

/// `len` bytes from `off` of the declared app's memory `idx` (initial
/// contents) or data segment `idx`.
fn declared_bytes(d: &AppDecl, data: bool, idx: usize, off: usize, len: usize) -> Option<Vec<u8>> {
    if !data {
        return d.initial_bytes(idx, off, len);
    }
    let seg = &d.segments.get(idx)?.bytes;
    Some(seg.get(off..off.checked_add(len)?)?.to_vec())
}

/// `len` bytes from `off` of the instantiated app's memory `idx` (or data
/// segment `idx`).
fn app_bytes(store: &Store, data: bool, idx: usize, off: usize, len: usize) -> Option<Vec<u8>> {
    let inst = &store.instances[store.app?.0 as usize];
    let src: &[u8] = if data {
        let range = inst.module.datas.get(idx)?.range.clone();
        if inst.data_dropped[idx] {
            &[]
        } else {
            &inst.module.bytes[range]
        }
    } else {
        // A woven module (JIT) has the monitors' memories after the app's
        // imported ones.
        let idx = match &inst.module.origin {
            Some(o) if idx as u32 >= o.mem_imports => idx + o.mem_shift as usize,
            _ => idx,
        };
        &store.memories[inst.memories.get(idx)?.0 as usize].data[..]
    };
    Some(src.get(off..off.checked_add(len)?)?.to_vec())
}

/// (current pages, log2 page size) of the instantiated app's memory `idx`.
fn live(store: &Store, idx: usize) -> Option<(u64, u8)> {
    let inst = &store.instances[store.app?.0 as usize];
    // A woven module (JIT) has the monitors' memories after the app's
    // imported ones.
    let idx = match &inst.module.origin {
        Some(o) if idx as u32 >= o.mem_imports => idx + o.mem_shift as usize,
        _ => idx,
    };
    let m = &store.memories[inst.memories.get(idx)?.0 as usize];
    let log2 = m.ty.page_size_log2;
    Some(((m.data.len() >> log2) as u64, log2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(wat: &str) -> AppDecl {
        AppDecl::read(&wat::parse_str(wat).unwrap())
    }

    #[test]
    fn initial_image_and_active_span() {
        let d = decl(
            r#"(module (global $g i32 (i32.const 40)) (memory 1)
                 (data (i32.const 10) "abc") (data (global.get $g) "xy")
                 (data "passive"))"#,
        );
        assert_eq!(d.active_span(0), Some((10, 32)));
        assert_eq!(d.active_span(1), None);
        assert_eq!(d.initial_bytes(0, 9, 5).unwrap(), b"\0abc\0");
        assert_eq!(d.initial_bytes(0, 41, 2).unwrap(), b"y\0");
        assert_eq!(d.initial_bytes(0, 65535, 2), None);
        assert_eq!(declared_bytes(&d, true, 2, 1, 3).unwrap(), b"ass");
    }

    #[test]
    fn unknown_offsets_and_imported_memories() {
        let d = decl(
            r#"(module (import "e" "g" (global $g i32)) (import "e" "m" (memory 1))
                 (memory 1) (data (memory 0) (global.get $g) "a")
                 (data (memory 1) (i32.const 5) "b"))"#,
        );
        assert_eq!(d.active_span(0), Some((0, 0)));
        assert_eq!(d.active_span(1), Some((5, 1)));
        assert_eq!(d.initial_bytes(0, 0, 1), None);
        assert_eq!(d.initial_bytes(1, 5, 1).unwrap(), b"b");
    }
}
