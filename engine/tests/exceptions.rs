//! Exceptions through the library API in every tier: across instances (an
//! imported tag and function), through a host function that calls back into
//! Wasm, and out to the embedder as a typed `TrapKind::Exception`; a host
//! function's error is a trap, which no handler catches.

use std::sync::Arc;

use wizeng::{Config, FuncType, Linker, Module, Store, Tier, TrapKind, ValType, Value};

const THROWER: &str = r#"(module
  (tag $e (export "e") (param i32))
  (func (export "throw") (param i32) (throw $e (local.get 0))))"#;

const CATCHER: &str = r#"(module
  (import "a" "e" (tag $e (param i32)))
  (import "a" "throw" (func $throw (param i32)))
  (import "host" "reenter" (func $reenter (param i32)))
  (import "host" "fail" (func $fail))
  (func (export "across_instances") (param i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (call $throw (local.get 0))
        (i32.const -1)))
    (i32.add (i32.const 1)))
  (func (export "through_host") (param i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (call $reenter (local.get 0))
        (i32.const -1)))
    (i32.add (i32.const 2)))
  (func (export "host_error_not_caught") (result i32)
    (block $h
      (try_table (catch_all $h) (call $fail)))
    (i32.const -1))
  (func (export "uncaught") (param i32) (call $reenter (local.get 0))))"#;

fn tiers() -> [Tier; 4] {
    [Tier::Int, Tier::Jit, Tier::Lazy, Tier::Dyn]
}

fn setup(tier: Tier) -> (Store, wizeng::InstanceId) {
    let mut store = Store::new(Config {
        tier,
        dyn_threshold: 2,
        ..Default::default()
    });
    let mut linker = Linker::new();
    let load = |text: &str| {
        let bytes = wat::parse_str(text).unwrap();
        Arc::new(Module::new_for_tier(&bytes, tier).unwrap())
    };
    let a = linker.instantiate(&mut store, &load(THROWER)).unwrap();
    linker.instance(&store, "a", a);
    let throw = store.export_func(a, "throw").unwrap();
    let ty = FuncType::new([ValType::I32], []);
    linker.func(&mut store, "host", "reenter", ty, move |caller, args, _| {
        caller.call(throw, args).map(|_| ())
    });
    linker.func(
        &mut store,
        "host",
        "fail",
        FuncType::new([], []),
        |_, _, _| Err(wizeng::Trap::host("the host gave up")),
    );
    let b = linker.instantiate(&mut store, &load(CATCHER)).unwrap();
    (store, b)
}

fn call(store: &mut Store, inst: wizeng::InstanceId, name: &str, args: &[Value]) -> Value {
    let f = store.export_func(inst, name).unwrap();
    store.invoke(f, args).unwrap()[0]
}

#[test]
fn caught_across_instances_and_host_calls() {
    for tier in tiers() {
        let (mut store, b) = setup(tier);
        // Twice each: dyn (threshold 2) runs compiled code the second time.
        for _ in 0..2 {
            let v = call(&mut store, b, "across_instances", &[Value::I32(40)]);
            assert_eq!(v, Value::I32(41), "{tier:?}");
            let v = call(&mut store, b, "through_host", &[Value::I32(40)]);
            assert_eq!(v, Value::I32(42), "{tier:?}");
        }
    }
}

#[test]
fn host_errors_are_not_caught() {
    for tier in tiers() {
        let (mut store, b) = setup(tier);
        let f = store.export_func(b, "host_error_not_caught").unwrap();
        let t = store.invoke(f, &[]).unwrap_err();
        assert_eq!(
            t.kind,
            TrapKind::Host("the host gave up".into()),
            "{tier:?}"
        );
    }
}

#[test]
fn uncaught_exceptions_reach_the_embedder_typed() {
    for tier in tiers() {
        let (mut store, b) = setup(tier);
        let f = store.export_func(b, "uncaught").unwrap();
        let t = store.invoke(f, &[Value::I32(7)]).unwrap_err();
        let e = t.exception().expect("an exception").clone();
        // Named as the thrower's instance knows the tag: by its export.
        assert_eq!(e.tag, "\"e\" (tag 0)", "{tier:?}");
        let (_, payload) = store.exception(e.exn as u64).expect("a live exception");
        assert_eq!(payload, &[7u64][..], "{tier:?}");
        let site = t.site.expect("the throw site");
        assert_eq!((site.func, site.pc), (0, 3), "{tier:?}");
    }
}
