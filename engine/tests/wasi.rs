//! WASI preview1 end-to-end tests: small `.wat` programs importing
//! `wasi_snapshot_preview1`, linked with `wasi::add_to_linker`, run through the
//! interpreter; stdout is captured and files are checked in a temp dir.
//!
//! Two styles:
//! - programs with a `_start` that do the work themselves (hello, args/env,
//!   file round trip, proc_exit);
//! - a "shim" module that re-exports every WASI import as a plain export with the
//!   same signature, driven from Rust (write paths into its memory, call, read back).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use wizeng::wasi::{self, CaptureBuffer, WasiCtx};
use wizeng::{Extern, InstanceId, Linker, Module, Store, Trap, Value};

/// Every preview1 function: (name, params, has an errno result).
const SIGS: &[(&str, &str, bool)] = &[
    ("args_get", "i32 i32", true),
    ("args_sizes_get", "i32 i32", true),
    ("environ_get", "i32 i32", true),
    ("environ_sizes_get", "i32 i32", true),
    ("clock_res_get", "i32 i32", true),
    ("clock_time_get", "i32 i64 i32", true),
    ("fd_advise", "i32 i64 i64 i32", true),
    ("fd_allocate", "i32 i64 i64", true),
    ("fd_close", "i32", true),
    ("fd_datasync", "i32", true),
    ("fd_fdstat_get", "i32 i32", true),
    ("fd_fdstat_set_flags", "i32 i32", true),
    ("fd_fdstat_set_rights", "i32 i64 i64", true),
    ("fd_filestat_get", "i32 i32", true),
    ("fd_filestat_set_size", "i32 i64", true),
    ("fd_filestat_set_times", "i32 i64 i64 i32", true),
    ("fd_pread", "i32 i32 i32 i64 i32", true),
    ("fd_prestat_get", "i32 i32", true),
    ("fd_prestat_dir_name", "i32 i32 i32", true),
    ("fd_pwrite", "i32 i32 i32 i64 i32", true),
    ("fd_read", "i32 i32 i32 i32", true),
    ("fd_readdir", "i32 i32 i32 i64 i32", true),
    ("fd_renumber", "i32 i32", true),
    ("fd_seek", "i32 i64 i32 i32", true),
    ("fd_sync", "i32", true),
    ("fd_tell", "i32 i32", true),
    ("fd_write", "i32 i32 i32 i32", true),
    ("path_create_directory", "i32 i32 i32", true),
    ("path_filestat_get", "i32 i32 i32 i32 i32", true),
    (
        "path_filestat_set_times",
        "i32 i32 i32 i32 i64 i64 i32",
        true,
    ),
    ("path_link", "i32 i32 i32 i32 i32 i32 i32", true),
    ("path_open", "i32 i32 i32 i32 i32 i64 i64 i32 i32", true),
    ("path_readlink", "i32 i32 i32 i32 i32 i32", true),
    ("path_remove_directory", "i32 i32 i32", true),
    ("path_rename", "i32 i32 i32 i32 i32 i32", true),
    ("path_symlink", "i32 i32 i32 i32 i32", true),
    ("path_unlink_file", "i32 i32 i32", true),
    ("poll_oneoff", "i32 i32 i32 i32", true),
    ("proc_exit", "i32", false),
    ("proc_raise", "i32", true),
    ("sched_yield", "", true),
    ("random_get", "i32 i32", true),
    ("sock_accept", "i32 i32 i32", true),
    ("sock_recv", "i32 i32 i32 i32 i32 i32", true),
    ("sock_send", "i32 i32 i32 i32 i32", true),
    ("sock_shutdown", "i32 i32", true),
];

const ENOENT: i32 = 44;
const EEXIST: i32 = 20;
const ENOTCAPABLE: i32 = 76;
const ENOSYS: i32 = 52;
const ENOTSUP: i32 = 58;
const EBADF: i32 = 8;
const EFAULT: i32 = 21;

