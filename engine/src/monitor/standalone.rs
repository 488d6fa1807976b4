//! Standalone woven modules (`wizeng --emit-woven=out.wasm`): the application
//! with its probes woven in (as the JIT compiles it, see [`crate::monitor::weave`]) and
//! every monitor instance merged into ONE module that runs on any engine with
//! WASI preview1 and multi-memory (e.g. `wasmtime run`), without `--monitors`.
//!
//! What the merged module contains, in each index space after the app's own
//! entities (so the app's indices stay put, apart from defined functions,
//! which shift by the WASI imports added):
//! - every instance in the store at weaving time (the monitors and their
//!   `+lib` libraries) with its state *as it is after matching*: the
//!   monitors' start functions and static calls have already run, so each
//!   memory is written as its current bytes (active data segments of the
//!   non-zero runs), each global with its current value, each table with its
//!   current contents; the monitors' start functions are not kept;
//! - the woven app's `wizeng:probe` imports resolved to those merged monitor
//!   functions, memories and globals (static arguments and static call
//!   results are already constants in the woven code);
//! - the `wizeng` imports monitors use (`puts`, `puti`, `putc`, `error`,
//!   `rdtsc`, monitor ABI A6) implemented in Wasm on WASI `fd_write` /
//!   `clock_time_get`, through a helper memory and a scratch area at address 0
//!   of the app's memory 0 that is saved and restored around every call, so the
//!   app never sees it; `wizeng:frame_accessor` functions trap (probes that
//!   take `frame` are only merged when the weave turned every use of the
//!   handle into an intrinsic, so the only calls left get no frame, where the
//!   engine traps too); any other host import of a monitor stays an import;
//! - the entry export (`_start`, else `main`) wrapped: every monitor's
//!   `wasm:begin` (in `--monitors` order), the app's entry, then the exit
//!   hooks; the app's WASI `proc_exit` import wrapped to run the exit hooks
//!   first. The three steps are also exported separately ([`EXPORT_BEGIN`],
//!   [`EXPORT_APP_START`], [`EXPORT_EXIT`]) for timing the app alone. The exit hooks run once: the woven block counters' fold function
//!   (export `wizeng:fold`, if the weave counted blocks), then every monitor's
//!   `wasm:exit`.
//!
//! Not representable: probes that take `frame` other than through inlined
//! intrinsics (`Plan::frames_need_interpreter`) and dynamic probes
//! (`whamm:dyninstr`) need the engine, so they are an error; `wasm:exit`
//! after a trap does not run (a module cannot catch its own traps).

use std::collections::HashMap;

use wasm_encoder::reencode::Reencode;
use wasm_encoder::{ConstExpr, Instruction as I, MemArg};

use crate::core::error::{LoadError, LoadErrorKind};
use crate::monitor::inline::InlineConfig;
use crate::core::module::{DataMode, ElemMode, Module};
use crate::runtime::store::{FuncKind, InstanceData, Store};
use crate::core::types::{Extern, FuncAddr, GlobalAddr, MemAddr, TableAddr, ValType, Value};
use crate::monitor::weave::{Plan, PROBE_MODULE};

/// Exports of the merged module for a harness that times the app alone (as
/// `wizeng --metrics` does): call [`EXPORT_BEGIN`], then [`EXPORT_APP_START`]
/// (the app's entry; a `proc_exit` in it no longer runs the exit hooks), then
/// [`EXPORT_EXIT`] (also after the app's `proc_exit`). The entry export itself
/// does all three.
pub const EXPORT_BEGIN: &str = "wizeng:begin";
pub const EXPORT_APP_START: &str = "wizeng:app_start";
pub const EXPORT_EXIT: &str = "wizeng:exit";

/// The WASI module the merged module imports from.
pub const WASI_MODULE: &str = "wasi_snapshot_preview1";

/// Bytes written per `fd_write` (longer strings are written in chunks).
const CHUNK: i32 = 4096;
/// Helper memory layout: the bytes to write, a decimal buffer, the saved scratch area.
const H_BUF: i32 = 0;
const H_NUM_END: i32 = CHUNK + 32;
const H_SAVE: i32 = 2 * CHUNK;
/// Scratch base inside the helper memory, when the app has no memory of its own.
const H_SCRATCH: i32 = 4 * CHUNK;
/// Zero bytes tolerated inside one snapshot data segment.
const ZERO_GAP: usize = 16;

/// Each monitor's `wasm:begin` and `wasm:exit`, in `--monitors` order.
#[derive(Default, Debug, Clone)]
pub struct Lifecycle {
    pub begin: Vec<FuncAddr>,
    pub exit: Vec<FuncAddr>,
}

fn unsupported(msg: impl std::fmt::Display) -> LoadError {
    LoadError {
        kind: LoadErrorKind::Unsupported,
        offset: None,
        message: format!("standalone woven module: {msg}"),
    }
}

fn reencode_err(e: wasm_encoder::reencode::Error<std::convert::Infallible>) -> LoadError {
    unsupported(e)
}

/// Weave `plan` into `app` (as the JIT would, with `cfg`) and merge the
/// result with every instance of `store` into one standalone module.
pub fn emit(
    app: &Module,
    plan: &Plan,
    store: &Store,
    cfg: &InlineConfig,
    dynamic: bool,
    life: &Lifecycle,
) -> Result<Vec<u8>, LoadError> {
    if dynamic {
        return Err(unsupported(
            "a monitor imports whamm:dyninstr (probes inserted at run time need the engine)",
        ));
    }
    // Inlined frame intrinsics need no engine; other frame uses do.
    if plan.frames_need_interpreter(app, store, cfg) {
        return Err(unsupported(
            "probes that take `frame` need the engine's frame accessors",
        ));
    }
    if plan.is_empty() {
        return merge(&app.bytes, &[], store, life);
    }
    let w = crate::monitor::weave::weave(app, plan, store, cfg)?;
    merge(&w.bytes, &w.imports, store, life)
}

