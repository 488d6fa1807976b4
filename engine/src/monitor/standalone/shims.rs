//! Shims: the host functions monitors import, resolved for the merged module.
//! `+lib` libraries are other instances' functions; the provided `wizeng`
//! imports (monitor ABI A6) become helper functions in Wasm (bodies in
//! [`super::shim_code`]) on WASI imports added for them; any other host import
//! stays an import of the merged module.

use std::collections::HashMap;

use super::builder::{Builder, W32, W64};
use super::remap::{Addrs, AppImports, IndexMap};
use super::shim_code::{gen_emit, gen_provided, gen_write, Io};
use super::WASI_MODULE;
use crate::core::error::LoadError;
use crate::core::types::{FuncAddr, FuncType};
use crate::runtime::store::{FuncKind, InstanceData, Store};

/// A `wizeng` provided import (monitor ABI A6) the merged module implements.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Provided {
    Puts,
    Puti,
    Putc,
    Error,
    Rdtsc,
    /// Any `wizeng:frame_accessor` function: a trap (there is no frame).
    NoFrame,
}

impl Provided {
    fn of(module: &str, name: &str) -> Option<Provided> {
        if module == monitor_abi::imports::MODULE_FRAME_ACCESSOR {
            return Some(Provided::NoFrame);
        }
        if module != monitor_abi::imports::MODULE_WIZENG {
            return None;
        }
        Some(match name {
            "puts" => Provided::Puts,
            "puti" => Provided::Puti,
            "putc" => Provided::Putc,
            "error" => Provided::Error,
            "rdtsc" => Provided::Rdtsc,
            _ => return None,
        })
    }
    fn writes(self) -> bool {
        !matches!(self, Provided::Rdtsc | Provided::NoFrame)
    }
    /// Whether its body reads the calling instance's memory 0.
    fn reads_mem(self) -> bool {
        matches!(self, Provided::Puts | Provided::Error)
    }
}

/// How an imported function of a monitor instance is resolved.
pub(super) enum ImportedFunc {
    /// Another instance's function (a `+lib` library).
    Wasm(FuncAddr),
    Provided(Provided),
    /// Any other host function: stays an import of the merged module.
    Kept {
        module: String,
        name: String,
        ty: FuncType,
    },
}

/// The monitors' imported functions: provided ones, kept ones, libraries.
pub(super) struct MonitorImports {
    /// Per instance (in store order), its imported functions.
    pub(super) funcs: Vec<Vec<ImportedFunc>>,
    /// The provided imports any instance uses.
    provided_used: Vec<Provided>,
}

impl MonitorImports {
    pub(super) fn classify(store: &Store, insts: &[&InstanceData]) -> MonitorImports {
        let mut imported: Vec<Vec<ImportedFunc>> = Vec::new();
        let mut provided_used: Vec<Provided> = Vec::new();
        for idata in insts {
            let m = &idata.module;
            let mut v = Vec::new();
            let func_imports = m
                .imports
                .iter()
                .filter(|i| matches!(i.desc, crate::core::module::ImportDesc::Func(_)));
            for (i, imp) in func_imports.enumerate() {
                let addr = idata.funcs[i];
                v.push(match store.funcs[addr.0 as usize].kind {
                    FuncKind::Wasm { .. } => ImportedFunc::Wasm(addr),
                    FuncKind::Host(_) => match Provided::of(&imp.module, &imp.name) {
                        Some(p) => {
                            if !provided_used.contains(&p) {
                                provided_used.push(p);
                            }
                            ImportedFunc::Provided(p)
                        }
                        None => ImportedFunc::Kept {
                            module: imp.module.clone(),
                            name: imp.name.clone(),
                            ty: store.func_type(addr).clone(),
                        },
                    },
                });
            }
            imported.push(v);
        }
        MonitorImports {
            funcs: imported,
            provided_used,
        }
    }

    fn needs_write(&self) -> bool {
        self.provided_used.iter().any(|p| p.writes())
    }

    fn needs_clock(&self) -> bool {
        self.provided_used.contains(&Provided::Rdtsc)
    }

    /// Whether the shims call WASI (and so need the helper memory).
    pub(super) fn needs_io(&self) -> bool {
        self.needs_write() || self.needs_clock()
    }
}

