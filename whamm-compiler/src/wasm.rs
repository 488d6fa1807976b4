//! A small module builder over `wasm-encoder`, and the linking of the
//! monitor runtime (`src/rt.wat`, assembled by build.rs) into it.

use std::collections::HashMap;
use wasm_encoder::reencode::Reencode;
use wasm_encoder::{
    self as we, ConstExpr, EntityType, ExportKind, Function, GlobalType, Instruction, MemoryType,
    TableType, ValType,
};

pub const RT_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rt.wasm"));

/// Where the engine writes the string params of a static call (`opname`,
/// `fname`, `targets`, `target_fn_*`; docs/monitor-abi.md#parameters), all of one call
/// together at most `BUF_MAX` bytes.
pub const BUF_START: u32 = 1024;
pub const BUF_MAX: u32 = 65536;
/// First byte of the compiler's static data.
pub const DATA_BASE: u32 = BUF_START + BUF_MAX;
/// Runtime constant strings (see rt.wat).
pub const RT_EMPTY_MAP: (u32, u32) = (96, 9);
pub const RT_ARROW: (u32, u32) = (136, 2);

pub struct ModB {
    pub types: Vec<(Vec<ValType>, Vec<ValType>)>,
    type_map: HashMap<(Vec<ValType>, Vec<ValType>), u32>,
    pub imports: Vec<(String, String, u32)>,
    /// Defined functions: (type, body); `None` while being generated.
    pub funcs: Vec<(u32, Option<Function>)>,
    pub globals: Vec<(ValType, bool, ConstExpr)>,
    pub exports: Vec<(String, ExportKind, u32)>,
    pub data: Vec<(u32, Vec<u8>)>,
    pub data_end: u32,
    pub table: Vec<u32>,
    pub start: Option<u32>,
    /// Custom sections, written after the data section: (name, contents).
    pub custom: Vec<(String, Vec<u8>)>,
    strings: HashMap<String, u32>,
    /// Runtime function name -> function index.
    pub rt: HashMap<String, u32>,
    frozen_imports: bool,
}

/// Re-encodes runtime code: runtime function `i` (4 imports, then defined)
/// becomes import `i` or defined function `base + i - 4`; types are interned.
struct Remap {
    nimports: u32,
    base: u32,
    types: Vec<u32>,
}

impl Reencode for Remap {
    type Error = std::convert::Infallible;
    fn function_index(&mut self, f: u32) -> u32 {
        if f < 4 {
            f
        } else {
            self.base + f - 4
        }
    }
    fn type_index(&mut self, t: u32) -> u32 {
        self.types[t as usize]
    }
}

impl ModB {
    /// A builder with the runtime's imports (`wizeng` puts/puti/putc/error)
    /// and `extra` imports (e.g. monitor libraries) after them.
    pub fn new(extra: &[(String, String, Vec<ValType>, Vec<ValType>)]) -> ModB {
        let mut m = ModB {
            types: vec![],
            type_map: HashMap::new(),
            imports: vec![],
            funcs: vec![],
            globals: vec![],
            exports: vec![],
            data: vec![],
            data_end: DATA_BASE,
            table: vec![],
            start: None,
            custom: vec![],
            strings: HashMap::new(),
            rt: HashMap::new(),
            frozen_imports: false,
        };
        let i32_ = ValType::I32;
        for (n, p) in [
            ("puts", vec![i32_, i32_]),
            ("puti", vec![i32_]),
            ("putc", vec![i32_]),
            ("error", vec![i32_, i32_]),
        ] {
            let t = m.ty(&p, &[]);
            m.imports.push(("wizeng".into(), n.into(), t));
        }
        for (module, name, p, r) in extra {
            let t = m.ty(p, r);
            m.imports.push((module.clone(), name.clone(), t));
        }
        m.frozen_imports = true;
        m.link_runtime();
        // The back end prints and fails through the runtime's buffer-aware
        // functions (rt.wat `out`, `outc`, `fail`), never the imports directly.
        for (name, via) in [("puts", "out"), ("putc", "outc"), ("error", "fail")] {
            let f = m.rt[via];
            m.rt.insert(name.to_string(), f);
        }
        m.rt.insert("puti".to_string(), 1);
        m
    }

    pub fn ty(&mut self, params: &[ValType], results: &[ValType]) -> u32 {
        let key = (params.to_vec(), results.to_vec());
        if let Some(t) = self.type_map.get(&key) {
            return *t;
        }
        let i = self.types.len() as u32;
        self.types.push(key.clone());
        self.type_map.insert(key, i);
        i
    }

    pub fn nimports(&self) -> u32 {
        self.imports.len() as u32
    }

    /// Reserve a defined function; its body is supplied with [`ModB::define`].
    pub fn declare(&mut self, params: &[ValType], results: &[ValType]) -> u32 {
        debug_assert!(self.frozen_imports);
        let t = self.ty(params, results);
        self.funcs.push((t, None));
        self.nimports() + self.funcs.len() as u32 - 1
    }

