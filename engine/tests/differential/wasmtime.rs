//! The same generated modules on Wasmtime, in-process: Wasmtime 25 is the
//! release built on the Cranelift (0.112) and wasmparser (0.217) we use, so it
//! accepts exactly the modules our loader accepts, and its runtime (traps,
//! instantiation, host calls, bulk memory, tables) is an implementation
//! independent of ours. Our interpreter is compared with it; the tiers are
//! compared with each other by `harness::check_wasm`.
//!
//! What is compared: instantiation (success or trap kind), every exported
//! function's result or trap kind over the same two rounds of arguments as
//! `harness::run_tier`, the host calls made, every memory's bytes, every
//! global's value, and every table's length and which slots are null. Not
//! compared: trap sites (Wasmtime reports no Wasm pc here), which function a
//! non-null reference names (its identity is store-specific), and anything
//! after a call exhausted either engine's stack (their limits differ).

use std::sync::{Arc, Mutex};

use wasmtime::{
    AsContext, AsContextMut, Config, Engine, Extern, ExternRef, ExternType, Func, Global, Instance,
    Memory, Module, Ref, Store, Table, Trap, Val, ValType,
};
use wizeng::{ExternKind, FuncAddr, TrapKind, Value};

use crate::harness::{self, Run};

/// Name of the export added for the fuel global, so that it can be reset before
/// each call as `run_tier` does.
pub const FUEL_EXPORT: &str = "__wizeng_fuel";

/// Why a module's comparison stopped early without being a mismatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partial {
    /// A function (or memory, table, global) is neither imported nor exported,
    /// so Wasmtime's side cannot name it.
    Unnamed,
    /// A call exhausted one engine's stack: the two limits differ.
    StackExhausted,
    /// Wasmtime 25 does not support a feature the module uses (a 64-bit
    /// table), or its GC heap had no room for the externrefs made for it.
    Unsupported,
}

/// `wasm` with every function, table, memory and global exported that was
/// not (wasm-smith leaves globals out): the fuel global `fuel` as
/// [`FUEL_EXPORT`], the others as `__wizeng_<kind>_<index>`, so that
/// Wasmtime's side can name every item our store shows.
pub fn export_all(wasm: &[u8], fuel: u32) -> Vec<u8> {
    use wasm_encoder::{ExportKind, ExportSection, RawSection};
    use wasmparser::{Parser, Payload, TypeRef};
    // Section order: where the export section goes among the others (the
    // tag section, 13, comes before globals; data count, 12, before code).
    let rank = |id: u8| match id {
        13 => 55,
        12 => 95,
        id => id as u32 * 10,
    };
    const KINDS: [ExportKind; 4] = [
        ExportKind::Func,
        ExportKind::Table,
        ExportKind::Memory,
        ExportKind::Global,
    ];
    let slot = |k: ExportKind| KINDS.iter().position(|&x| x == k);
    let mut counts = [0u32; 4];
    let mut exported: [std::collections::HashSet<u32>; 4] = Default::default();
    let mut existing = ExportSection::new();
    let mut out = wasm_encoder::Module::new();
    let mut added = false;
    let add = |out: &mut wasm_encoder::Module,
               existing: &mut ExportSection,
               counts: &[u32; 4],
               exported: &[std::collections::HashSet<u32>; 4]| {
        for (k, kind) in KINDS.iter().enumerate() {
            for i in (0..counts[k]).filter(|i| !exported[k].contains(i)) {
                let name = if *kind == ExportKind::Global && i == fuel {
                    FUEL_EXPORT.to_string()
                } else {
                    format!("__wizeng_{kind:?}_{i}")
                };
                existing.export(&name, *kind, i);
            }
        }
        out.section(&*existing);
    };
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload.expect("a generated module parses");
        match &payload {
            Payload::ImportSection(r) => {
                for imp in r.clone() {
                    let k = match imp.expect("import").ty {
                        TypeRef::Func(_) => 0,
                        TypeRef::Table(_) => 1,
                        TypeRef::Memory(_) => 2,
                        TypeRef::Global(_) => 3,
                        TypeRef::Tag(_) => continue,
                    };
                    counts[k] += 1;
                }
            }
            Payload::FunctionSection(r) => counts[0] += r.count(),
            Payload::TableSection(r) => counts[1] += r.count(),
            Payload::MemorySection(r) => counts[2] += r.count(),
            Payload::GlobalSection(r) => counts[3] += r.count(),
            Payload::ExportSection(r) => {
                for e in r.clone() {
                    let e = e.expect("export");
                    let kind = ExportKind::from(e.kind);
                    if let Some(k) = slot(kind) {
                        exported[k].insert(e.index);
                    }
                    existing.export(e.name, kind, e.index);
                }
                continue;
            }
            _ => {}
        }
        let Some((id, range)) = payload.as_section() else {
            continue;
        };
        if !added && id != 0 && rank(id) > rank(7) {
            add(&mut out, &mut existing, &counts, &exported);
            added = true;
        }
        out.section(&RawSection {
            id,
            data: &wasm[range],
        });
    }
    if !added {
        add(&mut out, &mut existing, &counts, &exported);
    }
    out.finish()
}

