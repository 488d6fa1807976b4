//! Runtime functions JIT code calls (SystemV ABI). Each receives the calling
//! instance's vmctx and reaches the store through it.
//!
//! Safety: every function here is `unsafe` and crate-private: its caller
//! must pass a live vmctx (or `HostCtx`) of this store. They are only called by
//! JIT code, which only runs inside
//! `jit::invoke`; that function holds the only `&mut Store` and has stored a
//! pointer to it in the vmctx's store context before entering JIT code, and
//! does not use its reference until JIT code returns. So dereferencing the
//! pointer here creates the only live mutable access to the store.

use smallvec::SmallVec;

use crate::core::types::{InstanceId, Value};
use crate::runtime::store::{FuncKind, Store};
use crate::runtime::vm::{VMStoreCtx, INSTANCE, STORE_CTX};

/// Number of entries of [`table`].
pub(crate) const COUNT: usize = 12;

/// Every runtime function compiled Wasm code calls, by symbol: code refers
/// to them through relocations, never by address, so the same function
/// compiles to the same bytes in every process (the code cache relies on it).
/// The JIT declares them first in every module, in this order: a
/// function's position here is its `FuncId` there.
pub(crate) fn table() -> [(&'static str, usize); COUNT] {
    [
        ("wizeng_memory_grow", memory_grow as *const () as usize),
        ("wizeng_memory_copy", memory_copy as *const () as usize),
        ("wizeng_memory_fill", memory_fill as *const () as usize),
        ("wizeng_memory_init", memory_init as *const () as usize),
        ("wizeng_data_drop", data_drop as *const () as usize),
        ("wizeng_table_grow", table_grow as *const () as usize),
        ("wizeng_table_copy", table_copy as *const () as usize),
        ("wizeng_table_fill", table_fill as *const () as usize),
        ("wizeng_table_init", table_init as *const () as usize),
        ("wizeng_elem_drop", elem_drop as *const () as usize),
        ("wizeng_atomic_wait", atomic_wait as *const () as usize),
        ("wizeng_atomic_notify", atomic_notify as *const () as usize),
    ]
}

/// The position in [`table`] of the runtime function at `addr`.
pub(crate) fn index_of(addr: usize) -> u32 {
    let i = table().iter().position(|(_, a)| *a == addr);
    i.expect("every libcall the translator emits is in the table") as u32
}

unsafe fn ctx<'a>(vmctx: *const u64) -> (&'a mut Store, usize) {
    // SAFETY: see the module comment; vmctx is a live instance's vmctx block.
    unsafe {
        let sc = *vmctx.add(STORE_CTX as usize / 8) as *mut VMStoreCtx;
        let inst = *vmctx.add(INSTANCE as usize / 8) as usize;
        (&mut *(*sc).store, inst)
    }
}

/// `memory.grow` of a 32-bit (delta zero-extended; the caller truncates the
/// result) or 64-bit memory.
pub(crate) unsafe extern "C" fn memory_grow(vmctx: *const u64, mem: u32, delta: u64) -> i64 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let m = store.instances[inst].memories[mem as usize].0 as usize;
    store.memories[m].grow(delta)
}

// Bulk operations (`crate::runtime::bulk`, shared with the interpreter): non-zero
// (a trap of the op's kind, raised by the caller) when out of bounds.

pub(crate) unsafe extern "C" fn memory_copy(
    vmctx: *const u64,
    dst_mem: u32,
    src_mem: u32,
    dst: u64,
    src: u64,
    len: u64,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    store
        .memory_copy(inst, dst_mem, src_mem, dst, src, len)
        .is_err() as i32
}

pub(crate) unsafe extern "C" fn memory_fill(
    vmctx: *const u64,
    mem: u32,
    dst: u64,
    val: u32,
    len: u64,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.memory_fill(inst, mem, dst, val as u8, len).is_err() as i32
}

pub(crate) unsafe extern "C" fn memory_init(
    vmctx: *const u64,
    mem: u32,
    seg: u32,
    dst: u64,
    src: u32,
    len: u32,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.memory_init(inst, mem, seg, dst, src, len).is_err() as i32
}

pub(crate) unsafe extern "C" fn data_drop(vmctx: *const u64, seg: u32) {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.data_drop(inst, seg);
}

/// `table.grow` of a 32-bit (delta zero-extended; the caller truncates the
/// result) or 64-bit table.
pub(crate) unsafe extern "C" fn table_grow(
    vmctx: *const u64,
    table: u32,
    delta: u64,
    init: u64,
) -> i64 {
    let (store, inst) = unsafe { ctx(vmctx) };
    let t = store.instances[inst].tables[table as usize].0 as usize;
    store.tables[t].grow(delta, init)
}

pub(crate) unsafe extern "C" fn table_copy(
    vmctx: *const u64,
    dst_t: u32,
    src_t: u32,
    dst: u64,
    src: u64,
    len: u64,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.table_copy(inst, dst_t, src_t, dst, src, len).is_err() as i32
}

pub(crate) unsafe extern "C" fn table_fill(
    vmctx: *const u64,
    table: u32,
    dst: u64,
    val: u64,
    len: u64,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.table_fill(inst, table, dst, val, len).is_err() as i32
}

