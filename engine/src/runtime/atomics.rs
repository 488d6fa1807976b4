//! The threads proposal in a store that runs one thread, once for every
//! tier: the address check of atomic accesses, and what
//! `memory.atomic.wait32/64` and `memory.atomic.notify` do. The interpreter
//! calls these from its cold path, JIT code through `jit::libcalls`
//! (Cranelift translates the other atomic instructions itself).
//!
//! With one thread nobody can be waiting, so `notify` wakes 0 waiters; and
//! nobody can notify, so a `wait` whose value matches can only time out: with
//! a finite timeout it returns 2 ("timed-out") at once instead of sleeping
//! (no other thread could observe the difference), with an infinite one
//! (negative) it would block forever, so it traps instead of hanging.

use crate::core::error::TrapKind;
use crate::runtime::store::MemoryInst;

/// `memory.atomic.wait`'s results.
const NOT_EQUAL: u32 = 1;
const TIMED_OUT: u32 = 2;

/// The byte offset of an atomic access of `bytes` (a power of two) at
/// effective address `ea` in a memory of `len` bytes. Alignment is checked
/// first, as Cranelift's translation does, so both tiers trap alike.
pub(crate) fn check(ea: u64, bytes: u64, len: u64) -> Result<usize, TrapKind> {
    if ea & (bytes - 1) != 0 {
        return Err(TrapKind::UnalignedAtomic);
    }
    if ea.checked_add(bytes).is_none_or(|end| end > len) {
        return Err(TrapKind::MemoryOutOfBounds);
    }
    Ok(ea as usize)
}

/// The little-endian value of `bytes` bytes at `at` (in bounds), zero-extended.
pub(crate) fn read(data: &[u8], at: usize, bytes: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes].copy_from_slice(&data[at..at + bytes]);
    u64::from_le_bytes(b)
}

/// Writes the low `bytes` bytes of `v` at `at` (in bounds), little-endian.
pub(crate) fn write(data: &mut [u8], at: usize, bytes: usize, v: u64) {
    data[at..at + bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
}

/// `memory.atomic.wait32` (`bytes` 4) or `wait64` (8) at effective address
/// `ea` of `mem`, expecting `expected` (an i32 zero-extended for wait32),
/// with `timeout` in nanoseconds (negative: none). See the module docs.
pub(crate) fn wait(
    mem: &MemoryInst,
    ea: u64,
    expected: u64,
    bytes: u64,
    timeout: i64,
) -> Result<u32, TrapKind> {
    let at = check(ea, bytes, mem.data().len() as u64)?;
    if !mem.ty().shared {
        return Err(TrapKind::WaitOnUnsharedMemory);
    }
    if read(mem.data(), at, bytes as usize) != expected {
        return Ok(NOT_EQUAL);
    }
    if timeout < 0 {
        return Err(TrapKind::WaitForever);
    }
    Ok(TIMED_OUT)
}

/// `memory.atomic.notify` at effective address `ea` of `mem`: the number of
/// waiters woken, always 0 (after the address check).
pub(crate) fn notify(mem: &MemoryInst, ea: u64) -> Result<u32, TrapKind> {
    check(ea, 4, mem.data().len() as u64)?;
    Ok(0)
}

/// Codes the JIT's wait/notify libcalls return for a trap (results are >= 0).
pub(crate) fn trap_code(k: &TrapKind) -> i32 {
    match k {
        TrapKind::MemoryOutOfBounds => -1,
        TrapKind::UnalignedAtomic => -2,
        TrapKind::WaitOnUnsharedMemory => -3,
        _ => -4,
    }
}
