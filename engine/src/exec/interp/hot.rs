//! The interpreter's hot ops: numeric, locals, globals, branches, loads and
//! stores, superinstructions, and (in the interpreter tier) calls and returns
//! within an instance.
//!
//! Each op has a handler function; handlers pass the state (`ip`, `sp`, `fp`,
//! the top operand) in argument registers and tail-call the next op's handler
//! (threaded dispatch, see [`Handler`]). They make no calls into the store.
//! Anything else (other calls, probes, bulk memory, tables, traps) ends
//! [`run`] with an [`Exit`]; `exec.rs` handles it and re-enters.

use super::code::*;
use super::exec::{CodeRef, Frame};
use crate::core::error::TrapKind;
use crate::core::probe::DirectInc;
use crate::runtime::store::{FuncKind, GlobalInst, MemoryInst};
use crate::core::types::{GlobalAddr, MemAddr};

/// A value stack slot address. Arithmetic is wrapping pointer arithmetic
/// (safe); only `rd!`/`wr!`/`copy_slots!` dereference, under the invariant
/// stated at [`Regs`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub(super) struct Slot(pub(super) *mut u64);

impl std::ops::Add<usize> for Slot {
    type Output = Slot;
    #[inline(always)]
    fn add(self, n: usize) -> Slot {
        Slot(self.0.wrapping_add(n))
    }
}
impl std::ops::Sub<usize> for Slot {
    type Output = Slot;
    #[inline(always)]
    fn sub(self, n: usize) -> Slot {
        Slot(self.0.wrapping_sub(n))
    }
}
/// Distance in slots (`self` must not be below `other`).
impl std::ops::Sub<Slot> for Slot {
    type Output = usize;
    #[inline(always)]
    fn sub(self, other: Slot) -> usize {
        (self.0 as usize - other.0 as usize) / 8
    }
}
impl std::ops::AddAssign<usize> for Slot {
    #[inline(always)]
    fn add_assign(&mut self, n: usize) {
        *self = *self + n;
    }
}
impl std::ops::SubAssign<usize> for Slot {
    #[inline(always)]
    fn sub_assign(&mut self, n: usize) {
        *self = *self - n;
    }
}

/// The interpreter's registers, handed to [`run`] and written back when it exits.
///
/// SAFETY invariants (established by `exec.rs` before every [`run`]):
/// * `ops` points to the current function's `Compiled::ops` (`code`; kept
///   alive by its module, see `exec::CodeRef`) and `ip` into it; every body ends in `Return` and branch
///   targets are op indices, so every fetch is in bounds. `br_tables` is that
///   function's `Compiled::br_tables`; `BrTable` indices are in range by
///   translation.
/// * every slot `rd!`/`wr!`/`copy_slots!` touch is in `[base, base + slen)`:
///   frame entry checks `fp + operand_base + max_height <= slen`, and
///   validation bounds local indices by `num_locals` and operand heights (also
///   of fused ops, which never exceed those of the instructions they replace)
///   by `max_height`.
/// * `mem_base`/`mem_len` describe the current instance's memory 0 buffer
///   (null/0 without one); `globals`/`inst_globals` are `Store::globals` and the
///   instance's global addresses, `memories`/`inst_mems` `Store::memories` and the
///   instance's memory addresses. Nothing else accesses the store while `run`
///   executes, so these stay valid until it returns.
pub(super) struct Regs {
    pub(super) ip: *const std::cell::Cell<Op>,
    pub(super) ops: *const std::cell::Cell<Op>,
    pub(super) sp: Slot,
    pub(super) fp: Slot,
    pub(super) base: Slot,
    pub(super) slen: usize,
    pub(super) mem_base: *mut u8,
    pub(super) mem_len: u64,
    pub(super) br_tables: *const BrTarget,
    pub(super) globals: *mut Box<GlobalInst>,
    pub(super) inst_globals: *const GlobalAddr,
    pub(super) memories: *mut MemoryInst,
    pub(super) inst_mems: *const MemAddr,
    /// The op to run next when a handler returns [`CONTINUE`].
    #[cfg_attr(wizeng_tail_calls, allow(dead_code))]
    pub(super) next: *const Op,
    /// The current function's code (`ops`/`br_tables` are its).
    pub(super) code: *const Compiled,
    /// `exec.rs`'s frame stack: `nframes` frames in a buffer with room for
    /// `max_frames` (at most the call depth limit). Calls and returns within
    /// the instance push and pop here; anything else goes to `exec.rs`.
    pub(super) frames: *mut Frame,
    pub(super) nframes: usize,
    pub(super) max_frames: usize,
    /// The running activation's serial and the store's last one.
    pub(super) serial: u32,
    pub(super) last_serial: u32,
    pub(super) inst: usize,
    /// Calls between the instance's own functions run here (the interpreter
    /// tier: elsewhere a callee may have compiled code).
    pub(super) hot_calls: bool,
    /// The store's tables and functions, the instance's table addresses and
    /// interned type ids (for `call_indirect`).
    pub(super) tables: *const crate::runtime::store::TableInst,
    pub(super) inst_tables: *const crate::core::types::TableAddr,
    pub(super) funcs: *const crate::runtime::store::FuncInst,
    pub(super) type_ids: *const u32,
    /// The instance's module's code, by defined-function index, and its number
    /// of imported functions.
    pub(super) mod_code: *const std::rc::Rc<Compiled>,
    pub(super) num_imported: u32,
    /// `Config::dyn_threshold`: a `LoopHead` reaching it goes to `exec.rs`.
    pub(super) dyn_threshold: u32,
    /// The top operand when a handler returns [`CONTINUE`].
    #[cfg_attr(wizeng_tail_calls, allow(dead_code))]
    pub(super) tos: u64,
    /// Why a handler returned null (`trap_code`; a `u8` so that setting it
    /// needs no drop glue in the handlers).
    pub(super) trap: u8,
}

/// Why [`run`] returned.
pub(super) enum Exit {
    /// An op the hot loop does not execute (already fetched: `ip` is past it;
    /// the pointer is `first` or into `code.ops`).
    Cold(*const Op),
    /// The op before `ip` trapped.
    Trap(TrapKind),
}

/// What a handler returns, one register wide (so that handlers can tail-call
/// each other): the op to hand to `exec.rs` ([`Exit::Cold`]), null for a trap
/// (`Regs::trap` says which), or [`CONTINUE`].
type Done = *const Op;
/// Only without tail calls (unoptimised builds): run `Regs::next` (at `ip`, `sp`).
#[cfg_attr(wizeng_tail_calls, allow(dead_code))]
const CONTINUE: Done = std::ptr::dangling();

fn f32_min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f32::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}
fn f32_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f32::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}
fn f64_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() | b.to_bits())
    } else if a < b {
        a
    } else {
        b
    }
}
fn f64_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a == b {
        f64::from_bits(a.to_bits() & b.to_bits())
    } else if a > b {
        a
    } else {
        b
    }
}

/// Checked float -> int truncation: Err(kind) on NaN or out of range.
/// `lo` and `hi` are exclusive bounds of the representable range (after trunc).
#[inline(always)]
fn trunc_check(x: f64, lo: f64, hi: f64) -> Result<f64, TrapKind> {
    if x.is_nan() {
        Err(TrapKind::InvalidConversionToInteger)
    } else if x <= lo || x >= hi {
        Err(TrapKind::IntegerOverflow)
    } else {
        Ok(x.trunc())
    }
}

/// Base and length of the current instance's memory `mem` (memory 0 is cached
/// in [`Regs`]).
///
/// # Safety
/// The [`Regs`] invariants hold and `mem` is a validated memory index.
#[inline(always)]
unsafe fn other_memory(r: &Regs, mem: u32) -> (*mut u8, u64) {
    // SAFETY: `inst_mems`/`memories` are live and `mem` is in range (see above).
    unsafe {
        let m = &mut *r.memories.add((*r.inst_mems.add(mem as usize)).0 as usize);
        (m.data.as_mut_ptr(), m.data.len() as u64)
    }
}

/// The traps the hot ops raise, by code (see `Regs::trap`).
const HOT_TRAPS: [TrapKind; 5] = [
    TrapKind::Unreachable,
    TrapKind::MemoryOutOfBounds,
    TrapKind::IntegerDivideByZero,
    TrapKind::IntegerOverflow,
    TrapKind::InvalidConversionToInteger,
];

#[inline(always)]
fn trap_code(k: TrapKind) -> u8 {
    let code = match k {
        TrapKind::Unreachable => 0,
        TrapKind::MemoryOutOfBounds => 1,
        TrapKind::IntegerDivideByZero => 2,
        TrapKind::IntegerOverflow => 3,
        TrapKind::InvalidConversionToInteger => 4,
        _ => unreachable!("not a hot-op trap"),
    };
    debug_assert!(HOT_TRAPS[code as usize] == k);
    code
}

