//! Running a static call (a predicate or a call parameter) in its monitor,
//! once per matched site: on a large app millions of times, so the call is
//! prepared once per called function ([`Prepared`]) and made on raw slots.
//!
//! Every argument of a static call is a number known at match time and its
//! one result is read back at once, so a function whose type has no
//! reference needs none of [`Store::invoke`]'s checks (argument types were
//! checked against the type, and no reference enters the store) nor its
//! conversions: its slots go to the interpreter or to compiled code as they
//! are, the way calls between the tiers pass them.

use std::cell::Cell;
use std::rc::Rc;

use smallvec::SmallVec;

use monitor_abi::Param;

use crate::core::error::Trap;
use crate::core::types::{slot_count, FuncAddr, FuncType, ValType, Value};
use crate::runtime::store::{FuncKind, Store};

/// How many static calls of one monitor are made interpreted before the
/// rest run in the store's tier (dyn: each function compiled once hot).
/// Below this, compiling them would cost more than interpreting saves (a
/// PolyBench program has ~10k sites); beyond it (an allocator per site on
/// an app of a million instructions) compiled calls cost a fraction.
pub(super) const INTERPRETED_PER_MONITOR: u32 = 20_000;

/// Slots the raw path passes on the native stack (more go through
/// [`Store::invoke`]).
pub(super) const SLOTS: usize = 16;

/// A static call's arguments while they are gathered: each value's type
/// and its slot. Static values are numbers of one slot (`i32`, `i64`,
/// `f32`, `f64`: what a site's facts give), so a value is its slot. (The
/// matcher reuses one list for every call.)
#[derive(Default)]
pub(super) struct StaticArgs(pub(super) Vec<(ValType, u64)>);

impl StaticArgs {
    /// Add a value (a number of one slot, see the type's docs).
    #[inline]
    pub(super) fn push(&mut self, v: Value) {
        self.0.push((v.ty(), v.to_slot()));
    }

    /// Whether the values are of types `tys`.
    pub(super) fn are_of(&self, tys: &[ValType]) -> bool {
        self.0.len() == tys.len() && self.0.iter().zip(tys).all(|(a, t)| a.0 == *t)
    }

    pub(super) fn types(&self) -> impl Iterator<Item = ValType> + '_ {
        self.0.iter().map(|a| a.0)
    }

    /// The values, in order.
    pub(super) fn values(&self) -> impl Iterator<Item = Value> + '_ {
        self.0.iter().map(|(t, s)| Value::from_slot(*t, *s))
    }
}

/// A site fact of a fixed type that a static call may take: what the
/// allocators of `report` variables take (`fid, pc, opcode, fname`). A call
/// taking only these ([`Prepared::facts`]) has its slots filled straight
/// from the site, with no per-call type check: it was made once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fact {
    Fid,
    Pc,
    Opcode,
    /// The function's name in the monitor's `whamm_buffer`: (ptr, len).
    Fname,
}

impl Fact {
    fn of(p: &Param) -> Option<Fact> {
        Some(match p {
            Param::Fid => Fact::Fid,
            Param::Pc => Fact::Pc,
            Param::Opcode => Fact::Opcode,
            Param::Fname => Fact::Fname,
            _ => return None,
        })
    }

    /// Its values' slots (all `i32`).
    pub(super) fn slots(self) -> usize {
        if self == Fact::Fname {
            2
        } else {
            1
        }
    }
}

/// A static call's function, resolved once.
#[derive(Clone)]
pub(super) struct Prepared {
    pub(super) func: FuncAddr,
    pub(super) ty: Rc<FuncType>,
    /// Whether it may be called on raw slots: a Wasm function whose type has
    /// no reference and at most [`SLOTS`] slots either way.
    raw: bool,
    /// Slots of the raw call's buffer: its parameters' or results', at least 1.
    buf_len: usize,
    /// Its entry into compiled code, once it has some (shared by the clones).
    entry: Rc<Cell<Option<crate::exec::jit::Entry>>>,
    /// The call's parameters, when all are [`Fact`]s, the function is called
    /// raw, takes exactly their `i32`s and returns one value.
    facts: Option<Rc<[Fact]>>,
}

