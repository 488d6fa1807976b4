//! whamm forms that are another spelling of something the language has,
//! rewritten right after parsing (before names and types are checked).
//!
//! - `resolve_funcref(target_funcref, table_entry_idx)`, whamm's way to
//!   resolve the callee of a `call_indirect` from its table entry, is the
//!   bound variable `resolved_fid` (the same function, read from the live
//!   table). Other arguments are an error: this compiler has no `funcref`
//!   values to pass.
//! - `dup_at(mem, ptr)`, which repeats a `memory.copy`, `memory.fill` or
//!   `memory.init` into another memory, reads the instruction's operands
//!   and immediate: it becomes `dup_at(mem, ptr, arg0, arg1, imm0, opname)`
//!   so the checker binds them like any other use.
//! - `APP_MEMID`, whamm's id of the app's memory, is the memory id 1 (the
//!   app's memory 0; 0 is the monitor's own), which `page_size`,
//!   `mem_size`, `active_data_start`, `active_data_len` and `memcpy`'s
//!   source accept.

use crate::ast::*;
use crate::diag::Diag;

/// Rewrite the whamm aliases of `script` in place; report misuses.
pub(crate) fn whamm_aliases(script: &mut Script, diags: &mut Vec<Diag>) {
    let defines = |n: &str| {
        script
            .items
            .iter()
            .any(|i| matches!(i, Item::Fn(f) if f.name.name == n))
    };
    let (resolve, dup) = (!defines("resolve_funcref"), !defines("dup_at"));
    crate::nesting::each_expr_mut(script, &mut |e| {
        if dup {
            dup_at(e);
        }
        if matches!(&e.kind, ExprKind::Var(v) if v == "APP_MEMID") {
            e.kind = ExprKind::Int(1);
        }
        if !resolve {
            return;
        }
        let ExprKind::Call { func, args } = &e.kind else {
            return;
        };
        if func.name != "resolve_funcref" {
            return;
        }
        let is_var = |a: Option<&Expr>, n: &str| matches!(a.map(|a| &a.kind), Some(ExprKind::Var(v)) if v == n);
        if args.len() == 2
            && is_var(args.first(), "target_funcref")
            && is_var(args.get(1), "table_entry_idx")
        {
            e.kind = ExprKind::Var("resolved_fid".to_string());
        } else {
            diags.push(
                Diag::error("unsupported `resolve_funcref` call", e.span)
                    .with_label("arguments other than (target_funcref, table_entry_idx)")
                    .with_note("`resolve_funcref(target_funcref, table_entry_idx)` is `resolved_fid`; there are no other funcref values"),
            );
            e.kind = ExprKind::Error;
        }
    });
}

/// `dup_at(mem, ptr)` with the site's operands and immediate added.
fn dup_at(e: &mut Expr) {
    let ExprKind::Call { func, args } = &mut e.kind else {
        return;
    };
    if func.name != "dup_at" || args.len() != 2 {
        return;
    }
    let span = e.span;
    for name in ["arg0", "arg1", "imm0", "opname"] {
        args.push(Expr {
            kind: ExprKind::Var(name.to_string()),
            span,
        });
    }
}
