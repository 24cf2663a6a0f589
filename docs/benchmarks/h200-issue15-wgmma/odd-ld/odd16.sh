#!/usr/bin/env bash
# A hand search of f16 schedules with scalar accesses on the dense odd-ld problems.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
timeout 400 ./gemm-bench --shapes ${SHAPES:-odd16-shapes.txt} odd16/*.ptx --runs 5 --warmup 1 --results $out/odd16-results.tsv > $out/odd16.txt 2>&1; echo "odd16 rc=$?"; grep -A12 "best kernel" $out/odd16.txt
