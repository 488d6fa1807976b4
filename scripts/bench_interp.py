#!/usr/bin/env python3
"""Interpreter benchmark: wizeng --mode=int vs wasmi vs wasm3 on PolyBench.

Driven by scripts/bench-interp.sh; see scripts/README.md.  For every program
and engine, runs it N times (interleaving engines within each round) and
keeps the best time:
  * wizeng, wasmi: wall time of the whole process (start-up + load + run);
  * wasm3 (through pywasm3 + scripts/run_wasm3.py): load + run time measured
    inside the runner process, i.e. without Python's own start-up.
With --metric=cpu, user+sys CPU time instead (whole child process for wizeng
and wasmi; load + run inside the runner for wasm3).
A run must exit 0 and print the same stdout as the other engines' runs,
otherwise the cell shows FAIL/TIMEOUT and the program is left out of the
geomeans.  Prints a table, then the geomean ratios wizeng/wasmi and
wizeng/wasm3 (> 1 means wizeng is slower).
"""
import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, timeout, nice, metric):
    """Run cmd; return (seconds, stderr, stdout) or (None, reason, stdout).
    seconds is wall time, or the child's user+sys CPU time if metric == "cpu"."""
    if nice:
        cmd = ["nice"] + cmd
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timed_out = not timer.is_alive()
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if timed_out:
        return None, "TIMEOUT", b""
    if p.returncode != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"FAIL(exit {p.returncode}: {lines[-1][:80] if lines else ''})", stdout
    return (ru.ru_utime + ru.ru_stime if metric == "cpu" else wall), stderr, stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("filter", nargs="?", default="", help="regex on program name")
    ap.add_argument("--bench-root", required=True)
    ap.add_argument("--suite", default="polybench")
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--wasmi", required=True)
    ap.add_argument("--wasmi-flags", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-nice", action="store_true")
    ap.add_argument("--metric", choices=["wall", "cpu"], default="wall",
                    help="wall time, or user+sys CPU time (steadier on a busy machine)")
    ap.add_argument("--json", default="", help="also write results to this JSON file")
    a = ap.parse_args()

    folder = os.path.join(a.bench_root, a.suite)
    with open(os.path.join(folder, "benchmarks.json")) as f:
        benches = [b for b in json.load(f)["benchmarks"] if re.search(a.filter, b["name"])]
    engines = {
        "wizeng": lambda w, args: (shlex.split(a.wizeng) + ["--mode=int", w] + args, None),
        "wasmi": lambda w, args: (shlex.split(a.wasmi) + shlex.split(a.wasmi_flags) + [w] + args, None),
        "wasm3": lambda w, args: ([sys.executable, os.path.join(HERE, "run_wasm3.py"), "--times", w] + args,
                                  re.compile(rb"load_s=([0-9.]+) run_s=([0-9.]+) cpu_s=([0-9.]+)")),
    }
    names = list(engines)
    results = {}
    print(f"{a.suite}: {len(benches)} programs, best of {a.runs}; {a.metric} times in seconds", flush=True)
    hdr = f"{'program':<16}" + "".join(f"{n:>10}" for n in names) + f"{'wz/wasmi':>10}{'wz/wasm3':>10}"
    print(hdr)
    print("-" * len(hdr), flush=True)
    for b in benches:
        wasm = os.path.join(folder, b["path"])
        args = shlex.split(b.get("args", "").format(path=folder))
        best = {n: math.inf for n in names}
        status = {n: "" for n in names}
        outs = {}
        for _ in range(a.runs):
            for n in names:
                if status[n]:
                    continue   # failed once: don't retry
                cmd, pat = engines[n](wasm, args)
                t, err, out = timed(cmd, a.timeout, not a.no_nice, a.metric)
                if t is None:
                    status[n] = err
                    continue
                if pat is not None:
                    m = pat.search(err)
                    if not m:
                        status[n] = "FAIL(no timing)"
                        continue
                    t = float(m.group(3)) if a.metric == "cpu" else float(m.group(1)) + float(m.group(2))
                outs.setdefault(n, out)
                best[n] = min(best[n], t)
        # Outputs must agree (reference: the first engine that succeeded).
        ref = next((outs[n] for n in names if n in outs), None)
        for n in names:
            if not status[n] and outs.get(n) != ref:
                status[n] = "FAIL(stdout)"
        cells = []
        for n in names:
            cells.append(f"{best[n]:>10.3f}" if not status[n] else f"{status[n][:9]:>10}")
        ok = lambda n: not status[n]  # noqa: E731
        r1 = best["wizeng"] / best["wasmi"] if ok("wizeng") and ok("wasmi") else None
        r2 = best["wizeng"] / best["wasm3"] if ok("wizeng") and ok("wasm3") else None
        fmt = lambda r: f"{r:>10.2f}" if r is not None else f"{'-':>10}"  # noqa: E731
        print(f"{b['name']:<16}" + "".join(cells) + fmt(r1) + fmt(r2), flush=True)
        for n in names:
            if status[n] and len(status[n]) > 9:
                print(f"    {n}: {status[n]}", flush=True)
        results[b["name"]] = {n: (best[n] if ok(n) else status[n]) for n in names}

    def geomean(x, y):
        rs = [v[x] / v[y] for v in results.values()
              if isinstance(v[x], float) and isinstance(v[y], float) and v[y] > 0]
        return (math.exp(sum(map(math.log, rs)) / len(rs)), len(rs)) if rs else (float("nan"), 0)

    print("-" * len(hdr))
    for other in ("wasmi", "wasm3"):
        g, k = geomean("wizeng", other)
        print(f"geomean wizeng/{other}: {g:.3f} over {k} programs")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = sum(1 for v in results.values() if not isinstance(v["wizeng"], float))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
