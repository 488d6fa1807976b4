//! Places: variables, tuple fields and map entries that can be read and
//! assigned, and moving values between the stack and a place.

use super::fn_cx::FnCx;
use super::repr::*;
use super::{Cg, SCRATCH_SIZE};
use crate::ast::*;
use crate::diag::Diag;
use crate::types::Type;
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

impl Cg<'_> {
    pub(super) fn var(&self, cx: &FnCx, n: &str) -> Option<Var> {
        cx.lookup(n).or_else(|| self.globals.get(n).cloned())
    }

    /// The type of an assignable place (without emitting code).
    pub(super) fn place_type(&mut self, cx: &FnCx, e: &Expr) -> Option<(Type, ())> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| (v.ty, ())),
            ExprKind::Index(b, _) => match self.place_type(cx, b)?.0 {
                Type::Map(_, v) => Some((*v, ())),
                _ => None,
            },
            ExprKind::Field(b, i, _) => {
                let bt = self.place_type(cx, b)?.0;
                Some((field_range(&bt, *i).1, ()))
            }
            _ => None,
        }
        .or_else(|| {
            self.err(Diag::error(
                "internal compiler error: not an assignable place",
                e.span,
            ));
            None
        })
    }

    /// Emit code that resolves a place; for `m[k]` this inserts k.
    pub(super) fn place(&mut self, cx: &mut FnCx, e: &Expr) -> Option<(Type, Loc)> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| (v.ty, v.loc)),
            ExprKind::Field(b, i, _) => {
                let (bt, loc) = self.place(cx, b)?;
                let (start, ft) = field_range(&bt, *i);
                Some((ft.clone(), loc.sub(&bt, start, nleaves(&ft))))
            }
            ExprKind::Index(b, key) => {
                let (mt, mloc) = self.place(cx, b)?;
                let Type::Map(k, v) = mt else { return None };
                // get or create the map
                let m = cx.local(VT::I32);
                self.load(cx, &Type::Map(k.clone(), v.clone()), &mloc);
                cx.e(I::LocalTee(m));
                cx.e(I::I32Eqz);
                cx.e(I::If(BlockType::Empty));
                cx.e(I::I32Const(mem_size(&k) as i32));
                cx.e(I::I32Const(mem_size(&v).max(8) as i32));
                cx.e(I::Call(self.m.rt("map_new")));
                cx.e(I::LocalSet(m));
                cx.e(I::LocalGet(m));
                self.store_from_stack(cx, &Type::I32, &mloc);
                cx.e(I::End);
                self.key_to_scratch(cx, key, &k);
                cx.e(I::LocalGet(m));
                cx.e(I::I32Const(self.scratch as i32));
                cx.e(I::Call(self.m.rt("map_insert")));
                let vp = cx.local(VT::I32);
                cx.e(I::LocalSet(vp));
                Some((*v, Loc::Mem(Base::Local(vp), 0)))
            }
            _ => {
                self.err(Diag::error(
                    "internal compiler error: not an assignable place",
                    e.span,
                ));
                None
            }
        }
    }

    pub(super) fn key_to_scratch(&mut self, cx: &mut FnCx, key: &Expr, kt: &Type) {
        if mem_size(kt) > SCRATCH_SIZE {
            self.err(Diag::error("map key type is too large", key.span));
            return;
        }
        self.expr_to(cx, key, kt);
        let ls = leaves(kt);
        let tmp = cx.spill(&vts(kt));
        for ((l, t), off) in tmp.iter().zip(&ls).zip(leaf_offsets(kt)) {
            cx.e(I::I32Const(self.scratch as i32));
            cx.e(I::LocalGet(*l));
            if *t == Type::Str {
                cx.e(I::Call(self.m.rt("intern")));
            }
            store_leaf(cx, t, off);
        }
    }

    /// Push the value of a place.
    pub(super) fn load(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc) {
        match loc {
            Loc::Locals(v) => v.iter().for_each(|l| cx.e(I::LocalGet(*l))),
            Loc::Globals(v) => v.iter().for_each(|g| cx.e(I::GlobalGet(*g))),
            Loc::Mem(b, off) => {
                for (lt, o) in leaves(t).iter().zip(leaf_offsets(t)) {
                    push_base(cx, *b);
                    load_leaf(cx, lt, off + o);
                }
            }
        }
    }

    /// Store the value on the stack into a place.
    pub(super) fn store_from_stack(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc) {
        match loc {
            Loc::Locals(v) => v.iter().rev().for_each(|l| cx.e(I::LocalSet(*l))),
            Loc::Globals(v) => v.iter().rev().for_each(|g| cx.e(I::GlobalSet(*g))),
            Loc::Mem(..) => {
                let tmp = cx.spill(&vts(t));
                self.store_locals(cx, t, loc, &tmp);
            }
        }
    }

    pub(super) fn store_locals(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc, tmp: &[u32]) {
        match loc {
            Loc::Locals(v) => v.iter().zip(tmp).for_each(|(l, s)| {
                cx.e(I::LocalGet(*s));
                cx.e(I::LocalSet(*l));
            }),
            Loc::Globals(v) => v.iter().zip(tmp).for_each(|(g, s)| {
                cx.e(I::LocalGet(*s));
                cx.e(I::GlobalSet(*g));
            }),
            Loc::Mem(b, off) => {
                for ((lt, s), o) in leaves(t).iter().zip(tmp).zip(leaf_offsets(t)) {
                    push_base(cx, *b);
                    cx.e(I::LocalGet(*s));
                    store_leaf(cx, lt, off + o);
                }
            }
        }
    }

    /// Allocate the (possibly nested in tuples) maps of a variable.
    pub(super) fn init_maps(&mut self, cx: &mut FnCx, t: &Type, loc: &Loc) {
        for (i, lt) in leaves(t).iter().enumerate() {
            if let Type::Map(k, v) = lt {
                cx.e(I::I32Const(mem_size(k) as i32));
                cx.e(I::I32Const(mem_size(v).max(8) as i32));
                cx.e(I::Call(self.m.rt("map_new")));
                let sub = loc.sub(t, i as u32, 1);
                self.store_from_stack(cx, lt, &sub);
            }
        }
    }

    /// A place of type `t` that is one leaf in memory, reachable without side
    /// effects: its base, offset and leaf type. Its address can be pushed
    /// before the value is computed (nothing a value does moves it), and the
    /// value stored straight from the stack, with no spill local: a probe's
    /// `count++` or `x = x + v` then weaves and compiles smaller.
    pub(super) fn mem_leaf(&self, cx: &FnCx, e: &Expr, t: &Type) -> Option<(Base, u32, Type)> {
        let (_, Loc::Mem(b, off)) = self.var_place(cx, e)? else {
            return None;
        };
        let mut ls = leaves(t);
        (ls.len() == 1).then(|| (b, off, ls.remove(0)))
    }

    /// What [`Self::place`] finds for a variable or a field of one (with the
    /// variable's declared type), emitting nothing; None for anything else.
    fn var_place(&self, cx: &FnCx, e: &Expr) -> Option<(Type, Loc)> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| (v.ty, v.loc)),
            ExprKind::Field(b, i, _) => {
                let (bt, loc) = self.var_place(cx, b)?;
                let (start, ft) = field_range(&bt, *i);
                Some((ft.clone(), loc.sub(&bt, start, nleaves(&ft))))
            }
            _ => None,
        }
    }

    /// A place reachable without side effects (variables and their fields).
    pub(super) fn pure_place(&self, cx: &FnCx, e: &Expr) -> Option<Loc> {
        match &e.kind {
            ExprKind::Var(n) => self.var(cx, n).map(|v| v.loc),
            ExprKind::Field(b, i, _) => {
                let loc = self.pure_place(cx, b)?;
                let bt = self.ty(b);
                let (start, ft) = field_range(&bt, *i);
                Some(loc.sub(&bt, start, nleaves(&ft)))
            }
            _ => None,
        }
    }
}
