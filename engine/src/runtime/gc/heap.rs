//! The object arena, allocation accounting and mark-sweep.

use std::rc::Rc;

use crate::core::refs;

/// What an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Struct,
    Array,
    /// An exception (tag, payload): what an `exnref` names.
    Exception,
}

/// Which of an object's `slots` hold references (that the collector follows).
#[derive(Clone, Debug)]
pub enum RefMap {
    /// No slot is a reference.
    None,
    /// Every slot is a reference (an array of references).
    All,
    /// Slot `i` is a reference iff bit `i` is set (shared by all objects of a
    /// type).
    Mask(Rc<[u64]>),
}

impl RefMap {
    /// A mask from a per-slot flag list (`None` when no flag is set).
    pub fn from_flags(flags: impl IntoIterator<Item = bool>) -> RefMap {
        let mut words = Vec::new();
        let mut any = false;
        for (i, f) in flags.into_iter().enumerate() {
            if words.len() <= i / 64 {
                words.push(0u64);
            }
            if f {
                words[i / 64] |= 1 << (i % 64);
                any = true;
            }
        }
        if any {
            RefMap::Mask(words.into())
        } else {
            RefMap::None
        }
    }

    fn is_ref(&self, i: usize) -> bool {
        match self {
            RefMap::None => false,
            RefMap::All => true,
            RefMap::Mask(m) => m.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1),
        }
    }
}

/// One heap object.
#[derive(Clone, Debug)]
pub struct Object {
    pub kind: ObjectKind,
    /// The store's type id of a struct or array type; the tag address of an
    /// exception.
    pub ty: u32,
    /// Fields, elements or payload, one slot per value (a `v128` takes two,
    /// low half first). Packed array elements may be kept in `bytes` instead.
    pub slots: Box<[u64]>,
    /// Which `slots` are references.
    pub refs: RefMap,
    /// Raw element bytes of arrays of packed or numeric types, if the object
    /// keeps them there (never references).
    pub bytes: Box<[u8]>,
}

impl Object {
    /// Bytes this object accounts for.
    fn size(&self) -> usize {
        std::mem::size_of::<Object>() + self.slots.len() * 8 + self.bytes.len()
    }
}

/// Counters for `--metrics` and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcStats {
    pub collections: u64,
    pub allocated_objects: u64,
    pub allocated_bytes: u64,
    pub freed_objects: u64,
    pub live_bytes: u64,
    pub peak_live_bytes: u64,
}

/// Smallest allocation budget between collections.
const MIN_BUDGET: usize = 1 << 20;

/// The arena. Index `h` of `objects` is heap handle `h`
/// ([`refs::object`]); `None` entries are free and listed in `free`.
pub struct Heap {
    objects: Vec<Option<Object>>,
    /// Allocation serial of each object (tells a handle an embedder kept
    /// from the object that reused its index).
    serials: Vec<u64>,
    next_serial: u64,
    /// This heap's identity (a handle from another store's heap is refused).
    id: u64,
    free: Vec<u32>,
    marks: Vec<bool>,
    allocated_since: usize,
    budget: usize,
    /// Collect at every opportunity (`WIZENG_GC_STRESS=1`): finds missing roots.
    stress: bool,
    stats: GcStats,
}

impl Default for Heap {
    fn default() -> Self {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Heap {
            objects: Vec::new(),
            serials: Vec::new(),
            next_serial: 1,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            free: Vec::new(),
            marks: Vec::new(),
            allocated_since: 0,
            budget: MIN_BUDGET,
            stress: std::env::var_os("WIZENG_GC_STRESS").is_some_and(|v| v != "0"),
            stats: GcStats::default(),
        }
    }
}

impl Heap {
    /// Objects allocated so far (the next allocation's serial): unchanged
    /// over a stretch of code that allocated nothing.
    pub(crate) fn allocations(&self) -> u64 {
        self.next_serial
    }

    /// Add an object; its slot ([`refs::object`]).
    pub fn alloc(&mut self, obj: Object) -> u64 {
        let size = obj.size();
        self.allocated_since += size;
        self.stats.allocated_objects += 1;
        self.stats.allocated_bytes += size as u64;
        self.stats.live_bytes += size as u64;
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(self.stats.live_bytes);
        let h = match self.free.pop() {
            Some(h) => {
                self.objects[h as usize] = Some(obj);
                h
            }
            None => {
                self.objects.push(Some(obj));
                self.serials.push(0);
                (self.objects.len() - 1) as u32
            }
        };
        self.serials[h as usize] = self.next_serial;
        self.next_serial += 1;
        refs::object(h)
    }

