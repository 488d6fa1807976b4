#!/usr/bin/env python3
"""Wasm 3.0 programs (tests/wasm3/*.wat: GC and exception handling) under
Wasmtime (Python API, GC and exceptions on) and wizeng.

    wasm3_vs_wasmtime.py [--write] [--wizeng=PATH]
        Run every program under Wasmtime and under wizeng in each mode and
        compare their stdout with NAME.expected; --write first rewrites each
        NAME.expected from Wasmtime's output (the test expectations come from
        the peer, never from us).

    wasm3_vs_wasmtime.py --bench[=DEPTH] [--runs=N] [--wizeng=PATH]
        binary_trees.wat run(DEPTH) (default 16): median of N (default 5)
        whole-process times of wizeng per mode and of Wasmtime, and the run
        time alone (wizeng's --metrics "run", Wasmtime's call), with ratios.

Processes are timed with a blocking wait (os.wait4), not a polling timeout.
Needs the venv of scripts/venv.sh (the `wasmtime` package).
"""
import os
import statistics
import subprocess
import sys
import time

import wasmtime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "tests", "wasm3")
MODES = ["int", "jit", "lazy", "dyn"]


def wasmtime_run(path, invoke="_start", args=()):
    """(stdout bytes, run seconds): the program under Wasmtime."""
    c = wasmtime.Config()
    c.wasm_gc = True
    c.wasm_function_references = True
    c.wasm_exceptions = True
    engine = wasmtime.Engine(c)
    store = wasmtime.Store(engine)
    out = os.path.join("/tmp", f"wasm3-wasmtime-{os.getpid()}.out")
    w = wasmtime.WasiConfig()
    w.stdout_file = out
    store.set_wasi(w)
    module = wasmtime.Module.from_file(engine, path)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    inst = linker.instantiate(store, module)
    t0 = time.perf_counter()
    inst.exports(store)[invoke](store, *args)
    t1 = time.perf_counter()
    with open(out, "rb") as f:
        text = f.read()
    os.unlink(out)
    return text, t1 - t0


def timed(cmd):
    """(stdout, stderr, wall seconds) of a process, with a blocking wait."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    t1 = time.perf_counter()
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {err.decode()}")
    return out, err, t1 - t0


def compare(wizeng, write):
    bad = 0
    for name in sorted(f for f in os.listdir(DIR) if f.endswith(".wat")):
        path = os.path.join(DIR, name)
        expected_path = path[:-4] + ".expected"
        ours, _ = wasmtime_run(path)
        if write:
            with open(expected_path, "wb") as f:
                f.write(ours)
        with open(expected_path, "rb") as f:
            want = f.read()
        status = ["wasmtime " + ("ok" if ours == want else "DIFFERS")]
        bad += ours != want
        for mode in MODES:
            out, _, _ = timed([wizeng, f"--mode={mode}", path])
            status.append(f"{mode} " + ("ok" if out == want else "DIFFERS"))
            bad += out != want
        print(f"{name}: {', '.join(status)}")
    return bad


def bench(wizeng, depth, runs):
    path = os.path.join(DIR, "binary_trees.wat")
    rows = []
    for mode in MODES:
        walls, runs_s = [], []
        for _ in range(runs):
            _, err, wall = timed([wizeng, f"--mode={mode}", "--metrics", "--invoke=run", path, str(depth)])
            walls.append(wall)
            for line in err.decode().splitlines():
                if "run " in line and "load+validate" in line:
                    runs_s.append(float(line.rsplit("run ", 1)[1].split()[0]) / 1e3)
        rows.append((f"wizeng {mode}", statistics.median(walls), statistics.median(runs_s)))
    walls, runs_s = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        _, r = wasmtime_run(path, "run", (depth,))
        walls.append(time.perf_counter() - t0)
        runs_s.append(r)
    wt = ("wasmtime (in-process: compile+run)", statistics.median(walls), statistics.median(runs_s))
    print(f"binary_trees run({depth}), median of {runs}")
    print(f"{'engine':36} {'whole s':>9} {'run s':>9} {'run/wasmtime':>13}")
    for name, wall, run in rows + [wt]:
        print(f"{name:36} {wall:9.3f} {run:9.3f} {run / wt[2]:13.2f}")


def main(argv):
    wizeng = os.path.join(ROOT, "target", "release", "wizeng")
    write, depth, runs = False, None, 5
    for a in argv:
        if a == "--write":
            write = True
        elif a.startswith("--wizeng="):
            wizeng = a.split("=", 1)[1]
        elif a.startswith("--bench"):
            depth = int(a.split("=", 1)[1]) if "=" in a else 16
        elif a.startswith("--runs="):
            runs = int(a.split("=", 1)[1])
        else:
            sys.exit(__doc__)
    if depth is not None:
        bench(wizeng, depth, runs)
        return 0
    return 1 if compare(wizeng, write) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
