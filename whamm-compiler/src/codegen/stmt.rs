//! Statements: blocks, declarations, assignments, control flow.

use super::fn_cx::{FnCx, Label};
use super::fold::Const;
use super::repr::{push_base, store_leaf, vts, zero_ins, Loc, Var};
use super::Cg;
use crate::ast::*;
use crate::diag::Diag;
use crate::types::Type;
use std::collections::HashMap;
use wasm_encoder::{BlockType, Instruction as I};

impl Cg<'_> {
    pub(super) fn block(&mut self, cx: &mut FnCx, b: &Block) {
        cx.scopes.push(HashMap::new());
        self.stmts(cx, &b.stmts, false);
        cx.scopes.pop();
    }

    /// The statements of a block in order (`probe_body`: a probe's, whose
    /// report and per-site declarations were laid out already), with its
    /// flags forwarded where possible (`forward.rs`).
    pub(super) fn stmts(&mut self, cx: &mut FnCx, stmts: &[Stmt], probe_body: bool) {
        let forwarded = cx.forward.len();
        for (i, s) in stmts.iter().enumerate() {
            if let StmtKind::Decl { decorators, .. } = &s.kind {
                if probe_body && !decorators.is_empty() {
                    continue;
                }
            }
            if let Some((name, e)) = self.forwardable(cx, stmts, i) {
                let copy = self.typed_copy(e);
                cx.forward.push((name.to_string(), copy));
                continue;
            }
            self.stmt(cx, s);
        }
        for (_, copy) in cx.forward.split_off(forwarded) {
            self.drop_copy(&copy);
        }
    }

    pub(super) fn stmt(&mut self, cx: &mut FnCx, s: &Stmt) {
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
                if let Some(flag) = self.counted_flag(cx, target, value, &t) {
                    self.expr_to(cx, flag, &Type::Bool);
                    cx.e(I::If(BlockType::Empty));
                    cx.labels.push(Label::Other);
                    self.inc_dec(cx, target, true);
                    cx.labels.pop();
                    cx.e(I::End);
                    return;
                }
                if let Some((b, off, lt)) = self.mem_leaf(cx, target, &t) {
                    push_base(cx, b);
                    self.expr_to(cx, value, &t);
                    store_leaf(cx, &lt, off);
                    return;
                }
                self.expr_to(cx, value, &t);
                let tmp = cx.spill(&vts(&t));
                let Some((_, loc)) = self.place(cx, target) else {
                    return;
                };
                self.store_locals(cx, &t, &loc, &tmp);
            }
            StmtKind::IncDec { target, inc } => self.inc_dec(cx, target, *inc),
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

    /// `target++` / `target--`.
    pub(super) fn inc_dec(&mut self, cx: &mut FnCx, target: &Expr, inc: bool) {
        let Some((t, loc)) = self.place(cx, target) else {
            return;
        };
        let direct = self.mem_leaf(cx, target, &t);
        if let Some((b, _, _)) = &direct {
            push_base(cx, *b);
        }
        self.load(cx, &t, &loc);
        self.one(cx, &t);
        let op = if inc { BinOp::Add } else { BinOp::Sub };
        self.arith(cx, op, &t);
        match direct {
            Some((_, off, lt)) => store_leaf(cx, &lt, off),
            None => self.store_from_stack(cx, &t, &loc),
        }
    }

    pub(super) fn if_chain(
        &mut self,
        cx: &mut FnCx,
        branches: &[(Expr, Block)],
        else_block: Option<&Block>,
    ) {
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

    pub(super) fn loop_(
        &mut self,
        cx: &mut FnCx,
        cond: Option<&Expr>,
        step: Option<&Stmt>,
        body: &Block,
    ) {
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
}
