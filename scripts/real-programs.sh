#!/usr/bin/env bash
# Run the wasure real programs (PolyBench, Ostrich, libsodium, CoreMark,
# Dhrystone) through wizeng and through Wasmtime, and compare stdout and exit
# status.  See scripts/README.md.
#
# usage: scripts/real-programs.sh [FILTER_REGEX]
#   FILTER_REGEX  matched against "suite/name", e.g. 'polybench/' or 'gemm|lu$'
# env:
#   MODE=int|jit|lazy|dyn   engine mode (default int)
#   MONITORS=examples/hotness.wat   run with these monitors: the app's own output
#                           must be unchanged, the monitor's report follows it
#                           (MONITOR_PREFIX, default "hotness:", marks the report)
#   WIZENG="cmd ..."        engine command (default target/release/wizeng,
#                           built with `cargo build --release -p wizeng` if missing)
#   TIMEOUT=600             per-program timeout in seconds (each engine)
#   SUITES=polybench,ostrich,libsodium,coremark,dhrystone
#   VENV=<repo>/.venv       Python venv (created, with wasure==0.9 + wasmtime)
#   REF_CACHE=DIR           cache Wasmtime reference outputs (default
#                           target/real-programs-ref; REF_CACHE= disables)
#   SKIP=REGEX              leave out programs whose "suite/name" matches (default
#                           'coremark/coremark$': the self-calibrating CoreMark runs
#                           > 600 s even under Wasmtime here; SKIP= includes it)
#   KEEP=1                  keep per-program temp dirs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
MODE="${MODE:-int}"
TIMEOUT="${TIMEOUT:-600}"
SUITES="${SUITES:-polybench,ostrich,libsodium,coremark,dhrystone}"
REF_CACHE="${REF_CACHE-$ROOT/target/real-programs-ref}"

# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"

if [[ -z "${WIZENG:-}" ]]; then
    WIZENG="$ROOT/target/release/wizeng"
    if [[ ! -x "$WIZENG" ]]; then
        echo "building $WIZENG ..." >&2
        (cd "$ROOT" && nice cargo build --release -p wizeng) >&2
    fi
fi

BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"

extra=()
[[ -n "${KEEP:-}" ]] && extra+=(--keep)
[[ -n "${MONITORS:-}" ]] && extra+=(--monitors "$(cd "$ROOT" && realpath "$MONITORS")" --monitor-prefix "${MONITOR_PREFIX:-hotness:}")
exec "$PY" "$ROOT/scripts/real_programs.py" \
    --bench-root "$BENCH_ROOT" --engine "$WIZENG" --mode "$MODE" \
    --suites "$SUITES" --timeout "$TIMEOUT" --ref-cache "$REF_CACHE" --skip "${SKIP-coremark/coremark\$}" \
    "${extra[@]}" "${1:-}"
