//! Our JIT beside another runtime in one process: both install handlers for
//! the signals compiled code raises (here Wasmtime 25, a dev-dependency), and
//! each must keep catching its own traps whichever installed its handler
//! last, and however often the other's faults passed through its handler.

use std::sync::Arc;

use wizeng::{Config, Module, Store, Tier, TrapKind};

/// Traps by `unreachable` (SIGILL from `ud2` in both engines' code) and by an
/// out-of-bounds load (SIGSEGV on a guard page).
const WAT: &str = r#"(module
  (memory 1)
  (func (export "ill") unreachable)
  (func (export "segv") (result i32) (i32.load (i32.const 0x7fff_fff0))))"#;

fn ours(export: &str) -> TrapKind {
    let wasm = wat::parse_str(WAT).expect("wat");
    let module = Arc::new(Module::new(&wasm).expect("module"));
    let mut store = Store::new(Config {
        tier: Tier::Jit,
        ..Config::default()
    });
    let inst = store.instantiate_with(&module, &[]).expect("instantiate");
    let f = store.export_func(inst, export).expect("export");
    store.invoke(f, &[]).expect_err("traps").kind
}

fn wasmtime(engine: &wasmtime::Engine, export: &str) -> wasmtime::Trap {
    let wasm = wat::parse_str(WAT).expect("wat");
    let module = wasmtime::Module::new(engine, wasm).expect("module");
    let mut store = wasmtime::Store::new(engine, ());
    let inst = wasmtime::Instance::new(&mut store, &module, &[]).expect("instantiate");
    let f = inst.get_func(&mut store, export).expect("export");
    let mut results = vec![wasmtime::Val::I32(0); f.ty(&store).results().len()];
    let e = f.call(&mut store, &[], &mut results).expect_err("traps");
    *e.downcast_ref::<wasmtime::Trap>().expect("a Wasm trap")
}

#[test]
fn both_engines_keep_their_traps_whoever_installed_last() {
    let engine = wasmtime::Engine::default();
    // Wasmtime's handlers first, then ours (installed at our first JIT call),
    // then each engine's faults pass through the other's handler, twice.
    for _ in 0..2 {
        assert_eq!(
            wasmtime(&engine, "ill"),
            wasmtime::Trap::UnreachableCodeReached
        );
        assert_eq!(ours("ill"), TrapKind::Unreachable);
        assert_eq!(wasmtime(&engine, "segv"), wasmtime::Trap::MemoryOutOfBounds);
        assert_eq!(ours("segv"), TrapKind::MemoryOutOfBounds);
    }
}
