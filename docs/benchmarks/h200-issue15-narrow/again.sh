#!/usr/bin/env bash
# Both families again, each in a process of its own (headline repeats).
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
for p in f32 f16; do
  timeout 280 ./gemm-bench --shapes shapes.txt $p-family.ptx --runs 5 --warmup 1 --shape-summary $out/again-$p.csv > $out/again-$p.txt 2>&1; echo "$p rc=$?"
  grep -E "^shapes|^geometric" $out/again-$p.txt
  awk -F, 'NR>1 && $6<0.5' $out/again-$p.csv
done
