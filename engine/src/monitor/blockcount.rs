//! Block counting: probes that are pure counter increments are counted once
//! per straight-line block instead of once per site (JIT tiers, with inlining).
//!
//! 1. [`pure_increment`] evaluates a probe's monitor function (and the
//!    monitor functions it calls) with the site's static arguments folded to
//!    constants. It succeeds when the only effects are `store(a, load(a) + c)`
//!    at constant, in-bounds addresses of the monitor's memories (so the probe
//!    can never trap and its effect commutes with every other such increment
//!    of the same bytes). [`countable`] keeps those whose memory no other
//!    probe can reach (a probe that is not such an increment could read the
//!    counters; folding before each of its executions would cost more than
//!    counting saves) and whose bytes no differently shaped increment touches.
//! 2. The woven function is cut into blocks ([`layout`]): at branch targets
//!    (`loop` headers, after `end`, `if`, `else`), after branches, returns,
//!    `unreachable` and every call, and around any site with a probe that is not
//!    such an increment. A block with at least one such increment gets a
//!    counter (a global of the woven module), incremented once at its entry;
//!    those probes are not emitted.
//! 3. The counts are folded into the monitor's memory (`count * delta` into each
//!    site's counter) by Wasm code in the woven module: the exported function
//!    [`FOLD_EXPORT`], called by the engine before `wasm:exit` (see
//!    [`BlockCounters::settle`]), the only monitor code that can read them.
//! 4. A trap in the middle of a counted block: the block was counted on entry,
//!    so the increments of the sites after the trapping instruction are taken
//!    back using the trap's site ([`BlockCounters::settle`]). Calls end blocks,
//!    so a trap (or `proc_exit`) in a callee never leaves its caller's block
//!    partly executed, and probes that trap are never inside a counted block.
//!
//! So at every point where monitor code runs, the monitor's memory holds
//! exactly the values the per-site probes would have produced.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::SmallVec;

use wasmparser::Operator;

use crate::core::probe::{ArgSource, ProbeCall, When};
use crate::core::types::{FuncAddr, InstanceId, MemAddr, ValType};
use crate::runtime::store::{FuncKind, Store};

/// Export of the woven module that folds every block counter into the
/// monitors' memories (no params, no results). Whoever runs a woven module
/// must call it before any monitor export that may read the counters
/// (`wasm:exit`).
pub const FOLD_EXPORT: &str = "wizeng:fold";

/// A probe's increments (usually one).
pub type Incs = smallvec::SmallVec<[Inc; 1]>;

/// One counter increment: `width` bytes at `ea` in `mem`, little-endian,
/// increased by `delta` (wrapping).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inc {
    pub mem: MemAddr,
    pub ea: u32,
    pub width: u8,
    pub delta: u64,
    /// A 4-byte counter stored back as 8 bytes, zero-extended: the 4 bytes
    /// above it become zero (whamm keeps a `u32` in an 8-byte slot). After one
    /// or more executions that is the same as a 4-byte increment followed by
    /// zeroing those bytes, which is how it is folded.
    pub zext: bool,
    /// Not an increment: the probe stores the constant `delta` there (a
    /// coverage flag, `reached = true`). Any number of executions but zero
    /// leave the same bytes, so it is folded as one store if the site ran.
    pub set: bool,
}

/// What an increment does to which bytes: memory, address, bytes written,
/// kind (0 add, 1 zero-extended add, 2 constant store) and the constant
/// stored. Increments of one shape commute; two overlapping shapes do not.
type Shape = (MemAddr, u32, u8, u8, u64);

impl Inc {
    /// Its kind as two bits (1: `zext`, 2: `set`), as cache entries keep it.
    pub(crate) fn kind(&self) -> u8 {
        self.zext as u8 | (self.set as u8) << 1
    }

    /// The increment of kind bits `kind` ([`Inc::kind`]).
    pub(crate) fn of_kind(mem: MemAddr, ea: u32, width: u8, delta: u64, kind: u8) -> Inc {
        Inc {
            mem,
            ea,
            width,
            delta,
            zext: kind & 1 != 0,
            set: kind & 2 != 0,
        }
    }

    fn shape(&self) -> Shape {
        let kind = self.kind();
        let value = if self.set { self.delta } else { 0 };
        (self.mem, self.ea, self.span(), kind, value)
    }

    /// The bytes it writes: `width`, or 8 for a zero-extended counter.
    pub fn span(&self) -> u8 {
        if self.zext {
            8
        } else {
            self.width
        }
    }
}

/// Abstract values of the evaluation.
#[derive(Clone, Copy, Debug)]
enum Av {
    Const(u64),
    Unknown,
    /// The value loaded by load number `n`, plus a delta; `zext`: as an i64,
    /// zero-extended from 32 bits (nothing may be added to it then).
    Loaded {
        n: usize,
        delta: u64,
        zext: bool,
    },
    /// A template's symbolic argument: the constant of parameter `param`
    /// plus `off`, wrapped at 64 bits (`wide`) or 32.
    Sym {
        param: u32,
        off: u64,
        wide: bool,
    },
}

/// The address operand of a memory access: known, or a template's symbol.
#[derive(Clone, Copy, Debug)]
enum Addr {
    Const(u64),
    Sym { param: u32, off: u64, wide: bool },
}

/// One memory access of an evaluation, in order: a load, or a store.
#[derive(Clone, Copy, Debug)]
struct Access {
    mem: MemAddr,
    addr: Addr,
    offset: u64,
    width: u8,
    store: Option<Stored>,
}

/// What a store writes.
#[derive(Clone, Copy, Debug)]
enum Stored {
    /// Load `n`'s value plus `delta` (zero-extended to 64 bits: `true`).
    Loaded(usize, u64, bool),
    /// A constant.
    Const(u64),
}

struct Load {
    mem: MemAddr,
    ea: u32,
    width: u8,
}

