//! Trampolines: the per-type code at the edges of compiled code.
//!
//! For every type of a module: a host trampoline (compiled code calls a host
//! function through it), an entry trampoline (the interpreter or an embedder
//! calls compiled code through it), in the lazy and dyn tiers a stub that
//! compiles or interprets a function not compiled yet, and for the first
//! `[] -> [i64]` type a clock trampoline (`Linker::clock`).
//!
//! Each is a tiny function, yet Cranelift costs about 200k instructions to
//! compile one (or to look one up in its incremental cache, whose key is a
//! SHA-256 of the function's IR): a module with 17 types paid 10M
//! instructions, on the main thread, the first time anything got hot. So a
//! module's whole set is one entry of the code cache, keyed by what the code
//! depends on: the module's types, which kinds are built, the target ISA
//! and its flags, Cranelift's version and this generator (a hash of this
//! file and of `env.rs`, which gives Wasm functions their signature). On a
//! hit the set is placed in memory without building any IR. The entry is
//! checked like every cache entry (length and digest), and then decoded as
//! data: a set that does not decode, or is not the set asked for, is built
//! afresh (counted as a damaged entry).

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::incremental_cache::CacheKvStore;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{
    self, AbiParam, ExternalName, InstBuilder, MemFlags, Signature, UserExternalName,
    UserExternalNameRef, UserFuncName,
};
use cranelift_codegen::isa::{CallConv, TargetIsa};
use cranelift_codegen::{Context, FinalizedMachReloc, FinalizedRelocTarget};
use cranelift_entity::EntityRef;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module as _};
use sha2::{Digest, Sha256};

use super::cache::{self, CodeCache};
use super::env::{self, clif_type, wasm_sig};
use crate::core::types::{slot_count, FuncType, ValType};

/// Symbols the trampolines call ([`super::libcalls::host_call`],
/// [`super::lazy_call`], [`super::libcalls::clock_call`]): relocations,
/// not addresses in the code, so that the code is the same in every process.
pub(crate) const HOST_CALL: &str = "wizeng_host_call";
pub(crate) const LAZY_CALL: &str = "wizeng_lazy_call";
pub(crate) const CLOCK_CALL: &str = "wizeng_clock_call";
const SYMBOLS: [&str; 3] = [HOST_CALL, LAZY_CALL, CLOCK_CALL];

/// A trampoline: its offset in the set's code ([`Set::code`]), code size,
/// and trap sites.
pub(crate) type Compiled = (usize, usize, Vec<(u32, ir::TrapCode)>);

/// A module's trampolines, defined in a JIT module as one piece of code:
/// defining each as a function of its own cost about 3.5k instructions
/// apiece (declaring, placing, relocating), 1M for a module of 95 types,
/// paid at every instance's first tier-up.
pub(crate) struct Set {
    /// The code holding them all.
    pub code: FuncId,
    /// Per module type: (host trampoline, entry trampoline).
    pub tramps: Vec<(Compiled, Compiled)>,
    /// Per module type, when asked for: the lazy stub.
    pub lazy: Vec<Compiled>,
    pub clock: Option<Compiled>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Host = 0,
    Entry = 1,
    Lazy = 2,
    Clock = 3,
}

impl Kind {
    /// The index in [`SYMBOLS`] of the runtime function this kind of
    /// trampoline calls (none for an entry trampoline).
    fn target(self) -> Option<u8> {
        match self {
            Kind::Entry => None,
            Kind::Host => Some(0),
            Kind::Lazy => Some(1),
            Kind::Clock => Some(2),
        }
    }
}

/// One trampoline's machine code, as the cache keeps it.
#[derive(PartialEq, Debug)]
struct Piece {
    kind: Kind,
    ti: u32,
    alignment: u64,
    code: Vec<u8>,
    /// (offset, kind, addend, index in [`SYMBOLS`]).
    relocs: Vec<(u32, Reloc, i64, u8)>,
    traps: Vec<(u32, ir::TrapCode)>,
}

/// The trampolines of a module with `types`, in order: per type, the clock
/// trampoline (first `[] -> [i64]` type only), host, entry, lazy stub (if
/// `lazy`).
fn plan(types: &[FuncType], lazy: bool) -> Vec<(Kind, u32)> {
    let mut out = Vec::with_capacity(types.len() * 3 + 1);
    let mut clock = false;
    for (ti, ty) in types.iter().enumerate() {
        let ti = ti as u32;
        if !clock && ty.params.is_empty() && *ty.results == [ValType::I64] {
            clock = true;
            out.push((Kind::Clock, ti));
        }
        out.push((Kind::Host, ti));
        out.push((Kind::Entry, ti));
        if lazy {
            out.push((Kind::Lazy, ti));
        }
    }
    out
}

