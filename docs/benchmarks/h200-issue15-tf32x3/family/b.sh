#!/usr/bin/env bash
# The f32 family (tf32x3 part; each variant in its own index width), twice,
# each in a process of its own, and a random sweep of it.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
for i in 1 2; do
  timeout 230 ./gemm-bench --shapes shapes.txt f32-family.ptx --runs 3 --warmup 1 --shape-summary $out/fam$i-f32.csv > $out/fam$i-f32.txt 2>&1; echo "f32 $i rc=$?"
  grep -E "^shapes|^geometric" $out/fam$i-f32.txt; awk -F, 'NR>1 && $6<0.5' $out/fam$i-f32.csv
done
timeout 50 ./gemm-bench f32-family.ptx --sweep random --count 40 --max-size 3000 --seed 23 > $out/sweep.log 2>&1; echo "sweep rc=$? $(tail -1 $out/sweep.log)"
