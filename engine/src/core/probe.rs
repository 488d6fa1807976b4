//! The tier-independent result of matching monitors against an application:
//! at an instruction site (function index, pc), a list of monitor functions to
//! call with arguments from fixed sources. The translator asks an
//! [`Instrumenter`] at every instruction while it validates the body, so the
//! instrumenter sees exact operand and local types.

use crate::core::module::BodyValidator;
use wasmparser::Operator;

use std::sync::Arc;

use crate::core::error::LoadError;
use crate::core::types::{FuncAddr, ValType};

/// Where a probe argument comes from when the probe fires.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSource {
    /// A value known at match time (slot encoding, see [`crate::Value::to_slot`]).
    Const(u64),
    /// The N-th operand from the top of the operand stack (after an `:after`
    /// instruction: its N-th result from the top).
    Operand(u32),
    /// Local N of the running frame (params first).
    Local(u32),
    /// A frame accessor handle for the running frame.
    Frame,
    /// Operand N (as `Operand`) or local N (as `Local`) of a GC reference
    /// type (the `any` hierarchy), passed as an opaque app reference: an
    /// `externref` host value naming it (`Store::opaque_ref`), never the
    /// reference itself, so the monitor cannot reach the object.
    OpaqueOperand(u32),
    OpaqueLocal(u32),
}

/// A probe call's arguments: most probes take one or none, and a large app
/// has millions of calls, so one is kept inline (no allocation).
pub type ProbeArgs = smallvec::SmallVec<[ArgSource; 1]>;

/// The probe calls at one site, in firing order: usually one, kept inline
/// (matching a large app gives millions of sites).
pub type Probes = smallvec::SmallVec<[ProbeCall; 1]>;

/// What every call of one rule shares: its function's parameter types and
/// where it came from. A large app has millions of calls and a monitor a
/// few hundred rules, so a call holds this behind one pointer.
#[derive(Debug, PartialEq)]
pub struct CallShape {
    /// Argument types, in order (the monitor function's parameter types).
    pub types: Arc<[ValType]>,
    /// For messages: which monitor and export this came from.
    pub origin: Arc<str>,
}

/// What few calls have: kept out of line, so a call is small.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallExtra {
    /// With a `frame` arg: the types of the frame's operands, top first.
    pub operand_types: Option<Arc<[ValType]>>,
    /// The static `probe_id` with which `whamm:dyninstr.remove_probe`
    /// detaches this call: as in Wizard, the last probe a monitor attached
    /// at a site where one of its rules bound `probe_id`.
    pub removable: Option<u32>,
}

/// One monitor function to call at a site (48 bytes: a plan holds one per
/// matched site and rule; what all calls of a rule share is in `shape`).
#[derive(Clone, Debug)]
pub struct ProbeCall {
    pub func: FuncAddr,
    pub shape: Arc<CallShape>,
    pub args: ProbeArgs,
    /// Operand types of a `frame` arg and the removable id, when either is set.
    pub extra: Option<Box<CallExtra>>,
}

impl ProbeCall {
    /// A call of `func` (of `shape`) with `args`; `operand_types` with a
    /// `frame` argument.
    pub fn new(
        func: FuncAddr,
        shape: Arc<CallShape>,
        args: ProbeArgs,
        operand_types: Option<Arc<[ValType]>>,
    ) -> ProbeCall {
        let extra = operand_types.map(|t| {
            Box::new(CallExtra {
                operand_types: Some(t),
                removable: None,
            })
        });
        ProbeCall {
            func,
            shape,
            args,
            extra,
        }
    }

    /// Argument types, in order (the monitor function's parameter types).
    pub fn types(&self) -> &[ValType] {
        &self.shape.types
    }

    /// For messages: which monitor and export this came from.
    pub fn origin(&self) -> &Arc<str> {
        &self.shape.origin
    }

    /// With a `frame` arg: the types of the frame's operands, top first.
    pub fn operand_types(&self) -> Option<&Arc<[ValType]>> {
        self.extra.as_ref()?.operand_types.as_ref()
    }

