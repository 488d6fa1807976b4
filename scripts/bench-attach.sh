#!/usr/bin/env bash
# Attach cost on a large module (#18): the boa JavaScript engine build of
# wasure's wasm-r3 set (4.4 MB) with a per-instruction counter monitor, cold
# code cache, default mode: whole process and the `--metrics` breakdown
# (ready to run = load/match/weave/compile before the entry call). Goal:
# ready to run <= 0.5 s. See scripts/README.md.
#
# usage: scripts/bench-attach.sh [FILTER_REGEX]   (regex on "suite/program"; default '^wasm-r3/boa$')
# env:
#   SUITES=wasm-r3          RUNS=3 (median)     TIMEOUT=1800 (per run)
#   FLAGS="--cache=off"     wizeng flags of every run (a fresh --cache-dir=DIR is also cold)
#   MONITORS="name=spec;..."  default: the built-in hotness, examples/hotness.mm (per-site
#                           `report unshared var` counters) and whamm's paper script
#                           hotness-hw.mm (`report var count: u32`), if WHAMM_SRC has it;
#                           spec: a built-in name, a .wasm/.wat monitor or a .mm script
#   WHAMM_SRC=../whamm-upstream      WHAMM=target/release/whamm   WIZENG=target/release/wizeng
#   VENV=<repo>/.venv
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"

WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
[[ -x "${WIZENG%% *}" ]] || (cd "$ROOT" && nice cargo build --release -p wizeng) >&2
WHAMM="${WHAMM:-$ROOT/target/release/whamm}"
[[ -x "${WHAMM%% *}" ]] || (cd "$ROOT" && nice cargo build --release -p whamm-compiler) >&2
WHAMM_SRC="${WHAMM_SRC:-$ROOT/../whamm-upstream}"
if [[ -z "${MONITORS:-}" ]]; then
    MONITORS="hotness=hotness;hotness.mm=$ROOT/examples/hotness.mm"
    paper="$WHAMM_SRC/tests/scripts/paper_eval/hotness/hotness-hw.mm"
    [[ -f "$paper" ]] && MONITORS+=";hotness-hw.mm=$paper"
fi
extra=()
IFS=';' read -r -a mons <<< "$MONITORS"
for m in "${mons[@]}"; do
    [[ -n "$m" ]] && extra+=(--monitor "$m")
done
BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"
echo "wizeng: $WIZENG" >&2
exec "$PY" "$ROOT/scripts/bench_attach.py" --bench-root "$BENCH_ROOT" --suites "${SUITES:-wasm-r3}" \
    --wizeng "$WIZENG" --whamm "$WHAMM" --flags="${FLAGS:---cache=off}" --runs "${RUNS:-3}" \
    --timeout "${TIMEOUT:-1800}" "${extra[@]}" "${1:-^wasm-r3/boa$}"
