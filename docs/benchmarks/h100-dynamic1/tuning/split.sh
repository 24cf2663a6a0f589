#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
$B --runs 20 --size 4095x4097x4093 --lda 4096 --ldb 4100 --ldc 4100 ptx/sgemm-dynamic.ptx ptx/sp-sgemm-dynamic.ptx > $O/logs/split-f32-awkward.txt 2>&1
$B --runs 20 --size 4096 ptx/sgemm-dynamic.ptx ptx/sp-sgemm-dynamic.ptx > $O/logs/split-f32-4096.txt 2>&1
$B --runs 10 --size 8191x8193x8190 --lda 8192 --ldb 8200 --ldc 8200 ptx/tensorcore-f16-dynamic.ptx ptx/sp-tensorcore-f16-dynamic.ptx > $O/logs/split-f16-awkward.txt 2>&1
for t in f16 bf16 tf32; do $B --runs 10 --size 8192 ptx/tensorcore-$t-dynamic.ptx ptx/sp-tensorcore-$t-dynamic.ptx > $O/logs/split-$t-8192.txt 2>&1; done
for t in f16 tf32; do $B --runs 10 --size 4096 ptx/tensorcore-$t-dynamic.ptx ptx/sp-tensorcore-$t-dynamic.ptx > $O/logs/split-$t-4096.txt 2>&1; done
timeout 200 $B --sweep random --count 80 --seed 31 ptx/sp-sgemm-dynamic.ptx ptx/sp-tensorcore-f16-dynamic.ptx ptx/sp-tensorcore-bf16-dynamic.ptx ptx/sp-tensorcore-tf32-dynamic.ptx > $O/logs/split-sweep.txt 2>&1; echo "rc $?" >> $O/logs/split-sweep.txt
cd $O && tar czf split.tgz logs && rm -rf logs
