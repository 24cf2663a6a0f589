#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
$B --runs 10 --size 8192 ptx/tensorcore-tf32-dynamic-split.ptx ptx/static-tensorcore-tf32-tuned-8192.ptx > $O/logs/tf32-split-8192.txt 2>&1
( timeout 300 $B --sweep random --count 300 --seed 7004 ptx/tensorcore-tf32-dynamic-split.ptx ptx/v-ts_c.ptx ptx/v-ts_epi.ptx > $O/logs/sweep-tf32-split.txt 2>&1; echo "rc $?" >> $O/logs/sweep-tf32-split.txt ) 
cd $O && tar czf tf32split.tgz logs && rm -rf logs
