//! The monitors' lifecycle in the merged module: the exit hooks (run once:
//! the block counters' fold, then every `wasm:exit`), the `proc_exit` wrapper
//! that runs them first, and the entry export wrapped as begin hooks, the
//! app's entry, exit hooks.

use wasm_encoder::Instruction as I;

use super::builder::{Builder, W32};
use super::parts::Parts;
use super::remap::{Addrs, AppImports, IndexMap, Layout};
use super::{unsupported, Lifecycle, EXPORT_APP_START, EXPORT_BEGIN, EXPORT_EXIT};
use crate::core::error::LoadError;
use crate::core::types::FuncAddr;
use crate::runtime::store::Store;

/// The wrapped entry point and the helpers exported for harnesses.
pub(super) struct Hooks {
    /// The entry export, wrapped by `entry_wrapper`.
    pub(super) entry_name: String,
    pub(super) entry_wrapper: u32,
    pub(super) exports: [(&'static str, u32); 3],
}

/// Calls `f` for its effect (its results dropped).
fn call_dropping(
    f: &mut wasm_encoder::Function,
    store: &Store,
    addrs: &Addrs,
    a: FuncAddr,
) -> Result<(), LoadError> {
    f.instruction(&I::Call(addrs.func(a)?));
    for _ in 0..store.func_type(a).results.len() {
        f.instruction(&I::Drop);
    }
    Ok(())
}

/// Add the exit hooks, the `proc_exit` wrapper (the app's calls of
/// `proc_exit` are redirected to it) and the entry wrappers as helpers.
pub(super) fn add_hooks(
    b: &mut Builder,
    app: &Parts,
    app_map: &mut IndexMap,
    store: &Store,
    layout: &Layout,
    imports: &AppImports,
    life: &Lifecycle,
) -> Result<Hooks, LoadError> {
    let [done_global, deferred_global] = layout.flags;
    let addrs = &layout.addrs;
    let exit_hooks = add_exit_hooks(b, app, app_map, store, addrs, life, done_global)?;
    if let Some(real) = imports.proc_exit() {
        wrap_proc_exit(b, app_map, real, deferred_global, exit_hooks);
    }
    let (entry_name, entry_orig, entry_ty_idx) = entry_point(app, app_map)?;
    let unit = b.types.get(&[], &[]);
    let mut begin = wasm_encoder::Function::new([]);
    for f in &life.begin {
        call_dropping(&mut begin, store, addrs, *f)?;
    }
    begin.instruction(&I::End);
    let begin_hooks = b.helper("begin_hooks", unit, begin);
    let mut entry = wasm_encoder::Function::new([]);
    entry
        .instruction(&I::Call(begin_hooks))
        .instruction(&I::Call(entry_orig))
        .instruction(&I::Call(exit_hooks))
        .instruction(&I::End);
    let entry_wrapper = b.helper("entry", entry_ty_idx, entry);
    let mut app_start = wasm_encoder::Function::new([]);
    app_start
        .instruction(&I::I32Const(1))
        .instruction(&I::GlobalSet(deferred_global))
        .instruction(&I::Call(entry_orig))
        .instruction(&I::End);
    let app_start = b.helper("app_start", entry_ty_idx, app_start);
    Ok(Hooks {
        entry_name,
        entry_wrapper,
        exports: [
            (EXPORT_BEGIN, begin_hooks),
            (EXPORT_APP_START, app_start),
            (EXPORT_EXIT, exit_hooks),
        ],
    })
}

/// The exit hooks (once, guarded by `done_global`): the woven block counters'
/// fold function, if the app exports one, then every monitor's `wasm:exit`.
fn add_exit_hooks(
    b: &mut Builder,
    app: &Parts,
    app_map: &IndexMap,
    store: &Store,
    addrs: &Addrs,
    life: &Lifecycle,
    done_global: u32,
) -> Result<u32, LoadError> {
    let unit = b.types.get(&[], &[]);
    let mut hooks = wasm_encoder::Function::new([]);
    hooks
        .instruction(&I::GlobalGet(done_global))
        .instruction(&I::If(wasm_encoder::BlockType::Empty))
        .instruction(&I::Return)
        .instruction(&I::End)
        .instruction(&I::I32Const(1))
        .instruction(&I::GlobalSet(done_global));
    let fold = app.exports.iter().find(|e| {
        e.kind == wasmparser::ExternalKind::Func
            && e.name == crate::monitor::blockcount::FOLD_EXPORT
    });
    if let Some(e) = fold {
        hooks.instruction(&I::Call(app_map.funcs[e.index as usize]));
    }
    for f in &life.exit {
        call_dropping(&mut hooks, store, addrs, *f)?;
    }
    hooks.instruction(&I::End);
    Ok(b.helper("exit_hooks", unit, hooks))
}

/// `proc_exit(code)` runs the exit hooks first (unless the harness defers
/// them: `deferred_global`), then the real `proc_exit`.
fn wrap_proc_exit(
    b: &mut Builder,
    app_map: &mut IndexMap,
    real: u32,
    deferred_global: u32,
    exit_hooks: u32,
) {
    let ty = b.types.get(&[W32], &[]);
    let mut f = wasm_encoder::Function::new([]);
    f.instruction(&I::GlobalGet(deferred_global))
        .instruction(&I::I32Eqz)
        .instruction(&I::If(wasm_encoder::BlockType::Empty))
        .instruction(&I::Call(exit_hooks))
        .instruction(&I::End)
        .instruction(&I::LocalGet(0))
        .instruction(&I::Call(real))
        .instruction(&I::End);
    let wrapper = b.helper("proc_exit", ty, f);
    for x in app_map.funcs.iter_mut() {
        if *x == real {
            *x = wrapper;
        }
    }
}

/// The app's entry export (`_start`, else `main`): its name, merged index
/// and type index; it must be a defined function without parameters.
fn entry_point(app: &Parts, app_map: &IndexMap) -> Result<(String, u32, u32), LoadError> {
    let is_func = |e: &&wasmparser::Export, name: &str| {
        e.kind == wasmparser::ExternalKind::Func && e.name == name
    };
    let entry_export = app
        .exports
        .iter()
        .find(|e| is_func(e, "_start"))
        .or_else(|| app.exports.iter().find(|e| is_func(e, "main")))
        .ok_or_else(|| unsupported("the app exports no entry point (`_start` or `main`)"))?;
    let entry_name = entry_export.name.to_string();
    let entry_orig = app_map.funcs[entry_export.index as usize];
    let num_func_imports = app_map.funcs.len() - app.funcs.len();
    let entry_ty_idx = if (entry_export.index as usize) < num_func_imports {
        return Err(unsupported("the entry point is an import"));
    } else {
        app.funcs[entry_export.index as usize - num_func_imports]
    };
    if app.type_params.get(entry_ty_idx as usize) != Some(&0) {
        return Err(unsupported("the entry point takes parameters"));
    }
    Ok((entry_name, entry_orig, entry_ty_idx))
}
