//! Two rewrites that keep a probe body small where a flag is counted, so
//! the engine inlines it once and branches on the operand instead of
//! duplicating it per operand value:
//!
//! - **Conditional increments.** `p = p + (b as T)` (or `(b as T) + p`), with
//!   `p` a variable or a field of one and `b` a side-effect-free `bool`, is
//!   `if (b) { p++; }`: adding `false as T` leaves `p` as it is.
//! - **Forwarded flags.** `var x: bool = e;` whose `e` only reads the probe's
//!   bound values (`arg0`, `imm0`, ...: they never change) with operators
//!   that cannot trap, read exactly once later in its block (not in a
//!   loop) and never assigned, is not stored: its one read evaluates `e`
//!   there. `var taken: bool = arg0 != 0; if (taken) {...}` thus branches
//!   on `arg0 != 0` itself.

use super::fn_cx::FnCx;
use super::Cg;
use crate::ast::*;
use crate::types::Type;

impl Cg<'_> {
    /// The flag `b` of `target = target + (b as T)`, when that statement is
    /// a conditional increment (see the module docs).
    pub(super) fn counted_flag<'e>(
        &self,
        cx: &FnCx,
        target: &Expr,
        value: &'e Expr,
        t: &Type,
    ) -> Option<&'e Expr> {
        let ExprKind::Binary(BinOp::Add, a, b) = &value.kind else {
            return None;
        };
        let (cast, other) = match (&a.kind, &b.kind) {
            (ExprKind::Cast(..), _) => (&**a, &**b),
            (_, ExprKind::Cast(..)) => (&**b, &**a),
            _ => return None,
        };
        let ExprKind::Cast(flag, _) = &cast.kind else {
            return None;
        };
        let ok = t.is_int()
            && self.ty(cast) == *t
            && self.ty(value) == *t
            && self.ty(flag) == Type::Bool
            && same_place(target, other)
            && self.mem_or_var(cx, target)
            && self.pure(cx, flag, true);
        ok.then_some(&**flag)
    }

    /// Whether `e` is a place [`Self::mem_leaf`]'s resolution finds without
    /// emitting code (a variable or a field of one).
    fn mem_or_var(&self, cx: &FnCx, e: &Expr) -> bool {
        let mut x = e;
        while let ExprKind::Field(b, _, _) = &x.kind {
            x = b;
        }
        matches!(&x.kind, ExprKind::Var(n) if self.var(cx, n).is_some())
    }

    /// Whether evaluating `e` has no effect, cannot trap and reads only the
    /// probe's bound values (with `locals`: also local variables and
    /// forwarded flags), so evaluating it later or not at all is the same.
    fn pure(&self, cx: &FnCx, e: &Expr, locals: bool) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Float(_) => true,
            // Read now (a flag counted at once): any variable. Read later
            // (a forwarded flag): only bound values, which never change.
            ExprKind::Var(n) => {
                locals
                    || (cx.lookup(n).is_none()
                        && !cx.forward.iter().any(|(f, _)| f == n)
                        && cx.bound.contains_key(n))
            }
            ExprKind::Unary(_, a) => self.pure(cx, a, locals),
            ExprKind::Binary(op, a, b) => {
                !matches!(op, BinOp::Div | BinOp::Rem)
                    && self.pure(cx, a, locals)
                    && self.pure(cx, b, locals)
            }
            _ => false,
        }
    }

    /// Whether statement `i` of `stmts` declares a flag to forward (see the
    /// module docs): its name and value.
    pub(super) fn forwardable<'s>(
        &self,
        cx: &FnCx,
        stmts: &'s [Stmt],
        i: usize,
    ) -> Option<(&'s str, &'s Expr)> {
        let StmtKind::Decl {
            decorators,
            name,
            ty,
            init: Some(e),
        } = &stmts[i].kind
        else {
            return None;
        };
        if !decorators.is_empty() || ty.ty != Type::Bool || !self.pure(cx, e, false) {
            return None;
        }
        let mut reads = Vec::new();
        super::walk::visit_expr(e, &mut |x| {
            if let ExprKind::Var(n) = &x.kind {
                reads.push(n.as_str());
            }
        });
        let mut scan = Scan {
            name: &name.name,
            inputs: reads,
            reads: 0,
            bad: false,
        };
        scan.stmts(&stmts[i + 1..], false);
        (!scan.bad && scan.reads == 1).then_some((name.name.as_str(), e))
    }
}

