//! Weaving: turn the match result (probe calls per site) into Wasm code, for
//! tiers that compile Wasm (the JIT). The woven module is the application with:
//! - one function import per monitor function used as a probe (module
//!   `wizeng:probe`, names `p0`, `p1`, ...), appended after the app's imports
//!   (so every defined function's index shifts by their count);
//! - at each site, the operands a probe needs saved into fresh scratch locals
//!   and pushed back, then a call per probe with constants, locals and saved
//!   operands as arguments (results dropped).
//!
//! Placement matches the interpreter: before the instruction; after a `loop`
//! opcode (branches to a loop re-enter its header, firing its probes each
//! iteration) and after an `end` (branches to a block arrive there); probes at
//! the function's final `end` sit after a wrapper block around the body, so
//! branches to the function's label reach them. `:after` probes follow the
//! instruction. A table maps every woven instruction back to its original pc.
//!
//! The app's code still never names a monitor's state: it calls imports the
//! engine binds to monitor functions.

use std::collections::HashMap;

use wasm_encoder::reencode::{Reencode, RoundtripReencoder};
use wasm_encoder::{Encode, Instruction};
use wasmparser::Operator;

use crate::error::LoadError;
use crate::instrument::{ArgSource, Instrumenter, ProbeCall, Site, When};
use crate::module::Module;
use crate::types::{FuncAddr, FuncType, ValType};

/// Module name of the probe imports of a woven module.
pub const PROBE_MODULE: &str = "wizeng:probe";

/// Probes of one function.
#[derive(Default)]
pub struct FuncPlan {
    pub entry: Vec<ProbeCall>,
    pub before: HashMap<u32, Vec<ProbeCall>>,
    pub after: HashMap<u32, Vec<ProbeCall>>,
    /// Operand types (top first) at sites whose probes read operands.
    pub stack_types: HashMap<(u32, bool), Vec<ValType>>,
}

/// The match result of a whole module, by function index.
#[derive(Default)]
pub struct Plan {
    pub funcs: HashMap<u32, FuncPlan>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }
    pub fn uses_frames(&self) -> bool {
        let calls = |v: &Vec<ProbeCall>| v.iter().any(|c| c.args.contains(&ArgSource::Frame));
        self.funcs.values().any(|f| calls(&f.entry) || f.before.values().any(calls) || f.after.values().any(calls))
    }
}

/// Records the probes an inner instrumenter attaches.
pub struct Recorder<'a> {
    pub inner: &'a mut dyn Instrumenter,
    pub plan: Plan,
}

impl Instrumenter for Recorder<'_> {
    fn begin_function(&mut self, func_idx: u32, body: &[u8], body_offset: usize) -> Result<(), LoadError> {
        self.inner.begin_function(func_idx, body, body_offset)
    }
    fn dynamic(&self) -> bool {
        self.inner.dynamic()
    }
    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Vec<ProbeCall>, LoadError> {
        let calls = self.inner.probes(when, site)?;
        if !calls.is_empty() {
            let fp = self.plan.funcs.entry(site.func_idx).or_default();
            let needs_stack = calls.iter().any(|c| c.args.iter().any(|a| matches!(a, ArgSource::Operand(_))));
            if needs_stack {
                let v = site.validator;
                let types = (0..v.operand_stack_height())
                    .map_while(|d| v.get_operand_type(d as usize).flatten().map(ValType::from_wasmparser))
                    .collect();
                fp.stack_types.insert((site.pc, when == When::After), types);
            }
            match when {
                When::Entry => fp.entry.extend(calls.iter().cloned()),
                When::Before => fp.before.entry(site.pc).or_default().extend(calls.iter().cloned()),
                When::After => fp.after.entry(site.pc).or_default().extend(calls.iter().cloned()),
            }
        }
        Ok(calls)
    }
}

