#!/usr/bin/env python3
"""Monitor overhead benchmark: instrumented / uninstrumented execution time
(Ti/Tu) of the shipped example monitors on the wasure PolyBench and Ostrich
programs, per configuration, in one run.

Driven by scripts/bench-monitors.sh; see scripts/README.md. For every program:
  * Tu: `wizeng --mode=jit` without --monitors; `empty`: with
    --monitors=examples/empty.wat (a monitor without probes: must cost nothing);
  * for each monitor M in {hotness, branches, calls}: Ti for
    jit (inlining on, the default), jit --inline=off, and --mode=int
    (whose ratio is to the interpreter's own Tu, `--mode=int` without monitors);
  * the same monitor woven statically into the app on Wasmtime: the module
    `wizeng --emit-woven=W --monitors=M app.wasm` writes (the woven app and
    the monitor merged into one standalone module, probes woven and inlined as
    our JIT compiles them) run on Wasmtime, against the app itself on Wasmtime
    (`wt`: Ti = woven module, Tu = app; both in a fresh process of this
    script's `--wasmtime-child` mode, compiled on one thread; the app's entry
    call is timed: for the woven module its exports `wizeng:begin` (the
    monitor's wasm:begin) before and `wizeng:exit` (fold + wasm:exit) after
    the timed `wizeng:app_start`, as wizeng --metrics times the entry alone);
  * `site`: the same, woven with `--block-counts=off --specialize=off`:
    every probe inlined at its own site as it is, which is what a static
    rewriter (whamm's bytecode rewriting) produces: the "hand-written into
    the app" baseline. `wt` above is our own optimised weaving (block counts,
    specialisation), i.e. the identical code our JIT runs, so `jit/wt`
    compares the two code generators.
  * `proc`: the whole process in wizeng's default mode (no --mode, no
    --metrics), from spawn to exit with a blocking wait (posix_spawn +
    wait4, as bench_startup.py), against the uninstrumented app the same
    way (`tu-proc`); what a user waits for: load, match, weave, compile,
    run and the report. A built-in monitor runs here as a user names it
    (`--monitors=NAME`: its table report), elsewhere as `NAME{csv}`.
Times are `--metrics` "run" (the entry call; compile excluded) for wizeng, and
the `_start` call for Wasmtime; compile time (load+validate+translate + jit
compile) is reported separately. Best of RUNS rounds (configurations
interleaved in each round); --inline=off keeps its best of OFF_RUNS, the
interpreter of INT_RUNS, Wasmtime of WT_RUNS.

Correctness: every run must exit 0; the app's stdout must equal the
uninstrumented run's (the monitor's report comes after it), and the monitor's
report (the stdout after the app's) must be identical in every configuration
and round of that monitor (the woven module on Wasmtime included). Any
difference is printed as MISMATCH and makes the script exit 1.
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MONITORS = ["hotness", "branches", "calls"]
METRICS = re.compile(r"load\+validate\+translate ([0-9.]+) ms, jit compile ([0-9.]+) ms, run ([0-9.]+) ms")
WT_TIMES = re.compile(r"compile_s=([0-9.]+) run_s=([0-9.]+)")
PROC_TIME = re.compile(r"^proc_ms=([0-9.]+)$", re.M)
# Goals for the whole process in the default mode (issues #15 and #18), by
# monitor name (a `builtin:` prefix or `.mm`/`.wat` suffix is ignored).
PROC_GOALS = {"coverage": 1.1, "hotness": 1.5, "branches": 1.2, "calls": 1.2, "profile": 2.0}
# Built-in monitors Wizard also has under the same name (its `--monitors=NAME`):
# with --wizard, each is timed on Wizard too, whole process, as the reference.
WIZARD_SAME = {"coverage", "hotness", "branches", "calls", "loops", "profile"}
# MONITORS=builtins: the built-in monitors that have an overhead goal.
BUILTINS = "builtin:coverage,builtin:hotness,builtin:branches,builtin:calls,builtin:profile"


def wasmtime_child(argv):
    """[--argv0 NAME] app.wasm args...: compile (one thread), instantiate, then
    time the app's entry call; print `compile_s=... run_s=...` to stderr. A
    standalone woven module (`wizeng --emit-woven`) gets its monitors'
    wasm:begin before and their wasm:exit after the timed call."""
    import wasmtime

    argv0 = None
    if argv[0] == "--argv0":
        argv0, argv = argv[1], argv[2:]
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
    # the app's own file name: argv[0] changes what libc start-up executes
    wasi.argv = [argv0 or os.path.basename(wasm)] + list(args)
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store = wasmtime.Store(engine)
    store.set_wasi(wasi)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    exports = linker.instantiate(store, module).exports(store)
    try:
        entry, woven = exports["wizeng:app_start"], True
    except KeyError:
        entry, woven = exports["_start"], False
    if woven:
        exports["wizeng:begin"](store)
    code = 0
    t2 = time.perf_counter()
    try:
        entry(store)
    except wasmtime.ExitTrap as e:
        code = e.code
    except wasmtime.Trap as e:
        print(f"wasmtime trap: {e}", file=sys.stderr)
        code = 134
    t3 = time.perf_counter()
    if woven and code != 134:
        exports["wizeng:exit"](store)
    sys.stdout.flush()
    print(f"compile_s={t1 - t0:.6f} run_s={t3 - t2:.6f}", file=sys.stderr, flush=True)
    os._exit(code & 0xFF)


def times_of(config, stderr):
    """{"compile": ms, "run": ms} from a run's stderr, or None."""
    if config.endswith("proc"):
        m = PROC_TIME.search(stderr)
        return m and {"run": float(m.group(1))}
    if config.endswith(("wt", "/site")):
        m = WT_TIMES.search(stderr)
        return m and {"compile": float(m.group(1)) * 1e3, "run": float(m.group(2)) * 1e3}
    m = METRICS.search(stderr)
    if not m:
        return None
    load, jit, r = (float(x) for x in m.groups())
    return {"compile": load + jit, "run": r}


