#!/usr/bin/env bash
# Both families after the split-K sum became a loop, results kept as they come.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
for p in f16 f32; do
  timeout 250 ./gemm-bench --shapes shapes.txt $p-family.ptx --runs 3 --warmup 1 --results $out/final-$p.tsv --shape-summary $out/final-$p.csv > $out/final-$p.txt 2>&1; echo "$p rc=$?"
  grep -E "^shapes|^geometric" $out/final-$p.txt
done
