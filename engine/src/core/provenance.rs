//! Provenance: where the code of a rewritten (woven) module came from.
//!
//! The monitor subsystem rewrites an application into a woven module for the
//! compiled tiers; every trap and every probe argument must still name the
//! original `(fid, pc)`. [`Origin`] maps woven functions and pcs back, and
//! names the probe call or inlined monitor instruction at a woven pc. The tiers
//! read it (trap sites); the monitor subsystem writes it.

use std::sync::Arc;

/// Where each woven instruction came from.
#[derive(Default, Debug)]
pub struct Origin {
    /// Imports of the original module.
    pub orig_imports: u32,
    /// Probe imports added.
    pub shift: u32,
    /// Memory imports of the original module, and the monitor memories the
    /// weaver imported after them (the app's own memories follow).
    pub mem_imports: u32,
    pub mem_shift: u32,
    /// Per defined function: (woven pc, original pc), sorted by woven pc.
    pub pcs: Vec<Vec<(u32, u32)>>,
    /// Per defined function: woven pc of each probe `call`, and which monitor
    /// export it calls (for trap messages).
    pub probe_calls: Vec<Vec<(u32, Arc<str>)>>,
    /// Per defined function: woven pc of each inlined monitor instruction and
    /// where it came from, sorted.
    pub inlined: Vec<Vec<(u32, InlinedFrom)>>,
}

impl Origin {
    /// Original function index of a woven one.
    pub fn func(&self, woven: u32) -> u32 {
        if woven >= self.orig_imports + self.shift {
            woven - self.shift
        } else {
            woven
        }
    }
    /// The monitor export called by the probe `call` at this woven pc, if any.
    pub fn probe_call(&self, woven_func: u32, woven_pc: u32) -> Option<&Arc<str>> {
        let d = woven_func.checked_sub(self.orig_imports + self.shift)?;
        self.probe_calls
            .get(d as usize)?
            .iter()
            .find(|(w, _)| *w == woven_pc)
            .map(|(_, o)| o)
    }

    /// The inlined monitor instruction at this woven pc, if any.
    pub fn inlined_at(&self, woven_func: u32, woven_pc: u32) -> Option<&InlinedFrom> {
        let d = woven_func.checked_sub(self.orig_imports + self.shift)?;
        let t = self.inlined.get(d as usize)?;
        t.binary_search_by_key(&woven_pc, |(w, _)| *w)
            .ok()
            .map(|i| &t[i].1)
    }

    /// Original pc of a woven pc in woven function `woven_func`.
    pub fn pc(&self, woven_func: u32, woven_pc: u32) -> u32 {
        let Some(d) = woven_func.checked_sub(self.orig_imports + self.shift) else {
            return woven_pc;
        };
        let Some(t) = self.pcs.get(d as usize) else {
            return woven_pc;
        };
        let i = t.partition_point(|(w, _)| *w <= woven_pc);
        if i == 0 {
            0
        } else {
            t[i - 1].1
        }
    }
}

/// Where inlined monitor code came from, for trap messages.
#[derive(Debug, Clone)]
pub struct InlinedFrom {
    /// The probe (monitor and export).
    pub origin: Arc<str>,
    /// The inlined monitor function and the pc in it.
    pub func: u32,
    pub func_name: Arc<str>,
    pub pc: u32,
}
