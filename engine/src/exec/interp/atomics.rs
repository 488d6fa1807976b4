//! The threads proposal's atomic memory instructions in the interpreter.
//!
//! The interpreter runs one thread, so an atomic access is an ordinary one
//! that also checks its alignment; `atomic.fence` translates to nothing.
//! Every other atomic instruction is one cold op, `Op::Atomic`, run here
//! from `exec.rs`; wait/notify semantics are `runtime::atomics`'.

use super::code::MemArg;
use super::exec::Interp;
use crate::core::error::Trap;
use crate::runtime::atomics;

/// What an atomic instruction does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum AtomicKind {
    Load,
    Store,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Xchg,
    Cmpxchg,
    Wait,
    Notify,
}

/// An atomic instruction: its kind and access size in bytes. Narrow
/// accesses zero-extend what they read and store the low bytes, so an i32
/// and an i64 form of the same size behave alike on 64-bit slots.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AtomicOp {
    pub kind: AtomicKind,
    pub bytes: u8,
}

impl AtomicOp {
    pub(crate) const ZERO: AtomicOp = AtomicOp {
        kind: AtomicKind::Load,
        bytes: 1,
    };

    /// The op of an atomic instruction (not `atomic.fence`) and its memarg.
    pub(crate) fn from_operator(op: &wasmparser::Operator<'_>) -> Option<(AtomicOp, MemArg)> {
        let (kind, bytes, m) = kind_and_size(op)?;
        let m = MemArg {
            offset: m.offset as u32,
            mem: m.memory,
        };
        Some((AtomicOp { kind, bytes }, m))
    }

    /// Bits the access touches.
    fn mask(self) -> u64 {
        if self.bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.bytes as u32)) - 1
        }
    }
}

/// A read-modify-write's new value from the old one and the operand.
fn rmw(kind: AtomicKind, old: u64, v: u64) -> u64 {
    match kind {
        AtomicKind::Add => old.wrapping_add(v),
        AtomicKind::Sub => old.wrapping_sub(v),
        AtomicKind::And => old & v,
        AtomicKind::Or => old | v,
        AtomicKind::Xor => old ^ v,
        _ => v, // Xchg
    }
}

impl Interp<'_> {
    /// Runs `Op::Atomic { op, m }`.
    pub(super) fn atomic(&mut self, op: AtomicOp, m: MemArg) -> Result<(), Trap> {
        match op.kind {
            AtomicKind::Load => {
                let addr = self.pop();
                let v = self.atomic_access(op, m, addr, |old| (old, None))?;
                self.push(v);
            }
            AtomicKind::Store => {
                let v = self.pop();
                let addr = self.pop();
                self.atomic_access(op, m, addr, |_| (0, Some(v)))?;
            }
            AtomicKind::Cmpxchg => {
                let replacement = self.pop();
                let expected = self.pop() & op.mask();
                let addr = self.pop();
                let old = self.atomic_access(op, m, addr, |old| {
                    (old, (old == expected).then_some(replacement))
                })?;
                self.push(old);
            }
            AtomicKind::Wait => self.atomic_wait(op, m)?,
            AtomicKind::Notify => {
                let _count = self.pop();
                let addr = self.pop();
                let ea = self.effective(m, addr);
                let r = atomics::notify(&self.store.memories[self.mem_addr(m)], ea);
                let woken = r.map_err(|k| self.trap(k))?;
                self.push(woken as u64);
            }
            kind => {
                let v = self.pop();
                let addr = self.pop();
                let old = self.atomic_access(op, m, addr, |old| (old, Some(rmw(kind, old, v))))?;
                self.push(old);
            }
        }
        Ok(())
    }

    /// The effective address of an access with memarg `m` to `addr`. For a
    /// 64-bit memory `Op::Mem64` has added the offset (m.offset is 0) and
    /// passes the whole u64 (an atomic access checks alignment before bounds).
    fn effective(&self, m: MemArg, addr: u64) -> u64 {
        if self.store.memories[self.mem_addr(m)].ty.index64 {
            addr
        } else {
            addr as u32 as u64 + m.offset as u64
        }
    }

    /// The store address of memory `m.mem` of the running instance.
    fn mem_addr(&self, m: MemArg) -> usize {
        self.store.instances[self.inst].memories[m.mem as usize].0 as usize
    }

    /// Reads the `op.bytes` at `addr + m.offset` after the atomic address
    /// check; `f` maps the old value to the result and what to write (if
    /// anything, truncated to the access size).
    fn atomic_access(
        &mut self,
        op: AtomicOp,
        m: MemArg,
        addr: u64,
        f: impl FnOnce(u64) -> (u64, Option<u64>),
    ) -> Result<u64, Trap> {
        let ea = self.effective(m, addr);
        let ma = self.mem_addr(m);
        let data = self.store.memories[ma].data_mut();
        let n = op.bytes as usize;
        let at = match atomics::check(ea, n as u64, data.len() as u64) {
            Ok(at) => at,
            Err(k) => return Err(self.trap(k)),
        };
        let (result, new) = f(atomics::read(data, at, n));
        if let Some(v) = new {
            atomics::write(data, at, n, v);
        }
        Ok(result)
    }

    /// `memory.atomic.wait32/64`: pops (address, expected, timeout).
    fn atomic_wait(&mut self, op: AtomicOp, m: MemArg) -> Result<(), Trap> {
        let timeout = self.pop() as i64;
        let expected = self.pop() & op.mask();
        let addr = self.pop();
        let ea = self.effective(m, addr);
        let mem = &self.store.memories[self.mem_addr(m)];
        match atomics::wait(mem, ea, expected, op.bytes as u64, timeout) {
            Ok(r) => {
                self.push(r as u64);
                Ok(())
            }
            Err(k) => Err(self.trap(k)),
        }
    }
}

