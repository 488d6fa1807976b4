#!/usr/bin/env bash
# Quick interpreter benchmark: best-of-N wall time of wizeng vs wasmi on a few
# PolyBench programs, plus the geometric mean of the wizeng/wasmi ratios.
#
# usage: scripts/bench-interp-quick.sh [PROGRAM ...]
# env:   RUNS=3  WIZENG=target/release/wizeng  WASMI=~/.cargo/bin/wasmi
#        BENCH_DIR=<wasure polybench dir>  NO_WASMI=1 (only time wizeng)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-3}"
WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
WASMI="${WASMI:-$(command -v wasmi || echo "$HOME/.cargo/bin/wasmi")}"
BENCH_DIR="${BENCH_DIR:-$ROOT/.venv/lib/python3.11/site-packages/wasure/benchmarks/polybench}"
PROGS=("$@")
[[ ${#PROGS[@]} -eq 0 ]] && PROGS=(gemm 2mm 3mm jacobi-2d seidel-2d floyd-warshall nussinov fdtd-2d symm syr2k)
[[ -x "$WIZENG" ]] || (cd "$ROOT" && nice cargo build --release -p wizeng >&2)

# best-of-RUNS wall seconds of "$@" (fails loudly on a non-zero exit)
best() {
    local best="" t s e
    for ((i = 0; i < RUNS; i++)); do
        s=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; echo "nan"; return; }
        e=$(date +%s%N)
        t=$(( (e - s) / 1000 ))
        [[ -z "$best" || $t -lt $best ]] && best=$t
    done
    awk -v t="$best" 'BEGIN { printf "%.3f", t / 1e6 }'
}

printf "%-16s %9s %9s %7s\n" program wizeng wasmi ratio
logsum=0; n=0
for p in "${PROGS[@]}"; do
    w=$(best "$WIZENG" --mode=int "$BENCH_DIR/$p.wasm")
    if [[ -n "${NO_WASMI:-}" ]]; then
        printf "%-16s %9s\n" "$p" "$w"; continue
    fi
    m=$(best "$WASMI" "$BENCH_DIR/$p.wasm")
    r=$(awk -v a="$w" -v b="$m" 'BEGIN { printf "%.2f", a / b }')
    printf "%-16s %9s %9s %7s\n" "$p" "$w" "$m" "$r"
    logsum=$(awk -v s="$logsum" -v r="$r" 'BEGIN { printf "%.6f", s + log(r) }')
    n=$((n + 1))
done
[[ $n -gt 0 ]] && awk -v s="$logsum" -v n="$n" 'BEGIN { printf "geomean wizeng/wasmi: %.2f\n", exp(s / n) }'
