#!/usr/bin/env bash
# Issue 30, the families with `split-k ?` beside the families before them
# (docs/benchmarks.md, "Split-K chosen at launch"). Run on the GPU machine
# from a folder with bin/gemm-bench, fam/{f16,f32,bf16}_rrr.ptx (the
# families), fam/old_{f16,f32}_rrr.ptx (the families before, compiled from
# git with their kernels renamed old_*), workloads-heldout.txt and
# shapes.txt: random sweeps through the new families, then the held-out
# problems whose choice changed (both families in one process), the rest
# (the new family), and the issue-15 set (both). Logs go to $OUT/e,
# tarred after each step. BUDGET=SECONDS lets each list run longer (the
# run in docs/benchmarks.md had 30-40 s a list).
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-out}/e; mkdir -p "$o"
pack() { tar -C "$(dirname "$o")" -czf "$(dirname "$o")/results.tgz" e; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
start=$SECONDS
# The held-out problems whose variant the cost model changes (--explain,
# no GPU needed): the first-ranked variant of each family per problem.
for t in f16 f32; do
  for v in old_ ""; do
    bin/gemm-bench --explain --device-model h100 --shapes workloads-heldout.txt \
      fam/${v}${t}_rrr.ptx | awk '/^fam\//{p=$2} /^1 /{print p, $2}' > "$o/choice-$v$t.txt"
  done
  paste -d' ' "$o/choice-old_$t.txt" "$o/choice-$t.txt" | awk -v c=changed-$t.txt -v s=same-$t.txt \
    '{o=$2; sub(/^old_/, "", o); print $1 > (o != $4 ? c : s)}'
done
for f in f16_rrr f32_rrr bf16_rrr; do
  timeout 35 bin/gemm-bench --sweep random --count 150 --max-size 1500 --seed 42 fam/$f.ptx > "$o/sweep-$f.log" 2>&1
  echo "sweep $f rc=$? t=$((SECONDS-start)): $(grep -E '^sweep:' "$o/sweep-$f.log")" | tee -a "$o/summary.txt"
done
pack
for t in f16 f32; do
  bin/gemm-bench --shapes changed-$t.txt --runs 5 --warmup 2 --budget ${BUDGET:-35} \
    --shape-summary "$o/changed-$t.csv" fam/old_${t}_rrr.ptx fam/${t}_rrr.ptx > "$o/changed-$t.log" 2>&1
  echo "changed $t t=$((SECONDS-start)): $(grep -E '^(geometric|shapes)' "$o/changed-$t.log" | tr '\n' ' ')" | tee -a "$o/summary.txt"
  pack
done
for t in f16 f32; do
  bin/gemm-bench --shapes same-$t.txt --runs 5 --warmup 2 --budget ${BUDGET:-30} \
    --shape-summary "$o/same-$t.csv" fam/${t}_rrr.ptx > "$o/same-$t.log" 2>&1
  echo "same $t t=$((SECONDS-start)): $(grep -E '^(geometric|shapes)' "$o/same-$t.log" | tr '\n' ' ')" | tee -a "$o/summary.txt"
  pack
done
bin/gemm-bench --shapes shapes.txt --runs 5 --warmup 2 --budget ${BUDGET:-40} \
  --shape-summary "$o/shapes-f16.csv" fam/old_f16_rrr.ptx fam/f16_rrr.ptx > "$o/shapes-f16.log" 2>&1
echo "shapes f16 t=$((SECONDS-start)): $(grep -E '^(geometric|shapes)' "$o/shapes-f16.log" | tr '\n' ' ')" | tee -a "$o/summary.txt"
pack
