//! Printing: `print`/`println` with `{}` placeholders, and the printers of
//! every value type in the report format (tuples, and maps sorted by key).

use super::fn_cx::FnCx;
use super::repr::*;
use super::Cg;
use crate::ast::*;
use crate::types::Type;
use crate::wasm;
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

impl Cg<'_> {
    pub(super) fn puts_const(&mut self, cx: &mut FnCx, s: &str) {
        if s.is_empty() {
            return;
        }
        if s.len() == 1 {
            cx.e(I::I32Const(s.as_bytes()[0] as i32));
            cx.e(I::Call(self.m.rt("putc")));
            return;
        }
        let a = self.m.string(s);
        cx.e(I::I32Const(a as i32 + 4));
        cx.e(I::I32Const(s.len() as i32));
        cx.e(I::Call(self.m.rt("puts")));
    }

    pub(super) fn print(&mut self, cx: &mut FnCx, args: &[Expr], newline: bool) {
        match args.first() {
            Some(Expr {
                kind: ExprKind::Str(fmt),
                ..
            }) => {
                let mut lit = String::new();
                let chars: Vec<char> = fmt.chars().collect();
                let mut i = 0;
                let mut argi = 1;
                while i < chars.len() {
                    match (chars[i], chars.get(i + 1)) {
                        ('{', Some('{')) | ('}', Some('}')) => {
                            lit.push(chars[i]);
                            i += 2;
                        }
                        ('{', Some('}')) => {
                            self.puts_const(cx, &lit);
                            lit.clear();
                            if let Some(a) = args.get(argi) {
                                let t = self.ty(a);
                                self.expr(cx, a);
                                self.print_value(cx, &t, false);
                            }
                            argi += 1;
                            i += 2;
                        }
                        (c, _) => {
                            lit.push(c);
                            i += 1;
                        }
                    }
                }
                if newline {
                    lit.push('\n');
                }
                self.puts_const(cx, &lit);
            }
            Some(a) => {
                let t = self.ty(a);
                self.expr(cx, a);
                self.print_value(cx, &t, false);
                if newline {
                    self.puts_const(cx, "\n");
                }
            }
            None => {
                if newline {
                    self.puts_const(cx, "\n");
                }
            }
        }
    }

    /// Print the value of type t on the stack (docs/probe-language.md#report-format).
    pub(super) fn print_value(&mut self, cx: &mut FnCx, t: &Type, key_style: bool) {
        match t {
            Type::U8 | Type::U16 | Type::U32 => {
                cx.e(I::I64ExtendI32U);
                cx.e(I::Call(self.m.rt("print_u64")));
            }
            Type::I8 | Type::I16 | Type::I32 => {
                cx.e(I::I64ExtendI32S);
                cx.e(I::Call(self.m.rt("print_i64")));
            }
            Type::U64 => cx.e(I::Call(self.m.rt("print_u64"))),
            Type::I64 => cx.e(I::Call(self.m.rt("print_i64"))),
            Type::F32 => cx.e(I::Call(self.m.rt("print_f32"))),
            Type::F64 => cx.e(I::Call(self.m.rt("print_f64"))),
            Type::Bool => cx.e(I::Call(self.m.rt("print_bool"))),
            Type::Str => cx.e(I::Call(self.m.rt("str_print"))),
            // `0x` and 32 hex digits: the vector as an unsigned 128-bit
            // little-endian number (lane 0 in the last digits)
            Type::V128 => {
                let v = cx.local(VT::V128);
                cx.e(I::LocalSet(v));
                self.puts_const(cx, "0x");
                for lane in [1, 0] {
                    cx.e(I::LocalGet(v));
                    cx.e(I::I64x2ExtractLane(lane));
                    cx.e(I::Call(self.m.rt("print_hex64")));
                }
            }
            Type::Tuple(_) | Type::Map(..) => {
                let f = self.print_fn(t, key_style);
                cx.e(I::Call(f));
            }
            _ => {
                for _ in vts(t) {
                    cx.e(I::Drop);
                }
            }
        }
    }

    /// The printer function of a tuple or map type (made once per type).
    fn print_fn(&mut self, t: &Type, key_style: bool) -> u32 {
        if let Some(f) = self.print_fns.get(&(t.clone(), key_style)) {
            return *f;
        }
        let params = vts(t);
        let f = self.m.declare(&params, &[]);
        self.print_fns.insert((t.clone(), key_style), f);
        let mut cx = FnCx::new(&params, None);
        match t {
            Type::Tuple(ts) => self.print_tuple(&mut cx, ts, key_style),
            Type::Map(kt, v) => self.print_map(&mut cx, kt, v, false),
            _ => {}
        }
        self.m.define(f, cx.finish());
        f
    }

    /// `(a; b)`, or `(a,b)` in a map key; the leaves are the parameters.
    fn print_tuple(&mut self, cx: &mut FnCx, ts: &[Type], key_style: bool) {
        self.puts_const(cx, "(");
        let mut k = 0u32;
        for (i, et) in ts.iter().enumerate() {
            if i > 0 {
                self.puts_const(cx, if key_style { "," } else { "; " });
            }
            for j in 0..nleaves(et) {
                cx.e(I::LocalGet(k + j));
            }
            k += nleaves(et);
            self.print_value(cx, et, key_style);
        }
        self.puts_const(cx, ")");
    }

    /// The printer of a map as `whamm_core.print_map_as_csv` prints it.
    pub(super) fn print_map_csv_fn(&mut self, kt: &Type, v: &Type) -> u32 {
        let f = self.m.declare(&[VT::I32], &[]);
        let mut cx = FnCx::new(&[VT::I32], None);
        // whamm's core library keeps 32- and 64-bit integers signed: its CSV
        // prints (and orders) a u32 -1 as -1.
        let (kt, v) = (signed_view(kt), signed_view(v));
        self.print_map(&mut cx, &kt, &v, true);
        self.m.define(f, cx.finish());
        f
    }

    /// The entries sorted by key (key, arrow, value; separated by `;`), or
    /// the empty-map text; the map is parameter 0. `csv`: one `key, value`
    /// line per entry, nothing for an empty map.
    fn print_map(&mut self, cx: &mut FnCx, kt: &Type, v: &Type, csv: bool) {
        let (saved, arr, n, i, e) = (
            cx.local(VT::I32),
            cx.local(VT::I32),
            cx.local(VT::I32),
            cx.local(VT::I32),
            cx.local(VT::I32),
        );
        cx.e(I::GlobalGet(0));
        cx.e(I::LocalSet(saved));
        cx.e(I::LocalGet(0));
        cx.e(I::Call(self.m.rt("map_count")));
        cx.e(I::LocalTee(n));
        cx.e(I::I32Eqz);
        cx.e(I::If(BlockType::Empty));
        if !csv {
            cx.e(I::I32Const(wasm::RT_EMPTY_MAP.0 as i32));
            cx.e(I::I32Const(wasm::RT_EMPTY_MAP.1 as i32));
            cx.e(I::Call(self.m.rt("puts")));
        }
        cx.e(I::Return);
        cx.e(I::End);
        cx.e(I::LocalGet(0));
        cx.e(I::Call(self.m.rt("map_entries")));
        cx.e(I::LocalSet(arr));
        let cmp = self.cmp_fn(kt);
        let slot = self.m.table_slot(cmp);
        cx.e(I::LocalGet(arr));
        cx.e(I::LocalGet(n));
        cx.e(I::I32Const(slot as i32));
        cx.e(I::Call(self.m.rt("sort")));
        cx.e(I::Block(BlockType::Empty));
        cx.e(I::Loop(BlockType::Empty));
        cx.e(I::LocalGet(i));
        cx.e(I::LocalGet(n));
        cx.e(I::I32GeU);
        cx.e(I::BrIf(1));
        if !csv {
            cx.e(I::LocalGet(i));
            cx.e(I::If(BlockType::Empty));
            self.puts_const(cx, ";");
            cx.e(I::End);
        }
        cx.e(I::LocalGet(arr));
        cx.e(I::LocalGet(i));
        cx.e(I::I32Const(2));
        cx.e(I::I32Shl);
        cx.e(I::I32Add);
        cx.e(I::I32Load(mem8(0, 2)));
        cx.e(I::LocalSet(e));
        self.load(cx, kt, &Loc::Mem(Base::Local(e), 8));
        self.print_value(cx, kt, true);
        if csv {
            self.puts_const(cx, ", ");
        } else {
            cx.e(I::I32Const(wasm::RT_ARROW.0 as i32));
            cx.e(I::I32Const(wasm::RT_ARROW.1 as i32));
            cx.e(I::Call(self.m.rt("puts")));
        }
        self.load(cx, v, &Loc::Mem(Base::Local(e), 8 + mem_size(kt)));
        self.print_value(cx, v, false);
        if csv {
            self.puts_const(cx, "\n");
        }
        cx.e(I::LocalGet(i));
        cx.e(I::I32Const(1));
        cx.e(I::I32Add);
        cx.e(I::LocalSet(i));
        cx.e(I::Br(0));
        cx.e(I::End);
        cx.e(I::End);
        cx.e(I::LocalGet(saved));
        cx.e(I::GlobalSet(0));
    }

    /// Comparator of two map entries by key (for sorted printing).
    fn cmp_fn(&mut self, kt: &Type) -> u32 {
        if let Some(f) = self.cmp_fns.get(kt) {
            return *f;
        }
        let f = self.m.declare(&[VT::I32, VT::I32], &[VT::I32]);
        self.cmp_fns.insert(kt.clone(), f);
        let mut cx = FnCx::new(&[VT::I32, VT::I32], None);
        // A v128 orders as the unsigned 128-bit number it prints as: its
        // high 64 bits first, then the low ones.
        let mut cmp_leaves = vec![];
        for (lt, o) in leaves(kt).iter().zip(leaf_offsets(kt)) {
            if *lt == Type::V128 {
                cmp_leaves.extend([(Type::U64, o + 8), (Type::U64, o)]);
            } else {
                cmp_leaves.push((lt.clone(), o));
            }
        }
        for (lt, o) in &cmp_leaves {
            let off = 8 + o;
            if *lt == Type::Str {
                let r = cx.local(VT::I32);
                cx.e(I::LocalGet(0));
                load_leaf(&mut cx, lt, off);
                cx.e(I::LocalGet(1));
                load_leaf(&mut cx, lt, off);
                cx.e(I::Call(self.m.rt("str_cmp")));
                cx.e(I::LocalTee(r));
                cx.e(I::If(BlockType::Empty));
                cx.e(I::LocalGet(r));
                cx.e(I::Return);
                cx.e(I::End);
                continue;
            }
            for (op, res) in [(BinOp::Lt, -1), (BinOp::Gt, 1)] {
                cx.e(I::LocalGet(0));
                load_leaf(&mut cx, lt, off);
                cx.e(I::LocalGet(1));
                load_leaf(&mut cx, lt, off);
                let ct = if *lt == Type::Bool {
                    Type::U32
                } else {
                    lt.clone()
                };
                self.arith(&mut cx, op, &ct);
                cx.e(I::If(BlockType::Empty));
                cx.e(I::I32Const(res));
                cx.e(I::Return);
                cx.e(I::End);
            }
        }
        cx.e(I::I32Const(0));
        self.m.define(f, cx.finish());
        f
    }
}

/// `t` with its unsigned 32- and 64-bit integers read as signed (the same
/// representation).
fn signed_view(t: &Type) -> Type {
    match t {
        Type::U32 => Type::I32,
        Type::U64 => Type::I64,
        Type::Tuple(ts) => Type::Tuple(ts.iter().map(signed_view).collect()),
        t => t.clone(),
    }
}