def run(cmd, timeout, nice, cwd):
    """(ok, stdout bytes, stderr str or failure reason)."""
    if nice:
        cmd = ["nice"] + cmd
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd)
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
        return False, stdout, f"FAIL(exit {p.returncode}: {lines[-1][:100] if lines else ''})"
    return True, stdout, stderr


def run_proc(cmd, timeout, cwd):
    """Like run(), but times the whole process: posix_spawn, then a blocking
    wait4 (never a polling wait), as bench_startup.py does; the time is
    appended to the stderr text as `proc_ms=...`."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(os.devnull, "rb") as inp:
        actions = [(os.POSIX_SPAWN_DUP2, inp.fileno(), 0), (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                   (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
        old = os.getcwd()
        os.chdir(cwd)
        try:
            t0 = time.perf_counter()
            pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=actions)
            timer = threading.Timer(timeout, os.kill, (pid, 9))
            timer.start()
            _, status, _ = os.wait4(pid, 0)
            dt = time.perf_counter() - t0
        finally:
            os.chdir(old)
        timed_out = not timer.is_alive()
        timer.cancel()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    if timed_out:
        return False, b"", "TIMEOUT"
    if code != 0:
        lines = stderr.strip().splitlines()
        return False, stdout, f"FAIL(exit {code}: {lines[-1][:100] if lines else ''})"
    return True, stdout, stderr + f"\nproc_ms={dt * 1e3:.3f}\n"


def geomean(rs):
    rs = [r for r in rs if r is not None and r > 0 and math.isfinite(r)]
    return (math.exp(sum(map(math.log, rs)) / len(rs)), len(rs)) if rs else (float("nan"), 0)


def finish(a, results, geo, mismatches):
    """Write the JSON, list the mismatches; the exit status."""
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"results": results, "geomeans": geo, "mismatches": mismatches}, fh, indent=1)
    if mismatches:
        print(f"\n!!!!! {len(mismatches)} MISMATCH(ES) — monitor outputs are not identical across configurations:")
        for m in mismatches:
            print("!!!!! " + m)
        return 1
    print("\nall monitor reports identical across configurations (and the apps' output unchanged)")
    return 0


def print_empty_table(results, val, ratio, short, cell):
    """No monitor against the empty monitor, run and compile time."""
    print("\n== no monitor (Tu) vs an empty monitor (examples/empty.wat), JIT: run and compile ms")
    hdr = f"{'program':<28}{'Tu':>9}{'empty':>9}{'ratio':>7} |{'comp Tu':>9}{'empty':>9}{'ratio':>7}"
    print(hdr + "\n" + "-" * len(hdr))
    for name in results:
        print(f"{name:<28}{cell(val(name, 'tu'))}{short(name, 'empty') or cell(val(name, 'empty'))}"
              f"{cell(ratio(name, 'empty', 'tu'), 7, 2)} |{cell(val(name, 'tu', 'compile'))}"
              f"{cell(val(name, 'empty', 'compile'))}{cell(ratio(name, 'empty', 'tu', 'compile'), 7, 2)}")


def wizard_name(monitor):
    """Wizard's monitor of the same name as built-in `monitor`, or None."""
    if not monitor.startswith("builtin:"):
        return None
    name = monitor.split(":", 1)[1]
    return name if name in WIZARD_SAME else None