    pub fn define(&mut self, idx: u32, f: Function) {
        let i = (idx - self.nimports()) as usize;
        self.funcs[i].1 = Some(f);
    }

    pub fn func_type(&self, idx: u32) -> &(Vec<ValType>, Vec<ValType>) {
        &self.types[self.funcs[(idx - self.nimports()) as usize].0 as usize]
    }

    pub fn global(&mut self, vt: ValType, init: ConstExpr) -> u32 {
        self.globals.push((vt, true, init));
        self.globals.len() as u32 - 1
    }

    pub fn export(&mut self, name: &str, kind: ExportKind, idx: u32) {
        self.exports.push((name.to_string(), kind, idx));
    }

    /// Reserve `size` bytes of static memory (zeroed), 8-aligned.
    pub fn static_alloc(&mut self, size: u32) -> u32 {
        let a = (self.data_end + 7) & !7;
        self.data_end = a + size;
        a
    }

    /// A static string object `[len][bytes]`; its address (0 for "").
    pub fn string(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(a) = self.strings.get(s) {
            return *a;
        }
        let a = self.static_alloc(4 + s.len() as u32);
        let mut bytes = (s.len() as u32).to_le_bytes().to_vec();
        bytes.extend_from_slice(s.as_bytes());
        self.data.push((a, bytes));
        self.strings.insert(s.to_string(), a);
        a
    }

    pub fn table_slot(&mut self, f: u32) -> u32 {
        self.table.push(f);
        self.table.len() as u32 - 1
    }

    fn link_runtime(&mut self) {
        use wasmparser::{Parser, Payload};
        let mut rt_types: Vec<u32> = vec![];
        let mut rt_func_types: Vec<u32> = vec![];
        let mut bodies = vec![];
        let mut names: Vec<(String, u32)> = vec![];
        for payload in Parser::new(0).parse_all(RT_WASM) {
            match payload.expect("runtime module") {
                Payload::TypeSection(r) => {
                    for rg in r {
                        for st in rg.expect("rt type").into_types() {
                            let wasmparser::CompositeInnerType::Func(ft) = &st.composite_type.inner
                            else {
                                panic!("rt type")
                            };
                            let conv = |v: &wasmparser::ValType| match v {
                                wasmparser::ValType::I32 => ValType::I32,
                                wasmparser::ValType::I64 => ValType::I64,
                                wasmparser::ValType::F32 => ValType::F32,
                                wasmparser::ValType::F64 => ValType::F64,
                                _ => panic!("rt value type"),
                            };
                            let p: Vec<ValType> = ft.params().iter().map(conv).collect();
                            let r: Vec<ValType> = ft.results().iter().map(conv).collect();
                            let t = self.ty(&p, &r);
                            rt_types.push(t);
                        }
                    }
                }
                Payload::FunctionSection(r) => {
                    for t in r {
                        rt_func_types.push(t.expect("rt func"));
                    }
                }
                Payload::GlobalSection(r) => {
                    for g in r {
                        let g = g.expect("rt global");
                        assert!(g.ty.content_type == wasmparser::ValType::I32);
                        self.globals
                            .push((ValType::I32, true, ConstExpr::i32_const(0)));
                    }
                }
                Payload::DataSection(r) => {
                    for d in r {
                        let d = d.expect("rt data");
                        if let wasmparser::DataKind::Active { offset_expr, .. } = d.kind {
                            let mut ops = offset_expr.get_operators_reader();
                            if let Ok(wasmparser::Operator::I32Const { value }) = ops.read() {
                                self.data.push((value as u32, d.data.to_vec()));
                            }
                        }
                    }
                }
                Payload::ExportSection(r) => {
                    for e in r {
                        let e = e.expect("rt export");
                        if e.kind == wasmparser::ExternalKind::Func {
                            names.push((e.name.to_string(), e.index));
                        }
                    }
                }
                Payload::CodeSectionEntry(b) => bodies.push(b),
                _ => {}
            }
        }
        let base = self.nimports() + self.funcs.len() as u32;
        let mut remap = Remap {
            nimports: 4,
            base,
            types: rt_types,
        };
        let _ = remap.nimports;
        for (i, body) in bodies.into_iter().enumerate() {
            let mut f = remap
                .new_function_with_parsed_locals(&body)
                .expect("rt locals");
            let mut reader = body.get_operators_reader().expect("rt body");
            while !reader.eof() {
                let ins = remap
                    .parse_instruction(&mut reader)
                    .expect("rt instruction");
                f.instruction(&ins);
            }
            let t = remap.types[rt_func_types[i] as usize];
            self.funcs.push((t, Some(f)));
        }
        for (n, idx) in names {
            self.rt
                .insert(n, if idx < 4 { idx } else { base + idx - 4 });
        }
    }

    pub fn rt(&self, name: &str) -> u32 {
        self.rt[name]
    }

