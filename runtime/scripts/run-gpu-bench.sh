#!/usr/bin/env bash
# Runs on the GPU machine, from the folder scripts/prepare-gpu-run.sh made:
# the first GPU check of gemmc's PTX (gemm-check), then the benchmark of the
# hand-written PTX ladder and gemmc's kernels beside cuBLAS at 4096^3 and
# 8192^3 (gemm-bench), and a cuBLAS sanity run for f16, bf16 and tf32.
# Logs, CSV and JSON go to $OUT (or out/ beside this script).
set -uo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$dir/out}
mkdir -p "$out"
status=0

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw \
  --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
ldd "$dir/bin/gemm-bench" > "$out/ldd.txt"

"$dir/bin/gemm-check" "$dir"/gemmc/check/*.ptx 2>&1 | tee "$out/check.log" || status=1

for size in 4096 8192; do
  "$dir/bin/gemm-bench" --size $size "$dir"/ptx/*.ptx "$dir"/gemmc/$size/*.ptx \
    --csv "$out/bench-$size.csv" --json "$out/bench-$size.json" \
    2> "$out/progress-$size.log" | tee "$out/bench-$size.log" || status=1
done

for type in f16 bf16; do
  "$dir/bin/gemm-bench" --size 4096 --dtype $type 2>/dev/null | tail -4 || status=1
done
"$dir/bin/gemm-bench" --size 4096 --math tf32 2>/dev/null | tail -4 || status=1
exit $status