const O_CREAT: i32 = 1;
const O_DIRECTORY: i32 = 2;
const O_EXCL: i32 = 4;
const O_TRUNC: i32 = 8;
const RIGHTS_RW: i64 = (1 << 1) | (1 << 6); // fd_read | fd_write

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!(
        "wizeng-wasi-it-{}-{}-{}",
        std::process::id(),
        tag,
        n
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Run {
    store: Store,
    inst: InstanceId,
    stdout: CaptureBuffer,
    stderr: CaptureBuffer,
    ctx: Rc<RefCell<WasiCtx>>,
}

impl Run {
    fn new(wat: &str, ctx: WasiCtx) -> Run {
        let stdout = CaptureBuffer::new();
        let stderr = CaptureBuffer::new();
        let ctx = Rc::new(RefCell::new(
            ctx.capture_stdout(&stdout).capture_stderr(&stderr),
        ));
        let mut store = Store::default();
        let mut linker = Linker::new();
        wasi::add_to_linker(&mut linker, &mut store, ctx.clone());
        let bytes = wat::parse_str(wat).expect("test program parses");
        let module = Arc::new(Module::new(&bytes).expect("test program loads"));
        let inst = linker
            .instantiate(&mut store, &module)
            .expect("test program instantiates");
        Run {
            store,
            inst,
            stdout,
            stderr,
            ctx,
        }
    }

    fn call(&mut self, name: &str, args: &[Value]) -> Result<Vec<Value>, Trap> {
        let f = self
            .store
            .export_func(self.inst, name)
            .unwrap_or_else(|| panic!("no export {name}"));
        self.store.invoke(f, args)
    }

    fn start(&mut self) -> Result<Vec<Value>, Trap> {
        self.call("_start", &[])
    }

    /// Call a shim export with i32/i64 arguments given as i64; returns the errno.
    fn wasi(&mut self, name: &str, args: &[i64]) -> i32 {
        let sig = SIGS.iter().find(|s| s.0 == name).unwrap().1;
        let vals: Vec<Value> = sig
            .split_whitespace()
            .zip(args)
            .map(|(t, &a)| {
                if t == "i64" {
                    Value::I64(a)
                } else {
                    Value::I32(a as i32)
                }
            })
            .collect();
        assert_eq!(vals.len(), args.len(), "argument count for {name}");
        match self.call(name, &vals) {
            Ok(r) => r[0].i32().unwrap(),
            Err(t) => panic!("{name} trapped: {t}"),
        }
    }

    fn mem(&mut self) -> &mut [u8] {
        match self.store.export(self.inst, "memory") {
            Some(Extern::Memory(m)) => self.store.memory_mut(m).data_mut(),
            _ => panic!("no memory export"),
        }
    }

    fn put(&mut self, addr: usize, bytes: &[u8]) -> (i64, i64) {
        self.mem()[addr..addr + bytes.len()].copy_from_slice(bytes);
        (addr as i64, bytes.len() as i64)
    }

    fn u32_at(&mut self, addr: usize) -> u32 {
        u32::from_le_bytes(self.mem()[addr..addr + 4].try_into().unwrap())
    }

    fn u64_at(&mut self, addr: usize) -> u64 {
        u64::from_le_bytes(self.mem()[addr..addr + 8].try_into().unwrap())
    }
}

/// A module that imports every WASI function and re-exports it unchanged.
fn shim_wat() -> String {
    let mut imports = String::new();
    let mut exports = String::new();
    for (name, params, has_result) in SIGS {
        let result = if *has_result { "(result i32)" } else { "" };
        imports.push_str(&format!(
            "  (import \"wasi_snapshot_preview1\" \"{name}\" (func ${name} (param {params}) {result}))\n"
        ));
        let gets: String = (0..params.split_whitespace().count())
            .map(|i| format!("local.get {i} "))
            .collect();
        exports.push_str(&format!(
            "  (func (export \"{name}\") (param {params}) {result} {gets} call ${name})\n"
        ));
    }
    format!("(module\n{imports}  (memory (export \"memory\") 1)\n{exports})")
}

fn shim(ctx: WasiCtx) -> Run {
    Run::new(&shim_wat(), ctx)
}

fn open(r: &mut Run, dirfd: i64, path: &str, oflags: i32, follow: bool) -> Result<u32, i32> {
    let (p, l) = r.put(1024, path.as_bytes());
    let e = r.wasi(
        "path_open",
        &[
            dirfd,
            follow as i64,
            p,
            l,
            oflags as i64,
            RIGHTS_RW,
            RIGHTS_RW,
            0,
            512,
        ],
    );
    if e == 0 {
        Ok(r.u32_at(512))
    } else {
        Err(e)
    }
}

fn path_op(r: &mut Run, name: &str, path: &str) -> i32 {
    let (p, l) = r.put(1024, path.as_bytes());
    r.wasi(name, &[3, p, l])
}

fn sandbox_with_outside(tag: &str) -> (TempDir, PathBuf, PathBuf) {
    use std::os::unix::fs::symlink;
    let base = temp_dir(tag);
    let sandbox = base.join("sandbox");
    let outside = base.join("outside");
    std::fs::create_dir_all(sandbox.join("a")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x"), b"outside file").unwrap();
    symlink("../outside", sandbox.join("link_out")).unwrap();
    symlink("/etc/passwd", sandbox.join("link_abs")).unwrap();
    symlink("hop2", sandbox.join("hop1")).unwrap();
    symlink("a/../../outside/x", sandbox.join("hop2")).unwrap();
    symlink("../outside/created", sandbox.join("dangling")).unwrap();
    (TempDir(base), sandbox, outside)
}

fn tree_snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            v.extend(tree_snapshot(&e.path()));
        } else if ft.is_file() {
            v.push((e.path(), std::fs::read(e.path()).unwrap()));
        } else {
            v.push((e.path(), Vec::new()));
        }
    }
    v.sort();
    v
}

