#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out/logs; L=$out/logs
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader | tee $L/gpu.txt
b() { name=$1; shift; timeout 150 bin/gemm-bench "$@" --csv $L/$name.csv > $L/$name.log 2>&1; rc=$?; echo "== $name rc=$rc $(grep -c PASS $L/$name.log) PASS $(grep -c FAIL $L/$name.log) FAIL"; grep -E "FAIL|rror" $L/$name.log | head -5 | cut -c1-150; }
b f32-t1 --runs 3 t/f32-*-t1.ptx
b f32-t1col --runs 3 t/f32-*-t1col.ptx
b f32-t2 --runs 3 t/f32-*-t2.ptx
b f32-t3 --runs 3 t/f32-*-t3.ptx
b f32-t4 --runs 3 t/f32-*-t4.ptx
b f16 --runs 3 t/f16-*-t1.ptx t/f16-*-t2.ptx t/f16-tuned-t3.ptx
b bf16 --runs 3 t/bf16-tuned-t1.ptx t/bf16-tuned-t2.ptx t/bf16-tuned-t3.ptx
b tf32 --runs 3 t/tf32-tuned-t1.ptx t/tf32-tuned-t2.ptx t/tf32-tuned-t3.ptx
b perf-f32 --runs 20 t/f32-sgemm-best-perf.ptx t/f32-sgemm-best-ref.ptx
grep -E "PASS" $L/perf-f32.log | cut -c1-100
b perf-f16 --runs 20 t/f16-tuned-perf.ptx
grep -E "PASS" $L/perf-f16.log | cut -c1-100
b perf-bf16 --runs 20 t/bf16-tuned-perf.ptx
grep -E "PASS" $L/perf-bf16.log | cut -c1-100
timeout 100 compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas t/f16-tuned-t2.ptx t/f16-tuned-t3.ptx > $L/memcheck-f16.log 2>&1; echo "memcheck f16 rc=$?"; grep SUMMARY $L/memcheck-f16.log
timeout 100 compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas t/f32-sgemm-best-t2.ptx t/f32-naive-t4.ptx t/f32-double-buffered-t1col.ptx > $L/memcheck-f32.log 2>&1; echo "memcheck f32 rc=$?"; grep SUMMARY $L/memcheck-f32.log
tar czf $out/tails-logs.tgz -C $out logs
