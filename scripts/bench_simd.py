#!/usr/bin/env python3
"""Driven by scripts/bench-simd.sh: times each kernel of simd_kernels.c in
its scalar and SIMD builds, in wizeng --mode=int and --mode=jit and in the
Wasmtime CLI (SIMD build), and in wasmi if given (SIMD build; a wasmi
built without SIMD is left out). Per cell: best of N runs, whole process
(wall time by a blocking wait), run-only (wizeng's --metrics `run`),
kernel-only (the program's own clock around its rounds, `kernel_s=` on
stderr: the same measure in every engine, peers included) and process CPU
time (user + sys). On a loaded machine the wall clocks wait for a core;
the CPU time minus that of a run of no kernel (`none`) is the steady
comparison across engines.
Every run of a kernel must print the same output. Prints a table, the
SIMD/scalar ratio per engine (< 1 means the SIMD build is faster), and for
the SIMD build wizeng's JIT over Wasmtime (whole process, both with their
code caches warm) and wizeng's interpreter over wasmi (whole process and
kernel-only)."""
import argparse
import os
import re
import resource
import subprocess
import sys
import time

KERNELS = ["saxpy", "dot", "bright", "sad", "mat4"]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, may_fail=False):
    """(wall s, run-only s or None, kernel s or None, CPU s, stdout or None)."""
    c0 = children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0  # subprocess.run waits blocking (no polling)
    cpu = children_cpu() - c0  # the child just reaped (runs are sequential)
    if p.returncode != 0 and may_fail:
        return wall, None, None, cpu, None
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode()}")
    k = re.search(rb"kernel_s=([0-9.]+)", p.stderr)
    kernel = float(k.group(1)) if k else None
    m = re.search(rb"run ([0-9.]+) ms", p.stderr)
    if m:
        return wall, float(m.group(1)) / 1000, kernel, cpu, p.stdout
    m = re.search(rb"run_s=([0-9.]+)", p.stderr)  # run_wasmtime.py --times
    return wall, (float(m.group(1)) if m else None), kernel, cpu, p.stdout