// ---------------------------------------------------------------------------
// Linking only (no execution needed).

#[test]
fn every_preview1_function_links_with_its_signature() {
    let r = shim(WasiCtx::new());
    assert_eq!(SIGS.len(), 46);
    drop(r);
    // A wrong signature is rejected at link time.
    let bad = r#"(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32) (result i32))))"#;
    let mut store = Store::default();
    let mut linker = Linker::new();
    wasi::add_to_linker(
        &mut linker,
        &mut store,
        Rc::new(RefCell::new(WasiCtx::new())),
    );
    let module = Arc::new(Module::new(&wat::parse_str(bad).unwrap()).unwrap());
    assert!(linker.instantiate(&mut store, &module).is_err());
}

// ---------------------------------------------------------------------------
// `_start` programs.

const HELLO: &str = r#"
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 8) "hello, world\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 8))
    (i32.store (i32.const 4) (i32.const 13))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 100)))))
"#;

#[test]
fn hello_world_to_stdout() {
    let mut r = Run::new(HELLO, WasiCtx::new());
    r.start().unwrap();
    assert_eq!(r.stdout.to_string_lossy(), "hello, world\n");
    assert_eq!(r.u32_at(100), 13);
}

/// Writes argv_buf then environ_buf to stdout.
const ARGS_ENV: &str = r#"
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $print (param $ptr i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $ptr))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))
  (func (export "_start")
    ;; argc at 0, argv_buf_size at 4, argv at 1000, argv_buf at 2000
    (if (call $args_sizes_get (i32.const 0) (i32.const 4)) (then unreachable))
    (if (call $args_get (i32.const 1000) (i32.const 2000)) (then unreachable))
    (call $print (i32.const 2000) (i32.load (i32.const 4)))
    ;; count at 8, size at 12, environ at 3000, environ_buf at 4000
    (if (call $environ_sizes_get (i32.const 8) (i32.const 12)) (then unreachable))
    (if (call $environ_get (i32.const 3000) (i32.const 4000)) (then unreachable))
    (call $print (i32.const 4000) (i32.load (i32.const 12)))))
