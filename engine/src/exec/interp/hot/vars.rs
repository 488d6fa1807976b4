//! Handlers: locals, globals and constants, and the superinstructions
//! that only move locals.

use super::*;

handlers! {
    group: vars_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    h_LocalGet: Op::LocalGet(i) => push!(rd!(fp + i as usize)),
    h_LocalSet: Op::LocalSet(i) => {
                let v = pop!();
                wr!(fp + i as usize, v);
            },
    h_LocalTee: Op::LocalTee(i) => wr!(fp + i as usize, rd!(sp - 1)),
    // SAFETY (globals): `g` is validated against the instance's globals and
    // `inst_globals`/`globals` are live (invariant at `Regs`).
    h_GlobalGet: Op::GlobalGet(g) => push!(unsafe {
                let ga = (*r.inst_globals.add(g as usize)).0 as usize;
                (**r.globals.add(ga)).value
            }),
    h_GlobalSet: Op::GlobalSet(g) => {
                let v = pop!();
                unsafe {
                    let ga = (*r.inst_globals.add(g as usize)).0 as usize;
                    (**r.globals.add(ga)).value = v;
                }
            },
    h_Const: Op::Const(c) => push!(c),
    h_LocalGet2: Op::LocalGet2(a, b) => {
                push!(loc!(a));
                push!(loc!(b));
            },
    h_TeeGet: Op::TeeGet(a, b) => {
                wr!(fp + a as usize, top!());
                push!(loc!(b));
            },
    h_LocalCopy: Op::LocalCopy { src, dst } => wr!(fp + dst as usize, loc!(src)),
    h_LocalSetConst: Op::LocalSetConst { dst, c } => wr!(fp + dst as usize, c),
    h_LocalGet3: Op::LocalGet3(a, b, c) => {
                push!(loc!(a));
                push!(loc!(b));
                push!(loc!(c));
            },
}
