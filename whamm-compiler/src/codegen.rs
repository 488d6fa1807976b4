//! The middle and back end: checked AST -> one monitor module.
//!
//! See docs/whamm-backend.md for the module layout, the export and parameter
//! conventions, and the value representation. In short:
//!
//! * every scalar is one Wasm value (`u8..i32`, `bool`, `str`, maps: i32;
//!   `u64`/`i64`: i64; floats as such), tuples are flattened into several
//!   values (multi-value), strings are pointers to `[len][bytes]`, maps are
//!   pointers to the runtime hash table of `rt.wat`;
//! * in memory (map keys/values, per-site records) each scalar leaf takes 8
//!   bytes;
//! * each matched (event, mode) of a probe is one export; matches whose code
//!   would be identical share one function.

use crate::ast::*;
use crate::catalog::EventCatalog;
use crate::check::{BoundInfo, CheckResult};
use crate::diag::Diag;
use crate::span::Span;
use crate::types::Type;
use crate::wasm::{self, ModB};
use monitor_abi::catalogue::AbiHook;
use monitor_abi::{Param, StaticCall};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use wasm_encoder::{BlockType, ExportKind, Function, Instruction as I, MemArg, ValType as VT};

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Restrict the output to monitor ABI Part A.
    pub portable: bool,
    /// Signatures of the monitor libraries given with `--lib`.
    pub libs: crate::libs::Libs,
}

const SCRATCH_SIZE: u32 = 4096;

// ------------------------------------------------------------------ types

fn vt(t: &Type) -> VT {
    match t {
        Type::U64 | Type::I64 => VT::I64,
        Type::F32 => VT::F32,
        Type::F64 => VT::F64,
        _ => VT::I32,
    }
}

/// Scalar leaves of a type, in order.
fn leaves(t: &Type) -> Vec<Type> {
    let mut v = vec![];
    fn go(t: &Type, v: &mut Vec<Type>) {
        match t {
            Type::Tuple(ts) => ts.iter().for_each(|t| go(t, v)),
            Type::Unit | Type::Error => {}
            t => v.push(t.clone()),
        }
    }
    go(t, &mut v);
    v
}

fn vts(t: &Type) -> Vec<VT> {
    leaves(t).iter().map(vt).collect()
}

fn nleaves(t: &Type) -> u32 {
    leaves(t).len() as u32
}

/// Leaf range of tuple field `idx`.
fn field_range(t: &Type, idx: u32) -> (u32, Type) {
    if let Type::Tuple(ts) = t {
        let start: u32 = ts[..idx as usize].iter().map(nleaves).sum();
        (start, ts[idx as usize].clone())
    } else {
        (0, Type::Error)
    }
}

/// The ABI type code (`argtyN`, monitor_abi::type_code) of a value of `t`.
fn type_code(t: &Type) -> i32 {
    let abi = match vt(t) {
        VT::I64 => monitor_abi::ValType::I64,
        VT::F32 => monitor_abi::ValType::F32,
        VT::F64 => monitor_abi::ValType::F64,
        _ => monitor_abi::ValType::I32,
    };
    monitor_abi::type_code(Some(abi))
}

fn is_i32_repr(t: &Type) -> bool {
    vt(t) == VT::I32
}

/// The whamm type as printed in the report (no spaces).
pub fn type_name(t: &Type) -> String {
    match t {
        Type::Tuple(v) => format!(
            "({})",
            v.iter().map(type_name).collect::<Vec<_>>().join(",")
        ),
        Type::Map(k, v) => format!("map<{},{}>", type_name(k), type_name(v)),
        t => t.to_string(),
    }
}

fn wasm_type_name(t: &Type) -> &'static str {
    match t {
        Type::Tuple(_) | Type::Map(..) | Type::Str => "i32",
        t => match vt(t) {
            VT::I64 => "i64",
            VT::F32 => "f32",
            VT::F64 => "f64",
            _ => "i32",
        },
    }
}

fn mem8(offset: u32, align: u32) -> MemArg {
    MemArg {
        offset: offset as u64,
        align,
        memory_index: 0,
    }
}

// -------------------------------------------------------------- constants

#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
}

fn wrap_int(v: i128, t: &Type) -> Option<i128> {
    let bits = t.bits();
    if !t.is_int() {
        return None;
    }
    let m = v & ((1i128 << bits) - 1);
    Some(if t.is_signed() && m >= (1i128 << (bits - 1)) {
        m - (1i128 << bits)
    } else {
        m
    })
}

// ------------------------------------------------------------ bound vars

/// How a probe reads a bound variable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Access {
    Const(String),
    P(PKey),
    /// `align`: imm0 & 0x3f
    Align,
    /// `addr`: operand k
    Addr(u32),
    /// `effective_addr`: operand k + offset
    EffAddr(u32),
    /// `target` of br_table: min(arg0, num_targets)
    Target,
    /// `failed` of memory.grow:after: result == -1
    Failed,
    /// A static value the engine passes as (ptr, len) in `whamm_buffer`, only
    /// to static calls (`fname`, `target_fn_*`, `targets`): a parameter of
    /// static predicates and allocators, read from the site record in bodies
    Buf(PKey),
    /// `resolved_fid` of call_indirect: `wizeng:app.table_fid(imm1, arg0)`
    Resolved,
}

/// A monitor-ABI parameter with a canonical order (see docs).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum PKey {
    Fid,
    Pc,
    AtFuncEnd,
    NumTargets,
    InstrCount,
    Offset,
    Opidx,
    DefaultTarget,
    Imm(u32),
    ArgTy(u32),
    LocalTy(u32),
    Fname,
    Targets,
    TargetFnName,
    TargetFnType,
    TargetImpModule,
    Arg(u32),
    Local(u32),
}

impl PKey {
    fn param(&self) -> Param {
        match self {
            PKey::Fid => Param::Fid,
            PKey::Pc => Param::Pc,
            PKey::AtFuncEnd => Param::AtFuncEnd,
            PKey::NumTargets => Param::NumTargets,
            PKey::InstrCount => Param::InstrCount,
            PKey::Offset => Param::Offset,
            PKey::Opidx => Param::Opidx,
            PKey::DefaultTarget => Param::DefaultTarget,
            PKey::Imm(n) => Param::Imm(*n),
            PKey::ArgTy(n) => Param::ArgTy(*n),
            PKey::LocalTy(n) => Param::LocalTy(*n),
            PKey::Fname => Param::Fname,
            PKey::Targets => Param::Targets,
            PKey::TargetFnName => Param::TargetFnName,
            PKey::TargetFnType => Param::TargetFnType,
            PKey::TargetImpModule => Param::TargetImpModule,
            PKey::Arg(n) => Param::Arg(*n),
            PKey::Local(n) => Param::Local(*n),
        }
    }

    /// Passed as (ptr, len) in `whamm_buffer`, only to static calls.
    fn is_buf(&self) -> bool {
        matches!(
            self,
            PKey::Fname
                | PKey::Targets
                | PKey::TargetFnName
                | PKey::TargetFnType
                | PKey::TargetImpModule
        )
    }

    /// The buffer-passed static variable of this name.
    fn buf(name: &str) -> Option<PKey> {
        Some(match name {
            "fname" => PKey::Fname,
            "targets" => PKey::Targets,
            "target_fn_name" => PKey::TargetFnName,
            "target_fn_type" => PKey::TargetFnType,
            "target_imp_module" => PKey::TargetImpModule,
            _ => return None,
        })
    }
}

/// The map type of `targets`.
fn targets_type() -> Type {
    Type::Map(Box::new(Type::U32), Box::new(Type::U32))
}

/// The site record of a probe: a fixed header `[next, fid, pc, fname,
/// probe_id, pad]`, then one 8-byte field per other buffer-passed static
/// variable the body uses, then the per-site variables.
const REC_HEADER: u32 = 24;
const REC_FNAME: u32 = 12;

/// Offset of a buffer-passed variable in the site record.
fn rec_offset(fields: &[(PKey, u32)], k: &PKey) -> Option<u32> {
    fields.iter().find(|(f, _)| f == k).map(|(_, o)| *o)
}

struct BoundEnv<'a> {
    spec: &'static monitor_abi::EventSpec,
    after: bool,
    used: &'a HashMap<String, BoundInfo>,
    portable: bool,
}

impl BoundEnv<'_> {
    fn imm_type(&self) -> Type {
        match self.spec.event {
            Some("i64.const") => Type::I64,
            Some("f32.const") => Type::F32,
            Some("f64.const") => Type::F64,
            Some("i32.const") => Type::I32,
            _ => Type::U32,
        }
    }

    /// The type a PKey's value has in the language.
    fn pkey_type(&self, k: &PKey, name_ty: Option<&Type>) -> Type {
        match k {
            PKey::Fid
            | PKey::Pc
            | PKey::NumTargets
            | PKey::InstrCount
            | PKey::Opidx
            | PKey::DefaultTarget
            | PKey::ArgTy(_)
            | PKey::LocalTy(_) => Type::U32,
            PKey::AtFuncEnd => Type::Bool,
            PKey::Offset => Type::U64,
            PKey::Imm(_) => self.imm_type(),
            PKey::Targets => targets_type(),
            PKey::Fname | PKey::TargetFnName | PKey::TargetFnType | PKey::TargetImpModule => {
                Type::Str
            }
            PKey::Arg(_) | PKey::Local(_) => name_ty.cloned().unwrap_or(Type::I32),
        }
    }

    fn addr_operand(&self) -> u32 {
        let m = self.spec.event.unwrap_or("");
        if m.contains("cmpxchg") || m.contains("wait") {
            2
        } else if m.contains("store")
            || m.contains("rmw")
            || m.contains("notify")
            || m.contains("_lane")
        {
            1
        } else {
            0
        }
    }

    fn access(&self, name: &str) -> Result<Access, String> {
        let idx = |p: &str| name.strip_prefix(p).and_then(|d| d.parse::<u32>().ok());
        let op = self.spec.opcode;
        let part_b = matches!(
            name,
            "opidx"
                | "target_fn_name"
                | "target_fn_type"
                | "target_imp_module"
                | "targets"
                | "default_target"
                | "resolved_fid"
        );
        if part_b && self.portable {
            return Err(format!(
                "`{name}` needs monitor ABI Part B; not available with --portable"
            ));
        }
        Ok(match name {
            "fid" => Access::P(PKey::Fid),
            "pc" => Access::P(PKey::Pc),
            "at_func_end" => Access::P(PKey::AtFuncEnd),
            "num_targets" => Access::P(PKey::NumTargets),
            "instr_count" => Access::P(PKey::InstrCount),
            "offset" => Access::P(PKey::Offset),
            "fname" | "targets" | "target_fn_name" | "target_fn_type" | "target_imp_module" => {
                Access::Buf(PKey::buf(name).unwrap_or(PKey::Fname))
            }
            "opidx" => Access::P(PKey::Opidx),
            "default_target" => Access::P(PKey::DefaultTarget),
            "resolved_fid" => Access::Resolved,
            "opname" | "category_name" | "category_id" | "data_size" | "is_write" => {
                Access::Const(name.to_string())
            }
            "align" => Access::Align,
            "memory" => Access::P(PKey::Imm(1)),
            "addr" => Access::Addr(self.addr_operand()),
            "effective_addr" => Access::EffAddr(self.addr_operand()),
            "table_entry_idx" => Access::P(PKey::Arg(0)),
            "target" => Access::Target,
            "failed" => Access::Failed,
            _ => {
                if let Some(n) = idx("imm") {
                    Access::P(PKey::Imm(n))
                } else if let Some(n) = idx("local") {
                    Access::P(PKey::Local(n))
                } else if let Some(n) = idx("arg") {
                    if self.after {
                        return Err(format!("`{name}` (an operand) is not available in mode `after`: the engine passes the results; use `res{n}`"));
                    }
                    Access::P(PKey::Arg(n))
                } else if let Some(n) = idx("res") {
                    Access::P(PKey::Arg(n))
                } else {
                    let _ = op;
                    return Err(format!(
                        "bound variable `{name}` is not supported by the back end"
                    ));
                }
            }
        })
    }

    fn pkeys(&self, a: &Access) -> Vec<PKey> {
        match a {
            Access::Const(_) => vec![],
            Access::P(k) => vec![k.clone()],
            Access::Align => vec![PKey::Imm(0)],
            Access::Addr(k) => vec![PKey::Arg(*k)],
            Access::EffAddr(k) => vec![PKey::Arg(*k), PKey::Offset],
            Access::Target => vec![PKey::Arg(0), PKey::NumTargets],
            Access::Failed => vec![PKey::Arg(0)],
            Access::Buf(k) => vec![k.clone()],
            Access::Resolved => vec![PKey::Arg(0), PKey::Imm(1)],
        }
    }

    fn constant(&self, name: &str) -> Const {
        let op = self.spec.opcode;
        match name {
            "opname" => Const::Str(op.map(|o| o.mnemonic().to_string()).unwrap_or_default()),
            "category_name" => Const::Str(
                op.map(|o| o.category_name().to_string())
                    .unwrap_or_default(),
            ),
            "category_id" => Const::Int(op.map(|o| o.category_id() as i128).unwrap_or(0)),
            "data_size" => {
                Const::Int(op.and_then(monitor_abi::catalogue::data_size).unwrap_or(0) as i128)
            }
            "is_write" => {
                Const::Bool(op.is_some_and(|o| o.is_store() || o.mnemonic().contains("rmw")))
            }
            _ => Const::Int(0),
        }
    }

    fn var_type(&self, name: &str) -> Type {
        self.used
            .get(name)
            .map(|b| b.ty.clone())
            .unwrap_or(Type::Error)
    }
}

