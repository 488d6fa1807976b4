//! Rewriting the module section by section: each section re-encoded with the
//! index shifts, the additions appended to their sections (types, probe
//! imports, fold functions, counter globals, the fold export), each function
//! woven ([`super::function`]).

use wasm_encoder::reencode::Reencode;

use super::collect::Layout;
use super::counters::CounterSections;
use super::function::{weave_function, FuncCx};
use super::imports::{ProbeImports, Weaver};
use super::{enc_val, err};
use crate::core::error::LoadError;
use crate::core::module::PLACEHOLDER_BODY;
use crate::core::provenance::Origin;
use crate::monitor::inline::ZeroTested;

/// The module being rewritten.
pub(super) struct Rewriter<'a> {
    pub(super) cx: FuncCx<'a>,
    pub(super) layout: &'a Layout,
    pub(super) probe_imports: &'a ProbeImports,
    pub(super) weaver: Weaver,
    pub(super) counters: CounterSections,
    /// Which probe functions only test an operand against zero (shared by
    /// the module's functions).
    pub(super) zero_tested: ZeroTested,
    /// The provenance of the functions woven.
    pub(super) origin: Origin,
    /// Per defined function: whether its body is left as a placeholder, to
    /// be woven at its first use (`None`: every body is woven).
    deferred: Option<&'a [bool]>,
    out: wasm_encoder::Module,
    /// Defined functions woven so far.
    def: u32,
    saw_imports: bool,
    /// The code section being written (ended by the next section).
    code_sec: Option<wasm_encoder::CodeSection>,
}

impl<'a> Rewriter<'a> {
    pub(super) fn new(
        cx: FuncCx<'a>,
        layout: &'a Layout,
        probe_imports: &'a ProbeImports,
        n_counters: usize,
        deferred: Option<&'a [bool]>,
    ) -> Rewriter<'a> {
        let m = cx.m;
        Rewriter {
            weaver: Weaver::new(m.num_imported_funcs, layout),
            counters: CounterSections::new(
                n_counters,
                layout.first_fold,
                !layout.fold_funcs.is_empty(),
            ),
            zero_tested: ZeroTested::default(),
            origin: Origin::new(m.num_imported_funcs, layout.shift(), m.bodies.len()),
            cx,
            layout,
            probe_imports,
            deferred,
            out: wasm_encoder::Module::new(),
            def: 0,
            saw_imports: false,
            code_sec: None,
        }
    }

    /// The woven module's bytes.
    pub(super) fn rewrite(&mut self) -> Result<Vec<u8>, LoadError> {
        let parser = wasmparser::Parser::new(0);
        let bytes = &self.cx.m.bytes;
        for payload in parser.parse_all(bytes) {
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
        let d = self.def as usize;
        let idx = self.cx.m.num_imported_funcs + self.def;
        let cs = self
            .code_sec
            .get_or_insert_with(wasm_encoder::CodeSection::new);
        if self.deferred.is_some_and(|l| l[d]) {
            cs.raw(&PLACEHOLDER_BODY);
        } else {
            let (body, origin) =
                weave_function(&self.cx, &mut self.weaver, &mut self.zero_tested, idx)?;
            self.origin.set(d, origin);
            cs.raw(&body);
        }
        self.def += 1;
        if self.def as usize == self.cx.m.bodies.len() {
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
