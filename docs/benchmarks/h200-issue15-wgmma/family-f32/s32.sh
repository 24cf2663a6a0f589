#!/usr/bin/env bash
# The f32 hand-search schedules as gemmc-tune candidates (--also), on the odd-ld problems.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
timeout 300 ./gemm-bench --shapes odd-shapes.txt s32/*.ptx --runs 3 --warmup 1 --results $out/results-s32.tsv > $out/s32.txt 2>&1; echo "s32 rc=$?"; grep -A14 "best kernel" $out/s32.txt
