//! Walks over the AST the back end needs: every expression of a script or
//! block, the variables an expression mentions, the conjuncts of a
//! predicate, and which expressions can be evaluated at match time.

use crate::ast::*;
use crate::check::BoundInfo;
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};

/// Visit every expression of the script (pre-order).
pub(super) fn visit_exprs<'e>(script: &'e Script, f: &mut dyn FnMut(&'e Expr)) {
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

pub(super) fn visit_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
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
pub(super) fn visit_stmt<'e>(s: &'e Stmt, f: &mut dyn FnMut(&'e Expr)) {
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
pub(super) fn visit_block<'e>(b: &'e Block, f: &mut dyn FnMut(&'e Expr)) {
    b.stmts.iter().for_each(|s| visit_stmt(s, f));
}

/// Names of variables an expression mentions.
pub(super) fn expr_vars(e: &Expr, out: &mut BTreeSet<String>) {
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

pub(super) fn block_vars(b: &Block, out: &mut BTreeSet<String>) {
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
pub(super) fn match_time(
    e: &Expr,
    used: &HashMap<String, BoundInfo>,
    libs: &BTreeSet<String>,
) -> bool {
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
pub(super) fn static_exprs<'e>(b: &'e Block, extra: &[&'e Expr]) -> Vec<&'e Expr> {
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

pub(super) fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    if let ExprKind::Binary(BinOp::And, a, b) = &e.kind {
        conjuncts(a, out);
        conjuncts(b, out);
    } else {
        out.push(e);
    }
}

pub(super) fn first_use_span(b: &Block, pred: Option<&Expr>, name: &str) -> Option<Span> {
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
