//! WASI preview1 errno values and the mapping from host errors.
#![allow(dead_code)]

/// A WASI errno (`errno` in the preview1 witx: a u16).
pub type Errno = u16;

pub const ESUCCESS: Errno = 0;
pub const E2BIG: Errno = 1;
pub const EACCES: Errno = 2;
pub const EADDRINUSE: Errno = 3;
pub const EADDRNOTAVAIL: Errno = 4;
pub const EAFNOSUPPORT: Errno = 5;
pub const EAGAIN: Errno = 6;
pub const EALREADY: Errno = 7;
pub const EBADF: Errno = 8;
pub const EBADMSG: Errno = 9;
pub const EBUSY: Errno = 10;
pub const ECANCELED: Errno = 11;
pub const ECHILD: Errno = 12;
pub const ECONNABORTED: Errno = 13;
pub const ECONNREFUSED: Errno = 14;
pub const ECONNRESET: Errno = 15;
pub const EDEADLK: Errno = 16;
pub const EDESTADDRREQ: Errno = 17;
pub const EDOM: Errno = 18;
pub const EDQUOT: Errno = 19;
pub const EEXIST: Errno = 20;
pub const EFAULT: Errno = 21;
pub const EFBIG: Errno = 22;
pub const EHOSTUNREACH: Errno = 23;
pub const EIDRM: Errno = 24;
pub const EILSEQ: Errno = 25;
pub const EINPROGRESS: Errno = 26;
pub const EINTR: Errno = 27;
pub const EINVAL: Errno = 28;
pub const EIO: Errno = 29;
pub const EISCONN: Errno = 30;
pub const EISDIR: Errno = 31;
pub const ELOOP: Errno = 32;
pub const EMFILE: Errno = 33;
pub const EMLINK: Errno = 34;
pub const EMSGSIZE: Errno = 35;
pub const EMULTIHOP: Errno = 36;
pub const ENAMETOOLONG: Errno = 37;
pub const ENETDOWN: Errno = 38;
pub const ENETRESET: Errno = 39;
pub const ENETUNREACH: Errno = 40;
pub const ENFILE: Errno = 41;
pub const ENOBUFS: Errno = 42;
pub const ENODEV: Errno = 43;
pub const ENOENT: Errno = 44;
pub const ENOEXEC: Errno = 45;
pub const ENOLCK: Errno = 46;
pub const ENOLINK: Errno = 47;
pub const ENOMEM: Errno = 48;
pub const ENOMSG: Errno = 49;
pub const ENOPROTOOPT: Errno = 50;
pub const ENOSPC: Errno = 51;
pub const ENOSYS: Errno = 52;
pub const ENOTCONN: Errno = 53;
pub const ENOTDIR: Errno = 54;
pub const ENOTEMPTY: Errno = 55;
pub const ENOTRECOVERABLE: Errno = 56;
pub const ENOTSOCK: Errno = 57;
pub const ENOTSUP: Errno = 58;
pub const ENOTTY: Errno = 59;
pub const ENXIO: Errno = 60;
pub const EOVERFLOW: Errno = 61;
pub const EOWNERDEAD: Errno = 62;
pub const EPERM: Errno = 63;
pub const EPIPE: Errno = 64;
pub const EPROTO: Errno = 65;
pub const EPROTONOSUPPORT: Errno = 66;
pub const EPROTOTYPE: Errno = 67;
pub const ERANGE: Errno = 68;
pub const EROFS: Errno = 69;
pub const ESPIPE: Errno = 70;
pub const ESRCH: Errno = 71;
pub const ESTALE: Errno = 72;
pub const ETIMEDOUT: Errno = 73;
pub const ETXTBSY: Errno = 74;
pub const EXDEV: Errno = 75;
pub const ENOTCAPABLE: Errno = 76;

