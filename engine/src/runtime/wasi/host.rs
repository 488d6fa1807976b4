//! The preview1 functions, as methods of [`WasiCtx`] over a guest memory.
//! Each returns `Ok(())` (errno 0) or the errno to hand back to the guest.

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cap_fs_ext::{
    DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt, SystemTimeSpec,
};
use cap_std::fs::MetadataExt as _;

use super::errno::*;
use super::{check_guest_path, Desc, DirDesc, FileDesc, GuestMem, WasiCtx};

pub type WasiResult = Result<(), Errno>;

// File types.
pub const FILETYPE_UNKNOWN: u8 = 0;
pub const FILETYPE_BLOCK_DEVICE: u8 = 1;
pub const FILETYPE_CHARACTER_DEVICE: u8 = 2;
pub const FILETYPE_DIRECTORY: u8 = 3;
pub const FILETYPE_REGULAR_FILE: u8 = 4;
pub const FILETYPE_SOCKET_STREAM: u8 = 6;
pub const FILETYPE_SYMBOLIC_LINK: u8 = 7;

// Rights (only reported; not enforced beyond what the OS enforces).
pub const RIGHT_FD_READ: u64 = 1 << 1;
pub const RIGHT_FD_FDSTAT_SET_FLAGS: u64 = 1 << 3;
pub const RIGHT_FD_WRITE: u64 = 1 << 6;
pub const RIGHT_FD_DATASYNC: u64 = 1 << 0;
pub const RIGHT_FD_ALLOCATE: u64 = 1 << 8;
pub const RIGHT_FD_READDIR: u64 = 1 << 14;
pub const RIGHT_FD_FILESTAT_GET: u64 = 1 << 21;
pub const RIGHT_FD_FILESTAT_SET_SIZE: u64 = 1 << 22;
pub const RIGHT_POLL_FD_READWRITE: u64 = 1 << 27;
pub const RIGHTS_ALL: u64 = (1 << 30) - 1;

// fdflags.
pub const FDFLAGS_APPEND: u16 = 1;
pub const FDFLAGS_DSYNC: u16 = 2;
pub const FDFLAGS_NONBLOCK: u16 = 4;
pub const FDFLAGS_RSYNC: u16 = 8;
pub const FDFLAGS_SYNC: u16 = 16;

// oflags.
pub const OFLAGS_CREAT: u32 = 1;
pub const OFLAGS_DIRECTORY: u32 = 2;
pub const OFLAGS_EXCL: u32 = 4;
pub const OFLAGS_TRUNC: u32 = 8;

pub const LOOKUPFLAGS_SYMLINK_FOLLOW: u32 = 1;

// fstflags.
pub const FSTFLAGS_ATIM: u32 = 1;
pub const FSTFLAGS_ATIM_NOW: u32 = 2;
pub const FSTFLAGS_MTIM: u32 = 4;
pub const FSTFLAGS_MTIM_NOW: u32 = 8;

// poll_oneoff.
pub const EVENTTYPE_CLOCK: u8 = 0;
pub const EVENTTYPE_FD_READ: u8 = 1;
pub const EVENTTYPE_FD_WRITE: u8 = 2;
pub const SUBCLOCKFLAGS_ABSTIME: u16 = 1;

/// One `fd_readdir` entry.
#[derive(Clone, Debug)]
pub(crate) struct DirEntry {
    pub name: Vec<u8>,
    pub ino: u64,
    pub filetype: u8,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Stdin,
    Stdout,
    Stderr,
    File,
    Dir,
}

fn filetype_of_mode(mode: u32) -> u8 {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => FILETYPE_DIRECTORY,
        libc::S_IFREG => FILETYPE_REGULAR_FILE,
        libc::S_IFLNK => FILETYPE_SYMBOLIC_LINK,
        libc::S_IFCHR => FILETYPE_CHARACTER_DEVICE,
        libc::S_IFBLK => FILETYPE_BLOCK_DEVICE,
        libc::S_IFSOCK => FILETYPE_SOCKET_STREAM,
        _ => FILETYPE_UNKNOWN,
    }
}