fn trap_kind(code: u8) -> TrapKind {
    HOT_TRAPS[code as usize].clone()
}

/// The interpreter position: the next op to fetch.
type Ip = *const std::cell::Cell<Op>;

/// An op handler: runs the op at `opp` (`ip` is the op after it), then
/// dispatches the next op itself. State lives in argument registers; a
/// handler tail-calls the next one (sibling-call optimisation, which LLVM
/// performs at opt-level >= 2 for this signature on x86_64 and aarch64: see
/// build.rs `wizeng_tail_calls`), so the stack does not grow. Without it,
/// handlers return [`CONTINUE`] to the loop in [`run`].
/// `tos` is the top operand (slot `sp - 1`, whose memory copy is stale while
/// handlers run); `mem_base`, `mem_len` and everything else is read from `r`.
#[allow(improper_ctypes_definitions)]
pub(super) type Handler = unsafe extern "C" fn(
    r: &mut Regs,
    opp: *const Op,
    ip: Ip,
    sp: Slot,
    fp: Slot,
    tos: u64,
) -> Done;

/// More than the number of `Op` variants (checked when the table is built).
const TABLE_LEN: usize = 512;

/// Handlers by op tag. Written once by [`init_table`] (under `INIT`) before
/// any read; read-only afterwards.
static mut TABLE: [Handler; TABLE_LEN] = [h_cold as Handler; TABLE_LEN];
static INIT: std::sync::Once = std::sync::Once::new();

/// The tag of an op (`Op` is `repr(u16)`: the tag is its first two bytes).
#[inline(always)]
fn tag(op: *const Op) -> usize {
    // SAFETY: `op` points to a valid `Op`, whose first field is its `u16` tag.
    unsafe { *(op as *const u16) as usize }
}

#[inline(always)]
fn handler_of(op: *const Op) -> Handler {
    // SAFETY: `tag < TABLE_LEN` (checked in `init_table`); the table is
    // initialised before any op is dispatched (`run` calls `init_table`).
    unsafe { *std::ptr::addr_of!(TABLE).cast::<Handler>().add(tag(op)) }
}

fn init_table() {
    INIT.call_once(|| {
        let last = tag(&Op::LoopHead(0));
        assert!(
            last < TABLE_LEN,
            "interp: Op has more than TABLE_LEN variants"
        );
        for t in 0..=last {
            // Every `Op` payload is made of integers, so a tag with zeroed
            // payload bytes is a valid `Op`; `LoopHead` is the last variant,
            // so tags 0..=last are exactly the variants.
            let mut bytes = [0u8; std::mem::size_of::<Op>()];
            bytes[..2].copy_from_slice(&(t as u16).to_ne_bytes());
            // SAFETY: see above.
            let op: Op = unsafe { std::mem::transmute(bytes) };
            let h = handler_for(&op);
            // SAFETY: only written here, once, before any read (`Once`).
            unsafe { (*std::ptr::addr_of_mut!(TABLE))[t] = h };
        }
    });
}

#[cfg(feature = "op-stats")]
mod op_stats {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    const N: usize = super::TABLE_LEN;
    static PAIRS: [AtomicU64; N * N] = [const { AtomicU64::new(0) }; N * N];

    pub(super) fn count(a: usize, b: usize) {
        PAIRS[a * N + b].fetch_add(1, Relaxed);
    }

    fn name(t: usize) -> String {
        let mut bytes = [0u8; std::mem::size_of::<super::Op>()];
        bytes[..2].copy_from_slice(&(t as u16).to_ne_bytes());
        // SAFETY: as in `init_table` (t is a tag that was executed).
        let op: super::Op = unsafe { std::mem::transmute(bytes) };
        let s = format!("{op:?}");
        s.split(['(', ' ']).next().unwrap_or("").to_string()
    }

    /// Prints the 60 most frequent executed op pairs (and single ops) to stderr.
    pub fn print_op_stats() {
        let mut pairs = Vec::new();
        let mut singles = vec![0u64; N];
        for (i, c) in PAIRS.iter().enumerate() {
            let c = c.load(Relaxed);
            if c > 0 {
                pairs.push((c, i / N, i % N));
                singles[i / N] += c;
            }
        }
        let total: u64 = singles.iter().sum();
        pairs.sort_unstable_by(|a, b| b.0.cmp(&a.0));
        let mut ops: Vec<(u64, usize)> = singles
            .iter()
            .copied()
            .zip(0..)
            .filter(|s| s.0 > 0)
            .collect();
        ops.sort_unstable_by(|a, b| b.0.cmp(&a.0));
        eprintln!("op-stats: {total} dispatches");
        for (c, t) in ops.iter().take(40) {
            eprintln!(
                "op   {:6.2}% {}",
                100.0 * *c as f64 / total as f64,
                name(*t)
            );
        }
        for (c, a, b) in pairs.iter().take(60) {
            eprintln!(
                "pair {:6.2}% {} {}",
                100.0 * *c as f64 / total as f64,
                name(*a),
                name(*b)
            );
        }
    }
}
#[cfg(feature = "op-stats")]
pub use op_stats::print_op_stats;

/// Executes ops starting with `*first` (already fetched: an op of `code.ops`
/// or a dynamic probe's original op; `r.ip` is the op after it; writable, as
/// every op is: a `LoopHead` counts in place) until one
/// needs the store; see [`Regs`] for the invariants the caller guarantees.
pub(super) unsafe fn run(r: &mut Regs, first: *const Op) -> Exit {
    init_table();
    let (ip, sp, fp) = (r.ip, r.sp, r.fp);
    // SAFETY: `sp - 1` is the top operand, or the scratch slot below an
    // empty operand stack (`Compiled::operand_base`): in the frame.
    let tos = unsafe { *(sp - 1).0 };
    // SAFETY: the `Regs` invariants hold (caller).
    #[cfg_attr(wizeng_tail_calls, allow(unused_mut))]
    let mut done = unsafe { handler_of(first)(r, first, ip, sp, fp, tos) };
    #[cfg(not(wizeng_tail_calls))]
    while done == CONTINUE {
        let next = r.next;
        // SAFETY: as above; `r` holds the state the last handler left.
        done = unsafe { handler_of(next)(r, next, r.ip, r.sp, r.fp, r.tos) };
    }
    if done.is_null() {
        Exit::Trap(trap_kind(r.trap))
    } else {
        Exit::Cold(done)
    }
}

/// The handler of every op that `run` does not execute: hands it to `exec.rs`.
#[allow(improper_ctypes_definitions)]
unsafe extern "C" fn h_cold(
    r: &mut Regs,
    opp: *const Op,
    ip: Ip,
    sp: Slot,
    fp: Slot,
    tos: u64,
) -> Done {
    // Spill the top operand: `exec.rs` sees the whole stack in memory.
    // SAFETY: `sp - 1` is in the frame (see `run`).
    unsafe { *(sp - 1).0 = tos };
    r.ip = ip;
    r.sp = sp;
    r.fp = fp;
    opp
}

/// Defines one handler function per arm (`name: pattern => body`) and
/// `handler_for`, which maps an op to its handler. Every token a handler
/// body or the prelude names comes from the invocation, so the state
/// variables and the helper macros resolve (macro hygiene).
macro_rules! handlers {
    (
        sig: $sig:tt,
        op: $op:ident,
        prelude: $prelude:tt,
        next: $next:tt,
        $( $name:ident : $pat:pat => $body:expr ),* $(,)?
    ) => {
        $( handler_fn!($name, $sig, $op, $prelude, $next, $pat => $body); )*
        #[allow(unused_variables)]
        fn handler_for(op: &Op) -> Handler {
            match *op {
                $( $pat => $name, )*
                _ => h_cold,
            }
        }
    };
}

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

/// One handler of [`handlers!`].
macro_rules! handler_fn {
    ($name:ident, ($($sig:tt)*), $op:ident, { $($prelude:tt)* }, { $($next:tt)* }, $pat:pat => $body:expr) => {
        #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments, unused_macros, unreachable_code, improper_ctypes_definitions)]
        unsafe extern "C" fn $name($($sig)*) -> Done {
            $($prelude)*
            match *$op {
                $pat => $body,
                // SAFETY: `handler_for` maps only ops matching `$pat` here.
                _ => unsafe { std::hint::unreachable_unchecked() },
            }
            $($next)*
        }
    };
}