"#;

#[test]
fn args_and_environ() {
    let ctx = WasiCtx::new()
        .args(["prog.wasm", "one", "two words"])
        .env("A", "1")
        .envs_kv(["B=x=y"]);
    let mut r = Run::new(ARGS_ENV, ctx);
    r.start().unwrap();
    assert_eq!(
        r.stdout.contents(),
        b"prog.wasm\0one\0two words\0A=1\0B=x=y\0"
    );
    assert_eq!(r.u32_at(0), 3);
    assert_eq!(r.u32_at(8), 2);
    // argv[1] points at "one".
    assert_eq!(r.u32_at(1004), 2000 + 10);
}

/// Create, write, seek, read back, close, print what was read.
const FILE_ROUND_TRIP: &str = r#"
(module
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "dir/out.txt")
  (data (i32.const 200) "round trip data")
  (global $fd (mut i32) (i32.const 0))
  (func $check (param i32) (if (local.get 0) (then (call $proc_exit (i32.add (i32.const 100) (local.get 0))))))
  (func (export "_start")
    ;; open dir/out.txt in preopen 3: creat|trunc, rights read|write
    (call $check (call $path_open (i32.const 3) (i32.const 1) (i32.const 100) (i32.const 11)
      (i32.const 9) (i64.const 66) (i64.const 66) (i32.const 0) (i32.const 0)))
    (global.set $fd (i32.load (i32.const 0)))
    (i32.store (i32.const 8) (i32.const 200))
    (i32.store (i32.const 12) (i32.const 15))
    (call $check (call $fd_write (global.get $fd) (i32.const 8) (i32.const 1) (i32.const 16)))
    ;; seek to 6 ("trip data")
    (call $check (call $fd_seek (global.get $fd) (i64.const 6) (i32.const 0) (i32.const 24)))
    (i32.store (i32.const 8) (i32.const 300))
    (i32.store (i32.const 12) (i32.const 100))
    (call $check (call $fd_read (global.get $fd) (i32.const 8) (i32.const 1) (i32.const 16)))
    (call $check (call $fd_close (global.get $fd)))
    ;; print the bytes read
    (i32.store (i32.const 12) (i32.load (i32.const 16)))
    (call $check (call $fd_write (i32.const 1) (i32.const 8) (i32.const 1) (i32.const 16)))
    ;; the fd is gone: closing again is EBADF (8) -> exit 108
    (call $check (call $fd_close (global.get $fd)))))
"#;

#[test]
fn file_round_trip() {
    let tmp = TempDir(temp_dir("roundtrip"));
    std::fs::create_dir(tmp.0.join("dir")).unwrap();
    let mut r = Run::new(
        FILE_ROUND_TRIP,
        WasiCtx::new().preopened_dir(&tmp.0, ".").unwrap(),
    );
    let err = r.start().unwrap_err();
    assert_eq!(err.exit_code(), Some(100 + EBADF), "{err}");
    assert_eq!(r.stdout.to_string_lossy(), "trip data");
    assert_eq!(
        std::fs::read(tmp.0.join("dir/out.txt")).unwrap(),
        b"round trip data"
    );
    assert_eq!(r.u64_at(24), 6);
}

const EXIT: &str = r#"
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 8) "bye")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 8))
    (i32.store (i32.const 4) (i32.const 3))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 100)))
    (call $proc_exit (i32.const 7))
    unreachable))
"#;

#[test]
fn proc_exit_code_and_flush() {
    let mut r = Run::new(EXIT, WasiCtx::new());
    let t = r.start().unwrap_err();
    assert_eq!(t.exit_code(), Some(7));
    assert_eq!(r.stdout.to_string_lossy(), "bye");
    // Exit 0 is also an exit, not a success return.
    let mut r = Run::new(
        &EXIT.replace("(i32.const 7)", "(i32.const 0)"),
        WasiCtx::new(),
    );
    assert_eq!(r.start().unwrap_err().exit_code(), Some(0));
}

