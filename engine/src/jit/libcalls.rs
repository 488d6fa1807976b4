//! Runtime functions JIT code calls (SystemV ABI). Each receives the calling
//! instance's vmctx and reaches the store through it.
//!
//! Safety: these are only called by JIT code, which only runs inside
//! `jit::invoke`; that function holds the only `&mut Store` and has stored a
//! pointer to it in the vmctx's store context before entering JIT code, and
//! does not use its reference until JIT code returns. So dereferencing the
//! pointer here creates the only live mutable access to the store.

use std::rc::Rc;

use super::vm::{VMStoreCtx, INSTANCE, STORE_CTX};
use crate::store::{Caller, FuncKind, Store};
use crate::types::{InstanceId, Value};

/// Status codes returned to JIT code (non-zero means trap).
const OK: i32 = 0;
const OOB: i32 = 1;

unsafe fn ctx<'a>(vmctx: *const u64) -> (&'a mut Store, usize) {
    // SAFETY: see the module comment; vmctx is a live instance's vmctx block.
    unsafe {
        let sc = *vmctx.add(STORE_CTX as usize / 8) as *mut VMStoreCtx;
        let inst = *vmctx.add(INSTANCE as usize / 8) as usize;
        (&mut *(*sc).store, inst)
    }
}

pub extern "C" fn memory_grow(vmctx: *const u64, mem: u32, delta: u32) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let m = store.instances[inst].memories[mem as usize].0 as usize;
    store.memories[m].grow(delta as u64) as i32
}

/// Copy `n` items from `src[s..]` to `dst[d..]` of two buffers that may be the
/// same one (`same`): OOB unless both ranges are in bounds.
fn copy_items<T: Copy>(src: &mut [T], dst: Option<&mut [T]>, s: usize, d: usize, n: usize) -> i32 {
    match dst {
        None => {
            if s + n > src.len() || d + n > src.len() {
                return OOB;
            }
            src.copy_within(s..s + n, d);
        }
        Some(dst) => {
            if s + n > src.len() || d + n > dst.len() {
                return OOB;
            }
            dst[d..d + n].copy_from_slice(&src[s..s + n]);
        }
    }
    OK
}

/// Fill `dst[d..d + n]` with `v`: OOB unless in bounds.
fn fill_items<T: Copy>(dst: &mut [T], d: usize, n: usize, v: T) -> i32 {
    match dst.get_mut(d..d.saturating_add(n)) {
        Some(r) => {
            r.fill(v);
            OK
        }
        None => OOB,
    }
}

/// Copy `seg[s..s + n]` to `dst[d..]` (segment initialisation): OOB unless
/// both ranges are in bounds.
fn init_items<T: Copy>(dst: &mut [T], seg: &[T], d: usize, s: usize, n: usize) -> i32 {
    match (
        dst.get_mut(d..d.saturating_add(n)),
        seg.get(s..s.saturating_add(n)),
    ) {
        (Some(to), Some(from)) => {
            to.copy_from_slice(from);
            OK
        }
        _ => OOB,
    }
}

/// Two distinct elements of a slice, mutably.
fn two<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}

pub extern "C" fn memory_copy(
    vmctx: *const u64,
    dst_mem: u32,
    src_mem: u32,
    dst: u32,
    src: u32,
    len: u32,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let da = store.instances[inst].memories[dst_mem as usize].0 as usize;
    let sa = store.instances[inst].memories[src_mem as usize].0 as usize;
    let (d, s, n) = (dst as usize, src as usize, len as usize);
    if da == sa {
        copy_items(&mut store.memories[sa].data, None, s, d, n)
    } else {
        let (sm, dm) = two(&mut store.memories, sa, da);
        copy_items(&mut sm.data, Some(&mut dm.data), s, d, n)
    }
}

pub extern "C" fn memory_fill(vmctx: *const u64, mem: u32, dst: u32, val: u32, len: u32) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let m = store.instances[inst].memories[mem as usize].0 as usize;
    fill_items(
        &mut store.memories[m].data,
        dst as usize,
        len as usize,
        val as u8,
    )
}