/// Map a host `errno` value to the WASI one.
pub fn from_host_errno(e: i32) -> Errno {
    match e {
        0 => ESUCCESS,
        libc::E2BIG => self::E2BIG,
        libc::EACCES => self::EACCES,
        libc::EADDRINUSE => self::EADDRINUSE,
        libc::EADDRNOTAVAIL => self::EADDRNOTAVAIL,
        libc::EAFNOSUPPORT => self::EAFNOSUPPORT,
        libc::EAGAIN => self::EAGAIN,
        libc::EALREADY => self::EALREADY,
        libc::EBADF => self::EBADF,
        libc::EBADMSG => self::EBADMSG,
        libc::EBUSY => self::EBUSY,
        libc::ECANCELED => self::ECANCELED,
        libc::ECHILD => self::ECHILD,
        libc::ECONNABORTED => self::ECONNABORTED,
        libc::ECONNREFUSED => self::ECONNREFUSED,
        libc::ECONNRESET => self::ECONNRESET,
        libc::EDEADLK => self::EDEADLK,
        libc::EDESTADDRREQ => self::EDESTADDRREQ,
        libc::EDOM => self::EDOM,
        libc::EDQUOT => self::EDQUOT,
        libc::EEXIST => self::EEXIST,
        libc::EFAULT => self::EFAULT,
        libc::EFBIG => self::EFBIG,
        libc::EHOSTUNREACH => self::EHOSTUNREACH,
        libc::EIDRM => self::EIDRM,
        libc::EILSEQ => self::EILSEQ,
        libc::EINPROGRESS => self::EINPROGRESS,
        libc::EINTR => self::EINTR,
        libc::EINVAL => self::EINVAL,
        libc::EIO => self::EIO,
        libc::EISCONN => self::EISCONN,
        libc::EISDIR => self::EISDIR,
        libc::ELOOP => self::ELOOP,
        libc::EMFILE => self::EMFILE,
        libc::EMLINK => self::EMLINK,
        libc::EMSGSIZE => self::EMSGSIZE,
        libc::EMULTIHOP => self::EMULTIHOP,
        libc::ENAMETOOLONG => self::ENAMETOOLONG,
        libc::ENETDOWN => self::ENETDOWN,
        libc::ENETRESET => self::ENETRESET,
        libc::ENETUNREACH => self::ENETUNREACH,
        libc::ENFILE => self::ENFILE,
        libc::ENOBUFS => self::ENOBUFS,
        libc::ENODEV => self::ENODEV,
        libc::ENOENT => self::ENOENT,
        libc::ENOEXEC => self::ENOEXEC,
        libc::ENOLCK => self::ENOLCK,
        libc::ENOLINK => self::ENOLINK,
        libc::ENOMEM => self::ENOMEM,
        libc::ENOMSG => self::ENOMSG,
        libc::ENOPROTOOPT => self::ENOPROTOOPT,
        libc::ENOSPC => self::ENOSPC,
        libc::ENOSYS => self::ENOSYS,
        libc::ENOTCONN => self::ENOTCONN,
        libc::ENOTDIR => self::ENOTDIR,
        libc::ENOTEMPTY => self::ENOTEMPTY,
        libc::ENOTRECOVERABLE => self::ENOTRECOVERABLE,
        libc::ENOTSOCK => self::ENOTSOCK,
        libc::ENOTSUP => self::ENOTSUP,
        libc::ENOTTY => self::ENOTTY,
        libc::ENXIO => self::ENXIO,
        libc::EOVERFLOW => self::EOVERFLOW,
        libc::EOWNERDEAD => self::EOWNERDEAD,
        libc::EPERM => self::EPERM,
        libc::EPIPE => self::EPIPE,
        libc::EPROTO => self::EPROTO,
        libc::EPROTONOSUPPORT => self::EPROTONOSUPPORT,
        libc::EPROTOTYPE => self::EPROTOTYPE,
        libc::ERANGE => self::ERANGE,
        libc::EROFS => self::EROFS,
        libc::ESPIPE => self::ESPIPE,
        libc::ESRCH => self::ESRCH,
        libc::ESTALE => self::ESTALE,
        libc::ETIMEDOUT => self::ETIMEDOUT,
        libc::ETXTBSY => self::ETXTBSY,
        // A lookup that crossed the sandbox root (openat2 RESOLVE_BENEATH) or a mount.
        libc::EXDEV => self::EXDEV,
        _ => self::EIO,
    }
}

/// Map an I/O error to a WASI errno. Errors without an OS code come from
/// `cap-std`'s own checks: a `PermissionDenied` one means the path led outside
/// the sandbox ("a path led outside of the filesystem"), hence `ENOTCAPABLE`.
pub fn from_io(e: &std::io::Error) -> Errno {
    use std::io::ErrorKind as K;
    if let Some(code) = e.raw_os_error() {
        return from_host_errno(code);
    }
    match e.kind() {
        K::PermissionDenied => ENOTCAPABLE,
        K::NotFound => ENOENT,
        K::AlreadyExists => EEXIST,
        K::InvalidInput | K::InvalidData => EINVAL,
        K::WouldBlock => EAGAIN,
        K::Interrupted => EINTR,
        K::BrokenPipe => EPIPE,
        K::Unsupported => ENOTSUP,
        K::OutOfMemory => ENOMEM,
        K::NotADirectory => ENOTDIR,
        K::IsADirectory => EISDIR,
        K::DirectoryNotEmpty => ENOTEMPTY,
        K::ReadOnlyFilesystem => EROFS,
        K::FileTooLarge => EFBIG,
        K::InvalidFilename => EINVAL,
        _ => EIO,
    }
}
