//! Name resolution and type checking.
//!
//! Scopes, innermost first: block locals (fn params / probe locals / `for`
//! headers), the probe's bound variables (from the event catalogue, for every
//! matched event), then globals. Functions and globals are visible in every
//! function and probe wherever they are declared in the file; top-level
//! statements only see globals declared before them. The typing rules are
//! documented in docs/probe-language-decisions.md.

use crate::ast::*;
use crate::catalog::{EventCatalog, VarType};
use crate::diag::Diag;
use crate::rules::{self, Match, Rule};
use crate::span::Span;
use crate::types::Type;
use std::collections::HashMap;

mod calls;
mod exprs;
mod memory;
mod names;
mod stmts;
pub use calls::count_placeholders;
pub(crate) use memory::{is_monitor_memid, MEMORY_FNS};
use stmts::block_returns;

#[derive(Clone, Debug)]
pub struct BoundInfo {
    pub ty: Type,
    pub is_static: bool,
}

/// What the back end needs to know about a checked probe.
#[derive(Clone, Debug)]
pub struct ProbeInfo {
    pub rule: Rule,
    pub matches: Vec<Match>,
    /// Bound variables the probe (body or predicate) uses.
    pub used_bound: HashMap<String, BoundInfo>,
}

#[derive(Clone, Debug)]
pub struct FnSig {
    pub params: Vec<Type>,
    pub ret: Type,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct CheckResult {
    pub probes: Vec<ProbeInfo>,
    pub functions: HashMap<String, FnSig>,
    pub globals: HashMap<String, Type>,
    pub libraries: Vec<String>,
    /// The type of every checked expression, keyed by the address of its
    /// [`Expr`] node in the (unmoved, unmutated) AST. Used by the back end.
    pub expr_types: HashMap<usize, Type>,
    /// The script calls the builtin clock `rdtsc()` (the back end then
    /// imports `wizeng.rdtsc`).
    pub uses_rdtsc: bool,
    /// `dup_at` reads the app's memory and data (`wizeng:app`, Part B).
    pub uses_app_memory: bool,
    /// `read_str(memid(LIB), ...)` reads a library's memory (`wizeng:lib`,
    /// Part B).
    pub uses_lib_memory: bool,
}

impl CheckResult {
    /// The checked type of `e` (`Type::Error` if it was never checked).
    pub fn type_of(&self, e: &Expr) -> Type {
        self.expr_types
            .get(&(e as *const Expr as usize))
            .cloned()
            .unwrap_or(Type::Error)
    }
}

#[derive(Clone, Debug)]
struct VarInfo {
    ty: Type,
    span: Span,
}

#[derive(PartialEq, Clone, Copy)]
enum Ctx {
    TopLevel,
    Func,
    Probe,
}

struct Checker<'a> {
    cat: &'a dyn EventCatalog,
    /// Signatures of libraries given with `--lib`.
    lib_sigs: &'a crate::libs::Libs,
    /// Span of the library call an expression statement consists of (its
    /// value is discarded, so it may be an untyped library call).
    discarded: Option<Span>,
    diags: &'a mut Vec<Diag>,
    globals: HashMap<String, VarInfo>,
    fns: HashMap<String, FnSig>,
    libs: HashMap<String, Span>,
    scopes: Vec<HashMap<String, VarInfo>>,
    // current probe
    matches: Vec<Match>,
    bounds: HashMap<String, Type>,
    used_bound: HashMap<String, BoundInfo>,
    /// per-probe cache: does any matched event bind this name?
    bound_cache: HashMap<String, bool>,
    ctx: Ctx,
    ret: Option<Type>,
    loop_depth: usize,
    /// top-level statements: globals declared so far
    declared_globals: std::collections::HashSet<String>,
    expr_types: HashMap<usize, Type>,
    uses_rdtsc: bool,
    uses_app_memory: bool,
    uses_lib_memory: bool,
}

