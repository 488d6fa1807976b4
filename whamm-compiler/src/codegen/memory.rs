//! whamm's memory and string functions (checked in `check/memory.rs`):
//! each memory id is tested when the call runs (0, the monitor's own
//! memory, is the only one; another traps with a message), then the bytes
//! are read, written or copied in the monitor's memory.

use super::fn_cx::FnCx;
use super::Cg;
use crate::ast::{Expr, ExprKind, Ident};
use crate::check::is_monitor_memid;
use crate::diag::Diag;
use crate::types::Type;
use wasm_encoder::Instruction as I;
use wasm_encoder::ValType as VT;

/// The id `memid(LIB)` evaluates to for a library other than `whamm_core`
/// (any id but 0 traps where a memory id is checked).
const LIB_MEMID: i32 = 0x100;

/// `LIB` if `args` is the argument list `(LIB)` of a `memid` call naming a
/// library other than `whamm_core`.
fn lib_memid(args: &[Expr]) -> Option<String> {
    match args {
        [Expr {
            kind: ExprKind::Var(l),
            ..
        }] if l != crate::libs::CORE => Some(l.clone()),
        _ => None,
    }
}

/// Whether `e` is `memid(LIB)` for a library other than `whamm_core`.
fn memid_call_of_lib(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, args } if func.name == "memid" && lib_memid(args).is_some())
}

