#!/usr/bin/env bash
# Issue 15, the starting line: the shipped kernels with sizes at launch on
# the shape set (benchmarks/shapes.txt) beside cuBLAS, f32 and f16.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
B=bin/gemm-bench
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
timeout 280 $B --shapes sh/shapes.txt sh/sgemm-dynamic.ptx --runs 10 --warmup 2 --shape-summary $out/f32.csv > $out/f32.txt 2>$out/f32.err; echo "f32 rc=$?" >> $out/rc.txt
timeout 280 $B --shapes sh/shapes.txt sh/tensorcore-f16-dynamic.ptx sh/hopper-f16-dynamic.ptx --runs 10 --warmup 2 --shape-summary $out/f16.csv > $out/f16.txt 2>$out/f16.err; echo "f16 rc=$?" >> $out/rc.txt
python3 sh/plot-shapes.py $out/shapes.png f32=$out/f32.csv f16=$out/f16.csv > $out/plot.log 2>&1
tail -3 $out/f32.err $out/f16.err; cat $out/rc.txt; grep -E "^shapes|^geometric" $out/f32.txt $out/f16.txt
