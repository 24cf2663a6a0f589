#!/usr/bin/env bash
# The suite's seed-1 split-K schedules (116) on the GPU.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench; S=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
fails=0; n=0
for f in fz1/*.ptx; do n=$((n+1))
  extra=""; grep -q "c=f32" $f && grep -q "a=f16\|a=bf16" $f && extra=--no-cublas
  if grep -q "=?" $f; then timeout 60 $B $f --sweep random --count 6 --max-size 900 --seed 158 $extra > "$out/logs/$(basename $f).txt" 2>&1
  else timeout 60 $B $f --runs 2 --warmup 1 $extra > "$out/logs/$(basename $f).txt" 2>&1; fi
  rc=$?; [ $rc = 0 ] || { fails=$((fails+1)); echo "FAIL $f rc=$rc $(grep -E 'FAIL|rror' $out/logs/$(basename $f).txt | head -1 | cut -c1-200)" >> $S; }
done
echo "fuzz seed 1: $n split-k schedules, $fails failures" >> $S
cat $S; cd $out && tar czf logs.tgz logs && rm -rf logs
