//! The sections of a source module (the woven app, or a monitor instance's
//! module), decoded for the merge.

use crate::core::error::LoadError;
use crate::monitor::weave::PROBE_MODULE;

/// The sections of a module, decoded.
#[derive(Default)]
pub(super) struct Parts<'a> {
    pub(super) types: Option<wasmparser::TypeSectionReader<'a>>,
    pub(super) num_types: u32,
    /// Number of parameters of each function type.
    pub(super) type_params: Vec<usize>,
    /// Function names from the name section.
    pub(super) func_names: Vec<(u32, &'a str)>,
    pub(super) imports: Vec<wasmparser::Import<'a>>,
    pub(super) funcs: Vec<u32>,
    pub(super) tables: Vec<wasmparser::Table<'a>>,
    pub(super) memories: Vec<wasmparser::MemoryType>,
    pub(super) globals: Vec<wasmparser::Global<'a>>,
    pub(super) exports: Vec<wasmparser::Export<'a>>,
    pub(super) start: Option<u32>,
    pub(super) elems: Vec<wasmparser::Element<'a>>,
    pub(super) bodies: Vec<wasmparser::FunctionBody<'a>>,
    pub(super) datas: Vec<wasmparser::Data<'a>>,
    /// Defined exception tags.
    pub(super) tags: Option<wasmparser::TagSectionReader<'a>>,
}

impl<'a> Parts<'a> {
    pub(super) fn parse(bytes: &'a [u8]) -> Result<Parts<'a>, LoadError> {
        use wasmparser::Payload as P;
        fn all<T, R: IntoIterator<Item = wasmparser::Result<T>>>(
            into: &mut Vec<T>,
            r: R,
        ) -> Result<(), LoadError> {
            for x in r {
                into.push(x?);
            }
            Ok(())
        }
        let mut p = Parts::default();
        for payload in wasmparser::Parser::new(0).parse_all(bytes) {
            match payload? {
                P::TypeSection(r) => {
                    for t in r.clone().into_iter_err_on_gc_types() {
                        p.type_params.push(t?.params().len());
                    }
                    p.num_types = r.count();
                    p.types = Some(r);
                }
                P::ImportSection(r) => all(&mut p.imports, r)?,
                P::FunctionSection(r) => all(&mut p.funcs, r)?,
                P::TableSection(r) => all(&mut p.tables, r)?,
                P::MemorySection(r) => all(&mut p.memories, r)?,
                P::GlobalSection(r) => all(&mut p.globals, r)?,
                P::ExportSection(r) => all(&mut p.exports, r)?,
                P::StartSection { func, .. } => p.start = Some(func),
                P::ElementSection(r) => all(&mut p.elems, r)?,
                P::CodeSectionEntry(b) => p.bodies.push(b),
                P::DataSection(r) => all(&mut p.datas, r)?,
                P::TagSection(r) => p.tags = Some(r),
                P::CustomSection(c) => {
                    if let wasmparser::KnownCustom::Name(r) = c.as_known() {
                        for sub in r.into_iter().flatten() {
                            if let wasmparser::Name::Function(m) = sub {
                                for n in m.into_iter().flatten() {
                                    p.func_names.push((n.index, n.name));
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(p)
    }

    /// Whether the app's memory 0 (imported or defined; a woven app's probe
    /// imports are monitor memories) is a 64-bit memory.
    pub(super) fn memory0_is_64(&self) -> bool {
        let imported = self.imports.iter().find_map(|i| match i.ty {
            wasmparser::TypeRef::Memory(m) if i.module != PROBE_MODULE => Some(m),
            _ => None,
        });
        imported
            .or(self.memories.first().copied())
            .is_some_and(|m| m.memory64)
    }

    /// Number of defined exception tags.
    pub(super) fn num_tags(&self) -> u32 {
        self.tags.as_ref().map_or(0, |r| r.count())
    }
}
