//! Stack maps: which value-stack slots of an interpreter frame hold heap
//! references (the GC's roots in that frame), recorded by the translator.
//!
//! A function gets maps only if it can hold a heap reference: its module
//! mentions a reference type other than function references (in a type,
//! global, table, tag or element segment), or one of its locals has one.
//! Then the maps give the reference-typed locals and, for each op at which a
//! collection can happen while the frame is live (calls, allocating and
//! throwing instructions, probe sites), the reference-typed operand slots
//! before that instruction, from the validator's operand types. A frame
//! suspended at an op without a map is scanned conservatively (every slot of
//! its operand stack that names a live object keeps it): never unsound, only
//! possibly keeping garbage, and no translated op is expected to need it.

use crate::core::module::BodyValidator;
use wasmparser::{AbstractHeapType, HeapType, Operator, ValidatorResources, WasmModuleResources};

/// The stack maps of one function.
#[derive(Debug, Default)]
pub(crate) struct StackMaps {
    /// Slot offsets (from the frame pointer) of the reference-typed locals.
    pub ref_locals: Box<[u32]>,
    /// Per range of ops `[start, end)` (sorted, disjoint): slot offsets, from
    /// the frame's operand base, of the reference-typed operands there.
    pub at: Vec<(u32, u32, Box<[u32]>)>,
}

impl StackMaps {
    /// The reference operand slots at op `op`, if a map covers it.
    pub fn operands_at(&self, op: u32) -> Option<&[u32]> {
        let i = self.at.partition_point(|r| r.0 <= op).checked_sub(1)?;
        let (start, end, slots) = &self.at[i];
        (*start <= op && op < *end).then_some(&slots[..])
    }
}

/// Whether values of type `t` may be (or contain) heap references: any
/// reference type outside the function hierarchy.
pub(crate) fn heap_ref(r: &ValidatorResources, t: wasmparser::ValType) -> bool {
    let wasmparser::ValType::Ref(rt) = t else {
        return false;
    };
    !matches!(
        r.top_type(&rt.heap_type()),
        HeapType::Abstract {
            ty: AbstractHeapType::Func,
            ..
        }
    )
}

/// Whether anything a module declares has a heap reference type.
pub(crate) fn module_has_heap_refs(r: &ValidatorResources) -> bool {
    use wasmparser::CompositeInnerType as C;
    let types = (0..).map_while(|i| r.sub_type_at(i)).any(|st| {
        match &st.composite_type.inner {
            C::Func(f) => f
                .params()
                .iter()
                .chain(f.results())
                .any(|t| heap_ref(r, *t)),
            // A struct or array type: its objects are heap objects.
            C::Struct(_) | C::Array(_) => true,
        }
    });
    types
        || (0..)
            .map_while(|i| r.global_at(i))
            .any(|g| heap_ref(r, g.content_type))
        || (0..)
            .map_while(|i| r.table_at(i))
            .any(|t| heap_ref(r, t.element_type.into()))
        || r.tag_at(0).is_some()
        || (0..r.element_count())
            .filter_map(|i| r.element_type_at(i))
            .any(|t| heap_ref(r, t.into()))
}

/// Whether a collection can happen while a frame is suspended at `op`
/// (besides probe sites, which the translator adds).
pub(crate) fn is_safepoint(op: &Operator<'_>) -> bool {
    use Operator as O;
    matches!(
        op,
        O::Call { .. }
            | O::CallIndirect { .. }
            | O::CallRef { .. }
            | O::ReturnCall { .. }
            | O::ReturnCallIndirect { .. }
            | O::ReturnCallRef { .. }
            | O::Throw { .. }
            | O::ThrowRef
            | O::StructNew { .. }
            | O::StructNewDefault { .. }
            | O::ArrayNew { .. }
            | O::ArrayNewDefault { .. }
            | O::ArrayNewFixed { .. }
            | O::ArrayNewData { .. }
            | O::ArrayNewElem { .. }
    )
}

/// Records a function's maps during translation.
pub(crate) struct Recorder {
    maps: StackMaps,
    /// One slot per value (no `v128` can occur), or types decide.
    wide: bool,
}

impl Recorder {
    /// A recorder if the function can hold heap references (`module` is
    /// [`module_has_heap_refs`] of its module).
    pub fn new(v: &BodyValidator, module: bool, wide: bool) -> Option<Recorder> {
        let r = v.resources();
        let mut ref_locals = Vec::new();
        let mut at = 0u32;
        for i in 0..v.len_locals() {
            let t = v.get_local_type(i)?;
            if heap_ref(r, t) {
                ref_locals.push(at);
            }
            at += slots(t, wide);
        }
        (module || !ref_locals.is_empty()).then(|| Recorder {
            maps: StackMaps {
                ref_locals: ref_locals.into(),
                at: Vec::new(),
            },
            wide,
        })
    }

    /// The operand state of `v` holds for ops `[start, end)`.
    pub fn record(&mut self, v: &BodyValidator, start: u32, end: u32) {
        if start >= end {
            return;
        }
        let r = v.resources();
        let height = v.operand_stack_height() as usize;
        let mut slots_out = Vec::new();
        let mut at = 0u32;
        for depth in (0..height).rev() {
            match v.get_operand_type(depth) {
                Some(Some(t)) => {
                    if heap_ref(r, t) {
                        slots_out.push(at);
                    }
                    at += slots(t, self.wide);
                }
                // Unknown (unreachable code): no map, scanned conservatively.
                _ => return,
            }
        }
        if let Some(last) = self.maps.at.last_mut() {
            if last.1 == start && *last.2 == *slots_out {
                last.1 = end;
                return;
            }
        }
        self.maps.at.push((start, end, slots_out.into()));
    }

    pub fn finish(self) -> Box<StackMaps> {
        Box::new(self.maps)
    }
}

fn slots(t: wasmparser::ValType, wide: bool) -> u32 {
    if wide && t == wasmparser::ValType::V128 {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_looked_up_by_op() {
        let m = StackMaps {
            ref_locals: Box::new([]),
            at: vec![(2, 4, Box::new([0])), (7, 8, Box::new([1, 3]))],
        };
        assert_eq!(m.operands_at(1), None);
        assert_eq!(m.operands_at(2), Some(&[0u32][..]));
        assert_eq!(m.operands_at(3), Some(&[0u32][..]));
        assert_eq!(m.operands_at(4), None);
        assert_eq!(m.operands_at(7), Some(&[1u32, 3][..]));
        assert_eq!(m.operands_at(9), None);
    }
}