/// The signature of the runtime functions the trampolines call
/// (`SYMBOLS`): `(ctx, caller_vmctx, buffer) -> status`.
fn runtime_sig() -> Signature {
    let mut lsig = Signature::new(CallConv::SystemV);
    lsig.params
        .extend([AbiParam::new(I64), AbiParam::new(I64), AbiParam::new(I64)]);
    lsig.returns.push(AbiParam::new(ir::types::I32));
    lsig
}

/// A module's trampolines as machine code not yet placed in memory: from
/// `cache` when it has them, else compiled (and then stored there). Needs no
/// JIT module: [`super::codegen`] makes them (on a compiler thread, for a
/// background compile) and [`define_all`] places them.
pub(crate) fn pieces(
    types: &[FuncType],
    lazy: bool,
    isa: &dyn TargetIsa,
    cache: Option<&CodeCache>,
) -> Result<Pieces, String> {
    let plan = plan(types, lazy);
    let key = cache.map(|_| key(types, lazy, isa));
    if let (Some(c), Some(k)) = (cache, &key) {
        if let Some(p) = load(c, k, &plan) {
            return Ok(Pieces { lazy, pieces: p });
        }
    }
    let pieces = build_plan(types, &plan)?;
    if let (Some(c), Some(k)) = (cache, &key) {
        cache::Store(c).insert(k, encode(&pieces));
    }
    Ok(Pieces { lazy, pieces })
}

/// Compile the trampolines of `plan`. A host trampoline, a lazy stub and
/// the clock trampoline of one signature are the same code but for the
/// runtime function their one relocation names, and two types of one
/// signature have the same trampolines: each signature's code is compiled
/// once per shape (calling a runtime function, or entry) and copied, its
/// relocation retargeted. Trampolines are compiled without optimisation
/// ([`tramp_isa`]): each is a few loads, stores and a call, which Cranelift's
/// optimiser cannot improve, but costs about a fifth of a compile.
fn build_plan(types: &[FuncType], plan: &[(Kind, u32)]) -> Result<Vec<Piece>, String> {
    let isa = tramp_isa()?;
    let lsig = runtime_sig();
    let mut ctx = Context::new();
    // (entry?, signature) -> a piece of that shape already compiled.
    let mut built: std::collections::HashMap<(bool, &FuncType), usize> = Default::default();
    let mut out: Vec<Piece> = Vec::with_capacity(plan.len());
    for &(kind, ti) in plan {
        let ty = &types[ti as usize];
        let shape = (kind == Kind::Entry, ty);
        let piece = match built.get(&shape) {
            Some(&k) => out[k].copy_as(kind, ti),
            None => {
                built.insert(shape, out.len());
                build(&*isa, &mut ctx, &lsig, ty, kind, ti)?
            }
        };
        out.push(piece);
    }
    Ok(out)
}

thread_local! {
    static TRAMP_ISA: std::cell::RefCell<Option<cranelift_codegen::isa::OwnedTargetIsa>> =
        const { std::cell::RefCell::new(None) };
}

/// The host ISA with the JIT's flags but `opt_level` `none`, for
/// trampolines (built once per thread). Cache keys still describe the JIT's
/// ISA ([`key`]): this choice is part of the generator ([`GENERATOR`]).
fn tramp_isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    if let Some(i) = TRAMP_ISA.with(|c| c.borrow().clone()) {
        return Ok(i);
    }
    let i = super::build_isa_at("none")?;
    TRAMP_ISA.with(|c| *c.borrow_mut() = Some(i.clone()));
    Ok(i)
}

impl Piece {
    /// This piece's code as the trampoline `kind` of type `ti` (a type of
    /// the same signature; for a host-shaped `kind`, its one relocation now
    /// names `kind`'s runtime function).
    fn copy_as(&self, kind: Kind, ti: u32) -> Piece {
        let target = kind.target();
        let relocs = self
            .relocs
            .iter()
            .map(|&(offset, k, addend, s)| (offset, k, addend, target.unwrap_or(s)))
            .collect();
        Piece {
            kind,
            ti,
            alignment: self.alignment,
            code: self.code.clone(),
            relocs,
            traps: self.traps.clone(),
        }
    }
}

