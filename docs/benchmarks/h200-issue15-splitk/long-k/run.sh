#!/usr/bin/env bash
cd "$(dirname "$0")/.."
out=${OUT:-out}; mkdir -p "$out"
B=bin/gemm-bench
for f in lk/*.ptx; do timeout 60 $B $f --sweep random --count 20 --max-size 1200 --seed 157 > $out/sweep-$(basename $f .ptx).txt 2>&1; echo "sweep $f rc=$? $(tail -1 $out/sweep-$(basename $f .ptx).txt)" >> $out/rc.txt; done
timeout 200 $B --shapes lk/longk.txt fam/f32_64_s32.ptx fam/f32_32_s64.ptx lk/f32_64_s64.ptx lk/f32_32_s128.ptx --runs 5 --warmup 1 --shape-summary $out/lk32.csv > $out/lk32.txt 2>&1; echo "lk32 rc=$?" >> $out/rc.txt
timeout 200 $B --shapes lk/longk.txt fam/f16_64_s32.ptx lk/f16_64_s128.ptx fam/f16_128_s4.ptx --runs 5 --warmup 1 --shape-summary $out/lk16.csv > $out/lk16.txt 2>&1; echo "lk16 rc=$?" >> $out/rc.txt
python3 sh/plot-shapes.py $out/shapes.png f32=../docs/benchmarks/h200-issue15-splitk/f32.csv f16=../docs/benchmarks/h200-issue15-splitk/f16.csv >> $out/rc.txt 2>&1; echo "plot rc=$?" >> $out/rc.txt
cat $out/rc.txt; grep -E "^geometric" $out/lk*.txt