    /// The static `probe_id` that detaches this call ([`CallExtra::removable`]).
    pub fn removable(&self) -> Option<u32> {
        self.extra.as_ref()?.removable
    }

    pub fn set_removable(&mut self, id: Option<u32>) {
        if id.is_none() && self.extra.is_none() {
            return;
        }
        let e = self.extra.get_or_insert_with(Default::default);
        e.removable = id;
        if **e == CallExtra::default() {
            self.extra = None;
        }
    }
}

/// A counter increment the interpreter performs itself instead of calling a
/// probe: `width` bytes (4 or 8, little-endian) at address `addr` increased
/// by `delta` (wrapping).
#[derive(Clone, Copy, Debug, Default)]
pub struct DirectInc {
    /// Into a monitor memory, in bounds; valid while the store that owns the
    /// memory lives (memories never move or shrink, see `linear_memory.rs`).
    pub addr: u64,
    pub width: u8,
    pub delta: u32,
}

/// What the interpreter does instead of calling one probe.
#[derive(Clone, Copy, Debug)]
pub enum Direct {
    Inc(DirectInc),
    /// `nz` if operand `operand` (from the top, an `i32`) is non-zero, else
    /// `z`: a probe that only tests that operand against zero
    /// (`inline::zero_tested_param`) and is one increment either way.
    Select {
        operand: u32,
        nz: DirectInc,
        z: DirectInc,
    },
}

/// When a probe fires relative to its instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// `func:entry`: once per call, before the first instruction.
    Entry,
    /// Before the instruction.
    Before,
    /// After the instruction completed normally.
    After,
}

/// What an instrumenter sees at one site.
pub struct Site<'a, 'v> {
    pub func_idx: u32,
    /// Byte offset in the function body (0 for `func:entry`).
    pub pc: u32,
    /// The instruction (None for `func:entry`).
    pub op: Option<&'a Operator<'a>>,
    /// The validator, positioned before the instruction (or after it, for
    /// [`When::After`]): operand types are `validator.get_operand_type(n)`.
    pub validator: &'v BodyValidator,
    /// Whether this is the function's final `end`.
    pub at_func_end: bool,
    /// Index of the instruction in the function (0-based).
    pub instr_index: u32,
    /// Whether the instruction can execute. Instrumenters see every
    /// instruction, also unreachable ones (whose static calls still run at
    /// match time, as in Wizard), but probes returned for an unreached one
    /// are never attached.
    pub reached: bool,
}

/// Decides the probes of every site of a module while it is translated.
pub trait Instrumenter {
    /// Called before a function's instructions are visited; `body` is the
    /// function's original bytes (starting at its local declarations).
    fn begin_function(
        &mut self,
        func_idx: u32,
        body: &[u8],
        body_offset: usize,
    ) -> Result<(), LoadError>;
    /// Whether probes may be inserted at run time (every instruction must then
    /// have an op to patch).
    fn dynamic(&self) -> bool {
        false
    }
    /// The probes to fire at a site, in firing order.
    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Probes, LoadError>;
    /// Whether a site after an instruction ([`When::After`]) can get probes
    /// at all: if not, a caller may skip asking there (matching a large app
    /// asks at millions of sites).
    fn after_sites(&self) -> bool {
        true
    }
    /// If a site's `calls` do nothing but increment counters at fixed,
    /// in-bounds addresses of monitor memories (4 or 8 bytes, by at most
    /// `u32::MAX`), possibly chosen by whether an operand is zero, those
    /// increments in order: the interpreter performs them directly
    /// (`Op::MonInc*`), with the same effect as the calls.
    fn direct_increments(&mut self, _calls: &[ProbeCall]) -> Option<Vec<Direct>> {
        None
    }
}

#[cfg(test)]
mod tests {
    /// A plan holds a call per matched site: keep it small.
    #[test]
    fn a_call_is_small() {
        assert!(std::mem::size_of::<super::ProbeCall>() <= 48);
        assert!(std::mem::size_of::<super::Probes>() <= 56);
    }
}