/// The Wasmtime configuration matching `harness::smith_config` and our tiers.
pub fn engine() -> Engine {
    let mut c = Config::new();
    c.wasm_simd(true)
        .wasm_relaxed_simd(true)
        .relaxed_simd_deterministic(true)
        .wasm_tail_call(true)
        .wasm_multi_memory(true)
        .wasm_memory64(true)
        .wasm_bulk_memory(true)
        .wasm_multi_value(true)
        .max_wasm_stack(2 << 20);
    Engine::new(&c).expect("Wasmtime configuration")
}

/// Our value for a Wasmtime value: references keep only what both sides can
/// name (null or not; an externref's payload), as [`normalise`] does.
fn ours(store: impl AsContext, v: &Val) -> Value {
    match v {
        Val::I32(x) => Value::I32(*x),
        Val::I64(x) => Value::I64(*x),
        Val::F32(x) => Value::F32(*x),
        Val::F64(x) => Value::F64(*x),
        Val::V128(x) => Value::V128(x.as_u128()),
        Val::FuncRef(f) => Value::FuncRef(f.map(|_| FuncAddr(0))),
        Val::ExternRef(e) => Value::ExternRef(e.map(|e| {
            e.data(&store)
                .ok()
                .and_then(|d| d.downcast_ref::<u32>().copied())
                .unwrap_or(u32::MAX)
        })),
        Val::AnyRef(_) => panic!("anyref: GC is off in this comparison"),
    }
}

/// A value of ours with function references reduced to null or not.
pub fn normalise(v: &Value) -> Value {
    match v {
        Value::FuncRef(f) => Value::FuncRef(f.map(|_| FuncAddr(0))),
        v => *v,
    }
}

/// Wasmtime's value for one of ours; a function reference `FuncAddr(i)`
/// names function index `i` (see `args`).
fn theirs(mut store: impl AsContextMut, v: &Value, funcs: &[Option<Func>]) -> Val {
    match v {
        Value::I32(x) => Val::I32(*x),
        Value::I64(x) => Val::I64(*x),
        Value::F32(x) => Val::F32(*x),
        Value::F64(x) => Val::F64(*x),
        Value::V128(x) => Val::V128((*x).into()),
        Value::FuncRef(f) => Val::FuncRef(f.and_then(|a| funcs[a.0 as usize])),
        Value::ExternRef(e) => Val::ExternRef(e.map(|k| {
            // Wasmtime's GC heap fills up with the arguments of earlier calls:
            // collect once before giving up.
            ExternRef::new(&mut store, k)
                .or_else(|_| {
                    store.as_context_mut().gc();
                    ExternRef::new(&mut store, k)
                })
                .expect("externref")
        })),
        other => panic!("{other:?}: not generated in this comparison"),
    }
}

fn our_type(t: &ValType) -> wizeng::ValType {
    match t {
        ValType::I32 => wizeng::ValType::I32,
        ValType::I64 => wizeng::ValType::I64,
        ValType::F32 => wizeng::ValType::F32,
        ValType::F64 => wizeng::ValType::F64,
        ValType::V128 => wizeng::ValType::V128,
        ValType::Ref(r) if r.heap_type().is_func() => wizeng::ValType::FuncRef,
        ValType::Ref(_) => wizeng::ValType::ExternRef,
    }
}