def proc_geomeans(mon, results, ratio, num="proc", den="tu-proc"):
    """{suite or "all": (geomean whole-process Ti/Tu, programs)}; with `num`/`den`
    another ratio of two whole-process configurations (e.g. Wizard's)."""
    suites = sorted({n.split("/")[0] for n in results}) + ["all"]
    num = num if num.startswith("tu") else f"{mon}/{num}"
    den = den if den.startswith(("tu", "wz-")) else f"{mon}/{den}"
    return {suite: geomean([ratio(n, num, den) for n in results
                            if suite == "all" or n.startswith(suite + "/")]) for suite in suites}


def print_proc_table(mon, results, val, ratio, short, cell):
    """The whole-process times of one monitor (ONLY_PROC=1)."""
    print(f"\n== {mon}: whole process in the default mode, ms (best of PROC_RUNS) and Ti/Tu")
    wiz = any(f"{mon}/wzproc" in r["configs"] for r in results.values())
    hdr = f"{'program':<28}{'Tu proc':>9}{'proc':>9}{'Ti/Tu':>7}" + (
        f" |{'Wizard Tu':>10}{'Ti':>9}{'Ti/Tu':>7}{'ours/Wz':>8}" if wiz else "") + " | report's last row (CSV, --mode=jit)"
    print(hdr + "\n" + "-" * len(hdr))
    for name in results:
        row = (f"{name:<28}" + (short(name, "tu-proc") or cell(val(name, "tu-proc")))
               + (short(name, f"{mon}/proc") or cell(val(name, f"{mon}/proc")))
               + cell(ratio(name, f"{mon}/proc", "tu-proc"), 7, 2))
        if wiz:
            row += (" |" + (short(name, "wz-tu-proc") or cell(val(name, "wz-tu-proc"), 10))
                    + (short(name, f"{mon}/wzproc") or cell(val(name, f"{mon}/wzproc")))
                    + cell(ratio(name, f"{mon}/wzproc", "wz-tu-proc"), 7, 2)
                    + cell(ratio(name, f"{mon}/proc", f"{mon}/wzproc"), 8, 2))
        print(row + " | " + (results[name]["reports"].get(mon, "MISMATCH/FAIL").splitlines() or [""])[-1][:70])


def goal_of(monitor):
    """The whole-process goal of a monitor, by its bare name, or None."""
    name = monitor.split(":", 1)[-1].split(".", 1)[0]
    return PROC_GOALS.get(name)


