#!/usr/bin/env python3
"""Whole-process start-up benchmark: wizeng against the Wasmtime CLI.

Driven by scripts/bench-startup.sh; see scripts/README.md. Every program of
the chosen wasure suites runs as a whole process, from spawn to exit, in:

  * wizeng in its default mode (dyn, compiling in the background), warm
    (its code cache and warm-start records filled by the first run), and
    cold (`cold`: every run with a new, empty cache directory, as a first
    run after installation), and, if asked, other wizeng configurations
    (`--wizeng-config NAME=FLAGS`; a `{fresh}` word in FLAGS becomes a new
    empty directory for every run);
  * wizeng --mode=int (the reference the default mode must never lose to);
  * the Wasmtime CLI warm (its on-disk code cache filled by a first run)
    and cold (`-C cache=n`: compiles every time).

Each process is timed with a blocking wait (os.posix_spawn + os.wait4), never
with a polling one. Engines are interleaved within each round; a cell is the
median over RUNS rounds, and the spread of each engine's cells is printed
too. The first run of every engine must exit as Wasmtime's does and print
the same stdout, otherwise the cell is FAIL and the program is left out of
that engine's geomeans.

wizeng's warm columns use a cache directory of this benchmark's own (made
empty at its start, removed at its end; `--cache-dir DIR` keeps another),
never the user's: that one is shared with every other run on the machine,
may be in the middle of a sweep by another process, and holds records that
other runs keep changing. Every engine runs WARMUP times untimed before its
rounds (the first is the correctness run): a warm-start record can grow in
a program's second run, which the first timed run would otherwise pay for.
Every wizeng build runs from a fresh copy of its executable (see
`fresh_copy`).
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time


def load_programs(root, suites, regex):
    out = []
    for suite in suites:
        folder = os.path.join(root, suite)
        with open(os.path.join(folder, "benchmarks.json")) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            name = f"{suite}/{b['name']}"
            if regex and not re.search(regex, name):
                continue
            out.append((suite, name, os.path.join(folder, b["path"]), b.get("args", [])))
    return out


FRESH = "{fresh}"


def run_fresh(cmd, cwd, out_path):
    """`run_once`, each `{fresh}` word of `cmd` a new empty directory
    (removed afterwards)."""
    if FRESH not in " ".join(cmd):
        return run_once(cmd, cwd, out_path)
    d = tempfile.mkdtemp(prefix="wizeng-fresh-")
    try:
        return run_once([w.replace(FRESH, d) for w in cmd], cwd, out_path)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_once(cmd, cwd, out_path):
    """Spawn `cmd`, wait for it (blocking), return (exit status, seconds)."""
    with open(out_path, "wb") as out, open(os.devnull, "wb") as err, \
            open(os.devnull, "rb") as inp:
        actions = [
            (os.POSIX_SPAWN_DUP2, inp.fileno(), 0),
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
        ]
        old = os.getcwd()
        os.chdir(cwd)
        try:
            t0 = time.perf_counter()
            pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=actions)
            _, status, _ = os.wait4(pid, 0)
            dt = time.perf_counter() - t0
        finally:
            os.chdir(old)
    return os.waitstatus_to_exitcode(status), dt


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--bench-root", required=True)
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--wasmtime", required=True)
    ap.add_argument("--suites", default="polybench,ostrich")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--wizeng-config", action="append", default=[],
                    help="NAME=FLAGS: another wizeng column (e.g. sync='--background-compile=off'); "
                         "NAME=@PATH FLAGS runs the wizeng binary at PATH (e.g. a build before a change)")
    ap.add_argument("--skip", default="",
                    help="comma-separated columns not to run (cold, int, wt-warm, wt-cold, or a config)")
    ap.add_argument("--warmup", type=int, default=2,
                    help="untimed runs of every engine before the rounds (at least the correctness run)")
    ap.add_argument("--cache-dir", default="",
                    help="wizeng's cache directory for the warm columns (default: a new one for this run)")
    ap.add_argument("--raw", default="", help="write every timed run's seconds to this JSON file")
    a = ap.parse_args()

    own_cache = not a.cache_dir
    cache_dir = a.cache_dir or tempfile.mkdtemp(prefix="wizeng-bench-cache-")
    # Any wizeng command without a cache choice of its own gets the
    # benchmark's directory (last: WIZENG may be a wrapper's command line).
    def cached(cmd):
        if any(w.startswith(("--cache-dir", "--cache=")) for w in cmd[1:]):
            return cmd
        return cmd + ["--cache-dir=" + cache_dir]
    bins = tempfile.mkdtemp(prefix="wizeng-bench-bin-")
    copies = {}
    # Each wizeng build runs from a fresh copy of its executable: the page
    # cache keeps an executable run for hours in another state than a new
    # file (here: a build copied at 9:08 and run all morning took 30 more
    # page faults and 0.2 ms more per process than a byte-identical fresh
    # copy, 10% of a 2 ms replay), so builds compared must start equal.
    def fresh_copy(path):
        if path not in copies:
            if not (os.path.isfile(path) and "wizeng" in os.path.basename(path)):
                return path
            copies[path] = os.path.join(bins, f"{len(copies)}-{os.path.basename(path)}")
            shutil.copy2(path, copies[path])
        return copies[path]
    wz = shlex.split(a.wizeng)
    wz[0] = fresh_copy(wz[0])
    wt = shlex.split(a.wasmtime)
    engines = [("default", cached(wz)), ("cold", wz + ["--cache-dir=" + FRESH]),
               ("int", wz + ["--mode=int"])]
    for c in a.wizeng_config:
        name, _, flags = c.partition("=")
        words = shlex.split(flags)
        if words and words[0].startswith("@"):
            engines.append((name, cached([fresh_copy(words[0][1:])] + words[1:])))
        else:
            engines.append((name, cached(wz + words)))
    engines += [("wt-warm", wt + ["run"]), ("wt-cold", wt + ["run", "-C", "cache=n"])]
    skip = {s for s in a.skip.split(",") if s}
    engines = [(e, c) for e, c in engines if e == "default" or e not in skip]
    names_run = [e for e, _ in engines]
    # The reference output: Wasmtime's (cold, else warm), else the default mode's.
    ref_engine = next((e for e in ("wt-cold", "wt-warm") if e in names_run), "default")
    progs = load_programs(a.bench_root, a.suites.split(","), a.filter)
    tmp = tempfile.mkdtemp(prefix="wizeng-startup-")
    print(f"wizeng cache directory of the warm columns: {cache_dir}", file=sys.stderr)
    cells = {}
    raw = {}
    for suite, name, path, args in progs:
        cwd = os.path.dirname(path)
        ref = None
        times = {e: [] for e, _ in engines}
        ok, outs = {}, {}
        # Correctness run first (it also fills Wasmtime's cache for warm).
        for e, cmd in reversed(engines):
            out = os.path.join(tmp, e + ".out")
            code, _ = run_fresh(cmd + [path] + args, cwd, out)
            with open(out, "rb") as f:
                got = (code, f.read())
            if ref is None and e == ref_engine:
                ref = got
            outs[e] = got
        for e in outs:
            ok[e] = outs[e] == ref
        for _ in range(a.warmup - 1):
            for e, cmd in engines:
                if ok[e]:
                    run_fresh(cmd + [path] + args, cwd, os.devnull)
        for _ in range(a.runs):
            for e, cmd in engines:
                if ok[e]:
                    times[e].append(run_fresh(cmd + [path] + args, cwd, os.devnull)[1])
        cells[name] = (suite, {e: statistics.median(t) if ok[e] else None
                               for e, t in times.items()})
        raw[name] = {e: t for e, t in times.items() if ok[e]}
        row = "  ".join(
            f"{e} {cells[name][1][e] * 1e3:8.1f}" if cells[name][1][e] is not None
            else f"{e}     FAIL" for e, _ in engines)
        print(f"{name:32} {row}  (ms)", flush=True)

    if own_cache:
        shutil.rmtree(cache_dir, ignore_errors=True)
    shutil.rmtree(bins, ignore_errors=True)
    if a.raw:
        with open(a.raw, "w") as f:
            json.dump(raw, f, indent=1)
    print()
    # The spread: per engine, the median over programs of (max - min) /
    # median of a cell's runs.
    for e, _ in engines:
        rel = [(max(t) - min(t)) / statistics.median(t)
               for t in (r.get(e) for r in raw.values()) if t]
        if rel:
            print(f"spread     {e:10} (max - min) / median of a cell: "
                  f"median {statistics.median(rel) * 100:.0f}%, worst {max(rel) * 100:.0f}%")
    print()
    names = [e for e, _ in engines if not e.startswith("wt-")]
    groups = sorted({s for s, _ in cells.values()}) + ["all"]
    for g in groups:
        rows = [c for s, c in cells.values() if g in ("all", s)]
        for e in names:
            def ratio(ref):
                if ref not in names_run:
                    return "-"
                r = geomean([c[e] / c[ref] for c in rows
                             if c[e] is not None and c[ref] is not None])
                return f"{r:.2f}x"
            print(f"{g:10} {e:10} vs wasmtime warm {ratio('wt-warm')}, "
                  f"cold {ratio('wt-cold')}, vs int {ratio('int')} "
                  f"({len(rows)} programs)")
    # Slower by the medians, and by the fastest runs too (the least
    # disturbed: a verdict the noise of a few runs cannot make).
    slower = [(n, c["default"] / c["int"], min(raw[n]["default"]) / min(raw[n]["int"]))
              for n, (_, c) in cells.items()
              if c.get("default") and c.get("int") and c["default"] > 1.1 * c["int"]]
    print("default mode more than 10% slower than --mode=int (medians; fastest runs):",
          ", ".join(f"{n} {r:.2f}x; {m:.2f}x" for n, r, m in slower) or "none")
    print("... of which by the fastest runs too:",
          ", ".join(n for n, _, m in slower if m > 1.1) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
