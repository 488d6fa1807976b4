//! WASI preview1 (`wasi_snapshot_preview1`) host functions.
//!
//! Embedding:
//! ```no_run
//! # use std::{cell::RefCell, rc::Rc};
//! # use wizeng::{Linker, Store, wasi::{self, WasiCtx}};
//! let ctx = WasiCtx::new()
//!     .args(["prog.wasm", "arg1"])
//!     .env("KEY", "value")
//!     .preopened_dir("/tmp/data", "/data").unwrap();
//! let ctx = Rc::new(RefCell::new(ctx));
//! let mut store = Store::default();
//! let mut linker = Linker::new();
//! wasi::add_to_linker(&mut linker, &mut store, ctx.clone());
//! // ... instantiate, call `_start`; a `Trap` with `exit_code()` is `proc_exit` ...
//! ctx.borrow_mut().flush().ok();
//! ```
//!
//! Filesystem access goes through `cap-std`: every path the guest names is
//! resolved relative to a preopened directory handle and can never leave it
//! (absolute paths, `..` above the root and symlinks pointing outside all fail
//! with `ENOTCAPABLE` or the OS error the resolution hit). See [`check_guest_path`].
//!
//! Coverage: all 46 preview1 imports are defined. Everything is implemented for
//! real except `proc_raise` (`ENOSYS`) and `sock_accept`/`sock_recv`/`sock_send`/
//! `sock_shutdown` (`ENOTSUP`). Rights are reported (all rights; stdio without
//! seek/tell so `isatty` works) but not enforced beyond what the OS enforces;
//! `fd_fdstat_set_rights` is accepted and ignored. `fd_fdstat_set_flags` supports
//! `APPEND`/`NONBLOCK` on files (the sync flags give `ENOTSUP`). `poll_oneoff`
//! sleeps until the earliest clock when only clocks are subscribed; fd
//! subscriptions are reported ready at once. Guest memory accesses out of bounds
//! give `EFAULT`; no function traps except `proc_exit` (an exit "trap").

pub mod errno;
mod host;
mod linker;
mod mem;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

pub use errno::Errno;
pub use linker::add_to_linker;
pub use mem::GuestMem;

/// The module name under which the functions are defined.
pub const MODULE: &str = "wasi_snapshot_preview1";

/// Buffered stdout is written out when it grows past this many bytes.
const STDOUT_BUFFER: usize = 64 * 1024;

/// A shared in-memory buffer that captures a guest's stdout or stderr (tests,
/// embedders). Clones share the same bytes.
#[derive(Clone, Default, Debug)]
pub struct CaptureBuffer(Rc<RefCell<Vec<u8>>>);

impl CaptureBuffer {
    pub fn new() -> CaptureBuffer {
        CaptureBuffer::default()
    }
    /// An empty buffer with room for `bytes` (no regrowing and copying while
    /// a large output of known size is captured).
    pub fn with_capacity(bytes: usize) -> CaptureBuffer {
        CaptureBuffer(Rc::new(RefCell::new(Vec::with_capacity(bytes))))
    }
    /// A copy of everything captured so far.
    pub fn contents(&self) -> Vec<u8> {
        self.0.borrow().clone()
    }
    pub fn to_string_lossy(&self) -> String {
        // Valid UTF-8 (the usual case) is checked a word at a time; the
        // lossy decoder goes byte by byte.
        let b = self.0.borrow();
        match std::str::from_utf8(&b) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(&b).into_owned(),
        }
    }
    pub fn clear(&self) {
        self.0.borrow_mut().clear()
    }
    /// Everything captured so far, as text, leaving the buffer empty: no copy
    /// when it is valid UTF-8 (a report of millions of rows is captured
    /// whole before it is rendered).
    pub fn take_string_lossy(&self) -> String {
        let b = std::mem::take(&mut *self.0.borrow_mut());
        String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// Where stdout went before [`WasiCtx::redirect_stdout`].
pub struct SavedStdout(Output, bool);

enum Input {
    Inherit,
    Bytes(io::Cursor<Vec<u8>>),
}

enum Output {
    /// The process's stdout (buffered) or stderr (unbuffered).
    Inherit {
        buf: Vec<u8>,
    },
    Capture(CaptureBuffer),
}

/// What a guest file descriptor refers to.
pub(crate) enum Desc {
    Stdin,
    Stdout,
    Stderr,
    File(FileDesc),
    Dir(DirDesc),
}

pub(crate) struct FileDesc {
    pub file: std::fs::File,
    /// WASI fdflags the file was opened with / set to.
    pub fdflags: u16,
}

pub(crate) struct DirDesc {
    pub dir: cap_std::fs::Dir,
    /// The guest path, if this is a preopen.
    pub preopen: Option<String>,
    /// Directory listing snapshot taken at `fd_readdir` cookie 0, so cookies stay stable.
    pub listing: Option<Vec<host::DirEntry>>,
}

/// WASI state of one program: arguments, environment, descriptor table.
pub struct WasiCtx {
    args: Vec<String>,
    env: Vec<String>,
    fds: BTreeMap<u32, Desc>,
    /// Next preopen fd to hand out while building.
    next_preopen: u32,
    stdin: Input,
    stdout: Output,
    stderr: Output,
    stdout_tty: bool,
    stderr_tty: bool,
    stdin_tty: bool,
}

impl Default for WasiCtx {
    fn default() -> Self {
        WasiCtx::new()
    }
}

fn isatty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor number.
    unsafe { libc::isatty(fd) == 1 }
}

