#!/usr/bin/env bash
# What the unclamped reads of C and R in the tiles inside the matrix
# (Warpgroup/StoreC.cpp, TMA's store of C, sizes at launch) gain: the same
# schedules compiled by an older gemmc (OLD, e.g. built at 8314f2f) and by
# this one, each pair in one process beside cuBLAS, two rounds; R with
# `residual = add`, beta * C with `epilogue = alpha-beta` run at beta 1.
#   benchmarks/epilogue/inside-reads.sh prepare DIR OLD   # here
#   bash DIR/inside-reads.sh                              # there: $OUT
# Results: benchmarks/results/h100-issue33/inside-reads-ab.txt (the unclamped
# reads, OLD at 8314f2f), pair-loads-ab.txt (one aligned load a pair, OLD at
# d1bf07f).
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/../.." && pwd) dir=${2:?folder} old=${3:?older gemmc}
  mkdir -p "$dir/k"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  e="$root/benchmarks/epilogue"
  for t in hp pp; do
    cp "$e/${t}_res.gemm" "$dir/k/${t}_res.gemm"
    sed "s/kernel ${t}_plain/kernel ${t}_ab/; s/c = f16 row/c = f16 row  epilogue = alpha-beta/" \
      "$e/${t}_plain.gemm" > "$dir/k/${t}_ab.gemm"
  done
  for k in hp_res pp_res hp_ab pp_ab; do
    "$old" --arch=sm_90a "$dir/k/$k.gemm" -o "$dir/k/${k}_old.ptx" 2> /dev/null || exit 1
    "$root/build/bin/gemmc" --arch=sm_90a "$dir/k/$k.gemm" -o "$dir/k/${k}_new.ptx" 2> /dev/null || exit 1
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt"
row() { python3 -c 'import csv,sys; print(" ".join(f"{x["kernel"]} {x["status"]} {x["ms"]}" for x in csv.DictReader(open(sys.argv[1]))))' "$O/x.csv"; }
for s in 4096x4096x4096 16384x4096x4096 4096x14336x4096 8192x8192x8192; do
  for rep in 1 2; do
    line="$s rep $rep:"
    for k in hp_res pp_res hp_ab pp_ab; do
      extra=""; case $k in *_ab) extra="--alpha 1 --beta 1";; esac
      ./gemm-bench --size $s --runs 30 --warmup 5 $extra --csv "$O/x.csv" \
        k/${k}_old.ptx k/${k}_new.ptx > /dev/null 2>&1
      line="$line [$k old, new] $(row);"
    done
    echo "$line" | tee -a "$O/ab.txt"
  done
done
rm -f "$O/x.csv"
for k in hp_res pp_res; do
  ./gemm-bench --sweep random --count 100 --max-size 1500 k/${k}_new.ptx 2>&1 | grep -a "results," | sed "s/^/$k: /"
done > "$O/sweep.txt"
for k in hp_ab pp_ab; do
  ./gemm-bench --sweep random --count 100 --max-size 1500 k/${k}_new.ptx 2>&1 | grep -a "results," | sed "s/^/$k: /"
done >> "$O/sweep.txt"
cat "$O/sweep.txt"
