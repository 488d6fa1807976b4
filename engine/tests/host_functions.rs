//! Host functions on raw slots (`Linker::func_raw`): called from the
//! interpreter, from compiled code and by the embedder, each gets the same
//! arguments and gives back the same results (negative `i32`s, `i64`s beyond
//! 32 bits, float bit patterns, several results), and a trap it returns
//! reaches the caller.

use std::sync::Arc;

use wizeng::{Config, FuncType, Linker, Module, Store, Tier, Trap, ValType, Value};

const APP: &str = r#"(module
  (import "h" "mix" (func $mix (param i32 i64 f32 f64) (result i64 i32 f64)))
  (import "h" "fail" (func $fail (param i32) (result i32)))
  (func (export "run") (param i32 i64 f32 f64) (result i64 i32 f64)
    (call $mix (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
  ;; Twice through the import, so the dyn tier compiles it on the way.
  (func (export "sum") (param i32) (result i64)
    (local $i i32) (local $s i64)
    (loop $l
      (local.set $s (i64.add (local.get $s)
        (call $mix (local.get $i) (i64.const 1) (f32.const 0) (f64.const 0)) (drop) (drop)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get 0))))
    (local.get $s))
  (func (export "fail") (param i32) (result i32) (call $fail (local.get 0))))"#;

/// `mix(a, b, c, d) = (a + b, a * 2, d + c)` on raw slots.
fn instantiate(tier: Tier) -> (Store, wizeng::InstanceId, wizeng::FuncAddr) {
    let mut store = Store::new(Config {
        tier,
        dyn_threshold: 2,
        ..Default::default()
    });
    let mut linker = Linker::new();
    let (i32t, i64t, f32t, f64t) = (ValType::I32, ValType::I64, ValType::F32, ValType::F64);
    let mix = linker.func_raw(
        &mut store,
        "h",
        "mix",
        FuncType::new([i32t, i64t, f32t, f64t], [i64t, i32t, f64t]),
        |_, s| {
            let a = s[0] as u32 as i32;
            let b = s[1] as i64;
            let c = f32::from_bits(s[2] as u32);
            let d = f64::from_bits(s[3]);
            s[0] = (a as i64).wrapping_add(b) as u64;
            // (Sign-extended on purpose: a result's upper bits are ignored.)
            s[1] = a.wrapping_mul(2) as i64 as u64;
            s[2] = (d + c as f64).to_bits();
            Ok(())
        },
    );
    linker.func_raw(
        &mut store,
        "h",
        "fail",
        FuncType::new([i32t], [i32t]),
        // (An i32 argument's upper 32 bits are undefined.)
        |_, s| match s[0] as u32 {
            0 => Err(Trap::host("raw host function failed")),
            x => {
                s[0] = (x + 1) as u64;
                Ok(())
            }
        },
    );
    let module = Arc::new(Module::new(&wat::parse_str(APP).unwrap()).unwrap());
    let inst = linker.instantiate(&mut store, &module).unwrap();
    (store, inst, mix)
}

fn tiers() -> [Tier; 4] {
    [Tier::Int, Tier::Jit, Tier::Lazy, Tier::Dyn]
}

#[test]
fn raw_host_functions_agree_in_every_tier() {
    let args = [
        Value::I32(-7),
        Value::I64(1 << 40),
        Value::F32(1.5f32.to_bits()),
        Value::F64(2.25f64.to_bits()),
    ];
    let want = vec![
        Value::I64((1 << 40) - 7),
        Value::I32(-14),
        Value::F64(3.75f64.to_bits()),
    ];
    for tier in tiers() {
        let (mut store, inst, mix) = instantiate(tier);
        let run = store.export_func(inst, "run").unwrap();
        assert_eq!(store.invoke(run, &args).unwrap(), want, "{tier:?}");
        let sum = store.export_func(inst, "sum").unwrap();
        // sum over i < 50 of (i + 1)
        let got = store.invoke(sum, &[Value::I32(50)]).unwrap();
        assert_eq!(got, [Value::I64(1275)], "{tier:?}");
        // The embedder calls the host function itself: values converted.
        assert_eq!(store.invoke(mix, &args).unwrap(), want, "{tier:?}");
    }
}

#[test]
fn raw_host_function_traps_reach_the_caller() {
    for tier in tiers() {
        let (mut store, inst, _) = instantiate(tier);
        let f = store.export_func(inst, "fail").unwrap();
        assert_eq!(store.invoke(f, &[Value::I32(4)]).unwrap(), [Value::I32(5)]);
        let err = store.invoke(f, &[Value::I32(0)]).unwrap_err();
        assert!(
            err.to_string().contains("raw host function failed"),
            "{tier:?}: {err}"
        );
    }
}

#[test]
#[should_panic(expected = "not a type of one-slot numbers")]
fn raw_host_functions_take_numbers_only() {
    let mut store = Store::new(Config::default());
    Linker::new().func_raw(
        &mut store,
        "h",
        "r",
        FuncType::new([ValType::ExternRef], []),
        |_, _| Ok(()),
    );
}
