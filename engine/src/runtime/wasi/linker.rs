//! Registration of every preview1 import with a [`Linker`].

use std::cell::RefCell;
use std::rc::Rc;

use super::errno::*;
use super::{GuestMem, WasiCtx, MODULE};
use crate::core::error::Trap;
use crate::core::types::{FuncType, ValType, Value};
use crate::runtime::store::{Caller, Linker, Store};

const I: ValType = ValType::I32;
const L: ValType = ValType::I64;

fn u32a(args: &[Value], i: usize) -> u32 {
    match args.get(i) {
        Some(Value::I32(v)) => *v as u32,
        Some(Value::I64(v)) => *v as u32,
        _ => 0,
    }
}

fn u64a(args: &[Value], i: usize) -> u64 {
    match args.get(i) {
        Some(Value::I64(v)) => *v as u64,
        Some(Value::I32(v)) => *v as u32 as u64,
        _ => 0,
    }
}

type Impl = fn(&mut WasiCtx, &mut GuestMem, &[Value]) -> Result<(), Errno>;

fn with_ctx(
    ctx: &Rc<RefCell<WasiCtx>>,
    caller: &mut Caller<'_>,
    args: &[Value],
    results: &mut [Value],
    f: Impl,
) -> Result<(), Trap> {
    let mut ctx = ctx
        .try_borrow_mut()
        .map_err(|_| Trap::host("WASI context is already in use"))?;
    let mut empty: [u8; 0] = [];
    let mem: &mut [u8] = match caller.memory_mut() {
        Ok(m) => m,
        Err(_) => &mut empty,
    };
    let r = f(&mut ctx, &mut GuestMem(mem), args);
    if let Some(slot) = results.first_mut() {
        *slot = Value::I32(match r {
            Ok(()) => 0,
            Err(e) => e as i32,
        });
    }
    Ok(())
}