/// Where each woven instruction came from.
#[derive(Default, Debug)]
pub struct Origin {
    /// Imports of the original module.
    pub orig_imports: u32,
    /// Probe imports added.
    pub shift: u32,
    /// Per defined function: (woven pc, original pc), sorted by woven pc.
    pub pcs: Vec<Vec<(u32, u32)>>,
    /// Per defined function: woven pc of each probe `call`, and which monitor
    /// export it calls (for trap messages).
    pub probe_calls: Vec<Vec<(u32, std::rc::Rc<str>)>>,
}

impl Origin {
    /// Original function index of a woven one.
    pub fn func(&self, woven: u32) -> u32 {
        if woven >= self.orig_imports + self.shift {
            woven - self.shift
        } else {
            woven
        }
    }
    /// The monitor export called by the probe `call` at this woven pc, if any.
    pub fn probe_call(&self, woven_func: u32, woven_pc: u32) -> Option<&std::rc::Rc<str>> {
        let d = woven_func.checked_sub(self.orig_imports + self.shift)?;
        self.probe_calls.get(d as usize)?.iter().find(|(w, _)| *w == woven_pc).map(|(_, o)| o)
    }

    /// Original pc of a woven pc in woven function `woven_func`.
    pub fn pc(&self, woven_func: u32, woven_pc: u32) -> u32 {
        let Some(d) = woven_func.checked_sub(self.orig_imports + self.shift) else { return woven_pc };
        let Some(t) = self.pcs.get(d as usize) else { return woven_pc };
        let i = t.partition_point(|(w, _)| *w <= woven_pc);
        if i == 0 {
            0
        } else {
            t[i - 1].1
        }
    }
}

pub struct Woven {
    pub bytes: Vec<u8>,
    pub origin: Origin,
    /// Import `p{j}` is monitor function `probe_funcs[j]` with this type.
    pub probe_funcs: Vec<(FuncAddr, FuncType)>,
}

struct Weaver {
    orig_imports: u32,
    shift: u32,
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
}

fn enc_val(t: ValType) -> wasm_encoder::ValType {
    match t {
        ValType::I32 => wasm_encoder::ValType::I32,
        ValType::I64 => wasm_encoder::ValType::I64,
        ValType::F32 => wasm_encoder::ValType::F32,
        ValType::F64 => wasm_encoder::ValType::F64,
        ValType::V128 => wasm_encoder::ValType::V128,
        ValType::FuncRef => wasm_encoder::ValType::FUNCREF,
        ValType::ExternRef => wasm_encoder::ValType::EXTERNREF,
    }
}

fn err(msg: impl std::fmt::Display) -> LoadError {
    LoadError { kind: crate::error::LoadErrorKind::MonitorBind, offset: None, message: format!("weaving: {msg}") }
}

/// Emits one function's body.
struct Body<'p> {
    code: Vec<u8>,
    /// Declared locals (original first, then scratch).
    locals: Vec<ValType>,
    num_params: u32,
    scratch: HashMap<(ValType, u32), u32>,
    pcs: Vec<(u32, u32)>,
    probe_calls: Vec<(u32, std::rc::Rc<str>)>,
    imports: &'p HashMap<FuncAddr, u32>,
    header_len: u32,
}