// ---------------------------------------------------------------------------
// Shim-driven tests.

#[test]
fn clocks_are_monotonic_and_random_is_random() {
    let mut r = shim(WasiCtx::new());
    assert_eq!(r.wasi("clock_time_get", &[1, 1, 0]), 0);
    let t1 = r.u64_at(0);
    std::thread::sleep(std::time::Duration::from_millis(2));
    assert_eq!(r.wasi("clock_time_get", &[1, 1, 8]), 0);
    let t2 = r.u64_at(8);
    assert!(t2 > t1 && t2 - t1 >= 2_000_000, "{t1} {t2}");
    assert_eq!(r.wasi("clock_time_get", &[0, 1, 16]), 0);
    assert!(r.u64_at(16) > 1_600_000_000 * 1_000_000_000);
    for id in 0..4 {
        assert_eq!(r.wasi("clock_res_get", &[id, 24]), 0);
        assert!(r.u64_at(24) > 0);
        assert_eq!(r.wasi("clock_time_get", &[id, 0, 32]), 0);
    }
    assert_eq!(r.wasi("clock_time_get", &[9, 0, 32]), 28);
    assert_eq!(r.wasi("random_get", &[100, 64]), 0);
    let a = r.mem()[100..164].to_vec();
    assert_eq!(r.wasi("random_get", &[100, 64]), 0);
    let b = r.mem()[100..164].to_vec();
    assert_ne!(a, b);
    assert!(a.iter().any(|&x| x != 0));
    assert_eq!(r.wasi("sched_yield", &[]), 0);
    // poll_oneoff with one 1ms relative clock subscription at 2000, events at 3000.
    let mut sub = [0u8; 48];
    sub[0..8].copy_from_slice(&5u64.to_le_bytes());
    sub[16..20].copy_from_slice(&1u32.to_le_bytes());
    sub[24..32].copy_from_slice(&1_000_000u64.to_le_bytes());
    r.put(2000, &sub);
    assert_eq!(r.wasi("poll_oneoff", &[2000, 3000, 1, 4000]), 0);
    assert_eq!(r.u32_at(4000), 1);
    assert_eq!(r.u64_at(3000), 5);
}

#[test]
fn unsupported_calls_return_errno() {
    let mut r = shim(WasiCtx::new());
    assert_eq!(r.wasi("proc_raise", &[9]), ENOSYS);
    assert_eq!(r.wasi("sock_accept", &[3, 0, 0]), ENOTSUP);
    assert_eq!(r.wasi("sock_recv", &[3, 0, 0, 0, 0, 0]), ENOTSUP);
    assert_eq!(r.wasi("sock_send", &[3, 0, 0, 0, 0]), ENOTSUP);
    assert_eq!(r.wasi("sock_shutdown", &[3, 0]), ENOTSUP);
    // Bad fds and pointers never trap.
    assert_eq!(r.wasi("fd_close", &[42]), EBADF);
    assert_eq!(r.wasi("fd_write", &[1, 65530, 1, 0]), EFAULT);
    assert_eq!(r.wasi("args_sizes_get", &[65535, 0]), EFAULT);
    assert_eq!(r.wasi("fd_prestat_get", &[3, 0]), EBADF);
}

