#!/usr/bin/env bash
# Benchmark wizeng's interpreter against wasmi and wasm3 on the wasure
# PolyBench programs, in one run.  See scripts/README.md.
#
# usage: scripts/bench-interp.sh [FILTER_REGEX]
# env:
#   RUNS=3                  best of N runs per program and engine
#   WIZENG="cmd ..."        engine command (default target/release/wizeng; built if missing)
#   WASMI="cmd ..."         wasmi CLI (default: `wasmi` from `cargo install wasmi_cli --locked`,
#                           installed if missing — takes a few minutes)
#   WASMI_FLAGS="..."       extra wasmi flags, e.g. "--compilation-mode eager"
#   SUITE=polybench         wasure suite to run
#   TIMEOUT=300             per-run timeout, seconds
#   NO_NICE=1               don't run the engines under `nice`
#   METRIC=wall|cpu         time measured (default wall; cpu = user+sys, steadier on a busy machine)
#   JSON=file               also write the results as JSON
#   VENV=<repo>/.venv       Python venv (gets wasure==0.9, wasmtime, pywasm3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV_PKGS="pywasm3"
# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"

if [[ -z "${WIZENG:-}" ]]; then
    WIZENG="$ROOT/target/release/wizeng"
    if [[ ! -x "$WIZENG" ]]; then
        echo "building $WIZENG ..." >&2
        (cd "$ROOT" && nice cargo build --release -p wizeng) >&2
    fi
fi
if [[ -z "${WASMI:-}" ]]; then
    WASMI="$(command -v wasmi || true)"
    [[ -z "$WASMI" && -x "$HOME/.cargo/bin/wasmi" ]] && WASMI="$HOME/.cargo/bin/wasmi"
    if [[ -z "$WASMI" ]]; then
        echo "installing wasmi_cli (cargo install wasmi_cli --locked) ..." >&2
        nice cargo install wasmi_cli --locked >&2
        WASMI="$HOME/.cargo/bin/wasmi"
    fi
fi

BENCH_ROOT="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks"))')"
extra=()
[[ -n "${NO_NICE:-}" ]] && extra+=(--no-nice)
[[ -n "${JSON:-}" ]] && extra+=(--json "$JSON")
echo "wizeng: $WIZENG" >&2
echo "wasmi:  $WASMI $("${WASMI%% *}" --version 2>/dev/null || true) ${WASMI_FLAGS:-}" >&2
echo "wasm3:  pywasm3 $("$PY" -c 'import importlib.metadata as m; print(m.version("pywasm3"))')" >&2
exec "$PY" "$ROOT/scripts/bench_interp.py" --bench-root "$BENCH_ROOT" \
    --suite "${SUITE:-polybench}" --wizeng "$WIZENG" --wasmi "$WASMI" \
    --wasmi-flags "${WASMI_FLAGS:-}" --metric "${METRIC:-wall}" --runs "${RUNS:-3}" --timeout "${TIMEOUT:-300}" \
    "${extra[@]}" "${1:-}"
