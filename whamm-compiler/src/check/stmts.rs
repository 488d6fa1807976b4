//! Statements: blocks, declarations, assignments and their targets.

use super::*;

impl Checker<'_> {
    pub(super) fn block_stmts(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    pub(super) fn block(&mut self, b: &Block) {
        self.scopes.push(HashMap::new());
        self.block_stmts(b);
        self.scopes.pop();
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
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
            StmtKind::IncDec { target, inc } => self.inc_dec(target, *inc),
            StmtKind::Expr(e) => self.expr_stmt(e),
            StmtKind::Return(e) => self.return_stmt(s, e.as_ref()),
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
                self.loop_body(body);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.for_stmt(init.as_deref(), cond.as_ref(), step.as_deref(), body),
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

    /// `target++` / `target--`: the target must be numeric.
    fn inc_dec(&mut self, target: &Expr, inc: bool) {
        let Some(t) = self.lvalue(target) else {
            return;
        };
        if !t.is_numeric() && !t.is_error() {
            let op = if inc { "++" } else { "--" };
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

    /// An expression statement: warns when its value is computed for nothing.
    fn expr_stmt(&mut self, e: &Expr) {
        self.discarded = Some(match &e.kind {
            ExprKind::Static(inner) => inner.span,
            _ => e.span,
        });
        let t = self.expr(e, None);
        self.discarded = None;
        if !matches!(
            e.kind,
            ExprKind::Call { .. } | ExprKind::Method { .. } | ExprKind::Static(_) | ExprKind::Error
        ) && !t.is_error()
        {
            self.err(
                Diag::warning("expression statement has no effect", e.span)
                    .with_label("this value is computed and discarded"),
            );
        }
    }

    /// `return [e];`: a function returns a value of its type, a probe none.
    fn return_stmt(&mut self, s: &Stmt, e: Option<&Expr>) {
        match (self.ctx, self.ret.clone()) {
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
        }
    }

    /// `for (init; cond; step) body`: `init` is scoped to the loop; the step
    /// cannot declare.
    fn for_stmt(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Stmt>,
        body: &Block,
    ) {
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
        self.loop_body(body);
        self.scopes.pop();
    }

    /// A loop's body, where `break` and `continue` are allowed.
    fn loop_body(&mut self, body: &Block) {
        self.loop_depth += 1;
        self.block(body);
        self.loop_depth -= 1;
    }

    pub(super) fn decl(
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
    pub(super) fn lvalue(&mut self, e: &Expr) -> Option<Type> {
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

    pub(super) fn field_type(&mut self, bt: &Type, idx: u32, span: Span) -> Option<Type> {
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
}

pub(super) fn block_returns(b: &Block) -> bool {
    b.stmts.iter().any(stmt_returns)
}

pub(super) fn stmt_returns(s: &Stmt) -> bool {
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

pub(super) fn contains_break(b: &Block) -> bool {
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