/// Builtin functions: the printers and the clock `rdtsc() -> u64`
/// (monotonic nanoseconds, the engine's `wizeng.rdtsc`).
const BUILTINS: &[&str] = &["print", "println", "rdtsc"];

pub fn check(script: &Script, cat: &dyn EventCatalog, diags: &mut Vec<Diag>) -> CheckResult {
    check_with_libs(script, cat, &crate::libs::Libs::new(), diags)
}

/// [`check`] with library signatures: calls `lib.f(...)` of a library in
/// `libs` are checked against its exports (arity; each argument must have
/// the parameter's Wasm type; the call has the function's result type).
/// Calls of libraries not in `libs` are untyped and have no result.
pub fn check_with_libs(
    script: &Script,
    cat: &dyn EventCatalog,
    libs: &crate::libs::Libs,
    diags: &mut Vec<Diag>,
) -> CheckResult {
    let mut c = Checker {
        cat,
        lib_sigs: libs,
        discarded: None,
        diags,
        globals: HashMap::new(),
        fns: HashMap::new(),
        libs: HashMap::new(),
        scopes: vec![],
        matches: vec![],
        bounds: HashMap::new(),
        used_bound: HashMap::new(),
        bound_cache: HashMap::new(),
        ctx: Ctx::TopLevel,
        ret: None,
        loop_depth: 0,
        declared_globals: Default::default(),
        expr_types: HashMap::new(),
        uses_rdtsc: false,
        uses_app_memory: false,
        uses_lib_memory: false,
    };
    c.collect(script);
    let mut result = CheckResult::default();
    let mut saw_probe = false;
    for item in &script.items {
        match item {
            Item::Use(..) | Item::Error(_) => {}
            Item::Stmt(s) => {
                c.ctx = Ctx::TopLevel;
                c.scopes = vec![];
                c.stmt(s);
                if let StmtKind::Decl { name, .. } = &s.kind {
                    c.declared_globals.insert(name.name.clone());
                }
            }
            Item::Fn(f) => c.func(f),
            Item::Probe(p) => {
                saw_probe = true;
                if let Some(info) = c.probe(p) {
                    result.probes.push(info);
                }
            }
        }
    }
    if !saw_probe && !script.items.is_empty() && !c.diags.iter().any(|d| d.is_error()) {
        let end = script.items.last().map(item_span).unwrap_or_default();
        c.diags.push(
            Diag::error(
                "a script needs at least one probe",
                Span::new(end.hi, end.hi),
            )
            .with_note("e.g. `wasm:opcode:call:before { ... }`"),
        );
    }
    result.functions = c.fns.clone();
    result.globals = c
        .globals
        .iter()
        .map(|(k, v)| (k.clone(), v.ty.clone()))
        .collect();
    result.libraries = c.libs.keys().cloned().collect();
    result.expr_types = std::mem::take(&mut c.expr_types);
    result.uses_rdtsc = c.uses_rdtsc;
    result.uses_app_memory = c.uses_app_memory;
    result.uses_lib_memory = c.uses_lib_memory;
    result
}

fn arity_error(func: &str, want: usize, given: usize, span: Span) -> Diag {
    Diag::error(
        format!("function `{func}` takes {want} argument(s) but {given} were given"),
        span,
    )
}

/// The Wasm type a value of `t` is passed as to a library, if it can be.
fn wasm_repr(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::U8 | Type::I8 | Type::U16 | Type::I16 | Type::U32 | Type::I32 | Type::Bool => "i32",
        Type::U64 | Type::I64 => "i64",
        Type::F32 => "f32",
        Type::F64 => "f64",
        Type::V128 => "v128",
        _ => return None,
    })
}

/// How a `v128` relates to the numbers (for diagnostics).
const V128_LANES: &str = "a v128 casts only to and from a tuple of its lanes: 16 x u8/i8, 8 x u16/i16, 4 x u32/i32/f32 or 2 x u64/i64/f64, e.g. `v as (i32, i32, i32, i32)`";

