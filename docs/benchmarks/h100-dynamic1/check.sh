#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
# the ctest gpu-gemmc-sweep command
$B --sweep random --count 40 --max-size 1000 --seed 1 ptx/gpu-sgemm-dynamic.ptx ptx/gpu-tensorcore-f16-dynamic.ptx ptx/gpu-tensorcore-bf16-dynamic.ptx ptx/gpu-tensorcore-tf32-dynamic.ptx > $O/logs/ctest-sweep.txt 2>&1; echo "rc $?" >> $O/logs/ctest-sweep.txt
# static sizes, alpha-beta, M = 795 (the last block's second warp row past M)
compute-sanitizer --print-limit 10 $B --runs 1 --warmup 0 --alpha 1.2 --beta 0.5 ptx/static-ab795.ptx > $O/logs/memcheck-static-ab795.txt 2>&1; echo "rc $?" >> $O/logs/memcheck-static-ab795.txt
cd $O && tar czf check.tgz logs && rm -rf logs
