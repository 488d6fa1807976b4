//! Linear memory buffers: each memory reserves its whole 32-bit address range
//! plus a guard region up front (inaccessible pages) and makes pages
//! accessible as it grows. The base address never moves, and any 32-bit
//! address plus a 32-bit offset from JIT code lands either in accessible
//! memory or in the reservation, where it faults; the JIT therefore compiles
//! memory accesses without bounds checks (the fault becomes an out-of-bounds
//! trap). The interpreter and host functions see the accessible bytes as a
//! slice and check bounds themselves.

use std::ops::{Deref, DerefMut};

/// 4 GiB (the 32-bit range) plus 4 GiB guard: covers index + offset for any
/// u32 index and u32 static offset.
pub const RESERVATION: usize = 8 << 30;

pub struct LinearMemory {
    ptr: *mut u8,
    len: usize,
}

impl LinearMemory {
    /// A memory of `len` accessible bytes (zeroed), or None if the address
    /// space cannot be reserved.
    pub fn new(len: usize) -> Option<LinearMemory> {
        // SAFETY: an anonymous private PROT_NONE mapping; the result is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                RESERVATION,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        let mut m = LinearMemory {
            ptr: ptr as *mut u8,
            len: 0,
        };
        if !m.resize(len) {
            return None;
        }
        Some(m)
    }

    /// Grow to `new_len` bytes (new bytes are zero). Shrinking is not supported.
    pub fn resize(&mut self, new_len: usize) -> bool {
        if new_len < self.len || new_len > (4 << 30) {
            return false;
        }
        if new_len > self.len {
            // SAFETY: [ptr, ptr + new_len) lies inside our reservation.
            let r = unsafe {
                libc::mprotect(
                    self.ptr as *mut libc::c_void,
                    new_len,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            };
            if r != 0 {
                return false;
            }
        }
        self.len = new_len;
        true
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
}

impl Deref for LinearMemory {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: the first `len` bytes are mapped read/write and owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for LinearMemory {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for LinearMemory {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the reservation made in `new`.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, RESERVATION) };
    }
}
