#!/usr/bin/env bash
# The f32 family selected again (K > 65536 apart, the odd-ld hand search's
# schedules among the candidates): timed as one kernel, then a random sweep.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
timeout 330 ./gemm-bench --shapes shapes.txt f32-family.ptx --runs 5 --warmup 1 --shape-summary $out/fam-f32.csv > $out/fam-f32.txt 2>$out/fam-f32.err; echo "fam-f32 rc=$?"
grep -E "^shapes|^geometric" $out/fam-f32.txt
timeout 150 ./gemm-bench f32-family.ptx --sweep random --count 60 --max-size 2500 --seed 15 > $out/sweep-f32.txt 2>&1; echo "sweep rc=$? $(tail -1 $out/sweep-f32.txt)"
python3 plot-shapes.py $out/fam-f32.png "f32 family now=$out/fam-f32.csv" "fourth step=old-fam-f32.csv" > $out/plot.txt 2>&1; echo "plots rc=$?"
