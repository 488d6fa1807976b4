#!/usr/bin/env python3
"""Run a simple WASI (preview1) program under wasm3 (pywasm3).

wasm3's Python binding has no WASI, so this runner provides the few imports
that command-style C programs such as PolyBench need: fd_write, fd_seek,
fd_close, fd_fdstat_get, proc_exit, args_sizes_get, args_get,
environ_sizes_get, environ_get, clock_time_get.  Anything else is linked to a
stub that returns ENOSYS (52).

    run_wasm3.py [--times] app.wasm [args...]

Exit status: the program's proc_exit code (0 on normal return); 134 on a
trap; 2 on a load error.  `--times` prints `load_s=... run_s=... cpu_s=...` to
stderr (measured inside this process, so without Python's own start-up;
cpu_s = user+sys CPU time of load + run).
"""
import os
import struct
import sys
import time

import wasm3

WASI = "wasi_snapshot_preview1"
ENOSYS = 52
EBADF = 8


class Exit(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def main(argv):
    times = False
    if argv and argv[0] == "--times":
        times, argv = True, argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    path, args = argv[0], [os.path.basename(argv[0])] + argv[1:]
    t0, c0 = time.perf_counter(), time.process_time()
    env = wasm3.Environment()
    rt = env.new_runtime(8 << 20)   # wasm3 stack, bytes
    with open(path, "rb") as f:
        mod = env.parse_module(f.read())
    rt.load(mod)
    state = {"exit": None}

    def mem():
        return rt.get_memory(0)

    def fd_write(fd, iovs, iovs_len, nwritten):
        m = mem()
        total = 0
        chunks = []
        for i in range(iovs_len):
            ptr, ln = struct.unpack_from("<II", m, iovs + 8 * i)
            chunks.append(bytes(m[ptr:ptr + ln]))
            total += ln
        data = b"".join(chunks)
        if fd == 1:
            sys.stdout.buffer.write(data)
        elif fd == 2:
            sys.stderr.buffer.write(data)
        else:
            return EBADF
        struct.pack_into("<I", m, nwritten, total)
        return 0

    def fd_seek(fd, offset, whence, newoffset):
        return 70 if fd <= 2 else EBADF   # ESPIPE for stdio

    def fd_close(fd):
        return 0

    def fd_fdstat_get(fd, buf):
        if fd > 2:
            return EBADF
        m = mem()
        # filetype character_device (2), flags 0, rights all
        struct.pack_into("<BxHxxxxQQ", m, buf, 2, 0, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
        return 0

    def proc_exit(code):
        state["exit"] = code
        raise Exit(code)

    enc_args = [a.encode() + b"\0" for a in args]

    def args_sizes_get(argc, argv_buf_size):
        m = mem()
        struct.pack_into("<II", m, argc, len(enc_args), sum(len(a) for a in enc_args))
        return 0

    def args_get(argv_ptr, buf_ptr):
        m = mem()
        for i, a in enumerate(enc_args):
            struct.pack_into("<I", m, argv_ptr + 4 * i, buf_ptr)
            m[buf_ptr:buf_ptr + len(a)] = a
            buf_ptr += len(a)
        return 0

    def environ_sizes_get(count, size):
        struct.pack_into("<II", mem(), count, 0, 0)
        return 0

    def environ_get(environ, buf):
        return 0

    def clock_time_get(clock_id, precision, out):
        struct.pack_into("<Q", mem(), out, time.monotonic_ns() if clock_id else time.time_ns())
        return 0

    funcs = {
        "fd_write": ("i(iiii)", fd_write),
        "fd_seek": ("i(iIii)", fd_seek),
        "fd_close": ("i(i)", fd_close),
        "fd_fdstat_get": ("i(ii)", fd_fdstat_get),
        "proc_exit": ("v(i)", proc_exit),
        "args_sizes_get": ("i(ii)", args_sizes_get),
        "args_get": ("i(ii)", args_get),
        "environ_sizes_get": ("i(ii)", environ_sizes_get),
        "environ_get": ("i(ii)", environ_get),
        "clock_time_get": ("i(iIi)", clock_time_get),
    }
    for name, (sig, fn) in funcs.items():
        try:
            mod.link_function(WASI, name, sig, fn)
        except RuntimeError:
            pass   # not imported by this module
    t1 = time.perf_counter()
    code = 0
    try:
        rt.find_function("_start")()
    except Exit as e:
        code = e.code
    except RuntimeError as e:
        if state["exit"] is not None:   # proc_exit raised through wasm3
            code = state["exit"]
        else:
            sys.stdout.flush()
            print(f"run_wasm3.py: trap: {e}", file=sys.stderr)
            code = 134
    t2, c2 = time.perf_counter(), time.process_time()
    if times:
        print(f"load_s={t1 - t0:.4f} run_s={t2 - t1:.4f} cpu_s={c2 - c0:.4f}", file=sys.stderr)
    return code


if __name__ == "__main__":
    c = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(c & 0xFF)
