#!/usr/bin/env bash
# split-K verification: random sweeps of each split-K kernel (the empty-split
# fix included), the fuzzer's split-K schedules, the repeated-launch check.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench
S=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
sweep() { local name=$1 t=$2; shift 2
  timeout $t $B "$@" > "$out/logs/$name.txt" 2>&1
  echo "sweep $name rc=$? $(grep -E 'results|FAIL|rror' $out/logs/$name.txt | head -3 | tr '\n' ';' | cut -c1-300)" >> $S; }
for f in sk/*.ptx fam/*.ptx; do n=$(basename $f .ptx)
  if grep -q "m=?" $f; then sweep $n 100 $f --sweep random --count 30 --max-size 1500 --seed 152
  else sweep $n 60 $f --runs 2 --warmup 1; fi
done
fails=0; n=0
for f in fz21/*.ptx; do n=$((n+1))
  extra=""; grep -q "c=f32" $f && grep -q "a=f16\|a=bf16" $f && extra=--no-cublas
  if grep -q "=?" $f; then timeout 60 $B $f --sweep random --count 6 --max-size 900 --seed 155 $extra > "$out/logs/fz-$(basename $f).txt" 2>&1
  else timeout 60 $B $f --runs 2 --warmup 1 $extra > "$out/logs/fz-$(basename $f).txt" 2>&1; fi
  rc=$?; [ $rc = 0 ] || { fails=$((fails+1)); echo "fuzz FAIL $f rc=$rc $(grep -E 'FAIL|rror' $out/logs/fz-$(basename $f).txt | head -1 | cut -c1-200)" >> $S; }
done
echo "fuzz: $n split-k schedules, $fails failures" >> $S
timeout 60 $B sk/s_sgemm8.ptx fam/f16_64_s32.ptx --size 777x336x2048 --runs 300 --warmup 2 > $out/logs/reuse.txt 2>&1
echo "reuse rc=$? $(grep -E 'PASS|FAIL' $out/logs/reuse.txt | tr -s ' ' | cut -d' ' -f1-4 | tr '\n' ';')" >> $S
cd $out && tar czf logs.tgz logs && rm -rf logs
