#!/usr/bin/env bash
# Whole-process start-up benchmark: wizeng (default mode with its cache warm,
# the same with a new empty cache directory every run ("cold"), and
# --mode=int) against the Wasmtime CLI, warm (its code cache filled) and cold
# (-C cache=n), on the wasure programs. See scripts/README.md.
#
# usage: scripts/bench-startup.sh [FILTER_REGEX]     (regex on "suite/program")
# env:
#   SUITES=polybench,ostrich     add wasm-r3 for the real-application replays
#   RUNS=5                       median of N whole-process runs per engine
#   WIZENG="cmd ..."             engine command (default target/release/wizeng)
#   WASMTIME=wasmtime            the Wasmtime CLI (for example
#       cargo install wasmtime-cli --version 48.0.8 --locked --no-default-features \
#           --features run,cache,cranelift,parallel-compilation)
#   CONFIGS="name=flags;..."     more wizeng columns, e.g. "sync=--background-compile=off";
#                                "before=@/path/to/wizeng" runs another build (interleaved
#                                with the others in every round: a fair before/after on a
#                                busy machine)
#   SKIP=wt-cold,cold,int        columns not to run (the wasm-r3 replays take Wasmtime
#                                seconds each to compile cold)
#   WARMUP=2                     untimed runs of every engine first (the correctness run
#                                is the first)
#   CACHE_DIR=                   wizeng's cache directory for the warm columns (default: a
#                                new one for this run, removed at its end)
#   RAW=file.json                every timed run's seconds, per program and engine
#   VENV=<repo>/.venv            Python venv (gets wasure==0.9, wasmtime)
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
WASMTIME="${WASMTIME:-wasmtime}"
command -v "${WASMTIME%% *}" >/dev/null || {
    echo "bench-startup.sh: the Wasmtime CLI was not found (set WASMTIME=; see the header of this script)" >&2
    exit 2
}
BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"
extra=()
IFS=';' read -r -a configs <<< "${CONFIGS:-}"
for c in "${configs[@]}"; do
    [[ -n "$c" ]] && extra+=(--wizeng-config "$c")
done
echo "wizeng:   $WIZENG" >&2
echo "wasmtime: $("${WASMTIME%% *}" --version)" >&2
exec "$PY" "$ROOT/scripts/bench_startup.py" --bench-root "$BENCH_ROOT" \
    --suites "${SUITES:-polybench,ostrich}" --wizeng "$WIZENG" --wasmtime "$WASMTIME" \
    --runs "${RUNS:-5}" --skip "${SKIP:-}" --warmup "${WARMUP:-2}" \
    --cache-dir "${CACHE_DIR:-}" --raw "${RAW:-}" "${extra[@]}" "${1:-}"
