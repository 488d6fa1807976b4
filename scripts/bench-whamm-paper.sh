#!/usr/bin/env bash
# whamm's paper scripts (per-instruction hotness, branches, instruction
# coverage, basic-block profiling) compiled by our `whamm build` and run by
# wizeng in the default mode, against upstream whamm's bytecode rewriting of
# the same script run on the Wasmtime CLI (warm cache): whole process, per
# program, on the wasure PolyBench and Ostrich programs; reports must be
# equal. See scripts/README.md.
#
# usage: scripts/bench-whamm-paper.sh [FILTER_REGEX]     (regex on "suite/program")
# env:
#   WHAMM_SRC=../whamm-upstream      upstream whamm's checkout (default: beside this repository) (its tests/scripts/paper_eval
#                                    holds the scripts)
#   WHAMM_UPSTREAM=...               upstream whamm's CLI; default $WHAMM_TARGET/release/whamm,
#                                    built from WHAMM_SRC with cargo if missing
#   WHAMM_TARGET=target/whamm-upstream   CARGO_TARGET_DIR for that build
#   WHAMM_CORE=$WHAMM_SRC/embedded/release/whamm_core.wasm   whamm's core library (the one its
#                                    release build embeds), preloaded into Wasmtime
#   WHAMM=target/release/whamm       our compiler (built if missing)
#   WIZENG=target/release/wizeng     our engine (built if missing)
#   WASMTIME=wasmtime                the Wasmtime CLI (see bench-startup.sh)
#   SCRIPTS=hotness,branches,coverage,basic-blocks
#   SUITES=polybench,ostrich         RUNS=3 (median)   TIMEOUT=600 (per run or build)
#   KEEP=DIR                         write both outputs of a differing program there
#   WIZARD=.../wizeng.x86-64-linux   Wizard's engine: a report that differs from the rewritten
#                                    app's is compared with upstream's `--wei` monitor run there
#                                    (default: wizard-engine/bin/ beside WHAMM_SRC, if there;
#                                    WIZARD= for none)
#   JSON=file                        also write the results as JSON
#   VENV=<repo>/.venv                Python venv (for wasure's programs)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"

WHAMM_SRC="${WHAMM_SRC:-$ROOT/../whamm-upstream}"
WHAMM_TARGET="${WHAMM_TARGET:-$ROOT/target/whamm-upstream}"
WHAMM_UPSTREAM="${WHAMM_UPSTREAM:-$WHAMM_TARGET/release/whamm}"
if [[ ! -x "${WHAMM_UPSTREAM%% *}" ]]; then
    echo "building upstream whamm into $WHAMM_TARGET ..." >&2
    (cd "$WHAMM_SRC" && CARGO_TARGET_DIR="$WHAMM_TARGET" nice cargo build --release --bin whamm) >&2
fi
WHAMM="${WHAMM:-$ROOT/target/release/whamm}"
[[ -x "${WHAMM%% *}" ]] || (cd "$ROOT" && nice cargo build --release -p whamm-compiler) >&2
WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
[[ -x "${WIZENG%% *}" ]] || (cd "$ROOT" && nice cargo build --release -p wizeng) >&2
WASMTIME="${WASMTIME:-wasmtime}"
command -v "${WASMTIME%% *}" >/dev/null || {
    echo "bench-whamm-paper.sh: the Wasmtime CLI was not found (set WASMTIME=; see bench-startup.sh)" >&2
    exit 2
}
BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"
extra=()
[[ -n "${KEEP:-}" ]] && extra+=(--keep "$KEEP")
[[ -n "${JSON:-}" ]] && extra+=(--json "$JSON")
WIZARD="${WIZARD-$(dirname "$WHAMM_SRC")/wizard-engine/bin/wizeng.x86-64-linux}"
if [[ -n "$WIZARD" && -x "${WIZARD%% *}" ]]; then
    extra+=(--wizard "$WIZARD")
    echo "wizard:   $WIZARD" >&2
fi
echo "wizeng:   $WIZENG" >&2
echo "whamm:    $WHAMM (ours), $WHAMM_UPSTREAM (upstream)" >&2
echo "wasmtime: $("${WASMTIME%% *}" --version)" >&2
exec "$PY" "$ROOT/scripts/bench_whamm_paper.py" --bench-root "$BENCH_ROOT" \
    --paper-eval "$WHAMM_SRC/tests/scripts/paper_eval" --whamm "$WHAMM" --whamm-upstream "$WHAMM_UPSTREAM" \
    --core-lib "${WHAMM_CORE:-$WHAMM_SRC/embedded/release/whamm_core.wasm}" \
    --wizeng "$WIZENG" --wasmtime "$WASMTIME" --suites "${SUITES:-polybench,ostrich}" \
    --scripts "${SCRIPTS:-hotness,branches,coverage,basic-blocks}" --runs "${RUNS:-3}" \
    --timeout "${TIMEOUT:-600}" "${extra[@]}" "${1:-}"
