//! Lazy weaving (`weave::weave_lazy`) must give every function the body and
//! provenance eager weaving (`weave::weave`) gives it, and the rest of the
//! module byte for byte, whichever functions are asked for and in which
//! order. Checked on every module of the official test suite (the versions
//! and proposals the spec test runs), of our `.wast` files and of the `.wat`
//! files under `tests/`, with built-in monitors and a monitor whose probes
//! are inlined (operands, nested calls, loops, per-site addresses) or called
//! (they call a host function), with and without block counters.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use wizeng::inline::InlineConfig;
use wizeng::module::Module;
use wizeng::monitor::matcher::{self, MonitorSpec, Monitors};
use wizeng::wasi::WasiCtx;
use wizeng::weave::{self, Plan, Recorder};
use wizeng::{Config, Linker, Store};

/// Probes the weaver inlines (a per-site counter whose address a static
/// call returns, operand probes with a loop and an early return, a nested
/// call) and one it calls (it calls a host function).
const MONITOR: &str = r#"(module
  (import "wizeng" "puti" (func $puti (param i32)))
  (memory (export "memory") 1)
  (global $sum (mut i64) (i64.const 0))
  (global $next (mut i32) (i32.const 64))
  (func (export "slot") (param i32 i32) (result i32)
    (global.set $next (i32.add (global.get $next) (i32.const 8))) (global.get $next))
  (func $bump (param $a i32) (param $by i64)
    (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (local.get $by))))
  (func (export "wasm:opcode:local.get(slot(fid, pc))") (param $a i32)
    (call $bump (local.get $a) (i64.const 1)))
  (func (export "wasm:opcode:i32.rem_u(arg0, arg1)") (param $d i32) (param $n i32) (local $i i32)
    (if (i32.eqz (local.get $d)) (then (return)))
    (loop $l
      (global.set $sum (i64.add (global.get $sum) (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n)))))
  (func (export "wasm:opcode:i32.add(arg0, pc)") (param i32 i32)
    (global.set $sum (i64.add (global.get $sum) (i64.extend_i32_u (local.get 0)))))
  (func (export "wasm:opcode:memory.grow(arg0)") (param i32) (call $puti (local.get 0))))"#;

/// What was compared over all modules.
#[derive(Default, Debug)]
struct Count {
    modules: usize,
    deferred: usize,
    /// Functions the interpreter translated at load in a module it
    /// translates lazily (kept out of the deferred ones).
    eager_kept: usize,
    inlined: u64,
    called: u64,
    counted: u64,
    /// Modules woven again with the counters of their first weave.
    reused: usize,
}

fn load_monitors(store: &mut Store, specs: &[MonitorSpec]) -> Monitors {
    let wasi = Rc::new(RefCell::new(WasiCtx::new()));
    let mut linker = Linker::new();
    wizeng::wasi::add_to_linker(&mut linker, store, wasi.clone());
    matcher::define_wizeng_imports(&mut linker, store, wasi.clone());
    wizeng::frames::define_frame_accessor(&mut linker, store);
    wizeng::dyninstr::define_dyninstr(&mut linker, store);
    Monitors::load(store, specs, &linker, false, None, None).expect("monitors load")
}

fn specs() -> Vec<MonitorSpec> {
    let mut specs: Vec<MonitorSpec> = ["hotness", "branches", "calls"]
        .iter()
        .map(|n| MonitorSpec {
            path: (*n).into(),
            libs: vec![],
            bytes: Some(
                wizeng::monitor::builtin::find(n)
                    .expect("built-in")
                    .wasm
                    .to_vec(),
            ),
            output: None,
        })
        .collect();
    specs.push(MonitorSpec {
        path: "inlined.wat".into(),
        libs: vec![],
        bytes: Some(wat::parse_str(MONITOR).expect("monitor parses")),
        output: None,
    });
    specs
}

