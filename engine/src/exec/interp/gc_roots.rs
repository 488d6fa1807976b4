//! The GC heap's roots, enumerated when an allocation calls for a
//! collection (`Interp::maybe_collect`).
//!
//! Roots are: every global, table element and element segment item of a heap
//! reference type, and every live slot of every interpreter activation that
//! can hold one, read through its function's stack maps
//! ([`super::stackmap`]). The activation that allocates is the running one;
//! interpreters suspended in a call that may allocate (a host function,
//! compiled code, probes, an OSR entry) publish themselves first
//! ([`Interp::publish_for_gc`]; a tail call out publishes only its callers). Compiled (JIT) frames hold no heap
//! references: a function that could is interpreted.

use super::exec::{CodeRef, Frame, Interp};
use super::hot::Slot;
use crate::core::types::ValType;
use crate::runtime::store::Store;

/// An interpreter suspended in a call out of it: what a collection reads.
///
/// Invariant: `stack` and `frames` point to the value stack (`len` slots)
/// and frame list (`nframes`) of an `execute` call that is suspended in that
/// call, which neither touches them nor returns before it removes this entry
/// ([`Interp::unpublish_for_gc`]); nested invocations use other stacks.
pub(crate) struct Suspended {
    stack: *const u64,
    len: usize,
    frames: *const Frame,
    nframes: usize,
    top: Top,
}

/// The running activation of an interpreter.
#[derive(Clone, Copy)]
struct Top {
    code: CodeRef,
    /// The op being executed (a call, an allocation, a probe).
    op: usize,
    /// Frame pointer and operand top, as stack indices.
    fp: usize,
    sp: usize,
}

/// Whether a value of type `t` can be a heap reference.
fn heap_ref(t: ValType) -> bool {
    t.is_ref() && t != ValType::FuncRef
}

impl Interp<'_> {
    fn top(&self) -> Top {
        Top {
            code: self.code,
            op: self.ip_index().saturating_sub(1),
            fp: self.fp - self.base,
            sp: self.sp - self.base,
        }
    }

    /// Before a call out of this interpreter that may run code that
    /// allocates: publish its activations (nothing while the heap is empty:
    /// they cannot hold a reference then). Pass the result to
    /// [`Interp::unpublish_for_gc`] when the call returns.
    #[inline]
    pub(super) fn publish_for_gc(&mut self) -> bool {
        self.publish_for_gc_call(false)
    }

    /// `publish_for_gc` before a call out of this interpreter; a tail call
    /// (`tail`) has finished the running activation, so only its callers
    /// are published (as a tail call inside the interpreter drops the frame:
    /// its references must not outlive it because the callee is elsewhere).
    #[inline]
    pub(super) fn publish_for_gc_call(&mut self, tail: bool) -> bool {
        if self.store.heap.is_empty_ever() {
            return false;
        }
        let (nframes, top) = if !tail {
            (self.frames.len(), self.top())
        } else {
            // The caller's frame becomes the top: stopped at its call, its
            // operands ending where the finished activation began.
            let Some(f) = self.frames.last() else {
                return false;
            };
            let top = Top {
                code: f.code,
                op: f.ip.saturating_sub(1),
                fp: f.fp - self.base,
                sp: self.fp - self.base,
            };
            (self.frames.len() - 1, top)
        };
        let s = Suspended {
            stack: self.base.0,
            len: self.slen,
            frames: self.frames.as_ptr(),
            nframes,
            top,
        };
        crate::exec::state_mut(self.store).gc_suspended.push(s);
        true
    }

    #[inline]
    pub(super) fn unpublish_for_gc(&mut self, published: bool) {
        if published {
            crate::exec::state_mut(self.store).gc_suspended.pop();
        }
    }

    /// At an allocating op, before it pops its operands: collect if the heap
    /// asks for it.
    #[inline]
    pub(super) fn maybe_collect(&mut self) {
        if self.store.heap.wants_collection() {
            self.collect_garbage();
        }
    }

    #[cold]
    #[inline(never)]
    fn collect_garbage(&mut self) {
        let mut roots = Vec::new();
        store_roots(self.store, &mut roots);
        let stack = self.slots(self.base, self.slen);
        activation_roots(stack, &self.frames, self.base, self.top(), &mut roots);
        for s in &crate::exec::state(self.store).gc_suspended {
            // SAFETY: see the invariant at `Suspended`.
            let (stack, frames) = unsafe {
                (
                    std::slice::from_raw_parts(s.stack, s.len),
                    std::slice::from_raw_parts(s.frames, s.nframes),
                )
            };
            activation_roots(stack, frames, Slot(s.stack as *mut u64), s.top, &mut roots);
        }
        self.store
            .heap
            .collect(|visit| roots.iter().for_each(|&r| visit(r)));
    }
}

