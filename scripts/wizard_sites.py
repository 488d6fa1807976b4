#!/usr/bin/env python3
"""Per-site comparison with the Wizard engine (see scripts/wizard-sites.sh and
scripts/README.md).

Runs every PolyBench program with each per-site counting monitor on Wizard
and on wizeng in each mode.  A monitor allocates one record per matched site
and prints them at exit after a `sites N` line, one line per record: the
fields that name the site, then its count (scripts/wizard-sites.wat:
`fid pc count` for every instruction; scripts/wizard-events.wat:
`kind fid pc instr_count count` for function and block events).  Compared:
the program's own output, the number of sites, and the count of every site.
Records are compared as a mapping from site to count, so the order in which
the two engines match sites does not matter; a site matched twice is
reported as a difference of its own.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HEADER = re.compile(r"^sites (\d+)$")


def parse(out):
    """Splits a run's stdout into (program output, site count, {site: count},
    duplicate sites); a site is the tuple of a line's fields but the last.  Returns None for the site part if no `sites` line is found."""
    lines = out.splitlines()
    start = next((i for i in range(len(lines) - 1, -1, -1) if HEADER.match(lines[i])), None)
    if start is None:
        return out, None, None, []
    n = int(HEADER.match(lines[start]).group(1))
    sites, dups = {}, []
    for line in lines[start + 1:]:
        *site, count = (int(x) for x in line.split())
        site = tuple(site)
        if site in sites:
            dups.append(site)
        sites[site] = count
    return "\n".join(lines[:start]), n, sites, dups


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    if p.returncode != 0:
        err = next((l for l in p.stderr.decode("utf-8", "replace").splitlines() if l.strip()), "")
        return None, f"status {p.returncode}: {err[:160]}"
    return parse(p.stdout.decode("utf-8", "replace")), None


def differences(ref, got, show):
    """Human-readable differences between Wizard's parsed run and ours."""
    r_out, r_n, r_sites, _ = ref
    g_out, g_n, g_sites, g_dups = got
    why = []
    if g_sites is None:
        return ["no `sites` line in the output"]
    if g_out != r_out:
        why.append("program output differs")
    if g_n != r_n:
        why.append(f"{g_n} sites, Wizard {r_n}")
    if g_dups:
        why.append(f"{len(g_dups)} sites matched twice, e.g. {g_dups[:show]}")
    missing = sorted(set(r_sites) - set(g_sites))
    extra = sorted(set(g_sites) - set(r_sites))
    counts = sorted(s for s in set(r_sites) & set(g_sites) if r_sites[s] != g_sites[s])
    if missing:
        why.append(f"{len(missing)} Wizard sites missing, e.g. {missing[:show]}")
    if extra:
        why.append(f"{len(extra)} sites Wizard lacks, e.g. {extra[:show]}")
    if counts:
        eg = [(s, g_sites[s], r_sites[s]) for s in counts[:show]]
        why.append(f"{len(counts)} counts differ, e.g. (site, ours, Wizard) {eg}")
    return why


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wizard", required=True, help="the Wizard engine binary")
    ap.add_argument("--wizard-mode", default="jit")
    ap.add_argument("--wizeng", required=True)
    ap.add_argument("--monitor", action="append", required=True,
                    help="NAME=PATH of a monitor compiled to .wasm (repeatable)")
    ap.add_argument("--bench", required=True, help="the PolyBench folder (benchmarks.json)")
    ap.add_argument("--modes", default="int,jit,dyn")
    ap.add_argument("--filter", default="")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--show", type=int, default=3, help="examples per kind of difference")
    a = ap.parse_args()
    with open(os.path.join(a.bench, "benchmarks.json")) as f:
        progs = [b for b in json.load(f)["benchmarks"] if re.search(a.filter, b["name"])]
    modes = a.modes.split(",")
    monitors = [m.split("=", 1) for m in a.monitor]
    passed = failed = 0
    for b in progs:
        wasm = os.path.join(a.bench, b["path"])
        for mon, path in monitors:
            name = f"{b['name']} {mon}"
            ref, err = run([a.wizard, "--mode=" + a.wizard_mode, "--monitors=" + path, wasm], a.timeout)
            if err or ref[1] is None:
                print(f"SKIP  {name}: Wizard failed ({err or 'no sites line'})")
                failed += len(modes)
                continue
            total = sum(ref[2].values())
            for mode in modes:
                got, err = run([a.wizeng, "--mode=" + mode, "--monitors=" + path, wasm], a.timeout)
                why = [err] if err else differences(ref, got, a.show)
                if why:
                    failed += 1
                    print(f"FAIL  {name} [{mode}]: " + "; ".join(why))
                else:
                    passed += 1
                    print(f"pass  {name} [{mode}]: {ref[1]} sites, {total} executions")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