/// A hint when a `v128` meets a number (or a number a `v128`): vectors have
/// no arithmetic and no implicit conversions; their lanes are reached by a
/// cast.
fn v128_note(found: &Type, other: &Type) -> Option<String> {
    let scalar = |t: &Type| t.is_numeric() || *t == Type::Bool;
    if *found == Type::V128 && scalar(other) {
        Some(
            "a v128 is not a number: only `==` and `!=` apply to it; read its lanes with a cast, e.g. `(v as (u32, u32, u32, u32)).0`"
                .into(),
        )
    } else if scalar(found) && *other == Type::V128 {
        Some("build a v128 from its lanes with a cast, e.g. `(a, b, c, d) as v128` with four 32-bit lanes".into())
    } else {
        None
    }
}

fn item_span(i: &Item) -> Span {
    match i {
        Item::Use(_, s) | Item::Error(s) => *s,
        Item::Stmt(s) => s.span,
        Item::Fn(f) => f.span,
        Item::Probe(p) => p.span,
    }
}

fn is_flexible_lit(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Int(_) | ExprKind::Float(_))
}

impl<'a> Checker<'a> {
    fn err(&mut self, d: Diag) {
        self.diags.push(d);
    }

    /// Pass 1: libraries, function signatures and global declarations.
    fn collect(&mut self, script: &Script) {
        for item in &script.items {
            match item {
                Item::Use(id, _) => {
                    if let Some(prev) = self.libs.get(&id.name) {
                        let prev = *prev;
                        self.err(
                            Diag::error(
                                format!("library `{}` is imported twice", id.name),
                                id.span,
                            )
                            .with_secondary(prev, "first imported here"),
                        );
                    }
                    self.libs.insert(id.name.clone(), id.span);
                }
                Item::Fn(f) => {
                    if BUILTINS.contains(&f.name.name.as_str()) {
                        self.err(Diag::error(
                            format!(
                                "`{}` is a builtin function and cannot be redefined",
                                f.name.name
                            ),
                            f.name.span,
                        ));
                    }
                    if let Some(prev) = self.fns.get(&f.name.name) {
                        let prev = prev.span;
                        self.err(
                            Diag::error(
                                format!("function `{}` is defined twice", f.name.name),
                                f.name.span,
                            )
                            .with_secondary(prev, "first defined here"),
                        );
                        continue;
                    }
                    for (_, t) in &f.params {
                        self.check_type_expr(t);
                    }
                    if let Some(t) = &f.ret {
                        self.check_type_expr(t);
                    }
                    let sig = FnSig {
                        params: f.params.iter().map(|p| p.1.ty.clone()).collect(),
                        ret: f.ret.as_ref().map(|t| t.ty.clone()).unwrap_or(Type::Unit),
                        span: f.name.span,
                    };
                    self.fns.insert(f.name.name.clone(), sig);
                }
                Item::Stmt(Stmt {
                    kind: StmtKind::Decl { name, ty, .. },
                    ..
                }) => {
                    if let Some(prev) = self.globals.get(&name.name) {
                        let prev = prev.span;
                        self.err(
                            Diag::error(
                                format!("global `{}` is declared twice", name.name),
                                name.span,
                            )
                            .with_secondary(prev, "first declared here"),
                        );
                        continue;
                    }
                    self.globals.insert(
                        name.name.clone(),
                        VarInfo {
                            ty: ty.ty.clone(),
                            span: name.span,
                        },
                    );
                }
                _ => {}
            }
        }
    }

    fn check_type_expr(&mut self, t: &TypeExpr) {
        fn walk(t: &Type) -> Option<String> {
            match t {
                Type::Map(k, v) => {
                    if !k.is_hashable() {
                        return Some(format!("`{k}` cannot be a map key (keys are numbers, bool, str, v128 and tuples of those)"));
                    }
                    walk(k).or_else(|| walk(v))
                }
                Type::Tuple(v) => v.iter().find_map(walk),
                _ => None,
            }
        }
        if let Some(m) = walk(&t.ty) {
            self.err(Diag::error(m, t.span).with_label("invalid type"));
        }
    }