pub extern "C" fn memory_init(
    vmctx: *const u64,
    mem: u32,
    seg: u32,
    dst: u32,
    src: u32,
    len: u32,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let idata = &store.instances[inst];
    let m = idata.memories[mem as usize].0 as usize;
    let module = idata.module.clone();
    let range = if idata.data_dropped[seg as usize] {
        0..0
    } else {
        module.datas[seg as usize].range.clone()
    };
    let seg = &module.bytes[range];
    init_items(
        &mut store.memories[m].data,
        seg,
        dst as usize,
        src as usize,
        len as usize,
    )
}

pub extern "C" fn data_drop(vmctx: *const u64, seg: u32) {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.instances[inst].data_dropped[seg as usize] = true;
}

pub extern "C" fn table_grow(vmctx: *const u64, table: u32, delta: u32, init: u64) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let t = store.instances[inst].tables[table as usize].0 as usize;
    store.tables[t].grow(delta as u64, init) as i32
}

pub extern "C" fn table_copy(
    vmctx: *const u64,
    dst_t: u32,
    src_t: u32,
    dst: u32,
    src: u32,
    len: u32,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let da = store.instances[inst].tables[dst_t as usize].0 as usize;
    let sa = store.instances[inst].tables[src_t as usize].0 as usize;
    let (d, s, n) = (dst as usize, src as usize, len as usize);
    if da == sa {
        copy_items(&mut store.tables[sa].elems, None, s, d, n)
    } else {
        let (st, dt) = two(&mut store.tables, sa, da);
        copy_items(&mut st.elems, Some(&mut dt.elems), s, d, n)
    }
}

pub extern "C" fn table_fill(vmctx: *const u64, table: u32, dst: u32, val: u64, len: u32) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let t = store.instances[inst].tables[table as usize].0 as usize;
    fill_items(&mut store.tables[t].elems, dst as usize, len as usize, val)
}

pub extern "C" fn table_init(
    vmctx: *const u64,
    table: u32,
    seg: u32,
    dst: u32,
    src: u32,
    len: u32,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let t = store.instances[inst].tables[table as usize].0 as usize;
    let items = store.instances[inst].elems[seg as usize].clone();
    init_items(
        &mut store.tables[t].elems,
        &items,
        dst as usize,
        src as usize,
        len as usize,
    )
}

pub extern "C" fn elem_drop(vmctx: *const u64, seg: u32) {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.instances[inst].elems[seg as usize] = Rc::from([]);
}

/// The callee vmctx of a host function called from JIT code.
#[repr(C)]
pub struct HostCtx {
    pub store_ctx: *mut VMStoreCtx,
    pub func: u32,
}

/// Called by host trampolines: arguments and results live in `args` (slots).
/// Returns 0, or 1 after storing the trap in the store (the trampoline then traps).
pub extern "C" fn host_call(host: *const HostCtx, caller_vmctx: *const u64, args: *mut u64) -> i32 {
    // SAFETY: `host` is a live HostCtx owned by the store; see the module comment.
    let (store, func) = unsafe { (&mut *(*(*host).store_ctx).store, (*host).func as usize) };
    let caller = if caller_vmctx.is_null() {
        None
    } else {
        Some(InstanceId(
            unsafe { *caller_vmctx.add(INSTANCE as usize / 8) } as u32,
        ))
    };
    let (h, ty) = match &store.funcs[func].kind {
        FuncKind::Host(h) => (h.clone(), store.funcs[func].ty.clone()),
        FuncKind::Wasm { .. } => unreachable!("host trampoline bound to a wasm function"),
    };
    let np = ty.params.len();
    let nr = ty.results.len();
    // SAFETY: the trampoline's buffer holds max(np, nr) slots.
    let slots = unsafe { std::slice::from_raw_parts_mut(args, np.max(nr)) };
    let vals: Vec<Value> = ty
        .params
        .iter()
        .enumerate()
        .map(|(i, t)| Value::from_slot(*t, slots[i]))
        .collect();
    let mut res: Vec<Value> = ty.results.iter().map(|t| Value::default_of(*t)).collect();
    store.depth += 1;
    let r = h(
        &mut Caller {
            store,
            instance: caller,
        },
        &vals,
        &mut res,
    );
    store.depth -= 1;
    match r {
        Ok(()) => {
            for (i, v) in res.iter().enumerate() {
                slots[i] = v.to_slot();
            }
            0
        }
        Err(t) => {
            store.jit.pending_trap = Some(t);
            1
        }
    }
}
