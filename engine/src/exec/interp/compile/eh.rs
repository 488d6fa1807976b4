//! Translation of exception handling: `try_table` and the legacy
//! `try`/`catch`/`catch_all`/`delegate`/`rethrow` become handler regions
//! (`Compiled::handlers`) over op ranges, not ops; `throw`, `throw_ref` and
//! `rethrow` are cold ops. The interpreter's unwinder (`interp/unwind.rs`)
//! reads the regions. A function with any of this, or with `exnref`
//! values, is marked for the interpreter (`Translator::require_interpreter`).

use crate::core::module::BodyValidator;
use wasmparser::{FunctionBody, Operator};

use super::{Ctl, Fixup, ModuleCtx, Translator};
use crate::exec::interp::code::{BrTarget, Catch, Op, TryRegion};

/// Legacy `try` blocks in `body` (each may need a local slot for the exnref
/// its catches keep for `rethrow`); 0 when the legacy form is off or the
/// body cannot hold one (no `0x06` byte). Errors are left to validation.
pub(super) fn legacy_try_count(ctx: &ModuleCtx<'_>, body: &FunctionBody<'_>) -> u32 {
    if !ctx
        .features
        .contains(wasmparser::WasmFeatures::LEGACY_EXCEPTIONS)
        || !body.as_bytes().contains(&0x06)
    {
        return 0;
    }
    let Ok(mut ops) = body.get_operators_reader() else {
        return 0;
    };
    let mut n = 0;
    while !ops.eof() {
        match ops.read() {
            Ok(Operator::Try { .. }) => n += 1,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    n
}

/// Instructions that can put an `exnref` on the operand stack without the
/// function's signature or locals naming the type (the translator checks
/// the top operand's type after them).
pub(super) fn may_make_exnref(op: &Operator<'_>) -> bool {
    matches!(
        op,
        Operator::Call { .. }
            | Operator::CallIndirect { .. }
            | Operator::CallRef { .. }
            | Operator::RefNull { .. }
            | Operator::TypedSelect { .. }
            | Operator::TableGet { .. }
            | Operator::GlobalGet { .. }
    )
}

/// Whether `op` names `exnref` in its immediates (a block type, a callee's
/// or an indirect call's type, a typed `select`, `ref.null exn`, an exnref
/// table or global): Cranelift's translation cannot even read the type.
pub(super) fn names_exnref(op: &Operator<'_>, v: &BodyValidator) -> bool {
    use wasmparser::{BlockType, WasmModuleResources};
    use Operator as O;
    let r = v.resources();
    let exn = |t: &wasmparser::ValType| {
        crate::core::types::ValType::from_wasmparser(*t) == crate::core::types::ValType::ExnRef
    };
    let func_type = |i: u32| match r.sub_type_at(i).map(|s| &s.composite_type.inner) {
        Some(wasmparser::CompositeInnerType::Func(f)) => {
            f.params().iter().chain(f.results()).any(exn)
        }
        _ => false,
    };
    let block = |bt: &BlockType| match bt {
        BlockType::Empty => false,
        BlockType::Type(t) => exn(t),
        BlockType::FuncType(i) => func_type(*i),
    };
    match op {
        O::Block { blockty } | O::Loop { blockty } | O::If { blockty } => block(blockty),
        O::Call { function_index } | O::ReturnCall { function_index } => r
            .type_index_of_function(*function_index)
            .is_some_and(func_type),
        O::CallIndirect { type_index, .. }
        | O::ReturnCallIndirect { type_index, .. }
        | O::CallRef { type_index }
        | O::ReturnCallRef { type_index } => func_type(*type_index),
        O::TypedSelect { ty } => exn(ty),
        O::RefNull { hty } => matches!(
            hty,
            wasmparser::HeapType::Abstract {
                ty: wasmparser::AbstractHeapType::Exn | wasmparser::AbstractHeapType::NoExn,
                ..
            }
        ),
        O::TableGet { table }
        | O::TableSet { table }
        | O::TableGrow { table }
        | O::TableFill { table } => r
            .table_at(*table)
            .is_some_and(|t| exn(&wasmparser::ValType::Ref(t.element_type))),
        O::GlobalGet { global_index } | O::GlobalSet { global_index } => r
            .global_at(*global_index)
            .is_some_and(|g| exn(&g.content_type)),
        _ => false,
    }
}

impl Translator<'_> {
    /// The JIT must not compile this function: every tier runs it in the
    /// interpreter (exception handling; Wasm GC instructions and GC-typed
    /// functions use it too). Cheap: sets a flag.
    pub(crate) fn require_interpreter(&mut self) {
        self.out.interp_only = true;
    }

    /// The innermost handler region at the current point.
    pub(super) fn inner(&self) -> Option<u32> {
        self.ctls.last().and_then(|c| c.inner)
    }

    /// An interpreted-only function never enters compiled code by OSR: its
    /// loop headers count nothing.
    pub(super) fn no_osr_entries(&mut self) {
        for op in &mut self.out.ops {
            if matches!(op.get(), Op::LoopHead(_)) {
                op.set(Op::Nop);
            }
        }
    }

    /// A new region from the next op on, inside the current innermost one.
    fn open_region(&mut self, catches: Vec<Catch>) -> u32 {
        let outer = self.inner();
        self.out.handlers.push(TryRegion {
            start: self.here(),
            end: u32::MAX,
            catches,
            outer,
        });
        self.out.handlers.len() as u32 - 1
    }

    /// Ends region `r` (if still open) before op `at`.
    pub(super) fn close_region(&mut self, r: Option<u32>, at: u32) {
        if let Some(h) = r.and_then(|r| self.out.handlers.get_mut(r as usize)) {
            if h.end == u32::MAX {
                h.end = at;
            }
        }
    }

    /// `try_table`: a block whose body is a region; each catch clause is a
    /// branch to its label, resolved here (outside the block).
    pub(super) fn try_table(&mut self, v: &BodyValidator, tt: &wasmparser::TryTable) {
        self.require_interpreter();
        let r = self.out.handlers.len();
        let mut catches = Vec::new();
        for c in &tt.catches {
            use wasmparser::Catch as C;
            let (tag, label, push_ref) = match *c {
                C::One { tag, label } => (Some(tag), label, false),
                C::OneRef { tag, label } => (Some(tag), label, true),
                C::All { label } => (None, label, false),
                C::AllRef { label } => (None, label, true),
            };
            // An invalid label: the validator rejects the instruction next.
            let Some((to, _)) = self.branch(v, label) else {
                continue;
            };
            self.add_fixup(label, Fixup::Catch(r, catches.len()));
            catches.push(Catch {
                tag,
                to,
                push_ref,
                exn_slot: None,
            });
        }
        let r = self.open_region(catches);
        self.ctls.push(Ctl {
            region: Some(r),
            ..Ctl::block(Some(r))
        });
    }

    /// Legacy `try`: a block whose body (up to its first `catch`) is a region.
    pub(super) fn legacy_try(&mut self) {
        self.require_interpreter();
        let r = self.open_region(Vec::new());
        self.ctls.push(Ctl {
            region: Some(r),
            ..Ctl::block(Some(r))
        });
    }

    /// Legacy `catch`/`catch_all` (`tag` None): the code before it jumps to
    /// the block's end; the clause's code starts here, with the payload on
    /// the block's base height and the exnref kept in the try's local slot.
    pub(super) fn legacy_catch(
        &mut self,
        v: &BodyValidator,
        tag: Option<u32>,
        falls_through: bool,
    ) {
        if falls_through {
            let j = self.emit(Op::Jump(u32::MAX));
            if let Some(c) = self.ctls.last_mut() {
                c.fixups.push(Fixup::Op(j));
            }
        }
        let here = self.here();
        let Some(r) = self.ctls.last().and_then(|c| c.region) else {
            return;
        };
        self.close_region(Some(r), here);
        let outer = self.out.handlers[r as usize].outer;
        let next = self.next_exn_slot;
        let ctl = self.ctls.last_mut().expect("a try block");
        // Code in the catch clauses is outside the try's region.
        ctl.inner = outer;
        let slot = *ctl.exn_slot.get_or_insert(next);
        if slot == next {
            self.next_exn_slot += 1;
        }
        let Some(frame) = v.get_control_frame(0) else {
            return;
        };
        let base = self.out.operand_base() as u32 + self.slots_below(v, frame.height as u32);
        self.out.handlers[r as usize].catches.push(Catch {
            tag,
            to: BrTarget {
                target: here,
                base,
                keep: 0,
            },
            push_ref: false,
            exn_slot: Some(slot),
        });
    }

    /// Legacy `delegate l`: ends the try block; an exception its body does
    /// not handle goes to the handlers around label `l` (outside the block).
    pub(super) fn delegate(&mut self, depth: u32, site_start: u32) {
        let Some(ctl) = self.ctls.pop() else {
            return;
        };
        for f in &ctl.fixups {
            self.patch(f, site_start);
        }
        self.close_region(ctl.region, site_start);
        let n = self.ctls.len();
        let target = (depth as usize) < n;
        let to = if target {
            self.ctls[n - 1 - depth as usize].inner
        } else {
            None
        };
        if let Some(h) = ctl
            .region
            .and_then(|r| self.out.handlers.get_mut(r as usize))
        {
            h.outer = to;
        }
    }

    /// Legacy `rethrow l`: raise the exception caught by the catch clause
    /// at label `l` again.
    pub(super) fn rethrow(&mut self, depth: u32) {
        let n = self.ctls.len();
        let slot = (depth as usize)
            .checked_add(1)
            .filter(|d| *d <= n)
            .and_then(|d| self.ctls[n - d].exn_slot);
        if let Some(s) = slot {
            self.emit(Op::Rethrow(s));
        }
    }
}