impl Prepared {
    /// `func`, called with `params` (a static call's).
    pub(super) fn new(store: &Store, func: FuncAddr, params: &[Param]) -> Prepared {
        let ty = store.func_type(func).clone();
        let wasm = matches!(store.funcs[func.0 as usize].kind, FuncKind::Wasm { .. });
        let most = slot_count(&ty.params).max(slot_count(&ty.results));
        let raw = wasm && most <= SLOTS && ty.is_numeric();
        let facts: Option<Rc<[Fact]>> = params.iter().map(Fact::of).collect();
        let facts = facts.filter(|f| {
            let slots: usize = f.iter().map(|f| f.slots()).sum();
            raw && ty.results.len() == 1
                && ty.params.len() == slots
                && ty.params.iter().all(|t| *t == ValType::I32)
        });
        Prepared {
            func,
            raw,
            buf_len: most.max(1),
            ty: Rc::new(ty),
            entry: Rc::default(),
            facts,
        }
    }

    /// The call's parameters as [`Fact`]s, if [`Self::call_slots`] may be
    /// given them (see the field).
    pub(super) fn facts(&self) -> Option<&Rc<[Fact]>> {
        self.facts.as_ref()
    }

    /// Call it with `args` (of its parameter types, checked by the caller)
    /// and return its first result. `interpreted`: a one-off call, run in
    /// the interpreter without counting towards tier-up
    /// (`tiering::interpreted`); otherwise it runs in the store's tier.
    pub(super) fn call(
        &self,
        store: &mut Store,
        args: &StaticArgs,
        interpreted: bool,
    ) -> Result<Option<Value>, Trap> {
        if !self.raw {
            let args: SmallVec<[Value; 8]> = args.values().collect();
            let r = if interpreted {
                crate::exec::tiering::interpreted(store, |s| s.invoke(self.func, &args))
            } else {
                store.invoke(self.func, &args)
            };
            return r.map(|r| r.into_iter().next());
        }
        // (The parameters are one slot each: see `StaticArgs`.)
        let mut buf = [0u64; SLOTS];
        for (i, a) in args.0.iter().take(SLOTS).enumerate() {
            buf[i] = a.1;
        }
        self.call_slots(store, &mut buf, interpreted)
    }

    /// [`Self::call`] with its arguments already in `buf`'s first slots (a
    /// function called raw: [`Self::facts`] says when).
    pub(super) fn call_slots(
        &self,
        store: &mut Store,
        buf: &mut [u64; SLOTS],
        interpreted: bool,
    ) -> Result<Option<Value>, Trap> {
        debug_assert!(self.raw);
        let f = self.func;
        let run = |s: &mut Store, buf: &mut [u64]| {
            // As the interpreter calls a Wasm function: its compiled code
            // when the tier has (or, dyn, once hot makes) some, entered
            // without looking its trampoline up again. Once it has been
            // (`entry` is set), it always is: compiled code stays, and a
            // monitor's interpreted calls are its first ones.
            if let Some(e) = self.entry.get() {
                return crate::exec::jit::invoke_slots_via(s, e, buf);
            }
            if !crate::exec::tiering::use_compiled(s, f) {
                return crate::exec::interp::invoke_slots(s, f, buf);
            }
            match self.entry.get().or_else(|| crate::exec::jit::entry(s, f)) {
                Some(e) => {
                    self.entry.set(Some(e));
                    crate::exec::jit::invoke_slots_via(s, e, buf)
                }
                None => crate::exec::jit::invoke_slots(s, f, buf),
            }
        };
        let buf = &mut buf[..self.buf_len];
        if interpreted {
            crate::exec::tiering::interpreted(store, |s| run(s, buf))?;
        } else {
            run(store, buf)?;
        }
        Ok(self.ty.results.first().map(|t| Value::read_slots(*t, buf)))
    }
}
