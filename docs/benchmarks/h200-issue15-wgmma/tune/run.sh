#!/usr/bin/env bash
# Hopper's part of gemmc-tune's f16 space (f16_w*) on the shape set,
# results appended (resumable) to $OUT/results-w.tsv.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
[ -f results-w.tsv ] && cp results-w.tsv "$out/results-w.tsv"
timeout ${2:-560} ./gemm-bench --shapes shapes.txt --results "$out/results-w.tsv" \
  --budget "${1:-500}" --runs 3 --warmup 1 w/*.ptx > "$out/tune-w.txt" 2> "$out/tune-w.err"
echo "rc=$?" >> "$out/tune-w.txt"
tail -2 "$out/tune-w.err"; wc -l "$out/results-w.tsv"; tail -4 "$out/tune-w.txt"
