#!/usr/bin/env bash
# The f32 family with the tf32x3 part: timed over the shape set, twice,
# each in a process of its own; the tuner's large-square winner at
# 4096^3 and 8192^3 in three processes; a random sweep of the family.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
for i in 1 2 3; do
  timeout 60 ./gemm-bench --size 4096,8192 f32_x1.ptx --runs 20 --warmup 3 > $out/square$i.txt 2>&1; echo "square $i rc=$?"; grep -E "^f32_x1|^cuBLAS" $out/square$i.txt | cut -c1-150
done
for i in 1 2; do
  timeout 230 ./gemm-bench --shapes shapes.txt f32-family.ptx --runs 3 --warmup 1 --shape-summary $out/fam$i-f32.csv > $out/fam$i-f32.txt 2>&1; echo "f32 $i rc=$?"
  grep -E "^shapes|^geometric" $out/fam$i-f32.txt; awk -F, 'NR>1 && $6<0.5' $out/fam$i-f32.csv
done
timeout 60 ./gemm-bench f32-family.ptx --sweep random --count 40 --max-size 3000 --seed 23 > $out/sweep-f32.txt 2>&1; echo "sweep rc=$? $(tail -1 $out/sweep-f32.txt)"