/// Define every `wasi_snapshot_preview1` function in `linker`, all sharing `ctx`.
pub fn add_to_linker(linker: &mut Linker, store: &mut Store, ctx: Rc<RefCell<WasiCtx>>) {
    let mut def = |name: &str, params: &[ValType], f: Impl| {
        let ctx = ctx.clone();
        linker.func(
            store,
            MODULE,
            name,
            FuncType::new(params.to_vec(), vec![I]),
            move |caller, args, results| with_ctx(&ctx, caller, args, results, f),
        );
    };

    def("args_get", &[I, I], |c, m, a| {
        c.args_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("args_sizes_get", &[I, I], |c, m, a| {
        c.args_sizes_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("environ_get", &[I, I], |c, m, a| {
        c.environ_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("environ_sizes_get", &[I, I], |c, m, a| {
        c.environ_sizes_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("clock_res_get", &[I, I], |c, m, a| {
        c.clock_res_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("clock_time_get", &[I, L, I], |c, m, a| {
        c.clock_time_get(m, u32a(a, 0), u64a(a, 1), u32a(a, 2))
    });
    def("fd_advise", &[I, L, L, I], |c, _, a| {
        c.fd_advise(u32a(a, 0), u64a(a, 1), u64a(a, 2), u32a(a, 3))
    });
    def("fd_allocate", &[I, L, L], |c, _, a| {
        c.fd_allocate(u32a(a, 0), u64a(a, 1), u64a(a, 2))
    });
    def("fd_close", &[I], |c, _, a| c.fd_close(u32a(a, 0)));
    def("fd_datasync", &[I], |c, _, a| c.fd_datasync(u32a(a, 0)));
    def("fd_fdstat_get", &[I, I], |c, m, a| {
        c.fd_fdstat_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("fd_fdstat_set_flags", &[I, I], |c, _, a| {
        c.fd_fdstat_set_flags(u32a(a, 0), u32a(a, 1))
    });
    def("fd_fdstat_set_rights", &[I, L, L], |c, _, a| {
        c.fd_fdstat_set_rights(u32a(a, 0), u64a(a, 1), u64a(a, 2))
    });
    def("fd_filestat_get", &[I, I], |c, m, a| {
        c.fd_filestat_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("fd_filestat_set_size", &[I, L], |c, _, a| {
        c.fd_filestat_set_size(u32a(a, 0), u64a(a, 1))
    });
    def("fd_filestat_set_times", &[I, L, L, I], |c, _, a| {
        c.fd_filestat_set_times(u32a(a, 0), u64a(a, 1), u64a(a, 2), u32a(a, 3))
    });
    def("fd_pread", &[I, I, I, L, I], |c, m, a| {
        c.fd_pread(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u64a(a, 3),
            u32a(a, 4),
        )
    });
    def("fd_prestat_get", &[I, I], |c, m, a| {
        c.fd_prestat_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("fd_prestat_dir_name", &[I, I, I], |c, m, a| {
        c.fd_prestat_dir_name(m, u32a(a, 0), u32a(a, 1), u32a(a, 2))
    });
    def("fd_pwrite", &[I, I, I, L, I], |c, m, a| {
        c.fd_pwrite(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u64a(a, 3),
            u32a(a, 4),
        )
    });
    def("fd_read", &[I, I, I, I], |c, m, a| {
        c.fd_read(m, u32a(a, 0), u32a(a, 1), u32a(a, 2), u32a(a, 3))
    });
    def("fd_readdir", &[I, I, I, L, I], |c, m, a| {
        c.fd_readdir(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u64a(a, 3),
            u32a(a, 4),
        )
    });
    def("fd_renumber", &[I, I], |c, _, a| {
        c.fd_renumber(u32a(a, 0), u32a(a, 1))
    });
    def("fd_seek", &[I, L, I, I], |c, m, a| {
        c.fd_seek(m, u32a(a, 0), u64a(a, 1) as i64, u32a(a, 2), u32a(a, 3))
    });
    def("fd_sync", &[I], |c, _, a| c.fd_sync(u32a(a, 0)));
    def("fd_tell", &[I, I], |c, m, a| {
        c.fd_tell(m, u32a(a, 0), u32a(a, 1))
    });
    def("fd_write", &[I, I, I, I], |c, m, a| {
        c.fd_write(m, u32a(a, 0), u32a(a, 1), u32a(a, 2), u32a(a, 3))
    });
    def("path_create_directory", &[I, I, I], |c, m, a| {
        c.path_create_directory(m, u32a(a, 0), u32a(a, 1), u32a(a, 2))
    });
    def("path_filestat_get", &[I, I, I, I, I], |c, m, a| {
        c.path_filestat_get(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u32a(a, 3),
            u32a(a, 4),
        )
    });
    def(
        "path_filestat_set_times",
        &[I, I, I, I, L, L, I],
        |c, m, a| {
            c.path_filestat_set_times(
                m,
                u32a(a, 0),
                u32a(a, 1),
                u32a(a, 2),
                u32a(a, 3),
                u64a(a, 4),
                u64a(a, 5),
                u32a(a, 6),
            )
        },
    );
    def("path_link", &[I, I, I, I, I, I, I], |c, m, a| {
        c.path_link(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u32a(a, 3),
            u32a(a, 4),
            u32a(a, 5),
            u32a(a, 6),
        )
    });
    def("path_open", &[I, I, I, I, I, L, L, I, I], |c, m, a| {
        c.path_open(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u32a(a, 3),
            u32a(a, 4),
            u64a(a, 5),
            u64a(a, 6),
            u32a(a, 7),
            u32a(a, 8),
        )
    });
    def("path_readlink", &[I, I, I, I, I, I], |c, m, a| {
        c.path_readlink(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u32a(a, 3),
            u32a(a, 4),
            u32a(a, 5),
        )
    });
    def("path_remove_directory", &[I, I, I], |c, m, a| {
        c.path_remove_directory(m, u32a(a, 0), u32a(a, 1), u32a(a, 2))
    });
    def("path_rename", &[I, I, I, I, I, I], |c, m, a| {
        c.path_rename(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u32a(a, 3),
            u32a(a, 4),
            u32a(a, 5),
        )
    });
    def("path_symlink", &[I, I, I, I, I], |c, m, a| {
        c.path_symlink(
            m,
            u32a(a, 0),
            u32a(a, 1),
            u32a(a, 2),
            u32a(a, 3),
            u32a(a, 4),
        )
    });
    def("path_unlink_file", &[I, I, I], |c, m, a| {
        c.path_unlink_file(m, u32a(a, 0), u32a(a, 1), u32a(a, 2))
    });
    def("poll_oneoff", &[I, I, I, I], |c, m, a| {
        c.poll_oneoff(m, u32a(a, 0), u32a(a, 1), u32a(a, 2), u32a(a, 3))
    });
    def("proc_raise", &[I], |_, _, _| Err(ENOSYS));
    def("sched_yield", &[], |c, _, _| c.sched_yield());
    def("random_get", &[I, I], |c, m, a| {
        c.random_get(m, u32a(a, 0), u32a(a, 1))
    });
    def("sock_accept", &[I, I, I], |_, _, _| Err(ENOTSUP));
    def("sock_recv", &[I, I, I, I, I, I], |_, _, _| Err(ENOTSUP));
    def("sock_send", &[I, I, I, I, I], |_, _, _| Err(ENOTSUP));
    def("sock_shutdown", &[I, I], |_, _, _| Err(ENOTSUP));

    // proc_exit: flush stdout, then unwind the program with an exit "trap".
    let c = ctx.clone();
    linker.func(
        store,
        MODULE,
        "proc_exit",
        FuncType::new(vec![I], vec![]),
        move |_caller, args, _results| {
            if let Ok(mut ctx) = c.try_borrow_mut() {
                let _ = ctx.flush();
            }
            Err(Trap::exit(u32a(args, 0) as i32))
        },
    );
}