impl Body<'_> {
    fn ins(&mut self, i: &Instruction<'_>) {
        i.encode(&mut self.code);
    }

    fn scratch(&mut self, t: ValType, k: u32) -> u32 {
        if let Some(l) = self.scratch.get(&(t, k)) {
            return *l;
        }
        self.locals.push(t);
        let l = self.num_params + self.locals.len() as u32 - 1;
        self.scratch.insert((t, k), l);
        l
    }

    /// Calls for one site; `stack` are the operand types, top first.
    fn probes(&mut self, calls: &[ProbeCall], stack: Option<&Vec<ValType>>) -> Result<(), LoadError> {
        if calls.is_empty() {
            return Ok(());
        }
        let depth = calls
            .iter()
            .flat_map(|c| c.args.iter())
            .filter_map(|a| if let ArgSource::Operand(n) = a { Some(*n + 1) } else { None })
            .max()
            .unwrap_or(0);
        let mut saved = Vec::new();
        if depth > 0 {
            let stack = stack.ok_or_else(|| err("operand types unknown at a probe site"))?;
            for k in 0..depth {
                let t = *stack.get(k as usize).ok_or_else(|| err("operand below the frame's stack"))?;
                let l = self.scratch(t, k);
                saved.push(l);
                self.ins(&Instruction::LocalSet(l));
            }
            for k in (0..depth).rev() {
                self.ins(&Instruction::LocalGet(saved[k as usize]));
            }
        }
        for c in calls {
            for (a, t) in c.args.iter().zip(&c.types) {
                match a {
                    ArgSource::Const(v) => match t {
                        ValType::I32 => self.ins(&Instruction::I32Const(*v as u32 as i32)),
                        ValType::I64 => self.ins(&Instruction::I64Const(*v as i64)),
                        ValType::F32 => self.ins(&Instruction::F32Const(f32::from_bits(*v as u32))),
                        ValType::F64 => self.ins(&Instruction::F64Const(f64::from_bits(*v))),
                        _ => return Err(err(format!("cannot pass a constant of type {t}"))),
                    },
                    ArgSource::Operand(n) => self.ins(&Instruction::LocalGet(saved[*n as usize])),
                    ArgSource::Local(n) => self.ins(&Instruction::LocalGet(*n)),
                    ArgSource::Frame => return Err(err("probes that take `frame` are not supported in the JIT tier yet (use --mode=int)")),
                }
            }
            let idx = self.imports[&c.func];
            self.probe_calls.push((self.code.len() as u32, c.origin.clone()));
            self.ins(&Instruction::Call(idx));
        }
        Ok(())
    }
}

