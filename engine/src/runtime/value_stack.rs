//! The interpreter's value stacks: large (`Config::value_stack_slots`, 32 MiB by
//! default), mostly untouched, and zero at the start. An anonymous mapping
//! gives that for free: the kernel supplies zero pages as they are first
//! touched. A heap allocation of the same size is zeroed by the allocator
//! whenever it reuses memory, which cost a few milliseconds each time a run
//! needed a second stack (compiled code calling back into the interpreter).

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// `len` zeroed value slots, owned exclusively.
pub(crate) struct ValueStack(Backing);

enum Backing {
    /// `len` slots at `ptr`, a private anonymous mapping of `len * 8` bytes
    /// that this value alone owns and unmaps.
    Mapped { ptr: NonNull<u64>, len: usize },
    /// Where mapping failed.
    Heap(Vec<u64>),
}

// SAFETY: a `Mapped` stack is memory no one else refers to (like a `Vec`'s
// buffer), so moving it to another thread moves its only owner.
unsafe impl Send for ValueStack {}

impl ValueStack {
    pub(crate) fn new(len: usize) -> ValueStack {
        let bytes = len.saturating_mul(8);
        if len == 0 || bytes == usize::MAX {
            return ValueStack(Backing::Heap(vec![0; len]));
        }
        // SAFETY: a fresh private anonymous mapping; no existing memory is
        // affected, and the result is checked before use.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        match NonNull::new(p as *mut u64).filter(|_| p != libc::MAP_FAILED) {
            Some(ptr) => ValueStack(Backing::Mapped { ptr, len }),
            None => ValueStack(Backing::Heap(vec![0; len])),
        }
    }
}

impl Deref for ValueStack {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        match &self.0 {
            // SAFETY: `ptr` maps `len` readable, writable, initialised (zero
            // or written) slots for as long as `self` lives.
            Backing::Mapped { ptr, len } => unsafe {
                std::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
            Backing::Heap(v) => v,
        }
    }
}

impl DerefMut for ValueStack {
    fn deref_mut(&mut self) -> &mut [u64] {
        match &mut self.0 {
            // SAFETY: as in `deref`; `&mut self` makes this the only borrow.
            Backing::Mapped { ptr, len } => unsafe {
                std::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
            Backing::Heap(v) => v,
        }
    }
}

impl Drop for ValueStack {
    fn drop(&mut self) {
        if let Backing::Mapped { ptr, len } = self.0 {
            // SAFETY: the mapping made in `new`, unmapped once (no borrow of
            // it outlives `self`).
            unsafe { libc::munmap(ptr.as_ptr() as *mut libc::c_void, len * 8) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ValueStack;

    #[test]
    fn stacks_start_zeroed_and_keep_what_is_written() {
        let mut s = ValueStack::new(1 << 20);
        assert_eq!(s.len(), 1 << 20);
        assert!(s[..1024].iter().all(|&v| v == 0) && s[(1 << 20) - 1] == 0);
        s[7] = 42;
        s[(1 << 20) - 1] = 9;
        assert_eq!((s[7], s[(1 << 20) - 1]), (42, 9));
        assert!(ValueStack::new(0).is_empty());
    }
}