/// Our trap kind for Wasmtime's, in the coarser classes both report.
fn kind_of(e: &wasmtime::Error) -> TrapKind {
    match e.downcast_ref::<Trap>() {
        Some(Trap::StackOverflow) => TrapKind::CallStackExhausted,
        Some(Trap::MemoryOutOfBounds) => TrapKind::MemoryOutOfBounds,
        Some(Trap::HeapMisaligned) => TrapKind::UnalignedAtomic,
        Some(Trap::TableOutOfBounds) => TrapKind::TableOutOfBounds,
        Some(Trap::IndirectCallToNull) => TrapKind::UninitializedElement,
        Some(Trap::BadSignature) => TrapKind::IndirectCallTypeMismatch,
        Some(Trap::IntegerOverflow) => TrapKind::IntegerOverflow,
        Some(Trap::IntegerDivisionByZero) => TrapKind::IntegerDivideByZero,
        Some(Trap::BadConversionToInteger) => TrapKind::InvalidConversionToInteger,
        Some(Trap::UnreachableCodeReached) => TrapKind::Unreachable,
        Some(Trap::NullReference) => TrapKind::NullReference,
        _ => TrapKind::Host(format!("{e:#}")),
    }
}

/// Our trap kind in the classes [`kind_of`] gives: Wasmtime reports an index
/// past a table's end as a table access out of bounds, and a null function
/// reference as a null reference.
pub fn class(k: &TrapKind) -> TrapKind {
    match k {
        TrapKind::UndefinedElement => TrapKind::TableOutOfBounds,
        TrapKind::NullFunctionReference => TrapKind::NullReference,
        k => k.clone(),
    }
}

/// Host calls made: (import index, arguments).
type Log = Arc<Mutex<Vec<(usize, Vec<Value>)>>>;

/// The imports `harness::run_tier` gives, made in Wasmtime.
fn imports(store: &mut Store<Log>, module: &Module) -> Vec<Extern> {
    let mut out = Vec::new();
    for (i, imp) in module.imports().enumerate() {
        let ext: Extern = match imp.ty() {
            ExternType::Func(ty) => {
                let results: Vec<wizeng::ValType> = ty.results().map(|t| our_type(&t)).collect();
                Func::new(&mut *store, ty, move |mut caller, args, rets| {
                    let args: Vec<Value> = args.iter().map(|a| ours(&caller, a)).collect();
                    caller.data().lock().unwrap().push((i, args));
                    for (k, r) in rets.iter_mut().enumerate() {
                        let v = harness::host_value(results[k], i + k);
                        *r = theirs(&mut caller, &v, &[]);
                    }
                    Ok(())
                })
                .into()
            }
            ExternType::Memory(ty) => Memory::new(&mut *store, ty).expect("memory").into(),
            ExternType::Table(ty) => {
                let null = Ref::null(ty.element().heap_type());
                Table::new(&mut *store, ty, null).expect("table").into()
            }
            ExternType::Global(ty) => {
                let v = harness::host_value(our_type(ty.content()), i);
                let v = theirs(&mut *store, &v, &[]);
                Global::new(&mut *store, ty, v).expect("global").into()
            }
        };
        out.push(ext);
    }
    out
}

/// What one engine showed of a module: [`Run`]'s observations in the classes
/// both engines report (trap kinds by [`class`], references by [`normalise`],
/// tables as which slots are null).
#[derive(Debug, Default)]
pub struct Seen {
    pub instantiate: Option<Result<(), TrapKind>>,
    pub calls: Vec<(String, Result<Vec<Value>, TrapKind>)>,
    pub host_calls: Vec<(usize, Vec<Value>)>,
    pub memories: Vec<Vec<u8>>,
    pub globals: Vec<Value>,
    pub tables: Vec<Vec<bool>>,
}

/// What our run showed.
pub fn seen_ours(run: &Run) -> Seen {
    let values = |v: &[Value]| v.iter().map(normalise).collect::<Vec<_>>();
    Seen {
        instantiate: run
            .instantiate
            .as_ref()
            .map(|r| r.as_ref().map(|_| ()).map_err(|t| class(&t.kind))),
        calls: run
            .calls
            .iter()
            .map(|(n, r)| {
                let r = r.as_ref().map(|v| values(v)).map_err(|t| class(&t.kind));
                (n.clone(), r)
            })
            .collect(),
        host_calls: run
            .host_calls
            .iter()
            .map(|(i, a)| (*i, values(a)))
            .collect(),
        memories: run.memories.clone(),
        globals: values(&run.globals),
        tables: run
            .tables
            .iter()
            .map(|t| t.iter().map(|&e| e == 0).collect())
            .collect(),
    }
}

