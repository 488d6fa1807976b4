//! What weaving reads of the monitors: their functions' types and code and
//! their instances' index spaces, copied out of the store ([`MonView`]), so
//! that a lazily woven module can weave a body on any thread (a JIT compile
//! thread) long after the store was lent to [`super::weave_lazy`]. Monitors
//! are instantiated before the app is loaded and never change after: the copy
//! is what the store holds for as long as the app runs.

use std::sync::Arc;

use crate::core::module::ModuleInfo;
use crate::core::types::{FuncAddr, FuncType, GlobalAddr, InstanceId, MemAddr};
use crate::runtime::store::{FuncKind, Store};

/// The store's functions and instances as weaving reads them.
pub(super) struct MonView {
    /// By function address: its type, and its instance and index if it is
    /// a Wasm function.
    funcs: Vec<(FuncType, Option<(InstanceId, u32)>)>,
    /// By instance id.
    insts: Vec<InstView>,
}

/// One instance's module and index spaces.
pub(super) struct InstView {
    pub(super) module: Arc<ModuleInfo>,
    pub(super) funcs: Vec<FuncAddr>,
    pub(super) memories: Vec<MemAddr>,
    pub(super) globals: Vec<GlobalAddr>,
}

impl MonView {
    /// Every function and instance of `store`.
    pub(super) fn new(store: &Store) -> MonView {
        let funcs = store
            .funcs
            .iter()
            .map(|f| {
                let code = match f.kind {
                    FuncKind::Wasm { instance, func_idx } => Some((instance, func_idx)),
                    FuncKind::Host(_) => None,
                };
                (f.ty.clone(), code)
            })
            .collect();
        let insts = store
            .instances
            .iter()
            .map(|i| InstView {
                module: i.module.shared_info(),
                funcs: i.funcs.clone(),
                memories: i.memories.clone(),
                globals: i.globals.clone(),
            })
            .collect();
        MonView { funcs, insts }
    }

    pub(super) fn func_type(&self, f: FuncAddr) -> &FuncType {
        &self.funcs[f.0 as usize].0
    }

    /// Wasm function `f`'s instance and index in its module (`None` for a
    /// host function).
    pub(super) fn code(&self, f: FuncAddr) -> Option<(&InstView, u32)> {
        let (inst, func_idx) = self.funcs.get(f.0 as usize)?.1?;
        Some((&self.insts[inst.0 as usize], func_idx))
    }
}