/// The sections of a module, decoded.
#[derive(Default)]
struct Parts<'a> {
    types: Option<wasmparser::TypeSectionReader<'a>>,
    num_types: u32,
    /// Number of parameters of each function type.
    type_params: Vec<usize>,
    /// Function names from the name section.
    func_names: Vec<(u32, &'a str)>,
    imports: Vec<wasmparser::Import<'a>>,
    funcs: Vec<u32>,
    tables: Vec<wasmparser::Table<'a>>,
    memories: Vec<wasmparser::MemoryType>,
    globals: Vec<wasmparser::Global<'a>>,
    exports: Vec<wasmparser::Export<'a>>,
    start: Option<u32>,
    elems: Vec<wasmparser::Element<'a>>,
    bodies: Vec<wasmparser::FunctionBody<'a>>,
    datas: Vec<wasmparser::Data<'a>>,
}

impl<'a> Parts<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Parts<'a>, LoadError> {
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
                P::TagSection(_) => return Err(unsupported("exception-handling tags")),
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
}

/// Index remapping of one source module (the woven app or a monitor instance)
/// into the merged module.
#[derive(Default)]
struct IndexMap {
    funcs: Vec<u32>,
    tables: Vec<u32>,
    memories: Vec<u32>,
    globals: Vec<u32>,
    types_base: u32,
    elems_base: u32,
    datas_base: u32,
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

/// A `wizeng` provided import (monitor ABI A6) the merged module implements.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Provided {
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
}

/// How an imported function of a monitor instance is resolved.
enum ImportedFunc {
    /// Another instance's function (a `+lib` library).
    Wasm(FuncAddr),
    Provided(Provided),
    /// Any other host function: stays an import of the merged module.
    Kept {
        module: String,
        name: String,
        ty: crate::core::types::FuncType,
    },
}

/// Function types of the helpers and added imports, after every source module's types.
struct TypeList {
    base: u32,
    list: Vec<(Vec<wasm_encoder::ValType>, Vec<wasm_encoder::ValType>)>,
}

impl TypeList {
    fn get(&mut self, params: &[wasm_encoder::ValType], results: &[wasm_encoder::ValType]) -> u32 {
        let key = (params.to_vec(), results.to_vec());
        let i = match self.list.iter().position(|t| *t == key) {
            Some(i) => i,
            None => {
                self.list.push(key);
                self.list.len() - 1
            }
        };
        self.base + i as u32
    }
    fn of(&mut self, ty: &crate::core::types::FuncType) -> Result<u32, LoadError> {
        let conv = |v: &[ValType]| v.iter().map(|t| enc_val(*t)).collect::<Result<Vec<_>, _>>();
        Ok(self.get(&conv(&ty.params)?, &conv(&ty.results)?))
    }
}

fn enc_val(t: ValType) -> Result<wasm_encoder::ValType, LoadError> {
    use wasm_encoder::ValType as E;
    Ok(match t {
        ValType::I32 => E::I32,
        ValType::I64 => E::I64,
        ValType::F32 => E::F32,
        ValType::F64 => E::F64,
        ValType::FuncRef => E::FUNCREF,
        ValType::ExternRef => E::EXTERNREF,
        ValType::V128 => return Err(unsupported("v128 values")),
    })
}

fn null_of(t: ValType) -> ConstExpr {
    ConstExpr::ref_null(wasm_encoder::HeapType::Abstract {
        shared: false,
        ty: if t == ValType::ExternRef {
            wasm_encoder::AbstractHeapType::Extern
        } else {
            wasm_encoder::AbstractHeapType::Func
        },
    })
}

/// Merging state: the merged index of every store entity.
struct Addrs {
    funcs: HashMap<FuncAddr, u32>,
    memories: HashMap<MemAddr, u32>,
    globals: HashMap<GlobalAddr, u32>,
    tables: HashMap<TableAddr, u32>,
}

impl Addrs {
    fn func(&self, a: FuncAddr) -> Result<u32, LoadError> {
        self.funcs.get(&a).copied().ok_or_else(|| {
            unsupported(format!(
                "function {} is a host function that cannot be merged",
                a.0
            ))
        })
    }
    /// A reference value (a global's or a table slot's) as a constant expression.
    fn ref_expr(&self, v: Value) -> Result<ConstExpr, LoadError> {
        match v {
            Value::FuncRef(None) => Ok(null_of(ValType::FuncRef)),
            Value::ExternRef(None) => Ok(null_of(ValType::ExternRef)),
            Value::FuncRef(Some(a)) => Ok(ConstExpr::ref_func(self.func(a)?)),
            Value::ExternRef(Some(_)) => Err(unsupported("a non-null externref in monitor state")),
            other => Err(unsupported(format!("{other} is not a reference"))),
        }
    }
}

fn value_expr(addrs: &Addrs, v: Value) -> Result<ConstExpr, LoadError> {
    Ok(match v {
        Value::I32(x) => ConstExpr::i32_const(x),
        Value::I64(x) => ConstExpr::i64_const(x),
        Value::F32(b) => ConstExpr::f32_const(f32::from_bits(b)),
        Value::F64(b) => ConstExpr::f64_const(f64::from_bits(b)),
        r => addrs.ref_expr(r)?,
    })
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

/// Non-zero runs of `bytes` (zero gaps up to [`ZERO_GAP`] kept inside a run).
fn nonzero_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        while end < bytes.len() && bytes[end] != 0 {
            end += 1;
        }
        match runs.last_mut() {
            Some(last) if start - last.1 <= ZERO_GAP => last.1 = end,
            _ => runs.push((start, end)),
        }
        i = end;
    }
    runs
}

/// Where the provided imports write: the helper memory and the scratch area.
struct Io {
    helper_mem: u32,
    scratch_mem: u32,
    scratch_base: i32,
}

impl Io {
    fn h(&self, offset: u64, align: u32) -> MemArg {
        MemArg {
            offset,
            align,
            memory_index: self.helper_mem,
        }
    }
    fn s(&self, offset: u64, align: u32) -> MemArg {
        MemArg {
            offset,
            align,
            memory_index: self.scratch_mem,
        }
    }
}

/// The merged module, being built.
struct Builder {
    types: TypeList,
    /// Added function imports (module, name, type), after the app's.
    added_imports: Vec<(String, String, u32)>,
    /// Helper functions (name, type, body), after every source module's functions.
    helpers: Vec<(String, u32, wasm_encoder::Function)>,
    helpers_base: u32,
}

