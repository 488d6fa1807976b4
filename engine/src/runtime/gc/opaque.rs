//! Opaque app references for monitors (docs/monitor-abi.md#opaque-app-references):
//! a probe parameter bound to an app value of a GC reference type receives
//! an `externref` host value that names the reference, never the reference
//! itself. The monitor can keep it, test it for null, pass it to
//! `wizeng.ref_id`, but cannot convert it into anything it could read or
//! write (it is a host reference: every cast to a struct, array, `eq` or
//! `i31` type fails).
//!
//! The table is weak: it does not keep an app object alive (monitoring does
//! not change what the collector frees). Its entries record the object's
//! allocation serial, so a freed object's slot, reused by a new object, gets
//! a new id; ids are never reused. Entries of freed objects are dropped when
//! the table has doubled since it was last pruned.

use std::collections::HashMap;

use super::Heap;
use crate::core::refs;

/// Ids start here, so that an opaque reference is not also a plausible
/// frame handle (those count activations from 1).
const FIRST_ID: u32 = 1 << 31;

/// App references handed to monitors, by slot.
#[derive(Default)]
pub struct OpaqueRefs {
    /// Slot → (allocation serial, or 0 for an `i31` or host reference; id).
    ids: HashMap<u64, (u64, u32)>,
    next: u32,
    /// Size after the last pruning.
    pruned_at: usize,
}

impl OpaqueRefs {
    /// `wizeng.ref_id`: an opaque reference's id from 1, 0 for null, -1
    /// for any other `externref` (a frame handle, a host value).
    pub fn id_of(slot: u64) -> i32 {
        match refs::as_host(slot) {
            _ if slot == 0 => 0,
            Some(id) if id & FIRST_ID != 0 => ((id & (FIRST_ID - 1)) as i32).wrapping_add(1),
            _ => -1,
        }
    }

    /// The `externref` slot a monitor receives for app reference `slot`
    /// (null for null).
    pub fn handle(&mut self, heap: &Heap, slot: u64) -> u64 {
        if slot == 0 {
            return 0;
        }
        let serial = heap.serial(slot).unwrap_or(0);
        if let Some(&(s, id)) = self.ids.get(&slot) {
            if s == serial {
                return refs::host(id);
            }
        }
        if self.ids.len() >= 2 * self.pruned_at.max(1024) {
            self.ids
                .retain(|&k, &mut (s, _)| s == 0 || heap.serial(k) == Some(s));
            self.pruned_at = self.ids.len();
        }
        let id = FIRST_ID | self.next;
        // 2^31 distinct references: ids then repeat (documented).
        self.next = (self.next + 1) & (FIRST_ID - 1);
        self.ids.insert(slot, (serial, id));
        refs::host(id)
    }
}
