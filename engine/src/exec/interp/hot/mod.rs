//! The interpreter's hot ops: numeric, locals, globals, branches, loads and
//! stores, superinstructions, and (in the interpreter tier) calls and returns
//! within an instance.
//!
//! Each op has a handler function; handlers pass the state (`ip`, `sp`, `fp`,
//! the top operand) in argument registers and tail-call the next op's handler
//! (threaded dispatch, see [`Handler`]). They make no calls into the store.
//! Anything else (other calls, probes, bulk memory, tables, traps) ends
//! [`run`] with an [`Exit`]; `exec.rs` handles it and re-enters.
//!
//! This file has the entry point [`run`], the registers [`Regs`], the
//! dispatch table [`TABLE`] and the macros that generate handlers; the
//! handlers themselves are in one file per group: `control` (branches, calls,
//! returns), `vars` (locals, globals, constants), `memory` (loads and stores),
//! `ints`, `fused_ints` (integer superinstructions), `fused_branches`
//! (compare-and-branch superinstructions), `floats`, `monitor` (counter
//! increments) and `simd`.

use super::code::*;
use super::exec::{CodeRef, Frame};
use crate::core::error::TrapKind;
use crate::core::probe::DirectInc;
use crate::core::types::{GlobalAddr, MemAddr};
use crate::runtime::store::{FuncKind, GlobalInst, MemoryInst};

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
/// * `call_counts`, if not null, has a count for every store function and
///   `inst_funcs` is the instance's function addresses (calls in `run` stay
///   within the instance).
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
    /// Dyn tier (else null): the tier-up policy's call count of every store
    /// function (`tiering::hot_call_counts`), and the instance's function
    /// addresses. A call whose count stays below the threshold counts in
    /// place and runs here; any other goes to `exec.rs`.
    pub(super) call_counts: *mut u32,
    pub(super) inst_funcs: *const crate::core::types::FuncAddr,
    /// The store's tables and functions, the instance's table addresses and
    /// interned type ids (for `call_indirect`).
    pub(super) tables: *const crate::runtime::store::TableInst,
    pub(super) inst_tables: *const crate::core::types::TableAddr,
    pub(super) funcs: *const crate::runtime::store::FuncInst,
    pub(super) type_ids: *const u32,
    /// The instance's module's code, by defined-function index, and its number
    /// of imported functions.
    /// A function not translated yet (an empty slot) is called through `exec.rs`.
    pub(super) mod_code: *const std::cell::OnceCell<std::rc::Rc<Compiled>>,
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
    /// the pointer is `first` or into `code.ops`, or the inner access of a
    /// `code.mem64` entry).
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

/// The tag of an op. `Op` is `#[repr(u16)]`: by the layout Rust guarantees for
/// primitive-representation enums with fields (a `repr(C)` union of
/// `repr(C)` structs, each starting with the `u16` tag), the first two bytes
/// of every `Op` value are its tag, which is the variant's declaration index
/// (no variant has an explicit discriminant).
#[inline(always)]
const fn tag(op: *const Op) -> usize {
    // SAFETY: `op` points to a valid `Op`, whose first field is its `u16` tag.
    unsafe { *(op as *const u16) as usize }
}

/// The handler groups, each a list of (sample op, handler).
const GROUPS: [&[(Op, Handler)]; 9] = [
    control::HANDLERS,
    vars::HANDLERS,
    memory::HANDLERS,
    ints::HANDLERS,
    fused_ints::HANDLERS,
    fused_branches::HANDLERS,
    floats::HANDLERS,
    monitor::HANDLERS,
    simd::HANDLERS,
];

/// Handlers by op tag, built at compile time: each group's handler at the tag
/// of each op it handles, [`h_cold`] everywhere else. The build fails (a
/// const-evaluation panic) if a tag is not below [`TABLE_LEN`] or two entries
/// claim one tag. [`every_op_has_one_entry`] makes sure that every variant of
/// `Op` is either some group's or in [`COLD`], and `COLD`'s tags are checked
/// too: so every `Op` a handler can be asked to dispatch indexes the table in
/// bounds.
static TABLE: [Handler; TABLE_LEN] = build_table();

