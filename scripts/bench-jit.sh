#!/usr/bin/env bash
# Benchmark wizeng's JIT against Wasmtime and Node on the wasure PolyBench and
# Ostrich programs, compile and execution timed separately, in one run (plus
# wizeng's interpreter for reference). See scripts/README.md.
#
# usage: scripts/bench-jit.sh [FILTER_REGEX]      (regex on "suite/program")
# env:
#   RUNS=3                  best of N runs per program and engine (compile and run separately)
#   INT_RUNS=1              interpreter runs (0: skip the interpreter)
#   SUITES=polybench,ostrich
#   WIZENG="cmd ..."        engine command (default target/release/wizeng; built if missing)
#   NODE=node               Node 20+ (node:wasi)
#   TIMEOUT=600             per-run timeout, seconds
#   NO_NICE=1               don't run the engines under `nice`
#   JSON=file               also write the results as JSON
#   DYN=1                   also time wizeng --mode=dyn (total time vs the JIT's total)
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
NODE="${NODE:-node}"
command -v "${NODE%% *}" >/dev/null || { echo "bench-jit.sh: node not found (set NODE=)" >&2; exit 2; }

BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"
extra=()
[[ -n "${NO_NICE:-}" ]] && extra+=(--no-nice)
[[ -n "${JSON:-}" ]] && extra+=(--json "$JSON")
[[ -n "${DYN:-}" ]] && extra+=(--dyn)
echo "wizeng:   $WIZENG" >&2
echo "wasmtime: Python API $("$PY" -c 'import importlib.metadata as m; print(m.version("wasmtime"))')" >&2
echo "node:     $NODE $("${NODE%% *}" --version)" >&2
exec "$PY" "$ROOT/scripts/bench_jit.py" --bench-root "$BENCH_ROOT" \
    --suites "${SUITES:-polybench,ostrich}" --wizeng "$WIZENG" --node "$NODE" \
    --runs "${RUNS:-3}" --int-runs "${INT_RUNS:-1}" --timeout "${TIMEOUT:-600}" \
    "${extra[@]}" "${1:-}"