/// The memarg of an atomic memory instruction (not `atomic.fence`).
pub(crate) fn atomic_memarg(op: &wasmparser::Operator<'_>) -> Option<wasmparser::MemArg> {
    kind_and_size(op).map(|(_, _, m)| m)
}

/// Kind, access size and memarg of an atomic instruction.
fn kind_and_size(op: &wasmparser::Operator<'_>) -> Option<(AtomicKind, u8, wasmparser::MemArg)> {
    use wasmparser::Operator as W;
    use AtomicKind as K;
    Some(match *op {
        W::MemoryAtomicNotify { memarg } => (K::Notify, 4, memarg),
        W::MemoryAtomicWait32 { memarg } => (K::Wait, 4, memarg),
        W::MemoryAtomicWait64 { memarg } => (K::Wait, 8, memarg),
        W::I32AtomicLoad { memarg } => (K::Load, 4, memarg),
        W::I64AtomicLoad { memarg } => (K::Load, 8, memarg),
        W::I32AtomicLoad8U { memarg } | W::I64AtomicLoad8U { memarg } => (K::Load, 1, memarg),
        W::I32AtomicLoad16U { memarg } | W::I64AtomicLoad16U { memarg } => (K::Load, 2, memarg),
        W::I64AtomicLoad32U { memarg } => (K::Load, 4, memarg),
        W::I32AtomicStore { memarg } => (K::Store, 4, memarg),
        W::I64AtomicStore { memarg } => (K::Store, 8, memarg),
        W::I32AtomicStore8 { memarg } | W::I64AtomicStore8 { memarg } => (K::Store, 1, memarg),
        W::I32AtomicStore16 { memarg } | W::I64AtomicStore16 { memarg } => (K::Store, 2, memarg),
        W::I64AtomicStore32 { memarg } => (K::Store, 4, memarg),
        _ => return rmw_kind_and_size(op),
    })
}