const fn build_table() -> [Handler; TABLE_LEN] {
    let mut table = [h_cold as Handler; TABLE_LEN];
    let mut claimed = [false; TABLE_LEN];
    let mut g = 0;
    while g < GROUPS.len() {
        let group = GROUPS[g];
        let mut i = 0;
        while i < group.len() {
            let t = tag(&group[i].0);
            assert!(t < TABLE_LEN, "interp: an Op tag is not below TABLE_LEN");
            assert!(!claimed[t], "interp: two handlers for one Op");
            claimed[t] = true;
            table[t] = group[i].1;
            i += 1;
        }
        g += 1;
    }
    let mut i = 0;
    while i < COLD.len() {
        let t = tag(&COLD[i]);
        assert!(t < TABLE_LEN, "interp: an Op tag is not below TABLE_LEN");
        assert!(!claimed[t], "interp: a cold Op has a handler");
        claimed[t] = true;
        i += 1;
    }
    table
}

#[inline(always)]
fn handler_of(op: *const Op) -> Handler {
    // SAFETY: every `Op`'s tag is below `TABLE_LEN` (checked at compile time
    // by `build_table`, for every variant: see `every_op_has_one_entry`).
    unsafe { *TABLE.as_ptr().add(tag(op)) }
}

#[cfg(feature = "op-stats")]
mod op_stats {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    const N: usize = super::TABLE_LEN;
    static PAIRS: [AtomicU64; N * N] = [const { AtomicU64::new(0) }; N * N];

    pub(super) fn count(a: usize, b: usize) {
        PAIRS[a * N + b].fetch_add(1, Relaxed);
    }