    pub fn finish(mut self, heap_global: u32) -> Vec<u8> {
        let heap_start = (self.data_end + 15) & !15;
        self.globals[heap_global as usize].2 = ConstExpr::i32_const(heap_start as i32);
        let pages = (heap_start as u64).div_ceil(65536) + 1;
        let mut module = we::Module::new();
        let mut ts = we::TypeSection::new();
        for (p, r) in &self.types {
            ts.function(p.iter().copied(), r.iter().copied());
        }
        module.section(&ts);
        let mut is = we::ImportSection::new();
        for (m, n, t) in &self.imports {
            is.import(m, n, EntityType::Function(*t));
        }
        module.section(&is);
        let mut fs = we::FunctionSection::new();
        for (t, _) in &self.funcs {
            fs.function(*t);
        }
        module.section(&fs);
        let mut tabs = we::TableSection::new();
        let n = self.table.len().max(1) as u64;
        tabs.table(TableType {
            element_type: we::RefType::FUNCREF,
            table64: false,
            minimum: n,
            maximum: Some(n),
            shared: false,
        });
        module.section(&tabs);
        let mut ms = we::MemorySection::new();
        ms.memory(MemoryType {
            minimum: pages,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        module.section(&ms);
        let mut gs = we::GlobalSection::new();
        for (vt, mutable, init) in &self.globals {
            gs.global(
                GlobalType {
                    val_type: *vt,
                    mutable: *mutable,
                    shared: false,
                },
                init,
            );
        }
        module.section(&gs);
        let mut es = we::ExportSection::new();
        for (n, k, i) in &self.exports {
            es.export(n, *k, *i);
        }
        module.section(&es);
        if let Some(s) = self.start {
            module.section(&we::StartSection { function_index: s });
        }
        if !self.table.is_empty() {
            let mut els = we::ElementSection::new();
            els.active(
                Some(0),
                &ConstExpr::i32_const(0),
                we::Elements::Functions(&self.table),
            );
            module.section(&els);
        }
        let mut cs = we::CodeSection::new();
        for (_, f) in &self.funcs {
            match f {
                Some(f) => {
                    cs.function(f);
                }
                None => {
                    let mut f = Function::new([]);
                    f.instruction(&Instruction::Unreachable);
                    f.instruction(&Instruction::End);
                    cs.function(&f);
                }
            }
        }
        module.section(&cs);
        let mut ds = we::DataSection::new();
        for (a, b) in coalesce(std::mem::take(&mut self.data)) {
            ds.active(0, &ConstExpr::i32_const(a as i32), b);
        }
        module.section(&ds);
        for (name, data) in &self.custom {
            module.section(&we::CustomSection {
                name: name.into(),
                data: data.into(),
            });
        }
        module.finish()
    }
}

/// Data segments merged where they are close (a gap of at most
/// [`MERGE_GAP`] bytes, written as the zeros memory starts with): a
/// `wasm:opcode:*` monitor has a string per opcode, and every segment costs
/// the engine work to validate and to instantiate.
fn coalesce(mut data: Vec<(u32, Vec<u8>)>) -> Vec<(u32, Vec<u8>)> {
    data.sort_by_key(|d| d.0);
    let mut out: Vec<(u32, Vec<u8>)> = Vec::with_capacity(data.len());
    for (a, bytes) in data {
        if let Some((start, merged)) = out.last_mut() {
            let end = *start + merged.len() as u32;
            if a >= end && a - end <= MERGE_GAP {
                merged.resize((a - *start) as usize, 0);
                merged.extend_from_slice(&bytes);
                continue;
            }
        }
        out.push((a, bytes));
    }
    out
}

/// See [`coalesce`].
const MERGE_GAP: u32 = 64;

/// The Wasm features monitors may use (those wizeng executes).
pub fn features() -> wasmparser::WasmFeatures {
    use wasmparser::WasmFeatures as F;
    F::MUTABLE_GLOBAL
        | F::SATURATING_FLOAT_TO_INT
        | F::SIGN_EXTENSION
        | F::REFERENCE_TYPES
        | F::MULTI_VALUE
        | F::BULK_MEMORY
        | F::FLOATS
        | F::SIMD
        | F::GC_TYPES
}

/// Validate a module as the engine would.
pub fn validate(bytes: &[u8]) -> Result<(), String> {
    wasmparser::Validator::new_with_features(features())
        .validate_all(bytes)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Close segments become one (the gap zeros), far or overlapping ones
    /// stay apart; the bytes each address gets are the same.
    #[test]
    fn close_data_segments_are_merged() {
        let data = vec![
            (300, vec![7]),
            (100, vec![1, 2]),
            (104, vec![3]),
            (105 + MERGE_GAP + 1, vec![4]),
            (300, vec![8]),
        ];
        let got = coalesce(data);
        assert_eq!(
            got,
            vec![
                (100, vec![1, 2, 0, 0, 3]),
                (105 + MERGE_GAP + 1, vec![4]),
                (300, vec![7]),
                (300, vec![8]),
            ]
        );
    }
}
