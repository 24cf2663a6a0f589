#!/usr/bin/env bash
# Issue 30: a `split-k ?` kernel launched with one split skips the
# workspace, the count and the sum (docs/benchmarks.md). The shipped
# families as gemmc compiles them now beside the same families compiled by
# gemmc before the change, in one process, on every problem of the shape
# sets whose first-ranked variant is a `split-k ?` one at one split; random
# sweeps through the families, at the splits the model picks and at one
# split forced, and compute-sanitizer on a sample.
#
#   benchmarks/one-split-eval.sh compile DIR OLD   (here: OLD holds the
#       {f16,f32,bf16}_rrr.ptx of the gemmc before; writes DIR)
#   DIR/one-split-eval.sh run DIR                  (there; to $OUT/one)
set -uo pipefail
mode=${1:?compile or run} dir=${2:?folder}
if [ "$mode" = compile ]; then
  old=${3:?the folder of the families compiled before}
  here=$(cd "$(dirname "$0")/.." && pwd)
  build=${GEMMC_BUILD_DIR:-$here/build}
  mkdir -p "$dir/fam" "$dir/bin"
  cp "$0" "$dir/"
  cp "$build/bin/gemm-bench" "$dir/bin/"
  for t in f16 f32 bf16; do
    "$build/bin/gemmc" --arch=sm_90a "$here/families/sm_90a/${t}_rrr.gemm" \
      -o "$dir/fam/${t}_rrr.ptx" || exit 1
    # The kernels before, renamed o16_rrr_* (f16), o32_* and ob16_*: of the
    # same length, the PTX stays valid.
    o=${t/f/o}; o=${o/bo/ob}
    sed "s/\b${t}_rrr_/${o}_rrr_/g" "$old/${t}_rrr.ptx" > "$dir/fam/${o}_rrr.ptx"
  done
  "$build/bin/gemmc" --arch=sm_90a "$here/families/sm_90a/f16_rcr.gemm" \
    -o "$dir/fam/f16_rcr.ptx" || exit 1
  # The problems whose first-ranked variant is `split-k ?` at one split.
  for t in f16 f32; do
    for s in workloads-heldout workloads-train shapes; do
      "$dir/bin/gemm-bench" --explain --device-model h100 \
        --shapes "$here/benchmarks/$s.txt" "$dir/fam/${t}_rrr.ptx" |
        awk '/ \(m=/{p=$2} /^1 /{print p, $2, $4}' |
        awk '$2 ~ /_(wz|kz|wxz)[0-9]+$/ && $3 == 1 {print $1}'
    done > "$dir/one-$t.txt"
  done
  wc -l "$dir"/one-*.txt
  exit 0
fi
cd "$dir"
o=${OUT:-out}/one; mkdir -p "$o"
trap 'tar -C "$(dirname "$o")" -czf "$(dirname "$o")/one.tgz" one' EXIT
B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
start=$SECONDS
for f in f16_rrr bf16_rrr f32_rrr f16_rcr; do
  $B --sweep random --count 300 --max-size 1500 --seed 31 fam/$f.ptx > "$o/sweep-$f.log" 2>&1
  echo "sweep $f t=$((SECONDS - start)): $(grep -E '^sweep:' "$o/sweep-$f.log")" | tee -a "$o/summary.txt"
done
for f in f16_rrr f32_rrr; do
  $B --sweep random --count 100 --max-size 1500 --seed 32 --splits 1 fam/$f.ptx > "$o/sweep1-$f.log" 2>&1
  echo "sweep --splits 1 $f t=$((SECONDS - start)): $(grep -E '^sweep:' "$o/sweep1-$f.log")" | tee -a "$o/summary.txt"
done
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 $B --sweep random \
    --count 4 --max-size 300 --seed 5 --splits 1 fam/f16_rrr.ptx > "$o/$tool.log" 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/$tool.log" | sort | uniq -c | tr '\n' ' ')" | tee -a "$o/summary.txt"
done
for t in f16 f32; do
  $B --shapes one-$t.txt --runs 10 --warmup 3 --shape-summary "$o/one-$t.csv" \
    fam/${t/f/o}_rrr.ptx fam/${t}_rrr.ptx > "$o/one-$t.log" 2>&1
  echo "one split $t t=$((SECONDS - start)): $(grep -E '^(geometric|shapes)' "$o/one-$t.log" | tr '\n' ' ')" | tee -a "$o/summary.txt"
done