/// A module's trampolines built by [`pieces`], for [`define_all`].
pub(crate) struct Pieces {
    lazy: bool,
    pieces: Vec<Piece>,
}

/// Define the trampolines of every type in `types` in `jit` (with the
/// interpreting stubs if `lazy`), as [`pieces`] built them.
pub(crate) fn define_all(
    jit: &mut JITModule,
    types: &[FuncType],
    lazy: bool,
    built: Pieces,
) -> Result<Set, String> {
    let fits = built.lazy == lazy
        && built
            .pieces
            .iter()
            .map(|p| (p.kind, p.ti))
            .eq(plan(types, lazy));
    if !fits {
        return Err("trampolines built for another set of types".into());
    }
    let lsig = runtime_sig();
    let mut syms = [FuncId::from_u32(0); 3];
    for (s, name) in syms.iter_mut().zip(SYMBOLS) {
        *s = jit
            .declare_function(name, Linkage::Import, &lsig)
            .map_err(|e| e.to_string())?;
    }
    place(jit, &syms, built.pieces)
}

/// Define `pieces` in `jit`, one after the other (each at its alignment) in
/// one piece of code, and sort them into a [`Set`].
fn place(jit: &mut JITModule, syms: &[FuncId; 3], pieces: Vec<Piece>) -> Result<Set, String> {
    // The relocations' targets, by `UserExternalNameRef` = index in SYMBOLS.
    let mut names = ir::Function::new();
    for s in syms {
        names.declare_imported_user_function(UserExternalName::new(0, s.as_u32()));
    }
    let mut code: Vec<u8> = Vec::new();
    let mut relocs: Vec<FinalizedMachReloc> = Vec::new();
    let mut alignment = 1;
    let mut tramps = Vec::new();
    let mut lazy = Vec::new();
    let mut clock = None;
    let mut host = None;
    for p in pieces {
        alignment = alignment.max(p.alignment);
        // (int3 between pieces: never run.)
        code.resize(
            code.len().next_multiple_of(p.alignment.max(1) as usize),
            0xcc,
        );
        let at = code.len();
        code.extend_from_slice(&p.code);
        for &(offset, kind, addend, s) in &p.relocs {
            relocs.push(FinalizedMachReloc {
                offset: offset + at as u32,
                kind,
                target: FinalizedRelocTarget::ExternalName(ExternalName::User(
                    UserExternalNameRef::new(s as usize),
                )),
                addend,
            });
        }
        let c = (at, p.code.len(), p.traps);
        match p.kind {
            Kind::Clock => clock = Some(c),
            Kind::Host => host = Some(c),
            Kind::Entry => {
                let h = host
                    .take()
                    .ok_or("entry trampoline before its host trampoline")?;
                tramps.push((h, (at, 0, Vec::new())));
            }
            Kind::Lazy => lazy.push(c),
        }
    }
    let id = jit
        .declare_function(
            "wizeng_trampolines",
            Linkage::Local,
            &Signature::new(CallConv::SystemV),
        )
        .map_err(|e| e.to_string())?;
    jit.define_function_bytes(id, &names, alignment, &code, &relocs)
        .map_err(|e| format!("trampolines: {e:?}"))?;
    Ok(Set {
        code: id,
        tramps,
        lazy,
        clock,
    })
}

fn name(kind: Kind, ti: u32) -> String {
    match kind {
        Kind::Host => format!("{HOST_CALL}_tramp{ti}"),
        Kind::Entry => format!("entry_tramp{ti}"),
        Kind::Lazy => format!("{LAZY_CALL}_tramp{ti}"),
        Kind::Clock => format!("{CLOCK_CALL}_tramp{ti}"),
    }
}

/// A host trampoline or stub has the Wasm signature of its type; an entry
/// trampoline is `extern "C" fn(code, callee_vmctx, caller_vmctx, args_ptr)`.
fn signature(kind: Kind, ty: &FuncType) -> Signature {
    match kind {
        Kind::Entry => {
            let mut sig = Signature::new(CallConv::SystemV);
            sig.params.extend([AbiParam::new(I64); 4]);
            sig
        }
        _ => wasm_sig(ty),
    }
}

