//! Rewriting the module section by section: each section re-encoded with the
//! index shifts, the additions appended to their sections (types, probe
//! imports, fold functions, counter globals, the fold export), each function
//! woven ([`super::function`]).

use rustc_hash::FxHashMap as HashMap;

use wasm_encoder::reencode::Reencode;

use super::collect::Layout;
use super::counters::CounterSections;
use super::imports::{ProbeImports, Weaver};
use super::plan::Plan;
use super::provenance::Provenance;
use super::{enc_val, err};
use crate::core::error::LoadError;
use crate::core::module::Module;
use crate::monitor::blockcount::FuncBlocks;
use crate::monitor::inline::{InlineConfig, ZeroTested};
use crate::runtime::store::Store;

/// The module being rewritten.
pub(super) struct Rewriter<'a> {
    pub(super) m: &'a Module,
    pub(super) plan: &'a Plan,
    pub(super) store: &'a Store,
    pub(super) cfg: &'a InlineConfig,
    pub(super) layout: &'a Layout,
    pub(super) probe_imports: &'a ProbeImports,
    pub(super) func_blocks: &'a HashMap<u32, FuncBlocks>,
    pub(super) weaver: Weaver,
    pub(super) counters: CounterSections,
    /// Which probe functions only test an operand against zero (shared by
    /// the module's functions).
    pub(super) zero_tested: ZeroTested,
    pub(super) prov: Provenance,
    /// Probe calls inlined twice under a test of their operand.
    pub(super) specialized: u64,
    out: wasm_encoder::Module,
    /// Defined functions woven so far.
    def: u32,
    saw_imports: bool,
    /// The code section being written (ended by the next section).
    code_sec: Option<wasm_encoder::CodeSection>,
}

impl<'a> Rewriter<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        m: &'a Module,
        plan: &'a Plan,
        store: &'a Store,
        cfg: &'a InlineConfig,
        layout: &'a Layout,
        probe_imports: &'a ProbeImports,
        func_blocks: &'a HashMap<u32, FuncBlocks>,
        n_counters: usize,
    ) -> Rewriter<'a> {
        Rewriter {
            m,
            plan,
            store,
            cfg,
            layout,
            probe_imports,
            func_blocks,
            weaver: Weaver::new(m.num_imported_funcs, layout),
            counters: CounterSections::new(
                n_counters,
                layout.first_fold,
                !layout.fold_funcs.is_empty(),
            ),
            zero_tested: ZeroTested::default(),
            prov: Provenance::default(),
            specialized: 0,
            out: wasm_encoder::Module::new(),
            def: 0,
            saw_imports: false,
            code_sec: None,
        }
    }

    /// The woven module's bytes.
    pub(super) fn rewrite(&mut self) -> Result<Vec<u8>, LoadError> {
        let parser = wasmparser::Parser::new(0);
        for payload in parser.parse_all(&self.m.bytes) {
            self.section(payload.map_err(LoadError::from)?)?;
        }
        Ok(std::mem::take(&mut self.out).finish())
    }

    fn section(&mut self, payload: wasmparser::Payload<'_>) -> Result<(), LoadError> {
        use wasmparser::Payload as P;
        let out = &mut self.out;
        match payload {
            P::Version { .. } => {}
            P::TypeSection(r) => {
                let mut ts = wasm_encoder::TypeSection::new();
                self.weaver.parse_type_section(&mut ts, r).map_err(err)?;
                for t in &self.layout.extra_types {
                    ts.function(
                        t.params.iter().map(|v| enc_val(*v)),
                        t.results.iter().map(|v| enc_val(*v)),
                    );
                }
                out.section(&ts);
            }
            P::ImportSection(r) => {
                self.saw_imports = true;
                let mut is = wasm_encoder::ImportSection::new();
                self.weaver.parse_import_section(&mut is, r).map_err(err)?;
                self.probe_imports.add_to(&mut is);
                out.section(&is);
            }
            P::FunctionSection(r) => self.function_section(r)?,
            P::TableSection(r) => {
                let mut s = wasm_encoder::TableSection::new();
                self.weaver.parse_table_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::MemorySection(r) => {
                let mut s = wasm_encoder::MemorySection::new();
                self.weaver.parse_memory_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::TagSection(r) => {
                let mut s = wasm_encoder::TagSection::new();
                self.weaver.parse_tag_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::GlobalSection(r) => {
                let mut s = wasm_encoder::GlobalSection::new();
                self.weaver.parse_global_section(&mut s, r).map_err(err)?;
                self.counters.add_globals(&mut s);
                out.section(&s);
            }
            P::ExportSection(r) => {
                self.counters.missing(out, true, false);
                let mut s = wasm_encoder::ExportSection::new();
                self.weaver.parse_export_section(&mut s, r).map_err(err)?;
                self.counters.add_export(&mut s);
                out.section(&s);
            }
            P::StartSection { func, .. } => {
                self.counters.missing(out, true, true);
                out.section(&wasm_encoder::StartSection {
                    function_index: self.weaver.function_index(func),
                });
            }
            P::ElementSection(r) => {
                self.counters.missing(out, true, true);
                let mut s = wasm_encoder::ElementSection::new();
                self.weaver.parse_element_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::DataCountSection { count, .. } => {
                self.counters.missing(out, true, true);
                out.section(&wasm_encoder::DataCountSection { count });
            }
            P::DataSection(r) => {
                self.end_code_section();
                let mut s = wasm_encoder::DataSection::new();
                self.weaver.parse_data_section(&mut s, r).map_err(err)?;
                self.out.section(&s);
            }
            P::CodeSectionStart { .. } => {
                self.counters.missing(out, true, true);
                self.code_sec = Some(wasm_encoder::CodeSection::new())
            }
            P::CodeSectionEntry(_) => self.code_entry()?,
            P::CustomSection(c) => {
                self.end_code_section();
                if c.name() == "name" {
                    if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                        if let Ok(ns) = self.weaver.custom_name_section(names) {
                            self.out.section(&ns);
                        }
                    }
                }
            }
            P::End(_) => self.end_code_section(),
            _ => {}
        }
        Ok(())
    }

    /// The function section, with the fold functions; the probe imports
    /// first if the app has no import section.
    fn function_section(
        &mut self,
        r: wasmparser::FunctionSectionReader<'_>,
    ) -> Result<(), LoadError> {
        if !self.saw_imports && !self.probe_imports.entities.is_empty() {
            let mut is = wasm_encoder::ImportSection::new();
            self.probe_imports.add_to(&mut is);
            self.out.section(&is);
            self.saw_imports = true;
        }
        let mut fs = wasm_encoder::FunctionSection::new();
        self.weaver
            .parse_function_section(&mut fs, r)
            .map_err(err)?;
        for _ in &self.layout.fold_funcs {
            fs.function(self.layout.fold_type);
        }
        self.out.section(&fs);
        Ok(())
    }

    /// The next defined function, woven; after the last one, the fold functions.
    fn code_entry(&mut self) -> Result<(), LoadError> {
        let idx = self.m.num_imported_funcs + self.def;
        let body = self.weave_function(idx)?;
        let cs = self
            .code_sec
            .get_or_insert_with(wasm_encoder::CodeSection::new);
        cs.raw(&body);
        self.def += 1;
        if self.def as usize == self.m.bodies.len() {
            for f in &self.layout.fold_funcs {
                cs.function(f);
            }
        }
        Ok(())
    }

    fn end_code_section(&mut self) {
        if let Some(cs) = self.code_sec.take() {
            self.out.section(&cs);
        }
    }
}