#[test]
fn readdir_and_prestat() {
    let tmp = TempDir(temp_dir("readdir"));
    for n in ["b.txt", "a.txt", "c"] {
        if n == "c" {
            std::fs::create_dir(tmp.0.join(n)).unwrap();
        } else {
            std::fs::write(tmp.0.join(n), n).unwrap();
        }
    }
    let mut r = shim(WasiCtx::new().preopened_dir(&tmp.0, "/data").unwrap());
    assert_eq!(r.wasi("fd_prestat_get", &[3, 0]), 0);
    assert_eq!((r.mem()[0], r.u32_at(4)), (0, 5));
    assert_eq!(r.wasi("fd_prestat_dir_name", &[3, 16, 5]), 0);
    assert_eq!(&r.mem()[16..21], b"/data");
    assert_eq!(r.wasi("fd_prestat_get", &[4, 0]), EBADF);
    assert_eq!(r.wasi("fd_readdir", &[3, 1000, 4000, 0, 0]), 0);
    let used = r.u32_at(0) as usize;
    let mut at = 1000;
    let mut names = Vec::new();
    while at < 1000 + used {
        let len = r.u32_at(at + 16) as usize;
        let ty = r.mem()[at + 20];
        names.push((
            String::from_utf8(r.mem()[at + 24..at + 24 + len].to_vec()).unwrap(),
            ty,
        ));
        at += 24 + len;
    }
    assert_eq!(
        names,
        [
            (".".to_string(), 3),
            ("..".to_string(), 3),
            ("a.txt".to_string(), 4),
            ("b.txt".to_string(), 4),
            ("c".to_string(), 3)
        ]
    );
    // Open the subdirectory and list it: only . and ..
    let fd = open(&mut r, 3, "c", O_DIRECTORY, true).unwrap();
    assert_eq!(r.wasi("fd_readdir", &[fd as i64, 1000, 4000, 0, 0]), 0);
    assert_eq!(r.u32_at(0), 2 * (24 + 1) + 1);
}

#[test]
fn path_escape_attempts_are_refused() {
    let (_tmp, sandbox, outside) = sandbox_with_outside("escape");
    let before_outside = tree_snapshot(&outside);
    let mut r = shim(WasiCtx::new().preopened_dir(&sandbox, ".").unwrap());
    for (path, follow) in [
        ("../x", true),
        ("../outside/x", true),
        ("/etc/passwd", true),
        ("a/../../outside/x", true),
        ("link_out/x", true),
        ("link_out/x", false), // intermediate symlinks are always followed (and checked)
        ("link_abs", true),
        ("hop1", true),
        ("hop2", true),
    ] {
        assert_eq!(
            open(&mut r, 3, path, 0, follow),
            Err(ENOTCAPABLE),
            "open {path}"
        );
    }
    // Creating through a final symlink that points outside.
    assert_eq!(open(&mut r, 3, "dangling", O_CREAT, true), Err(ENOTCAPABLE));
    assert_eq!(
        open(&mut r, 3, "link_out/new", O_CREAT | O_EXCL, true),
        Err(ENOTCAPABLE)
    );
    assert_eq!(
        open(&mut r, 3, "../new", O_CREAT | O_TRUNC, true),
        Err(ENOTCAPABLE)
    );
    // Directory and file operations.
    assert_eq!(
        path_op(&mut r, "path_create_directory", "../newdir"),
        ENOTCAPABLE
    );
    assert_eq!(
        path_op(&mut r, "path_create_directory", "link_out/newdir"),
        ENOTCAPABLE
    );
    assert_eq!(
        path_op(&mut r, "path_create_directory", "/tmp/newdir"),
        ENOTCAPABLE
    );
    assert_eq!(
        path_op(&mut r, "path_unlink_file", "link_out/x"),
        ENOTCAPABLE
    );
    assert_eq!(
        path_op(&mut r, "path_unlink_file", "a/../../outside/x"),
        ENOTCAPABLE
    );
    assert_eq!(
        path_op(&mut r, "path_remove_directory", "../outside"),
        ENOTCAPABLE
    );
    let (p, l) = r.put(1024, b"link_out/x");
    assert_eq!(
        r.wasi("path_filestat_get", &[3, 1, p, l, 2048]),
        ENOTCAPABLE
    );
    let (p2, l2) = r.put(1100, b"stolen");
    assert_eq!(r.wasi("path_rename", &[3, p, l, 3, p2, l2]), ENOTCAPABLE);
    assert_eq!(r.wasi("path_link", &[3, 0, p, l, 3, p2, l2]), ENOTCAPABLE);
    // A symlink with an absolute target can't be made; a relative one pointing
    // outside can, but it can't be followed.
    let (t, tl) = r.put(1200, b"/etc");
    let (n, nl) = r.put(1300, b"newlink");
    assert_eq!(r.wasi("path_symlink", &[t, tl, 3, n, nl]), ENOTCAPABLE);
    let (t, tl) = r.put(1200, b"../outside/x");
    assert_eq!(r.wasi("path_symlink", &[t, tl, 3, n, nl]), 0);
    assert_eq!(open(&mut r, 3, "newlink", 0, true), Err(ENOTCAPABLE));
    assert_eq!(
        open(&mut r, 3, "newlink", O_CREAT | O_TRUNC, true),
        Err(ENOTCAPABLE)
    );
    // Nothing outside was touched.
    assert_eq!(tree_snapshot(&outside), before_outside);
    assert!(!sandbox.parent().unwrap().join("newdir").exists());
    assert!(!sandbox.parent().unwrap().join("new").exists());
    // Inside paths with `..` that stay inside are fine.
    std::fs::write(sandbox.join("inside.txt"), b"ok").unwrap();
    let fd = open(&mut r, 3, "a/../inside.txt", 0, true).unwrap();
    assert!(fd >= 4);
    assert_eq!(path_op(&mut r, "path_create_directory", "a/../made"), 0);
    assert!(sandbox.join("made").is_dir());
}

