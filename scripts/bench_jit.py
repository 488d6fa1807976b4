#!/usr/bin/env python3
"""JIT benchmark: wizeng --mode=jit vs Wasmtime (Python API) vs Node (V8),
compile and execution timed separately, plus wizeng --mode=int for reference
and wizeng --mode=dyn (tier-up: its compiles happen during the run, so only
its total time is compared, with the JIT's total).

Driven by scripts/bench-jit.sh; see scripts/README.md. For every program:
  * wizeng: `--metrics` splits load+validate+translate, jit compile and run
    (the run is the entry call: instantiation is done by then); the JIT
    compiles on one thread here (WIZENG_COMPILE_THREADS=1), like Wasmtime;
  * Wasmtime: this script in `--wasmtime-child` mode, in a fresh process:
    Module compile with parallel compilation off (one core), then the
    `_start` call (instantiation is not timed);
  * Node: scripts/run_node_wasi.mjs (WebAssembly.compile, then wasi.start;
    instantiation is not timed), with --no-concurrent-marking.
Engines are interleaved within each round; compile and run keep their best
(min) over RUNS rounds independently. A run must exit 0 and print the same
stdout as the others, otherwise its cell shows FAIL and the program is left
out of the geomeans for that engine.
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


def wasmtime_child(argv):
    """Compile (one thread) and run a WASI program; print times to stderr."""
    import wasmtime

    wasm, args = argv[0], argv[1:]
    cfg = wasmtime.Config()
    cfg.parallel_compilation = False
    engine = wasmtime.Engine(cfg)
    with open(wasm, "rb") as f:
        data = f.read()
    t0 = time.perf_counter()
    module = wasmtime.Module(engine, data)
    t1 = time.perf_counter()
    wasi = wasmtime.WasiConfig()
    wasi.argv = [os.path.basename(wasm)] + list(args)
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store = wasmtime.Store(engine)
    store.set_wasi(wasi)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    code = 0
    inst = linker.instantiate(store, module)
    start = inst.exports(store)["_start"]
    t1 = time.perf_counter()
    try:
        start(store)
    except wasmtime.ExitTrap as e:
        code = e.code
    except wasmtime.Trap as e:
        print(f"wasmtime trap: {e}", file=sys.stderr)
        code = 134
    t2 = time.perf_counter()
    sys.stdout.flush()
    print(f"compile_s={t1 - t0:.6f} run_s={t2 - t1:.6f}", file=sys.stderr, flush=True)
    os._exit(code & 0xFF)


def run(cmd, timeout, nice):
    """Run cmd; return (ok, stdout, stderr or reason)."""
    if nice:
        cmd = ["nice"] + cmd
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        p.wait()
        timed_out = not timer.is_alive()
        timer.cancel()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
    if timed_out:
        return False, b"", "TIMEOUT"
    if p.returncode != 0:
        lines = stderr.strip().splitlines()
        return False, stdout, f"FAIL(exit {p.returncode}: {lines[-1][:80] if lines else ''})"
    return True, stdout, stderr


WZ = re.compile(r"load\+validate\+translate ([0-9.]+) ms, jit compile ([0-9.]+) ms, run ([0-9.]+) ms")
PEER = re.compile(r"compile_s=([0-9.e-]+) run_s=([0-9.e-]+)")


def measure(engine, cmd, timeout, nice):
    """(stdout, {compile, load, jit, run} in seconds) or (None, reason)."""
    ok, out, err = run(cmd, timeout, nice)
    if not ok:
        return None, err
    if engine.startswith("wizeng") or engine.startswith("wz-"):
        m = WZ.search(err)
        if not m:
            return None, "FAIL(no metrics)"
        load, jit, r = (float(x) / 1e3 for x in m.groups())
        return out, {"compile": load + jit, "load": load, "jit": jit, "run": r, "total": load + jit + r}
    m = PEER.search(err)
    if not m:
        return None, "FAIL(no timing)"
    return out, {"compile": float(m.group(1)), "run": float(m.group(2))}


def geomean(rs):
    rs = [r for r in rs if r is not None and r > 0 and math.isfinite(r)]
    return (math.exp(sum(map(math.log, rs)) / len(rs)), len(rs)) if rs else (float("nan"), 0)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--wasmtime-child":
        return wasmtime_child(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("filter", nargs="?", default="", help="regex on suite/program")
    ap.add_argument("--bench-root", required=True)
    ap.add_argument("--suites", default="polybench,ostrich")
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--node", default="node")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--int-runs", type=int, default=1, help="interpreter runs (0: skip)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-nice", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--dyn", action="store_true", help="also time wizeng --mode=dyn (total time)")
    a = ap.parse_args()
    nice = not a.no_nice

    progs = []
    for suite in a.suites.split(","):
        folder = os.path.join(a.bench_root, suite)
        with open(os.path.join(folder, "benchmarks.json")) as f:
            for b in json.load(f)["benchmarks"]:
                name = f"{suite}/{b['name']}"
                if re.search(a.filter, name):
                    progs.append((name, os.path.join(folder, b["path"]), shlex.split(b.get("args", "").format(path=folder))))

    wz = shlex.split(a.wizeng)
    engines = {
        "wizeng": lambda w, args: ["env", "WIZENG_COMPILE_THREADS=1"] + wz + ["--mode=jit", "--metrics", w] + args,
        "wasmtime": lambda w, args: [sys.executable, os.path.abspath(__file__), "--wasmtime-child", w] + args,
        "node": lambda w, args: [a.node, "--no-concurrent-marking", os.path.join(HERE, "run_node_wasi.mjs"), w] + args,
    }
    if a.dyn:
        engines["wz-dyn"] = lambda w, args: wz + ["--mode=dyn", "--metrics", w] + args
    names = list(engines)
    results = {}
    print(f"{len(progs)} programs; best of {a.runs} (interpreter: {a.int_runs}); times in ms; "
          f"wizeng compile = load+validate+translate + jit compile; Wasmtime compiles on one thread", flush=True)
    hdr = (f"{'program':<28}{'bytes':>8} |{'exec wz':>9}{'wasmtime':>9}{'node':>9}{'wz-int':>9}"
           f" |{'comp wz':>9}{'(jit)':>8}{'wasmtime':>9}{'node':>8} |{'ex wz/wt':>9}{'co wz/wt':>9}"
           + (f" |{'tot jit':>9}{'tot dyn':>9}" if a.dyn else ""))
    print(hdr)
    print("-" * len(hdr), flush=True)
    for name, wasm, args in progs:
        size = os.path.getsize(wasm)
        best = {n: {} for n in names + ["wz-int"]}
        status = {n: "" for n in names + ["wz-int"]}
        outs = {}
        for k in range(max(a.runs, a.int_runs)):
            round_engines = (names if k < a.runs else []) + (["wz-int"] if k < a.int_runs else [])
            for n in round_engines:
                if status[n]:
                    continue
                cmd = (wz + ["--mode=int", "--metrics", wasm] + args) if n == "wz-int" else engines[n](wasm, args)
                out, t = measure("wizeng" if n == "wz-int" else n, cmd, a.timeout, nice)
                if out is None:
                    status[n] = t
                    continue
                outs.setdefault(n, out)
                for key, v in t.items():
                    best[n][key] = min(best[n].get(key, math.inf), v)
        ref = outs.get("wasmtime", next(iter(outs.values()), None))
        for n in best:
            if not status[n] and n not in outs:
                status[n] = "-"
            elif not status[n] and outs[n] != ref:
                status[n] = "FAIL(stdout)"
        ok = lambda n: not status[n]  # noqa: E731
        ms = lambda n, key: best[n][key] * 1e3 if ok(n) and key in best[n] else None  # noqa: E731
        cell = lambda n, key, w=9, d=1: (f"{ms(n, key):>{w}.{d}f}" if ms(n, key) is not None  # noqa: E731
                                         else f"{(status[n] or '-')[:w - 1]:>{w}}")
        ratio = lambda x, y: (x / y if x is not None and y else None)  # noqa: E731
        rex = ratio(ms("wizeng", "run"), ms("wasmtime", "run"))
        rco = ratio(ms("wizeng", "compile"), ms("wasmtime", "compile"))
        fr = lambda r: f"{r:>9.2f}" if r is not None else f"{'-':>9}"  # noqa: E731
        print(f"{name:<28}{size:>8} |" + cell("wizeng", "run") + cell("wasmtime", "run") + cell("node", "run")
              + cell("wz-int", "run") + " |" + cell("wizeng", "compile") + cell("wizeng", "jit", 8)
              + cell("wasmtime", "compile") + cell("node", "compile", 8) + " |" + fr(rex) + fr(rco)
              + ((" |" + cell("wizeng", "total") + cell("wz-dyn", "total")) if a.dyn else ""), flush=True)
        for n in best:
            if status[n] and len(status[n]) > 8:
                print(f"    {n}: {status[n]}", flush=True)
        results[name] = {"bytes": size, **{n: (best[n] if ok(n) else status[n]) for n in best}}

    print("-" * len(hdr))

    def g(x, y, key_x, key_y=None):
        key_y = key_y or key_x
        return geomean([v[x][key_x] / v[y][key_y] for v in results.values()
                        if isinstance(v[x], dict) and isinstance(v[y], dict) and v[y].get(key_y)])

    lines = [
        ("execution wizeng-jit/wasmtime", g("wizeng", "wasmtime", "run")),
        ("execution wizeng-jit/node", g("wizeng", "node", "run")),
        ("execution wizeng-int/wasmtime", g("wz-int", "wasmtime", "run")),
        ("compile/byte wizeng/wasmtime", g("wizeng", "wasmtime", "compile")),
        ("compile/byte wizeng(jit only)/wasmtime", g("wizeng", "wasmtime", "jit", "compile")),
        ("compile/byte wizeng/node", g("wizeng", "node", "compile")),
    ] + ([("total time wizeng-dyn/wizeng-jit", g("wz-dyn", "wizeng", "total"))] if a.dyn else [])
    for label, (r, k) in lines:
        print(f"geomean {label}: {r:.3f} over {k} programs")
    for n, key in (("wizeng", "compile"), ("wizeng", "jit"), ("wasmtime", "compile"), ("node", "compile")):
        tb = sum(v["bytes"] for v in results.values() if isinstance(v[n], dict))
        tt = sum(v[n][key] for v in results.values() if isinstance(v[n], dict))
        if tt > 0:
            print(f"compile throughput {n}{' (jit only)' if key == 'jit' else ''}: {tb / tt / 1e6:.2f} MB/s ({tb} bytes in {tt * 1e3:.0f} ms)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = sum(1 for v in results.values() if not isinstance(v["wizeng"], dict))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
