//! Compiled Wasm functions cached by their source, not by their IR.
//!
//! Cranelift's incremental cache ([`super::located`]) keys machine code by a
//! hash of the function's IR, so even a hit first translates the body to IR
//! and hashes all of it: on a warm run that is most of what the compiler
//! thread does (commanderkeen: 24 hits, 56 ms), and the memory the IR takes
//! is fresh pages to fault in. The IR is a function of inputs known before
//! translating: the body and where it sits, the rest of the module outside
//! the code section and the data segments' contents,
//! the features it was validated with, the vmctx layout, which functions
//! only the interpreter runs, the kind of compile (one function or the whole
//! module, an OSR entry at which loop) and the function's id, whether
//! accesses are checked explicitly (`WIZENG_BOUNDS_CHECKS`), and the code
//! that translates and compiles it. So this file keys an entry by those (the
//! last one as this executable's identity, the target ISA as its flags),
//! and a hit places the machine code without building any IR.
//!
//! A woven module is keyed the same way: its bytes (probe imports, counter
//! globals, the monitors' memories and globals it imports) and each woven
//! body (inlined monitor code included) are all its code depends on. A
//! lazily woven body is woven to make its key ([`ModuleInfo::body_bytes`],
//! which also sets its provenance, which linking the code reads); the
//! placeholder bodies in the module's bytes are in the code section, which
//! the module's part of the key leaves out. atax + `coverage`, warm: the
//! compiler thread's 5.7M instructions for its one function (4.1M of it
//! building and hashing IR) become a weave and a read.
//!
//! An entry is checked like every cache entry (length and checksum of the
//! file), then decoded as data: every relocation, trap and source location
//! must lie within the code, every relocation name within the names the
//! compile may declare. An entry that fails is counted as damaged and the
//! function is compiled afresh (and its entry rewritten).

use std::sync::{Arc, Mutex, Weak};

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::ir::{self, ExternalName, LibCall, UserExternalName};
use cranelift_codegen::{FinalizedMachReloc, FinalizedRelocTarget};
use cranelift_module::FuncId;
use sha2::{Digest, Sha256};

use super::cache::{self, CodeCache};
use super::tramps::{isa_description, Reader, RELOCS};
use super::{CodegenInput, Done};
use crate::core::module::ModuleInfo;

/// Mixed into every key: a new entry layout gets new keys.
const VERSION: &[u8] = b"wizeng function by source 1\0";

/// What every function of one compile request shares in its key (see the
/// module doc), if its functions can be cached by source: a cache, and an
/// executable whose identity is known.
pub(super) fn request_digest(
    input: &CodegenInput,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
) -> Option<[u8; 32]> {
    let m = &input.module;
    input.cache.as_ref()?;
    let exe = crate::exec::exe_identity()?;
    let mut h = Sha256::new();
    h.update(VERSION);
    h.update((exe.len() as u64).to_le_bytes());
    h.update(exe);
    h.update(isa_description(isa));
    h.update([super::env::explicit_bounds_checks() as u8]);
    h.update(module_digest(m));
    match input.only {
        None => h.update([0]),
        Some(i) => {
            h.update([1]);
            h.update(i.to_le_bytes());
        }
    }
    match &input.osr {
        None => h.update([0]),
        Some((pc, locals)) => {
            h.update([1]);
            h.update(pc.to_le_bytes());
            h.update(format!("{locals:?}"));
        }
    }
    let l = &input.layout;
    for v in [
        l.types,
        l.memories,
        l.memory_bases,
        l.globals,
        l.tables,
        l.funcs,
    ] {
        h.update(v.to_le_bytes());
    }
    h.update((l.size_slots as u64).to_le_bytes());
    h.update(bits(&l.inline_globals));
    h.update(set_bits(&input.interp_only));
    Some(h.finalize().into())
}

/// `flags` as their count and the indices of those set (a single-function
/// compile names at most one interpreted-only function among thousands).
fn set_bits(flags: &[bool]) -> Vec<u8> {
    let mut out = (flags.len() as u64).to_le_bytes().to_vec();
    for (i, _) in flags.iter().enumerate().filter(|(_, &b)| b) {
        out.extend((i as u64).to_le_bytes());
    }
    out
}