impl WasiCtx {
    /// No arguments, no environment, no preopens; stdio inherited from the process.
    pub fn new() -> WasiCtx {
        let mut fds = BTreeMap::new();
        fds.insert(0, Desc::Stdin);
        fds.insert(1, Desc::Stdout);
        fds.insert(2, Desc::Stderr);
        WasiCtx {
            args: Vec::new(),
            env: Vec::new(),
            fds,
            next_preopen: 3,
            stdin: Input::Inherit,
            stdout: Output::Inherit { buf: Vec::new() },
            stderr: Output::Inherit { buf: Vec::new() },
            stdout_tty: isatty(1),
            stderr_tty: isatty(2),
            stdin_tty: isatty(0),
        }
    }

    /// Append one argument (the first one is the program name, `argv[0]`).
    pub fn arg(mut self, a: impl Into<String>) -> Self {
        self.args.push(a.into());
        self
    }

    /// Append arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Add an environment variable.
    pub fn env(mut self, key: impl AsRef<str>, value: impl AsRef<str>) -> Self {
        self.env
            .push(format!("{}={}", key.as_ref(), value.as_ref()));
        self
    }

    /// Add environment variables given as `KEY=VALUE` strings (as `--env` takes
    /// them); a string without `=` is an empty variable `KEY=`.
    pub fn envs_kv<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, kvs: I) -> Self {
        for kv in kvs {
            let kv = kv.as_ref();
            self.env.push(if kv.contains('=') {
                kv.to_string()
            } else {
                format!("{kv}=")
            });
        }
        self
    }

    /// Pass the whole host environment through.
    pub fn inherit_env(mut self) -> Self {
        for (k, v) in std::env::vars() {
            self.env.push(format!("{k}={v}"));
        }
        self
    }

    /// Preopen host directory `host` under guest path `guest` (e.g. `"."`,
    /// `"/data"`). Preopens get fds 3, 4, ... in the order they are added.
    pub fn preopened_dir(
        mut self,
        host: impl AsRef<Path>,
        guest: impl Into<String>,
    ) -> io::Result<Self> {
        let dir = cap_std::fs::Dir::open_ambient_dir(host.as_ref(), cap_std::ambient_authority())?;
        let mut fd = self.next_preopen;
        while self.fds.contains_key(&fd) {
            fd += 1;
        }
        self.fds.insert(
            fd,
            Desc::Dir(DirDesc {
                dir,
                preopen: Some(guest.into()),
                listing: None,
            }),
        );
        self.next_preopen = fd + 1;
        Ok(self)
    }

    /// Preopen from a CLI `--dir` spec: `HOST` (same path for the guest) or
    /// `HOST::GUEST`.
    pub fn preopened_dir_spec(self, spec: &str) -> io::Result<Self> {
        let (host, guest) = parse_dir_spec(spec);
        self.preopened_dir(host, guest)
    }

    /// Serve stdin from these bytes instead of the process's stdin.
    pub fn stdin_bytes(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Input::Bytes(io::Cursor::new(bytes.into()));
        self.stdin_tty = false;
        self
    }

    /// Capture the guest's stdout into `buf` instead of the process's stdout.
    pub fn capture_stdout(mut self, buf: &CaptureBuffer) -> Self {
        self.stdout = Output::Capture(buf.clone());
        self.stdout_tty = false;
        self
    }

    /// Capture the guest's stderr into `buf` instead of the process's stderr.
    pub fn capture_stderr(mut self, buf: &CaptureBuffer) -> Self {
        self.stderr = Output::Capture(buf.clone());
        self.stderr_tty = false;
        self
    }

    /// Send the guest's stdout into `buf` from now on (what is buffered is
    /// written out first); [`WasiCtx::restore_stdout`] undoes it. The
    /// session captures a built-in monitor's report this way.
    pub fn redirect_stdout(&mut self, buf: &CaptureBuffer) -> SavedStdout {
        let _ = self.flush();
        let old = std::mem::replace(&mut self.stdout, Output::Capture(buf.clone()));
        SavedStdout(old, std::mem::replace(&mut self.stdout_tty, false))
    }

    /// Send stdout where it went before [`WasiCtx::redirect_stdout`].
    pub fn restore_stdout(&mut self, saved: SavedStdout) {
        self.stdout = saved.0;
        self.stdout_tty = saved.1;
    }

    /// Write out buffered stdout. Called by `proc_exit`, `fd_close(1)`, before
    /// stderr writes and stdin reads; the embedder calls it when the program ends.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Output::Inherit { buf } = &mut self.stdout {
            if !buf.is_empty() {
                let mut out = io::stdout().lock();
                let r = out.write_all(buf).and_then(|_| out.flush());
                buf.clear();
                r?;
            }
        }
        Ok(())
    }

    pub(crate) fn write_stdout(&mut self, data: &[u8]) -> io::Result<()> {
        match &mut self.stdout {
            Output::Capture(c) => c.0.borrow_mut().extend_from_slice(data),
            Output::Inherit { buf } => {
                buf.extend_from_slice(data);
                if buf.len() >= STDOUT_BUFFER || self.stdout_tty {
                    self.flush()?;
                }
            }
        }
        Ok(())
    }

    pub(crate) fn write_stderr(&mut self, data: &[u8]) -> io::Result<()> {
        self.flush()?;
        match &mut self.stderr {
            Output::Capture(c) => c.0.borrow_mut().extend_from_slice(data),
            Output::Inherit { .. } => {
                let mut e = io::stderr().lock();
                e.write_all(data)?;
                e.flush()?;
            }
        }
        Ok(())
    }

    pub(crate) fn read_stdin(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Make prompts visible before blocking on input.
        self.flush()?;
        match &mut self.stdin {
            Input::Inherit => io::stdin().lock().read(buf),
            Input::Bytes(c) => c.read(buf),
        }
    }

    /// Lowest free descriptor number at or above 3.
    pub(crate) fn alloc_fd(&self) -> Result<u32, Errno> {
        let mut fd = 3u32;
        for &k in self.fds.range(3..).map(|(k, _)| k) {
            if k != fd {
                break;
            }
            fd = fd.checked_add(1).ok_or(errno::EMFILE)?;
        }
        if fd > i32::MAX as u32 {
            return Err(errno::EMFILE);
        }
        Ok(fd)
    }

    pub(crate) fn insert(&mut self, d: Desc) -> Result<u32, Errno> {
        let fd = self.alloc_fd()?;
        self.fds.insert(fd, d);
        Ok(fd)
    }
}