/// Kind, access size and memarg of a read-modify-write (`cmpxchg` included).
fn rmw_kind_and_size(
    op: &wasmparser::Operator<'_>,
) -> Option<(AtomicKind, u8, wasmparser::MemArg)> {
    use wasmparser::Operator as W;
    use AtomicKind as K;
    Some(match *op {
        W::I32AtomicRmwAdd { memarg } => (K::Add, 4, memarg),
        W::I64AtomicRmwAdd { memarg } => (K::Add, 8, memarg),
        W::I32AtomicRmw8AddU { memarg } | W::I64AtomicRmw8AddU { memarg } => (K::Add, 1, memarg),
        W::I32AtomicRmw16AddU { memarg } | W::I64AtomicRmw16AddU { memarg } => (K::Add, 2, memarg),
        W::I64AtomicRmw32AddU { memarg } => (K::Add, 4, memarg),
        W::I32AtomicRmwSub { memarg } => (K::Sub, 4, memarg),
        W::I64AtomicRmwSub { memarg } => (K::Sub, 8, memarg),
        W::I32AtomicRmw8SubU { memarg } | W::I64AtomicRmw8SubU { memarg } => (K::Sub, 1, memarg),
        W::I32AtomicRmw16SubU { memarg } | W::I64AtomicRmw16SubU { memarg } => (K::Sub, 2, memarg),
        W::I64AtomicRmw32SubU { memarg } => (K::Sub, 4, memarg),
        W::I32AtomicRmwAnd { memarg } => (K::And, 4, memarg),
        W::I64AtomicRmwAnd { memarg } => (K::And, 8, memarg),
        W::I32AtomicRmw8AndU { memarg } | W::I64AtomicRmw8AndU { memarg } => (K::And, 1, memarg),
        W::I32AtomicRmw16AndU { memarg } | W::I64AtomicRmw16AndU { memarg } => (K::And, 2, memarg),
        W::I64AtomicRmw32AndU { memarg } => (K::And, 4, memarg),
        W::I32AtomicRmwOr { memarg } => (K::Or, 4, memarg),
        W::I64AtomicRmwOr { memarg } => (K::Or, 8, memarg),
        W::I32AtomicRmw8OrU { memarg } | W::I64AtomicRmw8OrU { memarg } => (K::Or, 1, memarg),
        W::I32AtomicRmw16OrU { memarg } | W::I64AtomicRmw16OrU { memarg } => (K::Or, 2, memarg),
        W::I64AtomicRmw32OrU { memarg } => (K::Or, 4, memarg),
        W::I32AtomicRmwXor { memarg } => (K::Xor, 4, memarg),
        W::I64AtomicRmwXor { memarg } => (K::Xor, 8, memarg),
        W::I32AtomicRmw8XorU { memarg } | W::I64AtomicRmw8XorU { memarg } => (K::Xor, 1, memarg),
        W::I32AtomicRmw16XorU { memarg } | W::I64AtomicRmw16XorU { memarg } => (K::Xor, 2, memarg),
        W::I64AtomicRmw32XorU { memarg } => (K::Xor, 4, memarg),
        W::I32AtomicRmwXchg { memarg } => (K::Xchg, 4, memarg),
        W::I64AtomicRmwXchg { memarg } => (K::Xchg, 8, memarg),
        W::I32AtomicRmw8XchgU { memarg } | W::I64AtomicRmw8XchgU { memarg } => (K::Xchg, 1, memarg),
        W::I32AtomicRmw16XchgU { memarg } | W::I64AtomicRmw16XchgU { memarg } => {
            (K::Xchg, 2, memarg)
        }
        W::I64AtomicRmw32XchgU { memarg } => (K::Xchg, 4, memarg),
        W::I32AtomicRmwCmpxchg { memarg } => (K::Cmpxchg, 4, memarg),
        W::I64AtomicRmwCmpxchg { memarg } => (K::Cmpxchg, 8, memarg),
        W::I32AtomicRmw8CmpxchgU { memarg } | W::I64AtomicRmw8CmpxchgU { memarg } => {
            (K::Cmpxchg, 1, memarg)
        }
        W::I32AtomicRmw16CmpxchgU { memarg } | W::I64AtomicRmw16CmpxchgU { memarg } => {
            (K::Cmpxchg, 2, memarg)
        }
        W::I64AtomicRmw32CmpxchgU { memarg } => (K::Cmpxchg, 4, memarg),
        _ => return None,
    })
}