/// Heap references held by the store: globals, tables, element segments.
fn store_roots(store: &Store, out: &mut Vec<u64>) {
    for g in &store.globals {
        if heap_ref(g.ty.ty) {
            out.push(g.value);
        }
    }
    for t in &store.tables {
        if heap_ref(t.ty.elem) {
            out.extend_from_slice(&t.elems);
        }
    }
    for inst in &store.instances {
        for (seg, items) in inst.module.elems.iter().zip(&inst.elems) {
            if heap_ref(seg.ty) {
                out.extend_from_slice(items);
            }
        }
    }
}

/// The roots of one interpreter's activations: `frames` (suspended callers,
/// bottom first) and `top`, on `stack` (whose slot 0 is at `base`).
fn activation_roots(stack: &[u64], frames: &[Frame], base: Slot, top: Top, out: &mut Vec<u64>) {
    let at = |i: usize| {
        frames.get(i).map_or(top, |f| Top {
            code: f.code,
            op: f.ip.saturating_sub(1),
            fp: f.fp - base,
            // The callee's frame starts where this one's live operands end
            // (its arguments are its own locals).
            sp: frames.get(i + 1).map_or(top.fp, |g| g.fp - base),
        })
    };
    for i in 0..=frames.len() {
        frame_roots(stack, at(i), out);
    }
}

fn frame_roots(stack: &[u64], a: Top, out: &mut Vec<u64>) {
    let Some(maps) = a.code.gc_maps.as_deref() else {
        return;
    };
    let slot = |i: usize| stack.get(i).copied();
    out.extend(
        maps.ref_locals
            .iter()
            .filter_map(|&l| slot(a.fp + l as usize)),
    );
    let ob = a.fp + a.code.operand_base();
    match maps.operands_at(a.op as u32) {
        Some(refs) => out.extend(
            refs.iter()
                .map(|&o| ob + o as usize)
                .filter(|&i| i < a.sp)
                .filter_map(slot),
        ),
        // No map here: every live operand slot is a candidate.
        None => out.extend((ob..a.sp).filter_map(slot)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::code::Compiled;
    use super::super::stackmap::StackMaps;
    use super::*;

    fn code(
        params: u32,
        locals: u32,
        ref_locals: &[u32],
        at: Vec<(u32, u32, Box<[u32]>)>,
    ) -> Compiled {
        Compiled {
            num_params: params,
            num_locals: locals,
            gc_maps: Some(Box::new(StackMaps {
                ref_locals: ref_locals.into(),
                at,
            })),
            ..Default::default()
        }
    }

    #[test]
    fn frames_contribute_their_mapped_slots() {
        // Caller: 2 locals (local 1 a reference), operand base 3; at its call
        // (op 5) operand 0 is a reference and operand 1 the callee's argument.
        let caller = code(1, 2, &[1], vec![(5, 6, Box::new([0, 1]))]);
        // Callee: its param is a reference; at op 3 its operand 1 is one.
        let callee = code(1, 1, &[0], vec![(0, 10, Box::new([1]))]);
        let mut stack: Vec<u64> = (100..110).collect();
        let base = Slot(stack.as_mut_ptr());
        let frames = [Frame {
            code: CodeRef(&caller),
            ip: 6,
            fp: base,
            inst: 0,
            serial: 0,
        }];
        let top = Top {
            code: CodeRef(&callee),
            op: 3,
            fp: 4,
            sp: 8,
        };
        let mut out = Vec::new();
        activation_roots(&stack, &frames, base, top, &mut out);
        // Caller local 1, caller operand 0 (its operand 1 is the callee's
        // param, counted there), callee local 0, callee operand 1.
        assert_eq!(out, [101, 103, 104, 107]);
    }

    #[test]
    fn a_frame_without_a_map_is_scanned_conservatively() {
        let f = code(0, 1, &[], vec![(0, 2, Box::new([]))]);
        let stack: Vec<u64> = (10..20).collect();
        let top = |op| Top {
            code: CodeRef(&f),
            op,
            fp: 0,
            sp: 5,
        };
        let mut out = Vec::new();
        frame_roots(&stack, top(1), &mut out);
        assert!(out.is_empty());
        frame_roots(&stack, top(7), &mut out);
        assert_eq!(out, [12, 13, 14]);
        // A function without maps holds no references.
        let plain = Compiled::default();
        let mut out = Vec::new();
        frame_roots(
            &stack,
            Top {
                code: CodeRef(&plain),
                op: 0,
                fp: 0,
                sp: 5,
            },
            &mut out,
        );
        assert!(out.is_empty());
    }
}
