#!/usr/bin/env bash
# The cost of the activations on wgmma at 8192^3 (f16, FP8 per tensor,
# and FP8 per tensor summed on the tensor cores by ping-pong consumers):
# each kernel of f16_gelu.gemm, f8_gelu.gemm and f8pp_gelu.gemm with every
# activation, beside cuBLAS(Lt) without an epilogue (the host applies it to
# cuBLAS's result, untimed), in three processes; then
# examples/hopper-fp8-gelu.gemm through 300 random sizes, memcheck on 4.
#   benchmarks/activation-cost/run.sh prepare DIR   # here: the PTX
#   bash DIR/run.sh run                             # there: $OUT
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  here=$(cd "$(dirname "$0")" && pwd)
  dir=$2 gemmc=${GEMMC:-$here/../../build/bin/gemmc}
  mkdir -p "$dir/bin"
  cp "$here/../../build/bin/gemm-bench" "$dir/bin/" && cp "$0" "$dir/run.sh"
  "$gemmc" --arch=sm_90a "$here/../../examples/hopper-fp8-gelu.gemm" \
    -o "$dir/hopper-fp8-gelu.ptx" || exit 1
  for t in f16 f8 f8pp; do
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
for i in 1 2 3; do for t in f16 f8 f8pp; do for act in none relu gelu gelu-tanh silu; do
  $B --runs 20 --activation $act ${t}_$act.ptx 2>&1 | grep "PASS\|FAIL\|SKIP" |
    grep -v "^cuBLAS" | awk -v a=$act '{print a, $1, $3, $4, $5, $7}'
done; done; done | tee "$O/activation-cost.txt"
$B --sweep random --count 300 --max-size 2000 --activation gelu \
  hopper-fp8-gelu.ptx 2>&1 | tail -3 | tee "$O/fp8-gelu-sweep.txt"
compute-sanitizer --tool memcheck $B --sweep random --count 4 --max-size 700 \
  --activation gelu hopper-fp8-gelu.ptx 2>&1 | tail -4 | tee -a "$O/fp8-gelu-sweep.txt"