/// `flags` as bytes, with their count.
fn bits(flags: &[bool]) -> Vec<u8> {
    let mut out = (flags.len() as u64).to_le_bytes().to_vec();
    out.extend(flags.iter().map(|&b| b as u8));
    out
}

/// The digest of a module's bytes outside its code section and its data
/// segments' contents (compiled code never reads those), and of the features
/// it was validated with, once per module per process.
pub(super) fn module_digest(m: &Arc<ModuleInfo>) -> [u8; 32] {
    type Known = Vec<(Weak<ModuleInfo>, [u8; 32])>;
    static KNOWN: Mutex<Known> = Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    known.retain(|(w, _)| w.strong_count() > 0);
    if let Some((_, d)) = known
        .iter()
        .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(m)))
    {
        return *d;
    }
    let n = m.bytes.len();
    let mut skipped: Vec<std::ops::Range<usize>> =
        m.datas.iter().map(|d| d.range.clone()).collect();
    if let (Some(a), Some(b)) = (m.bodies.first(), m.bodies.last()) {
        skipped.push(a.range.start..b.range.end);
    }
    skipped.sort_by_key(|r| r.start);
    let mut h = Sha256::new();
    h.update((n as u64).to_le_bytes());
    let mut at = 0;
    for r in skipped {
        let (start, end) = (r.start.clamp(at, n), r.end.clamp(at, n));
        h.update(&m.bytes[at..start]);
        // (Where the gap was, so that moving bytes across it changes the key.)
        h.update((start as u64).to_le_bytes());
        at = end.max(start);
    }
    h.update(&m.bytes[at..]);
    h.update(format!("{:?}", m.features));
    let d: [u8; 32] = h.finalize().into();
    known.push((Arc::downgrade(m), d));
    d
}

/// The key of defined function `idx` (compiled as `id`) in a request whose
/// digest is `request`.
pub(super) fn key(request: &[u8; 32], m: &ModuleInfo, idx: u32, id: FuncId) -> Option<Vec<u8>> {
    let body = m.body_bytes(idx).ok()?;
    let h = Sha256::new()
        .chain_update(request)
        .chain_update(idx.to_le_bytes())
        .chain_update(id.as_u32().to_le_bytes())
        .chain_update((m.body(idx).range.start as u64).to_le_bytes())
        .chain_update(body);
    Some(h.finalize().to_vec())
}

/// The cached machine code of function `idx` under `key`, if there is a
/// sound entry; `max_id`: ids the compile declares are below it.
pub(super) fn load(c: &CodeCache, key: &[u8], idx: u32, id: FuncId, max_id: u32) -> Option<Done> {
    use cranelift_codegen::incremental_cache::CacheKvStore;
    let store = cache::Store(c);
    let bytes = store.get(key)?;
    let done = decode(&bytes, idx, id, max_id);
    let counter = match done {
        Some(_) => &c.by_source,
        None => &c.rejected,
    };
    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    done
}

/// Store `done` under `key` (unless it has something an entry cannot hold).
pub(super) fn store(c: &CodeCache, key: &[u8], done: &Done) {
    use cranelift_codegen::incremental_cache::CacheKvStore;
    if let Some(bytes) = encode(done) {
        cache::Store(c).insert(key, bytes);
    }
}

/// A relocation's target in an entry.
const USER: u8 = 0;
const LIBCALL: u8 = 1;
const FUNC: u8 = 2;