/// Match `bytes` against fresh monitors; `None` if it does not load or its
/// probes need the interpreter (nothing is woven then).
fn matched(bytes: &[u8], cfg: &InlineConfig) -> Option<(Store, Module, Plan)> {
    let mut store = Store::new(Config::default());
    let mut mons = load_monitors(&mut store, &specs());
    mons.set_app(bytes);
    let mut m = mons.matcher(&mut store);
    let mut rec = Recorder::new(&mut m);
    let orig = Module::new_matched(bytes, &mut rec).ok()?;
    let plan = rec.into_plan();
    drop(m);
    if plan.is_empty() || plan.frames_need_interpreter(&orig, &store, cfg) {
        return None;
    }
    Some((store, orig, plan))
}

/// The sections of a module but the code section, as raw bytes.
fn other_sections(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    for p in wasmparser::Parser::new(0).parse_all(bytes) {
        let p = p.expect("a woven module parses");
        if matches!(
            p,
            wasmparser::Payload::CodeSectionStart { .. } | wasmparser::Payload::CodeSectionEntry(_)
        ) {
            continue;
        }
        if let Some((id, r)) = p.as_section() {
            out.push((id, bytes[r].to_vec()));
        }
    }
    out
}

fn check(name: &str, bytes: &[u8], cfg: &InlineConfig, count: &mut Count) {
    let Some((store, orig, plan)) = matched(bytes, cfg) else {
        return;
    };
    let eager = weave::weave(&orig, &plan, &store, cfg, false);
    let lazy = weave::weave_lazy(orig.shared_info(), plan, &store, cfg);
    // (Both refuse what the weaver cannot write, e.g. some GC types.)
    let (eager, mut lazy) = match (eager, lazy) {
        (Ok(e), Ok(l)) => (e, l),
        (Err(e), Err(l)) => return assert_eq!(e.message, l.message, "{name}"),
        (e, l) => panic!("{name}: eager {:?}, lazy {:?}", e.err(), l.err()),
    };
    assert_eq!(
        other_sections(&eager.bytes),
        other_sections(&lazy.bytes),
        "{name}: sections"
    );
    assert_eq!(
        format!("{:?}", eager.stats),
        format!("{:?}", lazy.stats),
        "{name}: stats"
    );
    assert_eq!(
        format!("{:?}", eager.counters),
        format!("{:?}", lazy.counters),
        "{name}: block counters"
    );
    assert_eq!(eager.imports, lazy.imports, "{name}: probe imports");
    let em = Module::new(&eager.bytes).unwrap_or_else(|e| panic!("{name}: eager module: {e}"));
    let mut lm = Module::new(&lazy.bytes).unwrap_or_else(|e| panic!("{name}: lazy module: {e}"));
    let deferred = lazy.lazy.as_ref().map_or(0, |l| l.deferred_count());
    if deferred > 0 {
        // The placeholders are never translated: what the session checks.
        assert!(
            wizeng::interp::translated_lazily(&lm),
            "{name}: translated at load"
        );
    }
    // A function translated at load (it might run interpreted-only) is
    // never deferred: the interpreter could not tell from its placeholder.
    for idx in em.num_imported_funcs..em.num_funcs() {
        let d = (idx - em.num_imported_funcs) as usize;
        let deferred = lazy.lazy.as_ref().is_some_and(|l| l.is_deferred(d));
        let at_load = wizeng::interp::translated(&em, idx);
        assert!(
            !(deferred && at_load),
            "{name}: func {idx} is deferred but translated at load"
        );
        count.eager_kept += (at_load && wizeng::interp::translated_lazily(&em)) as usize;
    }
    lm.lazy = lazy.lazy.take();
    lm.origin = Some(std::mem::take(&mut lazy.origin));
    // Made from the last to the first: no body depends on another's.
    for idx in (lm.num_imported_funcs..lm.num_funcs()).rev() {
        let d = (idx - lm.num_imported_funcs) as usize;
        let body = lm
            .body_bytes(idx)
            .unwrap_or_else(|e| panic!("{name}: func {idx}: {e}"));
        assert_eq!(
            em.body_bytes(idx).unwrap(),
            body,
            "{name}: body of func {idx}"
        );
        assert_eq!(lm.body_len(idx), body.len(), "{name}: length of func {idx}");
        assert_eq!(
            eager.origin.of_defined(d),
            lm.origin.as_ref().unwrap().of_defined(d),
            "{name}: provenance of func {idx}"
        );
        // A made body validates where its placeholder was.
        let (func, b) = lm.body_to_validate(idx).unwrap();
        let mut v = func.into_validator(Default::default());
        v.validate(&b)
            .unwrap_or_else(|e| panic!("{name}: func {idx} does not validate: {e}"));
    }
    count.modules += 1;
    count.deferred += deferred;
    count.inlined += eager.stats.inlined;
    count.called += eager.stats.called;
    count.counted += eager.stats.folded;
    check_kept_counters(name, bytes, cfg, eager, &lazy.bytes, count);
}

