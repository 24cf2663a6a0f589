#!/usr/bin/env bash
# On the GPU machine: the shipped families on the held-out workload
# problems and the issue-15 shape set (beside cuBLAS, each verified, then
# timed), the square sizes, and random sweeps through them. Run from a
# folder with bin/gemm-bench, the families' PTX in fam/ (TYPE_LAYOUT.ptx,
# as build/share/gemmc/families/sm_90a has them) and the shape files;
# everything goes to $OUT, tarred at the end (results.tgz). STEPS picks
# some of "heldout shapes squares sweeps" (all by default), TYPES the
# precisions of the first two, BUDGET (seconds) cuts each list short.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-out}/eval; mkdir -p "$o"
trap 'tar -C "$(dirname "$o")" -czf "$(dirname "$o")/results.tgz" eval' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
steps=" ${STEPS:-heldout shapes squares sweeps} "
budget=(); [ -n "${BUDGET:-}" ] && budget=(--budget "$BUDGET")
for t in ${TYPES:-f16 bf16 f32}; do
  [[ $steps == *" heldout "* ]] || break
  bin/gemm-bench --shapes workloads-heldout.txt --runs 10 --warmup 3 "${budget[@]}" \
    --shape-summary "$o/heldout-$t.csv" fam/${t}_rrr.ptx > "$o/heldout-$t.log" 2>&1
  echo "held-out $t: $(grep -E '^(shapes|geometric)' "$o/heldout-$t.log" | tr '\n' ' ')"
done
for t in ${TYPES:-f16 f32}; do
  [[ $steps == *" shapes "* ]] || break
  [ "$t" = bf16 ] && continue
  bin/gemm-bench --shapes shapes.txt --runs 10 --warmup 3 "${budget[@]}" \
    --shape-summary "$o/shapes-$t.csv" fam/${t}_rrr.ptx > "$o/shapes-$t.log" 2>&1
  echo "shapes $t: $(grep -E '^(shapes|geometric)' "$o/shapes-$t.log" | tr '\n' ' ')"
done
[[ $steps == *" squares "* ]] &&
for t in f16 bf16; do
  for l in rrr rcr; do
    bin/gemm-bench --size 4096,8192 --runs 10 --warmup 3 --layout $l \
      fam/${t}_$l.ptx > "$o/square-$t-$l.log" 2>&1
  done
done
[[ $steps == *" sweeps "* ]] &&
for f in f16_rrr bf16_rrr f32_rrr f16_rcr; do
  bin/gemm-bench --sweep random --count 300 --max-size 1500 --seed 30 \
    fam/$f.ptx > "$o/sweep-$f.log" 2>&1
  echo "sweep $f: $(grep -E '^sweep:' "$o/sweep-$f.log")"
done
