#!/usr/bin/env bash
# Monitor overhead: instrumented/uninstrumented execution time (Ti/Tu) of the
# shipped monitors examples/{hotness,branches,calls}.wat on the wasure PolyBench
# and Ostrich programs, in one run: JIT with probes inlined (default), JIT with
# --inline=off, the interpreter (Ti/Tu against the interpreter's own Tu), and
# the same monitor woven statically into the app (`wizeng --emit-woven`: one
# standalone module) run on Wasmtime (Ti/Tu against the app on Wasmtime), and
# woven per site (--block-counts=off --specialize=off: what a static rewriter produces);
# plus examples/empty.wat (a monitor without probes) against no monitor, to show
# "no monitor, no cost"; and the whole process in the default mode (the
# `proc` column: spawn to exit, what a user waits for). Checks that every configuration prints the identical
# monitor report and that the app's output is unchanged; a difference is
# printed as MISMATCH and the script exits 1. See scripts/README.md.
#
# usage: scripts/bench-monitors.sh [FILTER_REGEX]      (regex on "suite/program")
# env:
#   RUNS=3                  best of N rounds (run time and compile time separately)
#   OFF_RUNS=$RUNS          rounds for --inline=off (hotness --inline=off is ~40x slower)
#   INT=1                   0: skip the interpreter
#   INT_RUNS=1              interpreter rounds
#   WT_RUNS=$RUNS           Wasmtime rounds (app, and the woven module per monitor); 0: skip
#   SITE_RUNS=$WT_RUNS      Wasmtime rounds of the module woven per site (--block-counts=off --specialize=off:
#                           each probe at its own site, as a static rewriter weaves); 0: skip
#   PROC_RUNS=$RUNS         whole-process runs in the default mode (no --mode): Ti/Tu of the whole
#                           process, posix_spawn + blocking wait4; 0: skip
#   ONLY_PROC=1             only the whole-process columns (plus one jit run of each, whose output
#                           they are checked against): PolyBench+Ostrich x 5 built-ins, RUNS=1:
#                           ~15 min here (profile on Ostrich's page-rank alone: 25 s)
#   WT_FLAGS="..."          extra options for `wizeng --emit-woven` (e.g. --block-counts=off)
#   INT_FILTER=...          regex: the interpreter only on these programs ('' = all); default
#                           10 short PolyBench programs: with a probe per instruction the
#                           interpreter is ~60x slower than without (2mm: 41 s)
#   MONITORS=hotness,branches,calls   NAME: examples/NAME.wat; NAME.mm: examples/NAME.mm,
#                           compiled with whamm (e.g. MONITORS=hotness.mm,branches.mm,calls.mm)
#                           builtin:NAME: the built-in monitor (`--monitors=NAME{csv}`), e.g.
#                           MONITORS=builtin:coverage,builtin:hotness,builtin:branches,builtin:calls,
#                           builtin:loops,builtin:memory,builtin:imix,builtin:profile,builtin:trace
#                           (trace's lines go to /dev/null); MONITORS=builtins is the five with
#                           an overhead goal (coverage, hotness, branches, calls, profile); in the
#                           whole-process column a built-in runs as `--monitors=NAME` (table report)
#   WIZARD=path/to/wizeng.x86-64-linux   Wizard's engine: its monitors of the same names as our built-ins
#                           (coverage, hotness, branches, calls, loops, profile) timed whole process too,
#                           as the reference (`WIZARD_MODE`, default dyn); needs PROC_RUNS > 0
#   SUITES=polybench,ostrich
#   WIZENG="cmd ..."        engine command (default target/release/wizeng; built if missing)
#   TIMEOUT=600             per-run timeout, seconds
#   NO_NICE=1               don't run under `nice`
#   JSON=file               also write the results as JSON
#   VENV=<repo>/.venv       Python venv (gets wasure==0.9, wasmtime)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"

if [[ -z "${WIZENG:-}" ]]; then
    WIZENG="$ROOT/target/release/wizeng"
    if [[ ! -x "$WIZENG" ]]; then
        echo "building $WIZENG ..." >&2
        (cd "$ROOT" && nice cargo build --release -p wizeng) >&2
    fi
fi
if [[ "${MONITORS:-}" == *.mm* ]]; then
    WHAMM="${WHAMM:-$ROOT/target/release/whamm}"
    if [[ ! -x "$WHAMM" ]]; then
        echo "building $WHAMM ..." >&2
        (cd "$ROOT" && nice cargo build --release -p whamm-compiler) >&2
    fi
    extra_whamm=(--whamm "$WHAMM")
else
    extra_whamm=()
fi
BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"
int_runs="${INT_RUNS:-1}"
[[ "${INT:-1}" == 0 ]] && int_runs=0
extra=()
[[ -n "${NO_NICE:-}" ]] && extra+=(--no-nice)
[[ -n "${JSON:-}" ]] && extra+=(--json "$JSON")
[[ -n "${OFF_RUNS:-}" ]] && extra+=(--off-runs "$OFF_RUNS")
[[ -n "${WT_RUNS:-}" ]] && extra+=(--wt-runs "$WT_RUNS")
[[ -n "${SITE_RUNS:-}" ]] && extra+=(--site-runs "$SITE_RUNS")
[[ -n "${WT_FLAGS:-}" ]] && extra+=(--wt-flags "$WT_FLAGS")
[[ -n "${PROC_RUNS:-}" ]] && extra+=(--proc-runs "$PROC_RUNS")
[[ -n "${ONLY_PROC:-}" && "${ONLY_PROC}" != 0 ]] && extra+=(--only-proc)
[[ -n "${WIZARD:-}" ]] && extra+=(--wizard "$WIZARD" --wizard-mode "${WIZARD_MODE:-dyn}")
echo "wizeng: $WIZENG" >&2
exec "$PY" "$ROOT/scripts/bench_monitors.py" --bench-root "$BENCH_ROOT" \
    --suites "${SUITES:-polybench,ostrich}" --wizeng "$WIZENG" --monitors "${MONITORS:-hotness,branches,calls}" \
    --runs "${RUNS:-3}" --int-runs "$int_runs" --int-filter "${INT_FILTER-^polybench/(atax|bicg|durbin|gesummv|jacobi-1d|mvt|trisolv|doitgen|syrk|trmm)$}" \
    --timeout "${TIMEOUT:-600}" "${extra[@]}" "${extra_whamm[@]}" "${1:-}"