impl Builder {
    fn helper(&mut self, name: &str, ty: u32, f: wasm_encoder::Function) -> u32 {
        self.helpers
            .push((format!("wizeng:standalone:{name}"), ty, f));
        self.helpers_base + self.helpers.len() as u32 - 1
    }
}

use wasm_encoder::ValType::{I32 as W32, I64 as W64};

/// `$emit(fd, len)`: write `len` (<= CHUNK) bytes at the helper memory's
/// buffer to `fd`, through the scratch area (saved and restored).
fn gen_emit(io: &Io, fd_write: u32) -> wasm_encoder::Function {
    let (h, s, sb) = (io.helper_mem, io.scratch_mem, io.scratch_base);
    let mut f = wasm_encoder::Function::new([(2, W32)]);
    let (fd, len, off, n) = (0, 1, 2, 3);
    // save the scratch area: H[SAVE..] <- S[sb..sb+16+len]
    f.instruction(&I::I32Const(H_SAVE))
        .instruction(&I::I32Const(sb))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Const(16))
        .instruction(&I::I32Add)
        .instruction(&I::MemoryCopy {
            src_mem: s,
            dst_mem: h,
        });
    // the bytes: S[sb+16..] <- H[BUF..BUF+len]
    f.instruction(&I::I32Const(sb + 16))
        .instruction(&I::I32Const(H_BUF))
        .instruction(&I::LocalGet(len))
        .instruction(&I::MemoryCopy {
            src_mem: h,
            dst_mem: s,
        });
    f.instruction(&I::Block(wasm_encoder::BlockType::Empty))
        .instruction(&I::Loop(wasm_encoder::BlockType::Empty))
        .instruction(&I::LocalGet(off))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32GeU)
        .instruction(&I::BrIf(1))
        // iovec {buf = sb+16+off, len = len-off} at S[sb]
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(sb + 16))
        .instruction(&I::LocalGet(off))
        .instruction(&I::I32Add)
        .instruction(&I::I32Store(io.s(0, 2)))
        .instruction(&I::I32Const(sb))
        .instruction(&I::LocalGet(len))
        .instruction(&I::LocalGet(off))
        .instruction(&I::I32Sub)
        .instruction(&I::I32Store(io.s(4, 2)))
        .instruction(&I::LocalGet(fd))
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(1))
        .instruction(&I::I32Const(sb + 8))
        .instruction(&I::Call(fd_write))
        .instruction(&I::BrIf(1))
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Load(io.s(8, 2)))
        .instruction(&I::LocalTee(n))
        .instruction(&I::I32Eqz)
        .instruction(&I::BrIf(1))
        .instruction(&I::LocalGet(off))
        .instruction(&I::LocalGet(n))
        .instruction(&I::I32Add)
        .instruction(&I::LocalSet(off))
        .instruction(&I::Br(0))
        .instruction(&I::End)
        .instruction(&I::End);
    // restore the scratch area
    f.instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(H_SAVE))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Const(16))
        .instruction(&I::I32Add)
        .instruction(&I::MemoryCopy {
            src_mem: h,
            dst_mem: s,
        })
        .instruction(&I::End);
    f
}

/// `$write(fd, ptr, len)` from memory `mem` (a monitor's memory 0), in chunks.
fn gen_write(io: &Io, mem: Option<u32>, emit: u32) -> wasm_encoder::Function {
    let mut f = wasm_encoder::Function::new([(1, W32)]);
    let Some(mem) = mem else {
        // The monitor has no memory 0: the engine traps too.
        f.instruction(&I::Unreachable).instruction(&I::End);
        return f;
    };
    let (fd, p, len, c) = (0, 1, 2, 3);
    f.instruction(&I::Block(wasm_encoder::BlockType::Empty))
        .instruction(&I::Loop(wasm_encoder::BlockType::Empty))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Eqz)
        .instruction(&I::BrIf(1))
        .instruction(&I::I32Const(CHUNK))
        .instruction(&I::LocalGet(len))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Const(CHUNK))
        .instruction(&I::I32GtU)
        .instruction(&I::Select)
        .instruction(&I::LocalSet(c))
        .instruction(&I::I32Const(H_BUF))
        .instruction(&I::LocalGet(p))
        .instruction(&I::LocalGet(c))
        .instruction(&I::MemoryCopy {
            src_mem: mem,
            dst_mem: io.helper_mem,
        })
        .instruction(&I::LocalGet(fd))
        .instruction(&I::LocalGet(c))
        .instruction(&I::Call(emit))
        .instruction(&I::LocalGet(p))
        .instruction(&I::LocalGet(c))
        .instruction(&I::I32Add)
        .instruction(&I::LocalSet(p))
        .instruction(&I::LocalGet(len))
        .instruction(&I::LocalGet(c))
        .instruction(&I::I32Sub)
        .instruction(&I::LocalSet(len))
        .instruction(&I::Br(0))
        .instruction(&I::End)
        .instruction(&I::End)
        .instruction(&I::End);
    f
}