    /// The object a slot names, if it names a live one.
    pub fn get(&self, slot: u64) -> Option<&Object> {
        self.objects.get(refs::as_object(slot)? as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, slot: u64) -> Option<&mut Object> {
        self.objects
            .get_mut(refs::as_object(slot)? as usize)?
            .as_mut()
    }

    /// The allocation serial of the live object a slot names.
    pub fn serial(&self, slot: u64) -> Option<u64> {
        self.get(slot)?;
        self.serials.get(refs::as_object(slot)? as usize).copied()
    }

    /// This heap's identity, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Whether the allocations since the last collection call for one now.
    pub fn wants_collection(&self) -> bool {
        self.stress || self.allocated_since >= self.budget
    }

    /// No object was ever allocated (so no slot can name one).
    #[inline]
    pub fn is_empty_ever(&self) -> bool {
        self.stats.allocated_objects == 0
    }

    pub fn stats(&self) -> GcStats {
        self.stats
    }

    /// Number of live (not freed) objects.
    pub fn live_objects(&self) -> usize {
        self.objects.len() - self.free.len()
    }

    /// Mark everything reachable from the slots `roots` reports (it calls
    /// its argument once per root slot; non-object slots are ignored), then
    /// free every other object.
    pub fn collect(&mut self, roots: impl FnOnce(&mut dyn FnMut(u64))) {
        self.marks.clear();
        self.marks.resize(self.objects.len(), false);
        let mut work: Vec<u32> = Vec::new();
        {
            let (objects, marks) = (&self.objects, &mut self.marks);
            let mut visit = |slot: u64| mark(objects, marks, &mut work, slot);
            roots(&mut visit);
        }
        while let Some(h) = work.pop() {
            let Some(obj) = &self.objects[h as usize] else {
                continue;
            };
            if matches!(obj.refs, RefMap::None) {
                continue;
            }
            for (i, &s) in obj.slots.iter().enumerate() {
                if obj.refs.is_ref(i) {
                    mark(&self.objects, &mut self.marks, &mut work, s);
                }
            }
        }
        self.sweep();
    }

    fn sweep(&mut self) {
        let mut live = 0usize;
        for (h, o) in self.objects.iter_mut().enumerate() {
            let Some(obj) = o else { continue };
            if self.marks[h] {
                live += obj.size();
            } else {
                *o = None;
                self.free.push(h as u32);
                self.stats.freed_objects += 1;
            }
        }
        self.stats.collections += 1;
        self.stats.live_bytes = live as u64;
        self.allocated_since = 0;
        self.budget = MIN_BUDGET.max(live);
    }
}

/// Mark the object `slot` names, if any and not yet marked.
fn mark(objects: &[Option<Object>], marks: &mut [bool], work: &mut Vec<u32>, slot: u64) {
    let Some(h) = refs::as_object(slot) else {
        return;
    };
    let h = h as usize;
    if h < marks.len() && !marks[h] && objects[h].is_some() {
        marks[h] = true;
        work.push(h as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(slots: Vec<u64>, refs: RefMap) -> Object {
        Object {
            kind: ObjectKind::Struct,
            ty: 0,
            slots: slots.into(),
            refs,
            bytes: Box::new([]),
        }
    }

    #[test]
    fn collects_what_the_roots_cannot_reach() {
        let mut heap = Heap::default();
        let leaf = heap.alloc(obj(vec![7], RefMap::None));
        let mid = heap.alloc(obj(vec![leaf, 5], RefMap::from_flags([true, false])));
        let garbage = heap.alloc(obj(vec![mid], RefMap::All));
        // A non-reference slot that happens to look like a handle keeps nothing.
        let lookalike = heap.alloc(obj(vec![], RefMap::None));
        let root = heap.alloc(obj(vec![mid, lookalike], RefMap::from_flags([true, false])));
        heap.collect(|visit| {
            visit(root);
            visit(refs::i31(3));
            visit(refs::host(1));
        });
        assert!(heap.get(root).is_some() && heap.get(mid).is_some());
        assert_eq!(heap.get(leaf).unwrap().slots[..], [7]);
        assert!(heap.get(garbage).is_none() && heap.get(lookalike).is_none());
        assert_eq!(heap.live_objects(), 3);
        assert_eq!(heap.stats().freed_objects, 2);
        // Freed indices are reused.
        let again = heap.alloc(obj(vec![], RefMap::None));
        assert!(again == garbage || again == lookalike);
    }

    #[test]
    fn cycles_are_reclaimed() {
        let mut heap = Heap::default();
        let a = heap.alloc(obj(vec![0], RefMap::All));
        let b = heap.alloc(obj(vec![a], RefMap::All));
        heap.get_mut(a).unwrap().slots[0] = b;
        heap.collect(|visit| visit(a));
        assert_eq!(heap.live_objects(), 2);
        heap.collect(|_| {});
        assert_eq!(heap.live_objects(), 0);
        assert!(heap.get(a).is_none());
    }

    #[test]
    fn mask_spans_words() {
        let m = RefMap::from_flags((0..130).map(|i| i == 0 || i == 64 || i == 129));
        assert!(m.is_ref(0) && m.is_ref(64) && m.is_ref(129));
        assert!(!m.is_ref(1) && !m.is_ref(128) && !m.is_ref(500));
        assert!(matches!(RefMap::from_flags([false, false]), RefMap::None));
    }
}
