#!/bin/bash
cd $(dirname $0)
O=${OUT:-/tmp/out}; mkdir -p $O
X="x3_ku.ptx x3_gu.ptx x3_ou.ptx x3_iu.ptx x3_tu.ptx x3_t.ptx x3_m.ptx x3_k.ptx"
./gemm-bench --size 4096 ref_sgemm-best.ptx $X --runs 20 --warmup 3 > $O/b4096.txt 2>&1
./gemm-bench --size 8192 ref_best8k.ptx $X --runs 10 --warmup 2 > $O/b8192.txt 2>&1
./gemm-bench --sweep random --count 40 --max-size 2500 x3_ku.ptx x3_ou.ptx x3_tu.ptx > $O/sweep.txt 2>&1
echo done >> $O/sweep.txt
