//! The call chain a suspended interpreter publishes while a probe that takes a
//! `frame` handle runs. The monitor subsystem's frame accessors
//! (`monitor/frames.rs`) resolve handles against it; nothing else reads it.

use std::sync::Arc;

use super::code::Compiled;
use crate::core::error::Trap;
use crate::core::types::ValType;

/// One activation of the published call chain.
pub(crate) struct FrameInfo {
    pub serial: u32,
    /// Index of local 0 in the value stack.
    pub fp: usize,
    /// One past the top operand of this frame.
    pub top: usize,
    pub code: std::rc::Rc<Compiled>,
    /// Original pc the frame is at (the probed instruction, or the call).
    pub pc: u32,
    /// Operand types from the top, when known (the probed frame only).
    pub operand_types: Option<Arc<[ValType]>>,
}

/// The call chain of a suspended interpreter, bottom (entry) first.
pub(crate) struct FrameView {
    /// The interpreter's value stack.
    ///
    /// Invariant: points to a live `[u64]` of `len` slots owned by the
    /// suspended `execute` call that published this view; that call does not
    /// touch the slice until the probe returns, and it removes the view (by
    /// restoring the previous one) before resuming. Nested invocations use other
    /// stacks, so nothing else aliases it while the view is published.
    pub stack: *mut u64,
    pub len: usize,
    pub frames: Vec<FrameInfo>,
}

impl FrameView {
    pub(crate) fn find(&self, handle: Option<u32>) -> Result<(usize, &FrameInfo), Trap> {
        let h = handle.ok_or_else(|| Trap::host("frame accessor called with a null frame"))?;
        self.frames
            .iter()
            .enumerate()
            .rev()
            .find(|(_, f)| f.serial == h)
            .ok_or_else(|| Trap::host("frame accessor used after its frame returned"))
    }

    pub(crate) fn slot(&self, i: usize) -> u64 {
        assert!(i < self.len);
        // SAFETY: `i < len` and `stack` is valid for `len` slots (see the field's invariant).
        unsafe { *self.stack.add(i) }
    }

    pub(crate) fn set_slot(&self, i: usize, v: u64) {
        assert!(i < self.len);
        // SAFETY: as in `slot`; the suspended interpreter is not using the slice.
        unsafe { *self.stack.add(i) = v }
    }
}
