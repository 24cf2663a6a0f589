#!/usr/bin/env bash
# Issue 15: the any-leading-dimension fallbacks verified (random sweeps),
# then the shape set with them beside the vectorised kernels.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
B=bin/gemm-bench
which=${1:-f32}
if [ $which = f32 ]; then
  timeout 100 $B --sweep random --count 40 --max-size 1500 --seed 1501 sh/sgemm-any-ld.ptx sh/tensorcore-f16-any-ld.ptx > $out/sweep.txt 2>&1; echo "sweep rc=$? $(tail -1 $out/sweep.txt)" > $out/rc.txt
  timeout 420 $B --shapes sh/shapes.txt sh/sgemm-dynamic.ptx sh/sgemm-any-ld.ptx --runs 10 --warmup 2 --shape-summary $out/f32.csv > $out/f32.txt 2>/dev/null; echo "f32 rc=$?" >> $out/rc.txt
else
  timeout 500 $B --shapes sh/shapes.txt sh/tensorcore-f16-dynamic.ptx sh/hopper-f16-dynamic.ptx sh/tensorcore-f16-any-ld.ptx --runs 10 --warmup 2 --shape-summary $out/f16.csv > $out/f16.txt 2>/dev/null; echo "f16 rc=$?" >> $out/rc.txt
fi
cat $out/rc.txt; grep -E "^shapes|^geometric" $out/*.txt