/// How a bound variable is read inside a generated function.
#[derive(Clone, Debug)]
enum Bound {
    Const(Const, Type),
    /// A local holding the value (of the given type).
    Local(u32, Type),
    Align(u32),
    EffAddr(u32, u32),
    Target(u32, u32),
    Failed(u32),
    /// A pointer (string, map) stored in the site record (local) at this offset.
    Rec(u32, u32),
    /// `resolved_fid`: locals holding the table index and the entry index.
    Resolved(u32, u32),
}

// ---------------------------------------------------------- function ctx

#[derive(Clone, Debug)]
enum Loc {
    Locals(Vec<u32>),
    Globals(Vec<u32>),
    /// Leaves at `base + off + 8*i`.
    Mem(Base, u32),
}

#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // Addr: static addresses (kept for globals in memory)
enum Base {
    Local(u32),
    Addr(u32),
}

impl Loc {
    fn sub(&self, start: u32, n: u32) -> Loc {
        match self {
            Loc::Locals(v) => Loc::Locals(v[start as usize..(start + n) as usize].to_vec()),
            Loc::Globals(v) => Loc::Globals(v[start as usize..(start + n) as usize].to_vec()),
            Loc::Mem(b, off) => Loc::Mem(*b, off + 8 * start),
        }
    }
}

#[derive(Clone, Debug)]
struct Var {
    ty: Type,
    loc: Loc,
}

#[derive(PartialEq, Clone, Copy)]
enum Label {
    Other,
    Break,
    Continue,
}

struct FnCx {
    locals: Vec<VT>,
    nparams: u32,
    code: Vec<I<'static>>,
    scopes: Vec<HashMap<String, Var>>,
    labels: Vec<Label>,
    ret: Option<Type>,
    bound: HashMap<String, Bound>,
    /// Per-site variables visible in this function.
    site_vars: HashMap<String, Var>,
    /// `@static` calls evaluated at match time: span -> their value's place.
    statics: HashMap<(usize, usize), Var>,
}

impl FnCx {
    fn new(params: &[VT], ret: Option<Type>) -> FnCx {
        FnCx {
            locals: params.to_vec(),
            nparams: params.len() as u32,
            code: vec![],
            scopes: vec![HashMap::new()],
            labels: vec![],
            ret,
            bound: HashMap::new(),
            site_vars: HashMap::new(),
            statics: HashMap::new(),
        }
    }
    fn local(&mut self, t: VT) -> u32 {
        self.locals.push(t);
        self.locals.len() as u32 - 1
    }
    fn e(&mut self, i: I<'static>) {
        self.code.push(i);
    }
    /// Pop values of types `ts` (top of stack last) into fresh locals.
    fn spill(&mut self, ts: &[VT]) -> Vec<u32> {
        let ls: Vec<u32> = ts.iter().map(|t| self.local(*t)).collect();
        for l in ls.iter().rev() {
            self.e(I::LocalSet(*l));
        }
        ls
    }
    fn finish(mut self) -> Function {
        self.e(I::End);
        let locals: Vec<(u32, VT)> = self.locals[self.nparams as usize..]
            .iter()
            .map(|t| (1, *t))
            .collect();
        let mut f = Function::new(locals);
        for i in &self.code {
            f.instruction(i);
        }
        f
    }
    fn lookup(&self, n: &str) -> Option<Var> {
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.get(n) {
                return Some(v.clone());
            }
        }
        self.site_vars.get(n).cloned()
    }
    fn depth_of(&self, l: Label) -> Option<u32> {
        self.labels
            .iter()
            .rev()
            .position(|x| *x == l)
            .map(|p| p as u32)
    }
}

// ------------------------------------------------------------- the compiler

#[allow(dead_code)]
struct ReportVar {
    name: String,
    ty: Type,
    /// global: (id, loc); per-site: probe index + record offset
    global: Option<(u32, Loc)>,
    site: Option<(usize, u32)>,
}

#[allow(dead_code)]
struct ProbeSites {
    head: u32,
    tail: u32,
    report: Vec<(String, Type, u32)>,
}

struct Cg<'a> {
    m: ModB,
    checked: &'a CheckResult,
    diags: Vec<Diag>,
    globals: HashMap<String, Var>,
    global_order: Vec<String>,
    export_names: std::collections::HashSet<String>,
    fns: HashMap<String, u32>,
    fn_sigs: HashMap<String, (Vec<Type>, Type)>,
    libs: HashMap<(String, String), u32>,
    libraries: BTreeSet<String>,
    print_fns: HashMap<(Type, bool), u32>,
    cmp_fns: HashMap<Type, u32>,
    scratch: u32,
    zero: u32,
    reports: Vec<ReportVar>,
    sites: Vec<ProbeSites>,
    counter: u32,
    opts: Options,
    /// Function index of the `wizeng:app.table_fid` import, if imported.
    app_table_fid: Option<u32>,
    /// The event catalogue of the target (site-dependent variable types).
    cat: crate::catalog::AbiCatalog,
}

pub fn compile(
    script: &Script,
    checked: &CheckResult,
    opts: &Options,
) -> Result<Vec<u8>, Vec<Diag>> {
    let libraries: BTreeSet<String> = checked.libraries.iter().cloned().collect();
    // Library imports: every statement-level `lib.f(args)`.
    let mut lib_imports: Vec<(String, String, Vec<VT>, Vec<VT>)> = vec![];
    let mut diags = vec![];
    let mut seen: HashMap<(String, String), Vec<VT>> = HashMap::new();
    visit_exprs(script, &mut |e: &Expr| {
        if let ExprKind::Method { recv, name, args } = &e.kind {
            if let ExprKind::Var(lib) = &recv.kind {
                if libraries.contains(lib) {
                    let sig = opts.libs.get(lib).and_then(|l| l.get(&name.name));
                    let (ps, rs): (Vec<VT>, Vec<VT>) = match sig {
                        Some(f) => (
                            f.params.iter().map(vt).collect(),
                            f.results.iter().map(vt).collect(),
                        ),
                        None => (
                            args.iter().flat_map(|a| vts(&checked.type_of(a))).collect(),
                            vec![],
                        ),
                    };
                    let key = (lib.clone(), name.name.clone());
                    match seen.get(&key) {
                        Some(prev) if *prev != ps => diags.push(Diag::error(
                            format!(
                                "`{lib}.{}` is called with different argument types",
                                name.name
                            ),
                            e.span,
                        )),
                        Some(_) => {}
                        None => {
                            seen.insert(key, ps.clone());
                            lib_imports.push((lib.clone(), name.name.clone(), ps, rs));
                        }
                    }
                }
            }
        }
    });
    // `resolved_fid` reads the app's table through `wizeng:app` (Part B).
    let uses_resolved = checked
        .probes
        .iter()
        .any(|p| p.used_bound.contains_key("resolved_fid"));
    let mut app_table_fid = None;
    if uses_resolved && !opts.portable {
        app_table_fid = Some(4 + lib_imports.len() as u32);
        lib_imports.push((
            monitor_abi::imports::MODULE_APP.into(),
            "table_fid".into(),
            vec![VT::I32, VT::I32],
            vec![VT::I32],
        ));
    }
    let m = ModB::new(&lib_imports);
    let mut libs = HashMap::new();
    for (i, (l, n, _, _)) in lib_imports.iter().enumerate() {
        libs.insert((l.clone(), n.clone()), 4 + i as u32);
    }
    let mut cg = Cg {
        m,
        checked,
        diags,
        globals: HashMap::new(),
        global_order: vec![],
        export_names: Default::default(),
        fns: HashMap::new(),
        fn_sigs: HashMap::new(),
        libs,
        libraries,
        print_fns: HashMap::new(),
        cmp_fns: HashMap::new(),
        scratch: 0,
        zero: 0,
        reports: vec![],
        sites: vec![],
        counter: 0,
        opts: opts.clone(),
        app_table_fid,
        cat: if opts.portable {
            crate::catalog::AbiCatalog::portable()
        } else {
            crate::catalog::AbiCatalog::engine()
        },
    };
    cg.scratch = cg.m.static_alloc(SCRATCH_SIZE);
    cg.zero = cg.m.static_alloc(SCRATCH_SIZE);
    cg.run(script);
    if !cg.diags.is_empty() {
        return Err(cg.diags);
    }
    let bytes = cg.m.finish(0);
    if let Err(e) = wasm::validate(&bytes) {
        return Err(vec![Diag::error(
            format!("internal compiler error: the emitted module does not validate: {e}"),
            Span::default(),
        )]);
    }
    if opts.portable {
        for imp in wasmparser::Parser::new(0).parse_all(&bytes) {
            if let Ok(wasmparser::Payload::ImportSection(r)) = imp {
                for i in r.into_iter().flatten() {
                    if !monitor_abi::imports::is_portable_import(i.module, i.name) {
                        return Err(vec![Diag::error(
                            format!(
                                "internal compiler error: portable module imports {}.{}",
                                i.module, i.name
                            ),
                            Span::default(),
                        )]);
                    }
                }
            }
        }
    }
    Ok(bytes)
}

/// Visit every expression of the script (pre-order).
fn visit_exprs<'e>(script: &'e Script, f: &mut dyn FnMut(&'e Expr)) {
    for item in &script.items {
        match item {
            Item::Stmt(s) => visit_stmt(s, f),
            Item::Fn(d) => visit_block(&d.body, f),
            Item::Probe(p) => {
                if let Some(e) = &p.pred {
                    visit_expr(e, f);
                }
                visit_block(&p.body, f)
            }
            _ => {}
        }
    }
}

fn visit_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, a)
        | ExprKind::Cast(a, _)
        | ExprKind::Static(a)
        | ExprKind::Field(a, _, _) => visit_expr(a, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            visit_expr(a, f);
            visit_expr(b, f)
        }
        ExprKind::Ternary(a, b, c) => {
            visit_expr(a, f);
            visit_expr(b, f);
            visit_expr(c, f)
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| visit_expr(a, f)),
        ExprKind::Method { recv, args, .. } => {
            visit_expr(recv, f);
            args.iter().for_each(|a| visit_expr(a, f))
        }
        ExprKind::Tuple(v) => v.iter().for_each(|a| visit_expr(a, f)),
        _ => {}
    }
}
fn visit_stmt<'e>(s: &'e Stmt, f: &mut dyn FnMut(&'e Expr)) {
    match &s.kind {
        StmtKind::Decl { init: Some(e), .. } | StmtKind::Expr(e) | StmtKind::Return(Some(e)) => {
            visit_expr(e, f)
        }
        StmtKind::Assign { target, value } => {
            visit_expr(target, f);
            visit_expr(value, f)
        }
        StmtKind::IncDec { target, .. } => visit_expr(target, f),
        StmtKind::If {
            branches,
            else_block,
        } => {
            for (c, b) in branches {
                visit_expr(c, f);
                visit_block(b, f);
            }
            if let Some(b) = else_block {
                visit_block(b, f);
            }
        }
        StmtKind::While { cond, body } => {
            visit_expr(cond, f);
            visit_block(body, f)
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            if let Some(i) = init {
                visit_stmt(i, f);
            }
            if let Some(c) = cond {
                visit_expr(c, f);
            }
            if let Some(s) = step {
                visit_stmt(s, f);
            }
            visit_block(body, f)
        }
        _ => {}
    }
}
fn visit_block<'e>(b: &'e Block, f: &mut dyn FnMut(&'e Expr)) {
    b.stmts.iter().for_each(|s| visit_stmt(s, f));
}

/// Names of variables an expression mentions.
fn expr_vars(e: &Expr, out: &mut BTreeSet<String>) {
    let s = Script {
        items: vec![Item::Stmt(Stmt {
            kind: StmtKind::Expr(e.clone()),
            span: e.span,
        })],
    };
    visit_exprs(&s, &mut |x| {
        if let ExprKind::Var(n) = &x.kind {
            out.insert(n.clone());
        }
    });
}

fn block_vars(b: &Block, out: &mut BTreeSet<String>) {
    let s = Script {
        items: vec![Item::Fn(FnDef {
            name: Ident {
                name: String::new(),
                span: b.span,
            },
            params: vec![],
            ret: None,
            body: b.clone(),
            span: b.span,
        })],
    };
    visit_exprs(&s, &mut |x| {
        if let ExprKind::Var(n) = &x.kind {
            out.insert(n.clone());
        }
    });
}

/// Whether `e` can be evaluated at match time: literals, static bound
/// variables, operators and string methods on those, and `@static` library
/// calls whose arguments are themselves match-time. Not: globals, locals,
/// maps, user functions, run-time library calls.
fn match_time(e: &Expr, used: &HashMap<String, BoundInfo>, libs: &BTreeSet<String>) -> bool {
    let mt = |x: &Expr| match_time(x, used, libs);
    match &e.kind {
        ExprKind::Var(n) => used.get(n).is_some_and(|b| b.is_static),
        ExprKind::Static(inner) => match &inner.kind {
            ExprKind::Method { args, .. } => args.iter().all(mt),
            _ => false,
        },
        ExprKind::Call { .. } | ExprKind::Index(..) | ExprKind::Error => false,
        ExprKind::Method { recv, args, .. } => {
            let lib_call =
                matches!(&recv.kind, ExprKind::Var(l) if libs.contains(l) && !used.contains_key(l));
            !lib_call && mt(recv) && args.iter().all(mt)
        }
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::Field(a, _, _) => mt(a),
        ExprKind::Binary(_, a, b) => mt(a) && mt(b),
        ExprKind::Ternary(a, b, c) => mt(a) && mt(b) && mt(c),
        ExprKind::Tuple(v) => v.iter().all(mt),
        _ => true,
    }
}

/// The `@static` expressions of a probe body and of some expressions (the
/// original nodes: the checker records types by node address).
fn static_exprs<'e>(b: &'e Block, extra: &[&'e Expr]) -> Vec<&'e Expr> {
    let mut out = vec![];
    let mut f = |x: &'e Expr| {
        if matches!(x.kind, ExprKind::Static(_)) {
            out.push(x);
        }
    };
    for e in extra {
        visit_expr(e, &mut f);
    }
    for st in &b.stmts {
        visit_stmt(st, &mut f);
    }
    out
}

fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    if let ExprKind::Binary(BinOp::And, a, b) = &e.kind {
        conjuncts(a, out);
        conjuncts(b, out);
    } else {
        out.push(e);
    }
}

fn first_use_span(b: &Block, pred: Option<&Expr>, name: &str) -> Option<Span> {
    let mut span = None;
    let mut items = vec![Item::Fn(FnDef {
        name: Ident {
            name: String::new(),
            span: b.span,
        },
        params: vec![],
        ret: None,
        body: b.clone(),
        span: b.span,
    })];
    if let Some(p) = pred {
        items.insert(
            0,
            Item::Stmt(Stmt {
                kind: StmtKind::Expr(p.clone()),
                span: p.span,
            }),
        );
    }
    visit_exprs(&Script { items }, &mut |x| {
        if span.is_none() && matches!(&x.kind, ExprKind::Var(n) if n == name) {
            span = Some(x.span);
        }
    });
    span
}

/// One export's plan.
struct MatchPlan {
    pattern_event: monitor_abi::Event,
    match_name: String,
    consts: BTreeMap<String, Const>,
    body_access: BTreeMap<String, Access>,
    pred_access: BTreeMap<String, Access>,
    static_conj: Vec<usize>,
    /// Type guards: `argtyN`/`localtyN` -> the required type code.
    guards: BTreeMap<PKey, i32>,
    spec: &'static monitor_abi::EventSpec,
    after: bool,
}

impl<'a> Cg<'a> {
    fn err(&mut self, d: Diag) {
        self.diags.push(d);
    }

    fn ty(&self, e: &Expr) -> Type {
        self.checked.type_of(e)
    }

    fn run(&mut self, script: &Script) {
        // Globals.
        let mut gid = 0u32;
        for item in &script.items {
            if let Item::Stmt(Stmt {
                kind:
                    StmtKind::Decl {
                        decorators,
                        name,
                        ty,
                        ..
                    },
                ..
            }) = item
            {
                let loc = if let Type::Tuple(_) = ty.ty {
                    Loc::Globals(
                        vts(&ty.ty)
                            .iter()
                            .map(|t| self.m.global(*t, zero_const(*t)))
                            .collect(),
                    )
                } else {
                    Loc::Globals(vec![self.m.global(vt(&ty.ty), zero_const(vt(&ty.ty)))])
                };
                if decorators.iter().any(|(d, _)| *d == Decorator::Report) {
                    self.reports.push(ReportVar {
                        name: name.name.clone(),
                        ty: ty.ty.clone(),
                        global: Some((gid, loc.clone())),
                        site: None,
                    });
                }
                self.globals.insert(
                    name.name.clone(),
                    Var {
                        ty: ty.ty.clone(),
                        loc,
                    },
                );
                self.global_order.push(name.name.clone());
                gid += 1;
            }
        }
        // Function signatures.
        for item in &script.items {
            if let Item::Fn(f) = item {
                let ps: Vec<Type> = f.params.iter().map(|p| p.1.ty.clone()).collect();
                let ret = f.ret.as_ref().map(|t| t.ty.clone()).unwrap_or(Type::Unit);
                let pv: Vec<VT> = ps.iter().flat_map(vts).collect();
                let idx = self.m.declare(&pv, &vts(&ret));
                self.fns.insert(f.name.name.clone(), idx);
                self.fn_sigs.insert(f.name.name.clone(), (ps, ret));
            }
        }
        for item in &script.items {
            if let Item::Fn(f) = item {
                self.function(f);
            }
        }
        // Probes.
        let mut begin = vec![];
        let mut end = vec![];
        let mut report = vec![];
        let probes: Vec<&Probe> = script
            .items
            .iter()
            .filter_map(|i| {
                if let Item::Probe(p) = i {
                    Some(p)
                } else {
                    None
                }
            })
            .collect();
        if probes.len() != self.checked.probes.len() {
            self.err(Diag::error(
                "internal compiler error: probe count mismatch",
                Span::default(),
            ));
            return;
        }
        for (pi, p) in probes.iter().enumerate() {
            let info = &self.checked.probes[pi];
            let hook = info
                .matches
                .first()
                .and_then(|m| monitor_abi::catalogue().get(m.event.key))
                .and_then(|s| s.abi_hook(None));
            match (
                hook,
                info.matches.first().map(|m| m.event.parts[1].as_str()),
            ) {
                (Some(AbiHook::Begin), _) => begin.push(self.simple_probe(p)),
                (Some(AbiHook::Exit), Some("report")) => report.push(self.simple_probe(p)),
                (Some(AbiHook::Exit), _) => end.push(self.simple_probe(p)),
                _ => self.probe(pi, p),
            }
        }
        // Start function: global maps, then top-level statements.
        let start = self.m.declare(&[], &[]);
        let mut cx = FnCx::new(&[], None);
        for name in self.global_order.clone() {
            let v = self.globals[&name].clone();
            self.init_maps(&mut cx, &v.ty, &v.loc);
        }
        for item in &script.items {
            if let Item::Stmt(s) = item {
                if let StmtKind::Decl { name, init, .. } = &s.kind {
                    if let Some(e) = init {
                        let v = self.globals[&name.name].clone();
                        self.expr_to(&mut cx, e, &v.ty);
                        self.store_from_stack(&mut cx, &v.ty, &v.loc);
                    }
                } else {
                    self.stmt(&mut cx, s);
                }
            }
        }
        self.m.define(start, cx.finish());
        self.m.start = Some(start);
        if !begin.is_empty() {
            let f = self.dispatcher(&begin);
            self.m.export("wasm:begin", ExportKind::Func, f);
        }
        let has_report =
            !self.reports.is_empty() || self.sites.iter().any(|s| !s.report.is_empty());
        if !end.is_empty() || !report.is_empty() || has_report {
            let f = self.m.declare(&[], &[]);
            let mut cx = FnCx::new(&[], None);
            for g in &end {
                cx.e(I::Call(*g));
            }
            if report.is_empty() {
                if has_report {
                    self.default_report(&mut cx);
                }
            } else {
                for g in &report {
                    cx.e(I::Call(*g));
                }
            }
            self.m.define(f, cx.finish());
            self.m.export("wasm:exit", ExportKind::Func, f);
        }
        self.m.export("memory", ExportKind::Memory, 0);
        self.m.export(
            monitor_abi::imports::EXPORT_WHAMM_BUFFER,
            ExportKind::Memory,
            0,
        );
        let s = self.m.global(
            VT::I32,
            wasm_encoder::ConstExpr::i32_const(wasm::BUF_START as i32),
        );
        self.m.globals[s as usize].1 = false;
        self.m.export(
            monitor_abi::imports::EXPORT_WHAMM_BUFFER_START,
            ExportKind::Global,
            s,
        );
        let s = self.m.global(
            VT::I32,
            wasm_encoder::ConstExpr::i32_const(wasm::BUF_MAX as i32),
        );
        self.m.globals[s as usize].1 = false;
        self.m.export(
            monitor_abi::imports::EXPORT_WHAMM_BUFFER_MAX,
            ExportKind::Global,
            s,
        );
    }

    fn dispatcher(&mut self, fs: &[u32]) -> u32 {
        let f = self.m.declare(&[], &[]);
        let mut cx = FnCx::new(&[], None);
        for g in fs {
            cx.e(I::Call(*g));
        }
        self.m.define(f, cx.finish());
        f
    }

    fn simple_probe(&mut self, p: &Probe) -> u32 {
        let f = self.m.declare(&[], &[]);
        let mut cx = FnCx::new(&[], None);
        if let Some(pred) = &p.pred {
            self.expr_to(&mut cx, pred, &Type::Bool);
            cx.e(I::I32Eqz);
            cx.e(I::If(BlockType::Empty));
            cx.e(I::Return);
            cx.e(I::End);
        }
        self.block(&mut cx, &p.body);
        self.m.define(f, cx.finish());
        f
    }

    fn function(&mut self, f: &FnDef) {
        let idx = self.fns[&f.name.name];
        let (ps, ret) = self.fn_sigs[&f.name.name].clone();
        let pv: Vec<VT> = ps.iter().flat_map(vts).collect();
        let mut cx = FnCx::new(&pv, Some(ret.clone()));
        let mut next = 0u32;
        for ((n, _), t) in f.params.iter().zip(&ps) {
            let k = nleaves(t);
            cx.scopes[0].insert(
                n.name.clone(),
                Var {
                    ty: t.clone(),
                    loc: Loc::Locals((next..next + k).collect()),
                },
            );
            next += k;
        }
        self.block(&mut cx, &f.body);
        if ret != Type::Unit {
            // The checker guarantees a return on every path.
            cx.e(I::Unreachable);
        }
        self.m.define(idx, cx.finish());
    }

    // ------------------------------------------------------------ probes

