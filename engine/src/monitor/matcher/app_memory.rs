//! `wizeng:app.memory_size` and `wizeng:app.page_size`: the application's
//! memory sizes (docs/monitor-abi.md#application-queries). Static calls run
//! while the app is matched, before it is instantiated: until then the
//! answers come from the app's declared memories (`AppMemories`, filled by
//! `Monitors::set_app`), afterwards from its live memories.

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::types::{FuncType, ValType, Value};
use crate::runtime::store::{Linker, Store};

/// The app's memories as declared (imports first): (initial size in pages,
/// log2 of the page size). Shared by the host functions and the matcher.
pub(super) type AppMemories = Rc<RefCell<Vec<(u64, u8)>>>;

/// The memories `bytes` (an app module) declares; empty if it cannot be read.
pub(super) fn declared(bytes: &[u8]) -> Vec<(u64, u8)> {
    let mut out = Vec::new();
    let decl = |m: wasmparser::MemoryType| (m.initial, m.page_size_log2.unwrap_or(16) as u8);
    for p in wasmparser::Parser::new(0).parse_all(bytes) {
        match p {
            Ok(wasmparser::Payload::ImportSection(r)) => {
                for i in r.into_iter().flatten() {
                    if let wasmparser::TypeRef::Memory(m) = i.ty {
                        out.push(decl(m));
                    }
                }
            }
            Ok(wasmparser::Payload::MemorySection(r)) => {
                out.extend(r.into_iter().flatten().map(decl))
            }
            Ok(wasmparser::Payload::CodeSectionStart { .. }) | Err(_) => break,
            Ok(_) => {}
        }
    }
    out
}

/// Define `memory_size(mem) -> pages` and `page_size(mem) -> bytes` (-1 if
/// the app has no memory `mem`).
pub(super) fn define(linker: &mut Linker, store: &mut Store, decls: &AppMemories) {
    for (name, pages) in [("memory_size", true), ("page_size", false)] {
        let decls = decls.clone();
        linker.func(
            store,
            monitor_abi::imports::MODULE_APP,
            name,
            FuncType::new([ValType::I32], [ValType::I32]),
            move |c, a, r| {
                let mem = a[0].i32().unwrap_or(-1);
                let size = usize::try_from(mem)
                    .ok()
                    .and_then(|m| live(c.store, m).or_else(|| decls.borrow().get(m).copied()));
                r[0] = Value::I32(match size {
                    Some((n, _)) if pages => n as i32,
                    Some((_, log2)) => 1i32 << log2,
                    None => -1,
                });
                Ok(())
            },
        );
    }
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
