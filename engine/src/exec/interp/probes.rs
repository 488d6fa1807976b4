//! Probe firing in the interpreter: static probe sites (`Op::Probe`, with
//! the frame view published to frame accessors while a probe that reads
//! operands runs) and dynamic probe sites (`Op::DynProbe`).

use super::exec::{invoke_probe, Interp};
use super::frames::{FrameInfo, FrameView};
use crate::core::error::Trap;
use crate::core::probe::{ArgSource, ProbeCall};
use crate::core::types::{ValType, Value};
use crate::runtime::store::FuncKind;

use super::code::Op;

impl Interp<'_> {
    /// Fires the probes of static probe site `k` of the running function.
    #[inline]
    pub(super) fn fire_probes(&mut self, k: u32) -> Result<(), Trap> {
        let c = self.code;
        // The first static probe op of its site: dynamic probes attached
        // from now on at this site wait for its next occurrence.
        let at = self.ip_index() - 1;
        let pc = c.pcs[at];
        if at == 0 || c.pcs[at - 1] != pc || !matches!(c.ops[at - 1].get(), Op::Probe(_)) {
            crate::exec::state_mut(self.store)
                .dyn_sites
                .static_firing(c.0, pc);
        }
        let published = self.publish_for_gc();
        let r = self.fire_probe_calls(c, k);
        self.unpublish_for_gc(published);
        r?;
        // A probe call may have grown memories.
        self.refresh_mem();
        Ok(())
    }

    fn fire_probe_calls(&mut self, c: super::exec::CodeRef, k: u32) -> Result<(), Trap> {
        for call in &c.probes[k as usize] {
            if let Some(id) = call.removable() {
                if crate::exec::state(self.store)
                    .dyn_sites
                    .removed
                    .contains(&id)
                {
                    continue;
                }
            }
            // An interpreted Wasm function without a frame handle:
            // its argument slots as they are.
            let r = if call.args.len() <= 8
                && call.operand_types().is_none()
                && !call.types().contains(&ValType::V128)
                && matches!(
                    self.store.funcs[call.func.0 as usize].kind,
                    FuncKind::Wasm { .. }
                )
                && !crate::exec::tiering::is_compiled(self.store, call.func)
            {
                let mut slots = [0u64; 8];
                for (s, (t, a)) in slots.iter_mut().zip(call.types().iter().zip(&call.args)) {
                    *s = Value::from_slot(*t, self.arg_slot(a)).to_slot();
                }
                invoke_probe(self.store, call.func, &slots[..call.args.len()])
            } else {
                let args: Vec<Value> = call
                    .types()
                    .iter()
                    .zip(&call.args)
                    .map(|(t, a)| self.arg_value(*t, a))
                    .collect();
                let prev_view = if call.operand_types().is_some() {
                    let view = self.frame_view(call);
                    Some(crate::exec::state_mut(self.store).frame_view.replace(view))
                } else {
                    None
                };
                let r = self.store.invoke(call.func, &args).map(drop);
                if let Some(prev) = prev_view {
                    crate::exec::state_mut(self.store).frame_view = prev;
                }
                r
            };
            if let Err(t) = r {
                return Err(self.probe_trapped(call.origin(), t));
            }
        }
        Ok(())
    }

    /// A probe argument's slot (a frame handle as its `externref` slot).
    #[inline]
    fn arg_slot(&self, a: &ArgSource) -> u64 {
        match a {
            ArgSource::Const(v) => *v,
            ArgSource::Operand(n) => self.rd(self.sp - 1 - *n as usize),
            ArgSource::Local(n) => self.rd(self.fp + *n as usize),
            ArgSource::Frame => Value::ExternRef(Some(self.serial)).to_slot(),
            ArgSource::OpaqueOperand(n) => {
                self.store.opaque_ref(self.rd(self.sp - 1 - *n as usize))
            }
            ArgSource::OpaqueLocal(n) => self.store.opaque_ref(self.rd(self.fp + *n as usize)),
        }
    }

    /// A probe argument of type `t` (a `v128` from two slots: an operand's
    /// or local's position names its low slot).
    fn arg_value(&self, t: ValType, a: &ArgSource) -> Value {
        match (t, a) {
            (ValType::V128, ArgSource::Operand(n)) => {
                let lo = self.sp - 1 - *n as usize;
                Value::read_slots(t, &[self.rd(lo), self.rd(lo + 1)])
            }
            (ValType::V128, ArgSource::Local(n)) => {
                let lo = self.fp + *n as usize;
                Value::read_slots(t, &[self.rd(lo), self.rd(lo + 1)])
            }
            _ => Value::from_slot(t, self.arg_slot(a)),
        }
    }

    /// The frames of this execution, for frame accessors while `call` (which
    /// reads the operands of the probed op) runs.
    fn frame_view(&self, call: &ProbeCall) -> FrameView {
        let (frames, base) = (&self.frames, self.base);
        let mut chain = Vec::with_capacity(frames.len() + 1);
        for (i, fr) in frames.iter().enumerate() {
            let top = frames.get(i + 1).map_or(self.fp, |n| n.fp) - base;
            let pc = fr.code.pcs.get(fr.ip.wrapping_sub(1)).copied().unwrap_or(0);
            chain.push(FrameInfo {
                serial: fr.serial,
                fp: fr.fp - base,
                top,
                code: fr.code.to_rc(),
                pc,
                operand_types: None,
            });
        }
        let pc = self.code.pcs[self.ip_index() - 1];
        chain.push(FrameInfo {
            serial: self.serial,
            fp: self.fp - base,
            top: self.sp - base,
            code: self.code.to_rc(),
            pc,
            operand_types: call.operand_types().cloned(),
        });
        FrameView {
            stack: base.0,
            len: self.slen,
            frames: chain,
        }
    }

    /// Fires the probes of dynamic probe site `k`; returns the op the site
    /// replaced (to execute next).
    #[inline(never)]
    pub(super) fn dyn_probe(&mut self, k: u32) -> Result<Op, Trap> {
        let (list, original, cutoff) = {
            let sites = &mut crate::exec::state_mut(self.store).dyn_sites;
            let cutoff = sites.take_cutoff(k as usize);
            let site = &sites.sites[k as usize];
            (site.probes.clone(), site.original, cutoff)
        };
        // B3: the list is a snapshot; probes inserted now (or by this site's
        // static probes in this occurrence) fire next time, removed ones
        // still fire this time.
        let published = self.publish_for_gc();
        for p in list.iter().filter(|p| p.id < cutoff) {
            if let Err(t) = self.store.invoke(p.func, &[]) {
                self.unpublish_for_gc(published);
                let what = format!("dynamic probe {}", p.id);
                return Err(self.probe_trapped(&what, t));
            }
        }
        self.unpublish_for_gc(published);
        self.refresh_mem();
        Ok(original)
    }
}