def print_proc_geomeans(monitors, geo):
    """Geomean whole-process Ti/Tu per monitor and suite, with the goals."""
    suites = list(next(iter(geo[m]["proc"] for m in monitors), {}))
    print("\n== whole process, default mode: geomean Ti/Tu (programs counted)")
    hdr = f"{'monitor':<22}" + "".join(f"{s:>16}" for s in suites) + f"{'goal':>8}  verdict"
    print(hdr + "\n" + "-" * len(hdr))
    for mon in monitors:
        g, goal = geo[mon]["proc"], goal_of(mon)
        row = f"{mon:<22}" + "".join(
            f"{g[s][0]:>9.3f} ({g[s][1]:>3})" if g[s][1] else f"{'-':>16}" for s in suites)
        verdict = ""
        if goal:
            checks = [(s, g[s][0]) for s in suites if g[s][1] and s in ("polybench", "all")]
            verdict = ", ".join(f"{s} {'met' if v <= goal else 'MISSED'}" for s, v in checks)
        print(row + (f"{goal:>8.2f}  " if goal else f"{'':>8}  ") + verdict)
    wiz = [m for m in monitors if "wizard" in geo[m]]
    if wiz:
        print(f"\n== Wizard's same-named monitors, whole process: geomean Ti/Tu on Wizard, and our Ti / Wizard's Ti")
        hdr = f"{'monitor':<22}" + "".join(f"{s + ' Wz Ti/Tu':>22}{'ours/Wz':>10}" for s in suites)
        print(hdr + "\n" + "-" * len(hdr))
        for mon in wiz:
            w, r = geo[mon]["wizard"], geo[mon]["ours/wizard"]
            print(f"{mon:<22}" + "".join(
                (f"{w[s][0]:>15.3f} ({w[s][1]:>3})" if w[s][1] else f"{'-':>22}")
                + (f"{r[s][0]:>10.3f}" if r[s][1] else f"{'-':>10}") for s in suites))
    print("goals: issue #18, PolyBench, default mode: hotness <= 1.5, branches <= 1.2; issue #15, PolyBench + Ostrich"
          " (all): coverage <= 1.1, hotness <= 1.5, branches <= 1.2, calls <= 1.2, profile <= 2")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--wasmtime-child":
        return wasmtime_child(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("filter", nargs="?", default="", help="regex on suite/program")
    ap.add_argument("--bench-root", required=True)
    ap.add_argument("--suites", default="polybench,ostrich")
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--monitors", default=",".join(MONITORS),
                    help="NAME: examples/NAME.wat; NAME.mm: examples/NAME.mm compiled with --whamm; "
                         "builtin:NAME: the built-in monitor NAME (monitors/NAME.mm)")
    ap.add_argument("--whamm", default=os.path.join(ROOT, "target", "release", "whamm"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--off-runs", type=int, default=None, help="runs of --inline=off (default: --runs)")
    ap.add_argument("--int-runs", type=int, default=1, help="interpreter runs (0: skip)")
    ap.add_argument("--int-filter", default="", help="regex on suite/program: interpreter only for these")
    ap.add_argument("--wt-runs", type=int, default=None, help="Wasmtime runs (default: --runs; 0: skip)")
    ap.add_argument("--site-runs", type=int, default=None,
                    help="Wasmtime runs of the per-site woven module (default: Wasmtime runs; 0: skip)")
    ap.add_argument("--proc-runs", type=int, default=None,
                    help="whole-process runs in the default mode (default: --runs; 0: skip)")
    ap.add_argument("--only-proc", action="store_true",
                    help="only the whole-process columns (no jit/off/int/Wasmtime runs)")
    ap.add_argument("--wt-flags", default="", help="extra wizeng options for --emit-woven (e.g. --block-counts=off)")
    ap.add_argument("--wizard", default="", help="Wizard's wizeng binary: its same-named built-in monitors as a"
                    " whole-process reference (needs PROC_RUNS > 0)")
    ap.add_argument("--wizard-mode", default="dyn", help="Wizard's --mode for those runs")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-nice", action="store_true")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    nice = not a.no_nice
    off_runs = a.runs if a.off_runs is None else a.off_runs
    wt_runs = a.runs if a.wt_runs is None else a.wt_runs
    site_runs = wt_runs if a.site_runs is None else a.site_runs
    proc_runs = a.runs if a.proc_runs is None else a.proc_runs
    if a.only_proc:
        off_runs = wt_runs = site_runs = a.int_runs = 0
    monitors = [m for m in a.monitors.replace("builtins", BUILTINS).split(",") if m]
    # `NAME` is examples/NAME.wat; `NAME.mm` is examples/NAME.mm, compiled with whamm
    mondir = tempfile.mkdtemp(prefix="bench-monitors-mm-")
    mon_path = {}
    # what the whole-process column names: a built-in monitor as a user does
    # (its table report); every other monitor as in the other columns
    proc_path = {}
    for m in monitors + ["empty"]:
        if m.startswith("builtin:"):
            # a built-in monitor (monitors/NAME.mm, compiled into wizeng); its CSV
            # report, so every configuration (the woven module too) prints the same
            # (profile's times vary between runs: its report is not compared)
            # report; a trace's lines (written as the app runs) go to /dev/null
            name = m.split(":", 1)[1]
            trace = name in ("trace", "trace-instrs")
            mon_path[m] = name + ("{file=/dev/null}" if trace else "{csv}")
            proc_path[m] = name + ("{file=/dev/null}" if trace else "")
        elif m.endswith(".mm"):
            mon_path[m] = os.path.join(mondir, m + ".wasm")
            subprocess.run(shlex.split(a.whamm) + ["build", os.path.join(ROOT, "examples", m), "-o", mon_path[m]],
                           check=True)
        else:
            mon_path[m] = os.path.join(ROOT, "examples", f"{m}.wat")

    progs = []
    for suite in a.suites.split(","):
        folder = os.path.join(a.bench_root, suite)
        with open(os.path.join(folder, "benchmarks.json")) as f:
            for b in json.load(f)["benchmarks"]:
                name = f"{suite}/{b['name']}"
                if re.search(a.filter, name):
                    progs.append((name, os.path.join(folder, b["path"]), shlex.split(b.get("args", "").format(path=folder))))

    wz = shlex.split(a.wizeng)

    def wasmtime(wasm, args, argv0):
        return [sys.executable, os.path.abspath(__file__), "--wasmtime-child", "--argv0", argv0, wasm] + args

    # configuration -> (command, runs); `woven` maps a monitor to its standalone module
    def configs(name, wasm, args, woven):
        use_int = a.int_runs > 0 and re.search(a.int_filter, name)
        w = lambda opts: wz + opts + ["--metrics", wasm] + args  # noqa: E731
        c = {"tu": (w(["--mode=jit"]), a.runs if not a.only_proc else 1),
             "empty": (w(["--mode=jit", "--monitors=" + mon_path["empty"]]), 0 if a.only_proc else a.runs)}
        if proc_runs > 0:
            c["tu-proc"] = (wz + [wasm] + args, proc_runs)
        wizard = [a.wizard, f"--mode={a.wizard_mode}"]
        if a.wizard and proc_runs > 0:
            c["wz-tu-proc"] = (wizard + [wasm] + args, proc_runs)
        if use_int:
            c["tu-int"] = (w(["--mode=int"]), a.int_runs)
        if wt_runs > 0 or site_runs > 0:
            c["tu-wt"] = (wasmtime(wasm, args, os.path.basename(wasm)), max(wt_runs, site_runs))
        for m in monitors:
            c[f"{m}/jit"] = (w(["--mode=jit", "--monitors=" + mon_path[m]]), 1 if a.only_proc else a.runs)
            if proc_runs > 0:
                c[f"{m}/proc"] = (wz + ["--monitors=" + proc_path.get(m, mon_path[m]), wasm] + args, proc_runs)
            if a.wizard and proc_runs > 0 and wizard_name(m):
                c[f"{m}/wzproc"] = (wizard + ["--monitors=" + wizard_name(m), wasm] + args, proc_runs)
            c[f"{m}/off"] = (w(["--mode=jit", "--inline=off", "--monitors=" + mon_path[m]]), off_runs)
            if use_int:
                c[f"{m}/int"] = (w(["--mode=int", "--monitors=" + mon_path[m]]), a.int_runs)
            if wt_runs > 0:
                c[f"{m}/wt"] = (wasmtime(woven[m], args, os.path.basename(wasm)), wt_runs)
            if site_runs > 0:
                c[f"{m}/site"] = (wasmtime(woven[m + "/site"], args, os.path.basename(wasm)), site_runs)
        return c

    print(f"{len(progs)} programs; monitors {', '.join(monitors)}; run times (compile excluded) in ms, "
          f"best of {a.runs} (--inline=off: {off_runs}, interpreter: {a.int_runs}, Wasmtime: {wt_runs}"
          f"{', only ' + repr(a.int_filter) if a.int_filter and a.int_runs else ''})", flush=True)
    results = {}
    mismatches = []
    tmp = tempfile.mkdtemp(prefix="bench-monitors-")
    wovendir = tempfile.mkdtemp(prefix="bench-monitors-woven-")
    for pi, (name, wasm, args) in enumerate(progs):
        # the standalone woven modules (app + monitor merged), for Wasmtime
        woven, emit_err = {}, {}
        kinds = ([("wt", "", shlex.split(a.wt_flags))] if wt_runs > 0 else []) + (
            [("site", "/site", ["--block-counts=off", "--specialize=off"])] if site_runs > 0 else [])
        for m in monitors:
            for kind, suffix, flags in kinds:
                woven[m + suffix] = os.path.join(wovendir, f"{m}-{kind}.wasm")
                emit = ["--emit-woven=" + woven[m + suffix]] + flags + ["--monitors=" + mon_path[m], wasm]
                ok, _, err = run(wz + emit, a.timeout, False, tmp)
                if not ok:
                    emit_err[f"{m}/{kind}"] = "EMIT " + err
        cfg = {c: v for c, v in configs(name, wasm, args, woven).items() if v[1] > 0}
        best = {c: {} for c in cfg}
        status = {c: emit_err.get(c, "") for c in cfg}
        outs = {}  # config -> list of stdout
        for k in range(max(r for _, r in cfg.values())):
            for c, (cmd, runs) in cfg.items():
                if k >= runs or status[c]:
                    continue
                if c.endswith("proc"):
                    ok, out, err = run_proc(cmd, a.timeout, tmp)
                else:
                    ok, out, err = run(cmd, a.timeout, nice, tmp)
                if not ok:
                    status[c] = err
                    continue
                t = times_of(c, err)
                if not t:
                    status[c] = "FAIL(no times)"
                    continue
                outs.setdefault(c, []).append(out)
                for key, v in t.items():
                    best[c][key] = min(best[c].get(key, math.inf), v)
        # outputs: app's must equal the plain run's; reports must agree per monitor
        plain = outs.get("tu", [None])[0]
        reports = {}
        for c, lst in outs.items():
            for out in lst:
                if plain is None or not out.startswith(plain):
                    mismatches.append(f"{name} [{c}]: the app's output differs from the uninstrumented run's")
                    status[c] = "MISMATCH"
                    break
                group = c.split("/")[0] if "/" in c else c
                if c.endswith("/wzproc"):
                    continue  # Wizard's own report: not ours to compare
                if c.endswith("/proc") and c.split("/")[0] in proc_path:
                    group += "@proc"  # a built-in monitor's table, the others print CSV
                reports.setdefault(group, {}).setdefault(out[len(plain):], []).append(c)
        for mon, by_report in reports.items():
            if mon in ("tu", "tu-int", "tu-wt", "tu-proc", "wz-tu-proc") or "profile" in mon:
                continue  # (profile: times differ from run to run)
            if mon == "empty":
                if any(r for r in by_report):
                    mismatches.append(f"{name} [empty]: the empty monitor printed something")
                continue
            if len(by_report) > 1:
                detail = "; ".join(f"{sorted(set(cs))}: {r.decode(errors='replace').strip()!r}" for r, cs in by_report.items())
                mismatches.append(f"{name} [{mon}]: monitor reports differ between configurations: {detail}")
                for cs in by_report.values():
                    for c in cs:
                        status[c] = "MISMATCH"
        rep = {mon: next(iter(by)).decode(errors="replace").strip() for mon, by in reports.items()
               if mon in monitors and len(by) == 1}
        results[name] = {"configs": {c: (best[c] if not status[c] else status[c]) for c in cfg}, "reports": rep}
        bad = [f"{c}: {s}" for c, s in status.items() if s]
        print(f"[{pi + 1}/{len(progs)}] {name}: Tu {best['tu'].get('run', float('nan')):.1f} ms"
              + "".join(f", {c} {best[c]['run']:.1f}" for c in cfg if c != "tu" and not status[c])
              + (f"  !! {'; '.join(bad)}" if bad else ""), flush=True)
    os.rmdir(tmp)
    shutil.rmtree(wovendir)
    shutil.rmtree(mondir)

    def val(name, c, key="run"):
        v = results[name]["configs"].get(c)
        return v.get(key) if isinstance(v, dict) else None

    def ratio(name, c, base, key="run"):
        x, y = val(name, c, key), val(name, base, key)
        return x / y if x is not None and y else None

    def cell(x, w=9, d=1):
        return f"{x:>{w}.{d}f}" if x is not None else f"{'-':>{w}}"

    def short(name, c):
        v = results[name]["configs"].get(c)
        return f"{(v or '-')[:8]:>9}" if not isinstance(v, dict) else None

    geo = {}
    # no monitor vs the empty monitor
    if not a.only_proc:
        print_empty_table(results, val, ratio, short, cell)
    geo["empty"] = {"run": geomean([ratio(n, "empty", "tu") for n in results]),
                    "compile": geomean([ratio(n, "empty", "tu", "compile") for n in results])}

    for mon in monitors:
        if a.only_proc:
            print_proc_table(mon, results, val, ratio, short, cell)
            geo[mon] = {"proc": proc_geomeans(mon, results, ratio)}
            if wizard_name(mon) and a.wizard:
                geo[mon]["wizard"] = proc_geomeans(mon, results, ratio, "wzproc", "wz-tu-proc")
                geo[mon]["ours/wizard"] = proc_geomeans(mon, results, ratio, "proc", "wzproc")
            continue
        print(f"\n== {mon}: run ms and Ti/Tu (jit: inlined, off: --inline=off, both / JIT Tu; int: / interpreter Tu;"
              f" wt: our woven module on Wasmtime / app on Wasmtime; site: woven per site (a static rewriter's output)"
              f" on Wasmtime; jit/wt, jit/st: Ti jit / Ti wt, Ti site); compile ms")
        hdr = (f"{'program':<28}{'Tu':>9}{'jit':>9}{'Ti/Tu':>7}{'off':>9}{'Ti/Tu':>7}{'Tu int':>9}{'int':>9}{'Ti/Tu':>7}"
               f"{'Tu wt':>9}{'wt':>9}{'Ti/Tu':>7}{'site':>9}{'Ti/Tu':>7}{'jit/wt':>7}{'jit/st':>7}"
               f" |{'Tu proc':>9}{'proc':>9}{'Ti/Tu':>7} |{'comp Tu':>8}{'jit':>8}{'off':>8} | report")
        print(hdr + "\n" + "-" * len(hdr))
        for name in results:
            row = f"{name:<28}{cell(val(name, 'tu'))}"
            for c, base in ((f"{mon}/jit", "tu"), (f"{mon}/off", "tu"), ("tu-int", None), (f"{mon}/int", "tu-int"),
                            ("tu-wt", None), (f"{mon}/wt", "tu-wt"), (f"{mon}/site", "tu-wt")):
                row += short(name, c) or cell(val(name, c))
                if base:
                    row += cell(ratio(name, c, base), 7, 2)
            row += cell(ratio(name, f"{mon}/jit", f"{mon}/wt"), 7, 2)
            row += cell(ratio(name, f"{mon}/jit", f"{mon}/site"), 7, 2)
            row += " |" + (short(name, "tu-proc") or cell(val(name, "tu-proc")))
            row += (short(name, f"{mon}/proc") or cell(val(name, f"{mon}/proc")))
            row += cell(ratio(name, f"{mon}/proc", "tu-proc"), 7, 2)
            row += " |" + "".join(cell(val(name, c, "compile"), 8) for c in ("tu", f"{mon}/jit", f"{mon}/off"))
            row += " | " + results[name]["reports"].get(mon, "MISMATCH/FAIL")[:90]
            print(row)
        geo[mon] = {
            "jit": geomean([ratio(n, f"{mon}/jit", "tu") for n in results]),
            "off": geomean([ratio(n, f"{mon}/off", "tu") for n in results]),
            "int": geomean([ratio(n, f"{mon}/int", "tu-int") for n in results]),
            "wt": geomean([ratio(n, f"{mon}/wt", "tu-wt") for n in results]),
            "jit/wt": geomean([ratio(n, f"{mon}/jit", f"{mon}/wt") for n in results]),
            "site": geomean([ratio(n, f"{mon}/site", "tu-wt") for n in results]),
            "jit/site": geomean([ratio(n, f"{mon}/jit", f"{mon}/site") for n in results]),
            "jit/wt max": max(((ratio(n, f"{mon}/jit", f"{mon}/wt") or 0, n) for n in results), default=(0, "")),
            "jit/site max": max(((ratio(n, f"{mon}/jit", f"{mon}/site") or 0, n) for n in results), default=(0, "")),
            "compile jit": geomean([ratio(n, f"{mon}/jit", "tu", "compile") for n in results]),
            "compile off": geomean([ratio(n, f"{mon}/off", "tu", "compile") for n in results]),
            "proc": proc_geomeans(mon, results, ratio),
        }
        if wizard_name(mon) and a.wizard:
            geo[mon]["wizard"] = proc_geomeans(mon, results, ratio, "wzproc", "wz-tu-proc")
            geo[mon]["ours/wizard"] = proc_geomeans(mon, results, ratio, "proc", "wzproc")

    if a.only_proc:
        print_proc_geomeans(monitors, geo)
        return finish(a, results, geo, mismatches)
    print("\n== geomean Ti/Tu (programs counted)")
    hdr = (f"{'monitor':<10}{'jit inlined':>14}{'jit no-inline':>16}{'interpreter':>14}{'woven on wt':>14}"
           f"{'per-site wt':>14} |{'Ti jit/Ti wt':>14}{'Ti jit/Ti st':>14} |{'compile inl':>14}{'compile off':>14}")
    print(hdr + "\n" + "-" * len(hdr))
    f = lambda g: f"{g[0]:>9.3f} ({g[1]:>2})" if g[1] else f"{'-':>14}"  # noqa: E731
    for mon in monitors:
        g = geo[mon]
        print(f"{mon:<10}{f(g['jit']):>14}{f(g['off']):>16}{f(g['int']):>14}{f(g['wt']):>14}{f(g['site']):>14}"
              f" |{f(g['jit/wt']):>14}{f(g['jit/site']):>14} |{f(g['compile jit']):>14}{f(g['compile off']):>14}")
    print(f"{'empty':<10}{f(geo['empty']['run']):>14}{'':>16}{'':>14}{'':>14}{'':>14} |{'':>14}{'':>14}"
          f" |{f(geo['empty']['compile']):>14}")
    print("largest Ti jit / Ti woven per program: " + "; ".join(
        f"{mon} wt {geo[mon]['jit/wt max'][0]:.2f} ({geo[mon]['jit/wt max'][1]}),"
        f" site {geo[mon]['jit/site max'][0]:.2f} ({geo[mon]['jit/site max'][1]})" for mon in monitors))
    print("goals (issue): hotness <= 1.5, branches <= 1.2 (jit inlined), and jit inlined no slower than the statically"
          " woven module on Wasmtime (site; wt is the stricter same-code comparison); empty == 1 (no monitor, no cost)")
    if proc_runs > 0:
        print_proc_geomeans(monitors, geo)
    return finish(a, results, geo, mismatches)


if __name__ == "__main__":
    sys.exit(main())
