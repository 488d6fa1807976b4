#!/usr/bin/env bash
# SIMD benchmark: the kernels of scripts/bench/simd_kernels.c built scalar
# (-O2) and vectorised (-O3 -msimd128), run by wizeng's interpreter and JIT
# and by the Wasmtime CLI, in one run. The question it answers (issue 13): is
# a SIMD kernel interpreted at least as fast as its scalar version?
#
# usage: scripts/bench-simd.sh [KERNEL...]     (default: saxpy dot bright sad mat4)
# env:
#   RUNS=5            best of N runs per cell
#   KERNEL_ROUNDS=N   rounds per kernel (default the program's 400; the JIT runs
#                     400 in about a millisecond, so compare it with Wasmtime at 20000+)
#   WIZENG="cmd ..."  engine command (default target/release/wizeng; built if missing)
#   WASMTIME="cmd"    Wasmtime CLI (default: `wasmtime` on PATH; column left out if none)
#   WASMTIME_PY=1     also Wasmtime through its Python API (the venv's `wasmtime`,
#                     scripts/venv.sh; run time measured in-process, so compared
#                     with our --metrics run time directly); WASMTIME_PY=0 skips it
#   WASMI="cmd"       wasmi CLI with SIMD (`cargo install wasmi_cli --features simd`,
#                     2.0.0 builds with rustc 1.95;
#                     default: `wasmi` on PATH; column left out if none)
#   CLANG=clang-16    C compiler for wasm32-wasi (apt-get install -y clang-16 lld-16 wasi-libc)
#   WASI_SYSROOT=/usr
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLANG="${CLANG:-clang-16}"
SYSROOT="${WASI_SYSROOT:-/usr}"
WIZENG="${WIZENG:-$ROOT/target/release/wizeng}"
if [[ ! -x "$WIZENG" ]]; then
    (cd "$ROOT" && nice cargo build --release -p wizeng) >&2
fi
command -v "$CLANG" >/dev/null || { echo "error: $CLANG not found" >&2; exit 1; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
SRC="$ROOT/scripts/bench/simd_kernels.c"
FLAGS=(--target=wasm32-wasi --sysroot="$SYSROOT" -ffp-contract=off -Wl,--strip-all)
"$CLANG" "${FLAGS[@]}" -O2 "$SRC" -o "$TMP/scalar.wasm"
"$CLANG" "${FLAGS[@]}" -O3 -msimd128 "$SRC" -o "$TMP/simd.wasm"

wt_py=()
if [[ "${WASMTIME_PY:-1}" != 0 ]]; then
    # shellcheck source=scripts/venv.sh
    source "$ROOT/scripts/venv.sh"
    wt_py=(--wasmtime-py "$PY")
fi

exec python3 "$ROOT/scripts/bench_simd.py" --wizeng "$WIZENG" "${wt_py[@]}" \
    --wasmtime "${WASMTIME:-$(command -v wasmtime || true)}" \
    --wasmi "${WASMI:-$(command -v wasmi || true)}" \
    --runs "${RUNS:-5}" --rounds "${KERNEL_ROUNDS:-0}" "$TMP/scalar.wasm" "$TMP/simd.wasm" "$@"
