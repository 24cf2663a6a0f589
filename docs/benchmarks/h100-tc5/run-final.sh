#!/usr/bin/env bash
# Issue 6 final run: the tuned tensor-core examples beside cuBLAS.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out/logs
L=$out/logs
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw --format=csv | tee $L/gpu.txt
b() { name=$1; shift; timeout 120 bin/gemm-bench "$@" --csv $L/$name.csv --json $L/$name.json > $L/$name.log 2>&1; echo "== $name rc=$?"; grep -E "PASS|FAIL|rror" $L/$name.log | cut -c1-104; }
for e in f16 bf16 tf32; do
  b verify-$e --runs 10 k/$e-1024.ptx k/$e-ns.ptx k/$e-ns2.ptx
  for s in 4096 8192; do for r in 1 2 3; do b $e-$s-run$r --runs 30 k/$e-$s.ptx; done; done
done
b sgemm-4096 --runs 20 k/sgemm-4096.ptx
for t in memcheck racecheck; do for e in f16 bf16 tf32; do
  timeout 120 compute-sanitizer --tool $t bin/gemm-bench --runs 1 --warmup 0 --no-cublas k/$e-512.ptx > $L/$t-$e.log 2>&1; echo "$t $e rc=$?"; grep -E "SUMMARY" $L/$t-$e.log
done; done
tar czf $out/final-logs.tgz -C $out logs
