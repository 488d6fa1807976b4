#!/usr/bin/env python3
"""Run upstream whamm's conformance scripts through `whamm build` + `wizeng`.

Driven by scripts/whamm-suite.sh; see scripts/README.md.  Takes the `tests`
folder of a checkout of whamm (ejrgilbert/whamm).  Each script
`scripts/{core_suite,paper_eval}/GROUP/NAME.mm` comes with
`GROUP/app/NAME.mm.app` (the app's path, relative to the checkout's root),
optionally `GROUP/libs/NAME.mm.libs` (lines `lib=path` or
`lib(module)=path`) and `GROUP/expected/{wei,rewriting}/NAME.mm.exp`, the
output of whamm's two targets.  For each script: compile it with our
compiler, run the app under wizeng with the monitor, and compare the output
with each expected output.  Report rows (the lines after a `id, id_type,
name, ...` header) are compared as a multiset of their columns but `id`
(memory addresses and global numbers: each implementation lays out its own;
`--ignore` chooses the columns left out).  Against the `wei` target's output,
our `probe_id` is compared without the rule's mode, which that target does
not print.  Every other line is compared in order, after trimming.

Prints one line per script (`pass`, `compile error`, `run error`,
`differs`, each with a short reason) and `N passed, N failed`; exits 1 if
anything failed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SUITES = ("core_suite", "paper_eval")
# Libraries the engine provides itself (`NAME(MODULE)=path` in a .libs file).
ENGINE_MODULES = {"whamm:dyninstr"}
ROW_TYPES = {"memaddr", "global_id", "map_id", "local_id"}


def scripts(tests):
    out = []
    for suite in SUITES:
        base = os.path.join(tests, "scripts", suite)
        for group in sorted(os.listdir(base)):
            gdir = os.path.join(base, group)
            if not os.path.isdir(gdir):
                continue
            for f in sorted(os.listdir(gdir)):
                if f.endswith(".mm") and os.path.isfile(os.path.join(gdir, f)):
                    out.append((f"{suite}/{group}/{f}", gdir, f))
    return out


def parse_libs(path):
    """[(name, module, path)] from a .libs file."""
    libs = []
    if not os.path.exists(path):
        return libs
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        name, _, p = line.partition("=")
        m = re.fullmatch(r"([^()]+)\(([^()]+)\)", name)
        if m:
            libs.append((m.group(1), m.group(2), p))
        else:
            libs.append((name, name, p))
    return libs


def split_columns(line):
    """Split a report row at `, ` outside brackets (a type like
    `(i32, (i32, i32))` or `map<u32, u32>` holds `, `)."""
    cols, cur, depth = [], "", 0
    i = 0
    while i < len(line):
        c = line[i]
        if c in "(<" and len(cols) < 10:
            depth += 1
        elif c in ")>" and len(cols) < 10 and depth > 0 and not (c == ">" and line[i - 1] == "-"):
            depth -= 1
        if c == "," and depth == 0 and len(cols) < 10:
            cols.append(cur.strip())
            cur = ""
            i += 1
            continue
        cur += c
        i += 1
    cols.append(cur.strip())
    return cols


# Report columns left out of a comparison, by name: `id` (an address in the
# monitor's memory, a global's or a map's number, which each implementation
# lays out its own way; whamm's two targets differ there too) and, on
# request, `probe_id`.
IGNORE_DEFAULT = ("id",)
COLUMN = {"id": 0, "probe_id": 9}
# `14_wasm:opcode:call:before` -> `14_wasm:opcode:call`: the `probe_id` of
# whamm's `wei` target names the rule without its mode (its rewriting
# target, and ours, with it)
WITHOUT_MODE = re.compile(r"^(\d+_[^:]*:[^:]*:[^:]*):[^:]*$")


def split_output(text, ignore=IGNORE_DEFAULT, without_mode=False):
    """(other lines, sorted report-row keys); blank lines are left out.
    A row's key is its columns without those named in `ignore`; with
    `without_mode`, its `probe_id` without the rule's mode."""
    drop = {COLUMN[c] for c in ignore}
    lines = [l.rstrip() for l in text.strip().splitlines() if l.strip()]
    other, rows = [], []
    in_csv = False
    for l in lines:
        if l.startswith("id, id_type, name"):
            in_csv = True
            other.append(l)
            continue
        if in_csv:
            cols = split_columns(l)
            # a value of several Wasm values has `(global_id; global_id)`
            kinds = cols[1].strip("()").split("; ") if len(cols) == 11 else []
            if kinds and all(k in ROW_TYPES for k in kinds):
                if without_mode:
                    cols[9] = WITHOUT_MODE.sub(r"\1", cols[9])
                rows.append(tuple(c for i, c in enumerate(cols) if i not in drop))
                continue
            in_csv = False
        other.append(l.strip())
    return other, sorted(rows)


