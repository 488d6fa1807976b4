#!/usr/bin/env python3
"""whamm's paper scripts: our `whamm build` + wizeng against upstream whamm's
bytecode rewriting + the Wasmtime CLI, whole process.

Driven by scripts/bench-whamm-paper.sh; see scripts/README.md. For every
paper script S (whamm's tests/scripts/paper_eval: per-instruction hotness,
branches, instruction coverage, basic-block profiling) and every program P
of the chosen wasure suites:

  * ours: `whamm build S` once, then `wizeng --monitors=S.wasm P` in the
    default mode (no --mode), against `wizeng P` (Tu);
  * theirs: `whamm instr --script S --app P --core-lib whamm_core.wasm -o
    P.S.wasm` (upstream whamm, its default bytecode-rewriting target and
    library strategy: the rewritten app imports whamm's core library), then
    `wasmtime run --env TO_CONSOLE=true --preload whamm_core=whamm_core.wasm
    P.S.wasm` (TO_CONSOLE: the core library prints the report on stdout, as
    ours does, not into a file) warm (a first run fills Wasmtime's code
    cache), against `wasmtime run P`.
  * both run the app as `DIR/NAME.wasm` with directories of the same name
    length (ours a copy of P, theirs the rewritten module) and with
    TO_CONSOLE=true, so the app's argv[0] and environ have the same sizes.

Each process is timed from spawn to exit with a blocking wait (bench_startup's
run_once: posix_spawn + wait4); a cell is the median of RUNS rounds, the four
commands interleaved in each round. The first run of each must exit 0; our
output and the rewritten app's must be equal as whamm_suite.py compares
whamm's outputs: every line outside the report in order, and the report rows
as a multiset of whole rows but their `id` (memory addresses and global
numbers, which each implementation lays out its own way). Reports that
differ in one of the documented ways (docs/probe-language.md, "Differences
from whamm"; whamm_differences.py) count as equal and say how: "equal but at
the exiting call" (rows at the `call` to WASI's `proc_exit`: whamm's
rewriting flushes before that call's own probes fire), "equal but at branch
targets" (`loop:before`/`end:before` counts, higher here: an engine fires
them where a branch lands). With --wizard (Wizard's `wizeng`, the engine of
whamm's `wei` target), a report that still differs is compared with the
report of upstream's `whamm instr --wei` monitor run on Wizard, a third
opinion: "equal to whamm's wei target on Wizard" if ours is the same. A
program whose reports differ otherwise is still timed, marked DIFFER (with
the first difference) and counted in the geomeans, which are also given over
the programs whose reports are equal; one that fails is left out.
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_startup import load_programs, run_once  # noqa: E402
from whamm_differences import classify  # noqa: E402
from whamm_suite import compare  # noqa: E402

# name -> the script, relative to whamm's tests/scripts/paper_eval
SCRIPTS = {
    "hotness": "hotness/hotness-hw.mm",
    "branches": "branches/branches-hw.mm",
    "coverage": "ins_coverage/coverage.mm",
    "basic-blocks": "basic_block_profiling/basic-blocks.mm",
}


ROW = re.compile(r"^[0-9(][^,]*, \(?(memaddr|global_id|map_id)")


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return (math.exp(sum(map(math.log, xs)) / len(xs)), len(xs)) if xs else (float("nan"), 0)


def build(cmd, what, timeout):
    """Run a build step; (ok, seconds, first error line)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, timeout, f"{what}: timeout"
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        lines = (p.stderr + p.stdout).strip().splitlines()
        return False, dt, f"{what}: exit {p.returncode}: {lines[0][:100] if lines else ''}"
    return True, dt, ""


def first_run(cmd, cwd, tmp):
    """(exit status, stdout text) of one run."""
    out = os.path.join(tmp, "first.out")
    code, _ = run_once(cmd, cwd, out)
    with open(out, "rb") as f:
        return code, f.read().decode("utf-8", "replace")


def measure(cmds, runs, cwd):
    """{name: median seconds} over `runs` interleaved rounds."""
    times = {k: [] for k in cmds}
    for _ in range(runs):
        for k, cmd in cmds.items():
            times[k].append(run_once(cmd, cwd, os.devnull)[1])
    return {k: statistics.median(v) for k, v in times.items()}


# `, #6, 6, ` -> `, , 6, `: Wizard names a function without a name by
# nothing, we (and whamm's rewriting) by `#` and its index
UNNAMED = re.compile(r"^([^,]*(?:, [^,]*){5}), #(\d+), \2, ", re.M)


