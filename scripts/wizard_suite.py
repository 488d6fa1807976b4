#!/usr/bin/env python3
"""Runner for the Wizard engine's Wasm-monitor correctness suite (see
scripts/wizard-suite.sh and scripts/README.md).

A case is a top-level `NAME.wasm` of the correctness folder (the monitor),
with `app/NAME.app` (the app path, relative to the folder), optionally
`flags/NAME.flags` (engine flags), `imports/NAME.imports` (monitor libraries,
one per line, joined to the monitor with '+') and `expected/NAME.out`.  Each
case runs from the folder as `wizeng --mode=M FLAGS --monitors=NAME+LIBS APP`.

Wizard prints a bind error on stdout, as a line containing
"error inserting Whamm! probe @bind"; ours is a message on stderr with exit
status 3.  For such a case we require status 3, a non-empty stderr, and the
expected stdout without that line and without Wizard's trap-trace lines.
Every other case must reproduce the expected stdout byte for byte (and the
status in `expected/NAME.exit` if there is one).
"""
import argparse
import os
import re
import subprocess
import sys

BIND_ERROR = "error inserting Whamm! probe @bind"
# Wizard-specific flags and what ours calls them (None: drop the flag).
FLAG_MAP = {
    "--inline-whamm-probes=false": "--inline=off",
    "--inline-whamm-probes=true": "--inline=on",
    "--ext:multi-memory": None,
}


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def case_command(folder, name):
    app = (read(os.path.join(folder, "app", name + ".app")) or "").strip().split()
    flags = []
    for f in (read(os.path.join(folder, "flags", name + ".flags")) or "").split():
        flags += [FLAG_MAP[f]] if f in FLAG_MAP and FLAG_MAP[f] else ([] if f in FLAG_MAP else [f])
    libs = [l.strip() for l in (read(os.path.join(folder, "imports", name + ".imports")) or "").splitlines() if l.strip()]
    return flags, "+".join([name] + libs), app


def expectation(folder, name):
    out = read(os.path.join(folder, "expected", name + ".out"))
    exit_ = read(os.path.join(folder, "expected", name + ".exit"))
    exit_ = int(exit_.strip()) if exit_ and exit_.strip() else None
    if out is not None and BIND_ERROR in out:
        lines = [l for l in out.splitlines(keepends=True)
                 if BIND_ERROR not in l and not l.startswith("<wasm func") and not l.startswith("  !trap")]
        return "".join(lines), 3, True
    return out, exit_, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--modes", default="int,jit,dyn")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--filter", default="")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    folder = os.path.abspath(a.folder)
    names = sorted(f for f in os.listdir(folder) if f.endswith(".wasm"))
    if a.filter:
        names = [n for n in names if re.search(a.filter, n)]
    passed = failed = 0
    per_mode = {}
    for name in names:
        flags, monitors, app = case_command(folder, name)
        want_out, want_exit, bind_error = expectation(folder, name)
        for mode in a.modes.split(","):
            cmd = [a.wizeng, "--mode=" + mode] + flags + ["--monitors=" + monitors] + app
            try:
                p = subprocess.run(cmd, cwd=folder, capture_output=True, timeout=a.timeout)
                out = p.stdout.decode("utf-8", "replace")
                err = p.stderr.decode("utf-8", "replace")
                status = p.returncode
            except subprocess.TimeoutExpired:
                out, err, status = "", "timeout", None
            why = None
            if status is None:
                why = "timeout"
            elif bind_error and status != 3:
                why = f"expected a bind error (status 3), got status {status}"
            elif bind_error and not err.strip():
                why = "status 3 without a message on stderr"
            elif want_exit is not None and status != want_exit:
                why = f"status {status}, expected {want_exit}"
            elif want_out is not None and out != want_out:
                ol, wl = out.splitlines(), want_out.splitlines()
                i = next((i for i in range(max(len(ol), len(wl)))
                          if i >= len(ol) or i >= len(wl) or ol[i] != wl[i]), min(len(ol), len(wl)))
                g = ol[i] if i < len(ol) else "<end>"
                w = wl[i] if i < len(wl) else "<end>"
                why = f"stdout differs at line {i + 1}: got {g[:70]!r}, expected {w[:70]!r} (status {status})"
            m = per_mode.setdefault(mode, [0, 0])
            if why is None:
                passed += 1
                m[0] += 1
                print(f"pass  {name} [{mode}]")
            else:
                failed += 1
                m[1] += 1
                first_err = next((l for l in err.splitlines() if l.strip()), "")
                print(f"FAIL  {name} [{mode}]: {why}" + (f"; stderr: {first_err[:160]}" if first_err and why != "timeout" else ""))
                if a.verbose:
                    print("      cmd: " + " ".join(cmd))
        sys.stdout.flush()
    for mode, (p_, f_) in per_mode.items():
        print(f"{mode}: {p_} passed, {f_} failed")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
