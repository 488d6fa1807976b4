#!/usr/bin/env python3
"""Run a WASI (preview1) program under Wasmtime through its Python API.

The command line mimics the wizeng CLI, so this script can stand in for the
engine wherever our scripts accept a `WIZENG=` override:

    run_wasmtime.py [--mode=M] [--dir=PATH]... [--env=K=V]... [--invoke=NAME]
                    [--stdout-file=F] [--stderr-file=F] [--times]
                    app.wasm [args...]

* `--mode` is accepted and ignored (Wasmtime always compiles with Cranelift).
* `--dir=PATH` preopens PATH under the guest path PATH (like wizeng);
  `--dir=HOST::GUEST` maps it to a different guest path.
* The environment is empty unless `--env` is given (never inherited).
* stdout/stderr are inherited unless `--stdout-file` / `--stderr-file` are given.
* `--times` prints `compile_s=... run_s=...` to stderr after the run.
* Exit status: the program's proc_exit code (0 on normal return from
  `_start`); 134 with a message on stderr if the program trapped; 2 on a
  load/link error.
"""
import os
import sys
import time

import wasmtime


def main(argv):
    dirs, env, invoke = [], [], None
    stdout_file = stderr_file = None
    times = False
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        a = argv[i]
        if a == "--":
            i += 1
            break
        key, _, val = a.partition("=")
        if key == "--mode":
            pass
        elif key == "--dir":
            dirs.append(val)
        elif key == "--env":
            env.append(val)
        elif key == "--invoke":
            invoke = val
        elif key == "--stdout-file":
            stdout_file = val
        elif key == "--stderr-file":
            stderr_file = val
        elif key == "--times":
            times = True
        else:
            print(f"run_wasmtime.py: unknown option {a}", file=sys.stderr)
            return 2
        i += 1
    if i >= len(argv):
        print(__doc__, file=sys.stderr)
        return 2
    wasm, args = argv[i], argv[i + 1:]

    t0 = time.perf_counter()
    try:
        engine = wasmtime.Engine()
        module = wasmtime.Module.from_file(engine, wasm)
    except Exception as e:  # noqa: BLE001
        print(f"run_wasmtime.py: cannot load {wasm}: {e}", file=sys.stderr)
        return 2
    t1 = time.perf_counter()

    wasi = wasmtime.WasiConfig()
    wasi.argv = [os.path.basename(wasm)] + list(args)
    wasi.env = [tuple(kv.split("=", 1)) if "=" in kv else (kv, "") for kv in env]
    for d in dirs:
        host, sep, guest = d.partition("::")
        wasi.preopen_dir(host, guest if sep else host)
    if stdout_file:
        wasi.stdout_file = stdout_file
    else:
        wasi.inherit_stdout()
    if stderr_file:
        wasi.stderr_file = stderr_file
    else:
        wasi.inherit_stderr()
    wasi.inherit_stdin()

    store = wasmtime.Store(engine)
    store.set_wasi(wasi)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    code = 0
    try:
        instance = linker.instantiate(store, module)
        name = invoke or "_start"
        func = instance.exports(store)[name]
        results = func(store)
        if invoke and results is not None:
            print(results)
    except wasmtime.ExitTrap as e:
        code = e.code
    except wasmtime.Trap as e:
        sys.stdout.flush()
        print(f"run_wasmtime.py: trap: {e}", file=sys.stderr)
        code = 134
    except wasmtime.WasmtimeError as e:
        print(f"run_wasmtime.py: error: {e}", file=sys.stderr)
        code = 2
    t2 = time.perf_counter()
    if times:
        print(f"compile_s={t1 - t0:.4f} run_s={t2 - t1:.4f}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.stdout.flush()
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # os._exit: skip interpreter teardown (fast, and keeps the exit code exact).
    os._exit(code & 0xFF if code >= 0 else 1)
