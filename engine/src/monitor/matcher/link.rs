//! Linking one `--monitors` item, `mon.wasm+lib1.wasm+lib2.wasm`
//! (docs/monitor-abi.md#libraries): the monitor and its libraries form a
//! group of named modules (each named after its file without directory and
//! extension) that may import from each other in any direction.
//!
//! Modules are instantiated one at a time, each as soon as every module of
//! the group it imports from exists, preferring command-line order
//! (libraries, then the monitor). When only cycles remain, the first waiting
//! module is instantiated with *forwarders* for its function imports from
//! modules that do not exist yet: host functions of the import's type that
//! call the real export, filled in once its module is instantiated. Only
//! function imports can close a cycle; a table, memory or global import in a
//! cycle is a load failure.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use crate::core::error::Trap;
use crate::core::module::ImportDesc;
use crate::core::types::*;
use crate::runtime::store::{Linker, Store};
use crate::Module;

use super::{base_name, MonitorError};

/// A forwarder's target, set once the exporting module is instantiated.
type Slot = Rc<Cell<Option<FuncAddr>>>;

/// A forwarder waiting for its target: (exporting module, field, type, slot, importer).
struct Pending {
    module: String,
    field: String,
    ty: FuncType,
    slot: Slot,
    importer: usize,
}

/// Instantiate `libs` and `monitor` (the monitor last among equals) with
/// `linker` (the provided modules). Returns the monitor's module and
/// instance, and whether any module of the group imports `whamm:dyninstr`.
/// Each library's exported memory is recorded in `lib_mems` as soon as it
/// is instantiated (the monitor's start function may read it).
pub(super) fn link_group(
    store: &mut Store,
    linker: &mut Linker,
    spec: &super::MonitorSpec,
    lib_mems: &super::lib_memory::LibMemories,
) -> Result<(Arc<Module>, InstanceId, bool), MonitorError> {
    let (monitor, libs) = (spec.path.as_path(), spec.libs.as_slice());
    let what = |i: usize| match i < libs.len() {
        true => format!("monitor library {}", libs[i].display()),
        false => format!("monitor {}", monitor.display()),
    };
    let paths: Vec<&Path> = libs
        .iter()
        .map(PathBuf::as_path)
        .chain(std::iter::once(monitor))
        .collect();
    let names: Vec<String> = paths.iter().map(|p| base_name(p)).collect();
    let mut modules = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        let m = match (&spec.bytes, i == libs.len()) {
            (Some(bytes), true) => Module::new(bytes),
            _ => Module::from_file(p),
        };
        let m = m.map_err(|e| MonitorError(format!("{}: {e}", what(i))))?;
        modules.push(Arc::new(m));
    }
    // Group modules that module i imports from (not itself).
    let deps: Vec<Vec<usize>> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut d: Vec<usize> = m
                .imports
                .iter()
                .filter_map(|imp| names.iter().position(|n| *n == imp.module))
                .filter(|&j| j != i)
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect();
    let mut instances: Vec<Option<InstanceId>> = vec![None; modules.len()];
    let mut pending: Vec<Pending> = Vec::new();
    while let Some(i) = next_ready(&deps, &instances) {
        let ready = deps[i].iter().all(|&j| instances[j].is_some());
        let mut l = linker.clone();
        super::typed_imports::define(&mut l, store, &modules[i])
            .map_err(|e| MonitorError(format!("{}: {e}", what(i))))?;
        if !ready {
            for imp in &modules[i].imports {
                let Some(j) = names.iter().position(|n| *n == imp.module) else {
                    continue;
                };
                if j == i || instances[j].is_some() {
                    continue;
                }
                let ImportDesc::Func(t) = imp.desc else {
                    return Err(MonitorError(format!(
                        "{}: import cycle: `{}.{}` is not a function, so it cannot be imported \
                         before `{}` is instantiated",
                        what(i),
                        imp.module,
                        imp.name,
                        imp.module
                    )));
                };
                let ty = modules[i].types[t as usize].clone();
                let slot: Slot = Rc::new(Cell::new(None));
                let s = slot.clone();
                let (m, f) = (imp.module.clone(), imp.name.clone());
                l.func(store, &imp.module, &imp.name, ty.clone(), move |c, a, r| {
                    let target = s.get().ok_or_else(|| {
                        Trap::host(format!("`{m}.{f}` called before `{m}` was instantiated"))
                    })?;
                    let out = c.call(target, a)?;
                    r.copy_from_slice(&out);
                    Ok(())
                });
                pending.push(Pending {
                    module: imp.module.clone(),
                    field: imp.name.clone(),
                    ty,
                    slot,
                    importer: i,
                });
            }
        }
        let inst = l
            .instantiate(store, &modules[i])
            .map_err(|e| MonitorError(format!("{}: {e}", what(i))))?;
        // The monitor's exports (a built-in has a thousand) are named only
        // for forwarders into it; its libraries' for the modules after them.
        if i != modules.len() - 1 || pending.iter().any(|p| p.module == names[i]) {
            linker.instance(store, &names[i], inst);
        }
        if i < libs.len() {
            super::lib_memory::record(lib_mems, linker, &names[i..=i]);
        }
        instances[i] = Some(inst);
    }
    for p in pending {
        let target = match linker.get(&p.module, &p.field) {
            Some(Extern::Func(f)) => f,
            _ => {
                return Err(MonitorError(format!(
                    "{}: unknown import: {}.{} (function) is not exported by `{}`",
                    what(p.importer),
                    p.module,
                    p.field,
                    p.module
                )))
            }
        };
        if *store.func_type(target) != p.ty {
            return Err(MonitorError(format!(
                "{}: import `{}.{}` has type {}, the export has type {}",
                what(p.importer),
                p.module,
                p.field,
                p.ty,
                store.func_type(target)
            )));
        }
        p.slot.set(Some(target));
    }
    let dynamic = modules.iter().any(|m| {
        m.imports
            .iter()
            .any(|i| i.module == monitor_abi::imports::MODULE_DYNINSTR)
    });
    let last = modules.len() - 1;
    let inst = instances[last].expect("every module instantiated");
    Ok((modules[last].clone(), inst, dynamic))
}

/// The next module to instantiate: the first whose group imports all exist,
/// else (only cycles left) the first not yet instantiated.
fn next_ready(deps: &[Vec<usize>], instances: &[Option<InstanceId>]) -> Option<usize> {
    let waiting = || (0..deps.len()).filter(|&i| instances[i].is_none());
    waiting()
        .find(|&i| deps[i].iter().all(|&j| instances[j].is_some()))
        .or_else(|| waiting().next())
}
