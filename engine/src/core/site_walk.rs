//! Matching without translating: validate a module and show an
//! [`Instrumenter`] every site, as the interpreter's translator does, but
//! produce no code.
//!
//! The compiled tiers with monitors weave the match into a new module and
//! run that; the original module's interpreter code would be thrown away
//! unused. [`Module::new_matched`] walks each body once with its validator:
//! the instrumenter sees the same sites, in the same order, with the same
//! validator state and the same `reached` flags as under the translator
//! (`exec::interp::compile::translate`). `tests/site_walk.rs` checks that over
//! the official test suite's modules and ours.
//!
//! A module made here has no translator product (`Module::code` is `()`): it
//! can be woven, inspected and re-matched, not run.

use std::any::Any;

use wasmparser::{FunctionBody, Operator};

use crate::core::error::LoadError;
use crate::core::module::{supported_features, BodyCtx, BodyTranslator, BodyValidator, Module};
use crate::core::probe::{Instrumenter, Site, When};

impl Module {
    /// Decode and validate `bytes`, asking `instr` for the probes of every
    /// site (its static work runs here, as under [`Module::new_instrumented`])
    /// and discarding them: for callers that record what they need from the
    /// instrumenter itself. The module cannot be run.
    pub fn new_matched(bytes: &[u8], instr: &mut dyn Instrumenter) -> Result<Module, LoadError> {
        Module::decode(bytes, supported_features(), &mut Walker { instr })
    }
}

struct Walker<'r, 'i> {
    instr: &'r mut (dyn Instrumenter + 'i),
}

impl BodyTranslator for Walker<'_, '_> {
    fn body(
        &mut self,
        _ctx: &BodyCtx<'_>,
        v: &mut BodyValidator,
        body: &FunctionBody<'_>,
    ) -> Result<(), LoadError> {
        walk(self.instr, v, body)
    }

    fn finish(&mut self) -> Box<dyn Any> {
        Box::new(())
    }
}

/// Validate one body, asking `ins` at its entry, before every instruction
/// and after every instruction but the final `end`.
fn walk(
    ins: &mut dyn Instrumenter,
    v: &mut BodyValidator,
    body: &FunctionBody<'_>,
) -> Result<(), LoadError> {
    let func_idx = v.index();
    let body_start = body.range().start;
    let mut reader = body.get_binary_reader();
    v.read_locals(&mut reader)?;
    ins.begin_function(func_idx, body.as_bytes(), body_start)?;
    let after_sites = ins.after_sites();
    let mut reach = Reach::default();
    let mut instr_index = 0u32;
    while !reader.eof() {
        let offset = reader.original_position();
        let op = reader.read_operator()?;
        let pc = (offset - body_start) as u32;
        let reachable = !v.get_control_frame(0).is_none_or(|f| f.unreachable);
        let at_func_end = reader.eof();
        if instr_index == 0 {
            let site = Site {
                func_idx,
                pc: 0,
                op: None,
                validator: v,
                at_func_end: false,
                instr_index: 0,
                reached: true,
            };
            ins.probes(When::Entry, &site)?;
        }
        let reached = reach.reached(&op, reachable);
        let site = Site {
            func_idx,
            pc,
            op: Some(&op),
            validator: v,
            at_func_end,
            instr_index,
            reached,
        };
        ins.probes(When::Before, &site)?;
        reach.op(&op, reachable, v);
        v.op(offset, &op)?;
        if !at_func_end && after_sites {
            let falls_through = !v.get_control_frame(0).is_none_or(|f| f.unreachable);
            let site = Site {
                func_idx,
                pc,
                op: Some(&op),
                validator: v,
                at_func_end,
                instr_index,
                reached: reached && falls_through,
            };
            ins.probes(When::After, &site)?;
        }
        instr_index += 1;
    }
    v.finish(reader.original_position())?;
    Ok(())
}

/// Which `end`s control reaches other than by falling into them: the
/// interpreter translator's notion (a branch from reachable code, a `try_table`
/// catch clause, an `if` without its own way to the `end`, a fall-through into
/// `else` or a legacy `catch`), without its code.
#[derive(Default)]
struct Reach {
    /// The open blocks, innermost last; the function's own block is implied
    /// below them (`marks` beyond the stack target it and change nothing).
    ctls: Vec<ReachCtl>,
    /// The function's block was targeted.
    func_targeted: bool,
}

#[derive(Clone, Copy)]
struct ReachCtl {
    is_loop: bool,
    /// Some branch lands on this block's `end`.
    targeted: bool,
    /// An `if` entered from reachable code whose false edge still goes to
    /// its `end` (no `else` yet).
    if_pending: bool,
}

impl Reach {
    /// Whether `op` can execute, given that the validator says whether it
    /// is `reachable` by falling through: an `end` is also reached by the
    /// branches to its block.
    fn reached(&self, op: &Operator<'_>, reachable: bool) -> bool {
        reachable
            || matches!(op, Operator::End)
                && match self.ctls.last() {
                    Some(c) => c.targeted || c.if_pending,
                    None => self.func_targeted,
                }
    }

    /// Account for `op` (before the validator sees it).
    fn op(&mut self, op: &Operator<'_>, reachable: bool, v: &BodyValidator) {
        use Operator as O;
        let block = |is_loop, if_pending| ReachCtl {
            is_loop,
            targeted: false,
            if_pending,
        };
        match op {
            O::Block { .. } | O::Try { .. } => self.ctls.push(block(false, false)),
            O::Loop { .. } => self.ctls.push(block(true, false)),
            O::If { .. } => self.ctls.push(block(false, reachable)),
            O::Else => {
                if let Some(c) = self.ctls.last_mut() {
                    c.targeted |= reachable;
                    c.if_pending = false;
                }
            }
            O::Catch { .. } | O::CatchAll => {
                if let Some(c) = self.ctls.last_mut() {
                    c.targeted |= reachable;
                }
            }
            O::End | O::Delegate { .. } => {
                self.ctls.pop();
            }
            O::TryTable { try_table } => {
                for c in &try_table.catches {
                    use wasmparser::Catch as C;
                    let (C::One { label, .. }
                    | C::OneRef { label, .. }
                    | C::All { label }
                    | C::AllRef { label }) = *c;
                    self.mark(label);
                }
                self.ctls.push(block(false, false));
            }
            _ if !reachable => {}
            O::Br { relative_depth }
            | O::BrIf { relative_depth }
            | O::BrOnNull { relative_depth }
            | O::BrOnNonNull { relative_depth }
            | O::BrOnCast { relative_depth, .. }
            | O::BrOnCastFail { relative_depth, .. } => self.mark(*relative_depth),
            O::BrTable { targets } if v.operand_stack_height() > 0 => {
                for d in targets.targets().flatten() {
                    self.mark(d);
                }
                self.mark(targets.default());
            }
            _ => {}
        }
    }

    /// A branch to label `depth` (not to a loop: that lands at its start).
    fn mark(&mut self, depth: u32) {
        let n = self.ctls.len();
        match (depth as usize).cmp(&n) {
            std::cmp::Ordering::Less => {
                let c = &mut self.ctls[n - 1 - depth as usize];
                c.targeted |= !c.is_loop;
            }
            std::cmp::Ordering::Equal => self.func_targeted = true,
            std::cmp::Ordering::Greater => {}
        }
    }
}
