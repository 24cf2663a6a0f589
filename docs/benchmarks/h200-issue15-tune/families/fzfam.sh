#!/usr/bin/env bash
# The tuned families and the suite's seed-1 fuzz families on the GPU: a
# random sweep each (sizes and leading dimensions drawn for the whole
# family, each case run on the variant the rule picks, verified against
# cuBLAS and fp64).
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench; S=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
start=$SECONDS
for f in tuned/*.ptx; do
  timeout 150 $B $f --sweep random --count 60 --max-size 2500 --seed 15 > "$out/logs/$(basename $f).txt" 2>"$out/logs/$(basename $f).err"
  rc=$?; log=$out/logs/$(basename $f).txt
  echo "$f rc=$rc, variants used: $(grep -oE 'f(16|32)_tuned_[a-z0-9_]+' $log | sort -u | wc -l), $(tail -1 $log)" >> $S
done
fails=0; n=0
for f in fzfam/*.ptx; do
  [ $((SECONDS - start)) -gt 540 ] && break
  n=$((n+1)); extra=""; grep -q "c=f32" $f && grep -q "a=f16\|a=bf16" $f && extra=--no-cublas
  timeout 30 $B $f --sweep random --count 8 --max-size 1200 --seed 158 $extra > "$out/logs/$(basename $f).txt" 2>&1
  rc=$?; [ $rc = 0 ] || { fails=$((fails+1)); echo "FAIL $f rc=$rc $(grep -E 'FAIL|rror' $out/logs/$(basename $f).txt | head -1 | cut -c1-200)" >> $S; }
done
echo "fuzz seed 1 families: $n of $(ls fzfam | wc -l) swept, $fails failures" >> $S
cat $S; cd $out && tar czf logs.tgz logs && rm -rf logs