/// The body of a provided import for an instance whose memory 0 is `mem`.
fn gen_provided(
    io: &Io,
    p: Provided,
    write: Option<u32>,
    emit: Option<u32>,
    clock: Option<u32>,
) -> wasm_encoder::Function {
    let mut f;
    match p {
        Provided::Puts => {
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::I32Const(1))
                .instruction(&I::LocalGet(0))
                .instruction(&I::LocalGet(1))
                .instruction(&I::Call(write.unwrap_or_default()));
        }
        Provided::Error => {
            // The message and a newline on stderr, then a trap.
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::I32Const(2))
                .instruction(&I::LocalGet(0))
                .instruction(&I::LocalGet(1))
                .instruction(&I::Call(write.unwrap_or_default()))
                .instruction(&I::I32Const(H_BUF))
                .instruction(&I::I32Const(10))
                .instruction(&I::I32Store8(io.h(0, 0)))
                .instruction(&I::I32Const(2))
                .instruction(&I::I32Const(1))
                .instruction(&I::Call(emit.unwrap_or_default()))
                .instruction(&I::Unreachable);
        }
        Provided::Putc => {
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::I32Const(H_BUF))
                .instruction(&I::LocalGet(0))
                .instruction(&I::I32Store8(io.h(0, 0)))
                .instruction(&I::I32Const(1))
                .instruction(&I::I32Const(1))
                .instruction(&I::Call(emit.unwrap_or_default()));
        }
        Provided::Puti => {
            // Signed decimal, written backwards ending at H_NUM_END.
            f = wasm_encoder::Function::new([(1, W32), (1, W64)]);
            let (v, p, u) = (0, 1, 2);
            f.instruction(&I::I32Const(H_NUM_END))
                .instruction(&I::LocalSet(p))
                .instruction(&I::LocalGet(v))
                .instruction(&I::I64ExtendI32S)
                .instruction(&I::LocalTee(u))
                .instruction(&I::I64Const(0))
                .instruction(&I::I64LtS)
                .instruction(&I::If(wasm_encoder::BlockType::Empty))
                .instruction(&I::I64Const(0))
                .instruction(&I::LocalGet(u))
                .instruction(&I::I64Sub)
                .instruction(&I::LocalSet(u))
                .instruction(&I::End)
                .instruction(&I::Loop(wasm_encoder::BlockType::Empty))
                .instruction(&I::LocalGet(p))
                .instruction(&I::I32Const(1))
                .instruction(&I::I32Sub)
                .instruction(&I::LocalTee(p))
                .instruction(&I::LocalGet(u))
                .instruction(&I::I64Const(10))
                .instruction(&I::I64RemU)
                .instruction(&I::I32WrapI64)
                .instruction(&I::I32Const(48))
                .instruction(&I::I32Add)
                .instruction(&I::I32Store8(io.h(0, 0)))
                .instruction(&I::LocalGet(u))
                .instruction(&I::I64Const(10))
                .instruction(&I::I64DivU)
                .instruction(&I::LocalTee(u))
                .instruction(&I::I64Const(0))
                .instruction(&I::I64Ne)
                .instruction(&I::BrIf(0))
                .instruction(&I::End)
                .instruction(&I::LocalGet(v))
                .instruction(&I::I32Const(0))
                .instruction(&I::I32LtS)
                .instruction(&I::If(wasm_encoder::BlockType::Empty))
                .instruction(&I::LocalGet(p))
                .instruction(&I::I32Const(1))
                .instruction(&I::I32Sub)
                .instruction(&I::LocalTee(p))
                .instruction(&I::I32Const(45))
                .instruction(&I::I32Store8(io.h(0, 0)))
                .instruction(&I::End)
                .instruction(&I::I32Const(H_BUF))
                .instruction(&I::LocalGet(p))
                .instruction(&I::I32Const(H_NUM_END))
                .instruction(&I::LocalGet(p))
                .instruction(&I::I32Sub)
                .instruction(&I::MemoryCopy {
                    src_mem: io.helper_mem,
                    dst_mem: io.helper_mem,
                })
                .instruction(&I::I32Const(1))
                .instruction(&I::I32Const(H_NUM_END))
                .instruction(&I::LocalGet(p))
                .instruction(&I::I32Sub)
                .instruction(&I::Call(emit.unwrap_or_default()));
        }
        Provided::NoFrame => {
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::Unreachable);
        }
        Provided::Rdtsc => {
            // Monotonic nanoseconds from WASI, through the (saved) scratch area.
            f = wasm_encoder::Function::new([(1, W64)]);
            let (h, s, sb) = (io.helper_mem, io.scratch_mem, io.scratch_base);
            f.instruction(&I::I32Const(H_SAVE))
                .instruction(&I::I32Const(sb))
                .instruction(&I::I32Const(8))
                .instruction(&I::MemoryCopy {
                    src_mem: s,
                    dst_mem: h,
                })
                .instruction(&I::I32Const(1))
                .instruction(&I::I64Const(1))
                .instruction(&I::I32Const(sb))
                .instruction(&I::Call(clock.unwrap_or_default()))
                .instruction(&I::Drop)
                .instruction(&I::I32Const(sb))
                .instruction(&I::I64Load(io.s(0, 3)))
                .instruction(&I::LocalSet(0))
                .instruction(&I::I32Const(sb))
                .instruction(&I::I32Const(H_SAVE))
                .instruction(&I::I32Const(8))
                .instruction(&I::MemoryCopy {
                    src_mem: h,
                    dst_mem: s,
                })
                .instruction(&I::LocalGet(0));
        }
    }
    f.instruction(&I::End);
    f
}

/// Calls `f` for its effect (its results dropped).
fn call_dropping(
    f: &mut wasm_encoder::Function,
    store: &Store,
    addrs: &Addrs,
    a: FuncAddr,
) -> Result<(), LoadError> {
    f.instruction(&I::Call(addrs.func(a)?));
    for _ in 0..store.func_type(a).results.len() {
        f.instruction(&I::Drop);
    }
    Ok(())
}

