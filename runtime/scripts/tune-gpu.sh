#!/usr/bin/env bash
# On the GPU machine: the tuning measurements of gemmc-tune's candidates.
#   tune-gpu.sh DIR SHAPES BUDGET [gemm-bench options]
# Each candidate DIR/*.ptx is verified then timed beside cuBLAS on each
# problem of SHAPES (the training part only: benchmarks/workloads-train.txt),
# where the cost model predicts it within 3x of the fastest (--prune 3),
# appended to $OUT/results.tsv (resumed from DIR/results.tsv, if there).
# The problems run in a shuffled order, so that a run cut short by its
# BUDGET (seconds) covers every model; run it again to go on.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$1 shapes=$2 budget=$3; shift 3
out=${OUT:-$dir/out}
mkdir -p "$out"
bench=${GEMM_BENCH:-$here/../bin/gemm-bench}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version \
  --format=csv > "$out/gpu.txt" 2>&1
[ -f "$dir/results.tsv" ] && cp "$dir/results.tsv" "$out/results.tsv"
grep -v '^#' "$shapes" | grep . | python3 -c '
import random, sys
lines = sys.stdin.readlines(); random.Random(1).shuffle(lines); sys.stdout.writelines(lines)' \
  > "$out/shuffled.txt"
start=$(date +%s)
"$bench" --shapes "$out/shuffled.txt" --results "$out/results.tsv" --prune 3 \
  --runs 3 --warmup 1 --budget "$budget" "$@" "$dir"/*.ptx \
  > "$out/tune.log" 2> "$out/tune.err"
echo "exit $? after $(( $(date +%s) - start )) s"
tail -3 "$out/tune.log"
