#!/usr/bin/env bash
# Issue 14: the Hopper kernels verified (300-case sweeps per precision, the
# fuzzer's Hopper schedules, compute-sanitizer), then timed beside cuBLAS:
# headline figures in three processes, the ladder, the odd size.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench
S=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
run() { local name=$1 t=$2; shift 2
  timeout $t $B "$@" > "$out/logs/$name.txt" 2>&1
  echo "$name rc=$? $(grep -E '^(hopper|ladder|v_)' "$out/logs/$name.txt" | awk '{print $2, $3, $4, $5, $6}' | tr '\n' ';' | cut -c1-300)" >> $S; }
# The fuzzer's Hopper schedules: each verified (sizes at launch: 4 random cases).
fails=0; n=0
for f in fuzz/*.ptx; do n=$((n+1))
  if grep -q "m=?" $f || grep -q "k=?" $f; then timeout 20 $B $f --sweep random --count 4 --max-size 700 --seed 142 > "$out/logs/fz-$(basename $f).txt" 2>&1
  else timeout 20 $B $f --runs 1 --warmup 0 > "$out/logs/fz-$(basename $f).txt" 2>&1; fi
  rc=$?; [ $rc = 0 ] || { fails=$((fails+1)); echo "fuzz FAIL $f rc=$rc" >> $S; }
done
echo "fuzz: $n Hopper schedules, $fails failures" >> $S
# compute-sanitizer on the dynamic kernel (small sizes) and a static one.
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  timeout 150 $CS --tool $tool --error-exitcode 9 $B ptx/hopper-f16-dynamic.ptx --sweep random --count 2 --max-size 300 --seed 143 --no-cublas > "$out/logs/cs-$tool.txt" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/logs/cs-$tool.txt" | tail -1)" >> $S
done
tar czf "$out/logs.tgz" -C "$out" logs && rm -rf "$out/logs"
cat $S
