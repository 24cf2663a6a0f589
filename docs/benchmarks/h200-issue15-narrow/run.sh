#!/usr/bin/env bash
# The reselected family of one precision ($1: f16 or f32) over the shape set
# beside cuBLAS, then a random sweep through the rule of choice, and a plot.
cd "$(dirname "$0")"
p=$1; out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
timeout 400 ./gemm-bench --shapes shapes.txt $p-family.ptx --runs 5 --warmup 1 --shape-summary $out/fam-$p.csv > $out/fam-$p.txt 2>$out/fam-$p.err; echo "fam-$p rc=$?"
grep -E "^shapes|^geometric" $out/fam-$p.txt
timeout 120 ./gemm-bench $p-family.ptx --sweep random --count 60 --max-size 2500 --seed 16 > $out/sweep-$p.txt 2>&1; echo "sweep rc=$? $(tail -1 $out/sweep-$p.txt)"
python3 plot-shapes.py $out/fam-$p.png "$p family now=$out/fam-$p.csv" "before=old-fam-$p.csv" > $out/plot.txt 2>&1; echo "plot rc=$?"
awk -F, 'NR>1 && $6<0.5' $out/fam-$p.csv
