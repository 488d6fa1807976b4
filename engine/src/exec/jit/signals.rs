//! Trap recovery for JIT code: signal handlers, the per-thread registry of
//! compiled code, and the per-thread jump buffer (see `trap_catch.c`).
//!
//! Invariants:
//! - The handler only acts when the faulting pc lies in code registered by
//!   this thread and a jump buffer is set (we are inside `catch_traps`);
//!   otherwise it calls the handler installed before ours (another runtime's
//!   in the same process, Rust's stack overflow report) or, with none, lets
//!   the fault recur with the default action: as if we were not there. Ours
//!   stays installed either way.
//! - It does nothing but read thread-locals (const-initialised, no allocation)
//!   and jump: no locks, no allocation.
//! - Only JIT frames and the entry trampoline lie between `catch_traps` and a
//!   trapping instruction (host errors are returned, not raised), so the jump
//!   skips no Rust destructor.

use std::cell::{Cell, RefCell};
use std::sync::Once;

use cranelift_codegen::ir::TrapCode;

use super::FuncInfo;

extern "C" {
    fn wizeng_catch_traps(
        f: extern "C" fn(*mut std::ffi::c_void),
        arg: *mut std::ffi::c_void,
        slot: *mut *mut std::ffi::c_void,
    ) -> i32;
    fn wizeng_trap_longjmp(buf: *mut std::ffi::c_void) -> !;
}

struct Range {
    start: usize,
    end: usize,
    func_idx: Option<u32>,
    name: String,
    traps: Vec<(u32, TrapCode)>,
    srclocs: Vec<(u32, u32, u32)>,
    body_start: u32,
    probe_calls: Vec<(u32, u32, std::sync::Arc<str>)>,
    inlined: Vec<(u32, u32, crate::core::provenance::InlinedFrom)>,
    body: Option<std::sync::Arc<[u8]>>,
}

const MAX_RETS: usize = 64;
/// Of which the innermost frames (the rest are the outermost ones).
const INNER: usize = 48;

thread_local! {
    static JMP_BUF: Cell<*mut std::ffi::c_void> = const { Cell::new(std::ptr::null_mut()) };
    static TRAP_PC: Cell<usize> = const { Cell::new(0) };
    /// Sorted by start address.
    static REGISTRY: RefCell<Vec<Range>> = const { RefCell::new(Vec::new()) };
    static STACK_LIMIT: Cell<usize> = const { Cell::new(0) };
    /// Return addresses of the trapping call chain (innermost first), recorded
    /// by the handler before it jumps (the frames are gone afterwards).
    static TRAP_RETS: RefCell<([usize; MAX_RETS], usize)> = const { RefCell::new(([0; MAX_RETS], 0)) };
    static STACK_RANGE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

pub(crate) fn register(infos: &[FuncInfo]) {
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        for i in infos {
            r.push(Range {
                start: i.start,
                end: i.start + i.len,
                func_idx: i.func_idx,
                name: i.name.clone(),
                traps: i.traps.clone(),
                srclocs: i.srclocs.clone(),
                body_start: i.body_start,
                probe_calls: i.probe_calls.clone(),
                inlined: i.inlined.clone(),
                body: i.body.clone(),
            });
        }
        r.sort_by_key(|x| x.start);
    });
}

pub(crate) fn unregister(starts: impl Iterator<Item = usize>) {
    let starts: Vec<usize> = starts.collect();
    let _ = REGISTRY.try_with(|r| r.borrow_mut().retain(|x| !starts.contains(&x.start)));
}

fn in_jit_code(pc: usize) -> bool {
    REGISTRY
        .try_with(|r| match r.try_borrow() {
            Ok(r) => {
                let i = r.partition_point(|x| x.start <= pc);
                i > 0 && pc < r[i - 1].end
            }
            Err(_) => false,
        })
        .unwrap_or(false)
}

/// Find the registered function containing `pc`; call `f` with it and the
/// offset of `pc` in it.
fn with_range<T>(pc: usize, f: impl FnOnce(&Range, u32) -> Option<T>) -> Option<T> {
    REGISTRY.with(|r| {
        let r = r.borrow();
        let i = r.partition_point(|x| x.start <= pc);
        let x = r.get(i.checked_sub(1)?)?;
        if pc >= x.end {
            return None;
        }
        f(x, (pc - x.start) as u32)
    })
}

/// The original site (function, pc) of an offset in a registered function.
fn site_of(x: &Range, off: u32) -> Option<crate::core::error::TrapSite> {
    let loc = x
        .srclocs
        .iter()
        .find(|s| s.0 <= off && off < s.1)
        .map(|s| s.2.saturating_sub(x.body_start))
        .unwrap_or(0);
    Some(crate::core::error::TrapSite {
        func: x.func_idx?,
        func_name: x.name.clone(),
        pc: loc,
    })
}