/// Weave the plan into the module.
pub fn weave(m: &Module, plan: &Plan, func_types: impl Fn(FuncAddr) -> FuncType) -> Result<Woven, LoadError> {
    // One import per distinct monitor function, in first-use order (deterministic: by function then pc).
    let mut probe_funcs: Vec<(FuncAddr, FuncType)> = Vec::new();
    let mut import_of: HashMap<FuncAddr, u32> = HashMap::new();
    let mut fids: Vec<&u32> = plan.funcs.keys().collect();
    fids.sort();
    for f in fids {
        let fp = &plan.funcs[f];
        let mut sites: Vec<(u32, u8, &Vec<ProbeCall>)> = fp.before.iter().map(|(pc, v)| (*pc, 1, v)).chain(fp.after.iter().map(|(pc, v)| (*pc, 2, v))).collect();
        sites.sort_by_key(|s| (s.0, s.1));
        for c in fp.entry.iter().chain(sites.iter().flat_map(|s| s.2.iter())) {
            if let std::collections::hash_map::Entry::Vacant(e) = import_of.entry(c.func) {
                e.insert(m.num_imported_funcs + probe_funcs.len() as u32);
                probe_funcs.push((c.func, func_types(c.func)));
            }
        }
    }
    let shift = probe_funcs.len() as u32;
    let orig_types = m.types.len() as u32;
    let mut weaver = Weaver { orig_imports: m.num_imported_funcs, shift };
    let mut out = wasm_encoder::Module::new();
    let mut pcs_all: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut calls_all: Vec<Vec<(u32, std::rc::Rc<str>)>> = Vec::new();
    let mut extra_types: Vec<FuncType> = probe_funcs.iter().map(|(_, t)| t.clone()).collect();
    let mut def = 0u32;
    let mut saw_imports = false;
    let mut code_sec: Option<wasm_encoder::CodeSection> = None;
    let parser = wasmparser::Parser::new(0);
    for payload in parser.parse_all(&m.bytes) {
        let payload = payload.map_err(LoadError::from)?;
        use wasmparser::Payload as P;
        match payload {
            P::Version { .. } => {}
            P::TypeSection(r) => {
                let mut ts = wasm_encoder::TypeSection::new();
                weaver.parse_type_section(&mut ts, r).map_err(err)?;
                // Probe types, and wrapper block types for multi-value bodies, are appended below.
                for fty in &m.types {
                    if fty.results.len() > 1 {
                        extra_types.push(FuncType::new([], fty.results.clone()));
                    }
                }
                for t in &extra_types {
                    ts.function(t.params.iter().map(|v| enc_val(*v)), t.results.iter().map(|v| enc_val(*v)));
                }
                out.section(&ts);
            }
            P::ImportSection(r) => {
                saw_imports = true;
                let mut is = wasm_encoder::ImportSection::new();
                weaver.parse_import_section(&mut is, r).map_err(err)?;
                for (j, _) in probe_funcs.iter().enumerate() {
                    is.import(PROBE_MODULE, &format!("p{j}"), wasm_encoder::EntityType::Function(orig_types + j as u32));
                }
                out.section(&is);
            }
            P::FunctionSection(r) => {
                if !saw_imports && !probe_funcs.is_empty() {
                    let mut is = wasm_encoder::ImportSection::new();
                    for (j, _) in probe_funcs.iter().enumerate() {
                        is.import(PROBE_MODULE, &format!("p{j}"), wasm_encoder::EntityType::Function(orig_types + j as u32));
                    }
                    out.section(&is);
                    saw_imports = true;
                }
                let mut fs = wasm_encoder::FunctionSection::new();
                weaver.parse_function_section(&mut fs, r).map_err(err)?;
                out.section(&fs);
            }
            P::TableSection(r) => {
                let mut s = wasm_encoder::TableSection::new();
                weaver.parse_table_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::MemorySection(r) => {
                let mut s = wasm_encoder::MemorySection::new();
                weaver.parse_memory_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::GlobalSection(r) => {
                let mut s = wasm_encoder::GlobalSection::new();
                weaver.parse_global_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::ExportSection(r) => {
                let mut s = wasm_encoder::ExportSection::new();
                weaver.parse_export_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::StartSection { func, .. } => {
                out.section(&wasm_encoder::StartSection { function_index: weaver.function_index(func) });
            }
            P::ElementSection(r) => {
                let mut s = wasm_encoder::ElementSection::new();
                weaver.parse_element_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::DataCountSection { count, .. } => {
                out.section(&wasm_encoder::DataCountSection { count });
            }
            P::DataSection(r) => {
                if let Some(c) = code_sec.take() {
                    out.section(&c);
                }
                let mut s = wasm_encoder::DataSection::new();
                weaver.parse_data_section(&mut s, r).map_err(err)?;
                out.section(&s);
            }
            P::CodeSectionStart { .. } => code_sec = Some(wasm_encoder::CodeSection::new()),
            P::CodeSectionEntry(body) => {
                let idx = m.num_imported_funcs + def;
                let fty = m.func_type(idx);
                let fb = m.body(idx);
                let mut b = Body {
                    code: Vec::new(),
                    locals: fb.locals.clone(),
                    num_params: fty.params.len() as u32,
                    scratch: HashMap::new(),
                    pcs: Vec::new(),
                    probe_calls: Vec::new(),
                    imports: &import_of,
                    header_len: 0,
                };
                let fp = plan.funcs.get(&idx);
                let mut reader = body.get_operators_reader().map_err(LoadError::from)?;
                let body_start = fb.range.start;
                let mut depth = 0i32;
                let mut wrapped = false;
                if let Some(fp) = fp {
                    b.probes(&fp.entry, None)?;
                    let final_end = m.bytes[fb.range.end - 1];
                    let _ = final_end;
                    // Probes at the final `end`: wrap the body so branches to the
                    // function's label reach them.
                    let end_pc = (fb.range.end - 1 - body_start) as u32;
                    if fp.before.contains_key(&end_pc) {
                        wrapped = true;
                        let bt = match fty.results.len() {
                            0 => wasm_encoder::BlockType::Empty,
                            1 => wasm_encoder::BlockType::Result(enc_val(fty.results[0])),
                            _ => {
                                let k = extra_types.iter().position(|t| t.params.is_empty() && t.results == fty.results).unwrap();
                                wasm_encoder::BlockType::FunctionType(orig_types + k as u32)
                            }
                        };
                        b.ins(&Instruction::Block(bt));
                    }
                }
                while !reader.eof() {
                    let off = reader.original_position();
                    let op = reader.read().map_err(LoadError::from)?;
                    let pc = (off - body_start) as u32;
                    let before = fp.and_then(|f| f.before.get(&pc));
                    let after = fp.and_then(|f| f.after.get(&pc));
                    let stack_b = fp.and_then(|f| f.stack_types.get(&(pc, false)));
                    let stack_a = fp.and_then(|f| f.stack_types.get(&(pc, true)));
                    let is_final_end = matches!(op, Operator::End) && depth == 0;
                    let inst = weaver.instruction(op.clone()).map_err(err)?;
                    b.pcs.push((b.code.len() as u32, pc));
                    match op {
                        Operator::Loop { .. } => {
                            b.ins(&inst);
                            if let Some(c) = before {
                                b.probes(c, stack_b)?;
                            }
                        }
                        Operator::End if !is_final_end => {
                            b.ins(&inst);
                            if let Some(c) = before {
                                b.probes(c, stack_b)?;
                            }
                        }
                        Operator::End => {
                            if wrapped {
                                b.ins(&Instruction::End);
                                if let Some(c) = before {
                                    b.probes(c, stack_b)?;
                                }
                            } else if let Some(c) = before {
                                b.probes(c, stack_b)?;
                            }
                            b.pcs.push((b.code.len() as u32, pc));
                            b.ins(&inst);
                        }
                        _ => {
                            if let Some(c) = before {
                                b.probes(c, stack_b)?;
                                b.pcs.push((b.code.len() as u32, pc));
                            }
                            b.ins(&inst);
                        }
                    }
                    if let Some(c) = after {
                        b.probes(c, stack_a)?;
                    }
                    match op {
                        Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => depth += 1,
                        Operator::End => depth -= 1,
                        _ => {}
                    }
                }
                // Header: local declarations (run-length encoded).
                let mut header = Vec::new();
                let mut groups: Vec<(u32, ValType)> = Vec::new();
                for t in &b.locals {
                    match groups.last_mut() {
                        Some((n, lt)) if lt == t => *n += 1,
                        _ => groups.push((1, *t)),
                    }
                }
                (groups.len() as u32).encode(&mut header);
                for (n, t) in &groups {
                    n.encode(&mut header);
                    enc_val(*t).encode(&mut header);
                }
                b.header_len = header.len() as u32;
                let pcs: Vec<(u32, u32)> = b.pcs.iter().map(|(w, o)| (w + b.header_len, *o)).collect();
                header.extend_from_slice(&b.code);
                let mut f = wasm_encoder::Function::new([]);
                let _ = &mut f;
                code_sec.get_or_insert_with(wasm_encoder::CodeSection::new).raw(&header);
                pcs_all.push(pcs);
                calls_all.push(b.probe_calls.iter().map(|(w, o)| (w + b.header_len, o.clone())).collect());
                def += 1;
            }
            P::CustomSection(c) => {
                if let Some(cs) = code_sec.take() {
                    out.section(&cs);
                }
                if c.name() == "name" {
                    if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                        if let Ok(ns) = weaver.custom_name_section(names) {
                            out.section(&ns);
                        }
                    }
                }
            }
            P::End(_) => {
                if let Some(cs) = code_sec.take() {
                    out.section(&cs);
                }
            }
            _ => {}
        }
    }
    let _ = RoundtripReencoder;
    Ok(Woven { bytes: out.finish(), origin: Origin { orig_imports: m.num_imported_funcs, shift, pcs: pcs_all, probe_calls: calls_all }, probe_funcs })
}
