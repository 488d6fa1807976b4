#!/usr/bin/env bash
# Run the Wizard engine's Wasm-monitor correctness suite (a checkout of
# titzer/wizard-engine, its test/monitors/whamm/monitors/correctness folder)
# through `wizeng` in each mode and compare with Wizard's expected stdout.
# See scripts/README.md.  Not part of CI.
#
# usage: scripts/wizard-suite.sh PATH/TO/correctness [FILTER_REGEX]
#   FILTER_REGEX  matched against the case name (e.g. "linking|print_count")
# env:
#   WIZENG=target/release/wizeng  engine (built if missing)
#   MODES=int,jit,dyn             modes to run
#   TIMEOUT=60                    seconds per run
#   VERBOSE=1                     show a diff head / stderr head for failures
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 || ! -d "$1/expected" ]]; then
    echo "usage: $0 PATH/TO/wizard-engine/test/monitors/whamm/monitors/correctness [FILTER_REGEX]" >&2
    exit 2
fi
WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
[[ -x "$WIZENG" ]] || (cd "$ROOT" && nice cargo build --release -p wizeng) >&2

exec python3 "$ROOT/scripts/wizard_suite.py" "$1" --wizeng "$WIZENG" \
    --modes "${MODES:-int,jit,dyn}" --timeout "${TIMEOUT:-60}" --filter "${2:-}" \
    ${VERBOSE:+--verbose}
