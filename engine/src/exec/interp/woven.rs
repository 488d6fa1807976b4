//! Traps in woven code run by the interpreter (the dyn tier interprets a
//! woven app until its functions get hot): named as the JIT names them, in
//! the original module's terms.
//!
//! A woven module's functions and pcs are not the app's: its provenance
//! ([`crate::core::provenance::Origin`]) maps them back. A trap inside
//! inlined monitor code, or coming out of a probe call, names the monitor's
//! probe and the app site it fired at; any other trap in woven code is
//! reported at the original function and pc (block counters need that site
//! to correct a block left partly executed).

use super::exec::Interp;
use crate::core::error::{Trap, TrapSite};

impl Interp<'_> {
    /// `t` (not an exception) leaves this execution: walk its activations,
    /// innermost first, and attribute it in the first woven one.
    #[cold]
    #[inline(never)]
    pub(super) fn attribute_woven(&mut self, mut t: Trap) -> Trap {
        if t.exit_code().is_some() {
            return t;
        }
        let mut innermost = true;
        loop {
            let module = self.store.instances[self.inst].module.clone();
            if let Some(o) = &module.origin {
                if self.code.plain {
                    // The original code, its probes fired beside it: named
                    // as `--mode=int` names it (`trap_at`, `probe_trapped`).
                    return t;
                }
                let idx = self.code.func_idx;
                let at = self.ip_index().saturating_sub(1);
                let pc = self.code.pcs.get(at).copied().unwrap_or(0);
                let orig = o.func(idx);
                let name = match module.func_names.get(&idx) {
                    Some(n) => n.clone(),
                    None => format!("func[{orig}]"),
                };
                let site = format!("(probe at {name} (func {orig}) pc 0x{:x})", o.pc(idx, pc));
                if let Some(from) = o.inlined_at(idx, pc) {
                    // In inlined code, or a host function it called.
                    if innermost {
                        t.site = Some(TrapSite {
                            func: from.func,
                            func_name: from.func_name.to_string(),
                            pc: from.pc,
                        });
                    }
                    return Trap::host(format!("{} trapped: {t} {site}", from.origin));
                }
                if let Some(origin) = o.probe_call(idx, pc) {
                    // Out of the probe's monitor function (interpreted
                    // above, or compiled or host code called from here).
                    return Trap::host(format!("{origin} trapped: {t} {site}"));
                }
                // Raised here (its site is this op's, in woven terms) or by a
                // host function called here (no site): name the original
                // site. A trap that came out of compiled code called from
                // here (a call or an OSR entry) is named already.
                let raised_here = t.site.as_ref().is_none_or(|s| s.func == idx && s.pc == pc);
                if innermost && raised_here {
                    t.site = Some(TrapSite {
                        func: orig,
                        func_name: name,
                        pc: o.pc(idx, pc),
                    });
                }
                return t;
            }
            match self.frames.pop() {
                Some(fr) => {
                    self.resume(fr);
                    innermost = false;
                }
                None => return t,
            }
        }
    }
}
