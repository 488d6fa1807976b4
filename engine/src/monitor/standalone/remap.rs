//! Index remapping: where each entity of the woven app and of every monitor
//! instance lands in the merged module, per index space.
//!
//! Order in each space: the app's kept imports, the added function imports
//! (functions only), the app's defined entities, each instance's defined
//! entities (in store order), then what the merge adds (helper functions, the
//! helper memory after the app's memories, the exit hooks' flag globals).
//! The app's `wizeng:probe` imports disappear: they name the merged entities
//! of the store they were bound to.

use std::collections::HashMap;

use wasm_encoder::reencode::Reencode;

use super::builder::Builder;
use super::parts::Parts;
use super::shims::{AddedImports, ImportedFunc, MonitorImports};
use super::{unsupported, WASI_MODULE};
use crate::core::error::LoadError;
use crate::core::types::{Extern, FuncAddr, GlobalAddr, MemAddr, TableAddr, TagAddr};
use crate::monitor::weave::PROBE_MODULE;
use crate::runtime::store::InstanceData;

/// Index remapping of one source module (the woven app or a monitor instance)
/// into the merged module.
#[derive(Default)]
pub(super) struct IndexMap {
    pub(super) funcs: Vec<u32>,
    pub(super) tables: Vec<u32>,
    pub(super) memories: Vec<u32>,
    pub(super) globals: Vec<u32>,
    /// Empty for the app, whose tags keep their indices.
    pub(super) tags: Vec<u32>,
    pub(super) types_base: u32,
    pub(super) elems_base: u32,
    pub(super) datas_base: u32,
}

impl Reencode for IndexMap {
    type Error = std::convert::Infallible;
    fn function_index(&mut self, f: u32) -> u32 {
        self.funcs[f as usize]
    }
    fn table_index(&mut self, t: u32) -> u32 {
        self.tables[t as usize]
    }
    fn memory_index(&mut self, m: u32) -> u32 {
        self.memories[m as usize]
    }
    fn global_index(&mut self, g: u32) -> u32 {
        self.globals[g as usize]
    }
    fn tag_index(&mut self, t: u32) -> u32 {
        self.tags.get(t as usize).copied().unwrap_or(t)
    }
    fn type_index(&mut self, t: u32) -> u32 {
        self.types_base + t
    }
    fn element_index(&mut self, e: u32) -> u32 {
        self.elems_base + e
    }
    fn data_index(&mut self, d: u32) -> u32 {
        self.datas_base + d
    }
}

/// Merging state: the merged index of every store entity.
pub(super) struct Addrs {
    pub(super) funcs: HashMap<FuncAddr, u32>,
    pub(super) memories: HashMap<MemAddr, u32>,
    pub(super) globals: HashMap<GlobalAddr, u32>,
    pub(super) tables: HashMap<TableAddr, u32>,
    pub(super) tags: HashMap<TagAddr, u32>,
}

impl Addrs {
    pub(super) fn func(&self, a: FuncAddr) -> Result<u32, LoadError> {
        self.funcs.get(&a).copied().ok_or_else(|| {
            unsupported(format!(
                "function {} is a host function that cannot be merged",
                a.0
            ))
        })
    }
}

/// Give the entities an instance defines (after its `imported` imports) the
/// next merged indices.
fn number_defined<A: Copy + Eq + std::hash::Hash>(
    map: &mut HashMap<A, u32>,
    next: &mut u32,
    addrs: &[A],
    imported: u32,
) {
    for a in &addrs[imported as usize..] {
        map.insert(*a, *next);
        *next += 1;
    }
}

/// The merged indices of an instance's index space (`what`: its kind).
fn resolve<A: Eq + std::hash::Hash>(
    map: &HashMap<A, u32>,
    addrs: &[A],
    what: &str,
) -> Result<Vec<u32>, LoadError> {
    addrs
        .iter()
        .map(|a| {
            map.get(a).copied().ok_or_else(|| {
                unsupported(format!(
                    "a monitor imports a {what} the merged module cannot provide"
                ))
            })
        })
        .collect()
}

/// The first merged type index of each instance (its types follow the app's
/// and the earlier instances'), and the number of all their types.
pub(super) fn type_bases(app: &Parts, mons: &[Parts]) -> (Vec<u32>, u32) {
    let mut types_base = Vec::new();
    let mut nt = app.num_types;
    for m in mons {
        types_base.push(nt);
        nt += m.num_types;
    }
    (types_base, nt)
}

/// An import of the app: kept (at this merged index), or a probe import
/// bound to a store entity.
enum Bound {
    Kept(u32),
    Probe(Extern),
}

