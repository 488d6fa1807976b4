//! The import section of the woven module: the app's imports, then the
//! `wizeng:probe` imports (`pN` functions, `mN` memories, `gN` globals), and
//! the index shifts they cause in the app's code ([`Weaver`]).

use wasm_encoder::reencode::Reencode;

use super::collect::Layout;
use super::{enc_val, PROBE_MODULE};
use crate::core::types::Extern;
use crate::runtime::store::Store;

/// Index shifts: added imports come right after the app's own imports of each kind.
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
