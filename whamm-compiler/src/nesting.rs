//! A limit on how deeply a script nests.
//!
//! The parser (an LR automaton) accepts any nesting, but the later passes
//! (checker, back end) walk the tree recursively. They run on a thread with
//! a large stack (see [`crate::on_compiler_stack`]), which covers every
//! script up to [`MAX_DEPTH`] levels; anything deeper is reported here, with
//! a source span, and the over-deep part is replaced by an error node so no
//! later pass sees it. Generated code such as a sum of 5,000 terms
//! (`1 + 1 + ...`, 5,000 levels of left-nested `+`) is well within the limit.
//!
//! Everything in this module is iterative: it is safe on any stack, for
//! any depth, and it also takes the over-deep subtrees apart iteratively
//! (dropping them recursively could overflow the stack by itself).

use crate::ast::*;
use crate::diag::Diag;
use crate::span::Span;
use crate::types::Type;

/// The deepest nesting a script may have: of expressions and statements
/// together (each operator, call, cast, ... and each statement inside a
/// block counts one level), and separately of a type.
pub const MAX_DEPTH: usize = 20_000;

/// A node of the tree, borrowed for the walk.
enum Node<'a> {
    Expr(&'a mut Expr),
    Stmt(&'a mut Stmt),
    Type(&'a mut TypeExpr),
}

/// A subtree taken out of the tree, to be dropped.
enum Owned {
    Expr(Expr),
    Stmt(Stmt),
    Block(Block),
    Type(Type),
}

/// Drop the items of a script without recursion.
pub(crate) fn dismantle_items(items: Vec<Item>) {
    for item in items {
        match item {
            Item::Stmt(s) => dismantle(Owned::Stmt(s)),
            Item::Fn(f) => {
                let types = f.params.into_iter().map(|(_, t)| t).chain(f.ret);
                types.for_each(|t| dismantle(Owned::Type(t.ty)));
                dismantle(Owned::Block(f.body));
            }
            Item::Probe(p) => {
                if let Some(e) = p.pred {
                    dismantle(Owned::Expr(e));
                }
                dismantle(Owned::Block(p.body));
            }
            Item::Use(..) | Item::Error(_) => {}
        }
    }
}

/// Report and cut every part of `script` nested deeper than [`MAX_DEPTH`]:
/// at most one diagnostic per top-level item.
pub fn limit(script: &mut Script, diags: &mut Vec<Diag>) {
    for item in &mut script.items {
        let mut work = roots(item);
        let mut reported = false;
        while let Some((node, depth)) = work.pop() {
            let cut = match node {
                Node::Expr(e) if depth > MAX_DEPTH => Some(cut_expr(e)),
                Node::Stmt(s) if depth > MAX_DEPTH => Some(cut_stmt(s)),
                Node::Type(t) => cut_type(t),
                Node::Expr(e) => {
                    push_expr_children(&mut work, e, depth + 1);
                    None
                }
                Node::Stmt(s) => {
                    push_stmt_children(&mut work, s, depth + 1);
                    None
                }
            };
            if let Some((what, span)) = cut {
                if !reported {
                    diags.push(too_deep(what, span));
                    reported = true;
                }
            }
        }
    }
}

/// The top-level nodes of an item, at depth 1.
fn roots(item: &mut Item) -> Vec<(Node<'_>, usize)> {
    let mut work: Vec<(Node, usize)> = vec![];
    match item {
        Item::Stmt(s) => work.push((Node::Stmt(s), 1)),
        Item::Fn(f) => {
            for (_, t) in &mut f.params {
                work.push((Node::Type(t), 1));
            }
            if let Some(t) = &mut f.ret {
                work.push((Node::Type(t), 1));
            }
            push_block(&mut work, &mut f.body, 1);
        }
        Item::Probe(p) => {
            if let Some(e) = &mut p.pred {
                work.push((Node::Expr(e), 1));
            }
            push_block(&mut work, &mut p.body, 1);
        }
        Item::Use(..) | Item::Error(_) => {}
    }
    work
}

/// Call `f` on every expression of the script, parents before their
/// children (which are those of the expression `f` leaves), iteratively.
pub(crate) fn each_expr_mut(script: &mut Script, f: &mut dyn FnMut(&mut Expr)) {
    for item in &mut script.items {
        let mut work = roots(item);
        while let Some((node, depth)) = work.pop() {
            match node {
                Node::Expr(e) => {
                    f(e);
                    push_expr_children(&mut work, e, depth + 1);
                }
                Node::Stmt(s) => push_stmt_children(&mut work, s, depth + 1),
                Node::Type(_) => {}
            }
        }
    }
}

fn too_deep(what: &str, span: Span) -> Diag {
    Diag::error(format!("{what} nested too deeply"), span)
        .with_label(format!("more than {MAX_DEPTH} levels deep here"))
        .with_note(format!(
            "the compiler accepts at most {MAX_DEPTH} levels of nested expressions and statements; split the code, e.g. with intermediate variables"
        ))
}

fn push_block<'a>(work: &mut Vec<(Node<'a>, usize)>, b: &'a mut Block, depth: usize) {
    for s in &mut b.stmts {
        work.push((Node::Stmt(s), depth));
    }
}