def wizard_opinion(a, s, prog_args, app, tmp):
    """Why our report is still right, per upstream's `wei` target run on
    Wizard, or None: the report of `whamm instr --wei S` (once per script)
    with whamm's core library, run by Wizard on `app` (in a directory of its
    own, with the same name length)."""
    mon = os.path.join(tmp, f"{s}.wei.wasm")
    if not os.path.exists(mon):
        ok, _, _ = build(shlex.split(a.whamm_upstream) + ["instr", "--wei", "--script", a.script_path[s],
                                                         "--core-lib", a.core_lib, "-o", mon], "whamm instr --wei",
                         a.timeout)
        if not ok:
            return None
    d = os.path.join(tmp, f"w-{s}")
    os.makedirs(d, exist_ok=True)
    copy = os.path.join(d, os.path.basename(app))
    shutil.copyfile(app, copy)
    cmd = shlex.split(a.wizard) + ["--env=TO_CONSOLE=true", f"--monitors={mon}+{a.core_lib}", copy] + prog_args
    code, out = first_run(cmd, tmp, tmp)
    return code, out


def explain(a, s, ours, theirs, prog_args, app, tmp):
    """(equal, how) for our report against the rewritten app's."""
    why = compare(ours, theirs)
    if why is None:
        return True, "equal"
    known = classify(ours, theirs, app)
    if known:
        return True, known
    if a.wizard:
        code, out = wizard_opinion(a, s, prog_args, app, tmp) or (None, "")
        if code is not None and compare(UNNAMED.sub(r"\1, , \2, ", ours), out, wei=True) is None:
            return True, "equal to whamm's wei target on Wizard"
    return False, why


def one_program(a, prog, monitors, wz, wt, tmp):
    """Results of every script on one program: {script: dict}."""
    suite, name, path, args = prog
    args = shlex.split(args) if isinstance(args, str) else list(args)
    cwd = tmp
    base = {"tu-wz": wz + [path] + args, "tu-wt": wt + ["run", path] + args}
    code, plain = first_run(base["tu-wt"], cwd, tmp)  # also fills Wasmtime's cache
    res = {}
    for s, mon in monitors.items():
        r = res[s] = {}
        # Both sides run a file of the same name in directories of the same
        # length, with the same environment: the app sees the same argv[0]
        # length and environ (a C app's malloc sizes depend on them, and so
        # may what a probe reports, e.g. dlmalloc's `select`s).
        same = {side: os.path.join(tmp, f"{side}-{s}") for side in ("o", "t")}
        for d in same.values():
            os.makedirs(d, exist_ok=True)
        app_copy = os.path.join(same["o"], os.path.basename(path))
        shutil.copyfile(path, app_copy)
        rewritten = os.path.join(same["t"], os.path.basename(path))
        ok, dt, err = build(shlex.split(a.whamm_upstream) + ["instr", "--script", a.script_path[s], "--app", path,
                                                            "--core-lib", a.core_lib, "-o", rewritten],
                            "whamm instr", a.timeout)
        r["rewrite_s"] = dt
        if not mon or not ok:
            r["status"] = err or "our whamm build failed"
            continue
        # whamm's default link strategy imports its core library (whamm_core),
        # which writes the report to stdout with TO_CONSOLE=true (else to a file)
        theirs_run = wt + ["run", "--env", "TO_CONSOLE=true", "--preload", f"whamm_core={a.core_lib}"]
        ours_run = wz + ["--env", "TO_CONSOLE=true", "--monitors=" + mon]
        cmds = {"ours": ours_run + [app_copy] + args, "theirs": theirs_run + [rewritten] + args}
        c1, ours = first_run(cmds["ours"], cwd, tmp)
        c2, theirs = first_run(cmds["theirs"], cwd, tmp)  # fills the cache
        if c1 != code or c2 != code:
            r["status"] = f"exit status: ours {c1}, theirs {c2}, app {code}"
            continue
        equal, how = explain(a, s, ours, theirs, args, path, tmp)
        if not ours.startswith(plain.rstrip("\n")):
            equal, how = False, "the app's output changed"
        if equal:
            r["known"] = how
        else:
            r["differs"] = how
            if a.keep:
                for who, text in (("ours", ours), ("theirs", theirs)):
                    with open(os.path.join(a.keep, f"{suite}.{name.split('/')[-1]}.{s}.{who}"), "w") as f:
                        f.write(text)
        r["rows"] = sum(1 for l in ours.splitlines() if ROW.match(l))
        r.update(measure({**base, **cmds}, a.runs, cwd))
    return res


def print_tables(results, scripts):
    print()
    for s in scripts:
        print(f"== {s} ({SCRIPTS[s]}): whole process, ms (median); ours = whamm build + wizeng (default mode),"
              f" theirs = whamm's rewriting on the Wasmtime CLI (warm)")
        hdr = (f"{'program':<28}{'Tu wz':>9}{'ours':>9}{'Ti/Tu':>8}{'Tu wt':>9}{'theirs':>9}{'Ti/Tu':>8}"
               f"{'ours/theirs':>13}{'rows':>7}{'rewrite':>9}  reports")
        print(hdr + "\n" + "-" * len(hdr))
        for name, res in results.items():
            r = res[s]
            if "ours" not in r:
                print(f"{name:<28}  {r.get('status', '?')[:140]}")
                continue
            print(f"{name:<28}{r['tu-wz'] * 1e3:>9.1f}{r['ours'] * 1e3:>9.1f}{r['ours'] / r['tu-wz']:>8.2f}"
                  f"{r['tu-wt'] * 1e3:>9.1f}{r['theirs'] * 1e3:>9.1f}{r['theirs'] / r['tu-wt']:>8.2f}"
                  f"{r['ours'] / r['theirs']:>13.3f}{r['rows']:>7}{r['rewrite_s'] * 1e3:>8.0f}ms  "
                  + (r.get("known", "equal") if "differs" not in r else "DIFFER: " + r["differs"][:110]))
        print()


