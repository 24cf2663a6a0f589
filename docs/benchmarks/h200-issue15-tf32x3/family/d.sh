#!/usr/bin/env bash
# The f32 family a third time and the f16 family, each in a process of its own.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
timeout 230 ./gemm-bench --shapes shapes.txt f32-family.ptx --runs 3 --warmup 1 --shape-summary $out/fam3-f32.csv > $out/fam3-f32.txt 2>&1; echo "f32 3 rc=$?"
grep -E "^shapes|^geometric" $out/fam3-f32.txt; awk -F, 'NR>1 && $6<0.5' $out/fam3-f32.csv
timeout 300 ./gemm-bench --shapes shapes.txt f16-family.ptx --runs 5 --warmup 1 --shape-summary $out/fam-f16.csv > $out/fam-f16.txt 2>&1; echo "f16 rc=$?"
grep -E "^shapes|^geometric" $out/fam-f16.txt; awk -F, 'NR>1 && $6<0.5' $out/fam-f16.csv
