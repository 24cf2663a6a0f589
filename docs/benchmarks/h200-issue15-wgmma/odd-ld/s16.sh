#!/usr/bin/env bash
# The hand-found scalar f16 schedules as gemmc-tune candidates (--also), on the dense odd-ld problems.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
timeout 300 ./gemm-bench --shapes odd16-shapes.txt s16/*.ptx --runs 3 --warmup 1 --results $out/results-s16.tsv > $out/s16.txt 2>&1; echo "s16 rc=$?"; grep -A12 "best kernel" $out/s16.txt