/// The app's imports: kept ones, and the probe imports' targets.
pub(super) struct AppImports<'a> {
    funcs: Vec<Bound>,
    mems: Vec<Bound>,
    globals: Vec<Bound>,
    /// The app's WASI function imports: name -> (merged index, type).
    pub(super) wasi: HashMap<&'a str, (u32, u32)>,
    /// How many imports of each kind the merged module keeps.
    pub(super) num_funcs: u32,
    num_mems: u32,
    num_globals: u32,
    num_tables: u32,
    num_tags: u32,
}

impl<'a> AppImports<'a> {
    pub(super) fn bind(
        app: &Parts<'a>,
        probes: &HashMap<&str, Extern>,
    ) -> Result<AppImports<'a>, LoadError> {
        let mut r = AppImports {
            funcs: Vec::new(),
            mems: Vec::new(),
            globals: Vec::new(),
            wasi: HashMap::new(),
            num_funcs: 0,
            num_mems: 0,
            num_globals: 0,
            num_tables: 0,
            num_tags: 0,
        };
        for imp in &app.imports {
            let probe =
                if imp.module == PROBE_MODULE {
                    Some(*probes.get(imp.name).ok_or_else(|| {
                        unsupported(format!("unbound probe import `{}`", imp.name))
                    })?)
                } else {
                    None
                };
            match (imp.ty, probe) {
                (wasmparser::TypeRef::Func(t), None) => {
                    if imp.module == WASI_MODULE {
                        r.wasi.insert(imp.name, (r.num_funcs, t));
                    }
                    r.funcs.push(Bound::Kept(r.num_funcs));
                    r.num_funcs += 1;
                }
                (wasmparser::TypeRef::Memory(_), None) => {
                    r.mems.push(Bound::Kept(r.num_mems));
                    r.num_mems += 1;
                }
                (wasmparser::TypeRef::Global(_), None) => {
                    r.globals.push(Bound::Kept(r.num_globals));
                    r.num_globals += 1;
                }
                (wasmparser::TypeRef::Table(_), None) => r.num_tables += 1,
                (wasmparser::TypeRef::Tag(_), None) => r.num_tags += 1,
                (wasmparser::TypeRef::Func(_), Some(e)) => r.funcs.push(Bound::Probe(e)),
                (wasmparser::TypeRef::Memory(_), Some(e)) => r.mems.push(Bound::Probe(e)),
                (wasmparser::TypeRef::Global(_), Some(e)) => r.globals.push(Bound::Probe(e)),
                _ => {
                    return Err(unsupported(format!(
                        "probe import `{}` of an unexpected kind",
                        imp.name
                    )))
                }
            }
        }
        Ok(r)
    }

    /// The merged index of the app's WASI `proc_exit` import, if it has one.
    pub(super) fn proc_exit(&self) -> Option<u32> {
        self.wasi.get("proc_exit").map(|(idx, _)| *idx)
    }
}

/// Every entity of the merged module numbered.
pub(super) struct Layout {
    pub(super) addrs: Addrs,
    app_defined_base: u32,
    app_mem_imports: u32,
    app_global_imports: u32,
    num_tables: u32,
    app_elems: u32,
    app_datas: u32,
    /// The helper memory the provided imports write through, if any uses it.
    pub(super) helper_mem: Option<u32>,
    pub(super) app_has_memory: bool,
    /// The exit hooks' `done` and `deferred` flags (mutable i32 globals, last).
    pub(super) flags: [u32; 2],
}

impl Layout {
    /// Number the defined entities, after the app's kept imports and the
    /// added function imports of `b`; also fixes `b.helpers_base`. With
    /// `needs_io`, a helper memory follows the app's memories.
    pub(super) fn number(
        app: &Parts,
        imports: &AppImports,
        insts: &[&InstanceData],
        b: &mut Builder,
        needs_io: bool,
    ) -> Layout {
        let mut addrs = Addrs {
            funcs: HashMap::new(),
            memories: HashMap::new(),
            globals: HashMap::new(),
            tables: HashMap::new(),
            tags: HashMap::new(),
        };
        // Functions: the app's, then each instance's, then the helpers.
        let mut nf = imports.num_funcs + b.added_imports.len() as u32;
        let app_defined_base = nf;
        nf += app.funcs.len() as u32;
        for idata in insts {
            let n = idata.module.num_imported_funcs;
            number_defined(&mut addrs.funcs, &mut nf, &idata.funcs, n);
        }
        b.helpers_base = nf;
        // Memories: the app's, the helper memory, each instance's.
        let mut nm = imports.num_mems;
        let app_mem_imports = nm;
        nm += app.memories.len() as u32;
        let app_has_memory = nm > 0;
        let helper_mem = needs_io.then(|| {
            nm += 1;
            nm - 1
        });
        for idata in insts {
            let n = idata.module.num_imported_memories;
            number_defined(&mut addrs.memories, &mut nm, &idata.memories, n);
        }
        // Globals: the app's, each instance's, then the exit hooks' flags.
        let mut ng = imports.num_globals;
        let app_global_imports = ng;
        ng += app.globals.len() as u32;
        for idata in insts {
            let n = idata.module.num_imported_globals;
            number_defined(&mut addrs.globals, &mut ng, &idata.globals, n);
        }
        // Tables: the app's, each instance's.
        let mut ntab = imports.num_tables + app.tables.len() as u32;
        for idata in insts {
            let n = idata.module.num_imported_tables;
            number_defined(&mut addrs.tables, &mut ntab, &idata.tables, n);
        }
        // Tags: the app's (kept imports and defined, at their indices),
        // each instance's.
        let mut ntag = imports.num_tags + app.num_tags();
        for idata in insts {
            let n = idata.module.num_imported_tags;
            number_defined(&mut addrs.tags, &mut ntag, &idata.tags, n);
        }
        Layout {
            addrs,
            app_defined_base,
            app_mem_imports,
            app_global_imports,
            num_tables: ntab,
            app_elems: app.elems.len() as u32,
            app_datas: app.datas.len() as u32,
            helper_mem,
            app_has_memory,
            flags: [ng, ng + 1],
        }
    }

