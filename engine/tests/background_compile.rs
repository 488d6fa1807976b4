//! The dyn tier compiling on its background thread: a hot function and a
//! hot loop get compiled code while the interpreter keeps running, and that
//! code is used once published; what else the policy compiles (a loop's
//! function, a caller that keeps calling compiled code). The tier itself never waits, so each test
//! makes the point deterministic with `Store::finish_background_compiles`
//! (from the embedder, or from a host function in the middle of a loop).

use std::rc::Rc;
use std::sync::Arc;

use wizeng::{Config, Extern, FuncType, Linker, Module, Store, Tier, ValType, Value};

const APP: &str = r#"(module
  (import "host" "tick" (func $tick (param i32)))
  (func $f (export "f") (param i32) (result i32)
    (i32.add (i32.mul (local.get 0) (i32.const 3)) (i32.const 1)))
  ;; f(x) + f(x + 1) + ...: calls counted by the dyn tier (no loop to enter)
  (func $calls (export "calls") (param $x i32) (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (call $f (local.get $x))
        (call $calls (i32.add (local.get $x) (i32.const 1))
                     (i32.sub (local.get $n) (i32.const 1)))))))
  ;; sum of 0..n, telling the host every iteration
  (func (export "sum") (param $n i32) (result i64)
    (local $i i32) (local $s i64)
    (loop $l
      (call $tick (local.get $i))
      (local.set $s (i64.add (local.get $s) (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s)))"#;

/// A dyn store compiling in the background; `tick(i)` waits for the
/// compiler thread when `i == wait_at`.
fn instantiate(wait_at: i32) -> (Store, wizeng::InstanceId) {
    let mut store = Store::new(Config {
        tier: Tier::Dyn,
        dyn_threshold: 10,
        background_compile: true,
        ..Default::default()
    });
    let tick = store.add_host_func(
        FuncType::new([ValType::I32], []),
        Rc::new(move |caller, args, _| {
            if args[0] == Value::I32(wait_at) {
                caller.store.finish_background_compiles();
            }
            Ok(())
        }),
    );
    let mut linker = Linker::new();
    linker.define("host", "tick", Extern::Func(tick));
    let bytes = wat::parse_str(APP).unwrap();
    let module = Arc::new(Module::new_for_tier(&bytes, Tier::Dyn).unwrap());
    let inst = linker.instantiate(&mut store, &module).unwrap();
    (store, inst)
}

#[test]
fn a_hot_function_gets_its_code_from_the_compiler_thread() {
    let (mut store, inst) = instantiate(-1);
    let calls = store.export_func(inst, "calls").unwrap();
    let want = |x: i32, n: i32| (x..x + n).map(|i| 3 * i + 1).sum::<i32>();
    // Nine calls of f and nine of `calls`: nobody is hot yet.
    assert_eq!(
        store
            .invoke(calls, &[Value::I32(0), Value::I32(9)])
            .unwrap(),
        [Value::I32(want(0, 9))]
    );
    assert_eq!(store.background_stats().in_flight, 0);
    // The 10th call of f (and of `calls`) asks for code; nothing is
    // compiled on this thread: whatever code is in use already came from the
    // compiler thread (a later call publishes what it finished, so how much
    // depends on its speed), and the rest is still there.
    assert_eq!(
        store
            .invoke(calls, &[Value::I32(9), Value::I32(3)])
            .unwrap(),
        [Value::I32(want(9, 3))]
    );
    let bg = store.background_stats();
    assert_eq!(store.dyn_stats(), (bg.done, 0));
    assert_eq!(bg.done + bg.in_flight, 2);
    store.finish_background_compiles();
    assert_eq!(store.dyn_stats(), (2, 0));
    let bg = store.background_stats();
    assert_eq!((bg.done, bg.in_flight), (2, 0));
    // (The JIT's set-up for the instance, its trampolines, was built on
    // this thread at the first request: the code is ready soonest.)
    assert_eq!(bg.setups, 0);
    // Calls now run the compiled code, with the same results.
    assert_eq!(
        store
            .invoke(calls, &[Value::I32(-50), Value::I32(100)])
            .unwrap(),
        [Value::I32(want(-50, 100))]
    );
}

#[test]
fn a_hot_loop_enters_compiled_code_once_it_is_ready() {
    // The loop asks for an entry at its 10th iteration and checks again
    // every 128; at iteration 50 the host waits for the compiler thread, so
    // the entry is used at the next check (iteration 138).
    let (mut store, inst) = instantiate(50);
    let sum = store.export_func(inst, "sum").unwrap();
    let n = 10_000i64;
    assert_eq!(
        store.invoke(sum, &[Value::I32(n as i32)]).unwrap(),
        [Value::I64(n * (n - 1) / 2)]
    );
    assert_eq!(store.dyn_stats().1, 1, "one loop entry compiled and used");
    // Entering the loop also asked for the function itself (its loop never
    // asks again): its next calls run compiled.
    store.finish_background_compiles();
    assert_eq!(store.dyn_stats(), (1, 1));
    assert_eq!(
        store.invoke(sum, &[Value::I32(5)]).unwrap(),
        [Value::I64(10)]
    );
}

/// `$g` calls `$f` twenty times (no loop); `$main` calls `$g` twice.
const CROSSING: &str = r#"(module
  (func $f (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func $g (param i32) (result i32)
    local.get 0
    call $f call $f call $f call $f call $f call $f call $f call $f call $f call $f
    call $f call $f call $f call $f call $f call $f call $f call $f call $f call $f)
  (func (export "main") (result i32)
    (i32.add (call $g (i32.const 0)) (call $g (i32.const 100)))))"#;

#[test]
fn an_interpreted_caller_of_compiled_code_is_compiled_early() {
    // Threshold 10, compiled in the foreground: $f at its 10th call. The
    // first $g then calls compiled code 11 times; each crossing counts as a
    // call of $g, so its second call (its own count: 2) compiles it.
    let mut store = Store::new(Config {
        tier: Tier::Dyn,
        dyn_threshold: 10,
        ..Default::default()
    });
    let bytes = wat::parse_str(CROSSING).unwrap();
    let module = Arc::new(Module::new_for_tier(&bytes, Tier::Dyn).unwrap());
    let inst = Linker::new().instantiate(&mut store, &module).unwrap();
    let main = store.export_func(inst, "main").unwrap();
    assert_eq!(store.invoke(main, &[]).unwrap(), [Value::I32(140)]);
    assert_eq!(store.dyn_stats(), (2, 0), "$f and $g compiled, not $main");
}

#[test]
fn without_the_thread_the_same_code_is_compiled_in_the_foreground() {
    let mut store = Store::new(Config {
        tier: Tier::Dyn,
        dyn_threshold: 10,
        ..Default::default()
    });
    let tick = store.add_host_func(FuncType::new([ValType::I32], []), Rc::new(|_, _, _| Ok(())));
    let mut linker = Linker::new();
    linker.define("host", "tick", Extern::Func(tick));
    let bytes = wat::parse_str(APP).unwrap();
    let module = Arc::new(Module::new_for_tier(&bytes, Tier::Dyn).unwrap());
    let inst = linker.instantiate(&mut store, &module).unwrap();
    let calls = store.export_func(inst, "calls").unwrap();
    store
        .invoke(calls, &[Value::I32(0), Value::I32(12)])
        .unwrap();
    assert_eq!(store.dyn_stats(), (2, 0));
    let bg = store.background_stats();
    assert_eq!((bg.done, bg.setups), (0, 0));
}

/// A module with one large function (`n` top-level tests of a global, each
/// guarding two stores), exported as `f`: with `nested`, the tests sit in
/// one `if` that is never taken, so a call runs a few instructions of the
/// body; without, every call runs all `n` tests.
fn large_function(n: usize, nested: bool) -> Vec<u8> {
    let mut body = String::new();
    for k in 0..n {
        body.push_str(&format!(
            "(if (i64.eq (global.get $g) (i64.const {k}))
               (then (i32.store8 (i32.const {a}) (i32.const 22))
                     (i32.store8 (i32.const {b}) (i32.const 1))))\n",
            a = 1000 + k,
            b = 3000 + k
        ));
    }
    if nested {
        body = format!("(if (i32.eqz (global.get $on)) (then {body}))");
    }
    let wat = format!(
        r#"(module (memory 1) (global $g (mut i64) (i64.const 0))
             (global $on (mut i32) (i32.const 1))
             (func (export "f") (result i32)
               {body}
               (global.set $g (i64.add (global.get $g) (i64.const 1)))
               (i32.load8_u (i32.const 1001)))
             (func (export "run") (param $n i32) (result i32) (local $r i32)
               (loop $l
                 (local.set $r (call 0))
                 (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
               (local.get $r)))"#
    );
    wat::parse_str(wat).unwrap()
}

/// The dyn tier's compiled functions and loop entries after `run` called
/// `f` `calls` times (threshold 10, compiled in the foreground: `run`'s
/// loop is entered in compiled code at its 10th iteration, and `run` is
/// compiled then), and f's last result.
fn compiled_after(bytes: &[u8], calls: i32) -> ((usize, usize), Value) {
    let mut store = Store::new(Config {
        tier: Tier::Dyn,
        dyn_threshold: 10,
        ..Default::default()
    });
    let module = Arc::new(Module::new_for_tier(bytes, Tier::Dyn).unwrap());
    let inst = Linker::new().instantiate(&mut store, &module).unwrap();
    let run = store.export_func(inst, "run").unwrap();
    let r = store.invoke(run, &[Value::I32(calls)]).unwrap();
    (store.dyn_stats(), r[0].clone())
}

#[test]
fn a_large_function_that_runs_its_whole_body_gets_hot_sooner() {
    // Both bodies are about 15 KB: by size alone, f would need about 52k
    // calls beyond the threshold. Every call of the straight one runs its
    // 600 tests (about 4.5 KB of the body), so it needs only 256/4500 of
    // that: about 2,950 calls in all. The nested one still needs its 52k.
    let (straight, nested) = (large_function(600, false), large_function(600, true));
    assert!(straight.len() > 14_000 && nested.len() > 14_000);
    assert_eq!(compiled_after(&straight, 2_500), ((1, 1), Value::I32(22)));
    assert_eq!(compiled_after(&straight, 3_500), ((2, 1), Value::I32(22)));
    assert_eq!(compiled_after(&nested, 30_000), ((1, 1), Value::I32(0)));
}

#[test]
fn a_large_function_runs_the_same_in_every_tier() {
    // 2,000 top-level `if`s (in dyn, `run` is entered compiled at its 2nd
    // iteration and calls `f` interpreted).
    let bytes = large_function(2_000, false);
    let results: Vec<Value> = [Tier::Int, Tier::Jit, Tier::Lazy, Tier::Dyn]
        .into_iter()
        .map(|tier| {
            let mut store = Store::new(Config {
                tier,
                dyn_threshold: 2,
                ..Default::default()
            });
            let module = Arc::new(Module::new_for_tier(&bytes, tier).unwrap());
            let inst = Linker::new().instantiate(&mut store, &module).unwrap();
            let run = store.export_func(inst, "run").unwrap();
            store.invoke(run, &[Value::I32(3)]).unwrap()[0].clone()
        })
        .collect();
    assert_eq!(results, [Value::I32(22); 4]);
}
