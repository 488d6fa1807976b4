//! Unit tests of the WASI implementation that don't need the interpreter: the
//! functions are called directly on a `WasiCtx` with a byte vector as memory.

use super::errno::*;
use super::host::*;
use super::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!(
        "wizeng-wasi-unit-{}-{}-{}",
        std::process::id(),
        tag,
        n
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `base/sandbox` (preopened as fd 3, guest path "/sandbox") next to `base/outside`.
struct Fixture {
    base: PathBuf,
    sandbox: PathBuf,
    outside: PathBuf,
    ctx: WasiCtx,
    mem: Vec<u8>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

const PATH: u32 = 1024;
const PATH2: u32 = 2048;
const OUT: u32 = 4096;
const BUF: u32 = 8192;

fn fixture(tag: &str) -> Fixture {
    use std::os::unix::fs::symlink;
    let base = temp_dir(tag);
    let sandbox = base.join("sandbox");
    let outside = base.join("outside");
    std::fs::create_dir_all(sandbox.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), b"secret").unwrap();
    std::fs::write(sandbox.join("hello.txt"), b"hello").unwrap();
    symlink("../outside", sandbox.join("link_out")).unwrap();
    symlink("/etc", sandbox.join("link_abs")).unwrap();
    symlink("chain2", sandbox.join("chain1")).unwrap();
    symlink("sub/../../outside/secret.txt", sandbox.join("chain2")).unwrap();
    symlink("../outside/new.txt", sandbox.join("dangling_out")).unwrap();
    symlink("sub", sandbox.join("inner_link")).unwrap();
    let ctx = WasiCtx::new().preopened_dir(&sandbox, "/sandbox").unwrap();
    Fixture {
        base,
        sandbox,
        outside,
        ctx,
        mem: vec![0; 65536],
    }
}

impl Fixture {
    fn put(&mut self, addr: u32, s: &str) -> u32 {
        self.mem[addr as usize..addr as usize + s.len()].copy_from_slice(s.as_bytes());
        s.len() as u32
    }
    fn u32_at(&self, addr: u32) -> u32 {
        u32::from_le_bytes(
            self.mem[addr as usize..addr as usize + 4]
                .try_into()
                .unwrap(),
        )
    }
    fn u64_at(&self, addr: u32) -> u64 {
        u64::from_le_bytes(
            self.mem[addr as usize..addr as usize + 8]
                .try_into()
                .unwrap(),
        )
    }
    fn open(
        &mut self,
        path: &str,
        oflags: u32,
        rights: u64,
        fdflags: u32,
        follow: bool,
    ) -> Result<u32, Errno> {
        let len = self.put(PATH, path);
        let mut m = GuestMem(&mut self.mem);
        self.ctx.path_open(
            &mut m,
            3,
            follow as u32,
            PATH,
            len,
            oflags,
            rights,
            0,
            fdflags,
            OUT,
        )?;
        Ok(self.u32_at(OUT))
    }
    fn open_ro(&mut self, path: &str) -> Result<u32, Errno> {
        self.open(path, 0, RIGHT_FD_READ, 0, true)
    }
    fn mkdir(&mut self, path: &str) -> Result<(), Errno> {
        let len = self.put(PATH, path);
        self.ctx
            .path_create_directory(&mut GuestMem(&mut self.mem), 3, PATH, len)
    }
    fn unlink(&mut self, path: &str) -> Result<(), Errno> {
        let len = self.put(PATH, path);
        self.ctx
            .path_unlink_file(&mut GuestMem(&mut self.mem), 3, PATH, len)
    }
    fn rmdir(&mut self, path: &str) -> Result<(), Errno> {
        let len = self.put(PATH, path);
        self.ctx
            .path_remove_directory(&mut GuestMem(&mut self.mem), 3, PATH, len)
    }
    fn rename(&mut self, from: &str, to: &str) -> Result<(), Errno> {
        let l1 = self.put(PATH, from);
        let l2 = self.put(PATH2, to);
        self.ctx
            .path_rename(&mut GuestMem(&mut self.mem), 3, PATH, l1, 3, PATH2, l2)
    }
    fn stat(&mut self, path: &str, follow: bool) -> Result<Filestat, Errno> {
        let len = self.put(PATH, path);
        self.ctx.path_filestat_get(
            &mut GuestMem(&mut self.mem),
            3,
            follow as u32,
            PATH,
            len,
            OUT,
        )?;
        Ok(Filestat {
            filetype: self.mem[OUT as usize + 16],
            size: self.u64_at(OUT + 32),
            ..Default::default()
        })
    }
    /// Write `data` through fd (one iovec at BUF).
    fn write(&mut self, fd: u32, data: &[u8]) -> Result<u32, Errno> {
        let at = BUF as usize + 64;
        self.mem[at..at + data.len()].copy_from_slice(data);
        self.mem[BUF as usize..BUF as usize + 4].copy_from_slice(&(at as u32).to_le_bytes());
        self.mem[BUF as usize + 4..BUF as usize + 8]
            .copy_from_slice(&(data.len() as u32).to_le_bytes());
        self.ctx
            .fd_write(&mut GuestMem(&mut self.mem), fd, BUF, 1, OUT)?;
        Ok(self.u32_at(OUT))
    }
    fn read(&mut self, fd: u32, n: u32) -> Result<Vec<u8>, Errno> {
        let at = BUF + 64;
        self.mem[BUF as usize..BUF as usize + 4].copy_from_slice(&at.to_le_bytes());
        self.mem[BUF as usize + 4..BUF as usize + 8].copy_from_slice(&n.to_le_bytes());
        self.ctx
            .fd_read(&mut GuestMem(&mut self.mem), fd, BUF, 1, OUT)?;
        let got = self.u32_at(OUT) as usize;
        Ok(self.mem[at as usize..at as usize + got].to_vec())
    }
}

#[test]
fn lexical_path_check() {
    assert!(check_guest_path(b"a/../b").is_ok());
    assert!(check_guest_path(b"./a/./b/..").is_ok());
    assert!(check_guest_path(b"a/b/../../c").is_ok());
    assert!(check_guest_path(b".").is_ok());
    assert_eq!(check_guest_path(b"../x").unwrap_err(), ENOTCAPABLE);
    assert_eq!(check_guest_path(b"..").unwrap_err(), ENOTCAPABLE);
    assert_eq!(check_guest_path(b"/etc/passwd").unwrap_err(), ENOTCAPABLE);
    assert_eq!(check_guest_path(b"a/../../x").unwrap_err(), ENOTCAPABLE);
    assert_eq!(
        check_guest_path(b"a/./../b/../../x").unwrap_err(),
        ENOTCAPABLE
    );
    assert_eq!(check_guest_path(b"").unwrap_err(), ENOENT);
    assert_eq!(check_guest_path(b"a\0b").unwrap_err(), EILSEQ);
    assert_eq!(check_guest_path(b"\xff").unwrap_err(), EILSEQ);
}

#[test]
fn dir_spec_parsing() {
    assert_eq!(
        parse_dir_spec("/tmp/x"),
        (PathBuf::from("/tmp/x"), "/tmp/x".to_string())
    );
    assert_eq!(
        parse_dir_spec("/tmp/x::/data"),
        (PathBuf::from("/tmp/x"), "/data".to_string())
    );
    assert_eq!(
        parse_dir_spec(".::."),
        (PathBuf::from("."), ".".to_string())
    );
}

#[test]
fn escapes_are_refused() {
    let mut f = fixture("escape");
    // Lexical escapes.
    assert_eq!(f.open_ro("../outside/secret.txt"), Err(ENOTCAPABLE));
    assert_eq!(f.open_ro("/etc/passwd"), Err(ENOTCAPABLE));
    assert_eq!(f.open_ro("sub/../../outside/secret.txt"), Err(ENOTCAPABLE));
    // Symlinks leading outside: relative, absolute, chained.
    assert_eq!(f.open_ro("link_out/secret.txt"), Err(ENOTCAPABLE));
    assert_eq!(f.open_ro("link_abs/passwd"), Err(ENOTCAPABLE));
    assert_eq!(f.open_ro("chain1"), Err(ENOTCAPABLE));
    assert_eq!(
        f.open("link_out", OFLAGS_DIRECTORY, RIGHT_FD_READ, 0, true),
        Err(ENOTCAPABLE)
    );
    // Creating through a final-component symlink that points outside.
    let e = f
        .open("dangling_out", OFLAGS_CREAT, RIGHT_FD_WRITE, 0, true)
        .unwrap_err();
    assert_eq!(e, ENOTCAPABLE);
    assert!(!f.outside.join("new.txt").exists());
    // Without follow, opening the symlink itself fails (ELOOP) and creates nothing.
    assert!(f
        .open("dangling_out", OFLAGS_CREAT, RIGHT_FD_WRITE, 0, false)
        .is_err());
    assert!(!f.outside.join("new.txt").exists());
    // Other path operations.
    assert_eq!(f.mkdir("../evil"), Err(ENOTCAPABLE));
    assert_eq!(f.mkdir("link_out/evil"), Err(ENOTCAPABLE));
    assert!(!f.base.join("evil").exists() && !f.outside.join("evil").exists());
    assert_eq!(f.unlink("link_out/secret.txt"), Err(ENOTCAPABLE));
    assert_eq!(f.unlink("../outside/secret.txt"), Err(ENOTCAPABLE));
    assert!(f.outside.join("secret.txt").exists());
    assert_eq!(f.rmdir("../outside"), Err(ENOTCAPABLE));
    assert_eq!(
        f.rename("hello.txt", "../outside/stolen.txt"),
        Err(ENOTCAPABLE)
    );
    assert_eq!(f.rename("link_out/secret.txt", "got.txt"), Err(ENOTCAPABLE));
    assert!(!f.outside.join("stolen.txt").exists() && !f.sandbox.join("got.txt").exists());
    assert_eq!(
        f.stat("link_out/secret.txt", true).map(|_| ()),
        Err(ENOTCAPABLE)
    );
    assert_eq!(f.stat("chain1", true).map(|_| ()), Err(ENOTCAPABLE));
    // The link itself can be inspected without following it.
    assert_eq!(
        f.stat("chain1", false).unwrap().filetype,
        FILETYPE_SYMBOLIC_LINK
    );
    assert_eq!(
        std::fs::read(f.outside.join("secret.txt")).unwrap(),
        b"secret"
    );
}

#[test]
fn inside_paths_work() {
    let mut f = fixture("inside");
    let fd = f.open_ro("sub/../hello.txt").unwrap();
    assert!(fd >= 4);
    assert_eq!(f.read(fd, 100).unwrap(), b"hello");
    let fd2 = f.open_ro("inner_link/../hello.txt").unwrap();
    assert_eq!(f.read(fd2, 2).unwrap(), b"he");
    assert_eq!(
        f.stat("inner_link", true).unwrap().filetype,
        FILETYPE_DIRECTORY
    );
    assert_eq!(f.stat("hello.txt", true).unwrap().size, 5);
    assert_eq!(f.ctx.fd_close(fd), Ok(()));
    assert_eq!(f.ctx.fd_close(fd), Err(EBADF));
}

#[test]
fn file_round_trip_and_errors() {
    let mut f = fixture("roundtrip");
    let rw = RIGHT_FD_READ | RIGHT_FD_WRITE;
    let fd = f
        .open("data.bin", OFLAGS_CREAT | OFLAGS_EXCL, rw, 0, true)
        .unwrap();
    assert_eq!(
        f.open("data.bin", OFLAGS_CREAT | OFLAGS_EXCL, rw, 0, true),
        Err(EEXIST)
    );
    assert_eq!(f.write(fd, b"hello world").unwrap(), 11);
    let mut m = GuestMem(&mut f.mem);
    f.ctx.fd_seek(&mut m, fd, 6, 0, OUT).unwrap();
    assert_eq!(f.u64_at(OUT), 6);
    assert_eq!(f.read(fd, 100).unwrap(), b"world");
    f.ctx.fd_tell(&mut GuestMem(&mut f.mem), fd, OUT).unwrap();
    assert_eq!(f.u64_at(OUT), 11);
    assert_eq!(
        f.ctx.fd_seek(&mut GuestMem(&mut f.mem), fd, 0, 7, OUT),
        Err(EINVAL)
    );
    // pwrite/pread don't move the offset.
    f.put(BUF + 64, "HELLO");
    f.mem[BUF as usize..BUF as usize + 8]
        .copy_from_slice(&[(BUF + 64).to_le_bytes(), 5u32.to_le_bytes()].concat());
    f.ctx
        .fd_pwrite(&mut GuestMem(&mut f.mem), fd, BUF, 1, 0, OUT)
        .unwrap();
    assert_eq!(f.u32_at(OUT), 5);
    f.ctx
        .fd_filestat_get(&mut GuestMem(&mut f.mem), fd, OUT)
        .unwrap();
    assert_eq!(f.mem[OUT as usize + 16], FILETYPE_REGULAR_FILE);
    assert_eq!(f.u64_at(OUT + 32), 11);
    f.ctx.fd_filestat_set_size(fd, 5).unwrap();
    f.ctx.fd_close(fd).unwrap();
    assert_eq!(std::fs::read(f.sandbox.join("data.bin")).unwrap(), b"HELLO");
    // Append + trunc.
    let fd = f
        .open("data.bin", 0, RIGHT_FD_WRITE, FDFLAGS_APPEND as u32, true)
        .unwrap();
    f.write(fd, b"!!").unwrap();
    f.ctx
        .fd_fdstat_get(&mut GuestMem(&mut f.mem), fd, OUT)
        .unwrap();
    assert_eq!(f.mem[OUT as usize], FILETYPE_REGULAR_FILE);
    assert_eq!(
        u16::from_le_bytes([f.mem[OUT as usize + 2], f.mem[OUT as usize + 3]]),
        FDFLAGS_APPEND
    );
    f.ctx.fd_close(fd).unwrap();
    assert_eq!(
        std::fs::read(f.sandbox.join("data.bin")).unwrap(),
        b"HELLO!!"
    );
    let fd = f
        .open("data.bin", OFLAGS_TRUNC, RIGHT_FD_WRITE, 0, true)
        .unwrap();
    f.ctx.fd_close(fd).unwrap();
    assert_eq!(std::fs::read(f.sandbox.join("data.bin")).unwrap(), b"");
    // O_APPEND|O_TRUNC|O_CREAT together (what `fopen(.., "a")` after truncation does).
    let fd = f
        .open(
            "data.bin",
            OFLAGS_TRUNC | OFLAGS_CREAT,
            RIGHT_FD_WRITE,
            FDFLAGS_APPEND as u32,
            true,
        )
        .unwrap();
    f.write(fd, b"ab").unwrap();
    f.ctx
        .fd_seek(&mut GuestMem(&mut f.mem), fd, 0, 0, OUT)
        .unwrap();
    f.write(fd, b"cd").unwrap();
    f.ctx.fd_close(fd).unwrap();
    assert_eq!(std::fs::read(f.sandbox.join("data.bin")).unwrap(), b"abcd");
    // Toggling append with fd_fdstat_set_flags.
    let fd = f.open("data.bin", 0, RIGHT_FD_WRITE, 0, true).unwrap();
    f.ctx
        .fd_fdstat_set_flags(fd, FDFLAGS_APPEND as u32)
        .unwrap();
    f.write(fd, b"e").unwrap();
    assert_eq!(
        f.ctx.fd_fdstat_set_flags(fd, FDFLAGS_SYNC as u32),
        Err(ENOTSUP)
    );
    f.ctx.fd_close(fd).unwrap();
    assert_eq!(std::fs::read(f.sandbox.join("data.bin")).unwrap(), b"abcde");
    // Errno mapping.
    assert_eq!(f.open_ro("missing.txt"), Err(ENOENT));
    assert_eq!(
        f.open("hello.txt", OFLAGS_DIRECTORY, RIGHT_FD_READ, 0, true),
        Err(ENOTDIR)
    );
    assert_eq!(f.open("sub", 0, RIGHT_FD_WRITE, 0, true), Err(EISDIR));
    assert_eq!(f.mkdir("sub"), Err(EEXIST));
    std::fs::write(f.sandbox.join("sub/x"), b"").unwrap();
    assert_eq!(f.rmdir("sub"), Err(ENOTEMPTY));
    assert_eq!(f.unlink("sub"), Err(EISDIR));
    assert_eq!(f.rmdir("hello.txt"), Err(ENOTDIR));
    assert_eq!(f.unlink("sub/x"), Ok(()));
    assert_eq!(f.rmdir("sub"), Ok(()));
    assert_eq!(f.mkdir("newdir"), Ok(()));
    assert_eq!(f.rename("newdir", "renamed"), Ok(()));
    assert!(f.sandbox.join("renamed").is_dir());
    // A directory opened without O_DIRECTORY is still a directory descriptor.
    let d = f.open_ro("renamed").unwrap();
    f.ctx
        .fd_fdstat_get(&mut GuestMem(&mut f.mem), d, OUT)
        .unwrap();
    assert_eq!(f.mem[OUT as usize], FILETYPE_DIRECTORY);
    // Bad fds.
    assert_eq!(f.write(99, b"x"), Err(EBADF));
    assert_eq!(
        f.ctx.fd_seek(&mut GuestMem(&mut f.mem), 1, 0, 0, OUT),
        Err(ESPIPE)
    );
}

#[test]
fn readdir_lists_entries() {
    let mut f = fixture("readdir");
    f.ctx
        .fd_readdir(&mut GuestMem(&mut f.mem), 3, BUF, 4096, 0, OUT)
        .unwrap();
    let used = f.u32_at(OUT) as usize;
    assert!(used < 4096);
    let mut names = Vec::new();
    let mut at = BUF as usize;
    let mut cookies = Vec::new();
    while at < BUF as usize + used {
        let next = u64::from_le_bytes(f.mem[at..at + 8].try_into().unwrap());
        let namlen = u32::from_le_bytes(f.mem[at + 16..at + 20].try_into().unwrap()) as usize;
        let ty = f.mem[at + 20];
        let name = String::from_utf8(f.mem[at + 24..at + 24 + namlen].to_vec()).unwrap();
        if name == "sub" {
            assert_eq!(ty, FILETYPE_DIRECTORY);
        }
        if name == "hello.txt" {
            assert_eq!(ty, FILETYPE_REGULAR_FILE);
        }
        if name == "link_out" {
            assert_eq!(ty, FILETYPE_SYMBOLIC_LINK);
        }
        names.push(name);
        cookies.push(next);
        at += 24 + namlen;
    }
    assert_eq!(
        names,
        [
            ".",
            "..",
            "chain1",
            "chain2",
            "dangling_out",
            "hello.txt",
            "inner_link",
            "link_abs",
            "link_out",
            "sub"
        ]
    );
    // Resume from a cookie; a small buffer is filled completely (signals "more").
    f.ctx
        .fd_readdir(&mut GuestMem(&mut f.mem), 3, BUF, 4096, cookies[4], OUT)
        .unwrap();
    let namlen = u32::from_le_bytes(
        f.mem[BUF as usize + 16..BUF as usize + 20]
            .try_into()
            .unwrap(),
    ) as usize;
    assert_eq!(
        &f.mem[BUF as usize + 24..BUF as usize + 24 + namlen],
        b"hello.txt"
    );
    f.ctx
        .fd_readdir(&mut GuestMem(&mut f.mem), 3, BUF, 30, 0, OUT)
        .unwrap();
    assert_eq!(f.u32_at(OUT), 30);
    // Not a directory.
    let fd = f.open_ro("hello.txt").unwrap();
    assert_eq!(
        f.ctx
            .fd_readdir(&mut GuestMem(&mut f.mem), fd, BUF, 100, 0, OUT),
        Err(ENOTDIR)
    );
}

#[test]
fn out_of_bounds_is_efault() {
    let mut f = fixture("efault");
    let len = f.mem.len() as u32;
    // iovec table beyond memory.
    assert_eq!(
        f.ctx
            .fd_write(&mut GuestMem(&mut f.mem), 1, len - 4, 1, OUT),
        Err(EFAULT)
    );
    // iovec pointing beyond memory.
    f.mem[BUF as usize..BUF as usize + 8]
        .copy_from_slice(&[(len - 2).to_le_bytes(), 10u32.to_le_bytes()].concat());
    assert_eq!(
        f.ctx.fd_write(&mut GuestMem(&mut f.mem), 1, BUF, 1, OUT),
        Err(EFAULT)
    );
    // Wrapping pointer arithmetic.
    f.mem[BUF as usize..BUF as usize + 8]
        .copy_from_slice(&[u32::MAX.to_le_bytes(), u32::MAX.to_le_bytes()].concat());
    assert_eq!(
        f.ctx.fd_read(&mut GuestMem(&mut f.mem), 3, BUF, 1, OUT),
        Err(EFAULT)
    );
    assert_eq!(
        f.ctx
            .clock_time_get(&mut GuestMem(&mut f.mem), 1, 0, len - 7),
        Err(EFAULT)
    );
    assert_eq!(
        f.ctx.random_get(&mut GuestMem(&mut f.mem), len - 10, 11),
        Err(EFAULT)
    );
    assert_eq!(
        f.ctx
            .path_open(&mut GuestMem(&mut f.mem), 3, 0, len - 1, 5, 0, 0, 0, 0, OUT),
        Err(EFAULT)
    );
    assert_eq!(
        f.ctx
            .fd_prestat_dir_name(&mut GuestMem(&mut f.mem), 3, len - 2, 100),
        Err(EFAULT)
    );
    // No memory at all.
    let mut empty: [u8; 0] = [];
    assert_eq!(
        f.ctx.args_sizes_get(&mut GuestMem(&mut empty), 0, 4),
        Err(EFAULT)
    );
}

#[test]
fn stdio_capture_and_args() {
    let out = CaptureBuffer::new();
    let err = CaptureBuffer::new();
    let mut ctx = WasiCtx::new()
        .args(["prog", "a b", "c"])
        .env("K", "V")
        .envs_kv(["X=1=2", "EMPTY"])
        .capture_stdout(&out)
        .capture_stderr(&err)
        .stdin_bytes(b"input".to_vec());
    let mut mem = vec![0u8; 4096];
    let mut m = GuestMem(&mut mem);
    ctx.args_sizes_get(&mut m, 0, 4).unwrap();
    assert_eq!(m.read_u32(0).unwrap(), 3);
    assert_eq!(m.read_u32(4).unwrap(), 5 + 4 + 2);
    ctx.args_get(&mut m, 100, 200).unwrap();
    assert_eq!(m.read_u32(104).unwrap(), 205);
    assert_eq!(m.slice(200, 11).unwrap(), b"prog\0a b\0c\0");
    ctx.environ_sizes_get(&mut m, 0, 4).unwrap();
    assert_eq!(m.read_u32(0).unwrap(), 3);
    ctx.environ_get(&mut m, 100, 200).unwrap();
    assert_eq!(m.slice(200, 16).unwrap(), b"K=V\0X=1=2\0EMPTY=");
    // Writes.
    m.write_bytes(300, b"hi there").unwrap();
    m.write_u32(400, 300).unwrap();
    m.write_u32(404, 3).unwrap();
    m.write_u32(408, 303).unwrap();
    m.write_u32(412, 5).unwrap();
    ctx.fd_write(&mut m, 1, 400, 2, 500).unwrap();
    assert_eq!(m.read_u32(500).unwrap(), 8);
    ctx.fd_write(&mut m, 2, 400, 1, 500).unwrap();
    assert_eq!(out.to_string_lossy(), "hi there");
    assert_eq!(err.to_string_lossy(), "hi ");
    // Taking the text empties the buffer; invalid UTF-8 is replaced.
    assert_eq!(err.take_string_lossy(), "hi ");
    assert_eq!(err.to_string_lossy(), "");
    m.write_bytes(300, b"a\xffb").unwrap();
    ctx.fd_write(&mut m, 2, 400, 1, 500).unwrap();
    assert_eq!(err.take_string_lossy(), "a\u{fffd}b");
    // Stdin.
    m.write_u32(400, 600).unwrap();
    m.write_u32(404, 100).unwrap();
    ctx.fd_read(&mut m, 0, 400, 1, 500).unwrap();
    assert_eq!(m.read_u32(500).unwrap(), 5);
    assert_eq!(m.slice(600, 5).unwrap(), b"input");
    assert_eq!(ctx.fd_read(&mut m, 1, 400, 1, 500), Err(EBADF));
    // Preopens: none here.
    assert_eq!(ctx.fd_prestat_get(&mut m, 3, 0), Err(EBADF));
    // Closing stdout is allowed; later writes fail with EBADF.
    ctx.fd_close(1).unwrap();
    assert_eq!(ctx.fd_write(&mut m, 1, 400, 1, 500), Err(EBADF));
}

#[test]
fn prestat_and_fd_allocation() {
    let mut f = fixture("prestat");
    let mut m = GuestMem(&mut f.mem);
    f.ctx.fd_prestat_get(&mut m, 3, 0).unwrap();
    assert_eq!(m.read_u8(0).unwrap(), 0);
    assert_eq!(m.read_u32(4).unwrap(), 8);
    assert_eq!(
        f.ctx.fd_prestat_dir_name(&mut m, 3, 100, 3),
        Err(ENAMETOOLONG)
    );
    f.ctx.fd_prestat_dir_name(&mut m, 3, 100, 8).unwrap();
    assert_eq!(m.slice(100, 8).unwrap(), b"/sandbox");
    assert_eq!(f.ctx.fd_prestat_get(&mut m, 4, 0), Err(EBADF));
    let a = f.open_ro("hello.txt").unwrap();
    let b = f.open_ro("hello.txt").unwrap();
    assert_eq!((a, b), (4, 5));
    f.ctx.fd_close(a).unwrap();
    assert_eq!(f.open_ro("hello.txt").unwrap(), 4);
    f.ctx.fd_renumber(5, 4).unwrap();
    assert_eq!(f.ctx.fd_close(5), Err(EBADF));
    assert_eq!(f.ctx.fd_renumber(9, 4), Err(EBADF));
}

#[test]
fn clocks_and_random_and_poll() {
    let mut ctx = WasiCtx::new();
    let mut mem = vec![0u8; 4096];
    let mut m = GuestMem(&mut mem);
    for id in 0..4 {
        ctx.clock_res_get(&mut m, id, 0).unwrap();
        assert!(m.read_u64(0).unwrap() > 0);
        ctx.clock_time_get(&mut m, id, 0, 8).unwrap();
    }
    assert_eq!(ctx.clock_time_get(&mut m, 4, 0, 8), Err(EINVAL));
    ctx.clock_time_get(&mut m, 0, 0, 8).unwrap();
    assert!(m.read_u64(8).unwrap() > 1_600_000_000_000_000_000);
    ctx.clock_time_get(&mut m, 1, 0, 8).unwrap();
    let t0 = m.read_u64(8).unwrap();
    // poll_oneoff: one relative 5ms clock subscription.
    m.write_u64(100, 77).unwrap();
    m.write_u8(108, EVENTTYPE_CLOCK).unwrap();
    m.write_u32(116, 1).unwrap();
    m.write_u64(124, 5_000_000).unwrap();
    m.write_u16(140, 0).unwrap();
    ctx.poll_oneoff(&mut m, 100, 200, 1, 300).unwrap();
    assert_eq!(m.read_u32(300).unwrap(), 1);
    assert_eq!(m.read_u64(200).unwrap(), 77);
    assert_eq!(m.read_u16(208).unwrap(), 0);
    ctx.clock_time_get(&mut m, 1, 0, 8).unwrap();
    assert!(m.read_u64(8).unwrap() - t0 >= 5_000_000);
    assert_eq!(ctx.poll_oneoff(&mut m, 100, 200, 0, 300), Err(EINVAL));
    // Random.
    ctx.random_get(&mut m, 1000, 64).unwrap();
    let a = m.slice(1000, 64).unwrap().to_vec();
    ctx.random_get(&mut m, 1000, 64).unwrap();
    assert_ne!(a, m.slice(1000, 64).unwrap());
    assert!(a.iter().any(|&b| b != 0));
}

#[test]
fn times_pread_and_dot() {
    let mut f = fixture("times");
    // "." without following symlinks is the preopen itself.
    let d = f
        .open(".", OFLAGS_DIRECTORY, RIGHT_FD_READ, 0, false)
        .unwrap();
    f.ctx
        .fd_filestat_get(&mut GuestMem(&mut f.mem), d, OUT)
        .unwrap();
    assert_eq!(f.mem[OUT as usize + 16], FILETYPE_DIRECTORY);
    assert!(f
        .open("sub/", OFLAGS_DIRECTORY, RIGHT_FD_READ, 0, true)
        .is_ok());
    assert_eq!(
        f.open("hello.txt/", 0, RIGHT_FD_READ, 0, true),
        Err(ENOTDIR)
    );
    // Set mtime through a path and through an fd.
    let len = f.put(PATH, "hello.txt");
    let t = 1_000_000_000u64 * 1_000_000_000 + 5;
    f.ctx
        .path_filestat_set_times(
            &mut GuestMem(&mut f.mem),
            3,
            1,
            PATH,
            len,
            0,
            t,
            FSTFLAGS_MTIM,
        )
        .unwrap();
    f.ctx
        .path_filestat_get(&mut GuestMem(&mut f.mem), 3, 1, PATH, len, OUT)
        .unwrap();
    assert_eq!(f.u64_at(OUT + 48), t);
    assert_eq!(
        f.ctx.path_filestat_set_times(
            &mut GuestMem(&mut f.mem),
            3,
            1,
            PATH,
            len,
            0,
            t,
            FSTFLAGS_MTIM | FSTFLAGS_MTIM_NOW
        ),
        Err(EINVAL)
    );
    let fd = f.open_ro("hello.txt").unwrap();
    f.ctx
        .fd_filestat_set_times(fd, t, 0, FSTFLAGS_ATIM | FSTFLAGS_MTIM_NOW)
        .unwrap();
    f.ctx
        .fd_filestat_get(&mut GuestMem(&mut f.mem), fd, OUT)
        .unwrap();
    assert_eq!(f.u64_at(OUT + 40), t);
    assert!(f.u64_at(OUT + 48) > t);
    // pread at an offset leaves the position alone.
    let iov = [(BUF + 64).to_le_bytes(), 3u32.to_le_bytes()].concat();
    f.mem[BUF as usize..BUF as usize + 8].copy_from_slice(&iov);
    f.ctx
        .fd_pread(&mut GuestMem(&mut f.mem), fd, BUF, 1, 2, OUT)
        .unwrap();
    assert_eq!(f.u32_at(OUT), 3);
    assert_eq!(&f.mem[BUF as usize + 64..BUF as usize + 67], b"llo");
    assert_eq!(f.read(fd, 10).unwrap(), b"hello");
    // Poll: a regular file is readable right away, with the bytes left.
    let mut m = GuestMem(&mut f.mem);
    m.write_u64(100, 1).unwrap();
    m.write_u8(108, EVENTTYPE_FD_READ).unwrap();
    m.write_u32(116, fd).unwrap();
    m.write_u64(148, 2).unwrap();
    m.write_u8(156, EVENTTYPE_CLOCK).unwrap();
    m.write_u32(164, 1).unwrap();
    m.write_u64(172, 10_000_000_000).unwrap();
    let t0 = std::time::Instant::now();
    f.ctx.poll_oneoff(&mut m, 100, 400, 2, 600).unwrap();
    assert!(t0.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(m.read_u32(600).unwrap(), 1);
    assert_eq!(m.read_u64(400).unwrap(), 1);
    assert_eq!(m.read_u8(410).unwrap(), EVENTTYPE_FD_READ);
}
