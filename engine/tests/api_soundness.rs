//! Safe code cannot make compiled code read outside the store: a function
//! reference that enters a store from outside (an argument of `invoke`, a
//! global set by the embedder, a host function's result) must name one of the
//! store's functions, else it is refused with a trap. Compiled code indexes
//! the store's function table by such a reference without a check, so before
//! these checks each case below read out of bounds in the JIT tiers.

use std::rc::Rc;
use std::sync::Arc;

use wizeng::{Config, FuncAddr, FuncType, Linker, Module, Store, Tier, ValType, Value};

const APP: &str = r#"(module
  (import "host" "forge" (func $forge (result funcref)))
  (type $v (func (result i32)))
  (table $t 1 funcref)
  (global $g (export "g") (mut funcref) (ref.null func))
  (func (export "call_arg") (param funcref) (result i32)
    (table.set $t (i32.const 0) (local.get 0))
    (call_indirect $t (type $v) (i32.const 0)))
  (func (export "call_global") (result i32)
    (table.set $t (i32.const 0) (global.get $g))
    (call_indirect $t (type $v) (i32.const 0)))
  (func (export "call_host") (result i32)
    (table.set $t (i32.const 0) (call $forge))
    (call_indirect $t (type $v) (i32.const 0))))"#;

const FORGED: FuncAddr = FuncAddr(1_000_000);

fn instantiate(tier: Tier) -> (Store, wizeng::InstanceId) {
    let mut store = Store::new(Config {
        tier,
        ..Default::default()
    });
    let mut linker = Linker::new();
    let forge = store.add_host_func(
        FuncType::new([], [ValType::FuncRef]),
        Rc::new(|_, _, res| {
            res[0] = Value::FuncRef(Some(FORGED));
            Ok(())
        }),
    );
    linker.define("host", "forge", wizeng::Extern::Func(forge));
    let module = Arc::new(Module::new(&wat::parse_str(APP).unwrap()).unwrap());
    let inst = linker.instantiate(&mut store, &module).unwrap();
    (store, inst)
}

fn tiers() -> [Tier; 4] {
    [Tier::Int, Tier::Jit, Tier::Lazy, Tier::Dyn]
}

#[test]
fn forged_reference_arguments_are_refused() {
    for tier in tiers() {
        let (mut store, inst) = instantiate(tier);
        let f = store.export_func(inst, "call_arg").unwrap();
        let err = store
            .invoke(f, &[Value::FuncRef(Some(FORGED))])
            .unwrap_err();
        assert!(
            err.to_string().contains("not in this store"),
            "{tier:?}: {err}"
        );
    }
}

#[test]
fn forged_reference_globals_are_refused() {
    for tier in tiers() {
        let (mut store, inst) = instantiate(tier);
        let Some(wizeng::Extern::Global(g)) = store.export(inst, "g") else {
            panic!("no global")
        };
        let err = store
            .set_global_value(g, Value::FuncRef(Some(FORGED)))
            .unwrap_err();
        assert!(
            err.to_string().contains("not in this store"),
            "{tier:?}: {err}"
        );
        let err = store.set_global_value(g, Value::I32(1)).unwrap_err();
        assert!(err.to_string().contains("global"), "{tier:?}: {err}");
        let f = store.export_func(inst, "call_global").unwrap();
        // Still null: the call traps on the null element, as Wasm says.
        let err = store.invoke(f, &[]).unwrap_err();
        assert!(
            !err.to_string().contains("not in this store"),
            "{tier:?}: {err}"
        );
    }
}

#[test]
fn forged_reference_host_results_trap() {
    for tier in tiers() {
        let (mut store, inst) = instantiate(tier);
        let f = store.export_func(inst, "call_host").unwrap();
        let err = store.invoke(f, &[]).unwrap_err();
        assert!(
            err.to_string().contains("not in this store"),
            "{tier:?}: {err}"
        );
    }
}

#[test]
fn unknown_function_addresses_are_refused() {
    let (mut store, _) = instantiate(Tier::Jit);
    let err = store.invoke(FORGED, &[]).unwrap_err();
    assert!(err.to_string().contains("not in this store"), "{err}");
}

const GC_APP: &str = r#"(module
  (type $s (struct (field i32)))
  (func (export "make") (result anyref) (struct.new $s (i32.const 7)))
  (func (export "get") (param anyref) (result i32)
    (struct.get $s 0 (ref.cast (ref $s) (local.get 0))))
  (func (export "is_i31") (param anyref) (result i32)
    (ref.test (ref i31) (local.get 0))))"#;

fn gc_instance() -> (Store, wizeng::InstanceId) {
    let mut store = Store::new(Config::default());
    let module = Arc::new(Module::new(&wat::parse_str(GC_APP).unwrap()).unwrap());
    let inst = Linker::new().instantiate(&mut store, &module).unwrap();
    (store, inst)
}