/// The instance's function, memory, table or global number `index` of
/// `kind`: an import (`imported` of that kind, in order) or an export.
fn item(
    module: &wizeng::Module,
    imported: &[Extern],
    kind: ExternKind,
    index: u32,
    store: &mut Store<Log>,
    inst: &Instance,
) -> Result<Extern, Partial> {
    if let Some(e) = imported.get(index as usize) {
        return Ok(e.clone());
    }
    let e = module
        .exports
        .iter()
        .find(|e| e.kind == kind && e.index == index)
        .ok_or(Partial::Unnamed)?;
    inst.get_export(&mut *store, &e.name)
        .ok_or(Partial::Unnamed)
}

/// Run `module` (its bytes `wasm`, with the fuel export) on Wasmtime as
/// `harness::run_tier` runs it on ours. `counts`: how many functions,
/// memories, tables and globals the instance has (from our run). With a
/// [`Partial`], what was seen before the comparison had to stop.
pub fn run(
    engine: &Engine,
    wasm: &[u8],
    module: &wizeng::Module,
    counts: [usize; 4],
) -> (Seen, Option<Partial>) {
    let m = match Module::new(engine, wasm) {
        Ok(m) => m,
        Err(e) if format!("{e:?}").contains("Unsupported feature") => {
            return (Seen::default(), Some(Partial::Unsupported))
        }
        Err(e) => panic!("Wasmtime does not load a module our loader loads: {e:?}"),
    };
    let mut store = Store::new(engine, Log::default());
    let ext = imports(&mut store, &m);
    let of =
        |pick: fn(&Extern) -> bool| ext.iter().filter(|e| pick(e)).cloned().collect::<Vec<_>>();
    let imported = [
        of(|e| matches!(e, Extern::Func(_))),
        of(|e| matches!(e, Extern::Memory(_))),
        of(|e| matches!(e, Extern::Table(_))),
        of(|e| matches!(e, Extern::Global(_))),
    ];
    let mut seen = Seen::default();
    let inst = match Instance::new(&mut store, &m, &ext) {
        Ok(i) => i,
        Err(e) => {
            seen.instantiate = Some(Err(kind_of(&e)));
            seen.host_calls = store.data().lock().unwrap().clone();
            return (seen, None);
        }
    };
    seen.instantiate = Some(Ok(()));
    let kinds = [
        ExternKind::Func,
        ExternKind::Memory,
        ExternKind::Table,
        ExternKind::Global,
    ];
    let mut items: [Vec<Extern>; 4] = Default::default();
    for (k, kind) in kinds.iter().enumerate() {
        for i in 0..counts[k] {
            match item(module, &imported[k], *kind, i as u32, &mut store, &inst) {
                Ok(e) => items[k].push(e),
                Err(p) => {
                    if std::env::var_os("WT_VERBOSE").is_some() {
                        eprintln!(
                            "unnamed {kind:?} {i} of {:?}; module: {} imported globals, {} defined, exports {:?}",
                            counts,
                            module.num_imported_globals,
                            module.globals.len(),
                            module.exports.iter().map(|e| (e.kind, e.index)).collect::<Vec<_>>()
                        );
                    }
                    return (seen, Some(p));
                }
            }
        }
    }
    let funcs: Vec<Option<Func>> = items[0].iter().map(|e| e.clone().into_func()).collect();
    let stopped = calls(&mut store, &inst, module, &funcs, &mut seen).err();
    seen.host_calls = store.data().lock().unwrap().clone();
    if stopped.is_some() {
        return (seen, stopped);
    }
    for e in &items[1] {
        let mem = e.clone().into_memory().expect("memory");
        seen.memories.push(mem.data(&store).to_vec());
    }
    for e in &items[2] {
        let t = e.clone().into_table().expect("table");
        let nulls = (0..t.size(&store))
            .map(|i| t.get(&mut store, i).map_or(true, |r| r.is_null()))
            .collect();
        seen.tables.push(nulls);
    }
    for e in &items[3] {
        let v = e.clone().into_global().expect("global").get(&mut store);
        seen.globals.push(ours(&store, &v));
    }
    (seen, None)
}

