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

mod memory;
pub(crate) use memory::{is_monitor_memid, MEMORY_FNS};

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

fn lit_int(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        _ => None,
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

    // ------------------------------------------------------------ statements

    fn block_stmts(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn block(&mut self, b: &Block) {
        self.scopes.push(HashMap::new());
        self.block_stmts(b);
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Error => {}
            StmtKind::Decl {
                decorators,
                name,
                ty,
                init,
            } => self.decl(s, decorators, name, ty, init.as_ref()),
            StmtKind::Assign { target, value } => {
                if let Some(t) = self.lvalue(target) {
                    self.expect(value, &t, "the assigned value");
                } else {
                    self.expr(value, None);
                }
            }
            StmtKind::IncDec { target, inc } => {
                if let Some(t) = self.lvalue(target) {
                    if !t.is_numeric() && !t.is_error() {
                        let op = if *inc { "++" } else { "--" };
                        let mut d = Diag::error(
                            format!("`{op}` needs a numeric variable, found {t}"),
                            target.span,
                        )
                        .with_label(format!("has type {t}"));
                        if let Some(n) = v128_note(&t, &Type::U32) {
                            d = d.with_note(n);
                        }
                        self.err(d);
                    }
                }
            }
            StmtKind::Expr(e) => {
                self.discarded = Some(match &e.kind {
                    ExprKind::Static(inner) => inner.span,
                    _ => e.span,
                });
                let t = self.expr(e, None);
                self.discarded = None;
                if !matches!(
                    e.kind,
                    ExprKind::Call { .. }
                        | ExprKind::Method { .. }
                        | ExprKind::Static(_)
                        | ExprKind::Error
                ) && !t.is_error()
                {
                    self.err(
                        Diag::warning("expression statement has no effect", e.span)
                            .with_label("this value is computed and discarded"),
                    );
                }
            }
            StmtKind::Return(e) => match (self.ctx, self.ret.clone()) {
                (Ctx::Func, Some(rt)) => match e {
                    Some(e) if rt == Type::Unit => {
                        self.expr(e, None);
                        self.err(
                            Diag::error("this function does not return a value", e.span)
                                .with_label("unexpected return value")
                                .with_note("declare a return type: `fn name(...) -> T { ... }`"),
                        );
                    }
                    Some(e) => {
                        self.expect(e, &rt, "the returned value");
                    }
                    None if rt != Type::Unit => self.err(
                        Diag::error(format!("`return` needs a value of type {rt}"), s.span)
                            .with_label(format!("expected `return <{rt}>;`")),
                    ),
                    None => {}
                },
                (Ctx::Probe, _) => {
                    if let Some(e) = e {
                        self.expr(e, None);
                        self.err(
                            Diag::error("a probe body cannot return a value", e.span)
                                .with_label("use `return;` to leave the probe"),
                        );
                    }
                }
                _ => self.err(Diag::error(
                    "`return` outside of a function or probe",
                    s.span,
                )),
            },
            StmtKind::If {
                branches,
                else_block,
            } => {
                for (c, b) in branches {
                    self.expect(c, &Type::Bool, "an `if` condition");
                    self.block(b);
                }
                if let Some(b) = else_block {
                    self.block(b);
                }
            }
            StmtKind::While { cond, body } => {
                self.expect(cond, &Type::Bool, "a `while` condition");
                self.loop_depth += 1;
                self.block(body);
                self.loop_depth -= 1;
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(HashMap::new());
                if let Some(i) = init {
                    self.stmt(i);
                }
                if let Some(c) = cond {
                    self.expect(c, &Type::Bool, "a `for` condition");
                }
                if let Some(st) = step {
                    if let StmtKind::Decl { .. } = st.kind {
                        self.err(Diag::error(
                            "a `for` step cannot declare a variable",
                            st.span,
                        ));
                    } else {
                        self.stmt(st);
                    }
                }
                self.loop_depth += 1;
                self.block(body);
                self.loop_depth -= 1;
                self.scopes.pop();
            }
            StmtKind::Break | StmtKind::Continue => {
                if self.loop_depth == 0 {
                    let w = if matches!(s.kind, StmtKind::Break) {
                        "break"
                    } else {
                        "continue"
                    };
                    self.err(
                        Diag::error(format!("`{w}` outside of a loop"), s.span)
                            .with_label("not inside `while` or `for`"),
                    );
                }
            }
        }
    }

    fn decl(
        &mut self,
        s: &Stmt,
        decorators: &[(Decorator, Span)],
        name: &Ident,
        ty: &TypeExpr,
        init: Option<&Expr>,
    ) {
        self.check_type_expr(ty);
        let mut seen = vec![];
        for (d, sp) in decorators {
            if seen.contains(d) {
                self.err(Diag::error("duplicate decorator", *sp));
            }
            seen.push(*d);
            if self.ctx == Ctx::Func {
                self.err(
                    Diag::error(
                        format!(
                            "`{}` variables cannot be declared in a function",
                            if *d == Decorator::Report {
                                "report"
                            } else {
                                "unshared"
                            }
                        ),
                        *sp,
                    )
                    .with_note("declare them globally or in a probe body"),
                );
            }
            if self.ctx == Ctx::Probe && self.scopes.len() > 1 {
                self.err(Diag::error("`report`/`unshared` variables must be declared at the top of a probe body, not in a nested block", *sp));
            }
        }
        if ty.ty == Type::Unit {
            self.err(Diag::error("variables cannot have type ()", ty.span));
        }
        if let Some(e) = init {
            self.expect(e, &ty.ty, "the initial value");
        }
        if BUILTINS.contains(&name.name.as_str()) || self.fns.contains_key(&name.name) {
            self.err(Diag::error(
                format!(
                    "`{}` is a function name and cannot be used for a variable",
                    name.name
                ),
                name.span,
            ));
        }
        if self.scopes.is_empty() {
            // global: registered in `collect`
            return;
        }
        if self.ctx == Ctx::Probe && self.bound_lookup_quiet(&name.name) {
            self.err(Diag::error(
                format!(
                    "`{}` is a bound variable of this probe's event and cannot be redeclared",
                    name.name
                ),
                name.span,
            ));
        }
        let scope = self.scopes.last_mut().unwrap();
        if let Some(prev) = scope.insert(
            name.name.clone(),
            VarInfo {
                ty: ty.ty.clone(),
                span: name.span,
            },
        ) {
            self.err(
                Diag::error(
                    format!("`{}` is already declared in this scope", name.name),
                    name.span,
                )
                .with_secondary(prev.span, "previous declaration"),
            );
        }
        let _ = s;
    }

    /// Type of an assignable place, or None after reporting an error.
    fn lvalue(&mut self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Var(n) => {
                if let Some(v) = self.lookup_var(n) {
                    return Some(v.ty);
                }
                if self.bound_lookup_quiet(n) {
                    self.err(
                        Diag::error(format!("cannot assign to bound variable `{n}`"), e.span)
                            .with_label("bound variables are read-only"),
                    );
                    return None;
                }
                self.expr(e, None);
                None
            }
            ExprKind::Index(base, key) => {
                let bt = self.lvalue(base)?;
                match bt {
                    Type::Map(k, v) => {
                        self.expect(key, &k, "the map key");
                        Some(*v)
                    }
                    Type::Error => Some(Type::Error),
                    other => {
                        self.err(
                            Diag::error(
                                format!("cannot index into a value of type {other}"),
                                base.span,
                            )
                            .with_label("only maps can be indexed"),
                        );
                        None
                    }
                }
            }
            ExprKind::Field(base, idx, fspan) => {
                let bt = self.lvalue(base)?;
                self.field_type(&bt, *idx, *fspan)
            }
            ExprKind::Error => None,
            _ => {
                self.expr(e, None);
                self.err(
                    Diag::error("invalid assignment target", e.span)
                        .with_label("expected a variable, `m[k]` or `t.N`"),
                );
                None
            }
        }
    }

    fn field_type(&mut self, bt: &Type, idx: u32, span: Span) -> Option<Type> {
        match bt {
            Type::Tuple(v) => match v.get(idx as usize) {
                Some(t) => Some(t.clone()),
                None => {
                    self.err(
                        Diag::error(format!("tuple index {idx} out of range for {bt}"), span)
                            .with_label(format!("this tuple has {} elements", v.len())),
                    );
                    None
                }
            },
            Type::Error => Some(Type::Error),
            other => {
                self.err(Diag::error(
                    format!("`.{idx}` needs a tuple, found {other}"),
                    span,
                ));
                None
            }
        }
    }

    fn lookup_var(&self, n: &str) -> Option<VarInfo> {
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.get(n) {
                return Some(v.clone());
            }
        }
        if let Some(g) = self.globals.get(n) {
            if self.ctx != Ctx::TopLevel || self.declared_globals.contains(n) {
                return Some(g.clone());
            }
        }
        None
    }

    /// A hint for `argN`/`resN` that no matched event provides.
    fn operand_note(&self, n: &str) -> Option<String> {
        if self.ctx != Ctx::Probe {
            return None;
        }
        if n.starts_with("imm")
            && self
                .matches
                .iter()
                .any(|m| m.event.parts.last().is_some_and(|p| p == "v128.const"))
        {
            return Some(
                "`v128.const` binds no immediates: its value is a v128, `res0` in mode `after`"
                    .into(),
            );
        }
        let (fam, digits) = if let Some(d) = n.strip_prefix("arg") {
            ("arg", d)
        } else {
            ("res", n.strip_prefix("res")?)
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let m = self.matches.first()?;
        if fam == "res" && m.mode.as_deref() != Some("after") {
            return Some(format!(
                "`{n}` (a result) is only available in mode `after`, e.g. `{}:after`",
                m.event.name()
            ));
        }
        let count = (0..16)
            .take_while(|i| {
                self.cat
                    .bound_var(&m.event, m.mode.as_deref(), &format!("{fam}{i}"))
                    .is_some()
            })
            .count();
        let what = if fam == "arg" { "operand" } else { "result" };
        Some(match count {
            0 => format!("`{}` has no {what}s", m.name()),
            1 => format!("`{}` has 1 {what}: `{fam}0`", m.name()),
            c => format!(
                "`{}` has {c} {what}s: `{fam}0` to `{fam}{}`",
                m.name(),
                c - 1
            ),
        })
    }

    fn bound_lookup_quiet(&mut self, n: &str) -> bool {
        if self.ctx != Ctx::Probe || self.matches.is_empty() {
            return false;
        }
        if let Some(b) = self.bound_cache.get(n) {
            return *b;
        }
        let b = self
            .matches
            .iter()
            .any(|m| self.cat.bound_var(&m.event, m.mode.as_deref(), n).is_some());
        self.bound_cache.insert(n.to_string(), b);
        b
    }

    /// Resolve a bound variable across all matched events.
    fn bound(&mut self, n: &str, span: Span) -> Option<Type> {
        if self.ctx != Ctx::Probe {
            return None;
        }
        if self.matches.is_empty() {
            // the rule itself failed; don't cascade
            return Some(Type::Error);
        }
        if let Some(b) = self.used_bound.get(n) {
            return Some(b.ty.clone());
        }
        if !self.bound_lookup_quiet(n) {
            return None;
        }
        let mut ty: Option<Type> = None;
        let mut is_static = true;
        let mut missing = None;
        let mut first_site: Option<(Type, String)> = None;
        let mut found = false;
        for m in &self.matches {
            match self.cat.bound_var(&m.event, m.mode.as_deref(), n) {
                None => {
                    if missing.is_none() {
                        missing = Some(m.name());
                    }
                }
                Some(v) => {
                    found = true;
                    is_static &= v.is_static;
                    let t = match v.ty {
                        VarType::Known(t) => t,
                        VarType::Wasm(t) => self.bounds.get(n).cloned().unwrap_or(t),
                        VarType::SiteDependent => match self.bounds.get(n) {
                            Some(b) => b.clone(),
                            None => {
                                self.err(
                                    Diag::error(
                                        format!("the type of `{n}` depends on the probed site"),
                                        span,
                                    )
                                    .with_label("type unknown here")
                                    .with_note(format!(
                                        "add a type bound to the rule, e.g. `{}({n}: i32)`",
                                        m.event.name()
                                    )),
                                );
                                return Some(Type::Error);
                            }
                        },
                    };
                    match &first_site {
                        None => first_site = Some((t.clone(), m.name())),
                        Some((t0, site0)) if *t0 != t && !self.bounds.contains_key(n) => {
                            let (t0, site0) = (t0.clone(), site0.clone());
                            self.err(
                                Diag::error(format!("`{n}` has different types across the matched events"), span)
                                    .with_label(format!("{t0} at `{site0}`, but {t} at `{}`", m.name()))
                                    .with_note(format!("add a type bound to the rule, e.g. `({n}: {t0})`, to match only one of them")),
                            );
                            return Some(Type::Error);
                        }
                        _ => {}
                    }
                    ty = Some(t);
                }
            }
        }
        if !found {
            return None;
        }
        if let Some(site) = missing {
            self.err(
                Diag::error(format!("bound variable `{n}` is not available on every matched event"), span)
                    .with_label(format!("not provided by `{site}`"))
                    .with_note("narrow the probe rule, or add a type bound for it to match only events that provide it"),
            );
            return Some(Type::Error);
        }
        let t = ty.unwrap_or(Type::Error);
        self.used_bound.insert(
            n.to_string(),
            BoundInfo {
                ty: t.clone(),
                is_static,
            },
        );
        Some(t)
    }

    // ----------------------------------------------------------- expressions

    /// Check `e` against `want` with the implicit conversions of a stored
    /// value ([`Type::assignable_to`]).
    fn expect(&mut self, e: &Expr, want: &Type, what: &str) -> Type {
        let t = self.expr(e, Some(want));
        if !t.assignable_to(want) {
            let mut d = Diag::error(
                format!("type mismatch: {what} must be {want}, found {t}"),
                e.span,
            )
            .with_label(format!("expected {want}, found {t}"));
            if t.can_cast_to(want) {
                d = d.with_note(format!("use an explicit cast: `... as {want}`"));
            } else if let Some(n) = v128_note(&t, want) {
                d = d.with_note(n);
            }
            self.err(d);
        }
        t
    }

    fn int_lit_type(&mut self, v: i128, span: Span, want: Option<&Type>) -> Type {
        if let Some(w) = want {
            if w.is_float() {
                return w.clone();
            }
            if let Some((lo, hi)) = w.int_range() {
                // As in whamm, a literal stands for its bit pattern in the
                // wanted width: `-1` as a `u8` is 255, `0xFFFF0000` as an
                // `i32` is negative (docs/probe-language.md#types-and-conversions).
                let (lo, hi) = (
                    lo.min(-(1i128 << (w.bits() - 1))),
                    hi.max((1i128 << w.bits()) - 1),
                );
                if v >= lo && v <= hi {
                    return w.clone();
                }
                self.err(
                    Diag::error(format!("integer literal {v} is out of range for {w}"), span)
                        .with_label(format!(
                            "a {w} literal is {lo}..={hi} (its {}-bit pattern)",
                            w.bits()
                        )),
                );
                return Type::Error;
            }
        }
        if v >= i32::MIN as i128 && v <= i32::MAX as i128 {
            Type::I32
        } else if v >= i64::MIN as i128 && v <= i64::MAX as i128 {
            Type::I64
        } else if v >= 0 && v <= u64::MAX as i128 {
            Type::U64
        } else {
            self.err(Diag::error(
                format!("integer literal {v} does not fit in any integer type"),
                span,
            ));
            Type::Error
        }
    }

    fn expr(&mut self, e: &Expr, want: Option<&Type>) -> Type {
        let t = self.expr_inner(e, want);
        self.expr_types.insert(e as *const Expr as usize, t.clone());
        t
    }

    fn expr_inner(&mut self, e: &Expr, want: Option<&Type>) -> Type {
        match &e.kind {
            ExprKind::Error => Type::Error,
            ExprKind::Int(v) => self.int_lit_type(*v, e.span, want),
            ExprKind::Float(_) => match want {
                Some(w) if w.is_float() => w.clone(),
                _ => Type::F64,
            },
            ExprKind::Bool(_) => Type::Bool,
            ExprKind::Str(_) => Type::Str,
            ExprKind::Var(n) => self.var_type(n, e.span),
            ExprKind::Unary(op, inner) => self.unary(*op, inner, want),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span, want),
            ExprKind::Ternary(c, a, b) => self.ternary(c, a, b, want),
            ExprKind::Cast(inner, t) => {
                self.check_type_expr(t);
                let from = self.expr(inner, None);
                if !from.can_cast_to(&t.ty) {
                    let note = if from == Type::V128 || t.ty == Type::V128 {
                        V128_LANES
                    } else {
                        "casts convert between numeric types, and between integers and bool"
                    };
                    self.err(
                        Diag::error(format!("cannot cast {from} to {}", t.ty), e.span)
                            .with_label(format!("{from} as {}", t.ty))
                            .with_note(note),
                    );
                    return Type::Error;
                }
                t.ty.clone()
            }
            ExprKind::Call { func, args } => self.call(func, args, e.span),
            ExprKind::Method { recv, name, args } => {
                if let ExprKind::Var(lib) = &recv.kind {
                    if self.libs.contains_key(lib) && self.lookup_var(lib).is_none() {
                        return self.lib_call(lib, name, args, e.span);
                    }
                }
                let rt = self.expr(recv, None);
                self.method(&rt, recv, name, args)
            }
            ExprKind::Static(inner) => {
                let is_lib = matches!(&inner.kind, ExprKind::Method { recv, .. } if matches!(&recv.kind, ExprKind::Var(l) if self.libs.contains_key(l)));
                if !is_lib {
                    self.err(
                        Diag::error(
                            "`@static` applies only to a library call `lib.f(...)`",
                            inner.span,
                        )
                        .with_note("import the library with `use lib;`"),
                    );
                }
                self.expr(inner, want)
            }
            ExprKind::Index(base, key) => self.index(base, key),
            ExprKind::Field(base, idx, span) => {
                let bt = self.expr(base, None);
                self.field_type(&bt, *idx, *span).unwrap_or(Type::Error)
            }
            ExprKind::Tuple(items) => {
                let wants: Vec<Option<&Type>> = match want {
                    Some(Type::Tuple(ws)) if ws.len() == items.len() => {
                        ws.iter().map(Some).collect()
                    }
                    _ => vec![None; items.len()],
                };
                Type::Tuple(
                    items
                        .iter()
                        .zip(wants)
                        .map(|(i, w)| self.expr(i, w))
                        .collect(),
                )
            }
        }
    }

    /// A variable: local, bound or global; else an error with a hint.
    fn var_type(&mut self, n: &str, span: Span) -> Type {
        if let Some(v) = self.lookup_var(n) {
            return v.ty;
        }
        if let Some(t) = self.bound(n, span) {
            return t;
        }
        if self.globals.contains_key(n) && self.ctx == Ctx::TopLevel {
            let decl = self.globals[n].span;
            self.err(
                Diag::error(format!("global `{n}` is used before its declaration"), span)
                    .with_secondary(decl, "declared here"),
            );
            return Type::Error;
        }
        let mut d = Diag::error(format!("unknown variable `{n}`"), span)
            .with_label("not found in this scope");
        if self.fns.contains_key(n) || BUILTINS.contains(&n) {
            d = d.with_note(format!("`{n}` is a function; call it with `{n}(...)`"));
        } else if self.libs.contains_key(n) {
            d = d.with_note(format!(
                "`{n}` is a library; call its functions with `{n}.f(...)`"
            ));
        } else if self.ctx == Ctx::Func && self.is_any_bound_name(n) {
            d = d.with_note("bound variables are only available in probes; pass it to the function as an argument");
        } else if let Some(note) = self.operand_note(n) {
            d = d.with_note(note);
        } else if let Some(s) = self.similar(n) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.err(d);
        Type::Error
    }

    fn unary(&mut self, op: UnOp, inner: &Expr, want: Option<&Type>) -> Type {
        let t = self.expr(inner, want);
        match op {
            UnOp::Not if t == Type::Bool || t.is_error() => Type::Bool,
            UnOp::BitNot if t.is_int() || t.is_error() => t,
            UnOp::Neg if t.is_numeric() || t.is_error() => t,
            _ => {
                let (sym, need) = match op {
                    UnOp::Not => ("!", "bool"),
                    UnOp::BitNot => ("~", "an integer"),
                    UnOp::Neg => ("-", "a number"),
                };
                let mut d = Diag::error(format!("`{sym}` needs {need}, found {t}"), inner.span)
                    .with_label(format!("has type {t}"));
                if let Some(n) = v128_note(&t, &Type::U32) {
                    d = d.with_note(n);
                }
                self.err(d);
                Type::Error
            }
        }
    }

    fn ternary(&mut self, c: &Expr, a: &Expr, b: &Expr, want: Option<&Type>) -> Type {
        self.expect(c, &Type::Bool, "a `?:` condition");
        let (ta, tb) = self.pair(a, b, want);
        match Type::join(&ta, &tb) {
            Some(t) => t,
            None => {
                self.err(
                    Diag::error(
                        format!("the arms of `?:` have incompatible types {ta} and {tb}"),
                        a.span.to(b.span),
                    )
                    .with_secondary(a.span, ta.to_string())
                    .with_secondary(b.span, tb.to_string()),
                );
                Type::Error
            }
        }
    }

    /// `base[key]`: only maps can be indexed.
    fn index(&mut self, base: &Expr, key: &Expr) -> Type {
        let bt = self.expr(base, None);
        match bt {
            Type::Map(k, v) => {
                self.expect(key, &k, "the map key");
                *v
            }
            Type::Error => {
                self.expr(key, None);
                Type::Error
            }
            other => {
                self.expr(key, None);
                self.err(
                    Diag::error(
                        format!("cannot index into a value of type {other}"),
                        base.span,
                    )
                    .with_label("only maps can be indexed"),
                );
                Type::Error
            }
        }
    }

    fn is_any_bound_name(&self, n: &str) -> bool {
        ["fid", "pc", "fname", "opidx", "at_func_end", "opname"].contains(&n)
            || n.starts_with("arg")
            || n.starts_with("imm")
            || n.starts_with("local")
    }

    fn similar(&self, n: &str) -> Option<String> {
        let mut names: Vec<&String> = self.globals.keys().collect();
        for s in &self.scopes {
            names.extend(s.keys());
        }
        names
            .into_iter()
            .filter(|c| edit_distance(c, n) <= 2 && c.len() > 2)
            .min_by_key(|c| edit_distance(c, n))
            .cloned()
    }

    /// Type two operands where an untyped literal adapts to the other side.
    fn pair(&mut self, a: &Expr, b: &Expr, want: Option<&Type>) -> (Type, Type) {
        if is_flexible_lit(a) && !is_flexible_lit(b) {
            let tb = self.expr(b, want);
            let ta = if tb.is_numeric() {
                self.expr(a, Some(&tb))
            } else {
                self.expr(a, want.filter(|w| w.is_numeric()))
            };
            (ta, tb)
        } else {
            let ta = self.expr(a, want.filter(|w| w.is_numeric() && is_flexible_lit(a)));
            let tb = if ta.is_numeric() && is_flexible_lit(b) {
                self.expr(b, Some(&ta))
            } else {
                self.expr(b, None)
            };
            (ta, tb)
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span, want: Option<&Type>) -> Type {
        use BinOp::*;
        match op {
            And | Or => {
                self.expect(a, &Type::Bool, &format!("an operand of `{}`", op.symbol()));
                self.expect(b, &Type::Bool, &format!("an operand of `{}`", op.symbol()));
                Type::Bool
            }
            Shl | Shr => {
                let ta = self.expr(a, want.filter(|w| w.is_int()));
                let tb = self.expr(b, if ta.is_int() { Some(&ta) } else { None });
                for (t, e) in [(&ta, a), (&tb, b)] {
                    if !t.is_int() && !t.is_error() {
                        self.err(
                            Diag::error(
                                format!("`{}` needs integer operands, found {t}", op.symbol()),
                                e.span,
                            )
                            .with_label(format!("has type {t}")),
                        );
                        return Type::Error;
                    }
                }
                ta
            }
            _ => {
                let num_want =
                    want.filter(|w| w.is_numeric() && !matches!(op, Eq | Ne | Lt | Le | Gt | Ge));
                let (ta, tb) = self.pair(a, b, num_want);
                if ta.is_error() || tb.is_error() {
                    return if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
                        Type::Bool
                    } else {
                        Type::Error
                    };
                }
                let Some(t) = Type::join(&ta, &tb) else {
                    let mut d = Diag::error(
                        format!(
                            "mismatched operand types for `{}`: {ta} and {tb}",
                            op.symbol()
                        ),
                        span,
                    )
                    .with_secondary(a.span, ta.to_string())
                    .with_secondary(b.span, tb.to_string());
                    if ta.is_numeric() && tb.is_numeric() {
                        d = d.with_note("there is no implicit conversion between these types; convert one side with `as`");
                    } else if matches!(op, Eq | Ne) && (ta == Type::V128 || tb == Type::V128) {
                        d = d.with_note("a v128 compares only with another v128, e.g. `v == (0, 0, 0, 0) as v128`");
                    } else if let Some(n) = v128_note(&ta, &tb).or_else(|| v128_note(&tb, &ta)) {
                        d = d.with_note(n);
                    }
                    self.err(d);
                    return if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
                        Type::Bool
                    } else {
                        Type::Error
                    };
                };
                let ok = match op {
                    Eq | Ne => !matches!(t, Type::Map(..) | Type::Unit),
                    Lt | Le | Gt | Ge => t.is_numeric(),
                    Add | Sub | Mul | Div | Rem => t.is_numeric(),
                    BitAnd | BitOr | BitXor => t.is_int() || t == Type::Bool,
                    _ => unreachable!(),
                };
                if !ok {
                    let need = match op {
                        Eq | Ne => "comparable values",
                        BitAnd | BitOr | BitXor => "integer or bool operands",
                        _ => "numeric operands",
                    };
                    let mut d =
                        Diag::error(format!("`{}` needs {need}, found {t}", op.symbol()), span)
                            .with_label(format!("operands have type {t}"));
                    if let Some(n) = v128_note(&t, &Type::U32) {
                        d = d.with_note(n);
                    }
                    self.err(d);
                    return Type::Error;
                }
                match op {
                    Eq | Ne | Lt | Le | Gt | Ge => Type::Bool,
                    _ => t,
                }
            }
        }
    }

    fn call(&mut self, func: &Ident, args: &[Expr], span: Span) -> Type {
        if func.name == "rdtsc" && !self.fns.contains_key(&func.name) {
            return self.clock_call(func, args, span);
        }
        if memory::MEMORY_FNS.contains(&func.name.as_str()) && !self.fns.contains_key(&func.name) {
            return self.memory_call(func, args, span);
        }
        if BUILTINS.contains(&func.name.as_str()) && !self.fns.contains_key(&func.name) {
            self.print_call(func, args);
            return Type::Unit;
        }
        let Some(sig) = self.fns.get(&func.name).cloned() else {
            for a in args {
                self.expr(a, None);
            }
            let mut d = Diag::error(format!("unknown function `{}`", func.name), func.span)
                .with_label("not defined in this script");
            if self.libs.is_empty() {
                d = d.with_note("library functions are called as `lib.f(...)` after `use lib;`");
            } else {
                let l = self.libs.keys().next().cloned().unwrap_or_default();
                d = d.with_note(format!(
                    "to call a library function write `{l}.{}(...)`",
                    func.name
                ));
            }
            self.err(d);
            return Type::Error;
        };
        if sig.params.len() != args.len() {
            let d = arity_error(&func.name, sig.params.len(), args.len(), span);
            self.err(d.with_secondary(sig.span, "defined here"));
        }
        for (i, a) in args.iter().enumerate() {
            match sig.params.get(i) {
                Some(p) => {
                    self.expect(a, p, &format!("argument {} of `{}`", i + 1, func.name));
                }
                None => {
                    self.expr(a, None);
                }
            }
        }
        sig.ret
    }

    /// `rdtsc()`: the engine's clock, `u64` nanoseconds.
    fn clock_call(&mut self, func: &Ident, args: &[Expr], span: Span) -> Type {
        if !args.is_empty() {
            self.err(arity_error(&func.name, 0, args.len(), span));
            for a in args {
                self.expr(a, None);
            }
        }
        self.uses_rdtsc = true;
        Type::U64
    }

    fn print_call(&mut self, func: &Ident, args: &[Expr]) {
        let Some(first) = args.first() else {
            if func.name == "print" {
                self.err(
                    Diag::error("`print` needs at least one argument", func.span)
                        .with_note("`print(\"x = {}\", x);`"),
                );
            }
            return;
        };
        if let ExprKind::Str(fmt) = &first.kind {
            match count_placeholders(fmt) {
                Ok(n) if n != args.len() - 1 => {
                    self.err(
                        Diag::error(format!("format string has {n} placeholder(s) but {} argument(s) were given", args.len() - 1), first.span)
                            .with_label(format!("{n} `{{}}` here")),
                    );
                }
                Ok(_) => {}
                Err(m) => self.err(
                    Diag::error(format!("invalid format string: {m}"), first.span)
                        .with_note("use `{}` for a value, `{{` and `}}` for literal braces"),
                ),
            }
            for a in &args[1..] {
                let t = self.expr(a, None);
                if t == Type::Unit {
                    self.err(Diag::error("this expression has no value to print", a.span));
                }
            }
        } else {
            let t = self.expr(first, None);
            if args.len() > 1 {
                self.err(Diag::error(format!("the first argument of `{}` must be a format string literal when there are several arguments", func.name), first.span).with_label(format!("found {t}")));
                for a in &args[1..] {
                    self.expr(a, None);
                }
            } else if t == Type::Unit {
                self.err(Diag::error(
                    "this expression has no value to print",
                    first.span,
                ));
            }
        }
    }

    /// A call `lib.f(args)` of a library.
    fn lib_call(&mut self, lib: &str, name: &Ident, args: &[Expr], span: Span) -> Type {
        let Some(sigs) = self.lib_sigs.get(lib) else {
            // Without `--lib` the signature is unknown: arguments keep their
            // own types and the call has no value (a statement only).
            if self.discarded != Some(span) {
                self.err(
                    Diag::error(
                        format!("the result type of `{lib}.{}` is unknown", name.name),
                        span,
                    )
                    .with_label("its value is used here")
                    .with_note(format!(
                        "name the library module: `whamm build --lib {lib}=path.wasm ...`"
                    )),
                );
            }
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        };
        let Some(sig) = sigs.get(&name.name) else {
            let mut known: Vec<&String> = sigs.keys().collect();
            known.sort();
            let list = known
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            self.err(
                Diag::error(
                    format!("library `{lib}` exports no function `{}`", name.name),
                    name.span,
                )
                .with_note(format!("its functions: {list}")),
            );
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        };
        if sig.params.len() != args.len() {
            let params: Vec<String> = sig.params.iter().map(|t| t.to_string()).collect();
            let what = format!("{lib}.{}", name.name);
            let d = arity_error(&what, sig.params.len(), args.len(), span);
            self.err(d.with_label(format!("expected ({})", params.join(", "))));
        }
        for (i, a) in args.iter().enumerate() {
            let want = sig.params.get(i);
            let t = self.expr(a, want);
            if let Some(w) = want {
                if !t.is_error() && wasm_repr(&t) != wasm_repr(w) {
                    self.err(
                        Diag::error(
                            format!(
                                "argument {} of `{lib}.{}` is a Wasm {w}, found {t}",
                                i + 1,
                                name.name
                            ),
                            a.span,
                        )
                        .with_label(format!("expected a value whose Wasm type is {w}"))
                        .with_note("library parameters take any language type with that Wasm representation (u8..u32, i8..i32, bool as i32; u64/i64 as i64); cast others"),
                    );
                }
            }
        }
        sig.result_type()
    }

    fn method(&mut self, rt: &Type, recv: &Expr, name: &Ident, args: &[Expr]) -> Type {
        if rt.is_error() {
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        }
        if let ExprKind::Var(n) = &recv.kind {
            let _ = n;
        }
        if *rt != Type::Str {
            self.err(Diag::error(format!("no method `{}` on type {rt}", name.name), name.span).with_note("methods exist only on str: len, starts_with, ends_with, contains; libraries need `use lib;`"));
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        }
        let (params, ret): (&[Type], Type) = match name.name.as_str() {
            "len" | "addr" => (&[], Type::U32),
            "starts_with" | "ends_with" | "contains" => (&[Type::Str], Type::Bool),
            _ => {
                self.err(
                    Diag::error(format!("no method `{}` on str", name.name), name.span).with_note(
                        "str methods: len(), addr(), starts_with(s), ends_with(s), contains(s)",
                    ),
                );
                for a in args {
                    self.expr(a, None);
                }
                return Type::Error;
            }
        };
        if params.len() != args.len() {
            self.err(Diag::error(
                format!(
                    "`{}` takes {} argument(s) but {} were given",
                    name.name,
                    params.len(),
                    args.len()
                ),
                name.span,
            ));
        }
        for (i, a) in args.iter().enumerate() {
            match params.get(i) {
                Some(p) => {
                    self.expect(a, p, &format!("the argument of `{}`", name.name));
                }
                None => {
                    self.expr(a, None);
                }
            }
        }
        ret
    }
}

