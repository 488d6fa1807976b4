//! Exceptions in the interpreter: raising them (`throw`, `throw_ref`,
//! legacy `rethrow`) and unwinding to a handler.
//!
//! A thrown exception travels as a [`Trap`] of kind
//! [`TrapKind::Exception`] (through host calls and compiled code too, as
//! traps do). [`Interp::unwind`] walks the running activation and then the
//! suspended frames of this execution, innermost first: in each, the
//! innermost handler region around the op that threw (or made the call) and
//! then its outer ones (`TryRegion::outer`). A matching catch cuts the
//! operand stack to its label's height, pushes the payload (and the exnref)
//! and continues at its target. Any other trap passes through untouched.
//!
//! Exception objects are GC heap objects (`runtime::exn`); an exception in
//! flight is reachable only from its trap, so nothing allocates (or
//! collects) between a throw and its landing.

use super::code::{Catch, Op};
use super::exec::Interp;
use crate::core::error::{Exception, Trap, TrapKind};
use crate::core::types::{slot_count, InstanceId, TagAddr};
use crate::runtime::exn;

impl Interp<'_> {
    /// Raises the exception of a `throw`, `throw_ref` or `rethrow` op (the
    /// op being executed): the trap that carries it (or a trap for a null
    /// reference).
    #[cold]
    #[inline(never)]
    pub(super) fn throw(&mut self, op: Op) -> Trap {
        let handle = match op {
            Op::Throw(t) => {
                // Before the payload leaves the stack (its references are
                // roots there).
                self.maybe_collect();
                let tag = self.store.instances[self.inst].tags[t as usize];
                let ty = self.store.tag_type(tag).clone();
                let n = slot_count(&ty.params);
                self.sp -= n;
                let payload = self.slots(self.sp, n).to_vec();
                exn::alloc(&mut self.store.heap, tag, &ty, &payload)
            }
            Op::ThrowRef => self.pop(),
            Op::Rethrow(slot) => self.rd(self.fp + slot as usize),
            _ => unreachable!("not a throwing op"),
        };
        let Some((tag, _)) = self.store.exception(handle) else {
            return self.trap(TrapKind::NullReference);
        };
        let tag = self.store.describe_tag(InstanceId(self.inst as u32), tag);
        self.trap(TrapKind::Exception(Exception {
            exn: handle as u32,
            tag,
        }))
    }

    /// `t` was raised at the op being executed. An exception lands in the
    /// innermost matching handler of this execution (`Ok`: go on there);
    /// otherwise `t` is returned, and the frames of this execution are gone.
    #[cold]
    #[inline(never)]
    pub(super) fn unwind(&mut self, t: Trap) -> Result<(), Trap> {
        let Some(e) = t.exception() else {
            return Err(self.attribute_woven(t));
        };
        if std::mem::take(&mut self.ended) {
            return Err(t);
        }
        let handle = e.exn as u64;
        let Some(tag) = self.store.exception(handle).map(|x| x.0) else {
            return Err(t);
        };
        // The op that raised it, or the call the exception came out of.
        let mut at = self.ip_index() as u32 - 1;
        loop {
            if let Some(c) = self.find_catch(at, tag) {
                self.land(&c, handle);
                return Ok(());
            }
            match self.frames.pop() {
                Some(fr) => {
                    at = fr.ip as u32 - 1;
                    self.resume(fr);
                }
                None => return Err(t),
            }
        }
    }

    /// `t` came out of a tail call to a callee outside the interpreter
    /// (compiled code, a host function). The calling activation ended at the
    /// call, so its handlers do not apply, as for a tail call inside the
    /// interpreter: an exception unwinds from the caller's call, or leaves
    /// this execution if the activation was its bottom one.
    #[cold]
    #[inline(never)]
    pub(super) fn after_tail_call(&mut self, t: Trap) -> Trap {
        if t.exception().is_some() {
            match self.frames.pop() {
                Some(fr) => self.resume(fr),
                None => self.ended = true,
            }
        }
        t
    }

    /// The catch clause of the running activation that takes an exception
    /// of tag `tag` raised at op `at`.
    fn find_catch(&self, at: u32, tag: TagAddr) -> Option<Catch> {
        let hs = &self.code.handlers;
        let mut r = hs.iter().rposition(|h| h.start <= at && at < h.end);
        let tags = &self.store.instances[self.inst].tags;
        while let Some(i) = r {
            let h = &hs[i];
            let hit = h
                .catches
                .iter()
                .find(|c| c.tag.is_none_or(|k| tags[k as usize] == tag));
            if let Some(c) = hit {
                return Some(c.clone());
            }
            r = h.outer.map(|o| o as usize);
        }
        None
    }

    /// Continues at catch clause `c` with exception `handle`.
    fn land(&mut self, c: &Catch, handle: u64) {
        self.sp = self.fp + c.to.base as usize;
        if c.tag.is_some() {
            let payload = self.store.exception(handle).map(|x| x.1.to_vec());
            for s in payload.unwrap_or_default() {
                self.push(s);
            }
        }
        if c.push_ref {
            self.push(handle);
        }
        if let Some(slot) = c.exn_slot {
            self.wr(self.fp + slot as usize, handle);
        }
        self.jump_to(c.to.target);
    }
}