#[test]
fn directories_and_errnos() {
    let tmp = TempDir(temp_dir("dirs"));
    let mut r = shim(WasiCtx::new().preopened_dir(&tmp.0, ".").unwrap());
    assert_eq!(path_op(&mut r, "path_create_directory", "d"), 0);
    assert_eq!(path_op(&mut r, "path_create_directory", "d"), EEXIST);
    let fd = open(&mut r, 3, "d/f", O_CREAT | O_EXCL, true).unwrap();
    assert_eq!(open(&mut r, 3, "d/f", O_CREAT | O_EXCL, true), Err(EEXIST));
    assert_eq!(open(&mut r, 3, "d/missing", 0, true), Err(ENOENT));
    assert_eq!(path_op(&mut r, "path_remove_directory", "d"), 55); // ENOTEMPTY
    assert_eq!(path_op(&mut r, "path_unlink_file", "d"), 31); // EISDIR
    assert_eq!(r.wasi("fd_filestat_set_size", &[fd as i64, 10]), 0);
    assert_eq!(r.wasi("fd_filestat_get", &[fd as i64, 100]), 0);
    assert_eq!((r.mem()[116], r.u64_at(132)), (4, 10));
    assert_eq!(r.wasi("fd_fdstat_get", &[3, 100]), 0);
    assert_eq!(r.mem()[100], 3);
    assert_eq!(r.wasi("fd_sync", &[fd as i64]), 0);
    assert_eq!(r.wasi("fd_datasync", &[fd as i64]), 0);
    assert_eq!(r.wasi("fd_advise", &[fd as i64, 0, 0, 0]), 0);
    assert_eq!(r.wasi("fd_allocate", &[fd as i64, 0, 20]), 0);
    assert_eq!(std::fs::metadata(tmp.0.join("d/f")).unwrap().len(), 20);
    assert_eq!(r.wasi("fd_close", &[fd as i64]), 0);
    let (p, l) = r.put(1024, b"d/f");
    let (p2, l2) = r.put(1100, b"g");
    assert_eq!(r.wasi("path_rename", &[3, p, l, 3, p2, l2]), 0);
    assert!(tmp.0.join("g").is_file());
    // Symlink inside, readlink it.
    let (t, tl) = r.put(1200, b"g");
    let (n, nl) = r.put(1300, b"lnk");
    assert_eq!(r.wasi("path_symlink", &[t, tl, 3, n, nl]), 0);
    assert_eq!(r.wasi("path_readlink", &[3, n, nl, 1400, 100, 1500]), 0);
    assert_eq!(r.u32_at(1500), 1);
    assert_eq!(r.mem()[1400], b'g');
    assert_eq!(path_op(&mut r, "path_unlink_file", "lnk"), 0);
    assert_eq!(path_op(&mut r, "path_unlink_file", "g"), 0);
    assert_eq!(path_op(&mut r, "path_remove_directory", "d"), 0);
    assert!(std::fs::read_dir(&tmp.0).unwrap().next().is_none());
}

