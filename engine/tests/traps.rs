//! Traps are values and leak nothing: 10,000 traps in a loop, cycling through
//! several kinds (unreachable, integer divide by zero, out-of-bounds load, call
//! stack exhausted by infinite recursion, call_indirect through a null entry,
//! a failing host function), in the interpreter and in the JIT. Every trap must
//! have the right kind and site (function, pc), identical in both tiers, and
//! the resident set size must stay flat (measured after a warm-up). A second
//! loop creates and drops stores with freshly compiled modules (JIT code, trap
//! registry, code cache) and checks the same.
//!
//! One `#[test]` on purpose: RSS is per process, so nothing else may run beside it.

use std::sync::Arc;

use wizeng::{Config, Extern, FuncType, Module, Store, Tier, Trap, TrapKind, Value};

const WAT: &str = r#"
(module
  (type $t (func (result i32)))
  (import "host" "fail" (func $fail))
  (table 2 funcref)
  (memory 1)
  (func $unreachable (export "unreachable") (param i32) (result i32)
    unreachable)
  (func $div (export "div") (param i32) (result i32)
    i32.const 1
    local.get 0
    i32.div_s)
  (func $oob (export "oob") (param i32) (result i32)
    local.get 0
    i32.load offset=65536)
  (func $recurse (export "recurse") (param i32) (result i32)
    local.get 0
    i32.const 1
    i32.add
    call $recurse)
  (func $null (export "null") (param i32) (result i32)
    local.get 0
    call_indirect (type $t))
  (func $host (export "host") (param i32) (result i32)
    call $fail
    local.get 0)
)
"#;

/// (export, expected kind, function index, pc) — pc counts from the start of
/// the body's local declarations (one byte `0x00` here).
fn cases() -> Vec<(&'static str, TrapKind, u32, u32)> {
    vec![
        ("unreachable", TrapKind::Unreachable, 1, 1),
        ("div", TrapKind::IntegerDivideByZero, 2, 5),
        ("oob", TrapKind::MemoryOutOfBounds, 3, 3),
        ("recurse", TrapKind::CallStackExhausted, 4, 6),
        ("null", TrapKind::UninitializedElement, 5, 3),
        (
            "host",
            TrapKind::Host("host function failed on purpose".into()),
            6,
            1,
        ),
    ]
}

/// Resident set size in bytes.
fn rss() -> usize {
    let s = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = s
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("statm resident");
    // SAFETY: sysconf has no preconditions.
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize
}

fn instantiate(tier: Tier, module: &Arc<Module>) -> (Store, wizeng::InstanceId) {
    // The interpreter's frame limit is lowered so each overflow is quick in a
    // debug build; the JIT's limit is the thread's stack.
    let mut store = Store::new(Config {
        tier,
        max_call_depth: 5_000,
        ..Config::default()
    });
    let fail = store.add_host_func(
        FuncType::new([], []),
        std::rc::Rc::new(|_, _, _| Err(Trap::host("host function failed on purpose"))),
    );
    let id = store
        .instantiate_with(module, &[Extern::Func(fail)])
        .expect("instantiate");
    (store, id)
}

/// Run trap `i` (cycling through the cases) and check its kind and site.
fn trap_once(store: &mut Store, id: wizeng::InstanceId, i: usize, tier: Tier) -> Trap {
    let cases = cases();
    let (name, kind, func, pc) = &cases[i % cases.len()];
    let f = store.export_func(id, name).expect("export");
    let t = store.invoke(f, &[Value::I32(0)]).expect_err("must trap");
    assert_eq!(&t.kind, kind, "{tier:?} {name}: {t}");
    let site = t
        .site
        .as_ref()
        .unwrap_or_else(|| panic!("{tier:?} {name}: no site in `{t}`"));
    // Stack exhaustion: the call that could not be made (the JIT detects it
    // in the callee's prologue and reports the caller's call site).
    assert_eq!((site.func, site.pc), (*func, *pc), "{tier:?} {name}: {t}");
    t
}

fn check_tier(tier: Tier) {
    let module = Arc::new(Module::new(&wat::parse_str(WAT).unwrap()).expect("load"));
    let (mut store, id) = instantiate(tier, &module);
    // The store still works after each kind of trap.
    let ok = store.export_func(id, "div").unwrap();
    for i in 0..cases().len() {
        trap_once(&mut store, id, i, tier);
        assert_eq!(
            store.invoke(ok, &[Value::I32(1)]).unwrap(),
            vec![Value::I32(1)],
            "{tier:?}: call after trap {i}"
        );
    }
    for i in 0..500 {
        trap_once(&mut store, id, i, tier);
    }
    let before = rss();
    let t0 = std::time::Instant::now();
    let n = 10_000;
    for i in 0..n {
        trap_once(&mut store, id, i, tier);
    }
    let after = rss();
    let grew = after as i64 - before as i64;
    eprintln!(
        "traps: {tier:?}: {n} traps in {:.2}s, RSS {} KiB -> {} KiB ({:+} KiB)",
        t0.elapsed().as_secs_f64(),
        before >> 10,
        after >> 10,
        grew >> 10
    );
    assert!(
        grew < 8 << 20,
        "{tier:?}: RSS grew by {} KiB over {n} traps",
        grew >> 10
    );

    // Stores come and go, each with a freshly loaded (so freshly compiled) module.
    let churn = |k: usize| {
        for i in 0..k {
            let m = Arc::new(Module::new(&wat::parse_str(WAT).unwrap()).unwrap());
            let (mut s, id) = instantiate(tier, &m);
            trap_once(&mut s, id, i, tier);
        }
    };
    churn(30);
    let before = rss();
    churn(200);
    let after = rss();
    let grew = after as i64 - before as i64;
    eprintln!(
        "traps: {tier:?}: 200 stores with fresh modules, RSS {} KiB -> {} KiB ({:+} KiB)",
        before >> 10,
        after >> 10,
        grew >> 10
    );
    assert!(
        grew < 8 << 20,
        "{tier:?}: RSS grew by {} KiB over 200 stores",
        grew >> 10
    );
}

#[test]
fn ten_thousand_traps_keep_memory_flat() {
    // A thread with a known, modest stack: JIT recursion runs down to its limit.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            sites_agree_between_tiers();
            check_tier(Tier::Int);
            check_tier(Tier::Jit);
        })
        .unwrap()
        .join()
        .unwrap();
}

fn sites_agree_between_tiers() {
    let module = Arc::new(Module::new(&wat::parse_str(WAT).unwrap()).expect("load"));
    let (mut a, ia) = instantiate(Tier::Int, &module);
    let (mut b, ib) = instantiate(Tier::Jit, &module);
    for (i, c) in cases().iter().enumerate() {
        let (x, y) = (
            trap_once(&mut a, ia, i, Tier::Int),
            trap_once(&mut b, ib, i, Tier::Jit),
        );
        assert_eq!(x.kind, y.kind);
        assert_eq!(x.site, y.site, "{}", c.0);
    }
}