/// Compile one trampoline into a [`Piece`]. The runtime function it calls
/// is named by its index in [`SYMBOLS`], which its relocation keeps.
fn build(
    isa: &dyn TargetIsa,
    ctx: &mut Context,
    lsig: &Signature,
    ty: &FuncType,
    kind: Kind,
    ti: u32,
) -> Result<Piece, String> {
    ctx.clear();
    let target = kind.target().map(u32::from);
    ctx.func = ir::Function::with_name_signature(
        UserFuncName::user(if target.is_some() { 2 } else { 3 }, ti),
        signature(kind, ty),
    );
    match target {
        Some(t) => {
            // As a JIT module declares an imported function in a function.
            let signature = ctx.func.import_signature(lsig.clone());
            let name = ctx
                .func
                .declare_imported_user_function(UserExternalName::new(0, t));
            let callee = ctx.func.import_function(ir::ExtFuncData {
                name: ExternalName::user(name),
                signature,
                colocated: false,
            });
            host_trampoline(&mut ctx.func, ty, lsig.clone(), callee);
        }
        None => entry_trampoline(&mut ctx.func, ty),
    }
    let err = |e: String| format!("trampoline {}: {e}", name(kind, ti));
    ctx.compile(isa, &mut Default::default())
        .map_err(|e| err(format!("{:?}", e.inner)))?;
    let cc = ctx.compiled_code().expect("compiled above");
    let mut relocs = Vec::new();
    for r in cc.buffer.relocs() {
        let s = match &r.target {
            FinalizedRelocTarget::ExternalName(ExternalName::User(u)) => {
                let n = &ctx.func.params.user_named_funcs()[*u];
                (n.namespace == 0 && (n.index as usize) < SYMBOLS.len()).then_some(n.index)
            }
            _ => None,
        };
        let s = s.ok_or_else(|| err("relocation to an unknown target".into()))?;
        relocs.push((r.offset, r.kind, r.addend, s as u8));
    }
    Ok(Piece {
        kind,
        ti,
        alignment: cc.buffer.alignment as u64,
        code: cc.code_buffer().to_vec(),
        relocs,
        traps: cc
            .buffer
            .traps()
            .iter()
            .map(|t| (t.offset, t.code))
            .collect(),
    })
}

/// A trampoline's single block, entered and sealed: its values are the
/// function's parameters.
fn only_block(b: &mut FunctionBuilder) -> Vec<ir::Value> {
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    b.block_params(block).to_vec()
}

/// `(hostctx, caller_vmctx, params...) -> results` (tail): spill the params,
/// call `target(hostctx, caller_vmctx, buffer)`, trap if it returned nonzero,
/// reload the results.
fn host_trampoline(func: &mut ir::Function, ty: &FuncType, lsig: Signature, target: ir::FuncRef) {
    let mut fbc = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(func, &mut fbc);
    let params = only_block(&mut b);
    let slot = b.create_sized_stack_slot(ir::StackSlotData::new(
        ir::StackSlotKind::ExplicitSlot,
        (buffer_slots(ty) * 8) as u32,
        4,
    ));
    for (p, off) in params[2..].iter().zip(slot_offsets(&ty.params)) {
        b.ins().stack_store(*p, slot, off);
    }
    let buf = b.ins().stack_addr(I64, slot, 0);
    let lsig = b.import_signature(lsig);
    let callee = b.ins().func_addr(I64, target);
    let call = b
        .ins()
        .call_indirect(lsig, callee, &[params[0], params[1], buf]);
    let st = b.inst_results(call)[0];
    b.ins().trapnz(st, env::TRAP_HOST);
    let mut rets = Vec::new();
    for (t, off) in ty.results.iter().zip(slot_offsets(&ty.results)) {
        rets.push(b.ins().stack_load(clif_type(*t), slot, off));
    }
    b.ins().return_(&rets);
    b.finalize();
}

/// `extern "C" fn(code, callee_vmctx, caller_vmctx, args_ptr)`: load params
/// from the buffer, call the Wasm function, store its results.
fn entry_trampoline(func: &mut ir::Function, ty: &FuncType) {
    let mut fbc = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(func, &mut fbc);
    let p = only_block(&mut b);
    let (code, cvmctx, caller, buf) = (p[0], p[1], p[2], p[3]);
    let mut args = vec![cvmctx, caller];
    // The buffer is 8-byte aligned: not `trusted()` (which says aligned) for a v128.
    let flags = MemFlags::new().with_notrap();
    for (t, off) in ty.params.iter().zip(slot_offsets(&ty.params)) {
        args.push(b.ins().load(clif_type(*t), flags, buf, off));
    }
    let wsig = b.import_signature(wasm_sig(ty));
    let call = b.ins().call_indirect(wsig, code, &args);
    let results = b.inst_results(call).to_vec();
    for (r, off) in results.iter().zip(slot_offsets(&ty.results)) {
        b.ins().store(flags, *r, buf, off);
    }
    b.ins().return_(&[]);
    b.finalize();
}

