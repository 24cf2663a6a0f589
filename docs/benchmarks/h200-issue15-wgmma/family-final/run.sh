#!/usr/bin/env bash
# The f16 family with Hopper's part (wgmma split-K): timed as one kernel over
# the shape set beside cuBLAS, then a random sweep through the rule of choice.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
timeout 330 ./gemm-bench --shapes shapes.txt f16-family.ptx --runs 5 --warmup 1 --shape-summary $out/fam-f16.csv > $out/fam-f16.txt 2>$out/fam-f16.err; echo "fam-f16 rc=$?"
grep -E "^shapes|^geometric" $out/fam-f16.txt
timeout 150 ./gemm-bench f16-family.ptx --sweep random --count 60 --max-size 2500 --seed 15 > $out/sweep.txt 2>&1; echo "sweep rc=$? $(tail -1 $out/sweep.txt)"
python3 plot-shapes.py $out/fam-f16.png "f16 family now=$out/fam-f16.csv" "fourth step=old-fam-f16.csv" > $out/plot.txt 2>&1; echo "plots rc=$?"