/// Function imports the merge adds after the app's: the WASI functions the
/// shims call (unless the app imports them already), the kept monitor imports.
pub(super) struct AddedImports {
    fd_write: Option<u32>,
    clock: Option<u32>,
    /// Merged index of each kept (module, name).
    pub(super) kept: HashMap<(String, String), u32>,
}

/// Add the function imports the shims and the monitors need to `b`.
pub(super) fn add_imports(
    b: &mut Builder,
    app: &AppImports,
    mons: &MonitorImports,
) -> Result<AddedImports, LoadError> {
    let nf = app.num_funcs;
    let wasi_func = |b: &mut Builder,
                     name: &str,
                     params: &[wasm_encoder::ValType],
                     results: &[wasm_encoder::ValType]| {
        let ty = b.types.get(params, results);
        if let Some((idx, _)) = app.wasi.get(name) {
            return *idx;
        }
        b.added_imports.push((WASI_MODULE.into(), name.into(), ty));
        nf + b.added_imports.len() as u32 - 1
    };
    let fd_write = mons
        .needs_write()
        .then(|| wasi_func(b, "fd_write", &[W32; 4], &[W32]));
    let clock = mons
        .needs_clock()
        .then(|| wasi_func(b, "clock_time_get", &[W32, W64, W32], &[W32]));
    let mut kept: HashMap<(String, String), u32> = HashMap::new();
    for v in &mons.funcs {
        for f in v {
            if let ImportedFunc::Kept { module, name, ty } = f {
                let key = (module.clone(), name.clone());
                if !kept.contains_key(&key) {
                    let t = b.types.of(ty)?;
                    b.added_imports.push((module.clone(), name.clone(), t));
                    kept.insert(key, nf + b.added_imports.len() as u32 - 1);
                }
            }
        }
    }
    Ok(AddedImports {
        fd_write,
        clock,
        kept,
    })
}

/// Add the shims as helpers of `b` and point the instances' provided imports
/// (`u32::MAX` in `mon_maps`) at them: one `emit`, then per instance a
/// `write` from its memory 0 and the shims that read that memory; the others
/// are shared between instances (frame accessors differ in type: one each).
#[allow(clippy::too_many_arguments)]
pub(super) fn add_helpers(
    b: &mut Builder,
    io: &Io,
    store: &Store,
    insts: &[&InstanceData],
    mons: &MonitorImports,
    added: &AddedImports,
    addrs: &Addrs,
    mon_maps: &mut [IndexMap],
) -> Result<(), LoadError> {
    let emit = match added.fd_write {
        Some(fw) => {
            let ty = b.types.get(&[W32, W32], &[]);
            Some(b.helper("emit", ty, gen_emit(io, fw)))
        }
        None => None,
    };
    let mut shared: HashMap<Provided, u32> = HashMap::new();
    for (k, idata) in insts.iter().enumerate() {
        let needs_mem = mons.funcs[k]
            .iter()
            .any(|f| matches!(f, ImportedFunc::Provided(p) if p.reads_mem()));
        let write = match (needs_mem, emit) {
            (true, Some(e)) => {
                let ty = b.types.get(&[W32; 3], &[]);
                let mem0 = idata.memories.first().map(|a| addrs.memories[a]);
                Some(b.helper("write", ty, gen_write(io, mem0, e)))
            }
            _ => None,
        };
        let mut per_inst: HashMap<Provided, u32> = HashMap::new();
        for (i, f) in mons.funcs[k].iter().enumerate() {
            let ImportedFunc::Provided(p) = f else {
                continue;
            };
            let cache = if p.reads_mem() {
                &mut per_inst
            } else {
                &mut shared
            };
            // (frame accessors differ in type: one helper each)
            let idx = match cache.get(p).filter(|_| *p != Provided::NoFrame) {
                Some(i) => *i,
                None => {
                    let ty = b.types.of(store.func_type(idata.funcs[i]))?;
                    let body = gen_provided(io, *p, write, emit, added.clock);
                    let idx = b.helper(&format!("{p:?}").to_lowercase(), ty, body);
                    cache.insert(*p, idx);
                    idx
                }
            };
            mon_maps[k].funcs[i] = idx;
        }
    }
    Ok(())
}