fn push_expr_children<'a>(work: &mut Vec<(Node<'a>, usize)>, e: &'a mut Expr, depth: usize) {
    let mut children: Vec<&'a mut Expr> = vec![];
    match &mut e.kind {
        ExprKind::Unary(_, a) | ExprKind::Static(a) | ExprKind::Field(a, _, _) => children.push(a),
        ExprKind::Cast(a, t) => {
            children.push(a);
            work.push((Node::Type(t), depth));
        }
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => children.extend([&mut **a, b]),
        ExprKind::Ternary(a, b, c) => children.extend([&mut **a, b, c]),
        ExprKind::Call { args, .. } | ExprKind::Tuple(args) => children.extend(args),
        ExprKind::Method { recv, args, .. } => {
            children.push(recv);
            children.extend(args);
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Var(_)
        | ExprKind::Error => {}
    }
    work.extend(children.into_iter().map(|c| (Node::Expr(c), depth)));
}

fn push_stmt_children<'a>(work: &mut Vec<(Node<'a>, usize)>, s: &'a mut Stmt, depth: usize) {
    match &mut s.kind {
        StmtKind::Decl { ty, init, .. } => {
            work.push((Node::Type(ty), depth));
            if let Some(e) = init {
                work.push((Node::Expr(e), depth));
            }
        }
        StmtKind::Assign { target, value } => {
            work.push((Node::Expr(target), depth));
            work.push((Node::Expr(value), depth));
        }
        StmtKind::IncDec { target: e, .. } | StmtKind::Expr(e) | StmtKind::Return(Some(e)) => {
            work.push((Node::Expr(e), depth))
        }
        StmtKind::If {
            branches,
            else_block,
        } => {
            for (c, b) in branches {
                work.push((Node::Expr(c), depth));
                push_block(work, b, depth);
            }
            if let Some(b) = else_block {
                push_block(work, b, depth);
            }
        }
        StmtKind::While { cond, body } => {
            work.push((Node::Expr(cond), depth));
            push_block(work, body, depth);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            for s in [init, step].into_iter().flatten() {
                work.push((Node::Stmt(s), depth));
            }
            if let Some(c) = cond {
                work.push((Node::Expr(c), depth));
            }
            push_block(work, body, depth);
        }
        StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Error => {}
    }
}

/// Replace `e` by an error node; returns what was cut, for the diagnostic.
fn cut_expr(e: &mut Expr) -> (&'static str, Span) {
    let span = e.span;
    let old = std::mem::replace(
        e,
        Expr {
            kind: ExprKind::Error,
            span,
        },
    );
    dismantle(Owned::Expr(old));
    ("expression", span)
}

fn cut_stmt(s: &mut Stmt) -> (&'static str, Span) {
    let span = s.span;
    let old = std::mem::replace(
        s,
        Stmt {
            kind: StmtKind::Error,
            span,
        },
    );
    dismantle(Owned::Stmt(old));
    ("statement", span)
}

/// Replace a type nested deeper than the limit by `Type::Error`.
fn cut_type(t: &mut TypeExpr) -> Option<(&'static str, Span)> {
    let mut work = vec![(&t.ty, 1usize)];
    let mut deepest = 0;
    while let Some((ty, d)) = work.pop() {
        deepest = deepest.max(d);
        match ty {
            Type::Tuple(ts) => work.extend(ts.iter().map(|t| (t, d + 1))),
            Type::Map(k, v) => work.extend([(&**k, d + 1), (&**v, d + 1)]),
            _ => {}
        }
    }
    if deepest <= MAX_DEPTH {
        return None;
    }
    dismantle(Owned::Type(std::mem::replace(&mut t.ty, Type::Error)));
    Some(("type", t.span))
}

