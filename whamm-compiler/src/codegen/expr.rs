//! Expressions: lowering an expression to code that leaves its value on
//! the stack (converted to a wanted type where asked).

use super::fn_cx::{FnCx, Label};
use super::fold::Const;
use super::repr::*;
use super::Cg;
use crate::ast::*;
use crate::diag::Diag;
use crate::types::Type;
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

impl Cg<'_> {
    pub(super) fn expr_to(&mut self, cx: &mut FnCx, e: &Expr, want: &Type) {
        let t = self.ty(e);
        // Literals take the wanted type directly.
        if let (ExprKind::Int(_) | ExprKind::Float(_), true) = (&e.kind, want.is_numeric()) {
            if let Some(c) = self.fold(cx, e) {
                let c = match (c, want.is_float()) {
                    (Const::Int(v), true) => Const::Float(v as f64),
                    (c, _) => c,
                };
                self.push_const(cx, &c, want);
                return;
            }
        }
        self.expr(cx, e);
        self.convert(cx, &t, want);
    }

    pub(super) fn push_const(&mut self, cx: &mut FnCx, c: &Const, t: &Type) {
        match c {
            Const::Int(v) => match vt(t) {
                VT::I64 => cx.e(I::I64Const(*v as i64)),
                VT::F32 => cx.e(I::F32Const(*v as f32)),
                VT::F64 => cx.e(I::F64Const(*v as f64)),
                _ => cx.e(I::I32Const(*v as i64 as i32)),
            },
            Const::Float(f) => match vt(t) {
                VT::F32 => cx.e(I::F32Const(*f as f32)),
                VT::F64 => cx.e(I::F64Const(*f)),
                VT::I64 => cx.e(I::I64Const(*f as i64)),
                _ => cx.e(I::I32Const(*f as i32)),
            },
            Const::Bool(b) => cx.e(I::I32Const(*b as i32)),
            Const::Str(s) => {
                let a = self.m.string(s);
                cx.e(I::I32Const(a as i32));
            }
        }
    }

    pub(super) fn expr(&mut self, cx: &mut FnCx, e: &Expr) {
        let t = self.ty(e);
        if !matches!(e.kind, ExprKind::Int(_) | ExprKind::Float(_)) {
            if let Some(c) = self.fold(cx, e) {
                return self.push_const(cx, &c, &t);
            }
        }
        match &e.kind {
            ExprKind::Error => cx.e(I::Unreachable),
            ExprKind::Int(_) | ExprKind::Float(_) => {
                let c = self.fold(cx, e).unwrap_or(Const::Int(0));
                self.push_const(cx, &c, &t);
            }
            ExprKind::Bool(b) => cx.e(I::I32Const(*b as i32)),
            ExprKind::Str(s) => {
                let a = self.m.string(s);
                cx.e(I::I32Const(a as i32));
            }
            ExprKind::Var(n) => self.var_value(cx, n, &t, e),
            ExprKind::Unary(op, a) => self.unary(cx, *op, a, &t),
            ExprKind::Binary(op, a, b) => self.binary(cx, *op, a, b, &t),
            ExprKind::Ternary(c, a, b) => self.ternary(cx, c, a, b, &t),
            ExprKind::Cast(a, to) => {
                let from = self.ty(a);
                self.expr(cx, a);
                self.convert(cx, &from, &to.ty);
            }
            ExprKind::Call { func, args } => self.call(cx, func, args),
            ExprKind::Method { recv, name, args } => self.method(cx, recv, name, args),
            ExprKind::Static(inner) => match cx.statics.get(&(e.span.lo, e.span.hi)).cloned() {
                // In a probe body: computed at match time into the site record.
                Some(v) => self.load(cx, &v.ty, &v.loc),
                // In a static predicate or an allocator (match time), and
                // outside probes: called where it stands.
                None => self.expr(cx, inner),
            },
            ExprKind::Index(base, key) => self.index(cx, e, base, key),
            ExprKind::Field(base, idx, _) => self.field(cx, base, *idx),
            ExprKind::Tuple(items) => {
                let Type::Tuple(ts) = &t else { return };
                for (i, it) in items.iter().zip(ts) {
                    self.expr_to(cx, i, it);
                }
            }
        }
    }

    /// A variable: local (or per-site), bound, or global.
    fn var_value(&mut self, cx: &mut FnCx, n: &str, t: &Type, e: &Expr) {
        if let Some(i) = cx.forward.iter().rposition(|(f, _)| f == n) {
            // (Taken out while it is emitted; its address stays.)
            let (f, fwd) = cx.forward.remove(i);
            self.expr_to(cx, &fwd, t);
            cx.forward.insert(i, (f, fwd));
            return;
        }
        if let Some(v) = cx.lookup(n) {
            return self.load(cx, &v.ty, &v.loc);
        }
        if let Some(b) = cx.bound.get(n).cloned() {
            return self.bound(cx, &b, t);
        }
        if let Some(v) = self.globals.get(n).cloned() {
            return self.load(cx, &v.ty, &v.loc);
        }
        self.err(Diag::error(
            format!("internal compiler error: unbound `{n}`"),
            e.span,
        ));
        cx.e(I::Unreachable);
    }

    fn unary(&mut self, cx: &mut FnCx, op: UnOp, a: &Expr, t: &Type) {
        match op {
            UnOp::Not => {
                self.expr_to(cx, a, &Type::Bool);
                cx.e(I::I32Eqz);
            }
            UnOp::BitNot => {
                self.expr_to(cx, a, t);
                if vt(t) == VT::I64 {
                    cx.e(I::I64Const(-1));
                    cx.e(I::I64Xor);
                } else {
                    cx.e(I::I32Const(-1));
                    cx.e(I::I32Xor);
                    self.normalize(cx, t);
                }
            }
            UnOp::Neg => match vt(t) {
                VT::F32 => {
                    self.expr_to(cx, a, t);
                    cx.e(I::F32Neg)
                }
                VT::F64 => {
                    self.expr_to(cx, a, t);
                    cx.e(I::F64Neg)
                }
                VT::I64 => {
                    cx.e(I::I64Const(0));
                    self.expr_to(cx, a, t);
                    cx.e(I::I64Sub)
                }
                _ => {
                    cx.e(I::I32Const(0));
                    self.expr_to(cx, a, t);
                    cx.e(I::I32Sub);
                    self.normalize(cx, t);
                }
            },
        }
    }

    fn ternary(&mut self, cx: &mut FnCx, c: &Expr, a: &Expr, b: &Expr, t: &Type) {
        self.expr_to(cx, c, &Type::Bool);
        let bt = self.block_type(t);
        cx.e(I::If(bt));
        cx.labels.push(Label::Other);
        self.expr_to(cx, a, t);
        cx.e(I::Else);
        self.expr_to(cx, b, t);
        cx.labels.pop();
        cx.e(I::End);
    }

    /// A call of a user function, or of the builtin `print`/`println`.
    fn call(&mut self, cx: &mut FnCx, func: &Ident, args: &[Expr]) {
        if (func.name == "print" || func.name == "println") && !self.fns.contains_key(&func.name) {
            return self.print(cx, args, func.name == "println");
        }
        if crate::check::MEMORY_FNS.contains(&func.name.as_str())
            && !self.fns.contains_key(&func.name)
        {
            return self.memory_call(cx, func, args);
        }
        if func.name == "rdtsc" && !self.fns.contains_key(&func.name) {
            if let Some(idx) = self.rdtsc {
                cx.e(I::Call(idx));
            }
            return;
        }
        let Some(idx) = self.fns.get(&func.name).copied() else {
            self.err(Diag::error(
                format!("internal compiler error: unknown function `{}`", func.name),
                func.span,
            ));
            return;
        };
        let (ps, _) = self.fn_sigs[&func.name].clone();
        for (a, p) in args.iter().zip(&ps) {
            self.expr_to(cx, a, p);
        }
        cx.e(I::Call(idx));
    }

    /// `lib.f(args)` (a monitor library call) or a string method.
    fn method(&mut self, cx: &mut FnCx, recv: &Expr, name: &Ident, args: &[Expr]) {
        if let ExprKind::Var(lib) = &recv.kind {
            if self.libraries.contains(lib) && self.var(cx, lib).is_none() {
                if Cg::builtin_core(&self.opts, lib) {
                    return self.core_call(cx, name, args);
                }
                let Some(idx) = self.libs.get(&(lib.clone(), name.name.clone())).copied() else {
                    return;
                };
                for a in args {
                    self.expr(cx, a);
                }
                cx.e(I::Call(idx));
                return;
            }
        }
        self.expr_to(cx, recv, &Type::Str);
        for a in args {
            self.expr_to(cx, a, &Type::Str);
        }
        let f = match name.name.as_str() {
            "len" => "str_len",
            "addr" => "str_addr",
            "starts_with" => "str_starts",
            "ends_with" => "str_ends",
            _ => "str_contains",
        };
        cx.e(I::Call(self.m.rt(f)));
    }

    /// Whether `lib` is whamm's core library provided by the monitor itself.
    pub(super) fn builtin_core(opts: &super::Options, lib: &str) -> bool {
        lib == crate::libs::CORE && !opts.libs.contains_key(lib)
    }

    /// A call of the built-in `whamm_core` (docs/probe-language.md#libraries):
    /// its allocator is the monitor's heap, its output the engine's stdout.
    fn core_call(&mut self, cx: &mut FnCx, name: &Ident, args: &[Expr]) {
        let sig = crate::libs::core_library();
        let Some(f) = sig.get(&name.name) else {
            return;
        };
        if name.name == "print_map_as_csv" {
            let n = match args.first().and_then(|a| self.fold(cx, a)) {
                Some(Const::Int(n)) => n,
                _ => {
                    self.err(Diag::error(
                        "`whamm_core.print_map_as_csv` needs a constant map id",
                        args.first().map_or(name.span, |a| a.span),
                    ));
                    return;
                }
            };
            return self.print_map_as_csv(cx, n, name.span);
        }
        for (a, p) in args.iter().zip(&f.params) {
            self.expr_to(cx, a, p);
        }
        match name.name.as_str() {
            "mem_alloc" => cx.e(I::Call(self.m.rt("alloc"))),
            "mem_free" => cx.e(I::Drop),
            "puts" => cx.e(I::Call(self.m.rt("puts"))),
            _ => cx.e(I::Call(self.m.rt("putc"))),
        }
    }

    /// `whamm_core.print_map_as_csv(N)`: the N-th map global of the script
    /// (in declaration order), as whamm prints it: a header naming the key
    /// and value types, then one `key, value` line per entry, by key.
    fn print_map_as_csv(&mut self, cx: &mut FnCx, n: i128, span: crate::span::Span) {
        let maps: Vec<(Type, Loc)> = self
            .global_order
            .iter()
            .filter_map(|g| self.globals.get(g))
            .filter(|v| matches!(v.ty, Type::Map(..)))
            .map(|v| (v.ty.clone(), v.loc.clone()))
            .collect();
        let Some((ty, loc)) = usize::try_from(n).ok().and_then(|i| maps.get(i).cloned()) else {
            self.err(Diag::error(
                format!(
                    "no map with id {n}: the script declares {} global map(s)",
                    maps.len()
                ),
                span,
            ));
            return;
        };
        let Type::Map(kt, vt) = &ty else { return };
        fn core_name(t: &Type) -> String {
            match t {
                Type::Tuple(ts) => format!(
                    "({})",
                    ts.iter().map(core_name).collect::<Vec<_>>().join(",")
                ),
                Type::Bool => "bool".into(),
                Type::Str => "string".into(),
                Type::Map(..) => "map".into(),
                t => wasm_type_name(t),
            }
        }
        self.puts_const(cx, &format!("== map{n} CSV FLUSH ==\n"));
        // an empty map: `empty map` instead of the header and the lines
        self.load(cx, &ty, &loc);
        cx.e(I::Call(self.m.rt("map_count")));
        cx.e(I::I32Eqz);
        cx.e(I::If(BlockType::Empty));
        self.puts_const(cx, "empty map\n");
        cx.e(I::Else);
        self.puts_const(
            cx,
            &format!("key ({}), val ({})\n", core_name(kt), core_name(vt)),
        );
        cx.e(I::End);
        self.load(cx, &ty, &loc);
        let f = self.print_map_csv_fn(kt, vt);
        cx.e(I::Call(f));
    }

    /// `m[k]`: the entry's value, or the zero value when absent.
    fn index(&mut self, cx: &mut FnCx, e: &Expr, base: &Expr, key: &Expr) {
        let Type::Map(k, v) = self.ty(base) else {
            self.err(Diag::error(
                "internal compiler error: index of a non-map",
                e.span,
            ));
            return;
        };
        self.expr(cx, base);
        self.key_to_scratch(cx, key, &k);
        cx.e(I::I32Const(self.scratch as i32));
        cx.e(I::Call(self.m.rt("map_find")));
        let p = cx.local(VT::I32);
        cx.e(I::LocalTee(p));
        cx.e(I::I32Const(self.zero as i32));
        cx.e(I::LocalGet(p));
        cx.e(I::Select);
        cx.e(I::LocalSet(p));
        self.load(cx, &v, &Loc::Mem(Base::Local(p), 0));
    }

    /// `t.N`: one field of a tuple.
    fn field(&mut self, cx: &mut FnCx, base: &Expr, idx: u32) {
        let bt = self.ty(base);
        let (start, ft) = field_range(&bt, idx);
        // A variable (or field of one): read just the leaves.
        if let Some(loc) = self.pure_place(cx, base) {
            return self.load(cx, &ft, &loc.sub(&bt, start, nleaves(&ft)));
        }
        self.expr(cx, base);
        let tmp = cx.spill(&vts(&bt));
        for l in &tmp[start as usize..(start + nleaves(&ft)) as usize] {
            cx.e(I::LocalGet(*l));
        }
    }

    pub(super) fn block_type(&mut self, t: &Type) -> BlockType {
        let v = vts(t);
        match v.as_slice() {
            [] => BlockType::Empty,
            [x] => BlockType::Result(*x),
            _ => BlockType::FunctionType(self.m.ty(&[], &v)),
        }
    }

    pub(super) fn one(&mut self, cx: &mut FnCx, t: &Type) {
        match vt(t) {
            VT::I64 => cx.e(I::I64Const(1)),
            VT::F32 => cx.e(I::F32Const(1.0)),
            VT::F64 => cx.e(I::F64Const(1.0)),
            _ => cx.e(I::I32Const(1)),
        }
    }
}
