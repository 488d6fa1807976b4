//! The library entry point for monitored execution: `Session` gives the same
//! monitor results in every tier, reports monitor traps as the CLI does, and
//! maps its errors to the documented exit statuses.

use std::path::PathBuf;

use wizeng::monitor::session::{Session, SessionConfig, SessionError};
use wizeng::wasi::{CaptureBuffer, WasiCtx};
use wizeng::{Config, Tier, Value};

/// Counts `i32.add` per site (`pc`) and in total; `total` reads the sum.
const MONITOR: &str = r#"(module
  (global $n (mut i32) (i32.const 0))
  (func (export "wasm:opcode:i32.add") (global.set $n (i32.add (global.get $n) (i32.const 1))))
  (func (export "total") (result i32) (global.get $n)))"#;

/// Sums 0..n with one `i32.add` per iteration plus one for the counter.
const APP: &str = r#"(module
  (func (export "sum") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s)))"#;

fn write_monitor(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wizeng-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, wat::parse_str(text).unwrap()).unwrap();
    path
}

fn session(tier: Tier) -> Session {
    let config = SessionConfig {
        engine: Config {
            tier,
            dyn_threshold: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    Session::new(config, WasiCtx::new().capture_stdout(&CaptureBuffer::new()))
}

#[test]
fn counts_agree_in_every_tier() {
    let mon = write_monitor("count.wasm", MONITOR);
    for tier in [Tier::Int, Tier::Jit, Tier::Lazy, Tier::Dyn] {
        let mut s = session(tier);
        s.load_monitors(&mon.display().to_string()).unwrap();
        s.load_app(&wat::parse_str(APP).unwrap()).unwrap();
        let inst = s.instantiate().unwrap();
        let sum = s.store().export_func(inst, "sum").unwrap();
        s.begin().unwrap();
        let r = s.run(sum, &[Value::I32(100)]);
        s.finish().unwrap();
        assert_eq!(r.unwrap(), [Value::I32(4950)], "{tier:?}");
        let m = s.monitor_instances()[0];
        let total = s.store().export_func(m, "total").unwrap();
        let n = s.store_mut().invoke(total, &[]).unwrap();
        assert_eq!(n, [Value::I32(200)], "{tier:?}: two adds per iteration");
    }
}

#[test]
fn a_trapping_probe_names_the_monitor_in_every_tier() {
    let mon = write_monitor(
        "trap.wasm",
        r#"(module (func (export "wasm:opcode:i32.add") unreachable))"#,
    );
    for tier in [Tier::Int, Tier::Jit, Tier::Lazy, Tier::Dyn] {
        let mut s = session(tier);
        s.load_monitors(&mon.display().to_string()).unwrap();
        s.load_app(&wat::parse_str(APP).unwrap()).unwrap();
        let inst = s.instantiate().unwrap();
        let sum = s.store().export_func(inst, "sum").unwrap();
        let err = s.run(sum, &[Value::I32(3)]).unwrap_err().to_string();
        assert!(
            err.starts_with("monitor ") && err.contains("`wasm:opcode:i32.add` trapped"),
            "{tier:?}: {err}"
        );
    }
}

#[test]
fn errors_carry_their_exit_status() {
    let mut s = session(Tier::Int);
    let err = s.instantiate().unwrap_err();
    assert!(matches!(err, SessionError::Usage(_)));
    assert_eq!(err.exit_status(), 2);

    let err = s.load_app(b"\0asm\x02\0\0\0").unwrap_err();
    assert_eq!(err.exit_status(), 125, "{err}");

    let err = s.load_monitors("/nonexistent/monitor.wasm").unwrap_err();
    assert_eq!(err.exit_status(), 3, "{err}");

    let mut s = session(Tier::Int);
    s.load_app(&wat::parse_str(r#"(module (import "nowhere" "f" (func)))"#).unwrap())
        .unwrap();
    let err = s.instantiate().unwrap_err();
    assert_eq!(err.exit_status(), 126, "{err}");
}

/// A monitor whose start function reads the app through `wizeng:app`: the
/// union of its active data (start, length) and its first two bytes there,
/// kept in globals; `got` returns them, or -1s where a query failed.
const DATA_MONITOR: &str = r#"(module
  (import "wizeng:app" "active_data_start" (func $start (param i32) (result i32)))
  (import "wizeng:app" "active_data_len" (func $len (param i32) (result i32)))
  (import "wizeng:app" "memory_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (memory 1)
  (global $s (mut i32) (i32.const 0))
  (global $n (mut i32) (i32.const 0))
  (global $b (mut i32) (i32.const 0))
  (func $init
    (global.set $s (call $start (i32.const 0)))
    (global.set $n (call $len (i32.const 0)))
    (global.set $b (i32.const -1))
    (if (i32.eqz (call $read (i32.const 0) (global.get $s) (i32.const 0) (i32.const 2)))
      (then (global.set $b (i32.load16_u (i32.const 0))))))
  (start $init)
  (func (export "got") (result i32 i32 i32) (global.get $s) (global.get $n) (global.get $b)))"#;

/// Active data at 16 ("hi") and 40 ("!"): their union is [16, 41).
const DATA_APP: &str = r#"(module
  (memory 1)
  (data (i32.const 16) "hi")
  (data (i32.const 40) "!"))"#;

#[test]
fn an_announced_app_is_readable_from_monitor_start_functions() {
    let mon = write_monitor("data.wasm", DATA_MONITOR);
    let app = wat::parse_str(DATA_APP).unwrap();
    for (announce, want) in [
        (true, [16, 25, i32::from_le_bytes([b'h', b'i', 0, 0])]),
        (false, [-1, -1, -1]),
    ] {
        let mut s = session(Tier::Int);
        if announce {
            s.announce_app(&app);
        }
        s.load_monitors(&mon.display().to_string()).unwrap();
        s.load_app(&app).unwrap();
        s.instantiate().unwrap();
        let m = s.monitor_instances()[0];
        let got = s.store().export_func(m, "got").unwrap();
        let vals = s.store_mut().invoke(got, &[]).unwrap();
        assert_eq!(vals, want.map(Value::I32), "announced: {announce}");
    }
}

/// In the compiled tiers a function is woven when it is first compiled
/// (`lazy`: at its first call; `dyn`: when hot, the interpreter runs its
/// plain body with the probes beside it until then) or for the whole module
/// at once (`jit`, which compiles every function at load); `release_unwoven`
/// drops what weaving the rest needs, after which only those functions trap.
#[test]
fn functions_are_woven_at_their_first_use() {
    let mon = write_monitor("count-lazy.wasm", MONITOR);
    let app = r#"(module
      (func (export "one") (result i32) (i32.add (i32.const 1) (i32.const 0)))
      (func (export "two") (result i32) (i32.add (i32.const 1) (i32.const 1))))"#;
    // (tier, woven at load, woven after `one` ran, run from a plain body)
    for (tier, woven_at_load, woven, plain) in [
        (Tier::Lazy, 0, 1, 0),
        (Tier::Dyn, 0, 0, 1),
        (Tier::Jit, 2, 2, 0),
    ] {
        let mut s = session(tier);
        s.load_monitors(&mon.display().to_string()).unwrap();
        s.load_app(&wat::parse_str(app).unwrap()).unwrap();
        let inst = s.instantiate().unwrap();
        assert_eq!(s.lazy_bodies(), Some((2, 2, woven_at_load)), "{tier:?}");
        let one = s.store().export_func(inst, "one").unwrap();
        let two = s.store().export_func(inst, "two").unwrap();
        assert_eq!(s.run(one, &[]).unwrap(), [Value::I32(1)], "{tier:?}");
        assert_eq!(s.lazy_bodies(), Some((2, 2, woven)), "{tier:?}");
        assert_eq!(s.plain_bodies(), Some(plain), "{tier:?}");
        s.release_unwoven();
        assert_eq!(s.run(one, &[]).unwrap(), [Value::I32(1)], "{tier:?}");
        let r = s.run(two, &[]);
        if woven_at_load == 0 {
            let e = r.unwrap_err().to_string();
            assert!(e.contains("released"), "{tier:?}: {e}");
        } else {
            assert_eq!(r.unwrap(), [Value::I32(2)], "{tier:?}");
        }
        s.finish().unwrap();
        let m = s.monitor_instances()[0];
        let total = s.store().export_func(m, "total").unwrap();
        let n = s.store_mut().invoke(total, &[]).unwrap();
        assert_eq!(n, [Value::I32(2 + woven_at_load as i32 / 2)], "{tier:?}");
    }
}