/// Slots of the argument/result buffer of a trampoline for `ty`: values in
/// their slots (see [`ValType::slots`]), params and results overlapping.
pub(crate) fn buffer_slots(ty: &FuncType) -> usize {
    slot_count(&ty.params).max(slot_count(&ty.results)).max(1)
}

/// Byte offsets of values of types `tys` laid out in slots.
fn slot_offsets(tys: &[ValType]) -> Vec<i32> {
    let mut at = 0;
    tys.iter()
        .map(|t| {
            at += t.slots() as i32 * 8;
            at - t.slots() as i32 * 8
        })
        .collect()
}

/// FNV-1a of `bytes`, at compile time.
const fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h = (h ^ bytes[i] as u64).wrapping_mul(0x100_0000_01b3);
        i += 1;
    }
    h
}

/// The generator's identity: the code that builds trampolines and the
/// signatures it gives them.
const GENERATOR: u64 = fnv(
    fnv(0xcbf2_9ce4_8422_2325, include_bytes!("tramps.rs")),
    include_bytes!("env.rs"),
);

/// The target's description (triple, shared and ISA flags), once per process.
pub(super) fn isa_description(isa: &dyn TargetIsa) -> &'static str {
    static DESC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DESC.get_or_init(|| {
        let flags: Vec<String> = isa.isa_flags().iter().map(|v| v.to_string()).collect();
        format!("{}\n{}\n{}", isa.triple(), isa.flags(), flags.join(","))
    })
}

/// The cache key of a module's set.
fn key(types: &[FuncType], lazy: bool, isa: &dyn TargetIsa) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(b"wizeng trampolines\0");
    h.update(GENERATOR.to_le_bytes());
    h.update(env!("WIZENG_CRANELIFT_VERSION"));
    h.update(isa_description(isa));
    h.update([lazy as u8]);
    for t in types {
        h.update(format!("{:?}->{:?};", t.params, t.results));
    }
    h.finalize().to_vec()
}

/// Relocation kinds a trampoline may have (others cannot be cached).
pub(super) const RELOCS: [Reloc; 6] = [
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::X86GOTPCRel4,
];

/// The cache entry of `pieces`.
fn encode(pieces: &[Piece]) -> Vec<u8> {
    let mut out = Vec::new();
    let u32s = |out: &mut Vec<u8>, v: u32| out.extend(v.to_le_bytes());
    u32s(&mut out, pieces.len() as u32);
    for p in pieces {
        out.push(p.kind as u8);
        u32s(&mut out, p.ti);
        out.extend(p.alignment.to_le_bytes());
        u32s(&mut out, p.code.len() as u32);
        out.extend(&p.code);
        u32s(&mut out, p.relocs.len() as u32);
        for &(offset, kind, addend, s) in &p.relocs {
            u32s(&mut out, offset);
            // (Kinds outside RELOCS never get here: `build` would have
            // produced them only for an ISA this engine does not target.)
            out.push(RELOCS.iter().position(|k| *k == kind).unwrap_or(255) as u8);
            out.extend(addend.to_le_bytes());
            out.push(s);
        }
        u32s(&mut out, p.traps.len() as u32);
        for (offset, code) in &p.traps {
            u32s(&mut out, *offset);
            let s = code.to_string();
            out.push(s.len() as u8);
            out.extend(s.as_bytes());
        }
    }
    out
}

/// A reader over an entry's bytes; every read checks the length.
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let (a, b) = self.0.split_at_checked(n)?;
        self.0 = b;
        Some(a)
    }
    pub(super) fn u8(&mut self) -> Option<u8> {
        Some(self.bytes(1)?[0])
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
}

