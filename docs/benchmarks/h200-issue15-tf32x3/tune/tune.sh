#!/bin/bash
cd $(dirname $0)
O=${OUT:-/tmp/out}; mkdir -p $O
./gemm-bench --shapes shapes.txt --results $O/r-32x.tsv --budget 480 --runs 3 --warmup 1 x/*.ptx > $O/tune.txt 2>&1
tail -5 $O/tune.txt