/// Call every exported function, two rounds, with `run_tier`'s arguments and
/// fuel; stops at a call that exhausted Wasmtime's stack.
fn calls(
    store: &mut Store<Log>,
    inst: &Instance,
    module: &wizeng::Module,
    funcs: &[Option<Func>],
    seen: &mut Seen,
) -> Result<(), Partial> {
    let fuel = inst.get_global(&mut *store, FUEL_EXPORT);
    let addrs: Vec<FuncAddr> = (0..funcs.len() as u32).map(FuncAddr).collect();
    for round in 0..2 {
        for e in module.exports.iter().filter(|e| e.kind == ExternKind::Func) {
            let f = funcs[e.index as usize].expect("exported function");
            // References made for this call (arguments, host results) are
            // unrooted when it ends, so that Wasmtime's GC heap can reuse them.
            let mut scope = wasmtime::RootScope::new(&mut *store);
            let ty = f.ty(&scope);
            let args: Vec<Val> = ty
                .params()
                .enumerate()
                .map(|(k, t)| {
                    let v = harness::arg(our_type(&t), round * 5 + k + e.index as usize, &addrs);
                    theirs(&mut scope, &v, funcs)
                })
                .collect();
            if let Some(g) = fuel {
                g.set(&mut scope, Val::I32(harness::FUEL as i32))
                    .expect("fuel is a mutable i32");
            }
            let mut results = vec![Val::I32(0); ty.results().len()];
            let r = match f.call(&mut scope, &args, &mut results) {
                Ok(()) => Ok(results.iter().map(|v| ours(&scope, v)).collect()),
                Err(e) => Err(kind_of(&e)),
            };
            drop(scope);
            let exhausted = r == Err(TrapKind::CallStackExhausted);
            seen.calls.push((e.name.clone(), r));
            if exhausted {
                return Err(Partial::StackExhausted);
            }
        }
    }
    Ok(())
}

/// Compare instantiation and the calls' results. Err(the first difference).
pub fn compare_calls(ours: &Seen, theirs: &Seen) -> Result<(), String> {
    if ours.instantiate != theirs.instantiate {
        return Err(format!(
            "instantiation: ours {:?}, Wasmtime {:?}",
            ours.instantiate, theirs.instantiate
        ));
    }
    if ours.calls.len() != theirs.calls.len() {
        return Err(format!(
            "{} calls here, {} on Wasmtime",
            ours.calls.len(),
            theirs.calls.len()
        ));
    }
    for (k, ((name, a), (_, b))) in ours.calls.iter().zip(&theirs.calls).enumerate() {
        let same = match (a, b) {
            (Ok(x), Ok(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| harness::same_value(x, y))
            }
            (Err(x), Err(y)) => x == y,
            _ => false,
        };
        if !same {
            return Err(format!("call #{k} `{name}`: ours {a:?}, Wasmtime {b:?}"));
        }
    }
    Ok(())
}

/// Compare everything [`Seen`] holds. Err(the first difference).
pub fn compare(ours: &Seen, theirs: &Seen, canon: bool) -> Result<(), String> {
    compare_calls(ours, theirs)?;
    let same_list = |a: &[Value], b: &[Value]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| harness::same_value(x, y))
    };
    for (n, (a, b)) in ours.host_calls.iter().zip(&theirs.host_calls).enumerate() {
        if a.0 != b.0 || !same_list(&a.1, &b.1) {
            return Err(format!("host call #{n}: ours {a:?}, Wasmtime {b:?}"));
        }
    }
    if ours.host_calls.len() != theirs.host_calls.len() {
        return Err(format!(
            "{} host calls here, {} on Wasmtime",
            ours.host_calls.len(),
            theirs.host_calls.len()
        ));
    }
    if ours.instantiate != Some(Ok(())) {
        // A failed instantiation leaves no instance whose state could be read.
        return Ok(());
    }
    if !same_list(&ours.globals, &theirs.globals) {
        return Err(format!(
            "globals: ours {:?}, Wasmtime {:?}",
            ours.globals, theirs.globals
        ));
    }
    if ours.tables != theirs.tables {
        return Err(format!(
            "tables (true: null): ours {:?}, Wasmtime {:?}",
            ours.tables, theirs.tables
        ));
    }
    harness::compare_memories(
        &ours.memories,
        &theirs.memories,
        canon,
        ["ours", "Wasmtime"],
    )?;
    Ok(())
}