/// An object handle an embedder got from one store works in that store
/// only, and one made from raw bits (`Value::from_slot`) works nowhere:
/// Wasm code dereferences object handles without a check.
#[test]
fn gc_object_handles_from_outside_are_checked() {
    let (mut a, ia) = gc_instance();
    let (mut b, ib) = gc_instance();
    let (make_a, get_a) = (
        a.export_func(ia, "make").unwrap(),
        a.export_func(ia, "get").unwrap(),
    );
    let (make_b, get_b) = (
        b.export_func(ib, "make").unwrap(),
        b.export_func(ib, "get").unwrap(),
    );
    let r = a.invoke(make_a, &[]).unwrap()[0];
    let Value::AnyRef(h) = r else {
        panic!("expected an object handle, got {r:?}")
    };
    assert_eq!(h.kind(), wizeng::GcKind::Struct);
    assert_eq!(a.invoke(get_a, &[r]).unwrap(), [Value::I32(7)]);
    // Store b has an object at the same index: still refused.
    b.invoke(make_b, &[]).unwrap();
    let err = b.invoke(get_b, &[r]).unwrap_err();
    assert!(
        err.to_string().contains("not a live object of this store"),
        "{err}"
    );
    let forged = Value::from_slot(ValType::ExternRef, r.to_slot());
    assert_ne!(forged, r);
    let err = a.invoke(get_a, &[forged]).unwrap_err();
    assert!(
        err.to_string().contains("not a live object of this store"),
        "{err}"
    );
}

/// An `i31` is a value, not a handle: any store takes it.
#[test]
fn i31_values_pass_between_stores() {
    let (mut a, ia) = gc_instance();
    let is_i31 = a.export_func(ia, "is_i31").unwrap();
    let v = Value::AnyRef(wizeng::GcRef::i31(5));
    assert_eq!(a.invoke(is_i31, &[v]).unwrap(), [Value::I32(1)]);
}

const TYPED_APP: &str = r#"(module
  (type $v (func (result i32)))
  (type $s (struct (field i32)))
  (type $t (struct (field i64)))
  (func $seven (export "seven") (type $v) (i32.const 7))
  (func (export "two") (param i32 i32) (result i32) (local.get 0))
  (func (export "call_typed") (param (ref null $v)) (result i32)
    (call_ref $v (local.get 0)))
  (func (export "non_null") (param (ref func)) (result i32)
    (ref.is_null (local.get 0)))
  (func (export "make_t") (result anyref) (struct.new $t (i64.const 1)))
  (func (export "get_s") (param (ref null $s)) (result i32)
    (struct.get $s 0 (local.get 0))))"#;

/// A typed reference parameter (a concrete type, or non-null) is part of
/// the function's type that `FuncType` does not show; `invoke` checks it, as
/// `call_ref` and `struct.get` rely on it (a function of another type
/// called through `call_ref` read operands that were not there).
#[test]
fn typed_reference_arguments_are_checked() {
    for tier in tiers() {
        let mut store = Store::new(Config {
            tier,
            ..Default::default()
        });
        let module = Arc::new(Module::new(&wat::parse_str(TYPED_APP).unwrap()).unwrap());
        let inst = Linker::new().instantiate(&mut store, &module).unwrap();
        let f = |s: &Store, n: &str| s.export_func(inst, n).unwrap();
        let (seven, two) = (f(&store, "seven"), f(&store, "two"));
        let call_typed = f(&store, "call_typed");
        let ok = store.invoke(call_typed, &[Value::FuncRef(Some(seven))]);
        assert_eq!(ok.unwrap(), [Value::I32(7)], "{tier:?}");
        let err = store
            .invoke(call_typed, &[Value::FuncRef(Some(two))])
            .unwrap_err();
        assert!(err.to_string().contains("argument 0"), "{tier:?}: {err}");
        let null = store
            .invoke(call_typed, &[Value::FuncRef(None)])
            .unwrap_err();
        assert!(
            null.to_string().contains("null function"),
            "{tier:?}: {null}"
        );
        let non_null = f(&store, "non_null");
        let err = store.invoke(non_null, &[Value::FuncRef(None)]).unwrap_err();
        assert!(err.to_string().contains("argument 0"), "{tier:?}: {err}");
        let (make_t, get_s) = (f(&store, "make_t"), f(&store, "get_s"));
        let t = store.invoke(make_t, &[]).unwrap()[0];
        let err = store.invoke(get_s, &[t]).unwrap_err();
        assert!(err.to_string().contains("argument 0"), "{tier:?}: {err}");
    }
}