def best(cmd, runs, outputs, key, may_fail=False):
    """Best of `runs`: (wall, run-only or None, kernel or None, CPU), or None."""
    walls, runs_only, kernels, cpus = [], [], [], []
    for _ in range(runs):
        w, r, k, c, out = run(cmd, may_fail)
        if out is None:
            return None
        if outputs.setdefault(key, out) != out:
            sys.exit(f"output differs: {' '.join(cmd)}")
        walls.append(w)
        cpus.append(c)
        if r is not None:
            runs_only.append(r)
        if k is not None:
            kernels.append(k)
    return (min(walls), (min(runs_only) if runs_only else None),
            (min(kernels) if kernels else None), min(cpus))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--wasmtime", default="")
    ap.add_argument("--wasmi", default="")
    ap.add_argument("--wasmtime-py", default="",
                    help="Python with the wasmtime package: Wasmtime through its API "
                         "(scripts/run_wasmtime.py), run time measured in-process")
    ap.add_argument("--rounds", type=int, default=0,
                    help="rounds per kernel (0: the program's default, 400)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("scalar")
    ap.add_argument("simd")
    ap.add_argument("kernels", nargs="*")
    a = ap.parse_args()
    kernels = a.kernels or KERNELS
    extra = [f"rounds={a.rounds}"] if a.rounds else []
    engines = [("int", [a.wizeng, "--mode=int", "--metrics"]),
               ("jit", [a.wizeng, "--mode=jit", "--metrics"])]
    print(f"{'kernel':8} {'engine':9} {'scalar ms':>18} {'simd ms':>18} {'simd/scalar':>12}")
    print(f"{'':8} {'':9} {'(process / run)':>18} {'(process / run)':>18} {'(run)':>12}")
    ratios = {}
    simd_wall = {}
    simd_run = {}
    simd_kernel = {}
    simd_cpu = {}
    # Start-up alone (no kernel named but `none`): subtracted from the peers'
    # whole-process times to estimate their run time, and from every engine's
    # CPU time.
    startup = {}
    startup_cpu = {}
    here = os.path.dirname(os.path.abspath(__file__))
    wt_api = [a.wasmtime_py, os.path.join(here, "run_wasmtime.py"), "--times"]
    peers = ([("wt-warm", [a.wasmtime, "run"])] if a.wasmtime else []) + \
        ([("wt-api", wt_api)] if a.wasmtime_py else []) + \
        ([("wasmi", [a.wasmi])] if a.wasmi else [])
    for name, cmd in engines + peers:
        v = best(cmd + [a.simd, "none"], a.runs, {}, "none", may_fail=True)
        if v is not None:
            startup[name], startup_cpu[name] = v[0], v[3]
    for k in kernels:
        outputs = {}
        for name, cmd in engines:
            s = best(cmd + [a.scalar, k] + extra, a.runs, outputs, k)
            v = best(cmd + [a.simd, k] + extra, a.runs, outputs, k)
            r = v[1] / s[1]
            ratios.setdefault(name, []).append(r)
            simd_wall[(name, k)] = v[0]
            simd_run[(name, k)] = v[1]
            simd_kernel[(name, k)] = v[2]
            simd_cpu[(name, k)] = v[3]
            print(f"{k:8} {name:9} {s[0]*1e3:8.1f} / {s[1]*1e3:7.1f} {v[0]*1e3:8.1f} / {v[1]*1e3:7.1f} {r:12.2f}")
        if a.wasmtime:
            for cache in ["warm", "cold"]:
                flags = ["-C", "cache=n"] if cache == "cold" else []
                cmd = [a.wasmtime, "run"] + flags
                v = best(cmd + [a.simd, k] + extra, a.runs, outputs, k)
                simd_wall[("wt-" + cache, k)] = v[0]
                simd_kernel[("wt-" + cache, k)] = v[2]
                simd_cpu[("wt-" + cache, k)] = v[3]
                print(f"{k:8} {'wt-' + cache:9} {'':>18} {v[0]*1e3:8.1f} / {'':>7}")
        if a.wasmtime_py:
            v = best(wt_api + [a.simd, k] + extra, a.runs, outputs, k)
            simd_wall[("wt-api", k)], simd_run[("wt-api", k)], _, simd_cpu[("wt-api", k)] = v
            print(f"{k:8} {'wt-api':9} {'':>18} {v[0]*1e3:8.1f} / {v[1]*1e3:7.1f}")
        if a.wasmi:
            # Both builds: does wasmi's SIMD beat its scalar code? (kernel time)
            s = best([a.wasmi, a.scalar, k] + extra, a.runs, outputs, k)
            v = best([a.wasmi, a.simd, k] + extra, a.runs, outputs, k, may_fail=True)
            if v is None:
                print(f"{k:8} {'wasmi':9} {s[0]*1e3:8.1f} / {'':>7} {'fails':>18}")
            else:
                simd_wall[("wasmi", k)] = v[0]
                simd_kernel[("wasmi", k)] = v[2]
                simd_cpu[("wasmi", k)] = v[3]
                r = v[2] / s[2]
                ratios.setdefault("wasmi (kernel)", []).append(r)
                print(f"{k:8} {'wasmi':9} {s[0]*1e3:8.1f} / {s[2]*1e3:7.1f} "
                      f"{v[0]*1e3:8.1f} / {v[2]*1e3:7.1f} {r:12.2f}  (process / kernel)")
    for name, rs in ratios.items():
        print(f"geomean simd/scalar run time, {name}: {geomean(rs):.2f}")
    pairs = [(k, simd_run[("jit", k)] / simd_run[("wt-api", k)])
             for k in kernels if ("wt-api", k) in simd_run]
    if pairs:
        per = " ".join(f"{k}={r:.2f}" for k, r in pairs)
        print(f"SIMD build, run time (in-process), jit / Wasmtime API: geomean "
              f"{geomean([r for _, r in pairs]):.2f} ({per})")
    for ours, theirs in [("jit", "wt-warm"), ("int", "wasmi")]:
        if theirs not in startup:
            continue
        pairs = [(k, simd_run[(ours, k)] / (simd_wall[(theirs, k)] - startup[theirs]))
                 for k in kernels
                 if (theirs, k) in simd_wall and simd_wall[(theirs, k)] > startup[theirs]]
        if pairs:
            per = " ".join(f"{k}={r:.2f}" for k, r in pairs)
            print(f"SIMD build, run time, {ours} (--metrics run) / {theirs} (process minus "
                  f"its {startup[theirs]*1e3:.1f} ms start-up): geomean "
                  f"{geomean([r for _, r in pairs]):.2f} ({per})")
    # (Not the Python API: its interpreter start-up dwarfs a kernel's CPU time.)
    for ours, theirs in [("jit", "wt-warm"), ("int", "wasmi")]:
        if ours not in startup_cpu or theirs not in startup_cpu:
            continue
        net = {e: {k: simd_cpu[(e, k)] - startup_cpu[e] for k in kernels if (e, k) in simd_cpu}
               for e in (ours, theirs)}
        pairs = [(k, net[ours][k] / net[theirs][k]) for k in kernels
                 if net[ours].get(k, 0) > 0 and net[theirs].get(k, 0) > 0]
        if pairs:
            per = " ".join(f"{k}={r:.2f}" for k, r in pairs)
            print(f"SIMD build, CPU time (process minus its `none` run), {ours}/{theirs}: "
                  f"geomean {geomean([r for _, r in pairs]):.2f} ({per})")
    for ours, theirs in [("jit", "wt-warm"), ("int", "wasmi")]:
        pairs = [(k, simd_kernel[(ours, k)] / simd_kernel[(theirs, k)]) for k in kernels
                 if simd_kernel.get((ours, k)) and simd_kernel.get((theirs, k))]
        if pairs:
            per = " ".join(f"{k}={r:.2f}" for k, r in pairs)
            print(f"SIMD build, kernel time (the program's clock), {ours}/{theirs}: geomean "
                  f"{geomean([r for _, r in pairs]):.2f} ({per})")
    for ours, theirs in [("jit", "wt-warm"), ("int", "wasmi")]:
        rs = [simd_wall[(ours, k)] / simd_wall[(theirs, k)]
              for k in kernels if (theirs, k) in simd_wall]
        if rs:
            per = " ".join(f"{k}={simd_wall[(ours, k)] / simd_wall[(theirs, k)]:.2f}"
                           for k in kernels if (theirs, k) in simd_wall)
            print(f"SIMD build, whole process, {ours}/{theirs}: geomean {geomean(rs):.2f} ({per})")


def geomean(rs):
    g = 1.0
    for r in rs:
        g *= r
    return g ** (1 / len(rs))


if __name__ == "__main__":
    main()