/// What Wasmtime's error says when its GC heap has no room for an externref.
const HEAP_FULL: &str = "failed to allocate `externref`";

/// What comparing one input's module showed.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The input made a module.
    pub module: bool,
    /// Why the comparison stopped early, if it did.
    pub partial: Option<Partial>,
    /// Calls whose results (or traps) were compared, and the traps among them.
    pub calls: u64,
    pub traps: u64,
}

/// Generate the module of fuzzer input `data` ([`generate`]) and compare our
/// interpreter with Wasmtime on it. Err(the first difference).
pub fn check(engine: &Engine, data: &[u8]) -> Result<Outcome, String> {
    let Some((wasm, fuel, canon)) = generate(data) else {
        return Ok(Outcome::default());
    };
    let module = Arc::new(wizeng::Module::new(&wasm).map_err(|e| format!("our loader: {e}"))?);
    let int = harness::run_tier(&module, wizeng::Tier::Int, fuel);
    let mut ours = seen_ours(&int);
    let counts = [
        module.num_funcs() as usize,
        int.memories.len(),
        int.tables.len(),
        int.globals.len(),
    ];
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(engine, &wasm, &module, counts)
    }));
    let (mut theirs, partial) = match ran {
        Ok(r) => r,
        // Wasmtime 25's GC heap ran out of room for the externrefs made for
        // arguments and host results (seed 219,374 with DIFF_PROPOSALS=none):
        // a limit of the harness's use of Wasmtime, not a difference.
        Err(p) if harness::panic_text(&*p).contains(HEAP_FULL) => {
            (Seen::default(), Some(Partial::Unsupported))
        }
        Err(p) => std::panic::resume_unwind(p),
    };
    let mut out = Outcome {
        module: true,
        partial,
        ..Outcome::default()
    };
    if matches!(partial, Some(Partial::Unnamed | Partial::Unsupported)) {
        return Ok(out);
    }
    let exhausted = |s: &Seen| {
        s.calls
            .iter()
            .position(|(_, r)| *r == Err(TrapKind::CallStackExhausted))
    };
    let (a, b) = (exhausted(&ours), exhausted(&theirs));
    if a.is_some() || b.is_some() {
        // Only the calls before either engine ran out of stack.
        let n = a.unwrap_or(usize::MAX).min(b.unwrap_or(usize::MAX));
        ours.calls.truncate(n);
        theirs.calls.truncate(n);
        compare_calls(&ours, &theirs)?;
        out.partial = Some(Partial::StackExhausted);
    } else {
        compare(&ours, &theirs, canon)?;
    }
    out.calls = ours.calls.len() as u64;
    out.traps = ours.calls.iter().filter(|(_, r)| r.is_err()).count() as u64;
    Ok(out)
}

/// Write the module of input `data` (fuel export included) to
/// `dir/wasmtime-seed-N.wasm`, for `replay`.
pub fn save(data: &[u8], dir: &str, seed: u64) {
    if let Some((wasm, _, _)) = generate(data) {
        let _ = std::fs::create_dir_all(dir);
        let _ = std::fs::write(format!("{dir}/wasmtime-seed-{seed}.wasm"), wasm);
    }
}

/// The module of input `data` with its fuel global exported: (wasm, fuel
/// global, canonical NaNs). SIMD and memory64 as the input says; no threads,
/// exceptions or GC (Wasmtime 25 lacks exceptions; GC references cannot be
/// compared across engines here).
fn generate(data: &[u8]) -> Option<(Vec<u8>, u32, bool)> {
    let p = harness::Proposals {
        memory64: harness::proposals_of(data).memory64,
        ..Default::default()
    };
    let (wasm, fuel, canon) = harness::generate_for(data, harness::simd_of(data), p)?;
    Some((export_all(&wasm, fuel), fuel, canon))
}