/// Merge a (woven) app, whose `wizeng:probe` imports are bound as in
/// `probe_imports`, with every instance of `store` into one module.
pub fn merge(
    app_bytes: &[u8],
    probe_imports: &[(String, Extern)],
    store: &Store,
    life: &Lifecycle,
) -> Result<Vec<u8>, LoadError> {
    let app = Parts::parse(app_bytes)?;
    let probes: HashMap<&str, Extern> = probe_imports
        .iter()
        .map(|(n, e)| (n.as_str(), *e))
        .collect();
    let insts: Vec<&InstanceData> = store.instances.iter().collect();
    let mons: Vec<Parts> = insts
        .iter()
        .map(|i| Parts::parse(&i.module.bytes))
        .collect::<Result<_, _>>()?;

    // --- types: the app's, each instance's, then helpers'.
    let mut types_base = Vec::new();
    let mut nt = app.num_types;
    for m in &mons {
        types_base.push(nt);
        nt += m.num_types;
    }
    let mut b = Builder {
        types: TypeList {
            base: nt,
            list: Vec::new(),
        },
        added_imports: Vec::new(),
        helpers: Vec::new(),
        helpers_base: 0,
    };

    // --- the app's imports: kept ones, and the probe imports' targets.
    enum Bound {
        Kept(u32),
        Probe(Extern),
    }
    let (mut nf, mut nm, mut ng, mut ntab) = (0u32, 0u32, 0u32, 0u32);
    let mut app_funcs: Vec<Bound> = Vec::new();
    let mut app_mems: Vec<Bound> = Vec::new();
    let mut app_globals: Vec<Bound> = Vec::new();
    let mut app_tables: Vec<u32> = Vec::new();
    let mut wasi: HashMap<&str, (u32, u32)> = HashMap::new(); // name -> (merged index, type)
    for imp in &app.imports {
        let probe = if imp.module == PROBE_MODULE {
            Some(
                *probes
                    .get(imp.name)
                    .ok_or_else(|| unsupported(format!("unbound probe import `{}`", imp.name)))?,
            )
        } else {
            None
        };
        match (imp.ty, probe) {
            (wasmparser::TypeRef::Func(t), None) => {
                if imp.module == WASI_MODULE {
                    wasi.insert(imp.name, (nf, t));
                }
                app_funcs.push(Bound::Kept(nf));
                nf += 1;
            }
            (wasmparser::TypeRef::Memory(_), None) => {
                app_mems.push(Bound::Kept(nm));
                nm += 1;
            }
            (wasmparser::TypeRef::Global(_), None) => {
                app_globals.push(Bound::Kept(ng));
                ng += 1;
            }
            (wasmparser::TypeRef::Table(_), None) => {
                app_tables.push(ntab);
                ntab += 1;
            }
            (wasmparser::TypeRef::Func(_), Some(e)) => app_funcs.push(Bound::Probe(e)),
            (wasmparser::TypeRef::Memory(_), Some(e)) => app_mems.push(Bound::Probe(e)),
            (wasmparser::TypeRef::Global(_), Some(e)) => app_globals.push(Bound::Probe(e)),
            _ => {
                return Err(unsupported(format!(
                    "probe import `{}` of an unexpected kind",
                    imp.name
                )))
            }
        }
    }

    // --- the monitors' imported functions: provided ones, kept ones, libraries.
    let mut imported: Vec<Vec<ImportedFunc>> = Vec::new();
    let mut provided_used: Vec<Provided> = Vec::new();
    for idata in &insts {
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
    let needs_write = provided_used.iter().any(|p| p.writes());
    let needs_clock = provided_used.contains(&Provided::Rdtsc);

    // --- added function imports: WASI functions the helpers need, kept monitor imports.
    let wasi_func = |b: &mut Builder,
                     name: &str,
                     params: &[wasm_encoder::ValType],
                     results: &[wasm_encoder::ValType]| {
        let ty = b.types.get(params, results);
        if let Some((idx, _)) = wasi.get(name) {
            return *idx;
        }
        b.added_imports.push((WASI_MODULE.into(), name.into(), ty));
        nf + b.added_imports.len() as u32 - 1
    };
    let fd_write = needs_write.then(|| wasi_func(&mut b, "fd_write", &[W32; 4], &[W32]));
    let clock = needs_clock.then(|| wasi_func(&mut b, "clock_time_get", &[W32, W64, W32], &[W32]));
    let mut kept_idx: HashMap<(String, String), u32> = HashMap::new();
    for v in &imported {
        for f in v {
            if let ImportedFunc::Kept { module, name, ty } = f {
                let key = (module.clone(), name.clone());
                if !kept_idx.contains_key(&key) {
                    let t = b.types.of(ty)?;
                    b.added_imports.push((module.clone(), name.clone(), t));
                    kept_idx.insert(key, nf + b.added_imports.len() as u32 - 1);
                }
            }
        }
    }
    nf += b.added_imports.len() as u32;

    // --- defined functions: the app's, then each instance's.
    let app_defined_base = nf;
    nf += app.funcs.len() as u32;
    let mut addrs = Addrs {
        funcs: HashMap::new(),
        memories: HashMap::new(),
        globals: HashMap::new(),
        tables: HashMap::new(),
    };
    for idata in &insts {
        let n = idata.module.num_imported_funcs;
        number_defined(&mut addrs.funcs, &mut nf, &idata.funcs, n);
    }
    b.helpers_base = nf;

    // --- memories: the app's, the helper memory, each instance's.
    let app_mem_imports = nm;
    nm += app.memories.len() as u32;
    let app_has_memory = nm > 0;
    let helper_mem = (needs_write || needs_clock).then(|| {
        nm += 1;
        nm - 1
    });
    for idata in &insts {
        let n = idata.module.num_imported_memories;
        number_defined(&mut addrs.memories, &mut nm, &idata.memories, n);
    }
    // --- globals: the app's, each instance's, then the exit hooks' flag.
    let app_global_imports = ng;
    ng += app.globals.len() as u32;
    for idata in &insts {
        let n = idata.module.num_imported_globals;
        number_defined(&mut addrs.globals, &mut ng, &idata.globals, n);
    }
    let done_global = ng;
    let deferred_global = ng + 1;
    // --- tables: the app's, each instance's.
    ntab += app.tables.len() as u32;
    for idata in &insts {
        let n = idata.module.num_imported_tables;
        number_defined(&mut addrs.tables, &mut ntab, &idata.tables, n);
    }
    let app_elems = app.elems.len() as u32;
    let app_datas = app.datas.len() as u32;

    // --- the app's index map.
    let lookup_func = |addrs: &Addrs, e: Extern| match e {
        Extern::Func(a) => addrs.func(a),
        _ => Err(unsupported(
            "a probe function import bound to a non-function",
        )),
    };
    let mut app_map = IndexMap::default();
    let mut proc_exit_real = None;
    for w in &app_funcs {
        app_map.funcs.push(match w {
            Bound::Kept(i) => *i,
            Bound::Probe(e) => lookup_func(&addrs, *e)?,
        });
    }
    if let Some((idx, _)) = wasi.get("proc_exit") {
        proc_exit_real = Some(*idx);
    }
    for j in 0..app.funcs.len() as u32 {
        app_map.funcs.push(app_defined_base + j);
    }
    for w in &app_mems {
        app_map.memories.push(match w {
            Bound::Kept(i) => *i,
            Bound::Probe(Extern::Memory(a)) => addrs.memories[a],
            Bound::Probe(_) => {
                return Err(unsupported("a probe memory import bound to a non-memory"))
            }
        });
    }
    for j in 0..app.memories.len() as u32 {
        app_map.memories.push(app_mem_imports + j);
    }
    for w in &app_globals {
        app_map.globals.push(match w {
            Bound::Kept(i) => *i,
            Bound::Probe(Extern::Global(a)) => addrs.globals[a],
            Bound::Probe(_) => {
                return Err(unsupported("a probe global import bound to a non-global"))
            }
        });
    }
    for j in 0..app.globals.len() as u32 {
        app_map.globals.push(app_global_imports + j);
    }
    app_map.tables = (0..ntab).collect();

    // --- each instance's index map.
    let mut mon_maps: Vec<IndexMap> = Vec::new();
    let (mut ne, mut nd) = (app_elems, app_datas);
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
            // Provided imports are resolved below, once the helpers exist.
            let idx = match imported[k].get(i as usize) {
                Some(ImportedFunc::Wasm(a)) => addrs.func(*a)?,
                Some(ImportedFunc::Provided(_)) => u32::MAX,
                Some(ImportedFunc::Kept { module, name, .. }) => {
                    kept_idx[&(module.clone(), name.clone())]
                }
                None => addrs.func(idata.funcs[i as usize])?,
            };
            map.funcs.push(idx);
        }
        map.memories = resolve(&addrs.memories, &idata.memories, "memory")?;
        map.globals = resolve(&addrs.globals, &idata.globals, "global")?;
        map.tables = resolve(&addrs.tables, &idata.tables, "table")?;
        mon_maps.push(map);
    }

    // --- helpers: provided imports (per instance where they read its memory 0).
    let io = Io {
        helper_mem: helper_mem.unwrap_or(0),
        scratch_mem: if app_has_memory {
            0
        } else {
            helper_mem.unwrap_or(0)
        },
        scratch_base: if app_has_memory { 0 } else { H_SCRATCH },
    };
    let emit = match fd_write {
        Some(fw) => {
            let ty = b.types.get(&[W32, W32], &[]);
            Some(b.helper("emit", ty, gen_emit(&io, fw)))
        }
        None => None,
    };
    let mut shared: HashMap<Provided, u32> = HashMap::new();
    for (k, idata) in insts.iter().enumerate() {
        let needs_mem = imported[k]
            .iter()
            .any(|f| matches!(f, ImportedFunc::Provided(Provided::Puts | Provided::Error)));
        let write = match (needs_mem, emit) {
            (true, Some(e)) => {
                let ty = b.types.get(&[W32; 3], &[]);
                let mem0 = idata.memories.first().map(|a| addrs.memories[a]);
                Some(b.helper("write", ty, gen_write(&io, mem0, e)))
            }
            _ => None,
        };
        let mut per_inst: HashMap<Provided, u32> = HashMap::new();
        for (i, f) in imported[k].iter().enumerate() {
            let ImportedFunc::Provided(p) = f else {
                continue;
            };
            let reads_mem = matches!(p, Provided::Puts | Provided::Error);
            let cache = if reads_mem {
                &mut per_inst
            } else {
                &mut shared
            };
            // (frame accessors differ in type: one helper each)
            let idx = match cache.get(p).filter(|_| *p != Provided::NoFrame) {
                Some(i) => *i,
                None => {
                    let ty = b.types.of(store.func_type(idata.funcs[i]))?;
                    let body = gen_provided(&io, *p, write, emit, clock);
                    let idx = b.helper(&format!("{p:?}").to_lowercase(), ty, body);
                    cache.insert(*p, idx);
                    idx
                }
            };
            mon_maps[k].funcs[i] = idx;
        }
    }

    // --- exit hooks (once), the proc_exit wrapper, the entry wrappers.
    let unit = b.types.get(&[], &[]);
    let mut hooks = wasm_encoder::Function::new([]);
    hooks
        .instruction(&I::GlobalGet(done_global))
        .instruction(&I::If(wasm_encoder::BlockType::Empty))
        .instruction(&I::Return)
        .instruction(&I::End)
        .instruction(&I::I32Const(1))
        .instruction(&I::GlobalSet(done_global));
    let fold = app.exports.iter().find(|e| {
        e.kind == wasmparser::ExternalKind::Func && e.name == crate::monitor::blockcount::FOLD_EXPORT
    });
    if let Some(e) = fold {
        hooks.instruction(&I::Call(app_map.funcs[e.index as usize]));
    }
    for f in &life.exit {
        call_dropping(&mut hooks, store, &addrs, *f)?;
    }
    hooks.instruction(&I::End);
    let exit_hooks = b.helper("exit_hooks", unit, hooks);
    if let Some(real) = proc_exit_real {
        let ty = b.types.get(&[W32], &[]);
        let mut f = wasm_encoder::Function::new([]);
        f.instruction(&I::GlobalGet(deferred_global))
            .instruction(&I::I32Eqz)
            .instruction(&I::If(wasm_encoder::BlockType::Empty))
            .instruction(&I::Call(exit_hooks))
            .instruction(&I::End)
            .instruction(&I::LocalGet(0))
            .instruction(&I::Call(real))
            .instruction(&I::End);
        let wrapper = b.helper("proc_exit", ty, f);
        for x in app_map.funcs.iter_mut() {
            if *x == real {
                *x = wrapper;
            }
        }
    }
    let entry_export = app
        .exports
        .iter()
        .find(|e| e.kind == wasmparser::ExternalKind::Func && e.name == "_start")
        .or_else(|| {
            app.exports
                .iter()
                .find(|e| e.kind == wasmparser::ExternalKind::Func && e.name == "main")
        })
        .ok_or_else(|| unsupported("the app exports no entry point (`_start` or `main`)"))?;
    let entry_name = entry_export.name.to_string();
    let entry_orig = app_map.funcs[entry_export.index as usize];
    let entry_ty_idx = if (entry_export.index as usize) < app_funcs.len() {
        return Err(unsupported("the entry point is an import"));
    } else {
        app.funcs[entry_export.index as usize - app_funcs.len()]
    };
    if app.type_params.get(entry_ty_idx as usize) != Some(&0) {
        return Err(unsupported("the entry point takes parameters"));
    }
    let mut begin = wasm_encoder::Function::new([]);
    for f in &life.begin {
        call_dropping(&mut begin, store, &addrs, *f)?;
    }
    begin.instruction(&I::End);
    let begin_hooks = b.helper("begin_hooks", unit, begin);
    let mut entry = wasm_encoder::Function::new([]);
    entry
        .instruction(&I::Call(begin_hooks))
        .instruction(&I::Call(entry_orig))
        .instruction(&I::Call(exit_hooks))
        .instruction(&I::End);
    let entry_wrapper = b.helper("entry", entry_ty_idx, entry);
    let mut app_start = wasm_encoder::Function::new([]);
    app_start
        .instruction(&I::I32Const(1))
        .instruction(&I::GlobalSet(deferred_global))
        .instruction(&I::Call(entry_orig))
        .instruction(&I::End);
    let app_start = b.helper("app_start", entry_ty_idx, app_start);

    Merged {
        store,
        app,
        app_map,
        insts,
        mons,
        mon_maps,
        types_base,
        addrs,
        b,
        helper_mem,
        wasi_memory: (needs_write || needs_clock).then_some(io.scratch_mem),
        entry_name,
        entry_wrapper,
        flags: [done_global, deferred_global],
        exports: [
            (EXPORT_BEGIN, begin_hooks),
            (EXPORT_APP_START, app_start),
            (EXPORT_EXIT, exit_hooks),
        ],
    }
    .encode()
}

