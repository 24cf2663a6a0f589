#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
( timeout 250 $B --sweep random --count 100 --seed 7011 ptx/v-ab.ptx ptx/v-abc.ptx > $O/logs/sweep-f32-tt.txt 2>&1; echo "rc $?" >> $O/logs/sweep-f32-tt.txt ) &
( timeout 250 $B --sweep random --count 100 --seed 7012 ptx/v-mma-nn.ptx ptx/v-mma-tn.ptx ptx/v-mma-nt.ptx ptx/v-mma-tt.ptx > $O/logs/sweep-f16-layouts.txt 2>&1; echo "rc $?" >> $O/logs/sweep-f16-layouts.txt ) &
wait
cd $O && tar czf layouts.tgz logs && rm -rf logs
