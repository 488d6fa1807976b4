//! Collection points of the interpreter: `maybe_collect` runs the heap's
//! collector when it asks for a collection. A stand-in that never collects
//! until the root enumeration (globals, tables, element segments, every
//! active interpreter value stack through stack maps) lands.

use super::exec::Interp;

impl Interp<'_> {
    /// Called at the start of every allocating op, before its operands are
    /// popped.
    #[inline]
    pub(super) fn maybe_collect(&mut self) {}
}