    /// The app's index map: kept imports stay, probe imports name the merged
    /// monitor entities, defined entities follow.
    pub(super) fn app_map(&self, app: &Parts, imports: &AppImports) -> Result<IndexMap, LoadError> {
        let addrs = &self.addrs;
        let mut map = IndexMap::default();
        for w in &imports.funcs {
            map.funcs.push(match w {
                Bound::Kept(i) => *i,
                Bound::Probe(Extern::Func(a)) => addrs.func(*a)?,
                Bound::Probe(_) => {
                    return Err(unsupported(
                        "a probe function import bound to a non-function",
                    ))
                }
            });
        }
        for j in 0..app.funcs.len() as u32 {
            map.funcs.push(self.app_defined_base + j);
        }
        for w in &imports.mems {
            map.memories.push(match w {
                Bound::Kept(i) => *i,
                Bound::Probe(Extern::Memory(a)) => addrs.memories[a],
                Bound::Probe(_) => {
                    return Err(unsupported("a probe memory import bound to a non-memory"))
                }
            });
        }
        for j in 0..app.memories.len() as u32 {
            map.memories.push(self.app_mem_imports + j);
        }
        for w in &imports.globals {
            map.globals.push(match w {
                Bound::Kept(i) => *i,
                Bound::Probe(Extern::Global(a)) => addrs.globals[a],
                Bound::Probe(_) => {
                    return Err(unsupported("a probe global import bound to a non-global"))
                }
            });
        }
        for j in 0..app.globals.len() as u32 {
            map.globals.push(self.app_global_imports + j);
        }
        map.tables = (0..self.num_tables).collect();
        Ok(map)
    }

    /// Each instance's index map. Its provided imports are left as
    /// `u32::MAX`: they are resolved once the helpers exist
    /// (`shims::add_helpers`).
    pub(super) fn monitor_maps(
        &self,
        insts: &[&InstanceData],
        imported: &MonitorImports,
        added: &AddedImports,
        types_base: &[u32],
    ) -> Result<Vec<IndexMap>, LoadError> {
        let addrs = &self.addrs;
        let mut maps: Vec<IndexMap> = Vec::new();
        let (mut ne, mut nd) = (self.app_elems, self.app_datas);
        for (k, idata) in insts.iter().enumerate() {
            let m = &idata.module;
            let mut map = IndexMap {
                types_base: types_base[k],
                elems_base: ne,
                datas_base: nd,
                ..Default::default()
            };
            ne += m.elems.len() as u32;
            nd += m.datas.len() as u32;
            for i in 0..m.num_funcs() {
                let idx = match imported.funcs[k].get(i as usize) {
                    Some(ImportedFunc::Wasm(a)) => addrs.func(*a)?,
                    Some(ImportedFunc::Provided(_)) => u32::MAX,
                    Some(ImportedFunc::Kept { module, name, .. }) => {
                        added.kept[&(module.clone(), name.clone())]
                    }
                    None => addrs.func(idata.funcs[i as usize])?,
                };
                map.funcs.push(idx);
            }
            map.memories = resolve(&addrs.memories, &idata.memories, "memory")?;
            map.globals = resolve(&addrs.globals, &idata.globals, "global")?;
            map.tables = resolve(&addrs.tables, &idata.tables, "table")?;
            map.tags = resolve(&addrs.tags, &idata.tags, "tag")?;
            maps.push(map);
        }
        Ok(maps)
    }
}