impl Cg<'_> {
    /// A copy of a forwarded flag's expression whose nodes have the types
    /// the checker gave the original's (types are keyed by address).
    pub(super) fn typed_copy(&mut self, e: &Expr) -> Box<Expr> {
        let copy = Box::new(e.clone());
        self.copy_types_of(e, &copy, true);
        copy
    }

    /// Forget the types of a copy that is dropped (its addresses may be
    /// reused).
    pub(super) fn drop_copy(&mut self, copy: &Expr) {
        self.copy_types_of(copy, copy, false);
    }

    fn copy_types_of(&mut self, orig: &Expr, copy: &Expr, add: bool) {
        let key = copy as *const Expr as usize;
        if add {
            let t = self.ty(orig);
            self.copy_types.insert(key, t);
        } else {
            self.copy_types.remove(&key);
        }
        match (&orig.kind, &copy.kind) {
            (ExprKind::Unary(_, a), ExprKind::Unary(_, b)) => self.copy_types_of(a, b, add),
            (ExprKind::Binary(_, a1, b1), ExprKind::Binary(_, a2, b2)) => {
                self.copy_types_of(a1, a2, add);
                self.copy_types_of(b1, b2, add);
            }
            _ => {}
        }
    }
}

/// The same variable, or the same field path of it.
fn same_place(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::Field(x, i, _), ExprKind::Field(y, j, _)) => i == j && same_place(x, y),
        _ => false,
    }
}

/// How a flag is used after its declaration: `reads` of it; `bad` when it
/// is assigned, read in a loop, or it or one of its `inputs` is declared
/// again (shadowed).
struct Scan<'a> {
    name: &'a str,
    inputs: Vec<&'a str>,
    reads: usize,
    bad: bool,
}

impl Scan<'_> {
    fn stmts(&mut self, stmts: &[Stmt], in_loop: bool) {
        for s in stmts {
            self.stmt(s, in_loop);
        }
    }

    fn stmt(&mut self, s: &Stmt, in_loop: bool) {
        match &s.kind {
            StmtKind::Decl { name, init, .. } => {
                if let Some(e) = init {
                    self.expr(e, in_loop);
                }
                let n = name.name.as_str();
                self.bad |= n == self.name || self.inputs.contains(&n);
            }
            StmtKind::Assign { target, value } => {
                self.bad |= root(target) == Some(self.name);
                self.expr(target, in_loop);
                self.expr(value, in_loop);
            }
            StmtKind::IncDec { target, .. } => {
                self.bad |= root(target) == Some(self.name);
                self.expr(target, in_loop);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e, in_loop),
            StmtKind::If {
                branches,
                else_block,
            } => {
                for (c, b) in branches {
                    self.expr(c, in_loop);
                    self.stmts(&b.stmts, in_loop);
                }
                if let Some(b) = else_block {
                    self.stmts(&b.stmts, in_loop);
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, true);
                self.stmts(&body.stmts, true);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                for s in init.iter().chain(step) {
                    self.stmt(s, true);
                }
                if let Some(c) = cond {
                    self.expr(c, true);
                }
                self.stmts(&body.stmts, true);
            }
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Error => {}
        }
    }

    fn expr(&mut self, e: &Expr, in_loop: bool) {
        super::walk::visit_expr(e, &mut |x| {
            if matches!(&x.kind, ExprKind::Var(n) if n == self.name) {
                self.reads += 1;
                self.bad |= in_loop;
            }
        });
    }
}

/// The variable an assignment target starts from.
fn root(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Var(n) => Some(n),
        ExprKind::Field(b, _, _) | ExprKind::Index(b, _) => root(b),
        _ => None,
    }
}
