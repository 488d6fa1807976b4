#!/usr/bin/env bash
# Times `whamm build` on a generated 300-probe script (one probe per opcode,
# cycling, plus a `wasm:opcode:*` probe), in release mode.
# Usage: scripts/bench-whamm.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
nice cargo build -q --release -p whamm-compiler --bin whamm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=target/release/whamm
ops=$($bin info --spec 'wasm:opcode:*:before' | grep -v '^ ' | sed 's/^wasm:opcode://')
{
  echo 'report var hits: map<u32, u64>;'
  echo 'var total: u64;'
  i=0
  while [ $i -lt 299 ]; do
    for op in $ops; do
      [ $i -ge 299 ] && break
      echo "wasm:opcode:$op:before / fid != $i / { hits[$i]++; total++; }"
      i=$((i+1))
    done
  done
  echo 'wasm:opcode:*:before { total = total + 1; }'
} > "$tmp/300.mm"
for _ in $(seq "$runs"); do
  /usr/bin/time -f "%e s, %M KiB max RSS" $bin build "$tmp/300.mm" -o "$tmp/300.wasm"
done
ls -l "$tmp/300.wasm" | awk '{print $5 " bytes"}'
