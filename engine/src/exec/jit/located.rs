//! Compiling a Wasm function so that every guard-page fault has a location.
//!
//! A trap names the Wasm op whose source location covers the faulting machine
//! instruction. Cranelift's lowering merges a load into the instruction that
//! consumes it (`movsx rax, word [mem]`), so the fault is taken by the
//! consumer's machine code and carries the consumer's location. The egraph
//! builds new pure instructions (e.g. `splat.i16x8 (load)` becomes
//! `splat.i32x4 (sextend (load))`) that have no location at all; a load merged
//! into one of them faulted at an address no range covers, and the trap was
//! named after whatever machine code happened to precede it (seed 2192586: a
//! `data.drop` far after the load).
//!
//! So between optimisation and lowering, an instruction with no location whose
//! operand is a trapping load of the same block takes that load's location:
//! if the lowering merges the load into it, the fault names the load. Nothing
//! else changes (pure instructions do not trap by themselves; the machine code
//! is the same).
//!
//! Cranelift's `compile_with_cache` runs optimisation and lowering in one
//! call, so this file drives the steps itself, with the same cache entries
//! (keyed by the unoptimised IR, plus [`KEY_SALT`] for this pass).

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::incremental_cache as ic;
use cranelift_codegen::incremental_cache::CacheKvStore;
use cranelift_codegen::ir::{self, Function, InstructionData, SourceLoc, ValueDef};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{CompiledCode, Context};
use sha2::{Digest, Sha256};

use super::cache::{self, CodeCache};

/// Mixed into cache keys: machine code from before this pass (same IR,
/// fewer locations) is never reused.
const KEY_SALT: &[u8] = b"wizeng: merged loads located (1)";

/// Optimise and compile `ctx.func` (through `cache`, if there is one). On a
/// compile (not a cache hit), `ctx.func` is left holding the optimised IR,
/// and the code has a listing if `ctx.want_disasm`.
pub(crate) fn compile(
    ctx: &mut Context,
    isa: &dyn TargetIsa,
    cache: Option<&CodeCache>,
) -> Result<CompiledCode, String> {
    let key = cache.map(|_| cache_key(isa, &ctx.func));
    if let (Some(c), Some(k)) = (cache, &key) {
        if let Some(blob) = cache::Store(c).get(k) {
            if let Ok(cc) = ic::try_finish_recompile(&ctx.func, &blob) {
                return Ok(cc);
            }
        }
    }
    let ctrl = &mut ControlPlane::default();
    let err = |e: cranelift_codegen::CodegenError| format!("{e:?}");
    ctx.verify_if(isa).map_err(err)?;
    ctx.optimize(isa, ctrl).map_err(err)?;
    locate_merged_loads(&mut ctx.func);
    let mut stencil = isa
        .compile_function(&ctx.func, &ctx.domtree, ctx.want_disasm, ctrl)
        .map_err(err)?;
    if let (Some(c), Some(k)) = (cache, &key) {
        let (s, blob) = ic::serialize_compiled(stencil);
        stencil = s;
        if let Ok(blob) = blob {
            cache::Store(c).insert(k, blob);
        }
    }
    Ok(stencil.apply_params(&ctx.func.params))
}

/// Cranelift's key for `func` (a hash of the IR, the ISA and its flags, and
/// Cranelift's version), salted with [`KEY_SALT`].
fn cache_key(isa: &dyn TargetIsa, func: &Function) -> Vec<u8> {
    struct Sha(Sha256);
    impl std::hash::Hasher for Sha {
        fn finish(&self) -> u64 {
            unreachable!("only `write` is used")
        }
        fn write(&mut self, bytes: &[u8]) {
            self.0.update(bytes);
        }
    }
    let mut h = Sha(Sha256::new());
    h.0.update(KEY_SALT);
    std::hash::Hash::hash(&ic::compute_cache_key(isa, func), &mut h);
    h.0.finalize().to_vec()
}

/// Give each location-less instruction that consumes a trapping load of its
/// own block the load's location (see the module doc).
pub(crate) fn locate_merged_loads(func: &mut Function) {
    let mut fixes: Vec<(ir::Inst, SourceLoc)> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if !func.srcloc(inst).is_default() {
                continue;
            }
            let load_loc = func.dfg.inst_args(inst).iter().find_map(|&v| {
                let ValueDef::Result(def, _) = func.dfg.value_def(v) else {
                    return None;
                };
                let loc = func.srcloc(def);
                (func.layout.inst_block(def) == Some(block)
                    && is_trapping_load(&func.dfg.insts[def])
                    && !loc.is_default())
                .then_some(loc)
            });
            if let Some(loc) = load_loc {
                fixes.push((inst, loc));
            }
        }
    }
    for (inst, loc) in fixes {
        func.set_srcloc(inst, loc);
    }
}

/// A load that can fault (a Wasm memory access), not a `notrap` one of the
/// engine's own structures.
fn is_trapping_load(data: &InstructionData) -> bool {
    data.opcode().can_load() && data.memflags().is_some_and(|f| !f.notrap())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::types::{I16, I32, I32X4, I64};
    use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlags, Signature};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// `load.i16` at 0x12, then a location-less `sextend` and `splat`
    /// (as the egraph builds them), then a location-less `iadd` of a
    /// `notrap` load: only the `sextend` takes the load's location.
    #[test]
    fn a_location_less_consumer_of_a_heap_load_takes_its_location() {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(I64));
        sig.returns.push(AbiParam::new(I32X4));
        sig.returns.push(AbiParam::new(I64));
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let addr = b.block_params(block)[0];
        b.set_srcloc(SourceLoc::new(0x12));
        let heap = b.ins().load(I16, MemFlags::new(), addr, 0);
        b.set_srcloc(SourceLoc::default());
        let wide = b.ins().sextend(I32, heap);
        let splat = b.ins().splat(I32X4, wide);
        let own = b.ins().load(I64, MemFlags::trusted(), addr, 8);
        let sum = b.ins().iadd_imm(own, 1);
        b.ins().return_(&[splat, sum]);
        b.seal_all_blocks();
        b.finalize();
        locate_merged_loads(&mut func);
        let loc_of = |v| {
            let ValueDef::Result(i, _) = func.dfg.value_def(v) else {
                unreachable!()
            };
            func.srcloc(i)
        };
        assert_eq!(loc_of(wide), SourceLoc::new(0x12));
        assert!(loc_of(splat).is_default());
        assert!(loc_of(sum).is_default());
    }
}
