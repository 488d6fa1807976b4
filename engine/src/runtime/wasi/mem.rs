//! Bounds-checked access to the guest's linear memory. Every out-of-bounds
//! access becomes `EFAULT`; nothing here panics.

use super::errno::{Errno, EFAULT};
use std::ops::Range;

/// The caller's linear memory (possibly empty when the caller has none).
pub struct GuestMem<'a>(pub &'a mut [u8]);

impl GuestMem<'_> {
    pub fn range(&self, ptr: u32, len: u32) -> Result<Range<usize>, Errno> {
        let start = ptr as usize;
        let end = start.checked_add(len as usize).ok_or(EFAULT)?;
        if end > self.0.len() {
            return Err(EFAULT);
        }
        Ok(start..end)
    }

    pub fn slice(&self, ptr: u32, len: u32) -> Result<&[u8], Errno> {
        let r = self.range(ptr, len)?;
        Ok(&self.0[r])
    }

    pub fn slice_mut(&mut self, ptr: u32, len: u32) -> Result<&mut [u8], Errno> {
        let r = self.range(ptr, len)?;
        Ok(&mut self.0[r])
    }

    pub fn write_bytes(&mut self, ptr: u32, bytes: &[u8]) -> Result<(), Errno> {
        let len = u32::try_from(bytes.len()).map_err(|_| EFAULT)?;
        self.slice_mut(ptr, len)?.copy_from_slice(bytes);
        Ok(())
    }

    pub fn read_u8(&self, ptr: u32) -> Result<u8, Errno> {
        Ok(self.slice(ptr, 1)?[0])
    }
    pub fn read_u16(&self, ptr: u32) -> Result<u16, Errno> {
        Ok(u16::from_le_bytes(self.slice(ptr, 2)?.try_into().unwrap()))
    }
    pub fn read_u32(&self, ptr: u32) -> Result<u32, Errno> {
        Ok(u32::from_le_bytes(self.slice(ptr, 4)?.try_into().unwrap()))
    }
    pub fn read_u64(&self, ptr: u32) -> Result<u64, Errno> {
        Ok(u64::from_le_bytes(self.slice(ptr, 8)?.try_into().unwrap()))
    }
    pub fn write_u8(&mut self, ptr: u32, v: u8) -> Result<(), Errno> {
        self.write_bytes(ptr, &[v])
    }
    pub fn write_u16(&mut self, ptr: u32, v: u16) -> Result<(), Errno> {
        self.write_bytes(ptr, &v.to_le_bytes())
    }
    pub fn write_u32(&mut self, ptr: u32, v: u32) -> Result<(), Errno> {
        self.write_bytes(ptr, &v.to_le_bytes())
    }
    pub fn write_u64(&mut self, ptr: u32, v: u64) -> Result<(), Errno> {
        self.write_bytes(ptr, &v.to_le_bytes())
    }

    /// Read an array of `(buf, len)` iovecs, checking that each buffer is in bounds.
    pub fn iovecs(&self, ptr: u32, count: u32) -> Result<Vec<(u32, u32)>, Errno> {
        let bytes_len = count.checked_mul(8).ok_or(EFAULT)?;
        self.range(ptr, bytes_len)?;
        let mut v = Vec::with_capacity(count as usize);
        for i in 0..count {
            let buf = self.read_u32(ptr + i * 8)?;
            let len = self.read_u32(ptr + i * 8 + 4)?;
            self.range(buf, len)?;
            v.push((buf, len));
        }
        Ok(v)
    }
}
