#!/usr/bin/env bash
# gemmc-tune's GPU step: every candidate on every problem of the shape set,
# beside cuBLAS, results appended (resumable) to $OUT/results.tsv.
cd "$(dirname "$0")/.."
which=$1 budget=${2:-520}
out=${OUT:-out}; mkdir -p "$out"
[ -f tune/results-$which.tsv ] && cp tune/results-$which.tsv "$out/results-$which.tsv"
timeout ${3:-580} bin/gemm-bench --shapes sh/shapes.txt --results "$out/results-$which.tsv" \
  --budget "$budget" --runs 3 --warmup 1 tune/$which/*.ptx \
  > "$out/tune-$which.txt" 2> "$out/tune-$which.err"
echo "rc=$?" >> "$out/tune-$which.txt"
tail -3 "$out/tune-$which.err"; wc -l "$out/results-$which.tsv"; tail -5 "$out/tune-$which.txt"