/// Count `{}` placeholders; `{{` and `}}` are literal braces.
pub fn count_placeholders(fmt: &str) -> Result<usize, String> {
    let b: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let mut n = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            ('{', Some('{')) | ('}', Some('}')) => i += 2,
            ('{', Some('}')) => {
                n += 1;
                i += 2
            }
            ('{', _) => return Err("`{` must be followed by `}` (or written `{{`)".into()),
            ('}', _) => return Err("unmatched `}` (write `}}` for a literal brace)".into()),
            _ => i += 1,
        }
    }
    Ok(n)
}

fn block_returns(b: &Block) -> bool {
    b.stmts.iter().any(stmt_returns)
}

fn stmt_returns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If {
            branches,
            else_block: Some(e),
        } => branches.iter().all(|(_, b)| block_returns(b)) && block_returns(e),
        StmtKind::While {
            cond:
                Expr {
                    kind: ExprKind::Bool(true),
                    ..
                },
            body,
        } => !contains_break(body),
        StmtKind::Error => true,
        _ => false,
    }
}

fn contains_break(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If {
            branches,
            else_block,
        } => {
            branches.iter().any(|(_, b)| contains_break(b))
                || else_block.as_ref().is_some_and(contains_break)
        }
        _ => false,
    })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 || a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            cur[j] = (prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(prev[j - 1] + usize::from(a[i - 1] != b[j - 1]));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[allow(dead_code)]
fn unused(_: Option<i128>) {
    let _ = lit_int;
}
