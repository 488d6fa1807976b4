#!/usr/bin/env bash
# Rebuild tests/programs/*.c into tests/programs/*.wasm with clang-16 for
# wasm32-wasi.  The .wasm files are committed, so CI needs no clang; rerun this
# after changing a program and commit the results.
#
#   NAME.wasm       -O2, bulk memory + sign-ext (memcpy/memset -> memory.copy/fill);
#                   for SIMD_PROGRAMS instead -O3 -msimd128 + bulk memory + sign-ext
#                   (Wasm SIMD: v128 autovectorised loops / wasm_simd128.h intrinsics)
#   NAME.O0.wasm    -O0 (plain locals/stack traffic), for the programs in O0_PROGRAMS
#   NAME.mvp.wasm   -O2 -mcpu=mvp (no post-MVP features), for MVP_PROGRAMS
#   NAME.sat.wasm   -O2 + non-trapping float-to-int (i32.trunc_sat_*), for SAT_PROGRAMS
#   NAME.g.wasm     -O1 -g, DWARF kept (source lines in reports), for DEBUG_PROGRAMS;
#                   file names relative to tests/programs
#
# Every variant of NAME must print exactly what the native build of NAME.c
# prints (engine/tests/programs.rs checks that).
#
# usage: scripts/build-test-programs.sh [NAME...]     (default: all)
# Toolchain (Debian): apt-get install -y clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/tests/programs"
CLANG="${CLANG:-clang-16}"
SYSROOT="${WASI_SYSROOT:-/usr}"

O0_PROGRAMS="recursion sort int64 indirect bulkmem strings"
MVP_PROGRAMS="int64 hash"
SAT_PROGRAMS="float"
SIMD_PROGRAMS="simd_auto simd_intrin"
DEBUG_PROGRAMS="sort indirect"

# Same FP rules as the native build in engine/tests/programs.rs.
BASE=(--target=wasm32-wasi --sysroot="$SYSROOT" -ffp-contract=off -Wall -Wextra
      -Wno-unused-parameter -Wl,-z,stack-size=1048576)
COMMON=("${BASE[@]}" -Wl,--strip-all)

if ! command -v "$CLANG" >/dev/null; then
    echo "error: $CLANG not found; install: apt-get install -y clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32" >&2
    exit 1
fi

in_list() { [[ " $2 " == *" $1 "* ]]; }

build() { # out flags... src
    local out="$1"; shift
    echo "  $(basename "$out")  ($*)" >&2
    nice "$CLANG" "${COMMON[@]}" "$@" -o "$out"
}

build_debug() { # out flags... src   (DWARF kept, paths relative to $DIR)
    local out="$1"; shift
    echo "  $(basename "$out")  ($*)" >&2
    nice "$CLANG" "${BASE[@]}" -g -fdebug-prefix-map="$DIR/=" "$@" -o "$out"
}

names=("$@")
if ((${#names[@]} == 0)); then
    for f in "$DIR"/*.c; do names+=("$(basename "$f" .c)"); done
fi

for n in "${names[@]}"; do
    src="$DIR/$n.c"
    [[ -f "$src" ]] || { echo "error: no $src" >&2; exit 1; }
    rm -f "$DIR/$n".*wasm
    if in_list "$n" "$SIMD_PROGRAMS"; then
        build "$DIR/$n.wasm" -O3 -msimd128 -mbulk-memory -msign-ext "$src"
    else
        build "$DIR/$n.wasm" -O2 -mbulk-memory -msign-ext "$src"
    fi
    if in_list "$n" "$O0_PROGRAMS"; then build "$DIR/$n.O0.wasm" -O0 "$src"; fi
    if in_list "$n" "$DEBUG_PROGRAMS"; then build_debug "$DIR/$n.g.wasm" -O1 "$src"; fi
    if in_list "$n" "$MVP_PROGRAMS"; then build "$DIR/$n.mvp.wasm" -O2 -mcpu=mvp "$src"; fi
    if in_list "$n" "$SAT_PROGRAMS"; then
        build "$DIR/$n.sat.wasm" -O2 -mbulk-memory -msign-ext -mnontrapping-fptoint "$src"
    fi
done
ls -l "$DIR"/*.wasm | awk '{s+=$5} END {print NR " wasm files, " s " bytes"}' >&2
