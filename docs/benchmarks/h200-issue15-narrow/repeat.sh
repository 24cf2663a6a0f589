#!/usr/bin/env bash
# The f16 family twice more, each in a process of its own.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
for i in 2 3; do
  timeout 270 ./gemm-bench --shapes shapes.txt f16-family.ptx --runs 5 --warmup 1 --shape-summary $out/repeat$i-f16.csv > $out/repeat$i-f16.txt 2>&1; echo "run $i rc=$?"
  grep -E "^shapes|^geometric" $out/repeat$i-f16.txt
  awk -F, 'NR>1 && $6<0.5' $out/repeat$i-f16.csv
done
