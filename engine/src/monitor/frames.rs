//! Frame accessors (docs/monitor-abi.md#frame-accessors): `wizeng:frame_accessor` imports that let
//! a probe read and modify the frame it fires in, and its callers.
//!
//! A frame handle is an externref whose value is the activation's serial
//! number. While a probe that takes `frame` runs, the interpreter is suspended
//! and publishes a `FrameView` (`exec::interp::frames`) of its call chain in the store; accessor calls
//! resolve a handle against the published view. A handle whose activation is
//! not in the view has returned: every call with it traps ("frame accessor used
//! after its frame returned"), never reading another frame.

use crate::core::error::Trap;
use crate::core::types::{slot_count, FuncType, ValType, Value};
use crate::exec::interp::frames::{FrameInfo, FrameView};
use crate::runtime::store::{Caller, Linker, Store};

fn view<'a>(c: &'a Caller<'_>) -> Result<&'a FrameView, Trap> {
    crate::exec::state(c.store)
        .frame_view
        .as_ref()
        .ok_or_else(|| Trap::host("frame accessor used after its frame returned"))
}

fn handle(v: &Value) -> Option<u32> {
    match v {
        Value::ExternRef(h) => *h,
        _ => None,
    }
}

fn local_slot(f: &FrameInfo, idx: i32, want: ValType) -> Result<usize, Trap> {
    let t = f
        .code
        .local_types
        .get(idx as u32 as usize)
        .copied()
        .ok_or_else(|| {
            Trap::host(format!(
                "frame accessor: local {idx} out of range (the function has {} locals)",
                f.code.local_types.len()
            ))
        })?;
    if t != want {
        return Err(Trap::host(format!(
            "frame accessor: local {idx} has type {t}, not {want}"
        )));
    }
    Ok(f.fp + f.code.local_slot(idx as usize))
}

fn operand_slot(f: &FrameInfo, i: i32, want: ValType) -> Result<usize, Trap> {
    let base = f.fp + f.code.operand_base();
    let n = f.top - base;
    if i < 0 || i as usize >= n {
        return Err(Trap::host(format!(
            "frame accessor: operand {i} out of range (the frame has {n} operands)"
        )));
    }
    let Some(types) = &f.operand_types else {
        // Operand types unknown (a caller's frame): one slot per operand.
        return Ok(f.top - want.slots() - i as usize);
    };
    let t = types.get(i as usize).copied().unwrap_or(want);
    if t != want {
        return Err(Trap::host(format!(
            "frame accessor: operand {i} has type {t}, not {want}"
        )));
    }
    // Slots above this operand, and its own.
    let above = slot_count(&types[..(i as usize).min(types.len())]);
    Ok(f.top - above - t.slots())
}

/// Operands of a frame: by type when known, else slots.
fn num_operands(f: &FrameInfo) -> usize {
    match &f.operand_types {
        Some(types) => types.len(),
        None => f.top - f.fp - f.code.operand_base(),
    }
}

fn read_value(v: &FrameView, s: usize, t: ValType) -> Value {
    let hi = if t.slots() == 2 { v.slot(s + 1) } else { 0 };
    Value::read_slots(t, &[v.slot(s), hi])
}

fn write_value(v: &FrameView, s: usize, x: Value) {
    let mut b = [0u64; 2];
    x.write_slots(&mut b);
    for (k, w) in b[..x.ty().slots()].iter().enumerate() {
        v.set_slot(s + k, *w);
    }
}

/// The module name of the frame accessor's host functions.
const M: &str = "wizeng:frame_accessor";

/// Define the `wizeng:frame_accessor` module.
pub fn define_frame_accessor(linker: &mut Linker, store: &mut Store) {
    define_frame_queries(linker, store);
    define_slot_accessors(linker, store);
}

/// The accessor's questions about a frame as a whole: where it is, which
/// function, how deep, its caller, how many locals and operands.
fn define_frame_queries(linker: &mut Linker, store: &mut Store) {
    let er = ValType::ExternRef;
    let i32t = ValType::I32;
    linker.func(
        store,
        M,
        "get_pc",
        FuncType::new([er], [i32t]),
        |c, a, r| {
            r[0] = Value::I32(view(c)?.find(handle(&a[0]))?.1.pc as i32);
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "get_fid",
        FuncType::new([er], [i32t]),
        |c, a, r| {
            r[0] = Value::I32(view(c)?.find(handle(&a[0]))?.1.code.func_idx as i32);
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "get_depth",
        FuncType::new([er], [i32t]),
        |c, a, r| {
            r[0] = Value::I32(view(c)?.find(handle(&a[0]))?.0 as i32);
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "get_frame_id",
        FuncType::new([er], [ValType::I64]),
        |c, a, r| {
            r[0] = Value::I64(view(c)?.find(handle(&a[0]))?.1.serial as i64);
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "get_caller",
        FuncType::new([er], [er]),
        |c, a, r| {
            let v = view(c)?;
            let (i, _) = v.find(handle(&a[0]))?;
            r[0] = Value::ExternRef(if i == 0 {
                None
            } else {
                Some(v.frames[i - 1].serial)
            });
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "get_num_locals",
        FuncType::new([er], [i32t]),
        |c, a, r| {
            r[0] = Value::I32(view(c)?.find(handle(&a[0]))?.1.code.local_types.len() as i32);
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "get_num_operands",
        FuncType::new([er], [i32t]),
        |c, a, r| {
            let f = view(c)?.find(handle(&a[0]))?.1;
            r[0] = Value::I32(num_operands(f) as i32);
            Ok(())
        },
    );
}

/// `get_`/`set_` of a frame's locals and operands, one of each per value type.
fn define_slot_accessors(linker: &mut Linker, store: &mut Store) {
    let er = ValType::ExternRef;
    let i32t = ValType::I32;
    for t in [
        ValType::I32,
        ValType::I64,
        ValType::F32,
        ValType::F64,
        ValType::V128,
    ] {
        linker.func(
            store,
            M,
            &format!("get_local_{t}"),
            FuncType::new([er, i32t], [t]),
            move |c, a, r| {
                let v = view(c)?;
                let f = v.find(handle(&a[0]))?.1;
                let s = local_slot(f, a[1].i32().unwrap_or(-1), t)?;
                r[0] = read_value(v, s, t);
                Ok(())
            },
        );
        linker.func(
            store,
            M,
            &format!("set_local_{t}"),
            FuncType::new([er, i32t, t], []),
            move |c, a, _| {
                let v = view(c)?;
                let f = v.find(handle(&a[0]))?.1;
                let s = local_slot(f, a[1].i32().unwrap_or(-1), t)?;
                write_value(v, s, a[2]);
                Ok(())
            },
        );
        linker.func(
            store,
            M,
            &format!("get_operand_{t}"),
            FuncType::new([er, i32t], [t]),
            move |c, a, r| {
                let v = view(c)?;
                let f = v.find(handle(&a[0]))?.1;
                let s = operand_slot(f, a[1].i32().unwrap_or(-1), t)?;
                r[0] = read_value(v, s, t);
                Ok(())
            },
        );
        linker.func(
            store,
            M,
            &format!("set_operand_{t}"),
            FuncType::new([er, i32t, t], []),
            move |c, a, _| {
                let v = view(c)?;
                let f = v.find(handle(&a[0]))?.1;
                let s = operand_slot(f, a[1].i32().unwrap_or(-1), t)?;
                write_value(v, s, a[2]);
                Ok(())
            },
        );
    }
}