/// The entry of `d`: the names its relocations use, its code, relocations,
/// traps and source locations.
fn encode(d: &Done) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(d.code.len() + 64);
    let u32s = |out: &mut Vec<u8>, v: u32| out.extend(v.to_le_bytes());
    let names = d.func.params.user_named_funcs();
    u32s(&mut out, names.len() as u32);
    for (_, n) in names.iter() {
        u32s(&mut out, n.namespace);
        u32s(&mut out, n.index);
    }
    out.extend(d.alignment.to_le_bytes());
    u32s(&mut out, d.code.len() as u32);
    out.extend(&d.code);
    u32s(&mut out, d.relocs.len() as u32);
    for r in &d.relocs {
        u32s(&mut out, r.offset);
        out.push(RELOCS.iter().position(|k| *k == r.kind)? as u8);
        out.extend(r.addend.to_le_bytes());
        match &r.target {
            FinalizedRelocTarget::ExternalName(ExternalName::User(u)) => {
                out.push(USER);
                u32s(&mut out, names.keys().position(|k| k == *u)? as u32);
            }
            FinalizedRelocTarget::ExternalName(ExternalName::LibCall(l)) => {
                let s = l.to_string();
                out.push(LIBCALL);
                out.push(s.len() as u8);
                out.extend(s.as_bytes());
            }
            FinalizedRelocTarget::Func(off) => {
                out.push(FUNC);
                u32s(&mut out, *off);
            }
            FinalizedRelocTarget::ExternalName(_) => return None,
        }
    }
    u32s(&mut out, d.traps.len() as u32);
    for (offset, code) in &d.traps {
        u32s(&mut out, *offset);
        let s = code.to_string();
        out.push(s.len() as u8);
        out.extend(s.as_bytes());
    }
    u32s(&mut out, d.srclocs.len() as u32);
    for &(a, b, l) in &d.srclocs {
        for v in [a, b, l] {
            u32s(&mut out, v);
        }
    }
    Some(out)
}

