//! Expressions: literals, operators, ternaries and indexing, typed against
//! what their context wants.

use super::*;

impl Checker<'_> {
    /// Check `e` against `want` with the implicit conversions of a stored
    /// value ([`Type::assignable_to`]).
    pub(super) fn expect(&mut self, e: &Expr, want: &Type, what: &str) -> Type {
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

    pub(super) fn int_lit_type(&mut self, v: i128, span: Span, want: Option<&Type>) -> Type {
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

    pub(super) fn expr(&mut self, e: &Expr, want: Option<&Type>) -> Type {
        let t = self.expr_inner(e, want);
        self.expr_types.insert(e as *const Expr as usize, t.clone());
        t
    }

    pub(super) fn expr_inner(&mut self, e: &Expr, want: Option<&Type>) -> Type {
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

    pub(super) fn unary(&mut self, op: UnOp, inner: &Expr, want: Option<&Type>) -> Type {
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

    pub(super) fn ternary(&mut self, c: &Expr, a: &Expr, b: &Expr, want: Option<&Type>) -> Type {
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
    pub(super) fn index(&mut self, base: &Expr, key: &Expr) -> Type {
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

    /// Type two operands where an untyped literal adapts to the other side.
    pub(super) fn pair(&mut self, a: &Expr, b: &Expr, want: Option<&Type>) -> (Type, Type) {
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

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        span: Span,
        want: Option<&Type>,
    ) -> Type {
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
}
