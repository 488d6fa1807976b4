//! Provenance: where the code of a rewritten (woven) module came from.
//!
//! The monitor subsystem rewrites an application into a woven module for the
//! compiled tiers; every trap and every probe argument must still name the
//! original `(fid, pc)`. [`Origin`] maps woven functions and pcs back, and
//! names the probe call or inlined monitor instruction at a woven pc. The tiers
//! read it (trap sites); the monitor subsystem writes it.
//!
//! A woven module's bodies may be made lazily, at their first use
//! ([`crate::core::module::LazyBodies`]): a function's table is then set
//! when its body is made, before any tier can run or compile it, so a reader
//! always finds the table of a function it runs.

use std::sync::{Arc, OnceLock};

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
    /// Per defined function, its table once its body is woven.
    funcs: Box<[OnceLock<FuncOrigin>]>,
}

/// The provenance of one woven function (woven pcs count from the start of
/// its body, the local declarations).
#[derive(Default, Debug, Clone, PartialEq)]
pub struct FuncOrigin {
    /// (woven pc, original pc), sorted by woven pc.
    pub pcs: Vec<(u32, u32)>,
    /// Woven pc of each probe `call`, and which monitor export it calls (for
    /// trap messages).
    pub probe_calls: Vec<(u32, Arc<str>)>,
    /// Woven pc of each inlined monitor instruction and where it came from,
    /// sorted.
    pub inlined: Vec<(u32, InlinedFrom)>,
}

impl Origin {
    /// The table of a module with `orig_imports` function imports, to which
    /// weaving added `shift`, and `defined` functions (none woven yet).
    pub fn new(orig_imports: u32, shift: u32, defined: usize) -> Origin {
        Origin {
            orig_imports,
            shift,
            funcs: (0..defined).map(|_| OnceLock::new()).collect(),
            ..Origin::default()
        }
    }

    /// Record defined function `def`'s table (the first one recorded stays).
    pub fn set(&self, def: usize, f: FuncOrigin) {
        if let Some(cell) = self.funcs.get(def) {
            let _ = cell.set(f);
        }
    }

    /// Defined function `def`'s table, if its body was woven.
    pub fn of_defined(&self, def: usize) -> Option<&FuncOrigin> {
        self.funcs.get(def)?.get()
    }

    /// The table of woven function `woven_func`, if it is defined and woven.
    fn of(&self, woven_func: u32) -> Option<&FuncOrigin> {
        let d = woven_func.checked_sub(self.orig_imports + self.shift)?;
        self.of_defined(d as usize)
    }

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
        self.of(woven_func)?
            .probe_calls
            .iter()
            .find(|(w, _)| *w == woven_pc)
            .map(|(_, o)| o)
    }

    /// The inlined monitor instruction at this woven pc, if any.
    pub fn inlined_at(&self, woven_func: u32, woven_pc: u32) -> Option<&InlinedFrom> {
        let t = &self.of(woven_func)?.inlined;
        t.binary_search_by_key(&woven_pc, |(w, _)| *w)
            .ok()
            .map(|i| &t[i].1)
    }

    /// Original pc of a woven pc in woven function `woven_func`.
    pub fn pc(&self, woven_func: u32, woven_pc: u32) -> u32 {
        let Some(d) = woven_func.checked_sub(self.orig_imports + self.shift) else {
            return woven_pc;
        };
        let Some(t) = self.of_defined(d as usize).map(|f| &f.pcs) else {
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
#[derive(Debug, Clone, PartialEq)]
pub struct InlinedFrom {
    /// The probe (monitor and export).
    pub origin: Arc<str>,
    /// The inlined monitor function and the pc in it.
    pub func: u32,
    pub func_name: Arc<str>,
    pub pc: u32,
}