pub(crate) unsafe extern "C" fn table_init(
    vmctx: *const u64,
    table: u32,
    seg: u32,
    dst: u64,
    src: u32,
    len: u32,
) -> i32 {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.table_init(inst, table, seg, dst, src, len).is_err() as i32
}

pub(crate) unsafe extern "C" fn elem_drop(vmctx: *const u64, seg: u32) {
    let (store, inst) = unsafe { ctx(vmctx) };
    store.elem_drop(inst, seg);
}

/// The callee vmctx of a host function called from JIT code.
#[repr(C)]
pub(crate) struct HostCtx {
    pub store_ctx: *mut VMStoreCtx,
    pub func: u32,
}

/// Called by host trampolines: arguments and results live in `args` (slots).
/// Returns 0, or 1 after storing the trap in the store (the trampoline then traps).
pub(crate) unsafe extern "C" fn host_call(
    host: *const HostCtx,
    caller_vmctx: *const u64,
    args: *mut u64,
) -> i32 {
    // SAFETY: `host` is a live HostCtx owned by the store; see the module comment.
    let (store, func) = unsafe { (&mut *(*(*host).store_ctx).store, (*host).func as usize) };
    let caller = if caller_vmctx.is_null() {
        None
    } else {
        Some(InstanceId(
            unsafe { *caller_vmctx.add(INSTANCE as usize / 8) } as u32,
        ))
    };
    let fi = &store.funcs[func];
    let FuncKind::Host(h) = &fi.kind else {
        unreachable!("host trampoline bound to a wasm function")
    };
    if let Some(raw) = &fi.raw {
        let raw = raw.clone();
        // SAFETY: as below; a raw function's values are one slot each.
        let slots = unsafe { std::slice::from_raw_parts_mut(args, super::buffer_slots(&fi.ty)) };
        return match store.call_host(caller, |c| raw(c, slots)) {
            Ok(()) => {
                crate::runtime::store::zero_extend_results(&store.funcs[func].ty.results, slots);
                0
            }
            Err(t) => {
                crate::exec::state_mut(store).jit.pending_trap = Some(t);
                1
            }
        };
    }
    // No allocation for the usual few values (a report flush makes a host
    // call per field), and the values are built in place: collecting them
    // returned 256 bytes by value, copied on every call (a monitor that
    // asks the host per indirect call spent half its time there).
    let h = h.clone();
    let n = super::buffer_slots(&fi.ty);
    // SAFETY: the trampoline's buffer holds `buffer_slots(ty)` slots.
    let slots = unsafe { std::slice::from_raw_parts_mut(args, n) };
    let mut vals: SmallVec<[Value; 8]> = SmallVec::new();
    let mut at = 0;
    for t in fi.ty.params.iter() {
        vals.push(Value::read_slots(*t, &slots[at..]));
        at += t.slots();
    }
    let mut res: SmallVec<[Value; 4]> = SmallVec::new();
    res.extend(fi.ty.results.iter().map(|t| Value::default_of(*t)));
    match store.call_host(caller, |c| h(c, &vals, &mut res)) {
        Ok(()) => {
            Value::write_all_slots(&res, slots);
            0
        }
        Err(t) => {
            crate::exec::state_mut(store).jit.pending_trap = Some(t);
            1
        }
    }
}

/// The clock trampoline's target (`Linker::clock` functions, `[] -> [i64]`):
/// the same contract as [`host_call`], without its generic conversions.
pub(crate) unsafe extern "C" fn clock_call(
    host: *const HostCtx,
    _caller_vmctx: *const u64,
    args: *mut u64,
) -> i32 {
    // SAFETY: `host` is a live HostCtx owned by the store, and the
    // trampoline's buffer holds the one result slot; see the module comment.
    unsafe {
        let store = &*(*(*host).store_ctx).store;
        store.count_host_call();
        *args = store.clock_nanos();
    }
    0
}

// The threads proposal in a one-thread store (`crate::runtime::atomics`):
// the result, or a negative code for a trap (`atomics::trap_code`). `addr`
// is the effective address (zero-extended for a 32-bit memory).

pub(crate) unsafe extern "C" fn atomic_wait(
    vmctx: *const u64,
    mem: u32,
    addr: u64,
    expected: u64,
    timeout: i64,
    bytes: u32,
) -> i32 {
    use crate::runtime::atomics;
    let (store, inst) = unsafe { ctx(vmctx) };
    let m = &store.memories[store.instances[inst].memories[mem as usize].0 as usize];
    match atomics::wait(m, addr, expected, bytes as u64, timeout) {
        Ok(r) => r as i32,
        Err(k) => atomics::trap_code(&k),
    }
}

pub(crate) unsafe extern "C" fn atomic_notify(
    vmctx: *const u64,
    mem: u32,
    addr: u64,
    _count: u32,
) -> i32 {
    use crate::runtime::atomics;
    let (store, inst) = unsafe { ctx(vmctx) };
    let m = &store.memories[store.instances[inst].memories[mem as usize].0 as usize];
    match atomics::notify(m, addr) {
        Ok(r) => r as i32,
        Err(k) => atomics::trap_code(&k),
    }
}
