//! How a reference is encoded in a 64-bit value slot (interpreter stack,
//! locals, globals, table elements, object fields), for every reference type
//! except function references (those are a function address plus one).
//!
//! One encoding serves the `any`, `extern` and `exn` hierarchies, so that
//! `any.convert_extern` and `extern.convert_any` are the identity on slots and
//! `ref.eq` compares slots:
//!
//! | slot                 | value                                        |
//! |----------------------|----------------------------------------------|
//! | `0`                  | null                                         |
//! | `v << 1 \| 1`        | an `i31` (the 31 bits `v`)                   |
//! | `n << 2 \| 2`        | host reference `n` (an embedder's `externref`) |
//! | `(h + 1) << 2`       | heap object `h` (struct, array, exception)   |
//!
//! A heap handle is an index into the store's heap
//! (`runtime::gc::Heap`); the collector never frees an object a live slot
//! can reach, so a handle read from Wasm state always names a live object.

/// The null reference.
pub const NULL: u64 = 0;

/// The slot of an `i31` (its low 31 bits).
#[inline]
pub const fn i31(v: u32) -> u64 {
    (((v & 0x7fff_ffff) as u64) << 1) | 1
}

/// The 31 bits of an `i31` slot, if it is one.
#[inline]
pub const fn as_i31(slot: u64) -> Option<u32> {
    if slot & 1 == 1 {
        Some((slot >> 1) as u32 & 0x7fff_ffff)
    } else {
        None
    }
}

/// The slot of host reference `n`.
#[inline]
pub const fn host(n: u32) -> u64 {
    ((n as u64) << 2) | 2
}

/// The host reference in a slot, if it is one.
#[inline]
pub const fn as_host(slot: u64) -> Option<u32> {
    if slot & 3 == 2 {
        Some((slot >> 2) as u32)
    } else {
        None
    }
}

/// The slot of heap object `h`.
#[inline]
pub const fn object(h: u32) -> u64 {
    (h as u64 + 1) << 2
}

/// The heap object a slot names, if it names one.
#[inline]
pub const fn as_object(slot: u64) -> Option<u32> {
    if slot != 0 && slot & 3 == 0 {
        Some(((slot >> 2) - 1) as u32)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_disjoint_and_round_trip() {
        for v in [0u32, 1, 0x3fff_ffff, 0x7fff_ffff] {
            let s = i31(v);
            assert_eq!(as_i31(s), Some(v));
            assert_eq!((as_host(s), as_object(s)), (None, None));
            assert_ne!(s, NULL);
        }
        for n in [0u32, 7, u32::MAX] {
            let s = host(n);
            assert_eq!(as_host(s), Some(n));
            assert_eq!((as_i31(s), as_object(s)), (None, None));
            assert_ne!(s, NULL);
        }
        for h in [0u32, 9, u32::MAX - 1] {
            let s = object(h);
            assert_eq!(as_object(s), Some(h));
            assert_eq!((as_i31(s), as_host(s)), (None, None));
            assert_ne!(s, NULL);
        }
        assert_eq!(
            (as_i31(NULL), as_host(NULL), as_object(NULL)),
            (None, None, None)
        );
        // i31 keeps 31 bits: the sign bit of an i32 is dropped.
        assert_eq!(as_i31(i31(u32::MAX)), Some(0x7fff_ffff));
    }
}