/// The original body of the Wasm function containing `pc`, if recorded.
pub(crate) fn body_at(pc: usize) -> Option<std::sync::Arc<[u8]>> {
    with_range(pc, |x, _| x.body.clone())
}

/// If `pc` is inlined monitor code: where it came from and the probed site.
pub(crate) fn inlined_at(
    pc: usize,
) -> Option<(
    crate::core::provenance::InlinedFrom,
    crate::core::error::TrapSite,
)> {
    with_range(pc, |x, off| {
        let (_, _, from) = x.inlined.iter().find(|c| c.0 <= off && off < c.1)?;
        Some((from.clone(), site_of(x, off)?))
    })
}

/// If `pc` is a woven probe call: the monitor export and the probed site.
pub(crate) fn probe_call_at(
    pc: usize,
) -> Option<(std::sync::Arc<str>, crate::core::error::TrapSite)> {
    with_range(pc, |x, off| {
        let (_, _, origin) = x.probe_calls.iter().find(|c| c.0 <= off && off < c.1)?;
        Some((origin.clone(), site_of(x, off)?))
    })
}

/// (trap code, function index, function name, wasm pc) of a JIT code address.
pub(crate) fn lookup(pc: usize) -> Option<(Option<TrapCode>, Option<u32>, String, Option<u32>)> {
    with_range(pc, |x, off| {
        let code = x.traps.iter().find(|t| t.0 == off).map(|t| t.1);
        // The range holding `off`; else the nearest one before it: Cranelift
        // can emit a faulting access with no location of its own right after
        // the instructions of the Wasm op it belongs to.
        let loc = x
            .srclocs
            .iter()
            .find(|s| s.0 <= off && off < s.1)
            .or_else(|| x.srclocs.iter().rev().find(|s| s.1 <= off))
            .map(|s| s.2.saturating_sub(x.body_start));
        Some((code, x.func_idx, x.name.clone(), loc))
    })
}

/// For a fault at `pc` with no location of its own, `lookup` names the op
/// of the nearest located range before it. Such an instruction is one
/// Cranelift made without a location (its egraph rewrites pure ops) and a
/// load was merged into: the faulting access is then that op's or a later
/// one's. None when `pc` has a location of its own; else Some(whether that
/// op has a trapping instruction with its location, i.e. its own access
/// already lies elsewhere and the fault belongs to a later op).
pub(crate) fn borrowed_location(pc: usize) -> Option<bool> {
    with_range(pc, |x, off| {
        if x.srclocs.iter().any(|s| s.0 <= off && off < s.1) {
            return None;
        }
        let loc = x.srclocs.iter().rev().find(|s| s.1 <= off)?.2;
        Some(
            x.srclocs
                .iter()
                .any(|s| s.2 == loc && x.traps.iter().any(|t| s.0 <= t.0 && t.0 < s.1)),
        )
    })
}

/// The Wasm pcs (body offsets) of the function at `pc` whose own located
/// machine code holds a trapping instruction: an access missing here had
/// its load merged into an instruction without a location (or removed).
pub(crate) fn located_trap_pcs(pc: usize) -> Vec<u32> {
    with_range(pc, |x, _| {
        Some(
            x.srclocs
                .iter()
                .filter(|s| x.traps.iter().any(|t| s.0 <= t.0 && t.0 < s.1))
                .map(|s| s.2.saturating_sub(x.body_start))
                .collect(),
        )
    })
    .unwrap_or_default()
}

static mut PREV: [Option<libc::sigaction>; 4] = [None, None, None, None];
const SIGNALS: [libc::c_int; 4] = [libc::SIGILL, libc::SIGFPE, libc::SIGSEGV, libc::SIGBUS];

extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid ucontext for SA_SIGINFO handlers.
    let (pc, mut fp) = unsafe {
        let g = &(*(uctx as *const libc::ucontext_t)).uc_mcontext.gregs;
        (
            g[libc::REG_RIP as usize] as usize,
            g[libc::REG_RBP as usize] as usize,
        )
    };
    let buf = JMP_BUF.with(|b| b.get());
    if !buf.is_null() && in_jit_code(pc) {
        TRAP_PC.with(|t| t.set(pc));
        // Walk the frame-pointer chain of JIT frames (JIT code keeps frame
        // pointers). Every read is checked to lie in this thread's stack.
        let (lo, hi) = STACK_RANGE.with(|s| s.get());
        let _ = TRAP_RETS.try_with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                // The innermost INNER frames, then (deep stacks: a runaway
                // recursion) the outermost MAX_RETS - INNER ones, where the
                // call from the app into a monitor is.
                let mut n = 0;
                let mut outer = 0usize;
                while fp >= lo && fp + 16 <= hi && fp % 8 == 0 {
                    // SAFETY: `fp` and `fp + 8` are inside the thread's stack.
                    let (next, ret) =
                        unsafe { (*(fp as *const usize), *((fp + 8) as *const usize)) };
                    if n < INNER {
                        r.0[n] = ret;
                        n += 1;
                    } else {
                        r.0[INNER + outer % (MAX_RETS - INNER)] = ret;
                        outer += 1;
                    }
                    if !in_jit_code(ret) || next <= fp {
                        break;
                    }
                    fp = next;
                }
                // Put the outer ring in order (innermost first), in place.
                let ring = &mut r.0[INNER..];
                let len = outer.min(ring.len());
                if outer > ring.len() {
                    ring.rotate_left(outer % ring.len());
                }
                r.1 = n + len;
            }
        });
        // SAFETY: `buf` is the jump buffer of the innermost active `catch_traps`
        // on this thread (see the module invariants).
        unsafe { wizeng_trap_longjmp(buf) }
    }
    // Not ours: hand it to whoever handled the signal before us.
    if let Some(i) = SIGNALS.iter().position(|s| *s == sig) {
        // SAFETY: PREV is written once, before the handlers are installed.
        let prev = unsafe { (*std::ptr::addr_of!(PREV))[i] };
        forward(sig, info, uctx, prev);
    }
}

/// Pass a fault that is not ours to the previous disposition `prev`: call its
/// handler (another runtime's, such as Wasmtime's in the same process, or
/// Rust's stack-overflow report), which may resume elsewhere through `uctx`;
/// with none, restore the default action and return, so that the fault recurs
/// and ends the process as if we were not there. Our handler stays installed.
fn forward(
    sig: libc::c_int,
    info: *mut libc::siginfo_t,
    uctx: *mut libc::c_void,
    prev: Option<libc::sigaction>,
) {
    match prev {
        Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
            // SAFETY: a disposition other than SIG_DFL/SIG_IGN is a handler
            // of the kind its SA_SIGINFO flag says; it is called as the
            // kernel would call it, with the kernel's own arguments.
            unsafe {
                if p.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(p.sa_sigaction);
                    f(sig, info, uctx);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(p.sa_sigaction);
                    f(sig);
                }
            }
        }
        // SAFETY: resetting a signal to its default action.
        _ => unsafe {
            libc::signal(sig, libc::SIG_DFL);
        },
    }
}

/// Install the handlers (once per process).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for (i, sig) in SIGNALS.iter().enumerate() {
            // SAFETY: plain sigaction calls with a zeroed, then filled struct.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = handler as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
                libc::sigemptyset(&mut sa.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(*sig, &sa, &mut old) == 0 {
                    (*std::ptr::addr_of_mut!(PREV))[i] = Some(old);
                }
            }
        }
    });
}

/// Run `f(arg)`; if JIT code trapped, the faulting pc and the return
/// addresses of the JIT frames above it.
pub(crate) fn catch_traps(
    f: extern "C" fn(*mut std::ffi::c_void),
    arg: *mut std::ffi::c_void,
) -> Option<(usize, Vec<usize>)> {
    let slot = JMP_BUF.with(|b| b.as_ptr());
    // SAFETY: `slot` is this thread's jump-buffer cell; the C helper saves and
    // restores it around the call.
    let r = unsafe { wizeng_catch_traps(f, arg, slot) };
    if r == 0 {
        None
    } else {
        let rets = TRAP_RETS.with(|r| {
            let r = r.borrow();
            r.0[..r.1].to_vec()
        });
        Some((TRAP_PC.with(|t| t.get()), rets))
    }
}

/// The lowest stack address JIT code may use on this thread: the thread's
/// stack bottom plus a margin for host calls and signal handling.
pub(crate) fn stack_limit() -> usize {
    STACK_LIMIT.with(|c| {
        if c.get() == 0 {
            let mut lo = 0usize;
            let mut hi = 0usize;
            // SAFETY: standard pthread queries on the current thread.
            unsafe {
                let mut attr: libc::pthread_attr_t = std::mem::zeroed();
                if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) == 0 {
                    let mut addr: *mut libc::c_void = std::ptr::null_mut();
                    let mut size: libc::size_t = 0;
                    if libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0 {
                        lo = addr as usize;
                        hi = lo + size;
                    }
                    libc::pthread_attr_destroy(&mut attr);
                }
            }
            // Fallback: 1 MiB below the current frame.
            let here = &lo as *const usize as usize;
            let limit = if lo == 0 {
                here.saturating_sub(1 << 20)
            } else {
                lo + (256 << 10)
            };
            c.set(limit);
            // Frame walking stays inside [lo, hi); without pthread data, only
            // the region near the current frame is trusted.
            let range = if lo == 0 {
                (limit, here + (1 << 20))
            } else {
                (lo, hi)
            };
            STACK_RANGE.with(|s| s.set(range));
        }
        c.get()
    })
}