fn nanos(sec: i64, nsec: i64) -> u64 {
    if sec < 0 {
        return 0;
    }
    (sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(nsec.max(0) as u64)
}

/// A `filestat` record (64 bytes in guest memory).
#[derive(Default, Debug, Clone, Copy)]
pub(crate) struct Filestat {
    pub dev: u64,
    pub ino: u64,
    pub filetype: u8,
    pub nlink: u64,
    pub size: u64,
    pub atim: u64,
    pub mtim: u64,
    pub ctim: u64,
}

macro_rules! filestat_of {
    ($m:expr) => {{
        let m = $m;
        Filestat {
            dev: m.dev(),
            ino: m.ino(),
            filetype: filetype_of_mode(m.mode()),
            nlink: m.nlink(),
            size: m.size(),
            atim: nanos(m.atime(), m.atime_nsec()),
            mtim: nanos(m.mtime(), m.mtime_nsec()),
            ctim: nanos(m.ctime(), m.ctime_nsec()),
        }
    }};
}

fn std_filestat(m: &std::fs::Metadata) -> Filestat {
    use std::os::unix::fs::MetadataExt;
    filestat_of!(m)
}

fn cap_filestat(m: &cap_std::fs::Metadata) -> Filestat {
    filestat_of!(m)
}

fn write_filestat(m: &mut GuestMem, ptr: u32, st: &Filestat) -> WasiResult {
    let mut b = [0u8; 64];
    b[0..8].copy_from_slice(&st.dev.to_le_bytes());
    b[8..16].copy_from_slice(&st.ino.to_le_bytes());
    b[16] = st.filetype;
    b[24..32].copy_from_slice(&st.nlink.to_le_bytes());
    b[32..40].copy_from_slice(&st.size.to_le_bytes());
    b[40..48].copy_from_slice(&st.atim.to_le_bytes());
    b[48..56].copy_from_slice(&st.mtim.to_le_bytes());
    b[56..64].copy_from_slice(&st.ctim.to_le_bytes());
    m.write_bytes(ptr, &b)
}

fn io_err(e: io::Error) -> Errno {
    from_io(&e)
}

fn last_os_errno() -> Errno {
    from_host_errno(
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

/// Set the file status flags (`O_APPEND`, `O_NONBLOCK`) of an open file.
fn set_status_flags(file: &std::fs::File, fdflags: u16) -> WasiResult {
    let raw = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own, with integer arguments.
    let cur = unsafe { libc::fcntl(raw, libc::F_GETFL) };
    if cur < 0 {
        return Err(last_os_errno());
    }
    let mut new = cur & !(libc::O_APPEND | libc::O_NONBLOCK);
    if fdflags & FDFLAGS_APPEND != 0 {
        new |= libc::O_APPEND;
    }
    if fdflags & FDFLAGS_NONBLOCK != 0 {
        new |= libc::O_NONBLOCK;
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(raw, libc::F_SETFL, new) } < 0 {
        return Err(last_os_errno());
    }
    Ok(())
}

fn clock_id(id: u32) -> Result<libc::clockid_t, Errno> {
    Ok(match id {
        0 => libc::CLOCK_REALTIME,
        1 => libc::CLOCK_MONOTONIC,
        2 => libc::CLOCK_PROCESS_CPUTIME_ID,
        3 => libc::CLOCK_THREAD_CPUTIME_ID,
        _ => return Err(EINVAL),
    })
}

/// Current time of a WASI clock in nanoseconds.
pub(crate) fn clock_now(id: u32) -> Result<u64, Errno> {
    let cid = clock_id(id)?;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    if unsafe { libc::clock_gettime(cid, &mut ts) } != 0 {
        return Err(last_os_errno());
    }
    Ok(nanos(ts.tv_sec, ts.tv_nsec))
}

fn clock_res(id: u32) -> Result<u64, Errno> {
    let cid = clock_id(id)?;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    if unsafe { libc::clock_getres(cid, &mut ts) } != 0 {
        return Err(last_os_errno());
    }
    Ok(nanos(ts.tv_sec, ts.tv_nsec).max(1))
}

fn time_spec(t: u64, set: bool, now: bool) -> Result<Option<SystemTimeSpec>, Errno> {
    match (set, now) {
        (true, true) => Err(EINVAL),
        (false, true) => Ok(Some(SystemTimeSpec::SymbolicNow)),
        (true, false) => Ok(Some(SystemTimeSpec::Absolute(
            cap_std::time::SystemTime::from_std(UNIX_EPOCH + Duration::from_nanos(t)),
        ))),
        (false, false) => Ok(None),
    }
}

fn times(
    atim: u64,
    mtim: u64,
    fst: u32,
) -> Result<(Option<SystemTimeSpec>, Option<SystemTimeSpec>), Errno> {
    if fst & !0xf != 0 {
        return Err(EINVAL);
    }
    let a = time_spec(atim, fst & FSTFLAGS_ATIM != 0, fst & FSTFLAGS_ATIM_NOW != 0)?;
    let m = time_spec(mtim, fst & FSTFLAGS_MTIM != 0, fst & FSTFLAGS_MTIM_NOW != 0)?;
    Ok((a, m))
}

fn spec_to_std(s: SystemTimeSpec) -> SystemTime {
    match s {
        SystemTimeSpec::SymbolicNow => SystemTime::now(),
        SystemTimeSpec::Absolute(t) => t.into_std(),
    }
}

/// Read a guest path argument and check it lexically.
fn guest_path(m: &GuestMem, ptr: u32, len: u32) -> Result<PathBuf, Errno> {
    Ok(check_guest_path(m.slice(ptr, len)?)?.to_path_buf())
}

/// List a directory for `fd_readdir`: `.`, `..`, then the entries sorted by name.
fn list_dir(dir: &cap_std::fs::Dir) -> io::Result<Vec<DirEntry>> {
    let meta = dir.dir_metadata()?;
    let mut v = vec![
        DirEntry {
            name: b".".to_vec(),
            ino: meta.ino(),
            filetype: FILETYPE_DIRECTORY,
        },
        DirEntry {
            name: b"..".to_vec(),
            ino: 0,
            filetype: FILETYPE_DIRECTORY,
        },
    ];
    let mut rest = Vec::new();
    for e in dir.entries()? {
        let e = e?;
        let name = e.file_name().into_vec();
        let (ino, filetype) = match e.metadata() {
            Ok(m) => (m.ino(), filetype_of_mode(m.mode())),
            Err(_) => {
                let ft = match e.file_type() {
                    Ok(t) if t.is_dir() => FILETYPE_DIRECTORY,
                    Ok(t) if t.is_file() => FILETYPE_REGULAR_FILE,
                    Ok(t) if t.is_symlink() => FILETYPE_SYMBOLIC_LINK,
                    _ => FILETYPE_UNKNOWN,
                };
                (0, ft)
            }
        };
        rest.push(DirEntry {
            name,
            ino,
            filetype,
        });
    }
    rest.sort_by(|a, b| a.name.cmp(&b.name));
    v.extend(rest);
    Ok(v)
}

impl WasiCtx {
    fn kind(&self, fd: u32) -> Result<Kind, Errno> {
        Ok(match self.fds.get(&fd).ok_or(EBADF)? {
            Desc::Stdin => Kind::Stdin,
            Desc::Stdout => Kind::Stdout,
            Desc::Stderr => Kind::Stderr,
            Desc::File(_) => Kind::File,
            Desc::Dir(_) => Kind::Dir,
        })
    }

    /// The open file behind `fd`; `not_file` is the errno for stdio and directories.
    fn file(&mut self, fd: u32, not_file: Errno) -> Result<&mut FileDesc, Errno> {
        match self.fds.get_mut(&fd) {
            Some(Desc::File(f)) => Ok(f),
            Some(_) => Err(not_file),
            None => Err(EBADF),
        }
    }

    /// The directory behind `fd` (path operations' base).
    fn dir(&self, fd: u32) -> Result<&cap_std::fs::Dir, Errno> {
        match self.fds.get(&fd) {
            Some(Desc::Dir(d)) => Ok(&d.dir),
            Some(_) => Err(ENOTDIR),
            None => Err(EBADF),
        }
    }

    // ---- args / environ ----

    fn strings_get(list: &[String], m: &mut GuestMem, ptrs: u32, buf: u32) -> WasiResult {
        let mut off = buf;
        for (i, s) in list.iter().enumerate() {
            m.write_u32(ptrs.checked_add(4 * i as u32).ok_or(EFAULT)?, off)?;
            m.write_bytes(off, s.as_bytes())?;
            off = off.checked_add(s.len() as u32).ok_or(EFAULT)?;
            m.write_u8(off, 0)?;
            off = off.checked_add(1).ok_or(EFAULT)?;
        }
        Ok(())
    }

    fn strings_sizes(list: &[String], m: &mut GuestMem, count: u32, size: u32) -> WasiResult {
        let total: usize = list.iter().map(|s| s.len() + 1).sum();
        m.write_u32(count, list.len() as u32)?;
        m.write_u32(size, total as u32)
    }

    pub fn args_get(&mut self, m: &mut GuestMem, argv: u32, buf: u32) -> WasiResult {
        Self::strings_get(&self.args, m, argv, buf)
    }
    pub fn args_sizes_get(&mut self, m: &mut GuestMem, argc: u32, size: u32) -> WasiResult {
        Self::strings_sizes(&self.args, m, argc, size)
    }
    pub fn environ_get(&mut self, m: &mut GuestMem, environ: u32, buf: u32) -> WasiResult {
        Self::strings_get(&self.env, m, environ, buf)
    }
    pub fn environ_sizes_get(&mut self, m: &mut GuestMem, count: u32, size: u32) -> WasiResult {
        Self::strings_sizes(&self.env, m, count, size)
    }

    // ---- clocks, random, sched ----

    pub fn clock_res_get(&mut self, m: &mut GuestMem, id: u32, out: u32) -> WasiResult {
        let r = clock_res(id)?;
        m.write_u64(out, r)
    }
    pub fn clock_time_get(
        &mut self,
        m: &mut GuestMem,
        id: u32,
        _precision: u64,
        out: u32,
    ) -> WasiResult {
        let t = clock_now(id)?;
        m.write_u64(out, t)
    }
    pub fn random_get(&mut self, m: &mut GuestMem, buf: u32, len: u32) -> WasiResult {
        let b = m.slice_mut(buf, len)?;
        getrandom::getrandom(b).map_err(|_| EIO)
    }
    pub fn sched_yield(&mut self) -> WasiResult {
        std::thread::yield_now();
        Ok(())
    }

    // ---- fd I/O ----

    pub fn fd_write(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        iovs: u32,
        iovs_len: u32,
        nwritten: u32,
    ) -> WasiResult {
        let iovs = m.iovecs(iovs, iovs_len)?;
        m.range(nwritten, 4)?;
        let mut total: u64 = 0;
        match self.kind(fd)? {
            Kind::Stdin => return Err(EBADF),
            Kind::Dir => return Err(EISDIR),
            k @ (Kind::Stdout | Kind::Stderr) => {
                for &(p, l) in &iovs {
                    let data = m.slice(p, l)?;
                    let r = if k == Kind::Stdout {
                        self.write_stdout(data)
                    } else {
                        self.write_stderr(data)
                    };
                    r.map_err(io_err)?;
                    total += l as u64;
                }
            }
            Kind::File => {
                let f = self.file(fd, EBADF)?;
                for &(p, l) in &iovs {
                    let data = m.slice(p, l)?;
                    match f.file.write_all(data) {
                        Ok(()) => total += l as u64,
                        Err(e) if total == 0 => return Err(io_err(e)),
                        Err(_) => break,
                    }
                }
            }
        }
        m.write_u32(nwritten, total as u32)
    }

    pub fn fd_read(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        iovs: u32,
        iovs_len: u32,
        nread: u32,
    ) -> WasiResult {
        let iovs = m.iovecs(iovs, iovs_len)?;
        m.range(nread, 4)?;
        let mut total: u64 = 0;
        match self.kind(fd)? {
            Kind::Stdout | Kind::Stderr => return Err(EBADF),
            Kind::Dir => return Err(EISDIR),
            Kind::Stdin => {
                for &(p, l) in &iovs {
                    let buf = m.slice_mut(p, l)?;
                    match self.read_stdin(buf) {
                        Ok(n) => {
                            total += n as u64;
                            if n < l as usize {
                                break;
                            }
                        }
                        Err(e) if total == 0 => return Err(io_err(e)),
                        Err(_) => break,
                    }
                }
            }
            Kind::File => {
                let f = self.file(fd, EBADF)?;
                for &(p, l) in &iovs {
                    let buf = m.slice_mut(p, l)?;
                    match f.file.read(buf) {
                        Ok(n) => {
                            total += n as u64;
                            if n < l as usize {
                                break;
                            }
                        }
                        Err(e) if total == 0 => return Err(io_err(e)),
                        Err(_) => break,
                    }
                }
            }
        }
        m.write_u32(nread, total as u32)
    }

    pub fn fd_pread(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        iovs: u32,
        iovs_len: u32,
        offset: u64,
        nread: u32,
    ) -> WasiResult {
        use std::os::unix::fs::FileExt;
        let iovs = m.iovecs(iovs, iovs_len)?;
        m.range(nread, 4)?;
        let kind = self.kind(fd)?;
        let f = self.file(fd, if kind == Kind::Dir { EISDIR } else { ESPIPE })?;
        let mut total: u64 = 0;
        for &(p, l) in &iovs {
            let buf = m.slice_mut(p, l)?;
            let off = offset.checked_add(total).ok_or(EINVAL)?;
            match f.file.read_at(buf, off) {
                Ok(n) => {
                    total += n as u64;
                    if n < l as usize {
                        break;
                    }
                }
                Err(e) if total == 0 => return Err(io_err(e)),
                Err(_) => break,
            }
        }
        m.write_u32(nread, total as u32)
    }

    pub fn fd_pwrite(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        iovs: u32,
        iovs_len: u32,
        offset: u64,
        nwritten: u32,
    ) -> WasiResult {
        use std::os::unix::fs::FileExt;
        let iovs = m.iovecs(iovs, iovs_len)?;
        m.range(nwritten, 4)?;
        let kind = self.kind(fd)?;
        let f = self.file(fd, if kind == Kind::Dir { EISDIR } else { ESPIPE })?;
        let mut total: u64 = 0;
        for &(p, l) in &iovs {
            let data = m.slice(p, l)?;
            let off = offset.checked_add(total).ok_or(EINVAL)?;
            match f.file.write_all_at(data, off) {
                Ok(()) => total += l as u64,
                Err(e) if total == 0 => return Err(io_err(e)),
                Err(_) => break,
            }
        }
        m.write_u32(nwritten, total as u32)
    }

    pub fn fd_seek(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        offset: i64,
        whence: u32,
        newoffset: u32,
    ) -> WasiResult {
        m.range(newoffset, 8)?;
        let kind = self.kind(fd)?;
        let f = self.file(fd, if kind == Kind::Dir { EBADF } else { ESPIPE })?;
        let pos = match whence {
            0 => SeekFrom::Start(u64::try_from(offset).map_err(|_| EINVAL)?),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            _ => return Err(EINVAL),
        };
        let n = f.file.seek(pos).map_err(io_err)?;
        m.write_u64(newoffset, n)
    }

    pub fn fd_tell(&mut self, m: &mut GuestMem, fd: u32, out: u32) -> WasiResult {
        m.range(out, 8)?;
        let kind = self.kind(fd)?;
        let f = self.file(fd, if kind == Kind::Dir { EBADF } else { ESPIPE })?;
        let n = f.file.stream_position().map_err(io_err)?;
        m.write_u64(out, n)
    }

    pub fn fd_close(&mut self, fd: u32) -> WasiResult {
        match self.fds.remove(&fd) {
            None => Err(EBADF),
            // Closing any descriptor is a sync point for buffered stdout.
            Some(Desc::Stdout) => self.flush().map_err(io_err),
            Some(_) => {
                let _ = self.flush();
                Ok(())
            }
        }
    }

    pub fn fd_renumber(&mut self, from: u32, to: u32) -> WasiResult {
        if !self.fds.contains_key(&from) || !self.fds.contains_key(&to) {
            return Err(EBADF);
        }
        if from == to {
            return Ok(());
        }
        if matches!(self.fds.get(&to), Some(Desc::Stdout)) {
            self.flush().map_err(io_err)?;
        }
        let d = self.fds.remove(&from).unwrap();
        self.fds.insert(to, d);
        Ok(())
    }

    pub fn fd_sync(&mut self, fd: u32) -> WasiResult {
        match self.kind(fd)? {
            Kind::File => self.file(fd, EBADF)?.file.sync_all().map_err(io_err),
            Kind::Stdout => self.flush().map_err(io_err),
            _ => Ok(()),
        }
    }

    pub fn fd_datasync(&mut self, fd: u32) -> WasiResult {
        match self.kind(fd)? {
            Kind::File => self.file(fd, EBADF)?.file.sync_data().map_err(io_err),
            Kind::Stdout => self.flush().map_err(io_err),
            _ => Ok(()),
        }
    }

    pub fn fd_advise(&mut self, fd: u32, _offset: u64, _len: u64, advice: u32) -> WasiResult {
        if advice > 5 {
            return Err(EINVAL);
        }
        let kind = self.kind(fd)?;
        self.file(fd, if kind == Kind::Dir { EBADF } else { ESPIPE })?;
        Ok(())
    }

    pub fn fd_allocate(&mut self, fd: u32, offset: u64, len: u64) -> WasiResult {
        let kind = self.kind(fd)?;
        let f = self.file(fd, if kind == Kind::Dir { EBADF } else { ESPIPE })?;
        let end = offset.checked_add(len).ok_or(EFBIG)?;
        if end > i64::MAX as u64 {
            return Err(EFBIG);
        }
        let size = f.file.metadata().map_err(io_err)?.len();
        if end > size {
            f.file.set_len(end).map_err(io_err)?;
        }
        Ok(())
    }

    // ---- fd metadata ----

    pub fn fd_fdstat_get(&mut self, m: &mut GuestMem, fd: u32, out: u32) -> WasiResult {
        m.range(out, 24)?;
        let tty_rights = |tty: bool, rw: u64| {
            let base =
                rw | RIGHT_FD_FDSTAT_SET_FLAGS | RIGHT_FD_FILESTAT_GET | RIGHT_POLL_FD_READWRITE;
            let ft = if tty {
                FILETYPE_CHARACTER_DEVICE
            } else {
                FILETYPE_UNKNOWN
            };
            (ft, 0u16, base, 0u64)
        };
        let (ft, flags, base, inh) = match self.fds.get(&fd).ok_or(EBADF)? {
            Desc::Stdin => tty_rights(self.stdin_tty, RIGHT_FD_READ),
            Desc::Stdout => tty_rights(self.stdout_tty, RIGHT_FD_WRITE),
            Desc::Stderr => tty_rights(self.stderr_tty, RIGHT_FD_WRITE),
            Desc::File(f) => {
                let meta = f.file.metadata().map_err(io_err)?;
                (std_filestat(&meta).filetype, f.fdflags, RIGHTS_ALL, 0)
            }
            Desc::Dir(_) => (FILETYPE_DIRECTORY, 0, RIGHTS_ALL, RIGHTS_ALL),
        };
        let mut b = [0u8; 24];
        b[0] = ft;
        b[2..4].copy_from_slice(&flags.to_le_bytes());
        b[8..16].copy_from_slice(&base.to_le_bytes());
        b[16..24].copy_from_slice(&inh.to_le_bytes());
        m.write_bytes(out, &b)
    }

    pub fn fd_fdstat_set_flags(&mut self, fd: u32, flags: u32) -> WasiResult {
        if flags > 0x1f {
            return Err(EINVAL);
        }
        let flags = flags as u16;
        if flags & (FDFLAGS_DSYNC | FDFLAGS_RSYNC | FDFLAGS_SYNC) != 0 {
            return Err(ENOTSUP);
        }
        match self.kind(fd)? {
            Kind::File => {
                let f = self.file(fd, EBADF)?;
                set_status_flags(&f.file, flags)?;
                f.fdflags = flags;
                Ok(())
            }
            _ if flags & FDFLAGS_APPEND != 0 => Err(ENOTSUP),
            _ => Ok(()),
        }
    }

    pub fn fd_fdstat_set_rights(&mut self, fd: u32, _base: u64, _inheriting: u64) -> WasiResult {
        self.kind(fd)?;
        Ok(())
    }

    pub fn fd_filestat_get(&mut self, m: &mut GuestMem, fd: u32, out: u32) -> WasiResult {
        m.range(out, 64)?;
        let st = match self.fds.get(&fd).ok_or(EBADF)? {
            Desc::Stdin => Filestat {
                filetype: if self.stdin_tty {
                    FILETYPE_CHARACTER_DEVICE
                } else {
                    FILETYPE_UNKNOWN
                },
                ..Default::default()
            },
            Desc::Stdout => Filestat {
                filetype: if self.stdout_tty {
                    FILETYPE_CHARACTER_DEVICE
                } else {
                    FILETYPE_UNKNOWN
                },
                ..Default::default()
            },
            Desc::Stderr => Filestat {
                filetype: if self.stderr_tty {
                    FILETYPE_CHARACTER_DEVICE
                } else {
                    FILETYPE_UNKNOWN
                },
                ..Default::default()
            },
            Desc::File(f) => std_filestat(&f.file.metadata().map_err(io_err)?),
            Desc::Dir(d) => cap_filestat(&d.dir.dir_metadata().map_err(io_err)?),
        };
        write_filestat(m, out, &st)
    }

    pub fn fd_filestat_set_size(&mut self, fd: u32, size: u64) -> WasiResult {
        let kind = self.kind(fd)?;
        let f = self.file(fd, if kind == Kind::Dir { EISDIR } else { EINVAL })?;
        if size > i64::MAX as u64 {
            return Err(EFBIG);
        }
        f.file.set_len(size).map_err(io_err)
    }

    pub fn fd_filestat_set_times(&mut self, fd: u32, atim: u64, mtim: u64, fst: u32) -> WasiResult {
        let (a, mt) = times(atim, mtim, fst)?;
        match self.fds.get_mut(&fd).ok_or(EBADF)? {
            Desc::File(f) => {
                let mut t = std::fs::FileTimes::new();
                if let Some(a) = a {
                    t = t.set_accessed(spec_to_std(a));
                }
                if let Some(mt) = mt {
                    t = t.set_modified(spec_to_std(mt));
                }
                f.file.set_times(t).map_err(io_err)
            }
            Desc::Dir(d) => d.dir.set_times(".", a, mt).map_err(io_err),
            _ => Err(ENOTSUP),
        }
    }

    // ---- preopens ----

    pub fn fd_prestat_get(&mut self, m: &mut GuestMem, fd: u32, out: u32) -> WasiResult {
        match self.fds.get(&fd) {
            Some(Desc::Dir(DirDesc {
                preopen: Some(name),
                ..
            })) => {
                let len = name.len() as u32;
                let mut b = [0u8; 8];
                b[4..8].copy_from_slice(&len.to_le_bytes());
                m.write_bytes(out, &b)
            }
            _ => Err(EBADF),
        }
    }

    pub fn fd_prestat_dir_name(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        path: u32,
        len: u32,
    ) -> WasiResult {
        match self.fds.get(&fd) {
            Some(Desc::Dir(DirDesc {
                preopen: Some(name),
                ..
            })) => {
                if (len as usize) < name.len() {
                    return Err(ENAMETOOLONG);
                }
                m.write_bytes(path, name.as_bytes())
            }
            _ => Err(EBADF),
        }
    }

    // ---- directories ----

    pub fn fd_readdir(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        buf: u32,
        buf_len: u32,
        cookie: u64,
        bufused: u32,
    ) -> WasiResult {
        m.range(buf, buf_len)?;
        m.range(bufused, 4)?;
        let d = match self.fds.get_mut(&fd) {
            Some(Desc::Dir(d)) => d,
            Some(_) => return Err(ENOTDIR),
            None => return Err(EBADF),
        };
        if cookie == 0 || d.listing.is_none() {
            d.listing = Some(list_dir(&d.dir).map_err(io_err)?);
        }
        let entries = d.listing.as_ref().unwrap();
        let mut out: Vec<u8> = Vec::new();
        let start = usize::try_from(cookie).unwrap_or(usize::MAX);
        for (i, e) in entries.iter().enumerate().skip(start) {
            if out.len() >= buf_len as usize {
                break;
            }
            out.extend_from_slice(&((i + 1) as u64).to_le_bytes());
            out.extend_from_slice(&e.ino.to_le_bytes());
            out.extend_from_slice(&(e.name.len() as u32).to_le_bytes());
            out.extend_from_slice(&[e.filetype, 0, 0, 0]);
            out.extend_from_slice(&e.name);
        }
        let n = out.len().min(buf_len as usize);
        m.write_bytes(buf, &out[..n])?;
        m.write_u32(bufused, n as u32)
    }

    pub fn path_create_directory(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        path: u32,
        len: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        self.dir(fd)?.create_dir(&p).map_err(io_err)
    }

    pub fn path_remove_directory(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        path: u32,
        len: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        self.dir(fd)?.remove_dir(&p).map_err(io_err)
    }

    pub fn path_unlink_file(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        path: u32,
        len: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        let dir = self.dir(fd)?;
        // Paths with a trailing slash name directories; unlink must refuse them.
        if p.as_os_str().as_bytes().ends_with(b"/") {
            return match dir.symlink_metadata(&p) {
                Ok(md) if md.is_dir() => Err(EISDIR),
                Ok(_) => Err(ENOTDIR),
                Err(e) => Err(io_err(e)),
            };
        }
        dir.remove_file(&p).map_err(io_err)
    }

    pub fn path_filestat_get(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        flags: u32,
        path: u32,
        len: u32,
        out: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        m.range(out, 64)?;
        let dir = self.dir(fd)?;
        let md = if flags & LOOKUPFLAGS_SYMLINK_FOLLOW != 0 {
            dir.metadata(&p)
        } else {
            dir.symlink_metadata(&p)
        };
        let st = cap_filestat(&md.map_err(io_err)?);
        write_filestat(m, out, &st)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn path_filestat_set_times(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        flags: u32,
        path: u32,
        len: u32,
        atim: u64,
        mtim: u64,
        fst: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        let (a, mt) = times(atim, mtim, fst)?;
        let dir = self.dir(fd)?;
        let r = if flags & LOOKUPFLAGS_SYMLINK_FOLLOW != 0 {
            dir.set_times(&p, a, mt)
        } else {
            dir.set_symlink_times(&p, a, mt)
        };
        r.map_err(io_err)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn path_link(
        &mut self,
        m: &mut GuestMem,
        old_fd: u32,
        _old_flags: u32,
        old_path: u32,
        old_len: u32,
        new_fd: u32,
        new_path: u32,
        new_len: u32,
    ) -> WasiResult {
        let old = guest_path(m, old_path, old_len)?;
        let new = guest_path(m, new_path, new_len)?;
        let od = self.dir(old_fd)?;
        let nd = self.dir(new_fd)?;
        od.hard_link(&old, nd, &new).map_err(io_err)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn path_rename(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        old_path: u32,
        old_len: u32,
        new_fd: u32,
        new_path: u32,
        new_len: u32,
    ) -> WasiResult {
        let old = guest_path(m, old_path, old_len)?;
        let new = guest_path(m, new_path, new_len)?;
        let od = self.dir(fd)?;
        let nd = self.dir(new_fd)?;
        od.rename(&old, nd, &new).map_err(io_err)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn path_readlink(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        path: u32,
        len: u32,
        buf: u32,
        buf_len: u32,
        bufused: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        m.range(buf, buf_len)?;
        m.range(bufused, 4)?;
        let target = self.dir(fd)?.read_link(&p).map_err(io_err)?;
        let bytes = target.as_os_str().as_bytes();
        let n = bytes.len().min(buf_len as usize);
        m.write_bytes(buf, &bytes[..n])?;
        m.write_u32(bufused, n as u32)
    }

    pub fn path_symlink(
        &mut self,
        m: &mut GuestMem,
        old_path: u32,
        old_len: u32,
        fd: u32,
        new_path: u32,
        new_len: u32,
    ) -> WasiResult {
        let target = m.slice(old_path, old_len)?;
        if target.is_empty() {
            return Err(ENOENT);
        }
        if target.contains(&0) || std::str::from_utf8(target).is_err() {
            return Err(EILSEQ);
        }
        if target.starts_with(b"/") {
            // An absolute target could only ever resolve outside the sandbox.
            return Err(ENOTCAPABLE);
        }
        let target = PathBuf::from(std::ffi::OsStr::from_bytes(target));
        let new = guest_path(m, new_path, new_len)?;
        self.dir(fd)?.symlink(&target, &new).map_err(io_err)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn path_open(
        &mut self,
        m: &mut GuestMem,
        fd: u32,
        dirflags: u32,
        path: u32,
        len: u32,
        oflags: u32,
        rights_base: u64,
        _rights_inheriting: u64,
        fdflags: u32,
        fd_out: u32,
    ) -> WasiResult {
        let p = guest_path(m, path, len)?;
        m.range(fd_out, 4)?;
        if oflags & !0xf != 0 || fdflags > 0x1f {
            return Err(EINVAL);
        }
        let fdflags = fdflags as u16;
        let follow = dirflags & LOOKUPFLAGS_SYMLINK_FOLLOW != 0;
        let creat = oflags & OFLAGS_CREAT != 0;
        let excl = oflags & OFLAGS_EXCL != 0;
        let trunc = oflags & OFLAGS_TRUNC != 0;
        let dir = self.dir(fd)?;
        let desc = if oflags & OFLAGS_DIRECTORY != 0 {
            if creat || trunc {
                return Err(EINVAL);
            }
            let d = if follow {
                dir.open_dir(&p)
            } else {
                dir.open_dir_nofollow(&p)
            }
            .map_err(io_err)?;
            Desc::Dir(DirDesc {
                dir: d,
                preopen: None,
                listing: None,
            })
        } else {
            let mut read = rights_base & (RIGHT_FD_READ | RIGHT_FD_READDIR) != 0;
            let mut write = rights_base
                & (RIGHT_FD_WRITE
                    | RIGHT_FD_ALLOCATE
                    | RIGHT_FD_FILESTAT_SET_SIZE
                    | RIGHT_FD_DATASYNC)
                != 0;
            let append = fdflags & FDFLAGS_APPEND != 0;
            if creat || trunc || append {
                write = true;
            }
            if !read && !write {
                read = true;
            }
            // POSIX allows O_APPEND|O_TRUNC but std-style OpenOptions don't:
            // open for writing and switch on O_APPEND afterwards.
            let append_later = append && trunc;
            let os_append = append && !append_later;
            let mut opts = cap_std::fs::OpenOptions::new();
            opts.read(read)
                .write(write && !os_append)
                .append(os_append)
                .truncate(trunc)
                .create(creat && !excl)
                .create_new(creat && excl);
            opts.follow(if follow {
                FollowSymlinks::Yes
            } else {
                FollowSymlinks::No
            });
            opts.maybe_dir(!write);
            if fdflags & FDFLAGS_NONBLOCK != 0 {
                use cap_std::fs::OpenOptionsExt;
                opts.custom_flags(libc::O_NONBLOCK);
            }
            let file = dir.open_with(&p, &opts).map_err(io_err)?.into_std();
            if append_later {
                set_status_flags(&file, fdflags & (FDFLAGS_APPEND | FDFLAGS_NONBLOCK))?;
            }
            let is_dir = file.metadata().map_err(io_err)?.is_dir();
            if is_dir {
                Desc::Dir(DirDesc {
                    dir: cap_std::fs::Dir::from_std_file(file),
                    preopen: None,
                    listing: None,
                })
            } else {
                Desc::File(FileDesc {
                    file,
                    fdflags: fdflags & (FDFLAGS_APPEND | FDFLAGS_NONBLOCK),
                })
            }
        };
        let new_fd = self.insert(desc)?;
        if let Err(e) = m.write_u32(fd_out, new_fd) {
            self.fds.remove(&new_fd);
            return Err(e);
        }
        Ok(())
    }

    // ---- poll ----

    pub fn poll_oneoff(
        &mut self,
        m: &mut GuestMem,
        input: u32,
        out: u32,
        nsubs: u32,
        nevents: u32,
    ) -> WasiResult {
        if nsubs == 0 {
            return Err(EINVAL);
        }
        m.range(input, nsubs.checked_mul(48).ok_or(EFAULT)?)?;
        m.range(out, nsubs.checked_mul(32).ok_or(EFAULT)?)?;
        m.range(nevents, 4)?;
        // (userdata, errno, type, nbytes)
        let mut events: Vec<(u64, Errno, u8, u64)> = Vec::new();
        // Clock subscriptions: (userdata, nanoseconds from now, errno).
        let mut clocks: Vec<(u64, u64)> = Vec::new();
        for i in 0..nsubs {
            let s = input + i * 48;
            let userdata = m.read_u64(s)?;
            let tag = m.read_u8(s + 8)?;
            match tag {
                EVENTTYPE_CLOCK => {
                    let id = m.read_u32(s + 16)?;
                    let timeout = m.read_u64(s + 24)?;
                    let flags = m.read_u16(s + 40)?;
                    let delta = if flags & SUBCLOCKFLAGS_ABSTIME != 0 {
                        clock_now(id).map(|now| timeout.saturating_sub(now))
                    } else {
                        clock_id(id).map(|_| timeout)
                    };
                    match delta {
                        Ok(d) => clocks.push((userdata, d)),
                        Err(e) => events.push((userdata, e, EVENTTYPE_CLOCK, 0)),
                    }
                }
                EVENTTYPE_FD_READ | EVENTTYPE_FD_WRITE => {
                    let fd = m.read_u32(s + 16)?;
                    let ev = match self.fds.get_mut(&fd) {
                        None => (userdata, EBADF, tag, 0),
                        Some(Desc::Dir(_)) => (userdata, EISDIR, tag, 0),
                        Some(Desc::File(f)) if tag == EVENTTYPE_FD_READ => {
                            let size = f.file.metadata().map(|md| md.len()).unwrap_or(0);
                            let pos = f.file.stream_position().unwrap_or(size);
                            (userdata, 0, tag, size.saturating_sub(pos))
                        }
                        Some(Desc::Stdout | Desc::Stderr) if tag == EVENTTYPE_FD_READ => {
                            (userdata, EBADF, tag, 0)
                        }
                        Some(Desc::Stdin) if tag == EVENTTYPE_FD_WRITE => (userdata, EBADF, tag, 0),
                        // Stdin: report readable; the read itself blocks if needed.
                        Some(_) => (
                            userdata,
                            0,
                            tag,
                            if tag == EVENTTYPE_FD_READ { 1 } else { 0 },
                        ),
                    };
                    events.push(ev);
                }
                _ => events.push((userdata, EINVAL, tag, 0)),
            }
        }
        if events.is_empty() {
            // Only clocks: sleep until the earliest one and report every clock due by then.
            let earliest = clocks.iter().map(|c| c.1).min().unwrap_or(0);
            if earliest > 0 {
                self.flush().ok();
                std::thread::sleep(Duration::from_nanos(earliest));
            }
            for &(ud, d) in &clocks {
                if d <= earliest {
                    events.push((ud, 0, EVENTTYPE_CLOCK, 0));
                }
            }
        } else {
            // Clocks that are already due fire together with the fd events.
            for &(ud, d) in &clocks {
                if d == 0 {
                    events.push((ud, 0, EVENTTYPE_CLOCK, 0));
                }
            }
        }
        for (i, &(ud, err, ty, nbytes)) in events.iter().enumerate() {
            let mut b = [0u8; 32];
            b[0..8].copy_from_slice(&ud.to_le_bytes());
            b[8..10].copy_from_slice(&err.to_le_bytes());
            b[10] = ty;
            if ty != EVENTTYPE_CLOCK {
                b[16..24].copy_from_slice(&nbytes.to_le_bytes());
            }
            m.write_bytes(out + 32 * i as u32, &b)?;
        }
        m.write_u32(nevents, events.len() as u32)
    }
}