/// Weaving with the block counters an earlier weave planned (what the
/// match cache keeps) gives the same module, bodies, statistics and
/// counters, and uses them wherever counters are planned at all.
fn check_kept_counters(
    name: &str,
    bytes: &[u8],
    cfg: &InlineConfig,
    eager: weave::Woven,
    lazy_bytes: &[u8],
    count: &mut Count,
) {
    let Some((store, orig, plan)) = matched(bytes, cfg) else {
        panic!("{name}: matches once, not twice");
    };
    let planned = cfg.enabled && cfg.block_counts && orig.start.is_none();
    let kept = weave::weave_lazy_with(orig.shared_info(), plan, &store, cfg, Some(eager.counters))
        .unwrap_or_else(|e| panic!("{name}: with kept counters: {e}"));
    assert_eq!(kept.counters_reused, planned, "{name}: kept counters used");
    count.reused += kept.counters_reused as usize;
    assert_eq!(kept.bytes, lazy_bytes, "{name}: module with kept counters");
    assert_eq!(
        format!("{:?}", eager.stats),
        format!("{:?}", kept.stats),
        "{name}: stats with kept counters"
    );
    let em = Module::new(&eager.bytes).unwrap();
    let mut km = Module::new(&kept.bytes).unwrap();
    km.lazy = kept.lazy;
    km.origin = Some(kept.origin);
    for idx in km.num_imported_funcs..km.num_funcs() {
        assert_eq!(
            em.body_bytes(idx).unwrap(),
            km.body_bytes(idx)
                .unwrap_or_else(|e| panic!("{name}: func {idx}: {e}")),
            "{name}: body of func {idx} with kept counters"
        );
    }
}

#[test]
fn lazily_woven_bodies_are_the_eager_ones() {
    let mut modules = Vec::new();
    for (key, text) in common::suite::upstream_files() {
        common::wast::modules(&key, text, &mut modules);
    }
    common::wast::repo_modules(&mut modules);
    let no_blocks = InlineConfig {
        block_counts: false,
        ..InlineConfig::default()
    };
    for cfg in [InlineConfig::default(), no_blocks] {
        let mut count = Count::default();
        for (name, bytes) in &modules {
            check(name, bytes, &cfg, &mut count);
        }
        eprintln!("block counts {}: {count:?}", cfg.block_counts);
        // The comparison covered deferred bodies, inlined and called
        // probes and counted blocks, not only modules woven eagerly.
        assert!(count.modules > 1000, "{count:?}");
        assert!(count.deferred > 5000 && count.eager_kept > 0, "{count:?}");
        assert!(count.inlined > 0 && count.called > 0, "{count:?}");
        assert_eq!(count.counted > 0, cfg.block_counts, "{count:?}");
        assert_eq!(count.reused > 0, cfg.block_counts, "{count:?}");
    }
}
