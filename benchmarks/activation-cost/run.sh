#!/usr/bin/env bash
# The cost of the activations on wgmma at 8192^3 (f16, and FP8 per
# tensor): each kernel of f16_gelu.gemm and f8_gelu.gemm with every
# activation, beside cuBLAS(Lt) without an epilogue (the host applies it to
# cuBLAS's result, untimed), in two processes.
#   benchmarks/activation-cost/run.sh prepare DIR   # here: the PTX
#   bash DIR/run.sh run                             # there: $OUT
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  here=$(cd "$(dirname "$0")" && pwd)
  dir=$2 gemmc=${GEMMC:-$here/../../build/bin/gemmc}
  mkdir -p "$dir/bin"
  cp "$here/../../build/bin/gemm-bench" "$dir/bin/" && cp "$0" "$dir/run.sh"
  for t in f16 f8; do
    for act in none relu gelu gelu-tanh silu; do
      sed -e "s/activation = gelu/activation = $act/" \
        -e "s/kernel ${t}_gelu/kernel ${t}_${act//-/_}/" \
        "$here/${t}_gelu.gemm" > "$dir/${t}_$act.gemm"
      "$gemmc" --arch=sm_90a "$dir/${t}_$act.gemm" -o "$dir/${t}_$act.ptx" || exit 1
    done
  done
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
for i in 1 2; do for t in f16 f8; do for act in none relu gelu gelu-tanh silu; do
  $B --runs 20 --activation $act ${t}_$act.ptx 2>&1 | grep "PASS\|FAIL\|SKIP" |
    grep -v "^cuBLAS" | awk -v a=$act '{print a, $1, $3, $4, $5, $7}'
done; done; done | tee "$O/activation-cost.txt"
