#!/usr/bin/env bash
# Run upstream whamm's conformance scripts (core_suite + paper_eval) through
# our `whamm build` and `wizeng --mode=jit`, and compare with whamm's expected
# outputs.  See scripts/README.md.  Not part of CI.
#
# usage: scripts/whamm-suite.sh PATH/TO/whamm/tests [FILTER_REGEX]
#   FILTER_REGEX  matched against "suite/group/name.mm"
# env:
#   WHAMM=target/release/whamm    compiler (built if missing)
#   WIZENG=target/release/wizeng  engine (built if missing)
#   MODE=jit                      engine mode
#   TIMEOUT=120                   seconds per compile and per run
#   KEEP=DIR                      write the output of differing scripts there
#   IGNORE=id                     report columns left out of the comparison (id, probe_id;
#                                 empty: compare whole rows)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 || ! -d "$1/scripts/core_suite" ]]; then
    echo "usage: $0 PATH/TO/whamm/tests [FILTER_REGEX]" >&2
    exit 2
fi
WHAMM="${WHAMM:-$ROOT/target/release/whamm}"
WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
[[ -x "$WHAMM" ]] || (cd "$ROOT" && nice cargo build --release -p whamm-compiler) >&2
[[ -x "$WIZENG" ]] || (cd "$ROOT" && nice cargo build --release -p wizeng) >&2

extra=()
[[ -n "${KEEP:-}" ]] && extra+=(--keep "$KEEP")
exec python3 "$ROOT/scripts/whamm_suite.py" "$1" --whamm "$WHAMM" --wizeng "$WIZENG" \
    --mode "${MODE:-jit}" --timeout "${TIMEOUT:-120}" --filter "${2:-}" --ignore "${IGNORE-id}" "${extra[@]}"