/// A merged module whose every index is known, to be encoded.
struct Merged<'a> {
    store: &'a Store,
    app: Parts<'a>,
    app_map: IndexMap,
    insts: Vec<&'a InstanceData>,
    mons: Vec<Parts<'a>>,
    mon_maps: Vec<IndexMap>,
    types_base: Vec<u32>,
    addrs: Addrs,
    b: Builder,
    helper_mem: Option<u32>,
    /// The memory WASI calls of the helpers go through (exported as `memory`
    /// if the app exports none).
    wasi_memory: Option<u32>,
    /// The entry export, wrapped by `entry_wrapper`.
    entry_name: String,
    entry_wrapper: u32,
    /// The exit hooks' `done` and `deferred` flags (mutable i32 globals, last).
    flags: [u32; 2],
    /// Helpers exported for harnesses.
    exports: [(&'static str, u32); 3],
}

impl Merged<'_> {
    fn encode(self) -> Result<Vec<u8>, LoadError> {
        let Merged {
            store,
            app,
            mut app_map,
            insts,
            mons,
            mut mon_maps,
            types_base,
            addrs,
            b,
            helper_mem,
            wasi_memory,
            entry_name,
            entry_wrapper,
            flags,
            exports,
        } = self;
        let mut out = wasm_encoder::Module::new();
        let mut ts = wasm_encoder::TypeSection::new();
        if let Some(r) = app.types.clone() {
            app_map
                .parse_type_section(&mut ts, r)
                .map_err(reencode_err)?;
        }
        for (k, m) in mons.iter().enumerate() {
            if let Some(r) = m.types.clone() {
                mon_maps[k]
                    .parse_type_section(&mut ts, r)
                    .map_err(reencode_err)?;
            }
        }
        for (p, r) in &b.types.list {
            ts.function(p.iter().copied(), r.iter().copied());
        }
        out.section(&ts);

        let mut is = wasm_encoder::ImportSection::new();
        for imp in app.imports.iter().filter(|i| i.module != PROBE_MODULE) {
            app_map.parse_import(&mut is, *imp).map_err(reencode_err)?;
        }
        // Added function imports go after the app's; the app's non-function imports
        // may come after its function imports in the section, which is fine.
        for (module, name, ty) in &b.added_imports {
            is.import(module, name, wasm_encoder::EntityType::Function(*ty));
        }
        out.section(&is);

        let mut fs = wasm_encoder::FunctionSection::new();
        for t in &app.funcs {
            fs.function(*t);
        }
        for (k, idata) in insts.iter().enumerate() {
            let m = &idata.module;
            for i in m.num_imported_funcs..m.num_funcs() {
                fs.function(types_base[k] + m.func_types[i as usize]);
            }
        }
        for (_, t, _) in &b.helpers {
            fs.function(*t);
        }
        out.section(&fs);

        let mut tabs = wasm_encoder::TableSection::new();
        for t in &app.tables {
            app_map
                .parse_table(&mut tabs, t.clone())
                .map_err(reencode_err)?;
        }
        let mut snap_elems: Vec<(u32, ValType, Vec<ConstExpr>)> = Vec::new();
        for (k, idata) in insts.iter().enumerate() {
            let m = &idata.module;
            for (i, t) in mons[k].tables.iter().enumerate() {
                let addr = idata.tables[m.num_imported_tables as usize + i];
                let inst = &store.tables[addr.0 as usize];
                let mut ty = mon_maps[k].table_type(t.ty).map_err(reencode_err)?;
                ty.minimum = inst.elems.len() as u64;
                tabs.table(ty);
                let items = inst
                    .elems
                    .iter()
                    .map(|s| addrs.ref_expr(Value::from_slot(inst.ty.elem, *s)))
                    .collect::<Result<Vec<_>, _>>()?;
                snap_elems.push((addrs.tables[&addr], inst.ty.elem, items));
            }
        }
        out.section(&tabs);

        let mut mems = wasm_encoder::MemorySection::new();
        for mt in &app.memories {
            mems.memory(app_map.memory_type(*mt));
        }
        if helper_mem.is_some() {
            mems.memory(wasm_encoder::MemoryType {
                minimum: 1,
                maximum: Some(1),
                memory64: false,
                shared: false,
                page_size_log2: None,
            });
        }
        let mut snap_data: Vec<(u32, usize, &[u8])> = Vec::new();
        for (k, idata) in insts.iter().enumerate() {
            let m = &idata.module;
            for (i, mt) in mons[k].memories.iter().enumerate() {
                let addr = idata.memories[m.num_imported_memories as usize + i];
                let inst = store.memory(addr);
                let mut ty = mon_maps[k].memory_type(*mt);
                ty.minimum = inst.pages();
                mems.memory(ty);
                let bytes: &[u8] = &inst.data;
                for (s, e) in nonzero_runs(bytes) {
                    snap_data.push((addrs.memories[&addr], s, &bytes[s..e]));
                }
            }
        }
        out.section(&mems);

        let mut gs = wasm_encoder::GlobalSection::new();
        for g in &app.globals {
            app_map
                .parse_global(&mut gs, g.clone())
                .map_err(reencode_err)?;
        }
        for (k, idata) in insts.iter().enumerate() {
            let m = &idata.module;
            for (i, g) in mons[k].globals.iter().enumerate() {
                let addr = idata.globals[m.num_imported_globals as usize + i];
                let ty = mon_maps[k].global_type(g.ty).map_err(reencode_err)?;
                gs.global(ty, &value_expr(&addrs, store.global_value(addr))?);
            }
        }
        for _ in flags {
            gs.global(
                wasm_encoder::GlobalType {
                    val_type: W32,
                    mutable: true,
                    shared: false,
                },
                &ConstExpr::i32_const(0),
            );
        }
        out.section(&gs);

        let mut es = wasm_encoder::ExportSection::new();
        let mut exports_memory = false;
        for e in &app.exports {
            exports_memory |= e.name == "memory";
            if e.kind == wasmparser::ExternalKind::Func && e.name == entry_name {
                es.export(e.name, wasm_encoder::ExportKind::Func, entry_wrapper);
            } else {
                app_map.parse_export(&mut es, *e);
            }
        }
        for (name, f) in exports {
            es.export(name, wasm_encoder::ExportKind::Func, f);
        }
        if let (false, Some(m)) = (exports_memory, wasi_memory) {
            // WASI functions use the exported `memory`.
            es.export("memory", wasm_encoder::ExportKind::Memory, m);
        }
        out.section(&es);

        if let Some(s) = app.start {
            out.section(&wasm_encoder::StartSection {
                function_index: app_map.funcs[s as usize],
            });
        }

        let mut els = wasm_encoder::ElementSection::new();
        for e in &app.elems {
            app_map
                .parse_element(&mut els, e.clone())
                .map_err(reencode_err)?;
        }
        for (k, idata) in insts.iter().enumerate() {
            for (i, seg) in idata.module.elems.iter().enumerate() {
                if matches!(seg.mode, ElemMode::Declared) {
                    mon_maps[k]
                        .parse_element(&mut els, mons[k].elems[i].clone())
                        .map_err(reencode_err)?;
                    continue;
                }
                let items = idata.elems[i]
                    .iter()
                    .map(|s| addrs.ref_expr(Value::from_slot(seg.ty, *s)))
                    .collect::<Result<Vec<_>, _>>()?;
                els.passive(wasm_encoder::Elements::Expressions(
                    ref_type(seg.ty),
                    &items,
                ));
            }
        }
        for (table, ty, items) in &snap_elems {
            if items.is_empty() {
                continue;
            }
            els.active(
                Some(*table),
                &ConstExpr::i32_const(0),
                wasm_encoder::Elements::Expressions(ref_type(*ty), items),
            );
        }
        out.section(&els);

        let mut ds = wasm_encoder::DataSection::new();
        for d in &app.datas {
            app_map
                .parse_data(&mut ds, d.clone())
                .map_err(reencode_err)?;
        }
        for (k, idata) in insts.iter().enumerate() {
            for (i, seg) in idata.module.datas.iter().enumerate() {
                // Active segments were applied (and dropped) at instantiation; the
                // memory snapshot has their bytes.
                let keep = matches!(seg.mode, DataMode::Passive) && !idata.data_dropped[i];
                let bytes: &[u8] = if keep { mons[k].datas[i].data } else { &[] };
                ds.passive(bytes.iter().copied());
            }
        }
        for (mem, off, bytes) in &snap_data {
            ds.active(
                *mem,
                &ConstExpr::i32_const(*off as i32),
                bytes.iter().copied(),
            );
        }
        if ds.len() > 0 {
            out.section(&wasm_encoder::DataCountSection { count: ds.len() });
        }

        let mut code = wasm_encoder::CodeSection::new();
        for body in &app.bodies {
            app_map
                .parse_function_body(&mut code, body.clone())
                .map_err(reencode_err)?;
        }
        for (k, m) in mons.iter().enumerate() {
            for body in &m.bodies {
                mon_maps[k]
                    .parse_function_body(&mut code, body.clone())
                    .map_err(reencode_err)?;
            }
        }
        for (_, _, f) in &b.helpers {
            code.function(f);
        }
        out.section(&code);
        out.section(&ds);
        out.section(&names(&app, &app_map, &insts, &mon_maps, &b));
        Ok(out.finish())
    }
}

/// Function names: the app's, `monitor:NAME` for each instance's, the helpers'.
fn names(
    app: &Parts,
    app_map: &IndexMap,
    insts: &[&InstanceData],
    mon_maps: &[IndexMap],
    b: &Builder,
) -> wasm_encoder::NameSection {
    let mut all: std::collections::BTreeMap<u32, String> = Default::default();
    for (i, n) in &app.func_names {
        if let Some(f) = app_map.funcs.get(*i as usize) {
            all.entry(*f).or_insert_with(|| n.to_string());
        }
    }
    for (k, idata) in insts.iter().enumerate() {
        let m = &idata.module;
        let who = m.name.clone().unwrap_or_else(|| format!("monitor{k}"));
        for i in m.num_imported_funcs..m.num_funcs() {
            let f = mon_maps[k].funcs[i as usize];
            all.insert(f, format!("{who}:{}", m.func_name(i)));
        }
    }
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

fn ref_type(t: ValType) -> wasm_encoder::RefType {
    if t == ValType::ExternRef {
        wasm_encoder::RefType::EXTERNREF
    } else {
        wasm_encoder::RefType::FUNCREF
    }
}
