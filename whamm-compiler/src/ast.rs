//! The abstract syntax tree. Every node carries a [`Span`].

use crate::span::Span;
use crate::types::Type;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Script {
    pub items: Vec<Item>,
}

/// A script is dropped without recursion: it may nest more deeply than a
/// recursive drop could handle on an ordinary stack (see [`crate::nesting`]).
impl Drop for Script {
    fn drop(&mut self) {
        crate::nesting::dismantle_items(std::mem::take(&mut self.items));
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `use NAME;`
    Use(Ident, Span),
    /// A global statement (declaration, assignment, `if`, ...).
    Stmt(Stmt),
    Fn(FnDef),
    Probe(Probe),
    /// A top-level item that failed to parse (already reported).
    Error(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FnDef {
    pub name: Ident,
    pub params: Vec<(Ident, TypeExpr)>,
    pub ret: Option<TypeExpr>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The rule exactly as written.
    pub rule: String,
    pub rule_span: Span,
    pub pred: Option<Expr>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decorator {
    Report,
    Unshared,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `[report] [unshared] var x: T [= e];` (or legacy `T x [= e];`)
    Decl {
        decorators: Vec<(Decorator, Span)>,
        name: Ident,
        ty: TypeExpr,
        init: Option<Expr>,
    },
    /// `lhs = e;` where lhs is a variable, `m[k]` or `t.N`.
    Assign {
        target: Expr,
        value: Expr,
    },
    /// `lhs++;` / `lhs--;`
    IncDec {
        target: Expr,
        inc: bool,
    },
    /// An expression statement (normally a call).
    Expr(Expr),
    Return(Option<Expr>),
    If {
        branches: Vec<(Expr, Block)>,
        else_block: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Block,
    },
    Break,
    Continue,
    /// A statement that failed to parse (already reported).
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    BitNot,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            And => "&&",
            Or => "||",
            BitOr => "|",
            BitXor => "^",
            BitAnd => "&",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Shl => "<<",
            Shr => ">>",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal; a `-` directly before a literal is folded in.
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    Var(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>, TypeExpr),
    /// `f(args)` — a user function or a builtin (`print`, `println`).
    Call {
        func: Ident,
        args: Vec<Expr>,
    },
    /// `recv.name(args)` — a string method, or a library call when `recv`
    /// names a `use`d library (resolved by the checker).
    Method {
        recv: Box<Expr>,
        name: Ident,
        args: Vec<Expr>,
    },
    /// `@static e` where `e` must be a library call.
    Static(Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Field(Box<Expr>, u32, Span),
    Tuple(Vec<Expr>),
    /// An expression that failed to parse (already reported).
    Error,
}

impl Expr {
    pub fn new(kind: ExprKind, lo: usize, hi: usize) -> Expr {
        Expr {
            kind,
            span: Span::new(lo, hi),
        }
    }

    /// `-e` spanning `lo..hi`. A leading `-` on a literal is part of the
    /// literal (docs/probe-language.md#lexical-structure), also when a cast follows: `-1.0 as u64` is
    /// `(-1.0) as u64` (the literal binds before the postfix `as`).
    pub fn negate(e: Expr, lo: usize, hi: usize) -> Expr {
        fn lit(e: &mut Expr, lo: usize) -> bool {
            match &mut e.kind {
                ExprKind::Int(v) => {
                    *v = -*v;
                    e.span.lo = lo;
                    true
                }
                ExprKind::Float(v) => {
                    *v = -*v;
                    e.span.lo = lo;
                    true
                }
                ExprKind::Cast(inner, _) if e.span.lo == inner.span.lo => {
                    let negated = lit(inner, lo);
                    if negated {
                        e.span.lo = lo;
                    }
                    negated
                }
                _ => false,
            }
        }
        let mut e = e;
        if lit(&mut e, lo) {
            e.span.hi = hi;
            return e;
        }
        Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(e)), lo, hi)
    }
}