impl Cg<'_> {
    pub(super) fn memory_call(&mut self, cx: &mut FnCx, func: &Ident, args: &[Expr]) {
        match func.name.as_str() {
            "memid" if lib_memid(args).is_some() => {
                // Another library's memory: only `read_str` reads it (below);
                // anywhere else the id is not 0 and traps when used.
                cx.e(I::I32Const(LIB_MEMID));
            }
            "memid" => {
                if !Cg::builtin_core(&self.opts, crate::libs::CORE) {
                    self.err(Diag::error(
                        "`memid(whamm_core)` names the monitor's built-in core library; with `--lib whamm_core=...` its memory is not reachable",
                        func.span,
                    ));
                }
                cx.e(I::I32Const(0));
            }
            "read_str" if args.first().is_some_and(memid_call_of_lib) => {
                self.read_lib_str(cx, func, args);
            }
            "read_str" => {
                self.mem_id(cx, &args[0]);
                self.expr_to(cx, &args[1], &Type::I32);
                self.expr_to(cx, &args[2], &Type::U32);
                cx.e(I::Call(self.m.rt("str_from")));
            }
            "write_str" => {
                self.mem_id(cx, &args[0]);
                self.expr_to(cx, &args[1], &Type::I32);
                self.expr_to(cx, &args[2], &Type::Str);
                cx.e(I::Call(self.m.rt("str_write")));
            }
            "memcpy" if self.app_memory.is_some() && !is_monitor_memid(&args[0]) => {
                self.memcpy_from_app(cx, args);
            }
            "memcpy" if matches!(args[0].kind, ExprKind::Int(n) if n != 0) => {
                self.err(Diag::error(
                    "`memcpy` from the app's memory needs monitor ABI Part B (`wizeng:app`); not available with --portable",
                    func.span,
                ));
            }
            "memcpy" => {
                // (src_mem, src, dst_mem, dst, len) -> memory.copy(dst, src, len)
                self.mem_id(cx, &args[0]);
                let src = cx.local(wasm_encoder::ValType::I32);
                self.expr_to(cx, &args[1], &Type::U32);
                cx.e(I::LocalSet(src));
                self.mem_id(cx, &args[2]);
                self.expr_to(cx, &args[3], &Type::U32);
                cx.e(I::LocalGet(src));
                self.expr_to(cx, &args[4], &Type::U32);
                cx.e(I::MemoryCopy {
                    src_mem: 0,
                    dst_mem: 0,
                });
            }
            "dup_at" => self.dup_at(cx, func, args),
            "page_size" | "mem_size" | "active_data_start" | "active_data_len" => {
                self.app_query(cx, func, args)
            }
            _ => {
                // strcmp((ptr, len), s): the bytes equal the string's
                let pair = Type::Tuple(vec![Type::I32, Type::I32]);
                self.expr_to(cx, &args[0], &pair);
                self.expr_to(cx, &args[1], &Type::Str);
                cx.e(I::Call(self.m.rt("bytes_eq_str")));
            }
        }
    }

    /// `dup_at(mem, ptr, arg0, arg1, imm0, opname)` (desugar.rs added the
    /// last four): the bytes the instruction is about to write, written at
    /// `ptr` of the monitor's memory instead: those `memory.copy` reads
    /// from the app's memory 0 (from `arg1`, `arg0` bytes), `memory.fill`'s
    /// value `arg1` `arg0` times, those `memory.init` reads from data
    /// segment `imm0` (from `arg1`).
    fn dup_at(&mut self, cx: &mut FnCx, func: &Ident, args: &[Expr]) {
        let op = match self.fold(cx, &args[5]) {
            Some(super::fold::Const::Str(s)) => s,
            _ => String::new(),
        };
        let Some([mem_read, data_read, ..]) = self.app_memory else {
            self.err(Diag::error(
                "`dup_at` needs monitor ABI Part B (the app's memory); not available with --portable",
                func.span,
            ));
            return;
        };
        self.mem_id(cx, &args[0]);
        let (read, source) = match op.as_str() {
            "memory.copy" => (Some(mem_read), None),
            "memory.init" => (Some(data_read), Some(&args[4])),
            "memory.fill" => (None, None),
            _ => {
                self.err(Diag::error(
                    format!(
                        "`dup_at` applies to memory.copy, memory.fill and memory.init, not `{op}`"
                    ),
                    func.span,
                ));
                return;
            }
        };
        match read {
            Some(f) => {
                match source {
                    Some(seg) => self.expr_to(cx, seg, &Type::U32),
                    None => cx.e(I::I32Const(0)),
                }
                self.expr_to(cx, &args[3], &Type::I32);
                self.expr_to(cx, &args[1], &Type::U32);
                self.expr_to(cx, &args[2], &Type::I32);
                cx.e(I::Call(f));
                cx.e(I::Drop);
            }
            None => {
                self.expr_to(cx, &args[1], &Type::U32);
                self.expr_to(cx, &args[3], &Type::I32);
                self.expr_to(cx, &args[2], &Type::I32);
                cx.e(I::MemoryFill(0));
            }
        }
    }

    /// `page_size(mem)` (bytes per page), `mem_size(mem)` (pages),
    /// `active_data_start(mem)` and `active_data_len(mem)` (the union of
    /// the active data segments): memory 0 is the monitor's own (64 KiB
    /// pages; no app data), memory k ≥ 1 is the app's memory k - 1
    /// (`APP_MEMID` is 1), asked through `wizeng:app` (-1 if the app has no
    /// such memory).
    fn app_query(&mut self, cx: &mut FnCx, func: &Ident, args: &[Expr]) {
        let Some([_, _, pages, page_size, data_start, data_len]) = self.app_memory else {
            self.err(Diag::error(
                format!("`{}` needs monitor ABI Part B (the app's memory); not available with --portable", func.name),
                func.span,
            ));
            return;
        };
        let (import, own) = match func.name.as_str() {
            "mem_size" => (pages, I::MemorySize(0)),
            "page_size" => (page_size, I::I32Const(65536)),
            "active_data_start" => (data_start, I::I32Const(0)),
            _ => (data_len, I::I32Const(0)),
        };
        let id = cx.local(wasm_encoder::ValType::I32);
        self.expr_to(cx, &args[0], &Type::U32);
        cx.e(I::LocalTee(id));
        cx.e(I::If(wasm_encoder::BlockType::Result(
            wasm_encoder::ValType::I32,
        )));
        cx.e(I::LocalGet(id));
        cx.e(I::I32Const(1));
        cx.e(I::I32Sub);
        cx.e(I::Call(import));
        cx.e(I::Else);
        cx.e(own);
        cx.e(I::End);
    }

    /// `memcpy(src_mem, src, dst_mem, dst, len)` whose source may be an app
    /// memory: from memory 0 a `memory.copy`, from memory k ≥ 1 (the app's
    /// memory k - 1) `wizeng:app.memory_read`, which reads the app's initial
    /// contents while the monitor starts; a failed read traps. The
    /// destination must be memory 0.
    fn memcpy_from_app(&mut self, cx: &mut FnCx, args: &[Expr]) {
        let Some([mem_read, ..]) = self.app_memory else {
            return;
        };
        let [id, src, dst, len] = [(); 4].map(|_| cx.local(VT::I32));
        self.expr_to(cx, &args[0], &Type::U32);
        cx.e(I::LocalSet(id));
        self.expr_to(cx, &args[1], &Type::U32);
        cx.e(I::LocalSet(src));
        self.mem_id(cx, &args[2]);
        self.expr_to(cx, &args[3], &Type::U32);
        cx.e(I::LocalSet(dst));
        self.expr_to(cx, &args[4], &Type::U32);
        cx.e(I::LocalSet(len));
        cx.e(I::LocalGet(id));
        cx.e(I::If(wasm_encoder::BlockType::Empty));
        cx.e(I::LocalGet(id));
        cx.e(I::I32Const(1));
        cx.e(I::I32Sub);
        for l in [src, dst, len] {
            cx.e(I::LocalGet(l));
        }
        cx.e(I::Call(mem_read));
        cx.e(I::If(wasm_encoder::BlockType::Empty));
        let msg = "memcpy: the range is outside the app's memory";
        let p = self.m.string(msg);
        cx.e(I::I32Const(p as i32 + 4));
        cx.e(I::I32Const(msg.len() as i32));
        cx.e(I::Call(self.m.rt("fail")));
        cx.e(I::End);
        cx.e(I::Else);
        for l in [dst, src, len] {
            cx.e(I::LocalGet(l));
        }
        cx.e(I::MemoryCopy {
            src_mem: 0,
            dst_mem: 0,
        });
        cx.e(I::End);
    }

    /// `read_str(memid(LIB), ptr, len)`: a new string of the bytes
    /// `[ptr, ptr+len)` of the memory library `LIB` exports, copied through
    /// `wizeng:lib.memory_read` (an empty string if it fails).
    fn read_lib_str(&mut self, cx: &mut FnCx, func: &Ident, args: &[Expr]) {
        let memid_args = match &args[0].kind {
            ExprKind::Call { args, .. } => args.clone(),
            _ => return,
        };
        let (Some(lib), Some(read)) = (lib_memid(&memid_args), self.lib_memory_read) else {
            self.err(Diag::error(
                "reading a library's memory needs monitor ABI Part B (`wizeng:lib`); not available with --portable",
                func.span,
            ));
            return;
        };
        let name = self.m.string(&lib);
        let (n, s) = (cx.local(VT::I32), cx.local(VT::I32));
        let src = cx.local(VT::I32);
        self.expr_to(cx, &args[1], &Type::I32);
        cx.e(I::LocalSet(src));
        self.expr_to(cx, &args[2], &Type::U32);
        cx.e(I::LocalTee(n));
        // the empty string is 0
        cx.e(I::If(wasm_encoder::BlockType::Empty));
        cx.e(I::LocalGet(n));
        cx.e(I::I32Const(4));
        cx.e(I::I32Add);
        cx.e(I::Call(self.m.rt("alloc")));
        cx.e(I::LocalTee(s));
        cx.e(I::LocalGet(n));
        cx.e(I::I32Store(wasm_encoder::MemArg {
            offset: 0,
            align: 2,
            memory_index: 0,
        }));
        cx.e(I::I32Const(name as i32 + 4));
        cx.e(I::I32Const(lib.len() as i32));
        cx.e(I::LocalGet(src));
        cx.e(I::LocalGet(s));
        cx.e(I::I32Const(4));
        cx.e(I::I32Add);
        cx.e(I::LocalGet(n));
        cx.e(I::Call(read));
        // a failed read leaves no string
        cx.e(I::If(wasm_encoder::BlockType::Empty));
        cx.e(I::I32Const(0));
        cx.e(I::LocalSet(s));
        cx.e(I::End);
        cx.e(I::End);
        cx.e(I::LocalGet(s));
    }

    /// Evaluate a memory id and trap unless it is 0.
    fn mem_id(&mut self, cx: &mut FnCx, e: &Expr) {
        self.expr_to(cx, e, &Type::U32);
        cx.e(I::Call(self.m.rt("mem_id_check")));
    }
}
