//! Dynamic probes (`whamm:dyninstr`, monitor ABI A6 + B3).
//!
//! `insert_new_probe(fid, pc, f)` attaches `f` (no params, no results) to an
//! instruction of the application. In the interpreter, the instruction's first
//! op is replaced in place by a `DynProbe` op (ops are cells), so the probe
//! takes effect at the next occurrence, also in frames that are already
//! running. The site fires a snapshot of its probe list, then executes the
//! replaced op: insertion order is firing order; a probe inserted while the site
//! fires does not fire this time; a removed one still fires this time only.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::exec::interp::code::{Compiled, Op};
use crate::runtime::store::{Linker, Store};
use crate::core::types::{FuncAddr, FuncType, InstanceId, ValType, Value};

/// Error codes returned by `insert_new_probe`.
pub mod codes {
    /// No application is running yet, or `fid` is not one of its defined functions.
    pub const BAD_FID: i32 = -1;
    /// `pc` is not the offset of an instruction of that function.
    pub const BAD_PC: i32 = -2;
    /// The funcref is null or not of type `() -> ()`.
    pub const BAD_FUNC: i32 = -3;
}

/// First dynamic probe id (static `probe_id`s are small numbers).
const FIRST_ID: i32 = 0x10000;

#[derive(Clone)]
pub(crate) struct DynProbe {
    pub id: i32,
    pub func: FuncAddr,
}

pub(crate) struct DynSite {
    code: Arc<Compiled>,
    op_index: usize,
    pub original: Op,
    pub probes: Rc<Vec<DynProbe>>,
}

#[derive(Default)]
pub(crate) struct DynProbes {
    pub sites: Vec<DynSite>,
    index: HashMap<(u32, u32), usize>,
    ids: HashMap<i32, usize>,
    next_id: i32,
}

/// The first op of the instruction at `pc` that is not a static probe.
fn op_index_at(code: &Compiled, pc: u32) -> Option<usize> {
    let start = code.pcs.partition_point(|&p| p < pc);
    (start..code.pcs.len())
        .take_while(|&i| code.pcs[i] == pc)
        .find(|&i| !matches!(code.ops[i].get(), Op::Probe(_)))
}

fn insert(store: &mut Store, app: Option<InstanceId>, fid: i32, pc: i32, f: Value) -> i32 {
    let Some(app) = app else {
        return codes::BAD_FID;
    };
    let module = store.instance(app).module.clone();
    if fid < module.num_imported_funcs as i32 || fid >= module.num_funcs() as i32 {
        return codes::BAD_FID;
    }
    let func = match f {
        Value::FuncRef(Some(a)) if store.func_type(a) == &FuncType::default() => a,
        _ => return codes::BAD_FUNC,
    };
    let code = module.code[(fid as u32 - module.num_imported_funcs) as usize].clone();
    let d = &mut store.dyn_probes;
    if d.next_id == 0 {
        d.next_id = FIRST_ID;
    }
    let id = d.next_id;
    let key = (fid as u32, pc as u32);
    let site = match d.index.get(&key) {
        Some(&s) => s,
        None => {
            let Some(i) = op_index_at(&code, pc as u32) else {
                return codes::BAD_PC;
            };
            let original = code.ops[i].get();
            d.sites.push(DynSite {
                code: code.clone(),
                op_index: i,
                original,
                probes: Rc::new(Vec::new()),
            });
            d.index.insert(key, d.sites.len() - 1);
            d.sites.len() - 1
        }
    };
    d.next_id += 1;
    let s = &mut d.sites[site];
    Rc::make_mut(&mut s.probes).push(DynProbe { id, func });
    s.code.ops[s.op_index].set(Op::DynProbe(site as u32));
    d.ids.insert(id, site);
    id
}

fn remove(store: &mut Store, id: i32) {
    let d = &mut store.dyn_probes;
    let Some(site) = d.ids.remove(&id) else {
        return;
    };
    let s = &mut d.sites[site];
    Rc::make_mut(&mut s.probes).retain(|p| p.id != id);
    if s.probes.is_empty() {
        s.code.ops[s.op_index].set(s.original);
    }
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