/// Drop a subtree of any depth without recursion: move every child out of
/// its parent before the parent is dropped.
fn dismantle(root: Owned) {
    let mut work = vec![root];
    while let Some(node) = work.pop() {
        match node {
            Owned::Expr(e) => dismantle_expr(e, &mut work),
            Owned::Stmt(s) => dismantle_stmt(s, &mut work),
            Owned::Block(b) => work.extend(b.stmts.into_iter().map(Owned::Stmt)),
            Owned::Type(Type::Tuple(ts)) => work.extend(ts.into_iter().map(Owned::Type)),
            Owned::Type(Type::Map(k, v)) => work.extend([Owned::Type(*k), Owned::Type(*v)]),
            Owned::Type(_) => {}
        }
    }
}

fn dismantle_expr(e: Expr, work: &mut Vec<Owned>) {
    let ex = |e: Box<Expr>| Owned::Expr(*e);
    match e.kind {
        ExprKind::Unary(_, a) | ExprKind::Static(a) | ExprKind::Field(a, _, _) => work.push(ex(a)),
        ExprKind::Cast(a, t) => work.extend([ex(a), Owned::Type(t.ty)]),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => work.extend([ex(a), ex(b)]),
        ExprKind::Ternary(a, b, c) => work.extend([ex(a), ex(b), ex(c)]),
        ExprKind::Call { args, .. } | ExprKind::Tuple(args) => {
            work.extend(args.into_iter().map(Owned::Expr))
        }
        ExprKind::Method { recv, args, .. } => {
            work.push(ex(recv));
            work.extend(args.into_iter().map(Owned::Expr));
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Var(_)
        | ExprKind::Error => {}
    }
}

fn dismantle_stmt(s: Stmt, work: &mut Vec<Owned>) {
    match s.kind {
        StmtKind::Decl { ty, init, .. } => {
            work.push(Owned::Type(ty.ty));
            work.extend(init.map(Owned::Expr));
        }
        StmtKind::Assign { target, value } => {
            work.extend([Owned::Expr(target), Owned::Expr(value)])
        }
        StmtKind::IncDec { target: e, .. } | StmtKind::Expr(e) | StmtKind::Return(Some(e)) => {
            work.push(Owned::Expr(e))
        }
        StmtKind::If {
            branches,
            else_block,
        } => {
            for (c, b) in branches {
                work.extend([Owned::Expr(c), Owned::Block(b)]);
            }
            work.extend(else_block.map(Owned::Block));
        }
        StmtKind::While { cond, body } => work.extend([Owned::Expr(cond), Owned::Block(body)]),
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            work.extend([init, step].into_iter().flatten().map(|s| Owned::Stmt(*s)));
            work.extend(cond.map(Owned::Expr));
            work.push(Owned::Block(body));
        }
        StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Error => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_trees_are_cut_and_dropped_without_recursion() {
        // Far deeper than any stack could drop recursively.
        let n = 1_000_000;
        let mut e = Expr::new(ExprKind::Var("x".into()), 0, 1);
        for _ in 0..n {
            e = Expr::new(ExprKind::Unary(UnOp::Not, Box::new(e)), 0, 1);
        }
        let mut script = Script {
            items: vec![Item::Stmt(Stmt {
                kind: StmtKind::Expr(e),
                span: Span::new(0, 1),
            })],
        };
        let mut diags = vec![];
        limit(&mut script, &mut diags);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("nested too deeply"));
        // The statement is level 1; expressions are kept down to the limit.
        let Some(Item::Stmt(Stmt {
            kind: StmtKind::Expr(e),
            ..
        })) = script.items.first()
        else {
            unreachable!()
        };
        let (mut e, mut kept) = (e, 0);
        while let ExprKind::Unary(_, a) = &e.kind {
            (e, kept) = (a, kept + 1);
        }
        assert!(matches!(e.kind, ExprKind::Error));
        assert_eq!(kept, MAX_DEPTH - 1);
        // And a script of any depth drops without recursion.
        let mut e = Expr::new(ExprKind::Var("x".into()), 0, 1);
        for _ in 0..n {
            e = Expr::new(ExprKind::Unary(UnOp::Not, Box::new(e)), 0, 1);
        }
        script.items.push(Item::Probe(Probe {
            rule: String::new(),
            rule_span: Span::default(),
            pred: Some(e),
            body: Block {
                stmts: vec![],
                span: Span::default(),
            },
            span: Span::default(),
        }));
        drop(script);
    }
}