def print_geomeans(results, scripts):
    suites = sorted({n.split("/")[0] for n in results}) + ["all"]
    print("== geomeans (programs counted): ours/theirs (goal <= 0.5: ours at least 2x faster), and each side's Ti/Tu;"
          " 'equal': only programs whose reports are equal")
    hdr = (f"{'script':<14}{'suite':<11}{'ours/theirs':>16}{'ours Ti/Tu':>16}{'theirs Ti/Tu':>16}"
           f"{'equal: o/t':>16}")
    print(hdr + "\n" + "-" * len(hdr))
    every = []
    f = lambda x: f"{x[0]:>9.3f} ({x[1]:>3})" if x[1] else f"{'-':>15}"  # noqa: E731
    for s in scripts:
        for suite in suites:
            rs = [res[s] for n, res in results.items() if "ours" in res[s] and suite in ("all", n.split("/")[0])]
            g = geomean([r["ours"] / r["theirs"] for r in rs])
            if suite == "all":
                every += [r["ours"] / r["theirs"] for r in rs]
            gi = geomean([r["ours"] / r["tu-wz"] for r in rs])
            gt = geomean([r["theirs"] / r["tu-wt"] for r in rs])
            ge = geomean([r["ours"] / r["theirs"] for r in rs if "differs" not in r])
            print(f"{s:<14}{suite:<11}{f(g):>16}{f(gi):>16}{f(gt):>16}{f(ge):>16}")
    g = geomean(every)
    verdict = "met" if g[1] and g[0] <= 0.5 else "MISSED"
    print(f"{'all scripts':<25}{g[0]:>9.3f} ({g[1]:>3})   goal <= 0.5: {verdict}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--bench-root", required=True)
    ap.add_argument("--paper-eval", required=True, help="whamm's tests/scripts/paper_eval")
    ap.add_argument("--whamm", required=True, help="our compiler")
    ap.add_argument("--whamm-upstream", required=True, help="upstream whamm's CLI")
    ap.add_argument("--core-lib", required=True, help="upstream whamm's core library (whamm_core.wasm)")
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--wasmtime", required=True)
    ap.add_argument("--suites", default="polybench,ostrich")
    ap.add_argument("--scripts", default=",".join(SCRIPTS))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--keep", default="", help="write differing outputs to this folder")
    ap.add_argument("--wizard", default="", help="Wizard's wizeng: a third opinion on reports that differ")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    scripts = [s for s in a.scripts.split(",") if s]
    for s in scripts:
        if s not in SCRIPTS:
            sys.exit(f"unknown script {s!r}; one of {', '.join(SCRIPTS)}")
    a.script_path = {s: os.path.join(a.paper_eval, SCRIPTS[s]) for s in scripts}
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="whamm-paper-")
    monitors = {}
    for s in scripts:
        out = os.path.join(tmp, f"{s}.mon.wasm")
        ok, _, err = build(shlex.split(a.whamm) + ["build", a.script_path[s], "-o", out], "whamm build", a.timeout)
        monitors[s] = out if ok else None
        if not ok:
            print(f"{s}: {err}", flush=True)
    wz, wt = shlex.split(a.wizeng), shlex.split(a.wasmtime)
    progs = load_programs(a.bench_root, a.suites.split(","), a.filter)
    print(f"{len(progs)} programs x {len(scripts)} scripts, median of {a.runs}", flush=True)
    results = {}
    for i, prog in enumerate(progs):
        name = prog[1]
        results[name] = one_program(a, prog, monitors, wz, wt, tmp)
        cells = ", ".join(f"{s} {r['ours'] / r['theirs']:.2f}{'' if 'differs' not in r else ' (reports differ)'}"
                          if "ours" in r else f"{s} {r.get('status', '?')[:60]}"
                          for s, r in results[name].items())
        print(f"[{i + 1}/{len(progs)}] {name}: ours/theirs {cells}", flush=True)
        for f in os.listdir(tmp):
            if f.endswith(".wasm") and not f.endswith(".mon.wasm"):
                os.remove(os.path.join(tmp, f))
    print_tables(results, scripts)
    print_geomeans(results, scripts)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    bad = [f"{n} [{s}]" for n, res in results.items() for s, r in res.items() if "ours" not in r]
    differ = [f"{n} [{s}]" for n, res in results.items() for s, r in res.items() if "differs" in r]
    if bad:
        print(f"\n{len(bad)} failed (left out): {', '.join(bad)}")
    if differ:
        print(f"\n{len(differ)} measured with reports that differ: {', '.join(differ)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
