#!/bin/bash
cd $(dirname $0)
O=${OUT:-/tmp/out}; mkdir -p $O
ls c/*.ptx | grep -v "_x" > list.txt
./gemm-bench --shapes missing.txt --results $O/r-miss.tsv --budget 500 --runs 3 --warmup 1 $(cat list.txt) > $O/miss.txt 2>&1
tail -4 $O/miss.txt
