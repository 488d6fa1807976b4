//! Checking whamm's memory and string functions: `memid(lib)`,
//! `read_str(mem, ptr, len)`, `write_str(mem, ptr, s)`,
//! `memcpy(src_mem, src, dst_mem, dst, len)`, `strcmp((ptr, len), s)`,
//! `dup_at(mem, ptr)` (in `memory.copy`/`fill`/`init` probes),
//! `page_size(mem)`, `mem_size(mem)`, `active_data_start(mem)`,
//! `active_data_len(mem)`
//! (docs/probe-language.md#memory-and-string-functions). Memory ids are
//! whamm's: 0 is the monitor's own memory, where its strings live, and
//! `memid(whamm_core)` names the same memory, since the monitor provides
//! whamm's core library itself.

use super::Checker;
use crate::ast::{Expr, ExprKind, Ident};
use crate::diag::Diag;
use crate::span::Span;
use crate::types::Type;

/// The names of the functions, which a script's own functions shadow.
pub(crate) const MEMORY_FNS: &[&str] = &[
    "memid",
    "read_str",
    "write_str",
    "memcpy",
    "strcmp",
    "dup_at",
    "page_size",
    "mem_size",
    "active_data_start",
    "active_data_len",
];

impl Checker<'_> {
    /// Type a call of one of [`MEMORY_FNS`].
    pub(super) fn memory_call(&mut self, func: &Ident, args: &[Expr], span: Span) -> Type {
        if func.name == "memid" {
            return self.memid_call(args, span);
        }
        let ptr_pair = Type::Tuple(vec![Type::I32, Type::I32]);
        let (params, ret): (Vec<Type>, Type) = match func.name.as_str() {
            "read_str" => (vec![Type::U32, Type::I32, Type::U32], Type::Str),
            "write_str" => (vec![Type::U32, Type::I32, Type::Str], Type::Unit),
            "memcpy" => {
                // copying from the app's memory reads it through `wizeng:app`
                self.uses_app_memory |= !args.first().is_some_and(is_monitor_memid);
                (vec![Type::U32; 5], Type::Unit)
            }
            // the app's memory sizes and data come through `wizeng:app` (Part B)
            "page_size" | "mem_size" | "active_data_start" | "active_data_len" => {
                self.uses_app_memory = true;
                (vec![Type::U32], Type::U32)
            }
            // (mem, ptr) and what desugar.rs adds: arg0, arg1, imm0, opname
            "dup_at" => {
                self.uses_app_memory = true;
                let ps = [
                    Type::U32,
                    Type::U32,
                    Type::I32,
                    Type::I32,
                    Type::U32,
                    Type::Str,
                ];
                if args.len() != ps.len() {
                    self.err(super::arity_error(&func.name, 2, args.len().min(2), span));
                    return Type::Unit;
                }
                (ps.to_vec(), Type::Unit)
            }
            _ => (vec![ptr_pair, Type::Str], Type::Bool),
        };
        if params.len() != args.len() {
            self.err(super::arity_error(
                &func.name,
                params.len(),
                args.len(),
                span,
            ));
        }
        for (i, a) in args.iter().enumerate() {
            match params.get(i) {
                Some(p) => {
                    self.expect(a, p, &format!("argument {} of `{}`", i + 1, func.name));
                }
                None => {
                    self.expr(a, None);
                }
            }
        }
        ret
    }

    /// `memid(lib)`: only whamm's core library, whose memory is the monitor's.
    fn memid_call(&mut self, args: &[Expr], span: Span) -> Type {
        let lib = match args {
            [Expr {
                kind: ExprKind::Var(l),
                ..
            }] => Some(l.as_str()),
            _ => None,
        };
        match lib {
            Some(crate::libs::CORE) if self.libs.contains_key(crate::libs::CORE) => {}
            // read through `wizeng:lib` (only by `read_str`, codegen/memory.rs)
            Some(l) if self.libs.contains_key(l) => self.uses_lib_memory = true,
            _ => self.err(
                Diag::error("`memid` takes the name of a `use`d library", span)
                    .with_note("e.g. `use whamm_core;` ... `memid(whamm_core)`"),
            ),
        }
        Type::U32
    }
}

/// Whether `e` names the monitor's own memory in every case: the literal 0
/// or `memid(...)` (0 for `whamm_core`; another library's id is never an
/// app memory).
pub(crate) fn is_monitor_memid(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(0) => true,
        ExprKind::Call { func, .. } => func.name == "memid",
        _ => false,
    }
}