fn width_of(op: &Operator<'_>) -> Option<(u8, bool)> {
    use Operator as O;
    // (bytes, is a store)
    Some(match op {
        O::I32Load { .. } | O::I64Load32S { .. } | O::I64Load32U { .. } => (4, false),
        O::I64Load { .. } => (8, false),
        O::I32Load8S { .. } | O::I32Load8U { .. } | O::I64Load8S { .. } | O::I64Load8U { .. } => {
            (1, false)
        }
        O::I32Load16S { .. }
        | O::I32Load16U { .. }
        | O::I64Load16S { .. }
        | O::I64Load16U { .. } => (2, false),
        O::I32Store { .. } | O::I64Store32 { .. } => (4, true),
        O::I64Store { .. } => (8, true),
        O::I32Store8 { .. } | O::I64Store8 { .. } => (1, true),
        O::I32Store16 { .. } | O::I64Store16 { .. } => (2, true),
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bin {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
}

/// The integer binary operators the evaluation folds (none of them traps).
fn binop(op: &Operator<'_>) -> Option<(ValType, Bin)> {
    use Operator as O;
    use ValType::{I32, I64};
    Some(match op {
        O::I32Add => (I32, Bin::Add),
        O::I32Sub => (I32, Bin::Sub),
        O::I32Mul => (I32, Bin::Mul),
        O::I32And => (I32, Bin::And),
        O::I32Or => (I32, Bin::Or),
        O::I32Xor => (I32, Bin::Xor),
        O::I32Shl => (I32, Bin::Shl),
        O::I32ShrU => (I32, Bin::ShrU),
        O::I64Add => (I64, Bin::Add),
        O::I64Sub => (I64, Bin::Sub),
        O::I64Mul => (I64, Bin::Mul),
        O::I64And => (I64, Bin::And),
        O::I64Or => (I64, Bin::Or),
        O::I64Xor => (I64, Bin::Xor),
        O::I64Shl => (I64, Bin::Shl),
        O::I64ShrU => (I64, Bin::ShrU),
        _ => return None,
    })
}

/// The increments a probe performs, if it is nothing but constant-address,
/// in-bounds counter increments in the monitor's own memories.
pub fn pure_increment(store: &Store, call: &ProbeCall) -> Option<Incs> {
    let (instance, func_idx, params) = abstract_params(store, call, false)?;
    let mut st = Eval::default();
    eval(store, instance, func_idx, params, &mut st, 0)?;
    (!st.incs.is_empty()).then_some(st.incs)
}

/// The probe function's instance and index, and its parameters as abstract
/// values: an integer constant argument as itself, or (`symbolic`) as a
/// symbol of a template.
fn abstract_params(
    store: &Store,
    call: &ProbeCall,
    symbolic: bool,
) -> Option<(InstanceId, u32, Vec<Av>)> {
    let FuncKind::Wasm { instance, func_idx } = store.funcs[call.func.0 as usize].kind else {
        return None;
    };
    let fty = store.func_type(call.func);
    let mut params = Vec::new();
    for (i, t) in fty.params.iter().enumerate() {
        params.push(match (call.args.get(i)?, t) {
            (ArgSource::Const(_), ValType::I32 | ValType::I64) if symbolic => Av::Sym {
                param: i as u32,
                off: 0,
                wide: *t == ValType::I64,
            },
            (ArgSource::Const(v), ValType::I32 | ValType::I64) => Av::Const(mask(*t, *v)),
            _ => Av::Unknown,
        });
    }
    Some((instance, func_idx, params))
}

/// A probe function's memory accesses with its constant arguments left
/// symbolic: what [`pure_increment`] finds for every call of the function
/// whose constants sit at the same positions, as long as no branch, compare
/// or value stored depends on them (they only offset addresses). None when
/// they do: then each call is evaluated on its own.
struct Template {
    accesses: Vec<Access>,
    /// The accesses as one increment, when they are the common shape
    /// ([`Template::one_increment`]).
    one: Option<OneInc>,
}

/// A load and a store of the loaded value plus a constant at the same
/// address: what is left to do per site is the address.
#[derive(Clone, Copy, Debug)]
struct OneInc {
    mem: MemAddr,
    addr: Addr,
    offset: u64,
    /// Bytes loaded (the counter's width) and stored (8 when zero-extended).
    width: u8,
    stored: u8,
    delta: u64,
    zext: bool,
}

impl Template {
    fn new(store: &Store, call: &ProbeCall) -> Option<Template> {
        let (instance, func_idx, params) = abstract_params(store, call, true)?;
        let mut st = Eval {
            deferred: Some(Vec::new()),
            ..Eval::default()
        };
        eval(store, instance, func_idx, params, &mut st, 0)?;
        let accesses = st.deferred?;
        Some(Template {
            one: OneInc::of(&accesses),
            accesses,
        })
    }

    /// [`pure_increment`] of `call`, replaying the accesses with its constants.
    fn apply(&self, store: &Store, call: &ProbeCall) -> Option<Incs> {
        if let Some(r) = self.one_increment(store, &call.args) {
            return r.map(|i| std::iter::once(i).collect());
        }
        let mut st = Eval::default();
        for a in &self.accesses {
            access(store, &mut st, a, &call.args)?;
        }
        (!st.incs.is_empty()).then_some(st.incs)
    }

    /// [`Self::apply`], its increments appended to `out`: whether there are
    /// some (none are appended otherwise). No list per call: on a large app
    /// this runs for millions of sites.
    fn apply_into(&self, store: &Store, call: &ProbeCall, out: &mut Vec<Inc>) -> bool {
        match self.one_increment(store, &call.args) {
            Some(Some(i)) => {
                out.push(i);
                true
            }
            Some(None) => false,
            None => match self.apply(store, call) {
                Some(incs) => {
                    out.extend_from_slice(&incs);
                    true
                }
                None => false,
            },
        }
    }
}

impl OneInc {
    /// The common shape, a load and a store of the loaded value plus a
    /// constant at the same address (what [`access`] accepts of it), if
    /// `accesses` are that.
    fn of(accesses: &[Access]) -> Option<OneInc> {
        let [load, st] = accesses else {
            return None;
        };
        let (None, Some(Stored::Loaded(0, delta, zext))) = (load.store, st.store) else {
            return None;
        };
        let same = (load.mem, load.offset) == (st.mem, st.offset)
            && match (load.addr, st.addr) {
                (Addr::Const(a), Addr::Const(b)) => a == b,
                (
                    Addr::Sym { param, off, wide },
                    Addr::Sym {
                        param: p,
                        off: o,
                        wide: w,
                    },
                ) => (param, off, wide) == (p, o, w),
                _ => false,
            };
        let width_ok = if zext {
            load.width == 4 && st.width == 8
        } else {
            load.width == st.width
        };
        // (`access` refuses the others: they are left to the evaluation.)
        (same && width_ok).then_some(OneInc {
            mem: load.mem,
            addr: load.addr,
            offset: load.offset,
            width: load.width,
            stored: st.width,
            delta,
            zext,
        })
    }
}

impl Template {
    /// The increment of the common shape ([`OneInc`]) replayed without an
    /// evaluation (on a large app this runs for millions of sites): what
    /// [`access`] finds for it, or `None` for any other shape.
    #[inline]
    fn one_increment(&self, store: &Store, args: &[ArgSource]) -> Option<Option<Inc>> {
        let o = self.one?;
        Some(o.at(store.memory(o.mem).data.len() as u64, args))
    }
}

impl OneInc {
    /// The increment at a site with arguments `args`, in a memory of `len`
    /// bytes; `None` if an address argument is not a constant there or the
    /// counter is not in bounds.
    #[inline]
    fn at(&self, len: u64, args: &[ArgSource]) -> Option<Inc> {
        let o = self;
        let base = match o.addr {
            Addr::Const(v) => v,
            Addr::Sym { param, off, wide } => {
                let Some(ArgSource::Const(v)) = args.get(param as usize) else {
                    return None;
                };
                let t = if wide { ValType::I64 } else { ValType::I32 };
                mask(t, v.wrapping_add(off))
            }
        };
        let ea = base.checked_add(o.offset)?;
        // Both accesses in bounds (the store's span is the wider).
        if ea + o.stored as u64 > len {
            return None;
        }
        Some(Inc {
            mem: o.mem,
            ea: ea as u32,
            width: o.width,
            delta: low_bytes(o.delta, o.width),
            zext: o.zext,
            set: false,
        })
    }
}

/// A probe function that tests one `i32` parameter against zero and does
/// one counter increment when it is not zero and one when it is (a branch
/// tally: `if (arg0 != 0) { taken++ } else { not_taken++ }`), the counters'
/// addresses offsets of its other (constant) arguments. A site of it can do
/// both increments without a branch, each scaled by the test's outcome (0
/// or 1): see [`TwoSided::at`].
#[derive(Clone, Copy, Debug)]
pub struct TwoSided {
    /// The tested parameter.
    pub param: u32,
    nz: OneInc,
    z: OneInc,
    /// The memories' lengths when the template was made (they never shrink).
    lens: (u64, u64),
}

impl TwoSided {
    /// Monitor function `f` as a [`TwoSided`] on parameter `param`, if it is
    /// one: it only tests `param` against zero (`inline::zero_tested_param`:
    /// it does the same for every value but 0), and evaluated with `param`
    /// as 1 and as 0, its other integer parameters symbolic, each side is
    /// one increment of the common shape (`OneInc`) in a 32-bit memory.
    pub fn of(store: &Store, f: FuncAddr, param: u32) -> Option<TwoSided> {
        crate::monitor::inline::zero_tested_param(store, f, &[param])?;
        let FuncKind::Wasm { instance, func_idx } = store.funcs[f.0 as usize].kind else {
            return None;
        };
        let fty = store.func_type(f);
        if fty.params.get(param as usize) != Some(&ValType::I32) {
            return None;
        }
        let side = |v: u64| {
            let params = (fty.params.iter().enumerate())
                .map(|(i, t)| match t {
                    _ if i == param as usize => Av::Const(v),
                    ValType::I32 | ValType::I64 => Av::Sym {
                        param: i as u32,
                        off: 0,
                        wide: *t == ValType::I64,
                    },
                    _ => Av::Unknown,
                })
                .collect();
            let mut st = Eval {
                deferred: Some(Vec::new()),
                ..Eval::default()
            };
            eval(store, instance, func_idx, params, &mut st, 0)?;
            let one = OneInc::of(&st.deferred?)?;
            let mem = store.memory(one.mem);
            (!mem.ty.index64).then_some((one, mem.data.len() as u64))
        };
        let ((nz, nz_len), (z, z_len)) = (side(1)?, side(0)?);
        Some(TwoSided {
            param,
            nz,
            z,
            lens: (nz_len, z_len),
        })
    }

    /// At a site with arguments `args`: the increment done when the tested
    /// value is not zero, and the one done when it is; `None` unless both
    /// counters' addresses are constants there and in bounds (so both can
    /// be done at every execution, each scaled by 0 or 1, without a trap).
    pub fn at(&self, args: &[ArgSource]) -> Option<(Inc, Inc)> {
        Some((
            self.nz.at(self.lens.0, args)?,
            self.z.at(self.lens.1, args)?,
        ))
    }
}

/// The key of a probe call's template: its function and the positions of its
/// constant arguments.
fn template_key(c: &ProbeCall) -> (crate::core::types::FuncAddr, u64) {
    let consts = c.args.iter().enumerate().take(64).fold(0u64, |m, (i, a)| {
        m | (matches!(a, ArgSource::Const(_)) as u64) << i
    });
    (c.func, consts)
}

/// Perform access `a` of an evaluation: check it is in bounds and touches no
/// bytes already incremented; a load is remembered, a store of a loaded
/// value (plus a delta) to the same bytes is an increment.
fn access(store: &Store, st: &mut Eval, a: &Access, args: &[ArgSource]) -> Option<()> {
    let base = match a.addr {
        Addr::Const(v) => v,
        Addr::Sym { param, off, wide } => {
            let ArgSource::Const(v) = args.get(param as usize)? else {
                return None;
            };
            let t = if wide { ValType::I64 } else { ValType::I32 };
            mask(t, v.wrapping_add(off))
        }
    };
    let (mem, width) = (a.mem, a.width);
    let ea = base.checked_add(a.offset)?;
    // In bounds now, so always (memories never shrink).
    if ea + width as u64 > store.memory(mem).data.len() as u64 {
        return None;
    }
    let ea = ea as u32;
    let overlaps = |i: &Inc| {
        i.mem == mem
            && (i.ea as u64) < ea as u64 + width as u64
            && (ea as u64) < i.ea as u64 + i.span() as u64
    };
    if st.incs.iter().any(overlaps) {
        // Reads or writes bytes already written here: not a plain increment.
        return None;
    }
    match a.store {
        None => st.loads.push(Load { mem, ea, width }),
        Some(Stored::Const(v)) => st.incs.push(Inc {
            mem,
            ea,
            width,
            delta: low_bytes(v, width),
            zext: false,
            set: true,
        }),
        Some(Stored::Loaded(n, delta, zext)) => {
            let l = &st.loads[n];
            // A zero-extended store writes the 4 loaded bytes and 4 more.
            let same = if zext {
                l.width == 4 && width == 8
            } else {
                l.width == width
            };
            if l.mem != mem || l.ea != ea || !same {
                return None;
            }
            st.incs.push(Inc {
                mem,
                ea,
                width: l.width,
                delta: low_bytes(delta, l.width),
                zext,
                set: false,
            });
        }
    }
    Some(())
}

/// The low `width` bytes of `v`.
fn low_bytes(v: u64, width: u8) -> u64 {
    if width >= 8 {
        v
    } else {
        v & ((1u64 << (8 * width as u32)) - 1)
    }
}

fn mask(t: ValType, v: u64) -> u64 {
    if t == ValType::I32 {
        v as u32 as u64
    } else {
        v
    }
}

/// The effects seen so far by [`eval`].
#[derive(Default)]
struct Eval {
    loads: smallvec::SmallVec<[Load; 4]>,
    incs: Incs,
    /// Loads evaluated (numbering them).
    n_loads: usize,
    /// Building a [`Template`]: the accesses, recorded instead of performed.
    deferred: Option<Vec<Access>>,
    /// Instructions evaluated (bounded).
    n: usize,
}

/// Skip the rest of an `if` arm: to its `else` (with `to_else`; returns
/// Some(true), the `else` arm runs next) or its `end` (Some(false), consumed).
fn skip_arm(ops: &mut wasmparser::OperatorsReader<'_>, to_else: bool) -> Option<bool> {
    let mut nest = 0u32;
    while !ops.eof() {
        match ops.read().ok()? {
            Operator::Else if nest == 0 && to_else => return Some(true),
            Operator::End | Operator::Delegate { .. } if nest == 0 => return Some(false),
            op => nest = nest.checked_add_signed(nesting(&op))?,
        }
    }
    None
}

/// Evaluate function `func_idx` of `instance` (straight-line code, and `if`s
/// whose condition is a constant here; calls
/// to the same instance's functions are evaluated in turn, up to a depth);
/// returns its results.
fn eval(
    store: &Store,
    instance: InstanceId,
    func_idx: u32,
    params: Vec<Av>,
    st: &mut Eval,
    call_depth: u32,
) -> Option<Vec<Av>> {
    let idata = store.instance(instance);
    let m = &idata.module;
    let mut locals = params;
    for t in &m.body(func_idx).locals {
        locals.push(match t {
            ValType::I32 | ValType::I64 => Av::Const(0),
            _ => Av::Unknown,
        });
    }
    let mut stack: Vec<Av> = Vec::new();
    let mut depth = 0u32;
    let mut ops = m.operators(func_idx);
    while !ops.eof() {
        let op = ops.read().ok()?;
        st.n += 1;
        if st.n > 256 {
            return None;
        }
        use Operator as O;
        match &op {
            O::Call { function_index } if call_depth < 4 => {
                let callee = *idata.funcs.get(*function_index as usize)?;
                let FuncKind::Wasm {
                    instance: ci,
                    func_idx: cf,
                } = store.funcs[callee.0 as usize].kind
                else {
                    return None;
                };
                if ci != instance {
                    return None;
                }
                let np = store.func_type(callee).params.len();
                let args = stack.split_off(stack.len().checked_sub(np)?);
                let results = eval(store, ci, cf, args, st, call_depth + 1)?;
                stack.extend(results);
            }
            O::Nop => {}
            O::Block {
                blockty: wasmparser::BlockType::Empty,
            } => depth += 1,
            O::End if depth > 0 => depth -= 1,
            O::End | O::Return => break,
            O::Drop => {
                stack.pop()?;
            }
            O::I32Const { value } => stack.push(Av::Const(*value as u32 as u64)),
            O::I64Const { value } => stack.push(Av::Const(*value as u64)),
            O::LocalGet { local_index } => stack.push(*locals.get(*local_index as usize)?),
            O::LocalSet { local_index } => *locals.get_mut(*local_index as usize)? = stack.pop()?,
            O::LocalTee { local_index } => {
                *locals.get_mut(*local_index as usize)? = *stack.last()?
            }
            O::GlobalGet { global_index } => {
                let g = &store.globals[idata.globals[*global_index as usize].0 as usize];
                stack.push(match g.ty.ty {
                    t @ (ValType::I32 | ValType::I64) if !g.ty.mutable => {
                        Av::Const(mask(t, g.value))
                    }
                    _ => Av::Unknown,
                });
            }
            // A condition known here: run the arm it selects (`else` ends the
            // `then` arm: skip to the `end`).
            O::If {
                blockty: wasmparser::BlockType::Empty,
            } => {
                let Av::Const(c) = stack.pop()? else {
                    return None;
                };
                depth += 1;
                if mask(ValType::I32, c) == 0 && !skip_arm(&mut ops, true)? {
                    depth -= 1;
                }
            }
            O::Else if depth > 0 => {
                skip_arm(&mut ops, false)?;
                depth -= 1;
            }
            // `eqz` is `eq` with 0.
            O::I32Eqz | O::I64Eqz | O::I32Eq | O::I32Ne | O::I64Eq | O::I64Ne => {
                let t = if matches!(op, O::I32Eqz | O::I32Eq | O::I32Ne) {
                    ValType::I32
                } else {
                    ValType::I64
                };
                let b = match op {
                    O::I32Eqz | O::I64Eqz => Av::Const(0),
                    _ => stack.pop()?,
                };
                let a = stack.pop()?;
                let ne = matches!(op, O::I32Ne | O::I64Ne);
                stack.push(match (a, b) {
                    (Av::Const(x), Av::Const(y)) => {
                        Av::Const(((mask(t, x) == mask(t, y)) != ne) as u64)
                    }
                    _ => Av::Unknown,
                });
            }
            O::I32WrapI64 => {
                let v = stack.pop()?;
                stack.push(match v {
                    Av::Const(c) => Av::Const(c as u32 as u64),
                    Av::Sym { param, off, .. } => Av::Sym {
                        param,
                        off,
                        wide: false,
                    },
                    _ => Av::Unknown,
                });
            }
            O::I64ExtendI32U | O::I64ExtendI32S => {
                let v = stack.pop()?;
                stack.push(match v {
                    Av::Const(c) if matches!(op, O::I64ExtendI32S) => {
                        Av::Const(c as u32 as i32 as i64 as u64)
                    }
                    Av::Const(c) => Av::Const(c),
                    // (The 4-byte load is checked at the store.)
                    Av::Loaded {
                        n,
                        delta,
                        zext: false,
                    } if matches!(op, O::I64ExtendI32U) => Av::Loaded {
                        n,
                        delta,
                        zext: true,
                    },
                    _ => Av::Unknown,
                });
            }
            _ if binop(&op).is_some() => {
                let (t, k) = binop(&op)?;
                let b = stack.pop()?;
                let a = stack.pop()?;
                let bits = if t == ValType::I32 { 31 } else { 63 };
                let r = match (a, b) {
                    (Av::Const(x), Av::Const(y)) => Av::Const(mask(
                        t,
                        match k {
                            Bin::Add => x.wrapping_add(y),
                            Bin::Sub => x.wrapping_sub(y),
                            Bin::Mul => x.wrapping_mul(y),
                            Bin::And => x & y,
                            Bin::Or => x | y,
                            Bin::Xor => x ^ y,
                            Bin::Shl => x << (y & bits),
                            Bin::ShrU => x >> (y & bits),
                        },
                    )),
                    (
                        Av::Loaded {
                            n,
                            delta,
                            zext: false,
                        },
                        Av::Const(c),
                    )
                    | (
                        Av::Const(c),
                        Av::Loaded {
                            n,
                            delta,
                            zext: false,
                        },
                    ) if k == Bin::Add => Av::Loaded {
                        n,
                        delta: delta.wrapping_add(c),
                        zext: false,
                    },
                    (
                        Av::Loaded {
                            n,
                            delta,
                            zext: false,
                        },
                        Av::Const(c),
                    ) if k == Bin::Sub => Av::Loaded {
                        n,
                        delta: delta.wrapping_sub(c),
                        zext: false,
                    },
                    (Av::Sym { param, off, wide }, Av::Const(c))
                    | (Av::Const(c), Av::Sym { param, off, wide })
                        if k == Bin::Add =>
                    {
                        Av::Sym {
                            param,
                            off: off.wrapping_add(c),
                            wide,
                        }
                    }
                    (Av::Sym { param, off, wide }, Av::Const(c)) if k == Bin::Sub => Av::Sym {
                        param,
                        off: off.wrapping_sub(c),
                        wide,
                    },
                    _ => Av::Unknown,
                };
                stack.push(r);
            }
            _ => {
                let (width, is_store) = width_of(&op)?;
                let ma = crate::core::operators::memarg_of(&op)?;
                let mem = *idata.memories.get(ma.memory as usize)?;
                let value = if is_store { Some(stack.pop()?) } else { None };
                let addr = match stack.pop()? {
                    Av::Const(a) => Addr::Const(a),
                    Av::Sym { param, off, wide } => Addr::Sym { param, off, wide },
                    _ => return None,
                };
                let store_of = match value {
                    None => None,
                    Some(Av::Loaded { n, delta, zext }) => Some(Stored::Loaded(n, delta, zext)),
                    Some(Av::Const(v)) => Some(Stored::Const(v)),
                    Some(_) => return None,
                };
                let a = Access {
                    mem,
                    addr,
                    offset: ma.offset,
                    width,
                    store: store_of,
                };
                match st.deferred.as_mut() {
                    Some(d) => d.push(a),
                    None => access(store, st, &a, &[])?,
                }
                if store_of.is_none() {
                    stack.push(Av::Loaded {
                        n: st.n_loads,
                        delta: 0,
                        zext: false,
                    });
                    st.n_loads += 1;
                }
            }
        }
    }
    let nr = m.func_type(func_idx).results.len();
    Some(stack.split_off(stack.len().checked_sub(nr)?))
}

/// Memories a monitor function of `instance` may read or write, directly or
/// through what it imports: its own, or everything when it imports Wasm
/// functions or tables from elsewhere (`None`).
pub fn reachable_memories(store: &Store, instance: InstanceId) -> Option<Vec<MemAddr>> {
    let idata = store.instance(instance);
    let m = &idata.module;
    if m.num_imported_tables > 0 {
        return None;
    }
    for f in &idata.funcs[..m.num_imported_funcs as usize] {
        if let FuncKind::Wasm { .. } = store.funcs[f.0 as usize].kind {
            return None;
        }
    }
    Some(idata.memories.clone())
}

/// Emission events of one instruction, in woven order. Both the block
/// partition and the emission walk these, so they agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The probes of a site.
    Site(u32, When),
    /// The instruction itself.
    Op,
    /// Control may arrive or leave here: a block boundary.
    Split,
    /// The end of the wrapper block around a body with probes at its final `end`.
    WrapEnd,
}

/// Whether control can leave (or observe state outside the block) at this
/// instruction; `loop`, `end` and the final `end` are handled in [`layout`].
fn ends_block(op: &Operator<'_>) -> bool {
    use Operator as O;
    matches!(
        op,
        O::If { .. }
            | O::Else
            | O::Br { .. }
            | O::BrIf { .. }
            | O::BrTable { .. }
            | O::Return
            | O::Unreachable
            | O::Call { .. }
            | O::CallIndirect { .. }
            | O::ReturnCall { .. }
            | O::ReturnCallIndirect { .. }
            | O::CallRef { .. }
            | O::ReturnCallRef { .. }
            | O::BrOnNull { .. }
            | O::BrOnNonNull { .. }
            | O::Throw { .. }
            | O::ThrowRef
            | O::Rethrow { .. }
            | O::Try { .. }
            | O::TryTable { .. }
            | O::Catch { .. }
            | O::CatchAll
            | O::Delegate { .. }
    )
}

/// The events of instruction `op` at `pc` (at most five, no allocation:
/// this runs for every instruction of every woven function, twice).
pub fn layout(op: &Operator<'_>, pc: u32, final_end: bool, wrapped: bool) -> Events {
    (events(op, final_end, wrapped).iter())
        .map(|e| e.at(pc))
        .collect()
}

/// [`layout`]'s events with their sites at pc 0 ([`Ev::at`] places them).
fn events(op: &Operator<'_>, final_end: bool, wrapped: bool) -> &'static [Ev] {
    use Ev::*;
    const BEFORE: Ev = Site(0, When::Before);
    const AFTER: Ev = Site(0, When::After);
    match op {
        Operator::Loop { .. } => &[Op, Split, BEFORE, AFTER],
        Operator::End if !final_end => &[Op, Split, BEFORE, AFTER],
        Operator::End if wrapped => &[WrapEnd, Split, BEFORE, Op, AFTER],
        Operator::End => &[BEFORE, Op, AFTER],
        _ if ends_block(op) => &[BEFORE, Op, Split, AFTER],
        _ => &[BEFORE, Op, AFTER],
    }
}

impl Ev {
    /// The event at the instruction at `pc` (a site's pc is `pc`).
    fn at(self, pc: u32) -> Ev {
        match self {
            Ev::Site(_, w) => Ev::Site(pc, w),
            e => e,
        }
    }
}

/// The events of one instruction ([`layout`]).
pub type Events = smallvec::SmallVec<[Ev; 5]>;

/// Site order within a function: entry, then (pc, before), (pc, after).
pub fn key(pc: u32, when: When) -> u64 {
    match when {
        When::Entry => 0,
        When::Before => 2 * pc as u64,
        When::After => 2 * pc as u64 + 1,
    }
}

/// A block of one function that has a counter.
#[derive(Debug, Clone)]
pub struct CountedBlock {
    /// Original function index.
    pub func: u32,
    /// The event (in [`for_each_event`] order, of its function) before
    /// which the counter is incremented: the block's first.
    pub start: usize,
    /// Original pcs of the first and last instruction in the block (none: the
    /// block has only probes).
    pub pcs: Option<(u32, u32)>,
    /// Index of the counter in the woven module's globals.
    pub global: u32,
    /// The counted sites, in order: a range of [`BlockCounters::sites`].
    pub sites: std::ops::Range<u32>,
}

/// A counted site: its key ([`key`]) and its increments, a range of
/// [`BlockCounters::incs`].
#[derive(Debug, Clone, PartialEq)]
pub struct CountedSite {
    pub key: u64,
    pub incs: std::ops::Range<u32>,
}

/// The block counters of a woven module, and what the engine must do before a
/// monitor observes its memory at the end of the run. A large app has
/// millions of counted sites: they are in two flat lists, not one list per
/// block, and the increments are those the planning found (moved, not
/// copied: [`plan_functions`]).
#[derive(Debug, Default)]
pub struct BlockCounters {
    pub blocks: Vec<CountedBlock>,
    /// The counted sites of every block, block after block.
    pub sites: Vec<CountedSite>,
    /// The sites' increments (some entries may belong to no site).
    pub incs: Vec<Inc>,
    /// Probes no longer emitted (counted through their block).
    pub probes_folded: u64,
    /// Sites whose probes are all counted through their block.
    pub sites_folded: u64,
}

impl BlockCounters {
    /// The counted sites of block `b`, in order: key and increments.
    pub fn sites_of<'s>(&'s self, b: &CountedBlock) -> impl Iterator<Item = (u64, &'s [Inc])> {
        let sites = self.sites.get(b.sites.start as usize..b.sites.end as usize);
        sites
            .unwrap_or_default()
            .iter()
            .map(|s| (s.key, self.site_incs(s)))
    }

    /// The increments of a counted site (none if its range is not in `incs`).
    pub fn site_incs(&self, s: &CountedSite) -> &[Inc] {
        let r = s.incs.start as usize..s.incs.end as usize;
        self.incs.get(r).unwrap_or_default()
    }

    /// The increments of every counted site, in order.
    pub fn counted_incs(&self) -> impl Iterator<Item = &Inc> {
        (self.blocks.iter()).flat_map(|b| self.sites_of(b).flat_map(|s| s.1))
    }

    /// The site a trap leaves a block partly executed at, for [`Self::settle`]:
    /// its (original) function and pc. None when it cannot be inside a counted
    /// block: a trap in a probe (reported without an app site), a stack
    /// overflow (reported at a call, which ends its block; or at a fold call,
    /// which is not an instruction of the block it maps to).
    pub fn trap_site(t: &crate::Trap) -> Option<(u32, u32)> {
        if t.kind == crate::TrapKind::CallStackExhausted {
            return None;
        }
        t.site.as_ref().map(|s| (s.func, s.pc))
    }

    /// Bring the monitors' memories up to date after the app ran in `app` (an
    /// instance of the woven module): take back the increments of the sites
    /// after the trapping instruction, when the run ended with a trap at
    /// `trap` (original function, pc), then fold every counter.
    pub fn settle(
        &self,
        store: &mut Store,
        app: InstanceId,
        trap: Option<(u32, u32)>,
    ) -> Result<(), crate::Trap> {
        if self.blocks.is_empty() {
            return Ok(());
        }
        // The block a trap left partly executed, and the key after which its
        // sites did not run that last time.
        let hit = trap.and_then(|(func, pc)| {
            let b = self.blocks.iter().position(|b| {
                b.func == func && b.pcs.is_some_and(|(first, last)| first <= pc && pc <= last)
            })?;
            Some((b, key(pc, When::Before)))
        });
        if let Some(f) = store.export_func(app, FOLD_EXPORT) {
            // Take those back, then fold with the module's own code.
            if let Some((b, after)) = hit {
                let b = &self.blocks[b];
                if crate::exec::jit::global_slot(store, app, b.global) != 0 {
                    // (A constant store cannot be taken back: the fold code
                    // stores it once the block ran at all.)
                    for i in self.sites_of(b).filter(|s| s.0 > after).flat_map(|s| s.1) {
                        if !i.set {
                            add(store, i, i.delta.wrapping_neg());
                        }
                    }
                }
            }
            return store.invoke(f, &[]).map(|_| ());
        }
        // No fold code: fold here, each site by the times it ran.
        for (bi, b) in self.blocks.iter().enumerate() {
            let count = crate::exec::jit::global_slot(store, app, b.global);
            if count == 0 {
                continue;
            }
            crate::exec::jit::set_global_slot(store, app, b.global, 0);
            for (k, incs) in self.sites_of(b) {
                let ran = match hit {
                    Some((hb, after)) if hb == bi && k > after => count - 1,
                    _ => count,
                };
                if ran == 0 {
                    continue;
                }
                for i in incs {
                    // (`add` stores a constant once, whatever it is given.)
                    add(store, i, ran.wrapping_mul(i.delta));
                }
            }
        }
        Ok(())
    }
}

/// Add `delta` (wrapping at the counter's width) to the counter of `i`, as
/// that many executions of its probe do (a zero-extended counter's upper
/// bytes become zero).
fn add(store: &mut Store, i: &Inc, delta: u64) {
    let mem = &mut store.memory_mut(i.mem).data;
    let (ea, w) = (i.ea as usize, i.width as usize);
    if i.set {
        mem[ea..ea + w].copy_from_slice(&i.delta.to_le_bytes()[..w]);
        return;
    }
    let mut b = [0u8; 8];
    b[..w].copy_from_slice(&mem[ea..ea + w]);
    let v = u64::from_le_bytes(b).wrapping_add(delta);
    mem[ea..ea + w].copy_from_slice(&v.to_le_bytes()[..w]);
    if i.zext {
        mem[ea + 4..ea + 8].fill(0);
    }
}

/// Identifies a probe call for [`pure_increment`]: its function and constant
/// args (inline: one is made per site and per lookup).
pub type CallKey = (
    crate::core::types::FuncAddr,
    smallvec::SmallVec<[Option<u64>; 4]>,
);

pub fn call_key(c: &ProbeCall) -> CallKey {
    let args = c
        .args
        .iter()
        .map(|a| match a {
            ArgSource::Const(v) => Some(*v),
            _ => None,
        })
        .collect();
    (c.func, args)
}

/// The probe calls of a plan that are counted through their block
/// ([`countable`]), by identity: each site's own [`ProbeCall`], with its
/// increments (a range of one flat list, which the planned counters take
/// over: [`plan_functions`]). In the order they were given (site order), and
/// looked up from where the last lookup ended: the weave asks in site order,
/// so a lookup is usually the next entry (a hash map of millions of sites
/// missed the cache on nearly every lookup). Any other lookup searches an
/// index by address, sorted at the first such lookup (sorting the entries
/// themselves, millions of them, cost more than the rest of the planning).
#[derive(Default)]
pub struct Countable {
    /// (call address, end of its increments in `incs`, the app function
    /// of its site), in order (so by function).
    entries: Vec<(usize, u32, u32)>,
    incs: Vec<Inc>,
}

/// Looks calls up in a [`Countable`] (one per thread that plans).
pub struct Lookup<'c> {
    c: &'c Countable,
    finger: usize,
    /// The entries searched when the finger misses.
    range: std::ops::Range<usize>,
    /// (address, entry) of `range`, sorted by address.
    by_address: Option<Vec<(usize, u32)>>,
}

impl<'c> Lookup<'c> {
    /// Lookups of the calls of function `func` and those after it, in
    /// order (a part of [`plan_functions`] starts at its first function).
    pub fn new(c: &'c Countable, func: u32) -> Lookup<'c> {
        let finger = c.entries.partition_point(|e| e.2 < func);
        Lookup {
            c,
            finger,
            range: finger..c.entries.len(),
            by_address: None,
        }
    }

    /// Lookups of the calls of function `func` alone ([`LazyBlocks`]: its
    /// own entries are all a miss searches).
    fn of_function(c: &'c Countable, func: u32) -> Lookup<'c> {
        let finger = c.entries.partition_point(|e| e.2 < func);
        let end = finger + c.entries[finger..].partition_point(|e| e.2 == func);
        Lookup {
            c,
            finger,
            range: finger..end,
            by_address: None,
        }
    }

    /// The increments of `c`, if it is counted, as a range of the flat list.
    pub fn get(&mut self, c: &ProbeCall) -> Option<std::ops::Range<u32>> {
        let id = c as *const ProbeCall as usize;
        let entries = &self.c.entries;
        let at = |i: usize| entries.get(i).filter(|e| e.0 == id).map(|_| i);
        let f = self.finger;
        let i = at(f).or_else(|| at(f + 1)).or_else(|| self.search(id))?;
        self.finger = i + 1;
        let start = i.checked_sub(1).map_or(0, |p| entries[p].1);
        Some(start..entries[i].1)
    }

    /// The increments of a range [`Lookup::get`] gave.
    pub fn incs(&self, r: std::ops::Range<u32>) -> &'c [Inc] {
        &self.c.incs[r.start as usize..r.end as usize]
    }

    /// The entry of the call at address `id`, through the index.
    #[cold]
    fn search(&mut self, id: usize) -> Option<usize> {
        let (entries, range) = (&self.c.entries, self.range.clone());
        let ix = self.by_address.get_or_insert_with(|| {
            let mut ix: Vec<(usize, u32)> = (entries[range.clone()].iter().enumerate())
                .map(|(i, e)| (e.0, (range.start + i) as u32))
                .collect();
            ix.sort_unstable();
            ix
        });
        let k = ix.binary_search_by_key(&id, |e| e.0).ok()?;
        Some(ix[k].1 as usize)
    }
}

impl Countable {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many calls are countable.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Keep the entries `keep` accepts (given each one's increments).
    fn retain(&mut self, mut keep: impl FnMut(usize, &[Inc]) -> bool) {
        let (mut start, mut kept_end) = (0u32, 0usize);
        let mut out = 0usize;
        for i in 0..self.entries.len() {
            let (id, end, func) = self.entries[i];
            let r = start as usize..end as usize;
            start = end;
            if !keep(id, &self.incs[r.clone()]) {
                continue;
            }
            self.incs.copy_within(r.clone(), kept_end);
            kept_end += r.len();
            self.entries[out] = (id, kept_end as u32, func);
            out += 1;
        }
        self.entries.truncate(out);
        self.incs.truncate(kept_end);
    }
}

/// Which probe increments may be counted: those of pure increments whose
/// bytes no other increment touches with another (address, width) (adds of
/// the same bytes commute; overlapping ones of different shape would not).
pub fn countable<'a>(
    store: &Store,
    calls: impl Iterator<Item = (u32, &'a ProbeCall)> + Clone,
) -> Countable {
    // The increments of each countable call (by its address), in order, and
    // the functions of the others.
    let mut entries: Vec<(usize, u32, u32)> = Vec::with_capacity(calls.size_hint().0);
    let mut all_incs: Vec<Inc> = Vec::with_capacity(calls.size_hint().0);
    let mut uncounted: Vec<FuncAddr> = Vec::new();
    let mut seen = HashSet::default();
    // Sites of one probe differ in their constants (each its own counter's
    // address): evaluate the function once per shape of constants; calls
    // it cannot do so for, once per distinct call.
    let mut templates: HashMap<_, usize> = HashMap::default();
    let mut made: Vec<Option<Template>> = Vec::new();
    // (Consecutive sites are usually of one probe: no lookup then.)
    let mut last = None;
    let mut one_by_one: HashMap<CallKey, Option<Incs>> = HashMap::default();
    for (f, c) in calls.clone() {
        let k = template_key(c);
        let t = match last {
            Some((lk, t)) if lk == k => t,
            _ => *templates.entry(k).or_insert_with(|| {
                made.push(Template::new(store, c));
                made.len() - 1
            }),
        };
        last = Some((k, t));
        let counted = match &made[t] {
            Some(t) => t.apply_into(store, c, &mut all_incs),
            None => match one_by_one
                .entry(call_key(c))
                .or_insert_with(|| pure_increment(store, c))
            {
                Some(incs) => {
                    all_incs.extend_from_slice(incs);
                    true
                }
                None => false,
            },
        };
        match counted {
            true => entries.push((c as *const ProbeCall as usize, all_incs.len() as u32, f)),
            false if seen.insert(c.func) => uncounted.push(c.func),
            false => {}
        }
    }
    let mut countable = Countable {
        entries,
        incs: all_incs,
    };
    // Increments whose bytes another shape of increment touches are not
    // counted: their probes are not countable increments either.
    let bad = conflicting_shapes(&countable.incs);
    if !bad.is_empty() {
        let mut calls = calls.map(|c| c.1);
        countable.retain(|addr, incs| {
            // (`entries` follow `calls`' order.)
            let c = loop {
                match calls.next() {
                    Some(c) if c as *const ProbeCall as usize == addr => break Some(c),
                    Some(_) => {}
                    None => break None,
                }
            };
            let keep = !incs.iter().any(|i| bad.contains(&i.shape()));
            if let Some(c) = c.filter(|_| !keep) {
                if seen.insert(c.func) {
                    uncounted.push(c.func);
                }
            }
            keep
        });
    }
    // Memories that a probe which is not a countable increment can reach are
    // not counted: such a probe could read the counters, and folding them
    // before each of its executions would cost more than it saves.
    let mut reached: HashSet<MemAddr> = HashSet::default();
    for f in uncounted {
        let reach = match store.funcs[f.0 as usize].kind {
            FuncKind::Wasm { instance, .. } => reachable_memories(store, instance),
            FuncKind::Host(_) => None,
        };
        match reach {
            Some(r) => reached.extend(r),
            None => return Countable::default(),
        }
    }
    if !reached.is_empty() {
        countable.retain(|_, incs| !incs.iter().any(|i| reached.contains(&i.mem)));
    }
    countable.entries.shrink_to_fit();
    countable.incs.shrink_to_fit();
    countable
}

/// The shapes of increment among `entries` that overlap another shape.
fn conflicting_shapes(all: &[Inc]) -> HashSet<Shape> {
    let incs = || all.iter();
    // Counters allocated in site order (one per site, each after the one
    // before, in one memory) cannot overlap: no sort of millions of shapes.
    let mut end: Option<(MemAddr, u64)> = None;
    let ascending = incs().all(|i| {
        let ok = end.is_none_or(|(m, e)| m == i.mem && i.ea as u64 >= e);
        end = Some((i.mem, i.ea as u64 + i.span() as u64));
        ok
    });
    let mut bad: HashSet<Shape> = HashSet::default();
    if ascending {
        return bad;
    }
    // Shapes per memory, sorted by address: any two distinct shapes that overlap conflict.
    let mut shapes: Vec<Shape> = incs().map(Inc::shape).collect();
    shapes.sort_unstable_by_key(|s| (s.0 .0, s.1, s.2, s.3, s.4));
    shapes.dedup();
    // Sweep by start address: a shape that starts before the furthest end seen
    // so far overlaps the shape with that end.
    let mut reach: Option<(MemAddr, u64, Shape)> = None;
    for s in &shapes {
        if let Some((m, end, first)) = reach {
            if m == s.0 && (s.1 as u64) < end {
                bad.insert(first);
                bad.insert(*s);
            }
        }
        let end = s.1 as u64 + s.2 as u64;
        match reach {
            Some((m, e, _)) if m == s.0 && e >= end => {}
            _ => reach = Some((s.0, end, *s)),
        }
    }
    bad
}

/// Where one function's counters go (pass 1 of weaving; emission replays
/// the same events).
#[derive(Default, Debug)]
pub struct FuncBlocks {
    /// (Event number, counter: woven global index to increment before it),
    /// ascending by event.
    pub starts: Vec<(usize, u32)>,
    /// Keys of the sites whose probes are counted through their block,
    /// ascending (sites come in event order; a sorted list is a fraction of
    /// a hash set's memory, and a plan has one key per counted site).
    pub folded: Vec<u64>,
}

/// The [`FuncBlocks`] of every function with counted blocks, as
/// [`plan_function`] gave them while it made the blocks of `c` (a plan kept
/// by the match cache is its counters alone).
pub fn func_blocks(c: &BlockCounters) -> HashMap<u32, FuncBlocks> {
    let mut out: HashMap<u32, FuncBlocks> = HashMap::default();
    for b in &c.blocks {
        let fb = out.entry(b.func).or_default();
        fb.starts.push((b.start, b.global));
        fb.folded.extend(c.sites_of(b).map(|s| s.0));
    }
    out
}

/// Whether the final `end` of function `idx` has probes (the body is then
/// wrapped in a block, see `weave`).
pub fn wrapped(
    m: &crate::core::module::ModuleInfo,
    idx: u32,
    fp: &crate::monitor::weave::FuncPlan,
) -> bool {
    let fb = m.body(idx);
    let end_pc = (fb.range.end - 1 - fb.range.start) as u32;
    fp.before.contains_key(&end_pc)
}

/// The events of function `idx` in order, with each instruction's pc and
/// its bytes in the module: event 0 is the entry site (no bytes).
pub fn for_each_event(
    m: &crate::core::module::ModuleInfo,
    idx: u32,
    wrapped: bool,
    mut f: impl FnMut(Ev, u32, &Operator<'_>, &[u8]) -> Result<(), crate::LoadError>,
) -> Result<(), crate::LoadError> {
    let body_start = m.body(idx).range.start;
    f(Ev::Site(0, When::Entry), 0, &Operator::Nop, &[])?;
    let mut ops = m.operators(idx);
    let mut depth = 0i32;
    while !ops.eof() {
        let off = ops.original_position();
        let op = ops.read().map_err(crate::LoadError::from)?;
        let pc = (off - body_start) as u32;
        let bytes = &m.bytes[off..ops.original_position()];
        let final_end = matches!(op, Operator::End) && depth == 0;
        for ev in events(&op, final_end, wrapped) {
            f(ev.at(pc), pc, &op, bytes)?;
        }
        depth += nesting(&op);
    }
    Ok(())
}

/// How `op` changes the block nesting: +1 where a block starts (`block`,
/// `loop`, `if`, `try_table` and the legacy `try`), -1 where one ends
/// (`end`, and `delegate`, which ends a legacy `try`).
fn nesting(op: &Operator<'_>) -> i32 {
    match op {
        Operator::Block { .. }
        | Operator::Loop { .. }
        | Operator::If { .. }
        | Operator::Try { .. }
        | Operator::TryTable { .. } => 1,
        Operator::End | Operator::Delegate { .. } => -1,
        _ => 0,
    }
}

/// The block counters of every function of `plan` (ascending) with the
/// countable probes `countable`, numbered from `first_global`
/// ([`plan_function`]), and each function's [`FuncBlocks`]. The counted
/// sites' increments are `countable`'s, moved. On a large plan the
/// functions are planned in parts on several threads (`plan_parts`), and
/// the parts joined in order: the same counters as in one part.
pub fn plan_functions(
    m: &crate::core::module::ModuleInfo,
    plan: &crate::monitor::weave::Plan,
    countable: Countable,
    first_global: u32,
) -> Result<(BlockCounters, HashMap<u32, FuncBlocks>), crate::LoadError> {
    let mut fids: Vec<u32> = plan.funcs.keys().copied().collect();
    fids.sort_unstable();
    let parts = split_functions(plan, &fids, plan_parts(countable.entries.len()));
    let c = &countable;
    let planned: Vec<Result<Part, crate::LoadError>> = match &parts[..] {
        [one] => vec![plan_part(m, plan, c, one)],
        [first, rest @ ..] => std::thread::scope(|s| {
            let others: Vec<_> = (rest.iter())
                .map(|p| s.spawn(move || plan_part(m, plan, c, p)))
                .collect();
            let mut all = vec![plan_part(m, plan, c, first)];
            for h in others {
                all.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            all
        }),
        [] => Vec::new(),
    };
    let mut out = BlockCounters {
        incs: countable.incs,
        ..BlockCounters::default()
    };
    let base = out.incs.len() as u32;
    let mut func_blocks: HashMap<u32, FuncBlocks> = HashMap::default();
    for part in planned {
        let part = part?;
        let (globals, sites) = (
            first_global + out.blocks.len() as u32,
            out.sites.len() as u32,
        );
        let extra = out.incs.len() as u32 - base;
        let shift = |r: &mut std::ops::Range<u32>, by: u32| *r = r.start + by..r.end + by;
        let (mut blocks, mut part_sites) = (part.counters.blocks, part.counters.sites);
        for b in &mut blocks {
            b.global += globals;
            shift(&mut b.sites, sites);
        }
        for s in part_sites.iter_mut().filter(|s| s.incs.start >= base) {
            shift(&mut s.incs, extra);
        }
        // (The first part's lists become the whole's: no copy.)
        if out.blocks.is_empty() && out.sites.is_empty() {
            (out.blocks, out.sites) = (blocks, part_sites);
        } else {
            out.blocks.append(&mut blocks);
            out.sites.append(&mut part_sites);
        }
        out.incs.extend(part.extra);
        out.probes_folded += part.counters.probes_folded;
        out.sites_folded += part.counters.sites_folded;
        for (f, mut fb) in part.func_blocks {
            fb.starts.iter_mut().for_each(|s| s.1 += globals);
            func_blocks.insert(f, fb);
        }
    }
    Ok((out, func_blocks))
}

/// Into how many parts, planned on as many threads, [`plan_functions`]
/// cuts a plan of `calls` countable calls: one below 100,000 (a thread
/// costs more than it saves), else one per core (at most 4). The variable
/// `WIZENG_PLAN_THREADS=N` sets it (1: one part, on the calling thread).
fn plan_parts(calls: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let forced = std::env::var("WIZENG_PLAN_THREADS").ok();
    if let Some(n) = forced.and_then(|v| v.parse::<usize>().ok()) {
        return n.clamp(1, 64);
    }
    if calls < 100_000 {
        return 1;
    }
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// `fids` cut into at most `parts` runs of about as many matched sites each.
fn split_functions<'f>(
    plan: &crate::monitor::weave::Plan,
    fids: &'f [u32],
    parts: usize,
) -> Vec<&'f [u32]> {
    let weight = |f: &u32| {
        let fp = &plan.funcs[f];
        1 + fp.before.len() + fp.after.len()
    };
    let total: usize = fids.iter().map(weight).sum();
    let per = total.div_ceil(parts.max(1)).max(1);
    let (mut out, mut start, mut acc) = (Vec::new(), 0, 0);
    for (i, f) in fids.iter().enumerate() {
        acc += weight(f);
        if acc >= per && out.len() + 1 < parts {
            out.push(&fids[start..=i]);
            (start, acc) = (i + 1, 0);
        }
    }
    if start < fids.len() || out.is_empty() {
        out.push(&fids[start..]);
    }
    out
}

/// What one part of [`plan_functions`] planned: counters numbered from 0,
/// its sites' increments copied out of the countable ones (`extra`, from
/// the countable increments' end on), and its functions' blocks.
struct Part {
    counters: BlockCounters,
    extra: Vec<Inc>,
    func_blocks: Vec<(u32, FuncBlocks)>,
}

fn plan_part(
    m: &crate::core::module::ModuleInfo,
    plan: &crate::monitor::weave::Plan,
    countable: &Countable,
    fids: &[u32],
) -> Result<Part, crate::LoadError> {
    let mut part = Part {
        counters: BlockCounters::default(),
        extra: Vec::new(),
        func_blocks: Vec::with_capacity(fids.len()),
    };
    let mut lookup = Lookup::new(countable, fids.first().copied().unwrap_or(0));
    for f in fids {
        let fp = &plan.funcs[f];
        let (out, extra) = (&mut part.counters, &mut part.extra);
        let fb = plan_function(m, *f, fp, &mut lookup, 0, out, extra)?;
        part.func_blocks.push((*f, fb));
    }
    Ok(part)
}

/// Partition function `idx` into blocks and give a counter to each block
/// with a countable probe (one is enough: at run time a counter increment
/// costs what the inlined increment would, and weaving, translating and
/// compiling it costs far less than inlining the probe's body). Counters are
/// numbered from `first_global + out.blocks.len()`. A counted site's
/// increments are a range of `countable`'s (its calls' are consecutive there
/// when the weave asks in site order); any other site's are copied into
/// `extra`, numbered from the end of `countable`'s.
pub fn plan_function(
    m: &crate::core::module::ModuleInfo,
    idx: u32,
    fp: &crate::monitor::weave::FuncPlan,
    countable: &mut Lookup<'_>,
    first_global: u32,
    out: &mut BlockCounters,
    extra: &mut Vec<Inc>,
) -> Result<FuncBlocks, crate::LoadError> {
    let mut fb = FuncBlocks::default();
    // (At most every site is counted: no growth.)
    fb.folded.reserve(1 + fp.before.len() + fp.after.len());
    let mut plan = BlockPlan {
        fb,
        start: 0,
        probes: 0,
        pcs: None,
        first_site: out.sites.len(),
        func: idx,
        first_global,
        out,
    };
    let (mut before, mut after) = (fp.before.cursor(), fp.after.cursor());
    let mut n = 0usize;
    let base = countable.c.incs.len() as u32;
    for_each_event(m, idx, wrapped(m, idx, fp), |ev, pc, _, _| {
        match ev {
            Ev::Split => plan.close(n + 1),
            Ev::Site(pc, when) => {
                let calls = match when {
                    When::Entry => Some(&fp.entry[..]),
                    When::Before => before.get(pc),
                    When::After => after.get(pc),
                };
                if let Some(calls) = calls.filter(|c| !c.is_empty()) {
                    match site_incs(calls, countable, base, extra) {
                        Some(incs) => {
                            plan.probes += calls.len() as u64;
                            plan.out.sites.push(CountedSite {
                                key: key(pc, when),
                                incs,
                            });
                        }
                        None => plan.close(n + 1),
                    }
                }
            }
            Ev::Op => plan.pcs = Some(plan.pcs.map_or((pc, pc), |(f, _)| (f, pc))),
            Ev::WrapEnd => {}
        }
        n += 1;
        Ok(())
    })?;
    plan.close(n);
    plan.fb.starts.shrink_to_fit();
    plan.fb.folded.shrink_to_fit();
    Ok(plan.fb)
}

/// The increments of a site whose `calls` are all countable, as a range of
/// the planned counters' `incs` (`countable`'s, then `extra` from `base`);
/// `None` if one is not.
fn site_incs(
    calls: &[ProbeCall],
    countable: &mut Lookup<'_>,
    base: u32,
    extra: &mut Vec<Inc>,
) -> Option<std::ops::Range<u32>> {
    let mut ranges: SmallVec<[std::ops::Range<u32>; 2]> = SmallVec::new();
    for c in calls {
        ranges.push(countable.get(c)?);
    }
    let contiguous = ranges.windows(2).all(|w| w[0].end == w[1].start);
    match (ranges.first(), ranges.last()) {
        (Some(a), Some(b)) if contiguous => Some(a.start..b.end),
        _ => {
            let start = base + extra.len() as u32;
            for r in ranges {
                extra.extend_from_slice(countable.incs(r));
            }
            Some(start..base + extra.len() as u32)
        }
    }
}

/// [`plan_function`]'s state: the block being walked (from event `start`)
/// and where finished ones go.
struct BlockPlan<'o> {
    fb: FuncBlocks,
    start: usize,
    /// Counted probes and the pcs of the instructions in the block so far.
    probes: u64,
    pcs: Option<(u32, u32)>,
    /// Where its counted sites start in `out.sites`.
    first_site: usize,
    func: u32,
    first_global: u32,
    out: &'o mut BlockCounters,
}

impl BlockPlan<'_> {
    /// End the block being walked (giving it a counter if it counts a
    /// probe); the next one starts at event `next`.
    fn close(&mut self, next: usize) {
        let start = std::mem::replace(&mut self.start, next);
        let pcs = self.pcs.take();
        let probes = std::mem::take(&mut self.probes);
        let first = std::mem::replace(&mut self.first_site, self.out.sites.len());
        if probes == 0 {
            return;
        }
        let out = &mut *self.out;
        let global = self.first_global + out.blocks.len() as u32;
        self.fb.starts.push((start, global));
        let sites = &out.sites[first..];
        self.fb.folded.extend(sites.iter().map(|s| s.key));
        out.probes_folded += probes;
        out.sites_folded += sites.len() as u64;
        out.blocks.push(CountedBlock {
            func: self.func,
            start,
            pcs,
            global,
            sites: first as u32..out.sites.len() as u32,
        });
    }
}

/// The i64 store of a counter's `width` bytes.
fn store_of_width(width: u8, ma: wasm_encoder::MemArg) -> wasm_encoder::Instruction<'static> {
    use wasm_encoder::Instruction as I;
    match width {
        8 => I::I64Store(ma),
        4 => I::I64Store32(ma),
        2 => I::I64Store16(ma),
        _ => I::I64Store8(ma),
    }
}

/// The fold functions: the first (exported as [`FOLD_EXPORT`]) calls the
/// others, which fold a share of the blocks each (bounded size, for the
/// compiler). `first_func` is the index of the first; `mem_idx` maps a
/// counter's memory to its index in the woven module.
pub fn fold_functions(
    counters: &BlockCounters,
    mem_idx: &dyn Fn(MemAddr) -> u32,
    first_func: u32,
) -> Vec<wasm_encoder::Function> {
    use wasm_encoder::{BlockType, Function, Instruction as I, MemArg};
    const CHUNK: usize = 2048;
    let mut chunks: Vec<Function> = Vec::new();
    let mut f = Function::new([(1, wasm_encoder::ValType::I64)]);
    let mut n = 0usize;
    for b in &counters.blocks {
        let mut agg: Vec<Inc> = counters
            .sites_of(b)
            .flat_map(|s| s.1.iter().copied())
            .collect();
        agg.sort_by_key(|i| (i.mem.0, i.ea, i.width));
        let mut merged: Vec<Inc> = Vec::new();
        for i in agg {
            match merged.last_mut() {
                Some(l)
                    if !i.set
                        && (l.mem, l.ea, l.width, l.zext, l.set)
                            == (i.mem, i.ea, i.width, i.zext, i.set) =>
                {
                    l.delta = l.delta.wrapping_add(i.delta)
                }
                _ => merged.push(i),
            }
        }
        f.instruction(&I::Block(BlockType::Empty));
        f.instruction(&I::GlobalGet(b.global));
        f.instruction(&I::LocalTee(0));
        f.instruction(&I::I64Eqz);
        f.instruction(&I::BrIf(0));
        f.instruction(&I::I64Const(0));
        f.instruction(&I::GlobalSet(b.global));
        for i in &merged {
            let ma = MemArg {
                offset: 0,
                align: 0,
                memory_index: mem_idx(i.mem),
            };
            f.instruction(&I::I32Const(i.ea as i32));
            if i.set {
                // The block ran: its constant, once.
                f.instruction(&I::I64Const(i.delta as i64));
                f.instruction(&store_of_width(i.width, ma));
                continue;
            }
            f.instruction(&I::I32Const(i.ea as i32));
            f.instruction(&match i.width {
                8 => I::I64Load(ma),
                4 => I::I64Load32U(ma),
                2 => I::I64Load16U(ma),
                _ => I::I64Load8U(ma),
            });
            f.instruction(&I::LocalGet(0));
            if i.delta != 1 {
                f.instruction(&I::I64Const(i.delta as i64));
                f.instruction(&I::I64Mul);
            }
            f.instruction(&I::I64Add);
            if i.zext {
                // The 4-byte counter, zero-extended into its 8 bytes.
                f.instruction(&I::I64Const(0xffff_ffff));
                f.instruction(&I::I64And);
                f.instruction(&I::I64Store(ma));
                continue;
            }
            f.instruction(&store_of_width(i.width, ma));
        }
        f.instruction(&I::End);
        n += merged.len() + 1;
        if n >= CHUNK {
            f.instruction(&I::End);
            chunks.push(std::mem::replace(
                &mut f,
                Function::new([(1, wasm_encoder::ValType::I64)]),
            ));
            n = 0;
        }
    }
    if n > 0 {
        f.instruction(&I::End);
        chunks.push(f);
    }
    let mut main = Function::new([]);
    for k in 0..chunks.len() {
        main.instruction(&I::Call(first_func + 1 + k as u32));
    }
    main.instruction(&I::End);
    std::iter::once(main).chain(chunks).collect()
}

/// An upper bound on one function's counted blocks, from its sites in
/// program order, as matching sees them: the runs of events between the
/// splits of `events` that have a site with probes (the final `end`'s
/// sites counting on both sides of the split it has where its body is
/// wrapped). A site whose calls are not all countable splits a run once
/// more: [`LazyBlocks::new`] adds those.
#[derive(Default, Clone, Copy, Debug)]
pub struct BlockBound {
    runs: u32,
    /// The run so far has a site with probes.
    has: bool,
    /// The last instruction splits after its `before` site.
    pending: bool,
}

impl BlockBound {
    /// At the entry site (`op` None) or before instruction `op` (`final_end`:
    /// the function's last `end`), whose site has probes or not.
    pub fn before(&mut self, op: Option<&Operator<'_>>, final_end: bool, probed: bool) {
        if std::mem::take(&mut self.pending) {
            self.close();
        }
        match op {
            // (`Op, Split, BEFORE, AFTER`.)
            Some(Operator::Loop { .. } | Operator::End) if !final_end => {
                self.close();
                self.has = probed;
            }
            Some(Operator::End) => {
                self.has |= probed;
                self.close();
                self.has = probed;
            }
            // (`BEFORE, Op, Split, AFTER`.)
            Some(op) if ends_block(op) => {
                self.has |= probed;
                self.pending = true;
            }
            _ => self.has |= probed,
        }
    }

    /// After the last instruction, whose site has probes or not.
    pub fn after(&mut self, probed: bool) {
        if std::mem::take(&mut self.pending) {
            self.close();
        }
        self.has |= probed;
    }

    fn close(&mut self) {
        self.runs += self.has as u32;
        self.has = false;
    }

    /// The bound, once every site of the function has been seen.
    pub fn finish(mut self) -> u32 {
        self.close();
        self.runs
    }
}

/// Block counters planned one function at a time, when it is first woven
/// (a large app runs few of its functions: boa 4 of 3,630). Each function
/// with probes gets a range of counter globals at load, as many as its
/// counted blocks can be at most: its [`BlockBound`] plus its sites whose
/// calls are not all countable, and at most its countable calls.
/// [`LazyBlocks::plan`] plans one function into its range
/// ([`plan_function`]) and adds its blocks to [`LazyBlocks::planned`],
/// which the fold reads; a function never woven never ran, and has nothing
/// to fold.
pub struct LazyBlocks {
    countable: Countable,
    /// Per function with countable probes: its first counter and how many.
    ranges: HashMap<u32, (u32, u32)>,
    /// How many counter globals are reserved, from the first.
    pub reserved: u32,
    /// Per site call (in the order given to [`LazyBlocks::new`]): whether
    /// its site's calls are all countable (and so counted).
    pub folded: Vec<bool>,
    /// The probes and sites so counted (planned or not).
    pub probes_folded: u64,
    pub sites_folded: u64,
    /// The blocks of the functions planned so far.
    pub planned: std::sync::Arc<std::sync::Mutex<BlockCounters>>,
}

impl LazyBlocks {
    /// Reserve the counters of every function of `plan`, from global
    /// `first_global` in function order. `calls`: every (function, site
    /// key, call) of the plan, in the order [`countable`] was given them.
    /// `countable` back if the plan lacks a function's bound (a plan not
    /// made by matching, `weave::Recorder`, nor restored from its record).
    pub fn new<'a>(
        plan: &crate::monitor::weave::Plan,
        countable: Countable,
        calls: impl Iterator<Item = (u32, u64, &'a ProbeCall)>,
        first_global: u32,
    ) -> Result<LazyBlocks, Countable> {
        // (Per function: calls, countable calls.)
        let mut per: HashMap<u32, (u32, u32)> = HashMap::default();
        let (folded, probes_folded, sites_folded) = site_folded(&countable, calls, &mut per);
        let mut fids: Vec<u32> = per.keys().copied().collect();
        fids.sort_unstable();
        let (mut ranges, mut next) = (HashMap::default(), first_global);
        for f in fids {
            let (all, counted) = per[&f];
            let bound = plan.funcs.get(&f).and_then(|fp| fp.blocks_bound);
            let Some(bound) = bound else {
                return Err(countable);
            };
            let n = (bound.saturating_add(all - counted)).min(counted);
            if n > 0 {
                ranges.insert(f, (next, n));
                next += n;
            }
        }
        Ok(LazyBlocks {
            countable,
            ranges,
            reserved: next - first_global,
            folded,
            probes_folded,
            sites_folded,
            planned: Default::default(),
        })
    }

    /// Every countable probe's increments (some may not be counted: a site
    /// with a call that is not countable counts none of its calls).
    pub fn countable_incs(&self) -> &[Inc] {
        &self.countable.incs
    }

    /// The blocks of function `f` (of plan `fp`), planned into its range;
    /// `None` if it has no countable probe.
    pub fn plan(
        &self,
        m: &crate::core::module::ModuleInfo,
        f: u32,
        fp: &crate::monitor::weave::FuncPlan,
    ) -> Result<Option<FuncBlocks>, crate::LoadError> {
        let Some(&(first, n)) = self.ranges.get(&f) else {
            return Ok(None);
        };
        let mut lookup = Lookup::of_function(&self.countable, f);
        let (mut out, mut extra) = (BlockCounters::default(), Vec::new());
        let fb = plan_function(m, f, fp, &mut lookup, first, &mut out, &mut extra)?;
        if out.blocks.len() > n as usize {
            return Err(crate::LoadError {
                kind: crate::core::error::LoadErrorKind::MonitorBind,
                offset: None,
                message: format!(
                    "weaving: function {f} has {} counted blocks, {n} reserved",
                    out.blocks.len()
                ),
            });
        }
        let base = self.countable.incs.len();
        let mut all = self.planned.lock().unwrap_or_else(|e| e.into_inner());
        let first_site = all.sites.len() as u32;
        for s in &mut out.sites {
            let (a, b) = (s.incs.start as usize, s.incs.end as usize);
            let incs = match a >= base {
                true => &extra[a - base..b - base],
                false => &self.countable.incs[a..b],
            };
            let start = all.incs.len() as u32;
            all.incs.extend_from_slice(incs);
            s.incs = start..all.incs.len() as u32;
        }
        for b in &mut out.blocks {
            b.sites = b.sites.start + first_site..b.sites.end + first_site;
        }
        all.sites.append(&mut out.sites);
        all.blocks.append(&mut out.blocks);
        all.probes_folded += out.probes_folded;
        all.sites_folded += out.sites_folded;
        Ok(Some(fb))
    }
}

/// Per site call, whether its site's calls are all countable (`entries`
/// follow the calls' order); per function its calls and countable calls
/// (into `per`); and the probes and sites so counted.
fn site_folded<'a>(
    countable: &Countable,
    calls: impl Iterator<Item = (u32, u64, &'a ProbeCall)>,
    per: &mut HashMap<u32, (u32, u32)>,
) -> (Vec<bool>, u64, u64) {
    let mut out: Vec<bool> = Vec::with_capacity(countable.entries.len());
    let (mut next, mut site_start) = (0usize, 0usize);
    let (mut probes, mut sites) = (0u64, 0u64);
    let mut last: Option<(u32, u64)> = None;
    let mut cur: Option<(u32, (u32, u32))> = None;
    let mut end_site = |out: &[bool], start: usize| {
        if out.get(start).is_some_and(|x| *x) {
            (probes, sites) = (probes + (out.len() - start) as u64, sites + 1);
        }
    };
    for (f, k, c) in calls {
        if last != Some((f, k)) {
            end_site(&out, site_start);
            site_start = out.len();
            last = Some((f, k));
        }
        let id = c as *const ProbeCall as usize;
        let counted = countable.entries.get(next).is_some_and(|e| e.0 == id);
        next += counted as usize;
        // (Calls come function by function: one lookup per function.)
        match &mut cur {
            Some((g, n)) if *g == f => *n = (n.0 + 1, n.1 + counted as u32),
            _ => {
                if let Some((g, n)) = cur.replace((f, (1, counted as u32))) {
                    add_to(per, g, n);
                }
            }
        }
        // (A site's calls are all folded or none is.)
        let all = counted && out[site_start..].iter().all(|x| *x);
        if !all {
            out[site_start..].iter_mut().for_each(|x| *x = false);
        }
        out.push(all);
    }
    end_site(&out, site_start);
    if let Some((g, n)) = cur {
        add_to(per, g, n);
    }
    (out, probes, sites)
}

fn add_to(per: &mut HashMap<u32, (u32, u32)>, f: u32, n: (u32, u32)) {
    let e = per.entry(f).or_default();
    *e = (e.0 + n.0, e.1 + n.1);
}

/// Whether block counters of `calls` countable calls are planned per
/// function when first woven ([`LazyBlocks`]) rather than all at load: from
/// 100,000 calls (below, planning them all costs less than a millisecond
/// or so, and a lazily woven module's first run of each function would pay
/// it anyway). The variable `WIZENG_LAZY_COUNTERS=on|off` decides instead.
pub fn plan_lazily(calls: usize) -> bool {
    match std::env::var("WIZENG_LAZY_COUNTERS").as_deref() {
        Ok("on") => true,
        Ok("off") => false,
        _ => calls >= 100_000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound counts the runs of events between block splits that have a
    /// probed site, as `events` orders an instruction's events: a call's
    /// `after` site is past its split, a loop's and an inner `end`'s sites
    /// past theirs; the final `end` counts on both sides. Unprobed runs
    /// (dead code after a branch) count nothing.
    #[test]
    fn the_block_bound_counts_probed_runs() {
        use Operator as O;
        let bound = |ops: &[(Option<O<'static>>, bool, bool)]| {
            let mut b = BlockBound::default();
            let last = ops.len() - 1;
            for (i, (op, before, after)) in ops.iter().enumerate() {
                b.before(op.as_ref(), i == last, *before);
                if op.is_some() {
                    b.after(*after);
                }
            }
            b.finish()
        };
        let c = || Some(O::I32Const { value: 1 });
        // entry | const call | const loop | br_if | end | end(final):
        // blocks [entry const call] [const] [loop br_if] [] [end end]; the
        // final `end` may add one.
        let straight = [
            (None, true, false),
            (c(), true, false),
            (Some(O::Call { function_index: 0 }), true, false),
            (c(), true, false),
            (
                Some(O::Loop {
                    blockty: wasmparser::BlockType::Empty,
                }),
                true,
                false,
            ),
            (Some(O::BrIf { relative_depth: 0 }), true, false),
            (Some(O::End), true, false),
            (Some(O::End), true, false),
        ];
        assert_eq!(bound(&straight), 5);
        // A probe after the call only: its run is the one past the split.
        let after_call = [
            (None, false, false),
            (Some(O::Call { function_index: 0 }), false, true),
            (Some(O::End), false, false),
        ];
        assert_eq!(bound(&after_call), 1);
        // Dead code after `br` has no probes: its run is not counted.
        let dead = [
            (None, true, false),
            (
                Some(O::Block {
                    blockty: wasmparser::BlockType::Empty,
                }),
                true,
                false,
            ),
            (Some(O::Br { relative_depth: 0 }), true, false),
            (c(), false, false),
            (c(), false, false),
            (Some(O::End), false, false),
            (Some(O::End), false, false),
        ];
        assert_eq!(bound(&dead), 1);
    }
    use crate::runtime::store::{Config, Linker};
    use std::sync::Arc;

    /// A monitor whose functions take counter addresses (and other
    /// constants) as arguments, instantiated in a fresh store.
    fn monitor() -> (Store, InstanceId) {
        let wat = r#"(module
            (memory 1)
            (global $one i32 (i32.const 1))
            ;; the counter at the argument, + 1
            (func (export "inc") (param i32)
                (i64.store offset=8 (local.get 0)
                    (i64.add (i64.load offset=8 (local.get 0)) (i64.const 1))))
            ;; two counters, the second 4 bytes on, through an added address
            (func (export "two") (param i32 i32)
                (i32.store (local.get 0) (i32.add (i32.load (local.get 0)) (i32.const 1)))
                (local.set 0 (i32.add (local.get 0) (i32.const 4)))
                (i32.store (local.get 0) (i32.add (i32.load (local.get 0)) (local.get 1))))
            ;; the address computed by a call, wrapped from an i64
            (func $addr (param i64) (result i32) (i32.wrap_i64 (i64.sub (local.get 0) (i64.const 16))))
            (func (export "called") (param i64)
                (i32.store8 (call $addr (local.get 0))
                    (i32.add (i32.load8_u (call $addr (local.get 0))) (global.get $one))))
            ;; a branch on the argument: no template, each call on its own
            (func (export "branchy") (param i32)
                (if (i32.eqz (local.get 0)) (then (return)))
                (i32.store (local.get 0) (i32.add (i32.load (local.get 0)) (i32.const 1))))
            ;; a u32 in an 8-byte slot (whamm's): stored back zero-extended
            (func (export "u32slot") (param i32)
                (i64.store (local.get 0)
                    (i64.extend_i32_u (i32.add (i32.load (local.get 0)) (i32.const 3)))))
            ;; the same, but added to after the extension: not an increment
            (func (export "u32late") (param i32)
                (i64.store (local.get 0)
                    (i64.add (i64.extend_i32_u (i32.load (local.get 0))) (i64.const 1))))
            ;; a flag (whamm's `reached = true` in an 8-byte slot)
            (func (export "flag") (param i32)
                (i64.store offset=8 (local.get 0) (i64.extend_i32_u (i32.const 1))))
            ;; a branch tally on the second argument: taken at +24, else +32
            (func (export "tally") (param i32 i32)
                (if (i32.ne (local.get 1) (i32.const 0))
                    (then (i64.store offset=24 (local.get 0)
                        (i64.add (i64.load offset=24 (local.get 0)) (i64.const 1))))
                    (else (i64.store offset=32 (local.get 0)
                        (i64.add (i64.load offset=32 (local.get 0)) (i64.const 1))))))
            ;; two increments when the argument is not zero: not a tally
            (func (export "tally2") (param i32 i32)
                (if (local.get 1)
                    (then (i64.store offset=24 (local.get 0)
                            (i64.add (i64.load offset=24 (local.get 0)) (i64.const 1)))
                        (i64.store offset=40 (local.get 0)
                            (i64.add (i64.load offset=40 (local.get 0)) (i64.const 1))))
                    (else (i64.store offset=32 (local.get 0)
                        (i64.add (i64.load offset=32 (local.get 0)) (i64.const 1))))))
            ;; nothing when the argument is zero: not a tally
            (func (export "tally0") (param i32 i32)
                (if (local.get 1)
                    (then (i64.store offset=24 (local.get 0)
                        (i64.add (i64.load offset=24 (local.get 0)) (i64.const 1)))))))"#;
        let bytes = wat::parse_str(wat).unwrap();
        let mut store = Store::new(Config::default());
        let module = Arc::new(crate::Module::new(&bytes).unwrap());
        let id = Linker::new().instantiate(&mut store, &module).unwrap();
        (store, id)
    }

    fn call(store: &Store, id: InstanceId, name: &str, args: &[ArgSource]) -> ProbeCall {
        let func = store.export_func(id, name).unwrap();
        let shape = Arc::new(crate::core::probe::CallShape {
            types: store.func_type(func).params.to_vec().into(),
            origin: Arc::from(name),
        });
        ProbeCall::new(func, shape, args.into(), None)
    }

    #[test]
    fn templates_find_what_each_call_finds() {
        let (store, id) = monitor();
        use ArgSource::{Const, Local};
        let cases: Vec<(&str, Vec<ArgSource>, bool)> = vec![
            ("inc", vec![Const(0)], true),
            ("inc", vec![Const(64)], true),
            // Out of bounds (one page): no increment.
            ("inc", vec![Const(65536 - 12)], true),
            ("inc", vec![Const(0xffff_fff8)], true),
            ("two", vec![Const(100), Const(5)], false),
            ("two", vec![Const(200), Local(0)], false),
            ("two", vec![Const(300), Const(1)], false),
            ("called", vec![Const(40)], true),
            ("called", vec![Const(8)], true),
            ("branchy", vec![Const(0)], false),
            ("branchy", vec![Const(12)], false),
            ("u32slot", vec![Const(16)], true),
            ("u32late", vec![Const(16)], false),
            ("flag", vec![Const(32)], true),
        ];
        for (name, args, templated) in cases {
            let c = call(&store, id, name, &args);
            let direct = pure_increment(&store, &c);
            let t = Template::new(&store, &c);
            assert_eq!(t.is_some(), templated, "{name}{args:?}: template");
            if let Some(t) = t {
                assert_eq!(t.apply(&store, &c), direct, "{name}{args:?}");
            }
        }
        // What a template gives is the evaluation's own result.
        let mem = store.instance(id).memories[0];
        let inc = |ea, width, delta, zext| Inc {
            mem,
            ea,
            width,
            delta,
            zext,
            set: false,
        };
        let c = call(&store, id, "inc", &[Const(64)]);
        let got = Template::new(&store, &c).unwrap().apply(&store, &c);
        assert_eq!(got.map(|v| v.to_vec()), Some(vec![inc(72, 8, 1, false)]));
        // A zero-extended u32 slot: a 4-byte increment that clears the 4
        // bytes above; with anything added after the extension, none.
        let c = call(&store, id, "u32slot", &[Const(16)]);
        let want = inc(16, 4, 3, true);
        assert_eq!(
            pure_increment(&store, &c).map(|v| v.to_vec()),
            Some(vec![want])
        );
        assert_eq!(want.span(), 8);
        let c = call(&store, id, "u32late", &[Const(16)]);
        assert_eq!(pure_increment(&store, &c), None);
        // A constant store: folded as one store.
        let c = call(&store, id, "flag", &[Const(32)]);
        let want = Inc {
            set: true,
            ..inc(40, 8, 1, false)
        };
        assert_eq!(
            pure_increment(&store, &c).map(|v| v.to_vec()),
            Some(vec![want])
        );
        let c = call(&store, id, "called", &[Const(40)]);
        assert_eq!(
            Template::new(&store, &c)
                .unwrap()
                .apply(&store, &c)
                .unwrap()[0]
                .ea,
            24
        );
    }

    /// A branch tally's two increments at a site: from the site's constant
    /// address argument, in bounds; none for a site whose address is not a
    /// constant or out of bounds, nor for a function with more or fewer
    /// than one increment on a side.
    #[test]
    fn two_sided_tallies_are_one_increment_either_way() {
        let (store, id) = monitor();
        use ArgSource::{Const, Local, Operand};
        let f = |name| store.export_func(id, name).unwrap();
        let t = TwoSided::of(&store, f("tally"), 1).expect("a tally");
        let mem = store.instance(id).memories[0];
        let inc = |ea| Inc {
            mem,
            ea,
            width: 8,
            delta: 1,
            zext: false,
            set: false,
        };
        assert_eq!(t.at(&[Const(100), Operand(0)]), Some((inc(124), inc(132))));
        assert_eq!(t.at(&[Local(0), Operand(0)]), None);
        // The `else` side's counter ends past the page: neither is done.
        assert_eq!(t.at(&[Const(65536 - 36), Operand(0)]), None);
        assert!(t.at(&[Const(65536 - 40), Operand(0)]).is_some());
        // Parameter 0 is an address, not a tested value.
        assert!(TwoSided::of(&store, f("tally"), 0).is_none());
        assert!(TwoSided::of(&store, f("tally2"), 1).is_none());
        assert!(TwoSided::of(&store, f("tally0"), 1).is_none());
        // A pure increment is no tally of its parameter.
        assert!(TwoSided::of(&store, f("inc"), 0).is_none());
    }
}