def compare(actual, expected, ignore=IGNORE_DEFAULT, wei=False):
    """None if equal, else a short reason. `wei`: `expected` is the output of
    whamm's `wei` target (whose `probe_id` has no mode)."""
    a_other, a_rows = split_output(actual, ignore, without_mode=wei)
    e_other, e_rows = split_output(expected, ignore)
    for i, (a, e) in enumerate(zip(a_other, e_other)):
        if a != e:
            return f"line {i + 1}: got {a[:70]!r}, expected {e[:70]!r}"
    if len(a_other) != len(e_other):
        n = min(len(a_other), len(e_other))
        if len(a_other) > n:
            return f"extra line {a_other[n][:70]!r}"
        return f"missing line {e_other[n][:70]!r}"
    if a_rows != e_rows:
        a_set, e_set = set(a_rows), set(e_rows)
        missing = [r for r in e_rows if r not in a_set]
        extra = [r for r in a_rows if r not in e_set]
        msg = f"report rows: {len(a_rows)} vs {len(e_rows)} expected"
        if missing:
            msg += f"; missing e.g. {', '.join(missing[0])[:90]}"
        if extra:
            msg += f"; unexpected e.g. {', '.join(extra[0])[:90]}"
        return msg
    return None


def first_error(text):
    for l in text.splitlines():
        l = l.strip()
        if l.startswith("error"):
            return l[:140]
    for l in text.splitlines():
        if l.strip():
            return l.strip()[:140]
    return "(no output)"


def run_one(args, root, gdir, name, work):
    app_file = os.path.join(gdir, "app", name + ".app")
    if not os.path.exists(app_file):
        return "run error", "no app file"
    app = os.path.join(root, open(app_file).read().strip())
    libs = parse_libs(os.path.join(gdir, "libs", name + ".libs"))
    exps = []
    for target in ("wei", "rewriting"):
        p = os.path.join(gdir, "expected", target, name + ".exp")
        if os.path.exists(p):
            exps.append((target, open(p, errors="replace").read()))
    if not exps:
        return "run error", "no expected output"

    mon = os.path.join(work, "mon.wasm")
    cmd = [args.whamm, "build", os.path.join(gdir, name), "-o", mon]
    chain = []
    for lib, module, path in libs:
        if module in ENGINE_MODULES:
            continue
        # the engine names a library module after its file name
        dst = os.path.join(work, module + ".wasm")
        shutil.copyfile(os.path.join(root, path), dst)
        cmd += ["--lib", f"{lib}={dst}"]
        chain.append(dst)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return "compile error", "timeout"
    if r.returncode != 0:
        return "compile error", first_error(r.stderr + r.stdout)

    run = [args.wizeng, f"--mode={args.mode}", "--monitors=" + "+".join([mon] + chain), app]
    try:
        r = subprocess.run(run, capture_output=True, timeout=args.timeout, cwd=root)
    except subprocess.TimeoutExpired:
        return "run error", "timeout"
    out = r.stdout.decode(errors="replace")
    if r.returncode != 0:
        return "run error", f"exit {r.returncode}: " + first_error(r.stderr.decode(errors="replace"))
    reasons = []
    for target, exp in exps:
        why = compare(out, exp, args.ignore, wei=target == "wei")
        if why is None:
            return "pass", f"({target})"
        reasons.append(f"{target}: {why}")
    if args.keep:
        with open(os.path.join(args.keep, name + ".out"), "w") as f:
            f.write(out)
    return "differs", " | ".join(reasons)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tests", help="the tests folder of a whamm checkout")
    ap.add_argument("--whamm", required=True)
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--mode", default="jit")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--keep", help="write differing outputs into this folder")
    ap.add_argument("--filter", default="")
    ap.add_argument("--ignore", default=",".join(IGNORE_DEFAULT),
                    help="report columns left out of the comparison (comma-separated: id, probe_id; empty: none)")
    args = ap.parse_args()
    args.ignore = tuple(c for c in args.ignore.split(",") if c)
    for c in args.ignore:
        if c not in COLUMN:
            ap.error(f"--ignore: unknown column {c!r} (id or probe_id)")
    tests = os.path.abspath(args.tests)
    root = os.path.dirname(tests)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    passed = failed = 0
    for rel, gdir, name in scripts(tests):
        if args.filter and not re.search(args.filter, rel):
            continue
        with tempfile.TemporaryDirectory(prefix="whamm-suite-") as work:
            status, why = run_one(args, root, gdir, name, work)
        print(f"{status:13} {rel}  {why}", flush=True)
        if status == "pass":
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
