#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
$B --runs 10 --size 8192 ptx/tensorcore-f16-dynamic.ptx ptx/p-k32s3.ptx ptx/p-k32s4.ptx ptx/p-k32s3u1.ptx ptx/p-k64nr.ptx ptx/p-t128k32.ptx > $O/logs/tune-8192.txt 2>&1
$B --runs 10 --size 8191x8193x8190 --lda 8192 --ldb 8200 --ldc 8200 ptx/tensorcore-f16-dynamic.ptx ptx/p-k32s3.ptx ptx/p-k32s4.ptx > $O/logs/tune-awkward.txt 2>&1
$B --runs 10 --size 4096 ptx/tensorcore-f16-dynamic.ptx ptx/p-k32s3.ptx ptx/p-k32s4.ptx ptx/p-t128k32.ptx > $O/logs/tune-4096.txt 2>&1
cd $O && tar czf tune.tgz logs && rm -rf logs