#[test]
fn stderr_flushes_stdout_first_and_stdin_reads() {
    let mut r = shim(WasiCtx::new().stdin_bytes(b"abc".to_vec()));
    let (p, _) = r.put(100, b"out");
    r.put(0, &[p as u8, 0, 0, 0, 3, 0, 0, 0]);
    assert_eq!(r.wasi("fd_write", &[1, 0, 1, 50]), 0);
    assert_eq!(r.wasi("fd_write", &[2, 0, 1, 50]), 0);
    assert_eq!(r.stdout.to_string_lossy(), "out");
    assert_eq!(r.stderr.to_string_lossy(), "out");
    r.put(0, &[200, 0, 0, 0, 10, 0, 0, 0]);
    assert_eq!(r.wasi("fd_read", &[0, 0, 1, 50]), 0);
    assert_eq!(r.u32_at(50), 3);
    assert_eq!(&r.mem()[200..203], b"abc");
    r.ctx.borrow_mut().flush().unwrap();
}

/// Manual smoke test with a real WASI program, ignored by default:
/// `WIZENG_WASI_RUN="prog.wasm arg..." [WIZENG_WASI_DIR=/host/dir] [WIZENG_WASI_EXPECT=text]
///  nice cargo test -p wizeng --test wasi real_program -- --ignored --nocapture`
/// The preopen dir (default: the program's directory) is mapped to the same guest path.
#[test]
#[ignore = "manual: runs the program named by WIZENG_WASI_RUN"]
fn real_program_smoke() {
    let cmd = std::env::var("WIZENG_WASI_RUN")
        .expect("set WIZENG_WASI_RUN=\"prog.wasm arg...\" to run this test");
    let args: Vec<String> = cmd.split_whitespace().map(String::from).collect();
    let prog = PathBuf::from(&args[0]);
    let dir = std::env::var("WIZENG_WASI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| prog.parent().unwrap().to_path_buf());
    let ctx = WasiCtx::new()
        .args(args.clone())
        .preopened_dir(&dir, dir.to_str().unwrap())
        .unwrap();
    let stdout = CaptureBuffer::new();
    let ctx = Rc::new(RefCell::new(ctx.capture_stdout(&stdout)));
    let mut store = Store::default();
    let mut linker = Linker::new();
    wasi::add_to_linker(&mut linker, &mut store, ctx.clone());
    let module = Arc::new(Module::from_file(&prog).unwrap());
    let inst = linker.instantiate(&mut store, &module).unwrap();
    let f = store.export_func(inst, "_start").unwrap();
    let t0 = std::time::Instant::now();
    let r = store.invoke(f, &[]);
    let out = stdout.to_string_lossy();
    println!(
        "--- stdout ({} bytes, {:?}) ---\n{}",
        out.len(),
        t0.elapsed(),
        &out[..out.len().min(3000)]
    );
    match &r {
        Ok(_) => println!("--- returned normally"),
        Err(t) => println!("--- {t}"),
    }
    assert!(
        r.is_ok() || r.as_ref().unwrap_err().exit_code() == Some(0),
        "{r:?}"
    );
    if let Ok(want) = std::env::var("WIZENG_WASI_EXPECT") {
        assert!(out.contains(&want), "stdout lacks {want:?}");
    }
}