    /// The name of the variant with tag `t` (from the table's samples).
    fn name(t: usize) -> String {
        let op = super::GROUPS
            .iter()
            .flat_map(|g| g.iter().map(|e| e.0))
            .chain(super::COLD.iter().copied())
            .find(|op| super::tag(op) == t);
        let s = format!("{op:?}");
        let s = s.strip_prefix("Some(").unwrap_or(&s);
        s.split(['(', ' ', ')']).next().unwrap_or("").to_string()
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

// ---------------------------------------------------------------------------
// The handler machinery. Each group file (`control.rs`, `ints.rs`, ...) has
// one `handlers!` invocation; the table is built from all groups' lists.

/// `Zero::ZERO` for an op payload field: with it the handler groups build one
/// valid `Op` of each variant they handle (the sample whose tag selects the
/// table entry), without transmuting bytes. A payload type without an impl
/// does not compile, so a sample can never be an invalid value.
pub(super) trait Zero {
    const ZERO: Self;
}
impl Zero for u32 {
    const ZERO: u32 = 0;
}
impl Zero for u64 {
    const ZERO: u64 = 0;
}
impl Zero for i16 {
    const ZERO: i16 = 0;
}
impl Zero for MemArg {
    const ZERO: MemArg = MemArg { offset: 0, mem: 0 };
}
impl Zero for AtomicOp {
    const ZERO: AtomicOp = AtomicOp::ZERO;
}
impl Zero for BrTarget {
    const ZERO: BrTarget = BrTarget {
        target: 0,
        base: 0,
        keep: 0,
    };
}

/// A sample value for one tuple-variant field (the binding is ignored).
macro_rules! zero_field {
    ($binding:tt) => {
        Zero::ZERO
    };
}
/// A wildcard for one tuple-variant field (the binding is ignored).
macro_rules! wild_field {
    ($binding:tt) => {
        _
    };
}

/// Defines, for one group of ops:
/// * one handler function per arm (`h_Name: pattern => body`, the pattern an
///   alternation of `Op::Variant`, `Op::Variant(bindings)` or
///   `Op::Variant { fields }`), see `handler_fn!`;
/// * `HANDLERS`: each variant an arm matches, as a sample value (built from
///   the pattern with [`Zero`]), with the arm's handler; [`TABLE`] is built
///   from these;
/// * the macro `$group!()`, a pattern matching exactly those variants (with
///   wildcards), for the exhaustiveness check [`every_op_has_one_entry`].
///
/// `state` names the handler's state variables (registers `r`, the op pointer
/// `opp`, the op `op`, `ip`, `sp`, `fp`, the top operand `tos`): the names come
/// from the invocation so that the arm bodies, written there, can use them
/// (macro hygiene: a local is only visible to tokens of the same origin).
macro_rules! handlers {
    (
        group: $group:ident,
        state: $state:tt,
        $(
            $name:ident :
            $( Op::$v:ident $( ( $($tf:tt),* ) )? $( { $($sf:ident $(: $sb:ident)?),* } )? )|+
            => $body:expr
        ),* $(,)?
    ) => {
        $(
            handler_fn!(
                $state $name,
                [ $( Op::$v $( ( $($tf),* ) )? $( { $($sf $(: $sb)?),* } )? )|+ ] => $body
            );
        )*

        /// A sample of each op this group handles, with its handler.
        pub(super) const HANDLERS: &[(Op, Handler)] = &[
            $( $(
                (
                    Op::$v $( ( $( zero_field!($tf) ),* ) )? $( { $($sf: Zero::ZERO),* } )?,
                    $name as Handler,
                ),
            )+ )*
        ];

        /// A pattern matching exactly the ops this group handles.
        #[allow(unused_macros)]
        macro_rules! $group {
            () => {
                $( $( Op::$v $( ( $( wild_field!($tf) ),* ) )? $( { $($sf: _),* } )? )|+ )|*
            };
        }
    };
}

/// One handler of `handlers!`: the prelude (the state, the helper macros
/// the bodies use), the arm's body, then the dispatch of the next op.
/// `$s_*` are the state names of the invocation (see [`handlers!`]); the
/// other locals (`ops`, `base`, `slen`, `mem_base`, `mem_len`, `next`) are
/// private to the prelude and its helper macros.
macro_rules! handler_fn {
    (
        [$s_r:ident, $s_opp:ident, $s_op:ident, $s_ip:ident, $s_sp:ident, $s_fp:ident, $s_tos:ident]
        $name:ident, [ $($pat:tt)* ] => $body:expr
    ) => {
        #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments, unused_macros, unreachable_code, improper_ctypes_definitions)]
        pub(super) unsafe extern "C" fn $name(
            $s_r: &mut Regs,
            $s_opp: *const Op,
            mut $s_ip: Ip,
            mut $s_sp: Slot,
            mut $s_fp: Slot,
            mut $s_tos: u64,
        ) -> Done {
            // SAFETY: `opp` is the op being dispatched (valid for this call).
            let $s_op: &Op = unsafe { &*$s_opp };
            let ops = $s_r.ops;
            let base = $s_r.base;
            let slen = $s_r.slen;
            let mem_base = $s_r.mem_base;
            let mem_len = $s_r.mem_len;
            // `select` of the top two operands by a condition computed elsewhere.
            macro_rules! select_by {
                ($c:expr) => {{
                    let c: bool = $c;
                    let v2 = rd!($s_sp - 1);
                    let v1 = rd!($s_sp - 2);
                    $s_sp -= 1;
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
                    mem_wr!($s_sp - 1, $s_tos);
                    $s_r.ip = $s_ip;
                    $s_r.sp = $s_sp;
                    $s_r.fp = $s_fp;
                }};
            }
            macro_rules! trap {
                ($kind:expr) => {{
                    leave!();
                    $s_r.trap = trap_code($kind);
                    return std::ptr::null();
                }};
            }
            // Call `$callee` (a function of this instance) whose arguments are below
            // the top `$skip` operands (the table index of `call_indirect`): push the
            // caller's frame here, as `exec.rs`'s `Interp::enter_callee` does.
            macro_rules! enter {
                ($callee:expr, $skip:expr) => {{
                    let callee: &Compiled = $callee;
                    if $s_r.nframes >= $s_r.max_frames {
                        cold!();
                    }
                    let np = callee.num_params as usize;
                    let new_fp = $s_sp - $skip - np;
                    let new_sp = new_fp + callee.operand_base();
                    if (new_sp - base) + callee.max_height as usize > slen {
                        // `exec.rs` reports the exhausted stack.
                        cold!();
                    }
                    // The arguments become the callee's first locals.
                    mem_wr!($s_sp - 1, $s_tos);
                    let mut p = new_fp + np;
                    while p != new_sp {
                        // Below `new_sp + max_height <= slen` (checked above).
                        mem_wr!(p, 0);
                        p += 1;
                    }
                    // SAFETY: `nframes < max_frames <= capacity` of the frame buffer.
                    unsafe {
                        $s_r.frames.add($s_r.nframes).write(Frame {
                            code: CodeRef($s_r.code),
                            ip: ($s_ip as usize - ops as usize) / std::mem::size_of::<Op>(),
                            $s_fp,
                            inst: $s_r.inst,
                            serial: $s_r.serial,
                        })
                    };
                    $s_r.nframes += 1;
                    $s_r.last_serial = $s_r.last_serial.wrapping_add(1);
                    $s_r.serial = $s_r.last_serial;
                    $s_r.code = callee;
                    $s_r.ops = callee.ops.as_ptr();
                    $s_r.br_tables = callee.br_tables.as_ptr();
                    $s_ip = $s_r.ops;
                    $s_fp = new_fp;
                    $s_sp = new_sp;
                    $s_tos = 0;
                }};
            }
            // `exec.rs` runs this op.
            macro_rules! cold {
                () => {{
                    leave!();
                    return $s_opp;
                }};
            }
            // Slot access: the top operand (`sp - 1`) is `tos`; everything else is
            // in memory (`mem_rd!`/`mem_wr!`).
            macro_rules! rd {
                (sp - 1) => {
                    $s_tos
                };
                ($i:expr) => {
                    mem_rd!($i)
                };
            }
            macro_rules! wr {
                (sp - 1, $v:expr) => {{
                    let v: u64 = $v;
                    $s_tos = v;
                }};
                ($i:expr, $v:expr) => {
                    mem_wr!($i, $v)
                };
            }
            // After `sp` drops without a new top being written: reload `tos`.
            macro_rules! shrink {
                ($n:expr) => {{
                    $s_sp -= $n;
                    $s_tos = mem_rd!($s_sp - 1);
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
                    let v = $s_tos;
                    shrink!(1);
                    v
                }};
            }
            macro_rules! push {
                ($v:expr) => {{
                    let v: u64 = $v;
                    mem_wr!($s_sp - 1, $s_tos);
                    $s_tos = v;
                    $s_sp += 1;
                }};
            }
            macro_rules! un {
                ($t:ty, $r:ty, |$a:ident| $e:expr) => {{
                    let $a = rd!($s_sp - 1) as $t;
                    wr!($s_sp - 1, ($e) as $r as u64);
                }};
            }
            macro_rules! bin {
                ($t:ty, $r:ty, |$a:ident, $b:ident| $e:expr) => {{
                    let $b = rd!($s_sp - 1) as $t;
                    let $a = rd!($s_sp - 2) as $t;
                    $s_sp -= 1;
                    wr!($s_sp - 1, ($e) as $r as u64);
                }};
            }
            // Unary float ops quiet a NaN input (libm passes signalling NaNs through).
            macro_rules! f32un {
                (|$a:ident| $e:expr) => {{
                    let $a = f32::from_bits(rd!($s_sp - 1) as u32);
                    let res: f32 = if $a.is_nan() { $a + $a } else { $e };
                    wr!($s_sp - 1, res.to_bits() as u64);
                }};
            }
            macro_rules! f64un {
                (|$a:ident| $e:expr) => {{
                    let $a = f64::from_bits(rd!($s_sp - 1));
                    let res: f64 = if $a.is_nan() { $a + $a } else { $e };
                    wr!($s_sp - 1, res.to_bits());
                }};
            }
            macro_rules! f32bin {
                (|$a:ident, $b:ident| $e:expr) => {{
                    let $b = f32::from_bits(rd!($s_sp - 1) as u32);
                    let $a = f32::from_bits(rd!($s_sp - 2) as u32);
                    $s_sp -= 1;
                    wr!($s_sp - 1, (($e) as f32).to_bits() as u64);
                }};
            }
            macro_rules! f64bin {
                (|$a:ident, $b:ident| $e:expr) => {{
                    let $b = f64::from_bits(rd!($s_sp - 1));
                    let $a = f64::from_bits(rd!($s_sp - 2));
                    $s_sp -= 1;
                    wr!($s_sp - 1, (($e) as f64).to_bits());
                }};
            }
            macro_rules! f32cmp {
                (|$a:ident, $b:ident| $e:expr) => {{
                    let $b = f32::from_bits(rd!($s_sp - 1) as u32);
                    let $a = f32::from_bits(rd!($s_sp - 2) as u32);
                    $s_sp -= 1;
                    wr!($s_sp - 1, ($e) as u64);
                }};
            }
            macro_rules! f64cmp {
                (|$a:ident, $b:ident| $e:expr) => {{
                    let $b = f64::from_bits(rd!($s_sp - 1));
                    let $a = f64::from_bits(rd!($s_sp - 2));
                    $s_sp -= 1;
                    wr!($s_sp - 1, ($e) as u64);
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
                        unsafe { other_memory($s_r, $m.mem) }
                    }
                };
            }
            macro_rules! load {
                ($m:expr, $n:literal, |$b:ident| $conv:expr) => {{
                    let (base, len) = mem_of!($m);
                    let a = rd!($s_sp - 1) as u32 as u64 + $m.offset as u64;
                    let $b: [u8; $n] = load_at!(base, len, a, $n);
                    wr!($s_sp - 1, $conv);
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
                    let $v = rd!($s_sp - 1);
                    let a = rd!($s_sp - 2) as u32 as u64 + $m.offset as u64;
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
                        wr!($s_fp + dst as usize, v);
                    } else {
                        if dst != DST_PUSH {
                            wr!($s_fp + (dst & !DST_TEE) as usize, v);
                        }
                        push!(v);
                    }
                }};
            }
            macro_rules! loc {
                ($i:expr) => {
                    rd!($s_fp + $i as usize)
                };
            }
            macro_rules! top {
                () => {
                    rd!($s_sp - 1)
                };
            }
            macro_rules! set_top {
                ($v:expr) => {
                    wr!($s_sp - 1, $v)
                };
            }
            macro_rules! jump {
                ($t:expr) => {
                    $s_ip = ops.wrapping_add($t as usize)
                };
            }
            macro_rules! do_br {
                ($b:expr) => {{
                    let b: BrTarget = $b;
                    let keep = b.keep as usize;
                    let dst = $s_fp + b.base as usize;
                    if keep == 1 {
                        // The kept value is `tos`.
                        $s_sp = dst + 1;
                    } else {
                        if keep > 1 {
                            mem_wr!($s_sp - 1, $s_tos);
                            if dst != $s_sp - keep {
                                copy_slots!($s_sp - keep, dst, keep);
                            }
                        }
                        $s_sp = dst + keep;
                        $s_tos = mem_rd!($s_sp - 1);
                    }
                    $s_ip = ops.wrapping_add(b.target as usize);
                }};
            }
            match *$s_op {
                $($pat)* => $body,
                // SAFETY: `TABLE` maps only ops matching the pattern here.
                _ => unsafe { std::hint::unreachable_unchecked() },
            }
            // SAFETY: `ip` is in bounds (invariant at `Regs`). Cells may be patched
            // by dynamic probes, but only while `run` is not executing.
            let next: *const Op = unsafe { (*$s_ip).as_ptr() };
            let $s_ip = $s_ip.wrapping_add(1);
            #[cfg(feature = "op-stats")]
            op_stats::count(tag($s_opp), tag(next));
            #[cfg(wizeng_tail_calls)]
            // SAFETY: the `Regs` invariants still hold.
            return unsafe { handler_of(next)($s_r, next, $s_ip, $s_sp, $s_fp, $s_tos) };
            #[cfg(not(wizeng_tail_calls))]
            {
                $s_r.next = next;
                $s_r.ip = $s_ip;
                $s_r.sp = $s_sp;
                $s_r.fp = $s_fp;
                $s_r.tos = $s_tos;
                return CONTINUE;
            }
        }
    };
}

// The groups' `$group!()` pattern macros are used by `every_op_has_one_entry`.
#[macro_use]
mod control;
#[macro_use]
mod vars;
#[macro_use]
mod memory;
#[macro_use]
mod ints;
#[macro_use]
mod fused_ints;
#[macro_use]
mod fused_branches;
#[macro_use]
mod floats;
#[macro_use]
mod monitor;
#[macro_use]
mod simd;

/// Declares the ops no group handles (`exec.rs` runs them; their table entry
/// is [`h_cold`]): `COLD`, a sample of each, and the pattern `cold_pats!()`.
macro_rules! cold_ops {
    ($( Op::$v:ident $( ( $($tf:tt),* ) )? $( { $($sf:ident),* } )? )|+) => {
        /// A sample of each op that only `exec.rs` runs.
        const COLD: &[Op] = &[
            $( Op::$v $( ( $( zero_field!($tf) ),* ) )? $( { $($sf: Zero::ZERO),* } )? ),+
        ];
        macro_rules! cold_pats {
            () => {
                $( Op::$v $( ( $( wild_field!($tf) ),* ) )? $( { $($sf: _),* } )? )|+
            };
        }
    };
}

cold_ops! {
    Op::ReturnCall(f)
    | Op::ReturnCallIndirect { ty, table }
    | Op::MemorySize(m)
    | Op::MemoryGrow(m)
    | Op::MemoryFill(m)
    | Op::MemoryCopy { dst, src }
    | Op::MemoryInit { data, mem }
    | Op::DataDrop(d)
    | Op::RefFunc(f)
    | Op::TableGet(t)
    | Op::TableSet(t)
    | Op::TableSize(t)
    | Op::TableGrow(t)
    | Op::TableFill(t)
    | Op::TableCopy { dst, src }
    | Op::TableInit { elem, table }
    | Op::ElemDrop(e)
    | Op::RefAsNonNull
    | Op::CallRef
    | Op::ReturnCallRef
    | Op::Throw(t)
    | Op::ThrowRef
    | Op::Rethrow(s)
    | Op::Atomic { op, m }
    | Op::Probe(k)
    | Op::DynProbe(k)
    | Op::StructNew(t)
    | Op::StructNewDefault(t)
    | Op::StructGet { ty, field, ext }
    | Op::StructSet { ty, field }
    | Op::ArrayNew(t)
    | Op::ArrayNewDefault(t)
    | Op::ArrayNewFixed { ty, n }
    | Op::ArrayNewData { ty, data }
    | Op::ArrayNewElem { ty, elem }
    | Op::ArrayGet { ty, ext }
    | Op::ArraySet(t)
    | Op::ArrayLen
    | Op::ArrayFill(t)
    | Op::ArrayCopy { dst, src }
    | Op::ArrayInitData { ty, data }
    | Op::ArrayInitElem { ty, elem }
    | Op::RefI31
    | Op::I31GetS
    | Op::I31GetU
    | Op::RefEq
    | Op::RefTest(k)
    | Op::RefCast(k)
    | Op::CastTest(k)
}

/// Compile-time check that every `Op` variant is handled by exactly one
/// group or is cold: the match is exhaustive (a new variant that is in no
/// list does not compile) and no pattern overlaps another (a variant in two
/// lists is an unreachable pattern, denied). Each variant in a list has a
/// sample whose tag `build_table` checks.
#[deny(unreachable_patterns)]
#[allow(dead_code)]
const fn every_op_has_one_entry(op: &Op) {
    match *op {
        control_ops!() => {}
        vars_ops!() => {}
        memory_ops!() => {}
        int_ops!() => {}
        fused_int_ops!() => {}
        fused_branch_ops!() => {}
        float_ops!() => {}
        monitor_ops!() => {}
        simd_ops!() => {}
        cold_pats!() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant has exactly one sample (a handler group's or the cold
    /// list's), so the table built from them covers every tag. (Handlers are
    /// not compared by address: Rust does not promise one address per
    /// function, and an optimised build may give the same handler two.)
    #[test]
    fn table_covers_every_op_once() {
        let mut tags = Vec::new();
        for group in GROUPS {
            for (op, _) in group {
                tags.push(tag(op));
            }
        }
        for op in COLD {
            tags.push(tag(op));
        }
        // Tags are declaration indices: one sample per variant covers `0..n`.
        tags.sort_unstable();
        assert!(tags.iter().copied().eq(0..tags.len()));
    }
}
