#!/usr/bin/env bash
# Issue 15: the shape set with the split-K kernels beside the earlier ones.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
B=bin/gemm-bench
which=${1:-f32}
if [ $which = f32 ]; then
  timeout 560 $B --shapes sh/shapes.txt sh/sgemm-dynamic.ptx sh/sgemm-any-ld.ptx sk/s_sgemm8.ptx fam/f32_64_s8.ptx fam/f32_64_s32.ptx fam/f32_32_s64.ptx fam/f32_any_s16.ptx --runs 5 --warmup 1 --shape-summary $out/f32.csv > $out/f32.txt 2>$out/f32.err; echo "f32 rc=$?" >> $out/rc.txt
else
  timeout 560 $B --shapes sh/shapes.txt sh/tensorcore-f16-dynamic.ptx sh/hopper-f16-dynamic.ptx sh/tensorcore-f16-any-ld.ptx fam/f16_64_s8.ptx fam/f16_64_s32.ptx fam/f16_128_s4.ptx fam/f16_any_s16.ptx --runs 5 --warmup 1 --shape-summary $out/f16.csv > $out/f16.txt 2>$out/f16.err; echo "f16 rc=$?" >> $out/rc.txt
fi
cat $out/rc.txt; grep -E "^shapes|^geometric|lowest|refused" $out/*.txt
