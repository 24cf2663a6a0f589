#!/usr/bin/env bash
# wgmma split-K: sweeps of the new kernels, then every kernel on shapes.txt.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench; S=$out/summary.txt
for f in ptx/w2_s64.ptx ptx/w2_s128.ptx ptx/w3_*.ptx; do n=$(basename $f .ptx)
  timeout 40 $B $f --sweep random --count 15 --max-size 1500 --seed 162 > $out/logs/$n.txt 2>&1
  echo "sweep $n rc=$? $(grep -E 'results|FAIL|rror' $out/logs/$n.txt | head -3 | tr '\n' ';' | cut -c1-250)" >> $S
done
ks=$(ls ptx/w1_s{2,4,8,16,32}.ptx ptx/w2_s{1,2,4,8,16,32,64,128}.ptx ptx/w3_s{1,4,16,64,128}.ptx ptx/hopper-f16-dynamic.ptx)
timeout 420 $B --shapes shapes.txt $ks --runs 5 --warmup 1 --results $out/results.tsv --shape-summary $out/shapes.csv --budget 380 > $out/shapes.txt 2>&1
echo "shapes rc=$?" >> $S
cat $S; grep -A30 "best" $out/shapes.txt | tail -15
cd $out && tar czf logs.tgz logs && rm -rf logs