/// The pieces of a cache entry, if it decodes to exactly `plan`.
fn decode(bytes: &[u8], plan: &[(Kind, u32)]) -> Option<Vec<Piece>> {
    let mut r = Reader(bytes);
    if r.u32()? as usize != plan.len() {
        return None;
    }
    let mut out = Vec::with_capacity(plan.len());
    for &(kind, ti) in plan {
        if r.u8()? != kind as u8 || r.u32()? != ti {
            return None;
        }
        let alignment = r.u64()?;
        let n = r.u32()? as usize;
        let code = r.bytes(n)?.to_vec();
        let mut relocs = Vec::new();
        for _ in 0..r.u32()? {
            let offset = r.u32()?;
            let kind = *RELOCS.get(r.u8()? as usize)?;
            let addend = r.u64()? as i64;
            let s = r.u8()?;
            let width = if kind == Reloc::Abs8 { 8 } else { 4 };
            if s as usize >= SYMBOLS.len() || offset as usize + width > code.len() {
                return None;
            }
            relocs.push((offset, kind, addend, s));
        }
        let mut traps = Vec::new();
        for _ in 0..r.u32()? {
            let offset = r.u32()?;
            let len = r.u8()? as usize;
            let code = std::str::from_utf8(r.bytes(len)?).ok()?.parse().ok()?;
            traps.push((offset, code));
        }
        let aligned = alignment.is_power_of_two() && alignment <= 4096;
        if !aligned {
            return None;
        }
        out.push(Piece {
            kind,
            ti,
            alignment,
            code,
            relocs,
            traps,
        });
    }
    r.0.is_empty().then_some(out)
}

/// The cached set for `key`, if there is a sound one for `plan`.
fn load(c: &CodeCache, key: &[u8], plan: &[(Kind, u32)]) -> Option<Vec<Piece>> {
    let store = cache::Store(c);
    let bytes = store.get(key)?;
    let pieces = decode(&bytes, plan);
    if pieces.is_none() {
        c.rejected
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> Vec<FuncType> {
        let t = |p: &[ValType], r: &[ValType]| FuncType {
            params: p.to_vec().into(),
            results: r.to_vec().into(),
        };
        vec![
            t(&[ValType::I32, ValType::F64], &[ValType::I32]),
            t(&[], &[ValType::I64]),
            t(
                &[ValType::V128, ValType::I64],
                &[ValType::F32, ValType::V128],
            ),
        ]
    }

    fn build_set(lazy: bool) -> Vec<Piece> {
        let isa = super::super::isa().unwrap();
        pieces(&types(), lazy, &*isa, None).unwrap().pieces
    }

    #[test]
    fn a_set_round_trips_through_its_entry() {
        let pieces = build_set(true);
        // Clock, then host/entry/lazy per type.
        assert_eq!(pieces.len(), 10);
        assert!(pieces.iter().any(|p| p.kind == Kind::Clock && p.ti == 1));
        assert!(pieces
            .iter()
            .filter(|p| p.kind != Kind::Entry)
            .all(|p| p.relocs.len() == 1 && p.traps.len() == 1));
        let bytes = encode(&pieces);
        assert_eq!(decode(&bytes, &plan(&types(), true)), Some(pieces));
    }

    #[test]
    fn copied_trampolines_are_the_ones_a_compile_gives() {
        // Types 0 and 3 have one signature: type 3's pieces are copies, as
        // are every type's lazy stub and the clock trampoline.
        let mut t = types();
        t.push(t[0].clone());
        let plan = plan(&t, true);
        let copied = build_plan(&t, &plan).unwrap();
        let isa = tramp_isa().unwrap();
        let mut ctx = Context::new();
        for (p, &(kind, ti)) in copied.iter().zip(&plan) {
            let fresh = build(&*isa, &mut ctx, &runtime_sig(), &t[ti as usize], kind, ti);
            assert_eq!(p, &fresh.unwrap(), "{kind:?} of type {ti}");
        }
    }

    #[test]
    fn an_entry_for_another_plan_or_cut_short_is_refused() {
        let bytes = encode(&build_set(false));
        let types = types();
        assert!(decode(&bytes, &plan(&types, false)).is_some());
        assert!(decode(&bytes, &plan(&types, true)).is_none());
        assert!(decode(&bytes, &plan(&types[..2], false)).is_none());
        for n in [0, 1, 4, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                decode(&bytes[..n], &plan(&types, false)).is_none(),
                "cut at {n}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, &plan(&types, false)).is_none());
    }

    #[test]
    fn the_key_depends_on_types_and_kinds() {
        let isa = super::super::isa().unwrap();
        let t = types();
        assert_eq!(key(&t, true, &*isa), key(&t, true, &*isa));
        assert_ne!(key(&t, true, &*isa), key(&t, false, &*isa));
        assert_ne!(key(&t, true, &*isa), key(&t[..2], true, &*isa));
    }
}
