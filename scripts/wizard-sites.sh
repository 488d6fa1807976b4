#!/usr/bin/env bash
# Per-site fidelity with the Wizard engine: runs the 29 wasure PolyBench
# programs with per-site counting monitors (scripts/wizard-sites.wat: every
# instruction; scripts/wizard-events.wat: function and block events) on a
# Wizard binary and on wizeng in each mode, and compares the number of sites
# and every site's count (scripts/wizard_sites.py). See scripts/README.md.
# Not part of CI.
#
# usage: scripts/wizard-sites.sh WIZARD_BINARY [FILTER_REGEX]
#   WIZARD_BINARY  e.g. wizard-engine/bin/wizeng.x86-64-linux
#   FILTER_REGEX   matched against the program name (e.g. "2mm|lu")
# env:
#   WIZENG=target/release/wizeng  engine (built if missing)
#   MODES=int,jit,dyn             wizeng modes to compare
#   MONITORS=sites,events         which of scripts/wizard-NAME.wat to run
#   WIZARD_MODE=jit               Wizard's mode (its int gives the same counts, ~5x slower)
#   TIMEOUT=600                   seconds per run
#   VENV=<repo>/.venv             Python venv (gets wasure==0.9, wasmtime)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 || ! -x "$1" ]]; then
    echo "usage: $0 WIZARD_BINARY [FILTER_REGEX]" >&2
    exit 2
fi
WIZARD="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"
WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
[[ -x "$WIZENG" ]] || (cd "$ROOT" && nice cargo build --release -p wizeng) >&2

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# Wizard reads binary monitors only.
mons=()
IFS=, read -r -a names <<< "${MONITORS:-sites,events}"
for m in "${names[@]}"; do
    "$PY" -c 'import sys, wasmtime; open(sys.argv[2], "wb").write(wasmtime.wat2wasm(open(sys.argv[1]).read()))' \
        "$ROOT/scripts/wizard-$m.wat" "$TMP/$m.wasm"
    mons+=(--monitor "$m=$TMP/$m.wasm")
done
BENCH="$("$PY" -c 'import os, wasure; print(os.path.join(os.path.dirname(wasure.__file__), "benchmarks", "polybench"))')"

python3 "$ROOT/scripts/wizard_sites.py" --wizard "$WIZARD" --wizard-mode "${WIZARD_MODE:-jit}" \
    --wizeng "$WIZENG" "${mons[@]}" --bench "$BENCH" \
    --modes "${MODES:-int,jit,dyn}" --timeout "${TIMEOUT:-600}" --filter "${2:-}"
