#!/usr/bin/env bash
# wgmma split-K: random sweeps (sizes, padded lds, beta), repeated launches.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench; S=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
for f in ptx/w*.ptx; do n=$(basename $f .ptx)
  extra=""; grep -q "c=f32" $f && extra=--no-cublas
  timeout 60 $B $f --sweep random --count 25 --max-size 1800 --seed 161 $extra > $out/logs/$n.txt 2>&1
  echo "sweep $n rc=$? $(grep -E 'results|FAIL|rror' $out/logs/$n.txt | head -3 | tr '\n' ';' | cut -c1-250)" >> $S
done
timeout 60 $B ptx/w1_s8.ptx ptx/w2_s5_ep.ptx --size 1000x776x20000 --runs 300 --warmup 2 > $out/logs/reuse.txt 2>&1
echo "reuse rc=$? $(grep -E 'PASS|FAIL' $out/logs/reuse.txt | tr -s ' ' | cut -d' ' -f1-4 | tr '\n' ';')" >> $S
timeout 60 $B ptx/w1_s16.ptx ptx/w2_s16.ptx ptx/hopper-f16-dynamic.ptx --size 256x256x131072,64x64x100000 --runs 5 --warmup 1 > $out/logs/longk.txt 2>&1
echo "longk rc=$?" >> $S; grep -E "x" $out/logs/longk.txt | grep -E "PASS|FAIL" | cut -c1-150 >> $S
cat $S
cd $out && tar czf logs.tgz logs && rm -rf logs