handlers! {
    sig: (r: &mut Regs, opp: *const Op, mut ip: Ip, mut sp: Slot, mut fp: Slot, mut tos: u64),
    op: op,
    prelude: {
        // SAFETY: `opp` is the op being dispatched (valid for this call).
        let op: &Op = unsafe { &*opp };
        let ops = r.ops;
        let base = r.base;
        let slen = r.slen;
        let mem_base = r.mem_base;
        let mem_len = r.mem_len;
    // `select` of the top two operands by a condition computed elsewhere.
    macro_rules! select_by {
        ($c:expr) => {{
            let c: bool = $c;
            let v2 = rd!(sp - 1);
            let v1 = rd!(sp - 2);
            sp -= 1;
            set_top!(if c { v1 } else { v2 });
        }};
    }
    // Push `local x OP local y` for f32.
    macro_rules! f32_ll {
        ($x:expr, $y:expr, |$a:ident, $b:ident| $e:expr) => {{
            let $a = f32::from_bits(loc!($x) as u32);
            let $b = f32::from_bits(loc!($y) as u32);
            push!(($e).to_bits() as u64);
        }};
    }
    // `top OP $b` for f32 (`$b` is the other operand's bits).
    macro_rules! f32_with {
        ($b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let $y = f32::from_bits($b as u32);
            let $x = f32::from_bits(top!() as u32);
            set_top!(($e).to_bits() as u64);
        }};
    }
    // Hand the state back to `exec.rs` (the top operand spilled).
    macro_rules! leave {
        () => {{
            mem_wr!(sp - 1, tos);
            r.ip = ip;
            r.sp = sp;
            r.fp = fp;
        }};
    }
    macro_rules! trap {
        ($kind:expr) => {{
            leave!();
            r.trap = trap_code($kind);
            return std::ptr::null();
        }};
    }
    // Call `$callee` (a function of this instance) whose arguments are below
    // the top `$skip` operands (the table index of `call_indirect`): push the
    // caller's frame here, as `exec.rs`'s `do_call!` does.
    macro_rules! enter {
        ($callee:expr, $skip:expr) => {{
            let callee: &Compiled = $callee;
            if r.nframes >= r.max_frames {
                cold!();
            }
            let np = callee.num_params as usize;
            let new_fp = sp - $skip - np;
            let new_sp = new_fp + callee.operand_base();
            if (new_sp - base) + callee.max_height as usize > slen {
                // `exec.rs` reports the exhausted stack.
                cold!();
            }
            // The arguments become the callee's first locals.
            mem_wr!(sp - 1, tos);
            let mut p = new_fp + np;
            while p != new_sp {
                // Below `new_sp + max_height <= slen` (checked above).
                mem_wr!(p, 0);
                p += 1;
            }
            // SAFETY: `nframes < max_frames <= capacity` of the frame buffer.
            unsafe {
                r.frames.add(r.nframes).write(Frame {
                    code: CodeRef(r.code),
                    ip: (ip as usize - ops as usize) / std::mem::size_of::<Op>(),
                    fp,
                    inst: r.inst,
                    serial: r.serial,
                })
            };
            r.nframes += 1;
            r.last_serial = r.last_serial.wrapping_add(1);
            r.serial = r.last_serial;
            r.code = callee;
            r.ops = callee.ops.as_ptr();
            r.br_tables = callee.br_tables.as_ptr();
            ip = r.ops;
            fp = new_fp;
            sp = new_sp;
            tos = 0;
        }};
    }
    // `exec.rs` runs this op.
    macro_rules! cold {
        () => {{
            leave!();
            return opp;
        }};
    }
    // Slot access: the top operand (`sp - 1`) is `tos`; everything else is
    // in memory (`mem_rd!`/`mem_wr!`).
    macro_rules! rd {
        (sp - 1) => {
            tos
        };
        ($i:expr) => {
            mem_rd!($i)
        };
    }
    macro_rules! wr {
        (sp - 1, $v:expr) => {{
            let v: u64 = $v;
            tos = v;
        }};
        ($i:expr, $v:expr) => {
            mem_wr!($i, $v)
        };
    }
    // After `sp` drops without a new top being written: reload `tos`.
    macro_rules! shrink {
        ($n:expr) => {{
            sp -= $n;
            tos = mem_rd!(sp - 1);
        }};
    }
    macro_rules! mem_rd {
        ($i:expr) => {{
            let p: Slot = $i;
            debug_assert!(p.0 >= base.0 && p - base < slen);
            // SAFETY: see the invariant at `Regs`.
            unsafe { *p.0 }
        }};
    }
    macro_rules! mem_wr {
        ($i:expr, $v:expr) => {{
            let v: u64 = $v;
            let p: Slot = $i;
            debug_assert!(p.0 >= base.0 && p - base < slen);
            // SAFETY: see the invariant at `Regs`.
            unsafe { *p.0 = v }
        }};
    }
    macro_rules! copy_slots {
        ($from:expr, $to:expr, $n:expr) => {{
            let (from, to, n): (Slot, Slot, usize) = ($from, $to, $n);
            debug_assert!(
                from.0 >= base.0
                    && to.0 >= base.0
                    && (from - base) + n <= slen
                    && (to - base) + n <= slen
            );
            // SAFETY: both ranges are within the frame (invariant at `Regs`); `copy` allows overlap.
            unsafe { std::ptr::copy(from.0, to.0, n) }
        }};
    }
    macro_rules! pop {
        () => {{
            let v = tos;
            shrink!(1);
            v
        }};
    }
    macro_rules! push {
        ($v:expr) => {{
            let v: u64 = $v;
            mem_wr!(sp - 1, tos);
            tos = v;
            sp += 1;
        }};
    }
    macro_rules! un {
        ($t:ty, $r:ty, |$a:ident| $e:expr) => {{
            let $a = rd!(sp - 1) as $t;
            wr!(sp - 1, ($e) as $r as u64);
        }};
    }
    macro_rules! bin {
        ($t:ty, $r:ty, |$a:ident, $b:ident| $e:expr) => {{
            let $b = rd!(sp - 1) as $t;
            let $a = rd!(sp - 2) as $t;
            sp -= 1;
            wr!(sp - 1, ($e) as $r as u64);
        }};
    }
    // Unary float ops quiet a NaN input (libm passes signalling NaNs through).
    macro_rules! f32un {
        (|$a:ident| $e:expr) => {{
            let $a = f32::from_bits(rd!(sp - 1) as u32);
            let r: f32 = if $a.is_nan() { $a + $a } else { $e };
            wr!(sp - 1, r.to_bits() as u64);
        }};
    }
    macro_rules! f64un {
        (|$a:ident| $e:expr) => {{
            let $a = f64::from_bits(rd!(sp - 1));
            let r: f64 = if $a.is_nan() { $a + $a } else { $e };
            wr!(sp - 1, r.to_bits());
        }};
    }
    macro_rules! f32bin {
        (|$a:ident, $b:ident| $e:expr) => {{
            let $b = f32::from_bits(rd!(sp - 1) as u32);
            let $a = f32::from_bits(rd!(sp - 2) as u32);
            sp -= 1;
            wr!(sp - 1, (($e) as f32).to_bits() as u64);
        }};
    }
    macro_rules! f64bin {
        (|$a:ident, $b:ident| $e:expr) => {{
            let $b = f64::from_bits(rd!(sp - 1));
            let $a = f64::from_bits(rd!(sp - 2));
            sp -= 1;
            wr!(sp - 1, (($e) as f64).to_bits());
        }};
    }
    macro_rules! f32cmp {
        (|$a:ident, $b:ident| $e:expr) => {{
            let $b = f32::from_bits(rd!(sp - 1) as u32);
            let $a = f32::from_bits(rd!(sp - 2) as u32);
            sp -= 1;
            wr!(sp - 1, ($e) as u64);
        }};
    }
    macro_rules! f64cmp {
        (|$a:ident, $b:ident| $e:expr) => {{
            let $b = f64::from_bits(rd!(sp - 1));
            let $a = f64::from_bits(rd!(sp - 2));
            sp -= 1;
            wr!(sp - 1, ($e) as u64);
        }};
    }
    // `$n` bytes of memory 0 at effective address `$a` (u64), or a trap.
    // `$n` bytes at effective address `$a` (u64) of the memory whose buffer is
    // `$base`/`$len`, or a trap.
    macro_rules! load_at {
        ($base:expr, $len:expr, $a:expr, $n:literal) => {{
            let (base, len, a): (*mut u8, u64, u64) = ($base, $len, $a);
            if a + $n > len {
                trap!(TrapKind::MemoryOutOfBounds);
            }
            // SAFETY: a + n <= len, and (base, len) describe a memory's current
            // buffer (invariant at `Regs`).
            unsafe { std::ptr::read_unaligned(base.add(a as usize) as *const [u8; $n]) }
        }};
    }
    macro_rules! load0 {
        ($a:expr, $n:literal) => {
            load_at!(mem_base, mem_len, $a, $n)
        };
    }
    // Buffer of memory `$m.mem`: memory 0 is cached.
    macro_rules! mem_of {
        ($m:expr) => {
            if $m.mem == 0 {
                (mem_base, mem_len)
            } else {
                // SAFETY: `Regs` invariant; the index is validated.
                unsafe { other_memory(r, $m.mem) }
            }
        };
    }
    macro_rules! load {
        ($m:expr, $n:literal, |$b:ident| $conv:expr) => {{
            let (base, len) = mem_of!($m);
            let a = rd!(sp - 1) as u32 as u64 + $m.offset as u64;
            let $b: [u8; $n] = load_at!(base, len, a, $n);
            wr!(sp - 1, $conv);
        }};
    }
    // Store `$bytes` at effective address `$a` (u64) of memory 0, or trap.
    macro_rules! store0 {
        ($a:expr, $bytes:expr) => {{
            let a: u64 = $a;
            let bytes = $bytes;
            if a + std::mem::size_of_val(&bytes) as u64 > mem_len {
                trap!(TrapKind::MemoryOutOfBounds);
            }
            // SAFETY: as in `load_at!`.
            unsafe { std::ptr::write_unaligned(mem_base.add(a as usize).cast(), bytes) }
        }};
    }
    macro_rules! store_ {
        ($m:expr, $n:literal, |$v:ident| $conv:expr) => {{
            let (base, len) = mem_of!($m);
            let $v = rd!(sp - 1);
            let a = rd!(sp - 2) as u32 as u64 + $m.offset as u64;
            if a + $n > len {
                trap!(TrapKind::MemoryOutOfBounds);
            }
            shrink!(2);
            let bytes: [u8; $n] = $conv;
            // SAFETY: as in `load_at!`.
            unsafe { std::ptr::write_unaligned(base.add(a as usize) as *mut [u8; $n], bytes) }
        }};
    }
    // Fused binop result: push, write a local, or both (see `DST_PUSH`/`DST_TEE`).
    macro_rules! put {
        ($dst:expr, $v:expr) => {{
            let v: u64 = $v;
            let dst: u32 = $dst;
            if dst < DST_TEE {
                wr!(fp + dst as usize, v);
            } else {
                if dst != DST_PUSH {
                    wr!(fp + (dst & !DST_TEE) as usize, v);
                }
                push!(v);
            }
        }};
    }
    macro_rules! loc {
        ($i:expr) => {
            rd!(fp + $i as usize)
        };
    }
    macro_rules! top {
        () => {
            rd!(sp - 1)
        };
    }
    macro_rules! set_top {
        ($v:expr) => {
            wr!(sp - 1, $v)
        };
    }
    macro_rules! jump {
        ($t:expr) => {
            ip = ops.wrapping_add($t as usize)
        };
    }
    macro_rules! do_br {
        ($b:expr) => {{
            let b: BrTarget = $b;
            let keep = b.keep as usize;
            let dst = fp + b.base as usize;
            if keep == 1 {
                // The kept value is `tos`.
                sp = dst + 1;
            } else {
                if keep > 1 {
                    mem_wr!(sp - 1, tos);
                    if dst != sp - keep {
                        copy_slots!(sp - keep, dst, keep);
                    }
                }
                sp = dst + keep;
                tos = mem_rd!(sp - 1);
            }
            ip = ops.wrapping_add(b.target as usize);
        }};
    }
    },
    next: {
        // SAFETY: `ip` is in bounds (invariant at `Regs`). Cells may be patched
        // by dynamic probes, but only while `run` is not executing.
        let next: *const Op = unsafe { (*ip).as_ptr() };
        let ip = ip.wrapping_add(1);
        #[cfg(feature = "op-stats")]
        op_stats::count(tag(opp), tag(next));
        #[cfg(wizeng_tail_calls)]
        // SAFETY: the `Regs` invariants still hold.
        return unsafe { handler_of(next)(r, next, ip, sp, fp, tos) };
        #[cfg(not(wizeng_tail_calls))]
        {
            r.next = next;
            r.ip = ip;
            r.sp = sp;
            r.fp = fp;
            r.tos = tos;
            return CONTINUE;
        }
    },
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
    h_I32Load: Op::I32Load(m) => load!(m, 4, |b| u32::from_le_bytes(b) as u64),
    h_I64Load: Op::I64Load(m) => load!(m, 8, |b| u64::from_le_bytes(b)),
    h_I32Load8S: Op::I32Load8S(m) => load!(m, 1, |b| b[0] as i8 as i32 as u32 as u64),
    h_I32Load8U: Op::I32Load8U(m) => load!(m, 1, |b| b[0] as u64),
    h_I32Load16S: Op::I32Load16S(m) => load!(m, 2, |b| i16::from_le_bytes(b) as i32 as u32 as u64),
    h_I32Load16U: Op::I32Load16U(m) => load!(m, 2, |b| u16::from_le_bytes(b) as u64),
    h_I64Load8S: Op::I64Load8S(m) => load!(m, 1, |b| b[0] as i8 as i64 as u64),
    h_I64Load8U: Op::I64Load8U(m) => load!(m, 1, |b| b[0] as u64),
    h_I64Load16S: Op::I64Load16S(m) => load!(m, 2, |b| i16::from_le_bytes(b) as i64 as u64),
    h_I64Load16U: Op::I64Load16U(m) => load!(m, 2, |b| u16::from_le_bytes(b) as u64),
    h_I64Load32S: Op::I64Load32S(m) => load!(m, 4, |b| i32::from_le_bytes(b) as i64 as u64),
    h_I64Load32U: Op::I64Load32U(m) => load!(m, 4, |b| u32::from_le_bytes(b) as u64),
    h_I32Store: Op::I32Store(m) => store_!(m, 4, |v| (v as u32).to_le_bytes()),
    h_I64Store: Op::I64Store(m) => store_!(m, 8, |v| v.to_le_bytes()),
    h_I32Store8: Op::I32Store8(m) | Op::I64Store8(m) => store_!(m, 1, |v| [v as u8]),
    h_I32Store16: Op::I32Store16(m) | Op::I64Store16(m) => {
                store_!(m, 2, |v| (v as u16).to_le_bytes())
            },
    h_I64Store32: Op::I64Store32(m) => store_!(m, 4, |v| (v as u32).to_le_bytes()),
    h_Const: Op::Const(c) => push!(c),
    h_I32Eqz: Op::I32Eqz => un!(u32, u32, |a| (a == 0) as u32),
    h_I32Eq: Op::I32Eq => bin!(u32, u32, |a, b| (a == b) as u32),
    h_I32Ne: Op::I32Ne => bin!(u32, u32, |a, b| (a != b) as u32),
    h_I32LtS: Op::I32LtS => bin!(u32, u32, |a, b| ((a as i32) < (b as i32)) as u32),
    h_I32LtU: Op::I32LtU => bin!(u32, u32, |a, b| (a < b) as u32),
    h_I32GtS: Op::I32GtS => bin!(u32, u32, |a, b| ((a as i32) > (b as i32)) as u32),
    h_I32GtU: Op::I32GtU => bin!(u32, u32, |a, b| (a > b) as u32),
    h_I32LeS: Op::I32LeS => bin!(u32, u32, |a, b| ((a as i32) <= (b as i32)) as u32),
    h_I32LeU: Op::I32LeU => bin!(u32, u32, |a, b| (a <= b) as u32),
    h_I32GeS: Op::I32GeS => bin!(u32, u32, |a, b| ((a as i32) >= (b as i32)) as u32),
    h_I32GeU: Op::I32GeU => bin!(u32, u32, |a, b| (a >= b) as u32),
    h_I64Eqz: Op::I64Eqz => un!(u64, u64, |a| (a == 0) as u64),
    h_I64Eq: Op::I64Eq => bin!(u64, u64, |a, b| (a == b) as u64),
    h_I64Ne: Op::I64Ne => bin!(u64, u64, |a, b| (a != b) as u64),
    h_I64LtS: Op::I64LtS => bin!(u64, u64, |a, b| ((a as i64) < (b as i64)) as u64),
    h_I64LtU: Op::I64LtU => bin!(u64, u64, |a, b| (a < b) as u64),
    h_I64GtS: Op::I64GtS => bin!(u64, u64, |a, b| ((a as i64) > (b as i64)) as u64),
    h_I64GtU: Op::I64GtU => bin!(u64, u64, |a, b| (a > b) as u64),
    h_I64LeS: Op::I64LeS => bin!(u64, u64, |a, b| ((a as i64) <= (b as i64)) as u64),
    h_I64LeU: Op::I64LeU => bin!(u64, u64, |a, b| (a <= b) as u64),
    h_I64GeS: Op::I64GeS => bin!(u64, u64, |a, b| ((a as i64) >= (b as i64)) as u64),
    h_I64GeU: Op::I64GeU => bin!(u64, u64, |a, b| (a >= b) as u64),
    h_F32Eq: Op::F32Eq => f32cmp!(|a, b| a == b),
    h_F32Ne: Op::F32Ne => f32cmp!(|a, b| a != b),
    h_F32Lt: Op::F32Lt => f32cmp!(|a, b| a < b),
    h_F32Gt: Op::F32Gt => f32cmp!(|a, b| a > b),
    h_F32Le: Op::F32Le => f32cmp!(|a, b| a <= b),
    h_F32Ge: Op::F32Ge => f32cmp!(|a, b| a >= b),
    h_F64Eq: Op::F64Eq => f64cmp!(|a, b| a == b),
    h_F64Ne: Op::F64Ne => f64cmp!(|a, b| a != b),
    h_F64Lt: Op::F64Lt => f64cmp!(|a, b| a < b),
    h_F64Gt: Op::F64Gt => f64cmp!(|a, b| a > b),
    h_F64Le: Op::F64Le => f64cmp!(|a, b| a <= b),
    h_F64Ge: Op::F64Ge => f64cmp!(|a, b| a >= b),
    h_I32Clz: Op::I32Clz => un!(u32, u32, |a| a.leading_zeros()),
    h_I32Ctz: Op::I32Ctz => un!(u32, u32, |a| a.trailing_zeros()),
    h_I32Popcnt: Op::I32Popcnt => un!(u32, u32, |a| a.count_ones()),
    h_I32Add: Op::I32Add => bin!(u32, u32, |a, b| a.wrapping_add(b)),
    h_I32Sub: Op::I32Sub => bin!(u32, u32, |a, b| a.wrapping_sub(b)),
    h_I32Mul: Op::I32Mul => bin!(u32, u32, |a, b| a.wrapping_mul(b)),
    h_I32DivS: Op::I32DivS => {
                let b = rd!(sp - 1) as u32 as i32;
                let a = rd!(sp - 2) as u32 as i32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                if a == i32::MIN && b == -1 {
                    trap!(TrapKind::IntegerOverflow);
                }
                sp -= 1;
                wr!(sp - 1, (a / b) as u32 as u64);
            },
    h_I32DivU: Op::I32DivU => {
                let b = rd!(sp - 1) as u32;
                let a = rd!(sp - 2) as u32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, (a / b) as u64);
            },
    h_I32RemS: Op::I32RemS => {
                let b = rd!(sp - 1) as u32 as i32;
                let a = rd!(sp - 2) as u32 as i32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a.wrapping_rem(b) as u32 as u64);
            },
    h_I32RemU: Op::I32RemU => {
                let b = rd!(sp - 1) as u32;
                let a = rd!(sp - 2) as u32;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, (a % b) as u64);
            },
    h_I32And: Op::I32And => bin!(u32, u32, |a, b| a & b),
    h_I32Or: Op::I32Or => bin!(u32, u32, |a, b| a | b),
    h_I32Xor: Op::I32Xor => bin!(u32, u32, |a, b| a ^ b),
    h_I32Shl: Op::I32Shl => bin!(u32, u32, |a, b| a.wrapping_shl(b)),
    h_I32ShrS: Op::I32ShrS => bin!(u32, u32, |a, b| (a as i32).wrapping_shr(b) as u32),
    h_I32ShrU: Op::I32ShrU => bin!(u32, u32, |a, b| a.wrapping_shr(b)),
    h_I32Rotl: Op::I32Rotl => bin!(u32, u32, |a, b| a.rotate_left(b & 31)),
    h_I32Rotr: Op::I32Rotr => bin!(u32, u32, |a, b| a.rotate_right(b & 31)),
    h_I64Clz: Op::I64Clz => un!(u64, u64, |a| a.leading_zeros()),
    h_I64Ctz: Op::I64Ctz => un!(u64, u64, |a| a.trailing_zeros()),
    h_I64Popcnt: Op::I64Popcnt => un!(u64, u64, |a| a.count_ones()),
    h_I64Add: Op::I64Add => bin!(u64, u64, |a, b| a.wrapping_add(b)),
    h_I64Sub: Op::I64Sub => bin!(u64, u64, |a, b| a.wrapping_sub(b)),
    h_I64Mul: Op::I64Mul => bin!(u64, u64, |a, b| a.wrapping_mul(b)),
    h_I64DivS: Op::I64DivS => {
                let b = rd!(sp - 1) as i64;
                let a = rd!(sp - 2) as i64;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                if a == i64::MIN && b == -1 {
                    trap!(TrapKind::IntegerOverflow);
                }
                sp -= 1;
                wr!(sp - 1, (a / b) as u64);
            },
    h_I64DivU: Op::I64DivU => {
                let b = rd!(sp - 1);
                let a = rd!(sp - 2);
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a / b);
            },
    h_I64RemS: Op::I64RemS => {
                let b = rd!(sp - 1) as i64;
                let a = rd!(sp - 2) as i64;
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a.wrapping_rem(b) as u64);
            },
    h_I64RemU: Op::I64RemU => {
                let b = rd!(sp - 1);
                let a = rd!(sp - 2);
                if b == 0 {
                    trap!(TrapKind::IntegerDivideByZero);
                }
                sp -= 1;
                wr!(sp - 1, a % b);
            },
    h_I64And: Op::I64And => bin!(u64, u64, |a, b| a & b),
    h_I64Or: Op::I64Or => bin!(u64, u64, |a, b| a | b),
    h_I64Xor: Op::I64Xor => bin!(u64, u64, |a, b| a ^ b),
    h_I64Shl: Op::I64Shl => bin!(u64, u64, |a, b| a.wrapping_shl(b as u32)),
    h_I64ShrS: Op::I64ShrS => bin!(u64, u64, |a, b| (a as i64).wrapping_shr(b as u32) as u64),
    h_I64ShrU: Op::I64ShrU => bin!(u64, u64, |a, b| a.wrapping_shr(b as u32)),
    h_I64Rotl: Op::I64Rotl => bin!(u64, u64, |a, b| a.rotate_left((b & 63) as u32)),
    h_I64Rotr: Op::I64Rotr => bin!(u64, u64, |a, b| a.rotate_right((b & 63) as u32)),
    h_F32Abs: Op::F32Abs => un!(u32, u32, |a| a & 0x7fff_ffff),
    h_F32Neg: Op::F32Neg => un!(u32, u32, |a| a ^ 0x8000_0000),
    h_F32Copysign: Op::F32Copysign => bin!(u32, u32, |a, b| (a & 0x7fff_ffff) | (b & 0x8000_0000)),
    h_F32Ceil: Op::F32Ceil => f32un!(|a| a.ceil()),
    h_F32Floor: Op::F32Floor => f32un!(|a| a.floor()),
    h_F32Trunc: Op::F32Trunc => f32un!(|a| a.trunc()),
    h_F32Nearest: Op::F32Nearest => f32un!(|a| a.round_ties_even()),
    h_F32Sqrt: Op::F32Sqrt => f32un!(|a| a.sqrt()),
    h_F32Add: Op::F32Add => f32bin!(|a, b| a + b),
    h_F32Sub: Op::F32Sub => f32bin!(|a, b| a - b),
    h_F32Mul: Op::F32Mul => f32bin!(|a, b| a * b),
    h_F32Div: Op::F32Div => f32bin!(|a, b| a / b),
    h_F32Min: Op::F32Min => f32bin!(|a, b| f32_min(a, b)),
    h_F32Max: Op::F32Max => f32bin!(|a, b| f32_max(a, b)),
    h_F64Abs: Op::F64Abs => un!(u64, u64, |a| a & 0x7fff_ffff_ffff_ffff),
    h_F64Neg: Op::F64Neg => un!(u64, u64, |a| a ^ 0x8000_0000_0000_0000),
    h_F64Copysign: Op::F64Copysign => bin!(u64, u64, |a, b| (a & 0x7fff_ffff_ffff_ffff)
                | (b & 0x8000_0000_0000_0000)),
    h_F64Ceil: Op::F64Ceil => f64un!(|a| a.ceil()),
    h_F64Floor: Op::F64Floor => f64un!(|a| a.floor()),
    h_F64Trunc: Op::F64Trunc => f64un!(|a| a.trunc()),
    h_F64Nearest: Op::F64Nearest => f64un!(|a| a.round_ties_even()),
    h_F64Sqrt: Op::F64Sqrt => f64un!(|a| a.sqrt()),
    h_F64Add: Op::F64Add => f64bin!(|a, b| a + b),
    h_F64Sub: Op::F64Sub => f64bin!(|a, b| a - b),
    h_F64Mul: Op::F64Mul => f64bin!(|a, b| a * b),
    h_F64Div: Op::F64Div => f64bin!(|a, b| a / b),
    h_F64Min: Op::F64Min => f64bin!(|a, b| f64_min(a, b)),
    h_F64Max: Op::F64Max => f64bin!(|a, b| f64_max(a, b)),
    h_I32WrapI64: Op::I32WrapI64 => un!(u64, u32, |a| a as u32),
    h_I32TruncF32S: Op::I32TruncF32S
            | Op::I32TruncF32U
            | Op::I32TruncF64S
            | Op::I32TruncF64U
            | Op::I64TruncF32S
            | Op::I64TruncF32U
            | Op::I64TruncF64S
            | Op::I64TruncF64U => {
                let s = rd!(sp - 1);
                let x = match *op {
                    Op::I32TruncF32S | Op::I32TruncF32U | Op::I64TruncF32S | Op::I64TruncF32U => {
                        f32::from_bits(s as u32) as f64
                    }
                    _ => f64::from_bits(s),
                };
                let r = match *op {
                    Op::I32TruncF32S | Op::I32TruncF64S => {
                        trunc_check(x, -2147483649.0, 2147483648.0).map(|v| v as i32 as u32 as u64)
                    }
                    Op::I32TruncF32U | Op::I32TruncF64U => {
                        trunc_check(x, -1.0, 4294967296.0).map(|v| v as u32 as u64)
                    }
                    Op::I64TruncF32S | Op::I64TruncF64S => {
                        // -2^63 is representable; anything below it is not.
                        if x.is_nan() {
                            Err(TrapKind::InvalidConversionToInteger)
                        } else if x < -9223372036854775808.0 || x >= 9223372036854775808.0 {
                            Err(TrapKind::IntegerOverflow)
                        } else {
                            Ok(x as i64 as u64)
                        }
                    }
                    _ => trunc_check(x, -1.0, 18446744073709551616.0).map(|v| v as u64),
                };
                match r {
                    Ok(v) => wr!(sp - 1, v),
                    Err(k) => trap!(k),
                }
            },
    h_I64ExtendI32S: Op::I64ExtendI32S => un!(u64, u64, |a| a as u32 as i32 as i64),
    h_I64ExtendI32U: Op::I64ExtendI32U => un!(u64, u64, |a| a as u32),
    h_F32ConvertI32S: Op::F32ConvertI32S => un!(u64, u32, |a| (a as u32 as i32 as f32).to_bits()),
    h_F32ConvertI32U: Op::F32ConvertI32U => un!(u64, u32, |a| (a as u32 as f32).to_bits()),
    h_F32ConvertI64S: Op::F32ConvertI64S => un!(u64, u32, |a| (a as i64 as f32).to_bits()),
    h_F32ConvertI64U: Op::F32ConvertI64U => un!(u64, u32, |a| (a as f32).to_bits()),
    h_F32DemoteF64: Op::F32DemoteF64 => un!(u64, u32, |a| (f64::from_bits(a) as f32).to_bits()),
    h_F64ConvertI32S: Op::F64ConvertI32S => un!(u64, u64, |a| (a as u32 as i32 as f64).to_bits()),
    h_F64ConvertI32U: Op::F64ConvertI32U => un!(u64, u64, |a| (a as u32 as f64).to_bits()),
    h_F64ConvertI64S: Op::F64ConvertI64S => un!(u64, u64, |a| (a as i64 as f64).to_bits()),
    h_F64ConvertI64U: Op::F64ConvertI64U => un!(u64, u64, |a| (a as f64).to_bits()),
    h_F64PromoteF32: Op::F64PromoteF32 => un!(u64, u64, |a| (f32::from_bits(a as u32) as f64).to_bits()),
    h_I32Extend8S: Op::I32Extend8S => un!(u64, u32, |a| a as u8 as i8 as i32 as u32),
    h_I32Extend16S: Op::I32Extend16S => un!(u64, u32, |a| a as u16 as i16 as i32 as u32),
    h_I64Extend8S: Op::I64Extend8S => un!(u64, u64, |a| a as u8 as i8 as i64),
    h_I64Extend16S: Op::I64Extend16S => un!(u64, u64, |a| a as u16 as i16 as i64),
    h_I64Extend32S: Op::I64Extend32S => un!(u64, u64, |a| a as u32 as i32 as i64),
    h_I32TruncSatF32S: Op::I32TruncSatF32S => un!(u64, u32, |a| f32::from_bits(a as u32) as i32 as u32),
    h_I32TruncSatF32U: Op::I32TruncSatF32U => un!(u64, u32, |a| f32::from_bits(a as u32) as u32),
    h_I32TruncSatF64S: Op::I32TruncSatF64S => un!(u64, u32, |a| f64::from_bits(a) as i32 as u32),
    h_I32TruncSatF64U: Op::I32TruncSatF64U => un!(u64, u32, |a| f64::from_bits(a) as u32),
    h_I64TruncSatF32S: Op::I64TruncSatF32S => un!(u64, u64, |a| f32::from_bits(a as u32) as i64),
    h_I64TruncSatF32U: Op::I64TruncSatF32U => un!(u64, u64, |a| f32::from_bits(a as u32) as u64),
    h_I64TruncSatF64S: Op::I64TruncSatF64S => un!(u64, u64, |a| f64::from_bits(a) as i64),
    h_I64TruncSatF64U: Op::I64TruncSatF64U => un!(u64, u64, |a| f64::from_bits(a) as u64),
    h_RefIsNull: Op::RefIsNull => un!(u64, u64, |a| (a == 0) as u64),
    h_I32AddLL: Op::I32AddLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_add(b)) as u64);
            },
    h_I32AddLC: Op::I32AddLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_add(b)) as u64);
            },
    h_I32AddC: Op::I32AddC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_add(b)) as u64);
            },
    h_I32AddL: Op::I32AddL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_add(b)) as u64);
            },
    h_I32SubLL: Op::I32SubLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_sub(b)) as u64);
            },
    h_I32SubLC: Op::I32SubLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_sub(b)) as u64);
            },
    h_I32SubC: Op::I32SubC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_sub(b)) as u64);
            },
    h_I32SubL: Op::I32SubL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_sub(b)) as u64);
            },
    h_I32MulLL: Op::I32MulLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_mul(b)) as u64);
            },
    h_I32MulLC: Op::I32MulLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_mul(b)) as u64);
            },
    h_I32MulC: Op::I32MulC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_mul(b)) as u64);
            },
    h_I32MulL: Op::I32MulL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_mul(b)) as u64);
            },
    h_I32AndLL: Op::I32AndLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a & b) as u64);
            },
    h_I32AndLC: Op::I32AndLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a & b) as u64);
            },
    h_I32AndC: Op::I32AndC(b) => {
                let a = top!() as u32;
                set_top!((a & b) as u64);
            },
    h_I32AndL: Op::I32AndL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a & b) as u64);
            },
    h_I32OrLL: Op::I32OrLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a | b) as u64);
            },
    h_I32OrLC: Op::I32OrLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a | b) as u64);
            },
    h_I32OrC: Op::I32OrC(b) => {
                let a = top!() as u32;
                set_top!((a | b) as u64);
            },
    h_I32OrL: Op::I32OrL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a | b) as u64);
            },
    h_I32XorLL: Op::I32XorLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a ^ b) as u64);
            },
    h_I32XorLC: Op::I32XorLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a ^ b) as u64);
            },
    h_I32XorC: Op::I32XorC(b) => {
                let a = top!() as u32;
                set_top!((a ^ b) as u64);
            },
    h_I32XorL: Op::I32XorL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a ^ b) as u64);
            },
    h_I32ShlLL: Op::I32ShlLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_shl(b)) as u64);
            },
    h_I32ShlLC: Op::I32ShlLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_shl(b)) as u64);
            },
    h_I32ShlC: Op::I32ShlC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_shl(b)) as u64);
            },
    h_I32ShlL: Op::I32ShlL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_shl(b)) as u64);
            },
    h_I32ShrSLL: Op::I32ShrSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrSLC: Op::I32ShrSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrSC: Op::I32ShrSC(b) => {
                let a = top!() as u32;
                set_top!(((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrSL: Op::I32ShrSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a as i32).wrapping_shr(b) as u32) as u64);
            },
    h_I32ShrULL: Op::I32ShrULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (a.wrapping_shr(b)) as u64);
            },
    h_I32ShrULC: Op::I32ShrULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (a.wrapping_shr(b)) as u64);
            },
    h_I32ShrUC: Op::I32ShrUC(b) => {
                let a = top!() as u32;
                set_top!((a.wrapping_shr(b)) as u64);
            },
    h_I32ShrUL: Op::I32ShrUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((a.wrapping_shr(b)) as u64);
            },
    h_I32EqLL: Op::I32EqLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a == b) as u32) as u64);
            },
    h_I32EqLC: Op::I32EqLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a == b) as u32) as u64);
            },
    h_I32EqC: Op::I32EqC(b) => {
                let a = top!() as u32;
                set_top!(((a == b) as u32) as u64);
            },
    h_I32EqL: Op::I32EqL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a == b) as u32) as u64);
            },
    h_I32NeLL: Op::I32NeLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a != b) as u32) as u64);
            },
    h_I32NeLC: Op::I32NeLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a != b) as u32) as u64);
            },
    h_I32NeC: Op::I32NeC(b) => {
                let a = top!() as u32;
                set_top!(((a != b) as u32) as u64);
            },
    h_I32NeL: Op::I32NeL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a != b) as u32) as u64);
            },
    h_I32LtSLL: Op::I32LtSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtSLC: Op::I32LtSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtSC: Op::I32LtSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtSL: Op::I32LtSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) < (b as i32)) as u32) as u64);
            },
    h_I32LtULL: Op::I32LtULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a < b) as u32) as u64);
            },
    h_I32LtULC: Op::I32LtULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a < b) as u32) as u64);
            },
    h_I32LtUC: Op::I32LtUC(b) => {
                let a = top!() as u32;
                set_top!(((a < b) as u32) as u64);
            },
    h_I32LtUL: Op::I32LtUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a < b) as u32) as u64);
            },
    h_I32GtSLL: Op::I32GtSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtSLC: Op::I32GtSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtSC: Op::I32GtSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtSL: Op::I32GtSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) > (b as i32)) as u32) as u64);
            },
    h_I32GtULL: Op::I32GtULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a > b) as u32) as u64);
            },
    h_I32GtULC: Op::I32GtULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a > b) as u32) as u64);
            },
    h_I32GtUC: Op::I32GtUC(b) => {
                let a = top!() as u32;
                set_top!(((a > b) as u32) as u64);
            },
    h_I32GtUL: Op::I32GtUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a > b) as u32) as u64);
            },
    h_I32LeSLL: Op::I32LeSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeSLC: Op::I32LeSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeSC: Op::I32LeSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeSL: Op::I32LeSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) <= (b as i32)) as u32) as u64);
            },
    h_I32LeULL: Op::I32LeULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a <= b) as u32) as u64);
            },
    h_I32LeULC: Op::I32LeULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a <= b) as u32) as u64);
            },
    h_I32LeUC: Op::I32LeUC(b) => {
                let a = top!() as u32;
                set_top!(((a <= b) as u32) as u64);
            },
    h_I32LeUL: Op::I32LeUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a <= b) as u32) as u64);
            },
    h_I32GeSLL: Op::I32GeSLL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, (((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeSLC: Op::I32GeSLC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, (((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeSC: Op::I32GeSC(b) => {
                let a = top!() as u32;
                set_top!((((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeSL: Op::I32GeSL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!((((a as i32) >= (b as i32)) as u32) as u64);
            },
    h_I32GeULL: Op::I32GeULL { a: x, b: y, dst } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                put!(dst, ((a >= b) as u32) as u64);
            },
    h_I32GeULC: Op::I32GeULC { a: x, c: b, dst } => {
                let a = loc!(x) as u32;
                put!(dst, ((a >= b) as u32) as u64);
            },
    h_I32GeUC: Op::I32GeUC(b) => {
                let a = top!() as u32;
                set_top!(((a >= b) as u32) as u64);
            },
    h_I32GeUL: Op::I32GeUL(y) => {
                let b = loc!(y) as u32;
                let a = top!() as u32;
                set_top!(((a >= b) as u32) as u64);
            },
    h_JmpI32Eq: Op::JmpI32Eq(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32EqC: Op::JmpI32EqC { c: b, t } => {
                let a = pop!() as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32EqLC: Op::JmpI32EqLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32EqLL: Op::JmpI32EqLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a == b {
                    jump!(t);
                }
            },
    h_JmpI32Ne: Op::JmpI32Ne(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32NeC: Op::JmpI32NeC { c: b, t } => {
                let a = pop!() as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32NeLC: Op::JmpI32NeLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32NeLL: Op::JmpI32NeLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a != b {
                    jump!(t);
                }
            },
    h_JmpI32LtS: Op::JmpI32LtS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtSC: Op::JmpI32LtSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtSLC: Op::JmpI32LtSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtSLL: Op::JmpI32LtSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) < (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LtU: Op::JmpI32LtU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32LtUC: Op::JmpI32LtUC { c: b, t } => {
                let a = pop!() as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32LtULC: Op::JmpI32LtULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32LtULL: Op::JmpI32LtULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a < b {
                    jump!(t);
                }
            },
    h_JmpI32GtS: Op::JmpI32GtS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtSC: Op::JmpI32GtSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtSLC: Op::JmpI32GtSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtSLL: Op::JmpI32GtSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) > (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GtU: Op::JmpI32GtU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32GtUC: Op::JmpI32GtUC { c: b, t } => {
                let a = pop!() as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32GtULC: Op::JmpI32GtULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32GtULL: Op::JmpI32GtULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a > b {
                    jump!(t);
                }
            },
    h_JmpI32LeS: Op::JmpI32LeS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeSC: Op::JmpI32LeSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeSLC: Op::JmpI32LeSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeSLL: Op::JmpI32LeSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) <= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32LeU: Op::JmpI32LeU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32LeUC: Op::JmpI32LeUC { c: b, t } => {
                let a = pop!() as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32LeULC: Op::JmpI32LeULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32LeULL: Op::JmpI32LeULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a <= b {
                    jump!(t);
                }
            },
    h_JmpI32GeS: Op::JmpI32GeS(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeSC: Op::JmpI32GeSC { c: b, t } => {
                let a = pop!() as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeSLC: Op::JmpI32GeSLC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeSLL: Op::JmpI32GeSLL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if (a as i32) >= (b as i32) {
                    jump!(t);
                }
            },
    h_JmpI32GeU: Op::JmpI32GeU(t) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_JmpI32GeUC: Op::JmpI32GeUC { c: b, t } => {
                let a = pop!() as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_JmpI32GeULC: Op::JmpI32GeULC { a: x, c: b, t } => {
                let a = loc!(x) as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_JmpI32GeULL: Op::JmpI32GeULL { a: x, b: y, t } => {
                let a = loc!(x) as u32;
                let b = loc!(y) as u32;
                if a >= b {
                    jump!(t);
                }
            },
    h_F64AddL: Op::F64AddL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!((a + b).to_bits());
            },
    h_F64AddLL: Op::F64AddLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!((a + b).to_bits());
            },
    h_F64AddC: Op::F64AddC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!((a + b).to_bits());
            },
    h_F64SubL: Op::F64SubL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!((a - b).to_bits());
            },
    h_F64SubLL: Op::F64SubLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!((a - b).to_bits());
            },
    h_F64SubC: Op::F64SubC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!((a - b).to_bits());
            },
    h_F64MulL: Op::F64MulL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!((a * b).to_bits());
            },
    h_F64MulLL: Op::F64MulLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!((a * b).to_bits());
            },
    h_F64MulC: Op::F64MulC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!((a * b).to_bits());
            },
    h_F64DivL: Op::F64DivL(y) => {
                let b = f64::from_bits(loc!(y));
                let a = f64::from_bits(top!());
                set_top!((a / b).to_bits());
            },
    h_F64DivLL: Op::F64DivLL(x, y) => {
                let a = f64::from_bits(loc!(x));
                let b = f64::from_bits(loc!(y));
                push!((a / b).to_bits());
            },
    h_F64DivC: Op::F64DivC(c) => {
                let b = f64::from_bits(c);
                let a = f64::from_bits(top!());
                set_top!((a / b).to_bits());
            },
    h_I32LoadL: Op::I32LoadL { a, off } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 4);
                push!(u32::from_le_bytes(b) as u64)
            },
    h_I64LoadL: Op::I64LoadL { a, off } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 8);
                push!(u64::from_le_bytes(b))
            },
    h_I32LoadLL: Op::I32LoadLL { a, b, off } => {
                let b = load0!(
                    (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    4
                );
                push!(u32::from_le_bytes(b) as u64)
            },
    h_I64LoadLL: Op::I64LoadLL { a, b, off } => {
                let b = load0!(
                    (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    8
                );
                push!(u64::from_le_bytes(b))
            },
    h_I32LoadSL: Op::I32LoadSL { b, off } => {
                let b = load0!(
                    (top!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    4
                );
                set_top!(u32::from_le_bytes(b) as u64)
            },
    h_I64LoadSL: Op::I64LoadSL { b, off } => {
                let b = load0!(
                    (top!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64,
                    8
                );
                set_top!(u64::from_le_bytes(b))
            },
    h_I32AddMulLC: Op::I32AddMulLC { a, c } => {
                let v = (loc!(a) as u32).wrapping_mul(c);
                set_top!((top!() as u32).wrapping_add(v) as u64);
            },
    h_I32AddShlLC: Op::I32AddShlLC { a, c } => {
                let v = (loc!(a) as u32).wrapping_shl(c);
                set_top!((top!() as u32).wrapping_add(v) as u64);
            },
    h_I32Add3: Op::I32Add3 => {
                let z = rd!(sp - 1) as u32;
                let y = rd!(sp - 2) as u32;
                let x = rd!(sp - 3) as u32;
                sp -= 2;
                set_top!(x.wrapping_add(y).wrapping_add(z) as u64);
            },
    h_I32AddS: Op::I32AddS(dst) => {
                let b = pop!() as u32;
                let a = pop!() as u32;
                put!(dst, a.wrapping_add(b) as u64);
            },
    h_F64Add3: Op::F64Add3 => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!((x + (y + z)).to_bits());
            },
    h_F64MulAdd: Op::F64MulAdd => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!((x + y * z).to_bits());
            },
    h_LocalGet2: Op::LocalGet2(a, b) => {
                push!(loc!(a));
                push!(loc!(b));
            },
    h_TeeGet: Op::TeeGet(a, b) => {
                wr!(fp + a as usize, top!());
                push!(loc!(b));
            },
    h_I32LoadSS: Op::I32LoadSS { off } => {
                let b = pop!() as u32;
                let a = (top!() as u32).wrapping_add(b) as u64 + off as u64;
                set_top!(u32::from_le_bytes(load0!(a, 4)) as u64);
            },
    h_I64LoadSS: Op::I64LoadSS { off } => {
                let b = pop!() as u32;
                let a = (top!() as u32).wrapping_add(b) as u64 + off as u64;
                set_top!(u64::from_le_bytes(load0!(a, 8)));
            },
    h_I32LoadLS: Op::I32LoadLS { a, off, dst } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 4);
                put!(dst, u32::from_le_bytes(b) as u64);
            },
    h_I64LoadLS: Op::I64LoadLS { a, off, dst } => {
                let b = load0!(loc!(a) as u32 as u64 + off as u64, 8);
                put!(dst, u64::from_le_bytes(b));
            },
    h_I32LoadSLS: Op::I32LoadSLS { b, off, dst } => {
                let a = (pop!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                put!(dst, u32::from_le_bytes(load0!(a, 4)) as u64);
            },
    h_I64LoadSLS: Op::I64LoadSLS { b, off, dst } => {
                let a = (pop!() as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                put!(dst, u64::from_le_bytes(load0!(a, 8)));
            },
    h_F64AddLoadSS: Op::F64AddLoadSS { off } => {
                let q = rd!(sp - 1) as u32;
                let p = rd!(sp - 2) as u32;
                let x = f64::from_bits(rd!(sp - 3));
                let y = f64::from_bits(u64::from_le_bytes(load0!(
                    p.wrapping_add(q) as u64 + off as u64,
                    8
                )));
                sp -= 2;
                set_top!((x + y).to_bits());
            },
    h_LocalCopy: Op::LocalCopy { src, dst } => wr!(fp + dst as usize, loc!(src)),
    h_LocalSetConst: Op::LocalSetConst { dst, c } => wr!(fp + dst as usize, c),
    h_Nop: Op::Nop => {},
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
    h_F32AddL: Op::F32AddL(y) => f32_with!(loc!(y), |a, b| a + b),
    h_F32AddLL: Op::F32AddLL(x, y) => f32_ll!(x, y, |a, b| a + b),
    h_F32AddC: Op::F32AddC(c) => f32_with!(c, |a, b| a + b),
    h_F32SubL: Op::F32SubL(y) => f32_with!(loc!(y), |a, b| a - b),
    h_F32SubLL: Op::F32SubLL(x, y) => f32_ll!(x, y, |a, b| a - b),
    h_F32SubC: Op::F32SubC(c) => f32_with!(c, |a, b| a - b),
    h_F32MulL: Op::F32MulL(y) => f32_with!(loc!(y), |a, b| a * b),
    h_F32MulLL: Op::F32MulLL(x, y) => f32_ll!(x, y, |a, b| a * b),
    h_F32MulC: Op::F32MulC(c) => f32_with!(c, |a, b| a * b),
    h_F32DivL: Op::F32DivL(y) => f32_with!(loc!(y), |a, b| a / b),
    h_F32DivLL: Op::F32DivLL(x, y) => f32_ll!(x, y, |a, b| a / b),
    h_F32DivC: Op::F32DivC(c) => f32_with!(c, |a, b| a / b),
    h_Inc2: Op::Inc2 { c, a, b, d } => {
                wr!(fp + a as usize, (loc!(a) as u32).wrapping_add(c as i32 as u32) as u64);
                wr!(fp + b as usize, (loc!(b) as u32).wrapping_add(d) as u64);
            },
    h_I32LoadLC: Op::I32LoadLC { a, c, off } => {
                let ea = (loc!(a) as u32).wrapping_add(c) as u64 + off as u64;
                push!(u32::from_le_bytes(load0!(ea, 4)) as u64);
            },
    h_I64LoadLC: Op::I64LoadLC { a, c, off } => {
                let ea = (loc!(a) as u32).wrapping_add(c) as u64 + off as u64;
                push!(u64::from_le_bytes(load0!(ea, 8)));
            },
    h_I32AddMulLLC: Op::I32AddMulLLC { x, a, c } => {
                push!((loc!(x) as u32).wrapping_add((loc!(a) as u32).wrapping_mul(c)) as u64)
            },
    h_LocalGet3: Op::LocalGet3(a, b, c) => {
                push!(loc!(a));
                push!(loc!(b));
                push!(loc!(c));
            },
    h_I64StoreTee: Op::I64StoreTee { t, off } => {
                let v = rd!(sp - 1);
                wr!(fp + t as usize, v);
                let a = rd!(sp - 2) as u32 as u64 + off as u64;
                store0!(a, v.to_le_bytes());
                shrink!(2);
            },
    h_F64MulAddStore: Op::F64MulAddStore { off } => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                let a = rd!(sp - 4) as u32 as u64 + off as u64;
                store0!(a, (x + y * z).to_bits().to_le_bytes());
                shrink!(4);
            },
    h_F64MulAddTeeStore: Op::F64MulAddTeeStore { t, off } => {
                let z = f64::from_bits(rd!(sp - 1));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                let v = (x + y * z).to_bits();
                wr!(fp + t as usize, v);
                let a = rd!(sp - 4) as u32 as u64 + off as u64;
                store0!(a, v.to_le_bytes());
                shrink!(4);
            },
    h_F64MulAddLoadLL: Op::F64MulAddLoadLL { a, b, off } => {
                let ea = (loc!(a) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                let z = f64::from_bits(u64::from_le_bytes(load0!(ea, 8)));
                let y = f64::from_bits(rd!(sp - 1));
                let x = f64::from_bits(rd!(sp - 2));
                sp -= 1;
                set_top!((x + y * z).to_bits());
            },
    h_F64MulAddLoadSL: Op::F64MulAddLoadSL { b, off } => {
                let ea = (rd!(sp - 1) as u32).wrapping_add(loc!(b) as u32) as u64 + off as u64;
                let z = f64::from_bits(u64::from_le_bytes(load0!(ea, 8)));
                let y = f64::from_bits(rd!(sp - 2));
                let x = f64::from_bits(rd!(sp - 3));
                sp -= 2;
                set_top!((x + y * z).to_bits());
            },
    h_I32StoreTee: Op::I32StoreTee { t, off } => {
                let v = rd!(sp - 1);
                wr!(fp + t as usize, v);
                let a = rd!(sp - 2) as u32 as u64 + off as u64;
                store0!(a, (v as u32).to_le_bytes());
                shrink!(2);
            },
    h_SelectGtSLL: Op::SelectGtSLL { a, b } => {
                select_by!((loc!(a) as u32 as i32) > (loc!(b) as u32 as i32))
            },
    h_SelectLtSLL: Op::SelectLtSLL { a, b } => {
                select_by!((loc!(a) as u32 as i32) < (loc!(b) as u32 as i32))
            },
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
    // here (as `exec.rs`'s `do_call!` does); anything else goes to `exec.rs`.
    h_Call: Op::Call(f) => {
                if !r.hot_calls || f < r.num_imported {
                    cold!();
                }
                // SAFETY: `f` is a validated function index of the module, and
                // defined functions have code; the `Arc` outlives this call
                // (invariant at `CodeRef`).
                let callee: &Compiled = unsafe { &**r.mod_code.add((f - r.num_imported) as usize) };
                enter!(callee, 0);
            },
    // `call_indirect` to one of the instance's own functions; a trap, or any
    // other callee, goes to `exec.rs`.
    h_CallIndirect: Op::CallIndirect { ty, table } => {
                if !r.hot_calls {
                    cold!();
                }
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
                                    Some(&**r.mod_code.add((func_idx - r.num_imported) as usize))
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    }
                };
                match callee {
                    Some(callee) => enter!(callee, 1),
                    None => cold!(),
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
    h_IncJmpNe: Op::IncJmpNe { c, a, k, t } => {
                let v = (loc!(a) as u32).wrapping_add(c as i32 as u32);
                wr!(fp + a as usize, v as u64);
                if v != k {
                    jump!(t);
                }
            },
}
