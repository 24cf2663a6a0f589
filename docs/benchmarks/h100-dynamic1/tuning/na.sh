#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
for i in 1 2; do
$B --runs 20 --size 4095x4097x4093 --lda 4096 --ldb 4100 --ldc 4100 ptx/sgemm-dynamic.ptx ptx/na-sgemm-dynamic.ptx > $O/logs/na-f32-awkward-$i.txt 2>&1
$B --runs 20 --size 4096 ptx/sgemm-dynamic.ptx ptx/na-sgemm-dynamic.ptx ptx/static-sgemm-best-4096.ptx > $O/logs/na-f32-4096-$i.txt 2>&1
done
for t in f16 bf16 tf32; do $B --runs 10 --size 8192 ptx/tensorcore-$t-dynamic.ptx ptx/na-tensorcore-$t-dynamic.ptx > $O/logs/na-$t-8192.txt 2>&1; done
$B --sweep random --count 60 --max-size 1500 --seed 21 ptx/na-sgemm-dynamic.ptx ptx/na-tensorcore-f16-dynamic.ptx ptx/na-tensorcore-bf16-dynamic.ptx ptx/na-tensorcore-tf32-dynamic.ptx > $O/logs/na-sweep.txt 2>&1; echo "rc $?" >> $O/logs/na-sweep.txt
cd $O && tar czf na.tgz logs && rm -rf logs