/// The function an entry holds, if it decodes soundly (see the module doc).
fn decode(bytes: &[u8], idx: u32, id: FuncId, max_id: u32) -> Option<Done> {
    let mut r = Reader(bytes);
    let mut func = ir::Function::new();
    // (Names a relocation may use: namespace 0, a declared function id.
    // Others, such as the imports' namespace 1, are declared and unused.)
    let mut refs = Vec::new();
    for _ in 0..r.u32()? {
        let (namespace, index) = (r.u32()?, r.u32()?);
        let usable = namespace == 0 && index < max_id;
        let name = UserExternalName::new(namespace, index);
        refs.push((func.declare_imported_user_function(name), usable));
    }
    let alignment = r.u64()?;
    if !alignment.is_power_of_two() || alignment > 4096 {
        return None;
    }
    let n = r.u32()? as usize;
    let code = r.bytes(n)?.to_vec();
    let within = |offset: u32, width: usize| offset as usize + width <= code.len();
    let mut relocs = Vec::new();
    for _ in 0..r.u32()? {
        let offset = r.u32()?;
        let kind = *RELOCS.get(r.u8()? as usize)?;
        let addend = r.u64()? as i64;
        let target = match r.u8()? {
            USER => match refs.get(r.u32()? as usize)? {
                &(u, true) => FinalizedRelocTarget::ExternalName(ExternalName::User(u)),
                _ => return None,
            },
            LIBCALL => {
                let len = r.u8()? as usize;
                let l: LibCall = std::str::from_utf8(r.bytes(len)?).ok()?.parse().ok()?;
                FinalizedRelocTarget::ExternalName(ExternalName::LibCall(l))
            }
            FUNC => {
                let off = r.u32()?;
                if !within(off, 0) {
                    return None;
                }
                FinalizedRelocTarget::Func(off)
            }
            _ => return None,
        };
        let width = if kind == Reloc::Abs8 { 8 } else { 4 };
        if !within(offset, width) {
            return None;
        }
        relocs.push(FinalizedMachReloc {
            offset,
            kind,
            target,
            addend,
        });
    }
    let mut traps = Vec::new();
    for _ in 0..r.u32()? {
        let offset = r.u32()?;
        let len = r.u8()? as usize;
        let trap = std::str::from_utf8(r.bytes(len)?).ok()?.parse().ok()?;
        if !within(offset, 0) {
            return None;
        }
        traps.push((offset, trap));
    }
    let mut srclocs = Vec::new();
    for _ in 0..r.u32()? {
        let (a, b, l) = (r.u32()?, r.u32()?, r.u32()?);
        if a > b || !within(b, 0) {
            return None;
        }
        srclocs.push((a, b, l));
    }
    r.0.is_empty().then_some(Done {
        idx,
        id,
        func,
        code,
        alignment,
        relocs,
        traps,
        srclocs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function with every kind of relocation target, a trap and locations.
    fn sample() -> Done {
        let mut func = ir::Function::new();
        let a = func.declare_imported_user_function(UserExternalName::new(0, 3));
        // (An import's name: declared, never a relocation's.)
        func.declare_imported_user_function(UserExternalName::new(1, 70));
        let b = func.declare_imported_user_function(UserExternalName::new(0, 7));
        let reloc = |offset, kind, target| FinalizedMachReloc {
            offset,
            kind,
            target,
            addend: -4,
        };
        Done {
            idx: 5,
            id: FuncId::from_u32(9),
            func,
            code: vec![0x90; 64],
            alignment: 16,
            relocs: vec![
                reloc(
                    4,
                    Reloc::X86CallPCRel4,
                    FinalizedRelocTarget::ExternalName(ExternalName::User(b)),
                ),
                reloc(
                    12,
                    Reloc::Abs8,
                    FinalizedRelocTarget::ExternalName(ExternalName::User(a)),
                ),
                reloc(
                    24,
                    Reloc::X86CallPCRel4,
                    FinalizedRelocTarget::ExternalName(ExternalName::LibCall(LibCall::FloorF64)),
                ),
                reloc(32, Reloc::X86PCRel4, FinalizedRelocTarget::Func(48)),
            ],
            traps: vec![(40, ir::TrapCode::HeapOutOfBounds)],
            srclocs: vec![(0, 8, 100), (8, 64, 104)],
        }
    }

    fn same(a: &Done, b: &Done) -> bool {
        let names = |d: &Done| {
            d.func
                .params
                .user_named_funcs()
                .values()
                .cloned()
                .collect::<Vec<_>>()
        };
        let target = |d: &Done, t: &FinalizedRelocTarget| match t {
            FinalizedRelocTarget::ExternalName(ExternalName::User(u)) => {
                format!("{:?}", d.func.params.user_named_funcs()[*u])
            }
            t => format!("{t:?}"),
        };
        let relocs = |d: &Done| {
            d.relocs
                .iter()
                .map(|r| (r.offset, r.kind, r.addend, target(d, &r.target)))
                .collect::<Vec<_>>()
        };
        (a.idx, a.id, &a.code, a.alignment, &a.traps, &a.srclocs)
            == (b.idx, b.id, &b.code, b.alignment, &b.traps, &b.srclocs)
            && names(a) == names(b)
            && relocs(a) == relocs(b)
    }

    #[test]
    fn an_entry_round_trips() {
        let d = sample();
        let bytes = encode(&d).unwrap();
        let back = decode(&bytes, d.idx, d.id, 10).unwrap();
        assert!(same(&d, &back));
        // Re-encoding the decoded function gives the same entry.
        assert_eq!(encode(&back).unwrap(), bytes);
    }

    #[test]
    fn every_cut_and_out_of_range_name_is_refused() {
        let d = sample();
        let bytes = encode(&d).unwrap();
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], d.idx, d.id, 10).is_none(), "cut at {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, d.idx, d.id, 10).is_none());
        // A name the compile does not declare (id 7 >= 7).
        assert!(decode(&bytes, d.idx, d.id, 7).is_none());
        // Byte flips never panic; those that decode stay within the code.
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x41;
            if let Some(x) = decode(&bad, d.idx, d.id, 10) {
                assert!(x.relocs.iter().all(|r| (r.offset as usize) < x.code.len()));
            }
        }
    }

    #[test]
    fn a_relocation_an_entry_cannot_name_is_not_cached() {
        let mut d = sample();
        d.relocs[0].kind = Reloc::Arm64Call;
        assert!(encode(&d).is_none());
    }
}
