#!/usr/bin/env bash
# Issue 14 (second part): clusters with TMA multicast and the TMA-store
# epilogue. verify: random sweeps of every variant, the fuzzer's Hopper
# schedules, compute-sanitizer. perf: headline figures in three processes,
# the ladder, sizes at launch and the odd size.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
B=bin/gemm-bench
S=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
run() { local name=$1 t=$2; shift 2
  timeout $t $B "$@" > "$out/logs/$name.txt" 2>&1
  echo "$name rc=$? $(grep -E 'persistent grid' $out/logs/$name.txt | sed 's/.*: //') $(grep -E 'x[0-9]+ +(PASS|FAIL)' $out/logs/$name.txt | grep -v cuBLAS | tr -s ' ' | cut -d' ' -f2-7)" >> $S; }
sweep() { local name=$1 t=$2; shift 2
  timeout $t $B "$@" > "$out/logs/$name.txt" 2>&1
  echo "sweep $name rc=$? $(grep -E 'results|FAIL|rror' $out/logs/$name.txt | head -2 | tr '\n' ';' | cut -c1-240)" >> $S; }
case "${1:-all}" in
verify)
for f in ptx/v_*.ptx ptx/p_*dyn*.ptx; do n=$(basename $f .ptx)
  extra=""; [ $n = v_f16_1c ] && extra=--no-cublas
  sweep $n 100 $f --sweep random --count 40 --max-size 1500 --seed 1402 $extra
done
fails=0; n=0
for f in fuzz/*.ptx; do n=$((n+1))
  extra=""; grep -q "c=f32" $f && grep -q "a=f16\|a=bf16" $f && extra=--no-cublas
  if grep -q "m=?" $f; then timeout 30 $B $f --sweep random --count 4 --max-size 700 --seed 142 $extra > "$out/logs/fz-$(basename $f).txt" 2>&1
  else timeout 30 $B $f --runs 1 --warmup 0 $extra > "$out/logs/fz-$(basename $f).txt" 2>&1; fi
  rc=$?; [ $rc = 0 ] || { fails=$((fails+1)); echo "fuzz FAIL $f rc=$rc $(grep -E 'FAIL|rror' $out/logs/fz-$(basename $f).txt | head -1 | cut -c1-200)" >> $S; }
done
echo "fuzz: $n Hopper schedules, $fails failures" >> $S
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  for k in p_f16_dyn_c2 v_f16_small v_bf16_ep; do
  timeout 100 $CS --tool $tool --error-exitcode 9 $B ptx/$k.ptx --sweep random --count 2 --max-size 300 --seed 143 --no-cublas > "$out/logs/cs-$tool-$k.txt" 2>&1
  echo "sanitizer $tool $k rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/logs/cs-$tool-$k.txt" | tail -1)" >> $S
  done
done
;;
perf)
for i in 1 2 3; do
  for p in f16 bf16 tf32; do run $p-8192-$i 60 ex/hopper-$p.ptx --runs 30; done
  for p in f16 bf16; do run $p-4096-$i 60 ptx/p_${p}_4k_c2.ptx --runs 50; done
done
for p in f16 bf16; do for v in base tc cl c2 c2n 4k_base; do run ladder-$p-$v 60 ptx/p_${p}_$v.ptx --runs 30; done; done
run tf32-base 60 ptx/p_tf32_base.ptx --runs 20
for p in f16 bf16 tf32; do run dyn-$p 60 ex/hopper-$p-dynamic.ptx --size 8192x8192x8192 --runs 20; done
run dyn-c2-f16 60 ptx/p_f16_dyn_c2.ptx --size 8192x8192x8192 --runs 20
run odd-f16 60 ex/hopper-f16-dynamic.ptx --size 8191x8193x8190 --lda 8192 --ldb 8200 --ldc 8200 --runs 10
run odd-c2-f16 60 ptx/p_f16_dyn_c2.ptx --size 8191x8192x8190 --lda 8192 --ldb 8200 --ldc 8200 --runs 10
;;
esac
tar czf "$out/logs-${1:-all}.tgz" -C "$out" logs && rm -rf "$out/logs"
cat $S