    fn func(&mut self, f: &FnDef) {
        self.ctx = Ctx::Func;
        self.matches.clear();
        self.bounds.clear();
        let ret = f.ret.as_ref().map(|t| t.ty.clone()).unwrap_or(Type::Unit);
        self.ret = Some(ret.clone());
        let mut scope = HashMap::new();
        for (n, t) in &f.params {
            if let Some(prev) = scope.insert(
                n.name.clone(),
                VarInfo {
                    ty: t.ty.clone(),
                    span: n.span,
                },
            ) {
                self.err(
                    Diag::error(format!("parameter `{}` is declared twice", n.name), n.span)
                        .with_secondary(prev.span, "first declared here"),
                );
            }
        }
        self.scopes = vec![scope];
        self.block_stmts(&f.body);
        self.scopes.clear();
        if ret != Type::Unit && !block_returns(&f.body) {
            self.err(
                Diag::error(
                    format!(
                        "function `{}` may reach its end without returning a value",
                        f.name.name
                    ),
                    Span::new(f.body.span.hi.saturating_sub(1), f.body.span.hi),
                )
                .with_label(format!(
                    "expected a `return` of type {ret} before this `}}`"
                ))
                .with_secondary(
                    f.ret.as_ref().map(|t| t.span).unwrap_or(f.name.span),
                    "return type declared here",
                ),
            );
        }
        self.ret = None;
    }

    fn probe(&mut self, p: &Probe) -> Option<ProbeInfo> {
        let before = self.diags.len();
        let rule = rules::parse_rule(&p.rule, p.rule_span.lo, self.diags);
        let matches = if self.diags.len() == before {
            rules::expand(&rule, self.cat, self.diags)
        } else {
            vec![]
        };
        let unsupported: Vec<&Match> = matches
            .iter()
            .filter(|m| !self.cat.mode_supported(&m.event, m.mode.as_deref()))
            .collect();
        if let Some(first) = unsupported.first() {
            let span = match &first.mode {
                Some(_) if rule.parts.len() > first.event.parts.len() => {
                    rule.parts[first.event.parts.len()].span
                }
                _ => rule.span,
            };
            let what = match &first.mode {
                Some(m) => format!("mode `{m}`"),
                None => "this event".to_string(),
            };
            let mut d = Diag::error(
                format!(
                    "the {} target cannot honour {what} of `{}`",
                    self.cat.target_name(),
                    first.event.name()
                ),
                span,
            )
            .with_label(format!(
                "{} matched event(s) are not supported by this target",
                unsupported.len()
            ));
            if unsupported.len() > 1 {
                d = d.with_note(format!(
                    "e.g. `{}`, `{}`",
                    unsupported[0].name(),
                    unsupported[unsupported.len() - 1].name()
                ));
            }
            d = d.with_note("probes are never silently moved to another mode; use a supported mode (`before`, `after`)");
            self.err(d);
        }
        self.ctx = Ctx::Probe;
        self.ret = None;
        self.matches = matches.clone();
        self.bounds = rule
            .bounds
            .iter()
            .map(|b| (b.var.clone(), b.ty.clone()))
            .collect();
        self.used_bound.clear();
        self.bound_cache.clear();
        self.scopes = vec![HashMap::new()];
        let no_match = matches.is_empty();
        if let Some(pred) = &p.pred {
            // Also without a match: its mistakes are reported all the same.
            self.expect(pred, &Type::Bool, "a probe predicate");
        }
        self.block_stmts(&p.body);
        self.scopes.clear();
        if no_match {
            return None;
        }
        Some(ProbeInfo {
            rule,
            matches,
            used_bound: std::mem::take(&mut self.used_bound),
        })
    }
}
