//! Encoding the merged module, section by section: in each index space the
//! app's entities (re-encoded through its index map), each instance's (with
//! its state from [`super::snapshot`]), then what the merge adds.

use wasm_encoder::reencode::Reencode;
use wasm_encoder::ConstExpr;

use super::builder::{Builder, W32};
use super::parts::Parts;
use super::reencode_err;
use super::remap::{Addrs, IndexMap};
use crate::core::error::LoadError;
use crate::monitor::weave::PROBE_MODULE;
use crate::runtime::store::{InstanceData, Store};

/// A merged module whose every index is known, to be encoded.
pub(super) struct Merged<'a> {
    pub(super) store: &'a Store,
    pub(super) app: Parts<'a>,
    pub(super) app_map: IndexMap,
    pub(super) insts: Vec<&'a InstanceData>,
    pub(super) mons: Vec<Parts<'a>>,
    pub(super) mon_maps: Vec<IndexMap>,
    pub(super) types_base: Vec<u32>,
    pub(super) addrs: Addrs,
    pub(super) b: Builder,
    pub(super) helper_mem: Option<u32>,
    /// The memory WASI calls of the helpers go through (exported as `memory`
    /// if the app exports none).
    pub(super) wasi_memory: Option<u32>,
    /// The entry export, wrapped by `entry_wrapper`.
    pub(super) entry_name: String,
    pub(super) entry_wrapper: u32,
    /// The exit hooks' `done` and `deferred` flags (mutable i32 globals, last).
    pub(super) flags: [u32; 2],
    /// Helpers exported for harnesses.
    pub(super) exports: [(&'static str, u32); 3],
}

impl Merged<'_> {
    pub(super) fn encode(mut self) -> Result<Vec<u8>, LoadError> {
        let mut out = wasm_encoder::Module::new();
        out.section(&self.type_section()?);
        out.section(&self.import_section()?);
        out.section(&self.function_section());
        let mut tabs = wasm_encoder::TableSection::new();
        for t in &self.app.tables {
            self.app_map
                .parse_table(&mut tabs, t.clone())
                .map_err(reencode_err)?;
        }
        let snap_elems = self.monitor_tables(&mut tabs)?;
        out.section(&tabs);
        let mut mems = self.app_memories();
        let snap_data = self.monitor_memories(&mut mems);
        out.section(&mems);
        let tags = self.tag_section()?;
        if !tags.is_empty() {
            out.section(&tags);
        }
        out.section(&self.global_section()?);
        out.section(&self.export_section());
        if let Some(s) = self.app.start {
            out.section(&wasm_encoder::StartSection {
                function_index: self.app_map.funcs[s as usize],
            });
        }
        let mut els = wasm_encoder::ElementSection::new();
        for e in &self.app.elems {
            self.app_map
                .parse_element(&mut els, e.clone())
                .map_err(reencode_err)?;
        }
        self.monitor_elems(&mut els, &snap_elems)?;
        out.section(&els);
        let mut ds = wasm_encoder::DataSection::new();
        for d in &self.app.datas {
            self.app_map
                .parse_data(&mut ds, d.clone())
                .map_err(reencode_err)?;
        }
        self.monitor_datas(&mut ds, &snap_data);
        if ds.len() > 0 {
            out.section(&wasm_encoder::DataCountSection { count: ds.len() });
        }
        out.section(&self.code_section()?);
        out.section(&ds);
        out.section(&self.names());
        Ok(out.finish())
    }

    /// The app's tags (at their indices), then each instance's.
    fn tag_section(&mut self) -> Result<wasm_encoder::TagSection, LoadError> {
        let mut tags = wasm_encoder::TagSection::new();
        if let Some(r) = self.app.tags.clone() {
            self.app_map
                .parse_tag_section(&mut tags, r)
                .map_err(reencode_err)?;
        }
        for (k, m) in self.mons.iter().enumerate() {
            if let Some(r) = m.tags.clone() {
                self.mon_maps[k]
                    .parse_tag_section(&mut tags, r)
                    .map_err(reencode_err)?;
            }
        }
        Ok(tags)
    }

    /// The app's types, each instance's, then the helpers'.
    fn type_section(&mut self) -> Result<wasm_encoder::TypeSection, LoadError> {
        let mut ts = wasm_encoder::TypeSection::new();
        if let Some(r) = self.app.types.clone() {
            self.app_map
                .parse_type_section(&mut ts, r)
                .map_err(reencode_err)?;
        }
        for (k, m) in self.mons.iter().enumerate() {
            if let Some(r) = m.types.clone() {
                self.mon_maps[k]
                    .parse_type_section(&mut ts, r)
                    .map_err(reencode_err)?;
            }
        }
        for (p, r) in &self.b.types.list {
            ts.function(p.iter().copied(), r.iter().copied());
        }
        Ok(ts)
    }

    /// The app's imports but its probe imports, then the added function imports.
    fn import_section(&mut self) -> Result<wasm_encoder::ImportSection, LoadError> {
        let mut is = wasm_encoder::ImportSection::new();
        for imp in self.app.imports.iter().filter(|i| i.module != PROBE_MODULE) {
            self.app_map
                .parse_import(&mut is, *imp)
                .map_err(reencode_err)?;
        }
        // Added function imports go after the app's; the app's non-function imports
        // may come after its function imports in the section, which is fine.
        for (module, name, ty) in &self.b.added_imports {
            is.import(module, name, wasm_encoder::EntityType::Function(*ty));
        }
        Ok(is)
    }

    /// The app's defined functions, each instance's, then the helpers.
    fn function_section(&self) -> wasm_encoder::FunctionSection {
        let mut fs = wasm_encoder::FunctionSection::new();
        for t in &self.app.funcs {
            fs.function(*t);
        }
        for (k, idata) in self.insts.iter().enumerate() {
            let m = &idata.module;
            for i in m.num_imported_funcs..m.num_funcs() {
                fs.function(self.types_base[k] + m.func_types[i as usize]);
            }
        }
        for (_, t, _) in &self.b.helpers {
            fs.function(*t);
        }
        fs
    }

    /// The app's memories and the helper memory (the instances' follow).
    fn app_memories(&mut self) -> wasm_encoder::MemorySection {
        let mut mems = wasm_encoder::MemorySection::new();
        for mt in &self.app.memories {
            mems.memory(self.app_map.memory_type(*mt));
        }
        if self.helper_mem.is_some() {
            mems.memory(wasm_encoder::MemoryType {
                minimum: 1,
                maximum: Some(1),
                memory64: false,
                shared: false,
                page_size_log2: None,
            });
        }
        mems
    }

    /// The app's globals, each instance's, then the exit hooks' flags.
    fn global_section(&mut self) -> Result<wasm_encoder::GlobalSection, LoadError> {
        let mut gs = wasm_encoder::GlobalSection::new();
        for g in &self.app.globals {
            self.app_map
                .parse_global(&mut gs, g.clone())
                .map_err(reencode_err)?;
        }
        self.monitor_globals(&mut gs)?;
        for _ in self.flags {
            gs.global(
                wasm_encoder::GlobalType {
                    val_type: W32,
                    mutable: true,
                    shared: false,
                },
                &ConstExpr::i32_const(0),
            );
        }
        Ok(gs)
    }

    /// The app's exports (its entry wrapped), the harness exports, and
    /// `memory` for WASI if the app exports none.
    fn export_section(&mut self) -> wasm_encoder::ExportSection {
        let mut es = wasm_encoder::ExportSection::new();
        let mut exports_memory = false;
        for e in &self.app.exports {
            exports_memory |= e.name == "memory";
            if e.kind == wasmparser::ExternalKind::Func && e.name == self.entry_name {
                es.export(e.name, wasm_encoder::ExportKind::Func, self.entry_wrapper);
            } else {
                self.app_map.parse_export(&mut es, *e);
            }
        }
        for (name, f) in self.exports {
            es.export(name, wasm_encoder::ExportKind::Func, f);
        }
        if let (false, Some(m)) = (exports_memory, self.wasi_memory) {
            // WASI functions use the exported `memory`.
            es.export("memory", wasm_encoder::ExportKind::Memory, m);
        }
        es
    }

    /// The app's bodies, each instance's, then the helpers'.
    fn code_section(&mut self) -> Result<wasm_encoder::CodeSection, LoadError> {
        let mut code = wasm_encoder::CodeSection::new();
        for body in &self.app.bodies {
            self.app_map
                .parse_function_body(&mut code, body.clone())
                .map_err(reencode_err)?;
        }
        for (k, m) in self.mons.iter().enumerate() {
            for body in &m.bodies {
                self.mon_maps[k]
                    .parse_function_body(&mut code, body.clone())
                    .map_err(reencode_err)?;
            }
        }
        for (_, _, f) in &self.b.helpers {
            code.function(f);
        }
        Ok(code)
    }

    /// Function names: the app's, `monitor:NAME` for each instance's, the helpers'.
    fn names(&self) -> wasm_encoder::NameSection {
        let mut all: std::collections::BTreeMap<u32, String> = Default::default();
        for (i, n) in &self.app.func_names {
            if let Some(f) = self.app_map.funcs.get(*i as usize) {
                all.entry(*f).or_insert_with(|| n.to_string());
            }
        }
        for (k, idata) in self.insts.iter().enumerate() {
            let m = &idata.module;
            let who = m.name.clone().unwrap_or_else(|| format!("monitor{k}"));
            for i in m.num_imported_funcs..m.num_funcs() {
                let f = self.mon_maps[k].funcs[i as usize];
                all.insert(f, format!("{who}:{}", m.func_name(i)));
            }
        }
        let b = &self.b;
        for (j, (name, _, _)) in b.helpers.iter().enumerate() {
            all.insert(b.helpers_base + j as u32, name.clone());
        }
        let mut map = wasm_encoder::NameMap::new();
        for (i, n) in &all {
            map.append(*i, n);
        }
        let mut ns = wasm_encoder::NameSection::new();
        ns.functions(&map);
        ns
    }
}
