//! Handlers: monitor counter increments woven into the code.

use super::*;

/// Perform a direct counter increment ([`DirectInc`]).
///
/// # Safety
/// `i.addr` must be in bounds of a live monitor memory for `i.width` bytes.
#[inline(always)]
unsafe fn direct_inc(i: DirectInc) {
    // SAFETY: the caller's contract.
    unsafe {
        if i.width == 8 {
            let p = i.addr as *mut u64;
            p.write_unaligned(p.read_unaligned().wrapping_add(i.delta as u64));
        } else {
            let p = i.addr as *mut u32;
            p.write_unaligned(p.read_unaligned().wrapping_add(i.delta));
        }
    }
}

handlers! {
    group: monitor_ops,
    state: [r, opp, op, ip, sp, fp, tos],
    // SAFETY: the address is a `DirectInc::addr`: in bounds of a monitor
    // memory of the store running this code, which never moves or shrinks.
    h_MonInc64: Op::MonInc64 { lo, hi, delta } => unsafe {
                direct_inc(DirectInc { addr: (hi as u64) << 32 | lo as u64, width: 8, delta })
            },
    h_MonInc32: Op::MonInc32 { lo, hi, delta } => unsafe {
                direct_inc(DirectInc { addr: (hi as u64) << 32 | lo as u64, width: 4, delta })
            },
    // SAFETY: `r.code` is the running function's code (invariant at
    // `CodeRef`), `k` indexes its `sel_incs`, whose addresses are as above.
    h_MonIncSel: Op::MonIncSel { n, k } => {
                let v = if n == 0 { tos } else { mem_rd!(sp - 1 - n as usize) };
                let code: &Compiled = unsafe { &*r.code };
                let i = code.sel_incs[k as usize][(v as u32 == 0) as usize];
                unsafe { direct_inc(i) };
            },
}
