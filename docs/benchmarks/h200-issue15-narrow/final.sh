#!/usr/bin/env bash
# Both families after the split-K sum became a loop: timed over the shape
# set (each in a process of its own), then random sweeps.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
for p in f16 f32; do
  timeout 230 ./gemm-bench --shapes shapes.txt $p-family.ptx --runs 3 --warmup 1 --shape-summary $out/final-$p.csv > $out/final-$p.txt 2>&1; echo "$p rc=$?"
  grep -E "^shapes|^geometric" $out/final-$p.txt; awk -F, 'NR>1 && $6<0.5' $out/final-$p.csv
done
for p in f16 f32; do
  timeout 45 ./gemm-bench $p-family.ptx --sweep random --count 30 --max-size 2000 --seed 17 > $out/sweep-$p.txt 2>&1; echo "sweep $p rc=$? $(tail -1 $out/sweep-$p.txt)"
done
