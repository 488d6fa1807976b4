//! Dynamic probes (`whamm:dyninstr`, docs/monitor-abi.md#dynamic-probes).
//!
//! `insert_new_probe(fid, pc, f)` attaches `f` (no params, no results) to an
//! instruction of the application. In the interpreter, the instruction's first
//! op is replaced in place by a `DynProbe` op (ops are cells), so the probe
//! takes effect at the next occurrence, also in frames that are already
//! running. The site fires a snapshot of its probe list, then executes the
//! replaced op: insertion order is firing order; a probe inserted while the site
//! fires does not fire this time; a removed one still fires this time only.

use crate::core::types::{FuncType, InstanceId, ValType, Value};
use crate::runtime::store::{Linker, Store};

/// Error codes returned by `insert_new_probe`, Wizard's (checked in this order).
pub mod codes {
    /// The funcref is null.
    pub const NULL_FUNC: i32 = -6;
    /// No application is running yet, or `fid` is not in its function index space.
    pub const BAD_FID: i32 = -1;
    /// `fid` is an imported function.
    pub const IMPORTED: i32 = -2;
    /// `pc` is not the offset of an instruction of that function.
    pub const BAD_PC: i32 = -3;
    /// The function has parameters.
    pub const HAS_PARAMS: i32 = -4;
    /// The function has results.
    pub const HAS_RESULTS: i32 = -5;
}

fn insert(store: &mut Store, app: Option<InstanceId>, fid: i32, pc: i32, f: Value) -> i32 {
    let func = match f {
        Value::FuncRef(Some(a)) => a,
        _ => return codes::NULL_FUNC,
    };
    let Some(app) = app else {
        return codes::BAD_FID;
    };
    let module = store.instance(app).module.clone();
    if fid < 0 || fid >= module.num_funcs() as i32 {
        return codes::BAD_FID;
    }
    if fid < module.num_imported_funcs as i32 {
        return codes::IMPORTED;
    }
    let Ok(code) = crate::exec::interp::load::func_code(&module, fid as u32).cloned() else {
        return codes::BAD_FID;
    };
    // The pc is checked before the function's type, as in Wizard.
    if pc < 0 || code.pcs.binary_search(&(pc as u32)).is_err() {
        return codes::BAD_PC;
    }
    let ty = store.func_type(func);
    if !ty.params.is_empty() {
        return codes::HAS_PARAMS;
    }
    if !ty.results.is_empty() {
        return codes::HAS_RESULTS;
    }
    let sites = &mut crate::exec::state_mut(store).dyn_sites;
    sites
        .attach(code, fid as u32, pc as u32, func)
        .unwrap_or(codes::BAD_PC)
}

fn remove(store: &mut Store, id: i32) {
    crate::exec::state_mut(store).dyn_sites.detach(id);
}

/// Define the `whamm:dyninstr` module. Probes attach to the application
/// instance set with [`Store::set_app`].
pub fn define_dyninstr(linker: &mut Linker, store: &mut Store) {
    const M: &str = "whamm:dyninstr";
    let i32t = ValType::I32;
    linker.func(
        store,
        M,
        "insert_new_probe",
        FuncType::new([i32t, i32t, ValType::FuncRef], [i32t]),
        |c, a, r| {
            let app = c.store.app;
            r[0] = Value::I32(insert(
                c.store,
                app,
                a[0].i32().unwrap_or(-1),
                a[1].i32().unwrap_or(-1),
                a[2],
            ));
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "remove_probe",
        FuncType::new([i32t], []),
        |c, a, _| {
            remove(c.store, a[0].i32().unwrap_or(-1));
            Ok(())
        },
    );
}
