//! Handlers: control flow (jumps, branches, `select`, `drop`), the dyn
//! tier's loop counter, and calls and returns within an instance.

use super::*;

handlers! {
    group: control_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_Unreachable: Op::Unreachable => trap!(TrapKind::Unreachable),
    h_Jump: Op::Jump(t) => jump!(t),
    h_JumpIfZero: Op::JumpIfZero(t) => {
                if pop!() as u32 == 0 {
                    jump!(t);
                }
            },
    h_JumpIfNonZero: Op::JumpIfNonZero(t) => {
                if pop!() as u32 != 0 {
                    jump!(t);
                }
            },
    h_Br: Op::Br(b) => do_br!(b),
    h_BrIf: Op::BrIf(b) => {
                if pop!() as u32 != 0 {
                    do_br!(b);
                }
            },
    h_BrOnNull: Op::BrOnNull(b) => {
                if rd!(sp - 1) == 0 {
                    shrink!(1);
                    do_br!(b);
                }
            },
    h_BrOnNonNull: Op::BrOnNonNull(b) => {
                if rd!(sp - 1) != 0 {
                    do_br!(b);
                } else {
                    shrink!(1);
                }
            },
    h_BrTable: Op::BrTable { start, len } => {
                let i = (pop!() as u32).min(len - 1);
                // SAFETY: `start + len` is within `br_tables` (invariant at `Regs`).
                let b = unsafe { *r.br_tables.add((start + i) as usize) };
                do_br!(b);
            },
    h_Drop: Op::Drop => shrink!(1),
    h_Select: Op::Select => {
                let c = rd!(sp - 1) as u32;
                let b = rd!(sp - 2);
                let a = rd!(sp - 3);
                sp -= 2;
                set_top!(if c != 0 { a } else { b });
            },
    h_Nop: Op::Nop => {},
    // Counts a dyn-tier loop iteration in place; the iteration that reaches the
    // threshold is `exec.rs`'s (it counts it and enters compiled code).
    h_LoopHead: Op::LoopHead(n) => {
                if n.wrapping_add(1) == r.dyn_threshold {
                    cold!();
                }
                // SAFETY: `opp` is this op (in `code.ops`, or a dynamic probe's
                // copy of it); nothing else reads it while the handler runs.
                unsafe { *(opp as *mut Op) = Op::LoopHead(n.wrapping_add(1)) };
            },
    // A call of one of the instance's own functions: push the caller's frame
    // here (as `exec.rs`'s `Interp::enter_callee` does); anything else goes to `exec.rs`.
    h_Call: Op::Call(f) => {
                if f < r.num_imported {
                    cold!();
                }
                // SAFETY: `f` is a validated function index of the module, and
                // defined functions have a slot; the `Rc` outlives this call
                // (invariant at `CodeRef`). An untranslated callee: `exec.rs`.
                let Some(callee) = (unsafe { &*r.mod_code.add((f - r.num_imported) as usize) }).get()
                else {
                    cold!();
                };
                // In the compiled tiers only a function that always runs
                // interpreted is entered here (others may have code), and in
                // dyn one whose call count stays below the threshold (it is
                // counted here: `tiering::call_is_hot`'s first step).
                if !r.hot_calls && !callee.interp_only {
                    if r.call_counts.is_null() {
                        cold!();
                    }
                    // SAFETY: `f` is a function index of the instance, and the
                    // counts cover every store function (invariant at `Regs`).
                    let count = unsafe {
                        r.call_counts.add((*r.inst_funcs.add(f as usize)).0 as usize)
                    };
                    // (A final state is above every threshold.) Counted only
                    // once `enter!` cannot go to `exec.rs`, which counts too.
                    let np = callee.num_params as usize;
                    let new_sp = sp - np + callee.operand_base();
                    if unsafe { *count } >= r.dyn_threshold.saturating_sub(1)
                        || r.nframes >= r.max_frames
                        || (new_sp - r.base) + callee.max_height as usize > r.slen
                    {
                        cold!();
                    }
                    unsafe { *count += 1 };
                }
                enter!(callee, 0);
            },
    // `call_indirect` to one of the instance's own functions; a trap, or any
    // other callee, goes to `exec.rs`.
    h_CallIndirect: Op::CallIndirect { ty, table } => {
                let i = rd!(sp - 1) as u32 as usize;
                // SAFETY: `table` and `ty` are validated indices of the instance;
                // the store's tables, functions and instances are not changed
                // while `run` executes (invariant at `Regs`).
                let callee: Option<&Compiled> = unsafe {
                    let t = &*r.tables.add((*r.inst_tables.add(table as usize)).0 as usize);
                    match t.elems.get(i) {
                        Some(&e) if e != 0 => {
                            let func = &*r.funcs.add((e - 1) as usize);
                            match func.kind {
                                FuncKind::Wasm { instance, func_idx }
                                    if func.type_id == *r.type_ids.add(ty as usize)
                                        && instance.0 as usize == r.inst
                                        && func_idx >= r.num_imported =>
                                {
                                    (*r.mod_code.add((func_idx - r.num_imported) as usize))
                                        .get()
                                        .map(|c| &**c)
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    }
                };
                match callee {
                    Some(callee) if r.hot_calls || callee.interp_only => enter!(callee, 1),
                    _ => cold!(),
                }
            },
    // A return to a caller of the same instance, whose frame is here.
    h_Return: Op::Return => {
                if r.nframes == 0 {
                    cold!();
                }
                // SAFETY: frames `..nframes` are initialised.
                let fr: Frame = unsafe { *r.frames.add(r.nframes - 1) };
                if fr.inst != r.inst {
                    cold!();
                }
                // SAFETY: `r.code` is the running function's code (invariant at `CodeRef`).
                let n = unsafe { (*r.code).num_results } as usize;
                if n == 1 {
                    // The result is `tos`.
                    sp = fp + 1;
                } else {
                    mem_wr!(sp - 1, tos);
                    if n > 1 && fp != sp - n {
                        copy_slots!(sp - n, fp, n);
                    }
                    sp = fp + n;
                    tos = mem_rd!(sp - 1);
                }
                r.nframes -= 1;
                let code: &Compiled = &fr.code;
                r.code = code;
                r.ops = code.ops.as_ptr();
                r.br_tables = code.br_tables.as_ptr();
                r.serial = fr.serial;
                ip = r.ops.wrapping_add(fr.ip);
                fp = fr.fp;
            },
}