    fn probe(&mut self, pi: usize, p: &Probe) {
        let checked: &'a CheckResult = self.checked;
        let info = &checked.probes[pi];
        let used = &info.used_bound;
        // Per-site variables: decorated declarations at the top of the body.
        let mut site_decls: Vec<(&Ident, &TypeExpr, Option<&Expr>, bool)> = vec![];
        for s in &p.body.stmts {
            if let StmtKind::Decl {
                decorators,
                name,
                ty,
                init,
            } = &s.kind
            {
                if !decorators.is_empty() {
                    site_decls.push((
                        name,
                        ty,
                        init.as_ref(),
                        decorators.iter().any(|(d, _)| *d == Decorator::Report),
                    ));
                }
            }
        }
        // Predicate split.
        let mut conj = vec![];
        if let Some(pe) = &p.pred {
            conjuncts(pe, &mut conj);
        }
        let is_static: Vec<bool> = conj
            .iter()
            .map(|c| match_time(c, used, &self.libraries))
            .collect();
        // `@static` calls of the body and the run-time conjuncts are made at
        // match time, in the site allocator; the body reads the record.
        let dyn_conj: Vec<&Expr> = conj
            .iter()
            .zip(&is_static)
            .filter(|(_, s)| !**s)
            .map(|(c, _)| *c)
            .collect();
        let statics = static_exprs(&p.body, &dyn_conj);
        for st in &statics {
            if !match_time(st, used, &self.libraries) {
                self.err(
                    Diag::error(
                        "the arguments of a `@static` call must be known at match time",
                        st.span,
                    )
                    .with_label("uses a global, local, map, function or dynamic bound variable")
                    .with_note("`@static` calls run once per matched site, before the program runs: use literals and static bound variables (fid, pc, fname, immN, ...)"),
                );
                return;
            }
        }
        // Bound variables used by the body and dynamic conjuncts / static ones / initializers.
        let mut body_vars = BTreeSet::new();
        block_vars(&p.body, &mut body_vars);
        for (i, c) in conj.iter().enumerate() {
            if !is_static[i] {
                expr_vars(c, &mut body_vars);
            }
        }
        body_vars.retain(|v| used.contains_key(v));
        let mut pred_vars = BTreeSet::new();
        for (i, c) in conj.iter().enumerate() {
            if is_static[i] {
                expr_vars(c, &mut pred_vars);
            }
        }
        pred_vars.retain(|v| used.contains_key(v));
        let mut init_vars = BTreeSet::new();
        for (_, _, init, _) in &site_decls {
            if let Some(e) = init {
                expr_vars(e, &mut init_vars);
            }
        }
        init_vars.retain(|v| used.contains_key(v));
        for v in &init_vars {
            if !used[v].is_static {
                let span = site_decls
                    .iter()
                    .find_map(|d| {
                        d.2.filter(|e| {
                            let mut s = BTreeSet::new();
                            expr_vars(e, &mut s);
                            s.contains(v)
                        })
                        .map(|e| e.span)
                    })
                    .unwrap_or(p.rule_span);
                self.err(Diag::error(format!("the initializer of a per-site variable can only use static bound variables, not `{v}`"), span).with_note("per-site variables are initialized once per site, at match time"));
                return;
            }
        }
        // Site record layout: next, fid, pc, fname, probe_id, then variables.
        // Buffer-passed static variables the body reads live in the record.
        let mut rec_fields: Vec<(PKey, u32)> = vec![];
        let mut rec_size = REC_HEADER;
        for k in body_vars.iter().filter_map(|v| PKey::buf(v)) {
            if k == PKey::Fname {
                rec_fields.push((k, REC_FNAME));
            } else {
                rec_fields.push((k, rec_size));
                rec_size += 8;
            }
        }
        let mut static_fields: Vec<(&Expr, Type, u32)> = vec![];
        for st in statics {
            let t = self.ty(st);
            static_fields.push((st, t.clone(), rec_size));
            rec_size += 8 * nleaves(&t).max(1);
        }
        let has_site =
            !site_decls.is_empty() || !rec_fields.is_empty() || !static_fields.is_empty();
        let mut site_vars: Vec<(String, Type, u32, bool)> = vec![];
        for (n, t, _, rep) in &site_decls {
            site_vars.push((n.name.clone(), t.ty.clone(), rec_size, *rep));
            rec_size += 8 * nleaves(&t.ty).max(1);
        }
        let head = self.m.global(VT::I32, zero_const(VT::I32));
        let tail = self.m.global(VT::I32, zero_const(VT::I32));
        self.sites.push(ProbeSites {
            head,
            tail,
            report: site_vars
                .iter()
                .filter(|v| v.3)
                .map(|v| (v.0.clone(), v.1.clone(), v.2))
                .collect(),
        });
        let sites_idx = self.sites.len() - 1;
        let _ = sites_idx;

        // Plan every match.
        let mut plans = vec![];
        for m in &info.matches {
            let Some(spec) = monitor_abi::catalogue().get(m.event.key) else {
                continue;
            };
            let mode = m
                .mode
                .as_deref()
                .and_then(monitor_abi::ProbeMode::from_name);
            let Some(AbiHook::Probe(ev)) = spec.abi_hook(mode) else {
                self.err(Diag::error(
                    format!("the target cannot honour `{}`", m.name()),
                    p.rule_span,
                ));
                return;
            };
            let after = mode == Some(monitor_abi::ProbeMode::After);
            if after && self.opts.portable {
                self.err(Diag::error(format!("mode `after` of `{}` needs monitor ABI Part B; not available with --portable", m.event.name()), p.rule_span));
                return;
            }
            let env = BoundEnv {
                spec,
                after,
                used,
                portable: self.opts.portable,
            };
            let mut consts = BTreeMap::new();
            let mut body_access = BTreeMap::new();
            let mut pred_access = BTreeMap::new();
            let mut init_access = BTreeMap::new();
            for (set, out) in [
                (&body_vars, &mut body_access),
                (&pred_vars, &mut pred_access),
                (&init_vars, &mut init_access),
            ] {
                for v in set.iter() {
                    match env.access(v) {
                        Ok(Access::Const(c)) => {
                            consts.insert(c.clone(), env.constant(&c));
                            out.insert(v.clone(), Access::Const(c));
                        }
                        Ok(a) => {
                            out.insert(v.clone(), a);
                        }
                        Err(msg) => {
                            let span =
                                first_use_span(&p.body, p.pred.as_ref(), v).unwrap_or(p.rule_span);
                            self.err(
                                Diag::error(msg, span)
                                    .with_note(format!("while compiling `{}`", m.name())),
                            );
                            return;
                        }
                    }
                }
            }
            // Fold static conjuncts with this event's constants.
            let mut static_conj = vec![];
            let mut dead = false;
            for (i, c) in conj.iter().enumerate() {
                if !is_static[i] {
                    continue;
                }
                let mut cx = FnCx::new(&[], None);
                for (k, c2) in &consts {
                    cx.bound
                        .insert(k.clone(), Bound::Const(c2.clone(), env.var_type(k)));
                }
                match self.fold(&cx, c) {
                    Some(Const::Bool(false)) => dead = true,
                    Some(Const::Bool(true)) => {}
                    _ => static_conj.push(i),
                }
            }
            if dead {
                continue;
            }
            // Type guards (ABI Part B `argtyN`/`localtyN`): a variable whose
            // type depends on the site and that a type bound fixed is only
            // bound where it has that type; elsewhere the predicate says no.
            let mut guards = BTreeMap::new();
            if !self.opts.portable {
                for b in &info.rule.bounds {
                    let idx = |p: &str| b.var.strip_prefix(p).and_then(|d| d.parse::<u32>().ok());
                    let k = match (idx("arg").or_else(|| idx("res")), idx("local")) {
                        (Some(n), _) => PKey::ArgTy(n),
                        (_, Some(n)) => PKey::LocalTy(n),
                        _ => continue,
                    };
                    let dependent = self
                        .cat
                        .bound_var(&m.event, m.mode.as_deref(), &b.var)
                        .is_some_and(|v| v.ty == crate::catalog::VarType::SiteDependent);
                    if dependent {
                        guards.insert(k, type_code(&b.ty));
                    }
                }
            }
            plans.push(MatchPlan {
                guards,
                pattern_event: ev,
                match_name: m.name(),
                consts,
                body_access,
                pred_access,
                static_conj,
                spec,
                after,
            });
        }
        // Group matches with identical code.
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, pl) in plans.iter().enumerate() {
            let env = BoundEnv {
                spec: pl.spec,
                after: pl.after,
                used,
                portable: self.opts.portable,
            };
            let body_keys: BTreeSet<PKey> = pl
                .body_access
                .values()
                .flat_map(|a| env.pkeys(a))
                .filter(|k| !k.is_buf())
                .collect();
            let key = format!(
                "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
                pl.consts,
                pl.body_access,
                pl.pred_access,
                pl.static_conj,
                pl.guards,
                body_keys
                    .iter()
                    .map(|k| env.pkey_type(k, None))
                    .collect::<Vec<_>>(),
                env.imm_type()
            );
            groups.entry(key).or_default().push(i);
        }
        for (_, members) in groups {
            let pl = &plans[members[0]];
            let env = BoundEnv {
                spec: pl.spec,
                after: pl.after,
                used,
                portable: self.opts.portable,
            };
            // --- static predicate
            let pred_call = if pl.static_conj.is_empty() && pl.guards.is_empty() {
                None
            } else {
                let mut keys: BTreeSet<PKey> =
                    pl.pred_access.values().flat_map(|a| env.pkeys(a)).collect();
                keys.extend(pl.guards.keys().cloned());
                let keys: Vec<PKey> = keys.into_iter().collect();
                let mut params = vec![];
                for k in &keys {
                    if k.is_buf() {
                        params.extend([VT::I32, VT::I32]);
                    } else {
                        params.push(vt(&env.pkey_type(k, None)));
                    }
                }
                let f = self.m.declare(&params, &[VT::I32]);
                let mut cx = FnCx::new(&params, None);
                let saved = cx.local(VT::I32);
                cx.e(I::GlobalGet(0));
                cx.e(I::LocalSet(saved));
                let locals = self.bind_params(&mut cx, &keys, &env, true);
                self.bind_bound(&mut cx, &pl.pred_access, &pl.consts, &locals, &env, None);
                let res = cx.local(VT::I32);
                cx.e(I::I32Const(1));
                cx.e(I::LocalSet(res));
                for (k, code) in &pl.guards {
                    cx.e(I::LocalGet(locals[k].0));
                    cx.e(I::I32Const(*code));
                    cx.e(I::I32Eq);
                    cx.e(I::LocalGet(res));
                    cx.e(I::I32And);
                    cx.e(I::LocalSet(res));
                }
                for i in &pl.static_conj {
                    self.expr_to(&mut cx, conj[*i], &Type::Bool);
                    cx.e(I::LocalGet(res));
                    cx.e(I::I32And);
                    cx.e(I::LocalSet(res));
                }
                cx.e(I::LocalGet(saved));
                cx.e(I::GlobalSet(0));
                cx.e(I::LocalGet(res));
                self.m.define(f, cx.finish());
                self.counter += 1;
                let name = format!("$pred_{}", self.counter);
                self.m.export(&name, ExportKind::Func, f);
                Some(StaticCall {
                    name,
                    params: keys.iter().map(|k| k.param()).collect(),
                })
            };
            // --- body
            let mut keys: BTreeSet<PKey> = pl
                .body_access
                .values()
                .flat_map(|a| env.pkeys(a))
                .filter(|k| !k.is_buf())
                .collect();
            let mut params = vec![];
            if has_site {
                params.push(VT::I32);
            }
            let name_ty = |k: &PKey| -> Option<Type> {
                pl.body_access
                    .iter()
                    .find(|(_, a)| **a == Access::P(k.clone()))
                    .map(|(n, _)| env.var_type(n))
            };
            // operands read through derived accessors (addr, target, ...) are u32/i32
            let keys_v: Vec<PKey> = std::mem::take(&mut keys).into_iter().collect();
            let mut key_types = vec![];
            for k in &keys_v {
                let t = env.pkey_type(k, name_ty(k).as_ref());
                let t = if matches!(k, PKey::Arg(_)) && name_ty(k).is_none() {
                    Type::U32
                } else {
                    t
                };
                params.push(vt(&t));
                key_types.push(t);
            }
            let f = self.m.declare(&params, &[]);
            let mut cx = FnCx::new(&params, None);
            let rec = if has_site { Some(0u32) } else { None };
            let first = u32::from(has_site);
            let mut locals = HashMap::new();
            for (i, k) in keys_v.iter().enumerate() {
                let l = first + i as u32;
                self.normalize_param(&mut cx, l, &key_types[i]);
                locals.insert(k.clone(), (l, key_types[i].clone()));
            }
            self.bind_bound(
                &mut cx,
                &pl.body_access,
                &pl.consts,
                &locals,
                &env,
                rec.map(|r| (r, &rec_fields[..])),
            );
            if let Some(r) = rec {
                for (e, t, off) in &static_fields {
                    cx.statics.insert(
                        (e.span.lo, e.span.hi),
                        Var {
                            ty: t.clone(),
                            loc: Loc::Mem(Base::Local(r), *off),
                        },
                    );
                }
                for (n, t, off, _) in &site_vars {
                    cx.site_vars.insert(
                        n.clone(),
                        Var {
                            ty: t.clone(),
                            loc: Loc::Mem(Base::Local(r), *off),
                        },
                    );
                }
            }
            // dynamic predicate
            for (i, c) in conj.iter().enumerate() {
                if is_static[i] && !pl.static_conj.contains(&i) {
                    continue; // folded to true
                }
                if is_static[i] {
                    continue; // decided at match time
                }
                self.expr_to(&mut cx, c, &Type::Bool);
                cx.e(I::I32Eqz);
                cx.e(I::If(BlockType::Empty));
                cx.e(I::Return);
                cx.e(I::End);
            }
            for s in &p.body.stmts {
                if let StmtKind::Decl { decorators, .. } = &s.kind {
                    if !decorators.is_empty() {
                        continue;
                    }
                }
                self.stmt(&mut cx, s);
            }
            self.m.define(f, cx.finish());
            // --- per match: alloc + export
            for &mi in &members {
                let plm = &plans[mi];
                let mut abi_params = vec![];
                if has_site {
                    let alloc = self.alloc_fn(
                        pi,
                        plm,
                        &site_decls,
                        &site_vars,
                        &rec_fields,
                        &static_fields,
                        rec_size,
                        (head, tail),
                    );
                    abi_params.push(Param::Call(alloc));
                }
                abi_params.extend(keys_v.iter().map(|k| k.param()));
                let pat = monitor_abi::Pattern {
                    event: plm.pattern_event,
                    predicate: pred_call.clone(),
                    params: abi_params,
                };
                let mut name = pat.to_string();
                // Two probes on one event with the same parameters: export
                // names must differ, so the n-th copy gets n spaces after the
                // event (the ABI grammar's `ws`).
                let ev_len = format!("wasm:{}", plm.pattern_event).len();
                let mut pad = 0;
                while self.export_names.contains(&name) {
                    pad += 1;
                    let canon = pat.to_string();
                    name = format!(
                        "{}{}{}",
                        &canon[..ev_len],
                        " ".repeat(pad),
                        &canon[ev_len..]
                    );
                }
                self.export_names.insert(name.clone());
                debug_assert!(monitor_abi::parse_export_name(&name).is_ok(), "{name}");
                if let Err(e) = monitor_abi::parse_export_name(&name) {
                    self.err(Diag::error(
                        format!(
                            "internal compiler error: export name `{name}` does not parse: {e}"
                        ),
                        p.rule_span,
                    ));
                }
                self.m.export(&name, ExportKind::Func, f);
            }
        }
    }

    /// Normalize a narrow-typed parameter in place (e.g. `arg0: u8`).
    fn normalize_param(&mut self, cx: &mut FnCx, l: u32, t: &Type) {
        if matches!(t, Type::U8 | Type::I8 | Type::U16 | Type::I16 | Type::Bool) {
            cx.e(I::LocalGet(l));
            if *t == Type::Bool {
                cx.e(I::I32Eqz);
                cx.e(I::I32Eqz);
            } else {
                self.normalize(cx, t);
            }
            cx.e(I::LocalSet(l));
        }
    }

    /// Bind static-call params to locals: returns PKey -> (local, type).
    /// `fname` (ptr, len) is copied to a heap string.
    fn bind_params(
        &mut self,
        cx: &mut FnCx,
        keys: &[PKey],
        env: &BoundEnv,
        _pred: bool,
    ) -> HashMap<PKey, (u32, Type)> {
        let mut out = HashMap::new();
        let mut l = 0u32;
        for k in keys {
            if k.is_buf() {
                let s = cx.local(VT::I32);
                cx.e(I::LocalGet(l));
                cx.e(I::LocalGet(l + 1));
                let f = match k {
                    PKey::Targets => "map_from_u32s",
                    // the language's names are empty where the engine says `func#N`
                    PKey::Fname | PKey::TargetFnName => "name_from",
                    _ => "str_from",
                };
                cx.e(I::Call(self.m.rt(f)));
                cx.e(I::LocalSet(s));
                out.insert(k.clone(), (s, env.pkey_type(k, None)));
                l += 2;
            } else {
                out.insert(k.clone(), (l, env.pkey_type(k, None)));
                l += 1;
            }
        }
        out
    }

    fn bind_bound(
        &mut self,
        cx: &mut FnCx,
        access: &BTreeMap<String, Access>,
        consts: &BTreeMap<String, Const>,
        locals: &HashMap<PKey, (u32, Type)>,
        env: &BoundEnv,
        rec: Option<(u32, &[(PKey, u32)])>,
    ) {
        for (name, a) in access {
            let get = |k: &PKey| locals.get(k).map(|x| x.0).unwrap_or(0);
            let b = match a {
                Access::Const(c) => Bound::Const(consts[c].clone(), env.var_type(name)),
                Access::P(k) => {
                    let (l, t) = locals.get(k).cloned().unwrap_or((0, Type::U32));
                    Bound::Local(
                        l,
                        if matches!(k, PKey::Arg(_) | PKey::Local(_)) {
                            env.var_type(name)
                        } else {
                            t
                        },
                    )
                }
                Access::Align => Bound::Align(get(&PKey::Imm(0))),
                Access::Addr(k) => Bound::Local(get(&PKey::Arg(*k)), Type::U32),
                Access::EffAddr(k) => Bound::EffAddr(get(&PKey::Arg(*k)), get(&PKey::Offset)),
                Access::Target => Bound::Target(get(&PKey::Arg(0)), get(&PKey::NumTargets)),
                Access::Failed => Bound::Failed(get(&PKey::Arg(0))),
                Access::Buf(k) => {
                    match (
                        locals.get(k),
                        rec.and_then(|(r, f)| Some((r, rec_offset(f, k)?))),
                    ) {
                        (Some((l, t)), _) => Bound::Local(*l, t.clone()),
                        (None, Some((r, off))) => Bound::Rec(r, off),
                        // unreachable: bodies read every buffer variable from the record
                        _ => Bound::Const(Const::Str(String::new()), Type::Str),
                    }
                }
                Access::Resolved => Bound::Resolved(get(&PKey::Imm(1)), get(&PKey::Arg(0))),
            };
            cx.bound.insert(name.clone(), b);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn alloc_fn(
        &mut self,
        pi: usize,
        pl: &MatchPlan,
        decls: &[(&Ident, &TypeExpr, Option<&Expr>, bool)],
        site_vars: &[(String, Type, u32, bool)],
        rec_fields: &[(PKey, u32)],
        statics: &[(&Expr, Type, u32)],
        size: u32,
        (head, tail): (u32, u32),
    ) -> StaticCall {
        let checked: &'a CheckResult = self.checked;
        let used = &checked.probes[pi].used_bound;
        let env = BoundEnv {
            spec: pl.spec,
            after: pl.after,
            used,
            portable: self.opts.portable,
        };
        let mut init_access = BTreeMap::new();
        let mut consts = pl.consts.clone();
        let inits = decls.iter().filter_map(|d| d.2);
        for e in inits.chain(statics.iter().map(|s| s.0)) {
            {
                let mut vs = BTreeSet::new();
                expr_vars(e, &mut vs);
                for v in vs {
                    if used.contains_key(&v) {
                        if let Ok(a) = env.access(&v) {
                            if let Access::Const(c) = &a {
                                consts.insert(c.clone(), env.constant(c));
                            }
                            init_access.insert(v, a);
                        }
                    }
                }
            }
        }
        let mut keys: BTreeSet<PKey> = init_access.values().flat_map(|a| env.pkeys(a)).collect();
        keys.extend([PKey::Fid, PKey::Pc, PKey::Fname]);
        keys.extend(rec_fields.iter().map(|(k, _)| k.clone()));
        let keys: Vec<PKey> = keys.into_iter().collect();
        let mut params = vec![];
        for k in &keys {
            if k.is_buf() {
                params.extend([VT::I32, VT::I32]);
            } else {
                params.push(vt(&env.pkey_type(k, None)));
            }
        }
        let f = self.m.declare(&params, &[VT::I32]);
        let mut cx = FnCx::new(&params, None);
        let locals = self.bind_params(&mut cx, &keys, &env, false);
        let rec = cx.local(VT::I32);
        cx.e(I::I32Const(size as i32));
        cx.e(I::Call(self.m.rt("alloc")));
        cx.e(I::LocalSet(rec));
        let fields = [(PKey::Fid, 4u32), (PKey::Pc, 8), (PKey::Fname, REC_FNAME)];
        for (k, off) in fields.iter().chain(rec_fields) {
            cx.e(I::LocalGet(rec));
            cx.e(I::LocalGet(locals[k].0));
            cx.e(I::I32Store(mem8(*off, 2)));
        }
        let pid = self.m.string(&format!("{}_{}", pi, pl.match_name));
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Const(pid as i32));
        cx.e(I::I32Store(mem8(16, 2)));
        // link: if tail { tail.next = rec } else { head = rec }; tail = rec
        cx.e(I::GlobalGet(tail));
        cx.e(I::If(BlockType::Empty));
        cx.e(I::GlobalGet(tail));
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Store(mem8(0, 2)));
        cx.e(I::Else);
        cx.e(I::LocalGet(rec));
        cx.e(I::GlobalSet(head));
        cx.e(I::End);
        cx.e(I::LocalGet(rec));
        cx.e(I::GlobalSet(tail));
        self.bind_bound(&mut cx, &init_access, &consts, &locals, &env, None);
        // `@static` calls first: initializers may use them too.
        for (e, t, off) in statics {
            let ExprKind::Static(inner) = &e.kind else {
                continue;
            };
            self.expr(&mut cx, inner);
            let loc = Loc::Mem(Base::Local(rec), *off);
            self.store_from_stack(&mut cx, t, &loc);
            let v = Var { ty: t.clone(), loc };
            cx.statics.insert((e.span.lo, e.span.hi), v);
        }
        for ((_, _, init, _), (_, t, off, _)) in decls.iter().zip(site_vars) {
            let loc = Loc::Mem(Base::Local(rec), *off);
            self.init_maps(&mut cx, t, &loc);
            if let Some(e) = init {
                self.expr_to(&mut cx, e, t);
                self.store_from_stack(&mut cx, t, &loc);
            }
        }
        cx.e(I::LocalGet(rec));
        self.m.define(f, cx.finish());
        self.counter += 1;
        let name = format!("$alloc_{}", self.counter);
        self.m.export(&name, ExportKind::Func, f);
        StaticCall {
            name,
            params: keys.iter().map(|k| k.param()).collect(),
        }
    }

    /// Allocate the (possibly nested in tuples) maps of a variable.
    fn init_maps(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc) {
        for (i, lt) in leaves(t).iter().enumerate() {
            if let Type::Map(k, v) = lt {
                cx.e(I::I32Const((8 * nleaves(k)) as i32));
                cx.e(I::I32Const((8 * nleaves(v).max(1)) as i32));
                cx.e(I::Call(self.m.rt("map_new")));
                let sub = loc.sub(i as u32, 1);
                self.store_from_stack(cx, lt, &sub);
            }
        }
    }

    // ------------------------------------------------------- statements

    fn block(&mut self, cx: &mut FnCx, b: &Block) {
        cx.scopes.push(HashMap::new());
        for s in &b.stmts {
            self.stmt(cx, s);
        }
        cx.scopes.pop();
    }

    fn stmt(&mut self, cx: &mut FnCx, s: &Stmt) {
        match &s.kind {
            StmtKind::Error => cx.e(I::Unreachable),
            StmtKind::Decl { name, ty, init, .. } => {
                let t = ty.ty.clone();
                let ls: Vec<u32> = vts(&t).iter().map(|v| cx.local(*v)).collect();
                let loc = Loc::Locals(ls);
                match init {
                    Some(e) => {
                        self.expr_to(cx, e, &t);
                        self.store_from_stack(cx, &t, &loc);
                    }
                    None => {
                        for v in vts(&t) {
                            cx.e(zero_ins(v));
                        }
                        self.store_from_stack(cx, &t, &loc);
                        self.init_maps(cx, &t, &loc);
                    }
                }
                cx.scopes
                    .last_mut()
                    .unwrap()
                    .insert(name.name.clone(), Var { ty: t, loc });
            }
            StmtKind::Assign { target, value } => {
                let Some((t, _)) = self.place_type(cx, target) else {
                    return;
                };
                self.expr_to(cx, value, &t);
                let tmp = cx.spill(&vts(&t));
                let Some((_, loc)) = self.place(cx, target) else {
                    return;
                };
                self.store_locals(cx, &t, &loc, &tmp);
            }
            StmtKind::IncDec { target, inc } => {
                let Some((t, loc)) = self.place(cx, target) else {
                    return;
                };
                self.load(cx, &t, &loc);
                self.one(cx, &t);
                let op = if *inc { BinOp::Add } else { BinOp::Sub };
                self.arith(cx, op, &t);
                self.store_from_stack(cx, &t, &loc);
            }
            StmtKind::Expr(e) => {
                let t = self.ty(e);
                self.expr(cx, e);
                for _ in vts(&t) {
                    cx.e(I::Drop);
                }
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    let rt = cx.ret.clone().unwrap_or(Type::Unit);
                    self.expr_to(cx, e, &rt);
                }
                cx.e(I::Return);
            }
            StmtKind::If {
                branches,
                else_block,
            } => self.if_chain(cx, branches, else_block.as_ref()),
            StmtKind::While { cond, body } => self.loop_(cx, Some(cond), None, body),
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                cx.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(cx, i);
                }
                self.loop_(cx, cond.as_ref(), step.as_deref(), body);
                cx.scopes.pop();
            }
            StmtKind::Break | StmtKind::Continue => {
                let l = if matches!(s.kind, StmtKind::Break) {
                    Label::Break
                } else {
                    Label::Continue
                };
                match cx.depth_of(l) {
                    Some(d) => cx.e(I::Br(d)),
                    None => self.err(Diag::error(
                        "internal compiler error: break/continue outside a loop",
                        s.span,
                    )),
                }
            }
        }
    }

    fn if_chain(&mut self, cx: &mut FnCx, branches: &[(Expr, Block)], else_block: Option<&Block>) {
        let Some(((c, b), rest)) = branches.split_first() else {
            if let Some(e) = else_block {
                self.block(cx, e);
            }
            return;
        };
        match self.fold(cx, c) {
            Some(Const::Bool(true)) => return self.block(cx, b),
            Some(Const::Bool(false)) => return self.if_chain(cx, rest, else_block),
            _ => {}
        }
        self.expr_to(cx, c, &Type::Bool);
        cx.e(I::If(BlockType::Empty));
        cx.labels.push(Label::Other);
        self.block(cx, b);
        if !rest.is_empty() || else_block.is_some() {
            cx.e(I::Else);
            self.if_chain(cx, rest, else_block);
        }
        cx.labels.pop();
        cx.e(I::End);
    }

    fn loop_(&mut self, cx: &mut FnCx, cond: Option<&Expr>, step: Option<&Stmt>, body: &Block) {
        cx.e(I::Block(BlockType::Empty));
        cx.labels.push(Label::Break);
        cx.e(I::Loop(BlockType::Empty));
        cx.labels.push(Label::Other);
        if let Some(c) = cond {
            if self.fold(cx, c) != Some(Const::Bool(true)) {
                self.expr_to(cx, c, &Type::Bool);
                cx.e(I::I32Eqz);
                cx.e(I::BrIf(1));
            }
        }
        cx.e(I::Block(BlockType::Empty));
        cx.labels.push(Label::Continue);
        self.block(cx, body);
        cx.labels.pop();
        cx.e(I::End);
        if let Some(s) = step {
            self.stmt(cx, s);
        }
        cx.e(I::Br(0));
        cx.labels.pop();
        cx.e(I::End);
        cx.labels.pop();
        cx.e(I::End);
    }

    // ------------------------------------------------------------ places

    fn var(&self, cx: &FnCx, n: &str) -> Option<Var> {
        cx.lookup(n).or_else(|| self.globals.get(n).cloned())
    }

    /// The type of an assignable place (without emitting code).
    fn place_type(&mut self, cx: &FnCx, e: &Expr) -> Option<(Type, ())> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| (v.ty, ())),
            ExprKind::Index(b, _) => match self.place_type(cx, b)?.0 {
                Type::Map(_, v) => Some((*v, ())),
                _ => None,
            },
            ExprKind::Field(b, i, _) => {
                let bt = self.place_type(cx, b)?.0;
                Some((field_range(&bt, *i).1, ()))
            }
            _ => None,
        }
        .or_else(|| {
            self.err(Diag::error(
                "internal compiler error: not an assignable place",
                e.span,
            ));
            None
        })
    }

    /// Emit code that resolves a place; for `m[k]` this inserts k.
    fn place(&mut self, cx: &mut FnCx, e: &Expr) -> Option<(Type, Loc)> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| (v.ty, v.loc)),
            ExprKind::Field(b, i, _) => {
                let (bt, loc) = self.place(cx, b)?;
                let (start, ft) = field_range(&bt, *i);
                Some((ft.clone(), loc.sub(start, nleaves(&ft))))
            }
            ExprKind::Index(b, key) => {
                let (mt, mloc) = self.place(cx, b)?;
                let Type::Map(k, v) = mt else { return None };
                // get or create the map
                let m = cx.local(VT::I32);
                self.load(cx, &Type::Map(k.clone(), v.clone()), &mloc);
                cx.e(I::LocalTee(m));
                cx.e(I::I32Eqz);
                cx.e(I::If(BlockType::Empty));
                cx.e(I::I32Const((8 * nleaves(&k)) as i32));
                cx.e(I::I32Const((8 * nleaves(&v).max(1)) as i32));
                cx.e(I::Call(self.m.rt("map_new")));
                cx.e(I::LocalSet(m));
                cx.e(I::LocalGet(m));
                self.store_from_stack(cx, &Type::I32, &mloc);
                cx.e(I::End);
                self.key_to_scratch(cx, key, &k);
                cx.e(I::LocalGet(m));
                cx.e(I::I32Const(self.scratch as i32));
                cx.e(I::Call(self.m.rt("map_insert")));
                let vp = cx.local(VT::I32);
                cx.e(I::LocalSet(vp));
                Some((*v, Loc::Mem(Base::Local(vp), 0)))
            }
            _ => {
                self.err(Diag::error(
                    "internal compiler error: not an assignable place",
                    e.span,
                ));
                None
            }
        }
    }

    fn key_to_scratch(&mut self, cx: &mut FnCx, key: &Expr, kt: &Type) {
        if 8 * nleaves(kt) > SCRATCH_SIZE {
            self.err(Diag::error("map key type is too large", key.span));
            return;
        }
        self.expr_to(cx, key, kt);
        let ls = leaves(kt);
        let tmp = cx.spill(&vts(kt));
        for (i, (l, t)) in tmp.iter().zip(&ls).enumerate() {
            cx.e(I::I32Const(self.scratch as i32));
            cx.e(I::LocalGet(*l));
            if *t == Type::Str {
                cx.e(I::Call(self.m.rt("intern")));
            }
            store_leaf(cx, t, 8 * i as u32);
        }
    }

    /// Push the value of a place.
    fn load(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc) {
        match loc {
            Loc::Locals(v) => v.iter().for_each(|l| cx.e(I::LocalGet(*l))),
            Loc::Globals(v) => v.iter().for_each(|g| cx.e(I::GlobalGet(*g))),
            Loc::Mem(b, off) => {
                for (i, lt) in leaves(t).iter().enumerate() {
                    push_base(cx, *b);
                    load_leaf(cx, lt, off + 8 * i as u32);
                }
            }
        }
    }

    /// Store the value on the stack into a place.
    fn store_from_stack(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc) {
        match loc {
            Loc::Locals(v) => v.iter().rev().for_each(|l| cx.e(I::LocalSet(*l))),
            Loc::Globals(v) => v.iter().rev().for_each(|g| cx.e(I::GlobalSet(*g))),
            Loc::Mem(..) => {
                let tmp = cx.spill(&vts(t));
                self.store_locals(cx, t, loc, &tmp);
            }
        }
    }

    fn store_locals(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc, tmp: &[u32]) {
        match loc {
            Loc::Locals(v) => v.iter().zip(tmp).for_each(|(l, s)| {
                cx.e(I::LocalGet(*s));
                cx.e(I::LocalSet(*l));
            }),
            Loc::Globals(v) => v.iter().zip(tmp).for_each(|(g, s)| {
                cx.e(I::LocalGet(*s));
                cx.e(I::GlobalSet(*g));
            }),
            Loc::Mem(b, off) => {
                for (i, (lt, s)) in leaves(t).iter().zip(tmp).enumerate() {
                    push_base(cx, *b);
                    cx.e(I::LocalGet(*s));
                    store_leaf(cx, lt, off + 8 * i as u32);
                }
            }
        }
    }

    // ------------------------------------------------------- expressions

    fn expr_to(&mut self, cx: &mut FnCx, e: &Expr, want: &Type) {
        let t = self.ty(e);
        // Literals take the wanted type directly.
        if let (ExprKind::Int(_) | ExprKind::Float(_), true) = (&e.kind, want.is_numeric()) {
            if let Some(c) = self.fold(cx, e) {
                let c = match (c, want.is_float()) {
                    (Const::Int(v), true) => Const::Float(v as f64),
                    (c, _) => c,
                };
                self.push_const(cx, &c, want);
                return;
            }
        }
        self.expr(cx, e);
        self.convert(cx, &t, want);
    }

    fn push_const(&mut self, cx: &mut FnCx, c: &Const, t: &Type) {
        match c {
            Const::Int(v) => match vt(t) {
                VT::I64 => cx.e(I::I64Const(*v as i64)),
                VT::F32 => cx.e(I::F32Const(*v as f32)),
                VT::F64 => cx.e(I::F64Const(*v as f64)),
                _ => cx.e(I::I32Const(*v as i64 as i32)),
            },
            Const::Float(f) => match vt(t) {
                VT::F32 => cx.e(I::F32Const(*f as f32)),
                VT::F64 => cx.e(I::F64Const(*f)),
                VT::I64 => cx.e(I::I64Const(*f as i64)),
                _ => cx.e(I::I32Const(*f as i32)),
            },
            Const::Bool(b) => cx.e(I::I32Const(*b as i32)),
            Const::Str(s) => {
                let a = self.m.string(s);
                cx.e(I::I32Const(a as i32));
            }
        }
    }

    /// Constant-fold an expression (literals and per-event constants).
    fn fold(&self, cx: &FnCx, e: &Expr) -> Option<Const> {
        let t = self.ty(e);
        Some(match &e.kind {
            ExprKind::Int(v) => {
                if t.is_float() {
                    Const::Float(*v as f64)
                } else {
                    Const::Int(wrap_int(*v, &t).unwrap_or(*v))
                }
            }
            ExprKind::Float(f) => Const::Float(*f),
            ExprKind::Bool(b) => Const::Bool(*b),
            ExprKind::Str(s) => Const::Str(s.clone()),
            ExprKind::Var(n) => {
                if cx.lookup(n).is_some() {
                    return None;
                }
                match cx.bound.get(n) {
                    Some(Bound::Const(c, _)) => c.clone(),
                    _ => return None,
                }
            }
            ExprKind::Unary(UnOp::Not, a) => match self.fold(cx, a)? {
                Const::Bool(b) => Const::Bool(!b),
                _ => return None,
            },
            ExprKind::Binary(op, a, b) => {
                let ca = self.fold(cx, a);
                match op {
                    BinOp::And => {
                        return match ca {
                            Some(Const::Bool(false)) => Some(Const::Bool(false)),
                            Some(Const::Bool(true)) => self.fold(cx, b),
                            _ => match self.fold(cx, b) {
                                Some(Const::Bool(false)) => Some(Const::Bool(false)),
                                _ => None,
                            },
                        }
                    }
                    BinOp::Or => {
                        return match ca {
                            Some(Const::Bool(true)) => Some(Const::Bool(true)),
                            Some(Const::Bool(false)) => self.fold(cx, b),
                            _ => match self.fold(cx, b) {
                                Some(Const::Bool(true)) => Some(Const::Bool(true)),
                                _ => None,
                            },
                        }
                    }
                    _ => {}
                }
                let cb = self.fold(cx, b)?;
                let ca = ca?;
                match (ca, cb) {
                    (Const::Int(x), Const::Int(y)) => {
                        let r = match op {
                            BinOp::Eq => return Some(Const::Bool(x == y)),
                            BinOp::Ne => return Some(Const::Bool(x != y)),
                            BinOp::Lt => return Some(Const::Bool(x < y)),
                            BinOp::Le => return Some(Const::Bool(x <= y)),
                            BinOp::Gt => return Some(Const::Bool(x > y)),
                            BinOp::Ge => return Some(Const::Bool(x >= y)),
                            BinOp::Add => x + y,
                            BinOp::Sub => x - y,
                            BinOp::Mul => x.checked_mul(y)?,
                            BinOp::BitAnd => x & y,
                            BinOp::BitOr => x | y,
                            BinOp::BitXor => x ^ y,
                            _ => return None,
                        };
                        Const::Int(wrap_int(r, &t)?)
                    }
                    (Const::Bool(x), Const::Bool(y)) => match op {
                        BinOp::Eq => Const::Bool(x == y),
                        BinOp::Ne => Const::Bool(x != y),
                        BinOp::BitAnd => Const::Bool(x & y),
                        BinOp::BitOr => Const::Bool(x | y),
                        BinOp::BitXor => Const::Bool(x ^ y),
                        _ => return None,
                    },
                    (Const::Str(x), Const::Str(y)) => match op {
                        BinOp::Eq => Const::Bool(x == y),
                        BinOp::Ne => Const::Bool(x != y),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            ExprKind::Method { recv, name, args } => {
                let Const::Str(s) = self.fold(cx, recv)? else {
                    return None;
                };
                match (name.name.as_str(), args.as_slice()) {
                    ("len", []) => Const::Int(s.len() as i128),
                    (m, [a]) => {
                        let Const::Str(x) = self.fold(cx, a)? else {
                            return None;
                        };
                        Const::Bool(match m {
                            "starts_with" => s.starts_with(&x),
                            "ends_with" => s.ends_with(&x),
                            "contains" => s.contains(&x),
                            _ => return None,
                        })
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    fn expr(&mut self, cx: &mut FnCx, e: &Expr) {
        let t = self.ty(e);
        if !matches!(e.kind, ExprKind::Int(_) | ExprKind::Float(_)) {
            if let Some(c) = self.fold(cx, e) {
                return self.push_const(cx, &c, &t);
            }
        }
        match &e.kind {
            ExprKind::Error => cx.e(I::Unreachable),
            ExprKind::Int(_) | ExprKind::Float(_) => {
                let c = self.fold(cx, e).unwrap_or(Const::Int(0));
                self.push_const(cx, &c, &t);
            }
            ExprKind::Bool(b) => cx.e(I::I32Const(*b as i32)),
            ExprKind::Str(s) => {
                let a = self.m.string(s);
                cx.e(I::I32Const(a as i32));
            }
            ExprKind::Var(n) => {
                if let Some(v) = cx.lookup(n) {
                    return self.load(cx, &v.ty, &v.loc);
                }
                if let Some(b) = cx.bound.get(n).cloned() {
                    return self.bound(cx, &b, &t);
                }
                if let Some(v) = self.globals.get(n).cloned() {
                    return self.load(cx, &v.ty, &v.loc);
                }
                self.err(Diag::error(
                    format!("internal compiler error: unbound `{n}`"),
                    e.span,
                ));
                cx.e(I::Unreachable);
            }
            ExprKind::Unary(op, a) => match op {
                UnOp::Not => {
                    self.expr_to(cx, a, &Type::Bool);
                    cx.e(I::I32Eqz);
                }
                UnOp::BitNot => {
                    self.expr_to(cx, a, &t);
                    if vt(&t) == VT::I64 {
                        cx.e(I::I64Const(-1));
                        cx.e(I::I64Xor);
                    } else {
                        cx.e(I::I32Const(-1));
                        cx.e(I::I32Xor);
                        self.normalize(cx, &t);
                    }
                }
                UnOp::Neg => match vt(&t) {
                    VT::F32 => {
                        self.expr_to(cx, a, &t);
                        cx.e(I::F32Neg)
                    }
                    VT::F64 => {
                        self.expr_to(cx, a, &t);
                        cx.e(I::F64Neg)
                    }
                    VT::I64 => {
                        cx.e(I::I64Const(0));
                        self.expr_to(cx, a, &t);
                        cx.e(I::I64Sub)
                    }
                    _ => {
                        cx.e(I::I32Const(0));
                        self.expr_to(cx, a, &t);
                        cx.e(I::I32Sub);
                        self.normalize(cx, &t);
                    }
                },
            },
            ExprKind::Binary(op, a, b) => self.binary(cx, *op, a, b, &t),
            ExprKind::Ternary(c, a, b) => {
                self.expr_to(cx, c, &Type::Bool);
                let bt = self.block_type(&t);
                cx.e(I::If(bt));
                cx.labels.push(Label::Other);
                self.expr_to(cx, a, &t);
                cx.e(I::Else);
                self.expr_to(cx, b, &t);
                cx.labels.pop();
                cx.e(I::End);
            }
            ExprKind::Cast(a, to) => {
                let from = self.ty(a);
                self.expr(cx, a);
                self.convert(cx, &from, &to.ty);
            }
            ExprKind::Call { func, args } => {
                if (func.name == "print" || func.name == "println")
                    && !self.fns.contains_key(&func.name)
                {
                    return self.print(cx, args, func.name == "println");
                }
                let Some(idx) = self.fns.get(&func.name).copied() else {
                    self.err(Diag::error(
                        format!("internal compiler error: unknown function `{}`", func.name),
                        func.span,
                    ));
                    return;
                };
                let (ps, _) = self.fn_sigs[&func.name].clone();
                for (a, p) in args.iter().zip(&ps) {
                    self.expr_to(cx, a, p);
                }
                cx.e(I::Call(idx));
            }
            ExprKind::Method { recv, name, args } => {
                if let ExprKind::Var(lib) = &recv.kind {
                    if self.libraries.contains(lib) && self.var(cx, lib).is_none() {
                        let Some(idx) = self.libs.get(&(lib.clone(), name.name.clone())).copied()
                        else {
                            return;
                        };
                        for a in args {
                            self.expr(cx, a);
                        }
                        cx.e(I::Call(idx));
                        return;
                    }
                }
                self.expr_to(cx, recv, &Type::Str);
                for a in args {
                    self.expr_to(cx, a, &Type::Str);
                }
                let f = match name.name.as_str() {
                    "len" => "str_len",
                    "starts_with" => "str_starts",
                    "ends_with" => "str_ends",
                    _ => "str_contains",
                };
                cx.e(I::Call(self.m.rt(f)));
            }
            ExprKind::Static(inner) => match cx.statics.get(&(e.span.lo, e.span.hi)).cloned() {
                // In a probe body: computed at match time into the site record.
                Some(v) => self.load(cx, &v.ty, &v.loc),
                // In a static predicate or an allocator (match time), and
                // outside probes: called where it stands.
                None => self.expr(cx, inner),
            },
            ExprKind::Index(base, key) => {
                let Type::Map(k, v) = self.ty(base) else {
                    self.err(Diag::error(
                        "internal compiler error: index of a non-map",
                        e.span,
                    ));
                    return;
                };
                self.expr(cx, base);
                self.key_to_scratch(cx, key, &k);
                cx.e(I::I32Const(self.scratch as i32));
                cx.e(I::Call(self.m.rt("map_find")));
                let p = cx.local(VT::I32);
                cx.e(I::LocalTee(p));
                cx.e(I::I32Const(self.zero as i32));
                cx.e(I::LocalGet(p));
                cx.e(I::Select);
                cx.e(I::LocalSet(p));
                self.load(cx, &v, &Loc::Mem(Base::Local(p), 0));
            }
            ExprKind::Field(base, idx, _) => {
                let bt = self.ty(base);
                let (start, ft) = field_range(&bt, *idx);
                // A variable (or field of one): read just the leaves.
                if let Some(loc) = self.pure_place(cx, base) {
                    return self.load(cx, &ft, &loc.sub(start, nleaves(&ft)));
                }
                self.expr(cx, base);
                let tmp = cx.spill(&vts(&bt));
                for l in &tmp[start as usize..(start + nleaves(&ft)) as usize] {
                    cx.e(I::LocalGet(*l));
                }
            }
            ExprKind::Tuple(items) => {
                let Type::Tuple(ts) = &t else { return };
                for (i, it) in items.iter().zip(ts) {
                    self.expr_to(cx, i, it);
                }
            }
        }
    }

    /// A place reachable without side effects (variables and their fields).
    fn pure_place(&self, cx: &FnCx, e: &Expr) -> Option<Loc> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| v.loc),
            ExprKind::Field(b, i, _) => {
                let loc = self.pure_place(cx, b)?;
                let (start, ft) = field_range(&self.ty(b), *i);
                Some(loc.sub(start, nleaves(&ft)))
            }
            _ => None,
        }
    }

    fn bound(&mut self, cx: &mut FnCx, b: &Bound, want: &Type) {
        match b {
            Bound::Const(c, t) => {
                self.push_const(cx, c, t);
                self.convert(cx, t, want);
            }
            Bound::Local(l, t) => {
                cx.e(I::LocalGet(*l));
                self.convert(cx, t, want);
            }
            Bound::Align(l) => {
                cx.e(I::LocalGet(*l));
                cx.e(I::I32Const(0x3f));
                cx.e(I::I32And);
            }
            Bound::EffAddr(a, o) => {
                cx.e(I::LocalGet(*a));
                cx.e(I::I64ExtendI32U);
                cx.e(I::LocalGet(*o));
                cx.e(I::I64Add);
            }
            Bound::Target(a, n) => {
                cx.e(I::LocalGet(*a));
                cx.e(I::LocalGet(*n));
                cx.e(I::LocalGet(*a));
                cx.e(I::LocalGet(*n));
                cx.e(I::I32LtU);
                cx.e(I::Select);
            }
            Bound::Failed(a) => {
                cx.e(I::LocalGet(*a));
                cx.e(I::I32Const(-1));
                cx.e(I::I32Eq);
            }
            Bound::Rec(r, off) => {
                cx.e(I::LocalGet(*r));
                cx.e(I::I32Load(mem8(*off, 2)));
            }
            Bound::Resolved(table, entry) => {
                cx.e(I::LocalGet(*table));
                cx.e(I::LocalGet(*entry));
                match self.app_table_fid {
                    Some(f) => cx.e(I::Call(f)),
                    None => {
                        // unreachable: `resolved_fid` is only bound when the import exists
                        cx.e(I::Drop);
                        cx.e(I::Drop);
                        cx.e(I::I32Const(-1));
                    }
                }
                self.convert(cx, &Type::I32, want);
            }
        }
    }

    fn block_type(&mut self, t: &Type) -> BlockType {
        let v = vts(t);
        match v.as_slice() {
            [] => BlockType::Empty,
            [x] => BlockType::Result(*x),
            _ => BlockType::FunctionType(self.m.ty(&[], &v)),
        }
    }

    fn one(&mut self, cx: &mut FnCx, t: &Type) {
        match vt(t) {
            VT::I64 => cx.e(I::I64Const(1)),
            VT::F32 => cx.e(I::F32Const(1.0)),
            VT::F64 => cx.e(I::F64Const(1.0)),
            _ => cx.e(I::I32Const(1)),
        }
    }

    /// Wrap an i32-represented value to its type's width.
    fn normalize(&mut self, cx: &mut FnCx, t: &Type) {
        match t {
            Type::U8 => {
                cx.e(I::I32Const(0xff));
                cx.e(I::I32And);
            }
            Type::U16 => {
                cx.e(I::I32Const(0xffff));
                cx.e(I::I32And);
            }
            Type::I8 => cx.e(I::I32Extend8S),
            Type::I16 => cx.e(I::I32Extend16S),
            _ => {}
        }
    }

    fn arith(&mut self, cx: &mut FnCx, op: BinOp, t: &Type) {
        use BinOp::*;
        let s = t.is_signed();
        let ins = match (vt(t), op) {
            (VT::I32, Add) => I::I32Add,
            (VT::I32, Sub) => I::I32Sub,
            (VT::I32, Mul) => I::I32Mul,
            (VT::I32, Div) => {
                if s {
                    I::I32DivS
                } else {
                    I::I32DivU
                }
            }
            (VT::I32, Rem) => {
                if s {
                    I::I32RemS
                } else {
                    I::I32RemU
                }
            }
            (VT::I32, BitAnd) => I::I32And,
            (VT::I32, BitOr) => I::I32Or,
            (VT::I32, BitXor) => I::I32Xor,
            (VT::I32, Shl) => I::I32Shl,
            (VT::I32, Shr) => {
                if s {
                    I::I32ShrS
                } else {
                    I::I32ShrU
                }
            }
            (VT::I32, Eq) => I::I32Eq,
            (VT::I32, Ne) => I::I32Ne,
            (VT::I32, Lt) => {
                if s {
                    I::I32LtS
                } else {
                    I::I32LtU
                }
            }
            (VT::I32, Le) => {
                if s {
                    I::I32LeS
                } else {
                    I::I32LeU
                }
            }
            (VT::I32, Gt) => {
                if s {
                    I::I32GtS
                } else {
                    I::I32GtU
                }
            }
            (VT::I32, Ge) => {
                if s {
                    I::I32GeS
                } else {
                    I::I32GeU
                }
            }
            (VT::I64, Add) => I::I64Add,
            (VT::I64, Sub) => I::I64Sub,
            (VT::I64, Mul) => I::I64Mul,
            (VT::I64, Div) => {
                if s {
                    I::I64DivS
                } else {
                    I::I64DivU
                }
            }
            (VT::I64, Rem) => {
                if s {
                    I::I64RemS
                } else {
                    I::I64RemU
                }
            }
            (VT::I64, BitAnd) => I::I64And,
            (VT::I64, BitOr) => I::I64Or,
            (VT::I64, BitXor) => I::I64Xor,
            (VT::I64, Shl) => I::I64Shl,
            (VT::I64, Shr) => {
                if s {
                    I::I64ShrS
                } else {
                    I::I64ShrU
                }
            }
            (VT::I64, Eq) => I::I64Eq,
            (VT::I64, Ne) => I::I64Ne,
            (VT::I64, Lt) => {
                if s {
                    I::I64LtS
                } else {
                    I::I64LtU
                }
            }
            (VT::I64, Le) => {
                if s {
                    I::I64LeS
                } else {
                    I::I64LeU
                }
            }
            (VT::I64, Gt) => {
                if s {
                    I::I64GtS
                } else {
                    I::I64GtU
                }
            }
            (VT::I64, Ge) => {
                if s {
                    I::I64GeS
                } else {
                    I::I64GeU
                }
            }
            (VT::F32, Add) => I::F32Add,
            (VT::F32, Sub) => I::F32Sub,
            (VT::F32, Mul) => I::F32Mul,
            (VT::F32, Div) => I::F32Div,
            (VT::F32, Eq) => I::F32Eq,
            (VT::F32, Ne) => I::F32Ne,
            (VT::F32, Lt) => I::F32Lt,
            (VT::F32, Le) => I::F32Le,
            (VT::F32, Gt) => I::F32Gt,
            (VT::F32, Ge) => I::F32Ge,
            (VT::F64, Add) => I::F64Add,
            (VT::F64, Sub) => I::F64Sub,
            (VT::F64, Mul) => I::F64Mul,
            (VT::F64, Div) => I::F64Div,
            (VT::F64, Eq) => I::F64Eq,
            (VT::F64, Ne) => I::F64Ne,
            (VT::F64, Lt) => I::F64Lt,
            (VT::F64, Le) => I::F64Le,
            (VT::F64, Gt) => I::F64Gt,
            (VT::F64, Ge) => I::F64Ge,
            _ => I::Unreachable,
        };
        cx.e(ins);
        if matches!(
            op,
            Add | Sub | Mul | Shl | BitAnd | BitOr | BitXor | Div | Rem | Shr
        ) {
            self.normalize(cx, t);
        }
    }

    fn binary(&mut self, cx: &mut FnCx, op: BinOp, a: &Expr, b: &Expr, t: &Type) {
        use BinOp::*;
        match op {
            And | Or => {
                self.expr_to(cx, a, &Type::Bool);
                cx.e(I::If(BlockType::Result(VT::I32)));
                cx.labels.push(Label::Other);
                if op == And {
                    self.expr_to(cx, b, &Type::Bool);
                    cx.e(I::Else);
                    cx.e(I::I32Const(0));
                } else {
                    cx.e(I::I32Const(1));
                    cx.e(I::Else);
                    self.expr_to(cx, b, &Type::Bool);
                }
                cx.labels.pop();
                cx.e(I::End);
            }
            Shl | Shr => {
                self.expr_to(cx, a, t);
                let tb = self.ty(b);
                self.expr(cx, b);
                match (vt(&tb), vt(t)) {
                    (VT::I64, VT::I32) => cx.e(I::I32WrapI64),
                    (VT::I32, VT::I64) => cx.e(I::I64ExtendI32U),
                    _ => {}
                }
                self.arith(cx, op, t);
            }
            _ => {
                let (ta, tb) = (self.ty(a), self.ty(b));
                let ot = if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
                    Type::join(&ta, &tb).unwrap_or(ta.clone())
                } else {
                    t.clone()
                };
                self.expr_to(cx, a, &ot);
                self.expr_to(cx, b, &ot);
                if matches!(op, Eq | Ne) && !ot.is_numeric() && ot != Type::Bool {
                    self.eq_values(cx, &ot);
                    if op == Ne {
                        cx.e(I::I32Eqz);
                    }
                    return;
                }
                self.arith(cx, op, &ot);
            }
        }
    }

    /// Compare two values of type t on the stack (a then b) for equality.
    fn eq_values(&mut self, cx: &mut FnCx, t: &Type) {
        let ls = leaves(t);
        let v = vts(t);
        let tb = cx.spill(&v);
        let ta = cx.spill(&v);
        cx.e(I::I32Const(1));
        for (i, lt) in ls.iter().enumerate() {
            cx.e(I::LocalGet(ta[i]));
            cx.e(I::LocalGet(tb[i]));
            match lt {
                Type::Str => cx.e(I::Call(self.m.rt("str_eq"))),
                _ => self.arith(cx, BinOp::Eq, lt),
            }
            cx.e(I::I32And);
        }
    }

    /// Convert the value on the stack from `from` to `to`.
    fn convert(&mut self, cx: &mut FnCx, from: &Type, to: &Type) {
        if from == to || from.is_error() || to.is_error() {
            return;
        }
        match (from, to) {
            (Type::Tuple(fs), Type::Tuple(ts)) => {
                let tmp = cx.spill(&vts(from));
                let mut k = 0usize;
                for (f, t) in fs.iter().zip(ts) {
                    let n = nleaves(f) as usize;
                    for l in &tmp[k..k + n] {
                        cx.e(I::LocalGet(*l));
                    }
                    k += n;
                    self.convert(cx, f, t);
                }
            }
            (f, Type::Bool) if f.is_int() => {
                if vt(f) == VT::I64 {
                    cx.e(I::I64Eqz);
                } else {
                    cx.e(I::I32Eqz);
                }
                cx.e(I::I32Eqz);
            }
            (Type::Bool, t) if t.is_int() => {
                if vt(t) == VT::I64 {
                    cx.e(I::I64ExtendI32U);
                }
            }
            (f, t) if f.is_int() && t.is_int() => match (vt(f), vt(t)) {
                (VT::I32, VT::I32) => self.normalize(cx, t),
                (VT::I32, VT::I64) => cx.e(if f.is_signed() {
                    I::I64ExtendI32S
                } else {
                    I::I64ExtendI32U
                }),
                (VT::I64, VT::I32) => {
                    cx.e(I::I32WrapI64);
                    self.normalize(cx, t);
                }
                _ => {}
            },
            (f, t) if f.is_int() && t.is_float() => {
                let s = f.is_signed();
                cx.e(match (vt(f), vt(t), s) {
                    (VT::I32, VT::F32, true) => I::F32ConvertI32S,
                    (VT::I32, VT::F32, false) => I::F32ConvertI32U,
                    (VT::I32, VT::F64, true) => I::F64ConvertI32S,
                    (VT::I32, VT::F64, false) => I::F64ConvertI32U,
                    (VT::I64, VT::F32, true) => I::F32ConvertI64S,
                    (VT::I64, VT::F32, false) => I::F32ConvertI64U,
                    (VT::I64, VT::F64, true) => I::F64ConvertI64S,
                    _ => I::F64ConvertI64U,
                });
            }
            (f, t) if f.is_float() && t.is_int() => {
                let s = t.is_signed();
                let wide = vt(t) == VT::I64;
                // narrow types: saturate through i32 (signed keeps negatives)
                cx.e(match (vt(f), wide, s || !wide && t.bits() < 32) {
                    (VT::F32, false, true) => I::I32TruncSatF32S,
                    (VT::F32, false, false) => I::I32TruncSatF32U,
                    (VT::F64, false, true) => I::I32TruncSatF64S,
                    (VT::F64, false, false) => I::I32TruncSatF64U,
                    (VT::F32, true, true) => I::I64TruncSatF32S,
                    (VT::F32, true, false) => I::I64TruncSatF32U,
                    (VT::F64, true, true) => I::I64TruncSatF64S,
                    _ => I::I64TruncSatF64U,
                });
                if !wide && t.bits() < 32 {
                    // saturate to the narrow type's range (not wrap)
                    let (lo, hi) = if s {
                        (-(1i32 << (t.bits() - 1)), (1i32 << (t.bits() - 1)) - 1)
                    } else {
                        (0, (1i32 << t.bits()) - 1)
                    };
                    let v = cx.local(VT::I32);
                    cx.e(I::LocalSet(v));
                    cx.e(I::I32Const(hi));
                    cx.e(I::LocalGet(v));
                    cx.e(I::LocalGet(v));
                    cx.e(I::I32Const(hi));
                    cx.e(I::I32GtS);
                    cx.e(I::Select);
                    cx.e(I::LocalSet(v));
                    cx.e(I::I32Const(lo));
                    cx.e(I::LocalGet(v));
                    cx.e(I::LocalGet(v));
                    cx.e(I::I32Const(lo));
                    cx.e(I::I32LtS);
                    cx.e(I::Select);
                }
            }
            (Type::F32, Type::F64) => cx.e(I::F64PromoteF32),
            (Type::F64, Type::F32) => cx.e(I::F32DemoteF64),
            _ => {}
        }
    }

    // ---------------------------------------------------------- printing

    fn puts_const(&mut self, cx: &mut FnCx, s: &str) {
        if s.is_empty() {
            return;
        }
        if s.len() == 1 {
            cx.e(I::I32Const(s.as_bytes()[0] as i32));
            cx.e(I::Call(self.m.rt("putc")));
            return;
        }
        let a = self.m.string(s);
        cx.e(I::I32Const(a as i32 + 4));
        cx.e(I::I32Const(s.len() as i32));
        cx.e(I::Call(self.m.rt("puts")));
    }

    fn print(&mut self, cx: &mut FnCx, args: &[Expr], newline: bool) {
        match args.first() {
            Some(Expr {
                kind: ExprKind::Str(fmt),
                ..
            }) => {
                let mut lit = String::new();
                let chars: Vec<char> = fmt.chars().collect();
                let mut i = 0;
                let mut argi = 1;
                while i < chars.len() {
                    match (chars[i], chars.get(i + 1)) {
                        ('{', Some('{')) | ('}', Some('}')) => {
                            lit.push(chars[i]);
                            i += 2;
                        }
                        ('{', Some('}')) => {
                            self.puts_const(cx, &lit);
                            lit.clear();
                            if let Some(a) = args.get(argi) {
                                let t = self.ty(a);
                                self.expr(cx, a);
                                self.print_value(cx, &t, false);
                            }
                            argi += 1;
                            i += 2;
                        }
                        (c, _) => {
                            lit.push(c);
                            i += 1;
                        }
                    }
                }
                if newline {
                    lit.push('\n');
                }
                self.puts_const(cx, &lit);
            }
            Some(a) => {
                let t = self.ty(a);
                self.expr(cx, a);
                self.print_value(cx, &t, false);
                if newline {
                    self.puts_const(cx, "\n");
                }
            }
            None => {
                if newline {
                    self.puts_const(cx, "\n");
                }
            }
        }
    }

    /// Print the value of type t on the stack (report formatting, L6).
    fn print_value(&mut self, cx: &mut FnCx, t: &Type, key_style: bool) {
        match t {
            Type::U8 | Type::U16 | Type::U32 => {
                cx.e(I::I64ExtendI32U);
                cx.e(I::Call(self.m.rt("print_u64")));
            }
            Type::I8 | Type::I16 | Type::I32 => {
                cx.e(I::I64ExtendI32S);
                cx.e(I::Call(self.m.rt("print_i64")));
            }
            Type::U64 => cx.e(I::Call(self.m.rt("print_u64"))),
            Type::I64 => cx.e(I::Call(self.m.rt("print_i64"))),
            Type::F32 => {
                cx.e(I::F64PromoteF32);
                cx.e(I::Call(self.m.rt("print_f64")));
            }
            Type::F64 => cx.e(I::Call(self.m.rt("print_f64"))),
            Type::Bool => cx.e(I::Call(self.m.rt("print_bool"))),
            Type::Str => cx.e(I::Call(self.m.rt("str_print"))),
            Type::Tuple(_) | Type::Map(..) => {
                let f = self.print_fn(t, key_style);
                cx.e(I::Call(f));
            }
            _ => {
                for _ in vts(t) {
                    cx.e(I::Drop);
                }
            }
        }
    }

    fn print_fn(&mut self, t: &Type, key_style: bool) -> u32 {
        if let Some(f) = self.print_fns.get(&(t.clone(), key_style)) {
            return *f;
        }
        let params = vts(t);
        let f = self.m.declare(&params, &[]);
        self.print_fns.insert((t.clone(), key_style), f);
        let mut cx = FnCx::new(&params, None);
        match t {
            Type::Tuple(ts) => {
                self.puts_const(&mut cx, "(");
                let mut k = 0u32;
                for (i, et) in ts.iter().enumerate() {
                    if i > 0 {
                        self.puts_const(&mut cx, if key_style { "," } else { "; " });
                    }
                    for j in 0..nleaves(et) {
                        cx.e(I::LocalGet(k + j));
                    }
                    k += nleaves(et);
                    self.print_value(&mut cx, et, key_style);
                }
                self.puts_const(&mut cx, ")");
            }
            Type::Map(kt, v) => {
                let (saved, arr, n, i, e) = (
                    cx.local(VT::I32),
                    cx.local(VT::I32),
                    cx.local(VT::I32),
                    cx.local(VT::I32),
                    cx.local(VT::I32),
                );
                cx.e(I::GlobalGet(0));
                cx.e(I::LocalSet(saved));
                cx.e(I::LocalGet(0));
                cx.e(I::Call(self.m.rt("map_count")));
                cx.e(I::LocalTee(n));
                cx.e(I::I32Eqz);
                cx.e(I::If(BlockType::Empty));
                cx.e(I::I32Const(wasm::RT_EMPTY_MAP.0 as i32));
                cx.e(I::I32Const(wasm::RT_EMPTY_MAP.1 as i32));
                cx.e(I::Call(self.m.rt("puts")));
                cx.e(I::Return);
                cx.e(I::End);
                cx.e(I::LocalGet(0));
                cx.e(I::Call(self.m.rt("map_entries")));
                cx.e(I::LocalSet(arr));
                let cmp = self.cmp_fn(kt);
                let slot = self.m.table_slot(cmp);
                cx.e(I::LocalGet(arr));
                cx.e(I::LocalGet(n));
                cx.e(I::I32Const(slot as i32));
                cx.e(I::Call(self.m.rt("sort")));
                cx.e(I::Block(BlockType::Empty));
                cx.e(I::Loop(BlockType::Empty));
                cx.e(I::LocalGet(i));
                cx.e(I::LocalGet(n));
                cx.e(I::I32GeU);
                cx.e(I::BrIf(1));
                cx.e(I::LocalGet(i));
                cx.e(I::If(BlockType::Empty));
                self.puts_const(&mut cx, ";");
                cx.e(I::End);
                cx.e(I::LocalGet(arr));
                cx.e(I::LocalGet(i));
                cx.e(I::I32Const(2));
                cx.e(I::I32Shl);
                cx.e(I::I32Add);
                cx.e(I::I32Load(mem8(0, 2)));
                cx.e(I::LocalSet(e));
                self.load(&mut cx, kt, &Loc::Mem(Base::Local(e), 8));
                self.print_value(&mut cx, kt, true);
                cx.e(I::I32Const(wasm::RT_ARROW.0 as i32));
                cx.e(I::I32Const(wasm::RT_ARROW.1 as i32));
                cx.e(I::Call(self.m.rt("puts")));
                self.load(&mut cx, v, &Loc::Mem(Base::Local(e), 8 + 8 * nleaves(kt)));
                self.print_value(&mut cx, v, false);
                cx.e(I::LocalGet(i));
                cx.e(I::I32Const(1));
                cx.e(I::I32Add);
                cx.e(I::LocalSet(i));
                cx.e(I::Br(0));
                cx.e(I::End);
                cx.e(I::End);
                cx.e(I::LocalGet(saved));
                cx.e(I::GlobalSet(0));
            }
            _ => {}
        }
        self.m.define(f, cx.finish());
        f
    }

    /// Comparator of two map entries by key (for sorted printing).
    fn cmp_fn(&mut self, kt: &Type) -> u32 {
        if let Some(f) = self.cmp_fns.get(kt) {
            return *f;
        }
        let f = self.m.declare(&[VT::I32, VT::I32], &[VT::I32]);
        self.cmp_fns.insert(kt.clone(), f);
        let mut cx = FnCx::new(&[VT::I32, VT::I32], None);
        for (i, lt) in leaves(kt).iter().enumerate() {
            let off = 8 + 8 * i as u32;
            if *lt == Type::Str {
                let r = cx.local(VT::I32);
                cx.e(I::LocalGet(0));
                load_leaf(&mut cx, lt, off);
                cx.e(I::LocalGet(1));
                load_leaf(&mut cx, lt, off);
                cx.e(I::Call(self.m.rt("str_cmp")));
                cx.e(I::LocalTee(r));
                cx.e(I::If(BlockType::Empty));
                cx.e(I::LocalGet(r));
                cx.e(I::Return);
                cx.e(I::End);
                continue;
            }
            for (op, res) in [(BinOp::Lt, -1), (BinOp::Gt, 1)] {
                cx.e(I::LocalGet(0));
                load_leaf(&mut cx, lt, off);
                cx.e(I::LocalGet(1));
                load_leaf(&mut cx, lt, off);
                let ct = if *lt == Type::Bool {
                    Type::U32
                } else {
                    lt.clone()
                };
                self.arith(&mut cx, op, &ct);
                cx.e(I::If(BlockType::Empty));
                cx.e(I::I32Const(res));
                cx.e(I::Return);
                cx.e(I::End);
            }
        }
        cx.e(I::I32Const(0));
        self.m.define(f, cx.finish());
        f
    }

    // ------------------------------------------------------------ report

    fn default_report(&mut self, cx: &mut FnCx) {
        self.puts_const(cx, "\n================================= REPORT CSV FLUSH ====================================\nid, id_type, name, whamm_type, wasm_type, script_id, fname, fid, pc, probe_id, value(s)\n");
        // 1. per-site scalars, 2. global scalars, 3. maps (global, then per-site)
        for pass in 0..3 {
            if pass == 1 || pass == 2 {
                let reports: Vec<(String, Type, u32, Loc)> = self
                    .reports
                    .iter()
                    .filter_map(|r| {
                        r.global
                            .clone()
                            .map(|(id, loc)| (r.name.clone(), r.ty.clone(), id, loc))
                    })
                    .collect();
                for (name, ty, id, loc) in reports {
                    if matches!(ty, Type::Map(..)) != (pass == 2) {
                        continue;
                    }
                    let kind = if pass == 2 { "map_id" } else { "global_id" };
                    self.puts_const(
                        cx,
                        &format!(
                            "{id}, {kind}, {name}, {}, {}, script0, , , , , ",
                            type_name(&ty),
                            wasm_type_name(&ty)
                        ),
                    );
                    self.load(cx, &ty, &loc);
                    self.print_value(cx, &ty, false);
                    self.puts_const(cx, "\n");
                }
            }
            if pass == 0 || pass == 2 {
                for si in 0..self.sites.len() {
                    let vars: Vec<(String, Type, u32)> = self.sites[si]
                        .report
                        .iter()
                        .filter(|v| matches!(v.1, Type::Map(..)) == (pass == 2))
                        .cloned()
                        .collect();
                    if vars.is_empty() {
                        continue;
                    }
                    let rec = cx.local(VT::I32);
                    cx.e(I::GlobalGet(self.sites[si].head));
                    cx.e(I::LocalSet(rec));
                    cx.e(I::Block(BlockType::Empty));
                    cx.e(I::Loop(BlockType::Empty));
                    cx.e(I::LocalGet(rec));
                    cx.e(I::I32Eqz);
                    cx.e(I::BrIf(1));
                    for (name, ty, off) in &vars {
                        let kind = if pass == 2 { "map_id" } else { "memaddr" };
                        cx.e(I::LocalGet(rec));
                        cx.e(I::I32Const(*off as i32));
                        cx.e(I::I32Add);
                        self.print_value(cx, &Type::U32, false);
                        self.puts_const(
                            cx,
                            &format!(
                                ", {kind}, {name}, {}, {}, script0, ",
                                type_name(ty),
                                wasm_type_name(ty)
                            ),
                        );
                        for (o, t) in [
                            (12u32, Type::Str),
                            (4, Type::U32),
                            (8, Type::U32),
                            (16, Type::Str),
                        ] {
                            cx.e(I::LocalGet(rec));
                            cx.e(I::I32Load(mem8(o, 2)));
                            self.print_value(cx, &t, false);
                            self.puts_const(cx, ", ");
                        }
                        self.load(cx, ty, &Loc::Mem(Base::Local(rec), *off));
                        self.print_value(cx, ty, false);
                        self.puts_const(cx, "\n");
                    }
                    cx.e(I::LocalGet(rec));
                    cx.e(I::I32Load(mem8(0, 2)));
                    cx.e(I::LocalSet(rec));
                    cx.e(I::Br(0));
                    cx.e(I::End);
                    cx.e(I::End);
                }
            }
        }
    }
}

fn zero_const(t: VT) -> wasm_encoder::ConstExpr {
    match t {
        VT::I64 => wasm_encoder::ConstExpr::i64_const(0),
        VT::F32 => wasm_encoder::ConstExpr::f32_const(0.0),
        VT::F64 => wasm_encoder::ConstExpr::f64_const(0.0),
        _ => wasm_encoder::ConstExpr::i32_const(0),
    }
}

fn zero_ins(t: VT) -> I<'static> {
    match t {
        VT::I64 => I::I64Const(0),
        VT::F32 => I::F32Const(0.0),
        VT::F64 => I::F64Const(0.0),
        _ => I::I32Const(0),
    }
}

fn push_base(cx: &mut FnCx, b: Base) {
    match b {
        Base::Local(l) => cx.e(I::LocalGet(l)),
        Base::Addr(a) => cx.e(I::I32Const(a as i32)),
    }
}

fn load_leaf(cx: &mut FnCx, t: &Type, off: u32) {
    cx.e(match vt(t) {
        VT::I64 => I::I64Load(mem8(off, 3)),
        VT::F32 => I::F32Load(mem8(off, 2)),
        VT::F64 => I::F64Load(mem8(off, 3)),
        _ => I::I32Load(mem8(off, 2)),
    });
}

/// Store a leaf (address, value on the stack) as a canonical 8-byte slot.
fn store_leaf(cx: &mut FnCx, t: &Type, off: u32) {
    match vt(t) {
        VT::I64 => cx.e(I::I64Store(mem8(off, 3))),
        VT::F64 => cx.e(I::F64Store(mem8(off, 3))),
        VT::F32 => {
            cx.e(I::I32ReinterpretF32);
            cx.e(I::I64ExtendI32U);
            cx.e(I::I64Store(mem8(off, 3)));
        }
        _ => {
            cx.e(I::I64ExtendI32U);
            cx.e(I::I64Store(mem8(off, 3)));
        }
    }
}

#[allow(dead_code)]
fn unused() {
    let _ = is_i32_repr;
}
