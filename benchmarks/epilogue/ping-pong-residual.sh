#!/usr/bin/env bash
# What R (`residual = add`) costs on ping-pong consumers (f16 128x192x64,
# each consumer a whole tile; 240 registers with R) beside the cooperative
# 128x256 cluster kernels (hp_*), each kernel in its own process beside
# cuBLAS, two rounds; then 100 random cases through pp_res.
#   benchmarks/epilogue/ping-pong-residual.sh prepare DIR   # here
#   bash DIR/ping-pong-residual.sh                          # there: $OUT
# Results: benchmarks/results/h100-issue33/residual-ping-pong.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/../.." && pwd) dir=${2:?folder}
  mkdir -p "$dir/k"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  for k in hp_plain hp_res pp_plain pp_res; do
    "$root/build/bin/gemmc" --arch=sm_90a "$root/benchmarks/epilogue/$k.gemm" \
      -o "$dir/k/$k.ptx" 2> /dev/null || exit 1
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt"
for s in 8192x8192x8192 4096x4096x4096 16384x4096x4096 4096x14336x4096; do
  for rep in 1 2; do
    line="$s rep $rep:"
    for k in hp_plain hp_res pp_plain pp_res; do
      ./gemm-bench --size $s --runs 30 --warmup 5 --csv "$O/x.csv" k/$k.ptx > /dev/null 2>&1
      line="$line $(python3 -c 'import csv,sys; r=[x for x in csv.DictReader(open(sys.argv[1]))]; print(" ".join(f"{x["kernel"]} {x["status"]} {x["ms"]}" for x in r))' "$O/x.csv");"
    done
    echo "$line" | tee -a "$O/cost.txt"
  done
done
rm -f "$O/x.csv"
./gemm-bench --sweep random --count 100 --max-size 1500 k/pp_res.ptx 2>&1 | grep -a "results," > "$O/sweep.txt"
cat "$O/sweep.txt"
