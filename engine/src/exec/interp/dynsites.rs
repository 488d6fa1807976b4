//! Dynamic probe sites in interpreter code (the mechanism behind the monitor
//! subsystem's `whamm:dyninstr` imports, `monitor/dyninstr.rs`).
//!
//! Attaching a probe to an instruction replaces its first op in place by a
//! `DynProbe` op (ops are cells), so it takes effect at the next occurrence,
//! also in frames already running; the site keeps the replaced op, runs it
//! after its probes, and restores it when its last probe is detached. The probe
//! list is shared (`Rc`) so the interpreter can fire a snapshot of it.
//!
//! Probe ids are Wizard's: the static `probe_id`s given out while matching
//! come first (0, 1, ...), dynamic ids follow. Detaching a static id marks
//! it removed; the static probe call that carries it
//! (`ProbeCall::removable`) is skipped from then on.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::code::{Compiled, Op};
use crate::core::types::FuncAddr;

#[derive(Clone)]
pub(crate) struct DynProbe {
    pub id: i32,
    pub func: FuncAddr,
}

pub(crate) struct DynSite {
    code: Rc<Compiled>,
    pc: u32,
    op_index: usize,
    pub original: Op,
    pub probes: Rc<Vec<DynProbe>>,
}

#[derive(Default)]
pub(crate) struct DynSites {
    pub sites: Vec<DynSite>,
    /// Site by (function index, pc).
    index: HashMap<(u32, u32), usize>,
    /// Site by probe id.
    ids: HashMap<i32, usize>,
    next_id: i32,
    /// Static probe ids given out while matching (below them, an id is static).
    static_ids: u32,
    /// Static probe ids detached.
    pub removed: HashSet<u32>,
    /// The static probes of a site are firing: its code, its pc, and the
    /// first id not given out when they started. Dynamic probes attached
    /// there meanwhile fire from the next occurrence on, as in Wizard.
    firing: Option<(*const Compiled, u32, i32)>,
}

/// The first op of the instruction at `pc` that is not a static probe.
fn op_index_at(code: &Compiled, pc: u32) -> Option<usize> {
    let start = code.pcs.partition_point(|&p| p < pc);
    (start..code.pcs.len())
        .take_while(|&i| code.pcs[i] == pc)
        .find(|&i| !matches!(code.ops[i].get(), Op::Probe(_)))
}

impl DynSites {
    /// How many static probe ids matching gave out.
    pub(crate) fn set_static_ids(&mut self, n: u32) {
        self.static_ids = n;
    }

    /// Attach `func` at `(fid, pc)` of `code` (function `fid`'s code); its new
    /// probe id, or None if no instruction starts at `pc`.
    pub(crate) fn attach(
        &mut self,
        code: Rc<Compiled>,
        fid: u32,
        pc: u32,
        func: FuncAddr,
    ) -> Option<i32> {
        let site = match self.index.get(&(fid, pc)) {
            Some(&s) => s,
            None => {
                let op_index = op_index_at(&code, pc)?;
                let original = code.ops[op_index].get();
                self.sites.push(DynSite {
                    code,
                    pc,
                    op_index,
                    original,
                    probes: Rc::default(),
                });
                self.index.insert((fid, pc), self.sites.len() - 1);
                self.sites.len() - 1
            }
        };
        let id = self.next_id.max(self.static_ids as i32);
        self.next_id = id + 1;
        let s = &mut self.sites[site];
        Rc::make_mut(&mut s.probes).push(DynProbe { id, func });
        s.code.ops[s.op_index].set(Op::DynProbe(site as u32));
        self.ids.insert(id, site);
        Some(id)
    }

    /// The static probes at `pc` of `code` start firing.
    pub(crate) fn static_firing(&mut self, code: *const Compiled, pc: u32) {
        self.firing = Some((code, pc, self.next_id.max(self.static_ids as i32)));
    }

    /// The probes of site `k` that fire in this occurrence have ids below
    /// this: those attached before its static probes (if any) started.
    pub(crate) fn take_cutoff(&mut self, k: usize) -> i32 {
        let s = &self.sites[k];
        match self.firing.take() {
            Some((c, pc, n)) if c == Rc::as_ptr(&s.code) && pc == s.pc => n,
            _ => i32::MAX,
        }
    }

    /// Detach probe `id` (unknown ids are ignored); the site's op is restored
    /// when it has no probe left.
    pub(crate) fn detach(&mut self, id: i32) {
        let Some(site) = self.ids.remove(&id) else {
            if let Ok(n) = u32::try_from(id) {
                if n < self.static_ids {
                    self.removed.insert(n);
                }
            }
            return;
        };
        let s = &mut self.sites[site];
        Rc::make_mut(&mut s.probes).retain(|p| p.id != id);
        if s.probes.is_empty() {
            s.code.ops[s.op_index].set(s.original);
        }
    }
}
