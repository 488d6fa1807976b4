//! Constant folding: literals, and the constants a matched event fixes
//! (`opname`, `data_size`, ...), so that predicates decided by the event
//! cost nothing at run time.

use super::bound::Bound;
use super::fn_cx::FnCx;
use super::Cg;
use crate::ast::*;
use crate::types::Type;

#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
}

pub(super) fn wrap_int(v: i128, t: &Type) -> Option<i128> {
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

impl Cg<'_> {
    /// Constant-fold an expression (literals and per-event constants).
    pub(super) fn fold(&self, cx: &FnCx, e: &Expr) -> Option<Const> {
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
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                return self.fold_logic(cx, *op, a, b)
            }
            ExprKind::Binary(op, a, b) => {
                // The right operand first: in a long left-nested chain
                // (`x + x + ...`, generated code) it is the cheap one to give
                // up on, which keeps folding the chain linear.
                let cb = self.fold(cx, b)?;
                let ca = self.fold(cx, a)?;
                return fold_binary(*op, ca, cb, &t);
            }
            ExprKind::Method { recv, name, args } => return self.fold_method(cx, recv, name, args),
            _ => return None,
        })
    }

    /// `a && b`, `a || b`: decided by either side alone when it is the
    /// absorbing value.
    fn fold_logic(&self, cx: &FnCx, op: BinOp, a: &Expr, b: &Expr) -> Option<Const> {
        let ca = self.fold(cx, a);
        let absorbing = op == BinOp::Or;
        match ca {
            Some(Const::Bool(x)) if x == absorbing => Some(Const::Bool(absorbing)),
            Some(Const::Bool(_)) => self.fold(cx, b),
            _ => match self.fold(cx, b) {
                Some(Const::Bool(x)) if x == absorbing => Some(Const::Bool(absorbing)),
                _ => None,
            },
        }
    }

    /// String methods of constant strings.
    fn fold_method(&self, cx: &FnCx, recv: &Expr, name: &Ident, args: &[Expr]) -> Option<Const> {
        let Const::Str(s) = self.fold(cx, recv)? else {
            return None;
        };
        Some(match (name.name.as_str(), args) {
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
        })
    }
}

/// A binary operator (not `&&`, `||`) on constants, with the result in `t`.
fn fold_binary(op: BinOp, ca: Const, cb: Const, t: &Type) -> Option<Const> {
    Some(match (ca, cb) {
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
            Const::Int(wrap_int(r, t)?)
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
    })
}