impl Drop for WasiCtx {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Split a `--dir` argument: `HOST::GUEST` or just `HOST` (guest path = host path).
pub fn parse_dir_spec(spec: &str) -> (PathBuf, String) {
    match spec.split_once("::") {
        Some((h, g)) => (PathBuf::from(h), g.to_string()),
        None => (PathBuf::from(spec), spec.to_string()),
    }
}

/// Lexical check of a guest path before it is handed to `cap-std` (defence in
/// depth; `cap-std` does the authoritative, symlink-aware resolution):
/// the path must be non-empty, relative, free of NUL bytes, and its `..`
/// components must never climb above the starting directory (`a/../b` is fine,
/// `a/../../x` is not).
pub fn check_guest_path(path: &[u8]) -> Result<&Path, Errno> {
    use std::os::unix::ffi::OsStrExt;
    if path.is_empty() {
        return Err(errno::ENOENT);
    }
    if path.contains(&0) {
        return Err(errno::EILSEQ);
    }
    if std::str::from_utf8(path).is_err() {
        return Err(errno::EILSEQ);
    }
    let p = Path::new(std::ffi::OsStr::from_bytes(path));
    let mut depth: i64 = 0;
    for c in p.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => return Err(errno::ENOTCAPABLE),
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(errno::ENOTCAPABLE);
                }
            }
            Component::CurDir => {}
            Component::Normal(_) => depth += 1,
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests;
