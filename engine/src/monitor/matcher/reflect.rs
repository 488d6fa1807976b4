//! `whamm:reflect` (docs/monitor-abi.md#reflection): read-only questions about
//! the application's module, as Wizard's reflector answers them. Strings and
//! bytes are copied into the calling module's memory (its export `memory`,
//! else its memory 0) at (ptr, len), at most `len` bytes; the result is the
//! full length. An index out of range, or a region outside that memory,
//! traps; so does a call before the app is instantiated.

use crate::core::error::{Trap, TrapKind};
use crate::core::module::Module;
use crate::core::types::{FuncType, ValType, Value};
use crate::runtime::store::{Caller, Linker, Store};

const M: &str = "whamm:reflect";

fn app_module(c: &Caller<'_>) -> Result<std::sync::Arc<Module>, Trap> {
    let app = c
        .store
        .app
        .ok_or_else(|| Trap::host("whamm:reflect: the application is not instantiated yet"))?;
    Ok(c.store.instance(app).module.clone())
}

/// Copy `src` to (ptr, len) of the caller's memory; the full length.
fn copy_out(c: &mut Caller<'_>, ptr: i32, len: i32, src: &[u8]) -> Result<Value, Trap> {
    let mem = c.memory_mut()?;
    let (p, l) = (ptr as u32 as usize, len as u32 as usize);
    let dst = mem
        .get_mut(p..p.saturating_add(l))
        .ok_or_else(|| Trap::new(TrapKind::MemoryOutOfBounds))?;
    let n = dst.len().min(src.len());
    dst[..n].copy_from_slice(&src[..n]);
    Ok(Value::I32(src.len() as i32))
}

/// The defined-or-imported function `fid` of `m`, else an out-of-bounds trap.
fn check_fid(m: &Module, fid: i32) -> Result<u32, Trap> {
    if fid < 0 || fid as u32 >= m.num_funcs() {
        return Err(Trap::host(format!(
            "whamm:reflect: function index {fid} out of bounds"
        )));
    }
    Ok(fid as u32)
}

pub(super) fn define_reflect(linker: &mut Linker, store: &mut Store) {
    let i = ValType::I32;
    let count = |f: fn(&Module) -> usize| {
        move |c: &mut Caller<'_>, _: &[Value], r: &mut [Value]| {
            r[0] = Value::I32(f(&*app_module(c)?) as i32);
            Ok(())
        }
    };
    linker.func(
        store,
        M,
        "get_module_size",
        FuncType::new([], [i]),
        count(|m| m.bytes.len()),
    );
    linker.func(
        store,
        M,
        "get_num_types",
        FuncType::new([], [i]),
        count(|m| m.types.len()),
    );
    linker.func(
        store,
        M,
        "get_num_imports",
        FuncType::new([], [i]),
        count(|m| m.imports.len()),
    );
    linker.func(
        store,
        M,
        "get_num_functions",
        FuncType::new([], [i]),
        count(|m| m.num_funcs() as usize),
    );
    linker.func(
        store,
        M,
        "read_module_def",
        FuncType::new([i, i], [i]),
        |c, a, r| {
            let m = app_module(c)?;
            r[0] = copy_out(
                c,
                a[0].i32().unwrap_or(0),
                a[1].i32().unwrap_or(0),
                &m.bytes,
            )?;
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "read_function_name",
        FuncType::new([i, i, i], [i]),
        |c, a, r| {
            let m = app_module(c)?;
            let fid = check_fid(&m, a[0].i32().unwrap_or(-1))?;
            // The name section's name, else empty (as in Wizard).
            let names = crate::core::module::read_func_names(&m.bytes);
            let name = names.get(&fid).map(String::as_str).unwrap_or("");
            r[0] = copy_out(
                c,
                a[1].i32().unwrap_or(0),
                a[2].i32().unwrap_or(0),
                name.as_bytes(),
            )?;
            Ok(())
        },
    );
    linker.func(
        store,
        M,
        "read_function_body",
        FuncType::new([i, i, i], [i]),
        |c, a, r| {
            let m = app_module(c)?;
            let fid = check_fid(&m, a[0].i32().unwrap_or(-1))?;
            // An imported function has no body: empty.
            let body: &[u8] = match fid.checked_sub(m.num_imported_funcs) {
                Some(d) => &m.bytes[m.bodies[d as usize].range.clone()],
                None => &[],
            };
            let body = body.to_vec();
            r[0] = copy_out(c, a[1].i32().unwrap_or(0), a[2].i32().unwrap_or(0), &body)?;
            Ok(())
        },
    );
}
