#!/usr/bin/env bash
# The epilogue's R (`residual = add`, issue 33), the scales of 16- and
# 32-bit inputs (s_*.gemm) and FP8 outputs (o_*.gemm) on the GPU: random
# sweeps of kernels of
# every kind (benchmarks/epilogue/r_*.gemm: SIMT, mma.sync with row- and
# column-major C, wgmma with TMA's store, a batch, split-K, stream-K, a
# transposed kernel, FP8, tf32x3; a grouped kernel through --grouped),
# verified against cuBLAS finished on the host and fp64; what R costs
# (hp_plain against hp_res, f16 128x256 in clusters of 2, each in its own
# process beside cuBLAS, twice); torch's unfused forms; then, where DIR
# holds fz.tgz (gemmc-schedule-fuzz --out output as fz/), the fuzzer's
# kernels.
#   benchmarks/epilogue-gpu.sh prepare DIR   # here: the PTX
#   bash DIR/epilogue-gpu.sh run [fp8-out]   # there: $OUT/summary.txt, res.tgz
# (fp8-out: the FP8 outputs' sweeps and speed alone)
# Results: benchmarks/results/h100-issue33/residual.txt, fp8-out.txt,
# residual-read-ahead.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  dir=$2 gemmc=${GEMMC:-$root/build/bin/gemmc}
  mkdir -p "$dir/bin" "$dir/k"
  cp "$root/build/bin/gemm-bench" "$dir/bin/"
  cp "$0" "$root/runtime/scripts/fuzz-gpu.sh" "$root/benchmarks/epilogue/torch-residual.py" "$dir/"
  for f in "$root"/benchmarks/epilogue/*.gemm "$root"/examples/hopper-fused-epilogue.gemm; do
    "$gemmc" --arch=sm_90a "$f" -o "$dir/k/$(basename "$f" .gemm).ptx" || exit 1
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-out}; o=work; rm -rf $o; mkdir -p "$o" "$O"
trap 'cp $o/summary.txt $O/; tar czf "$O/res.tgz" $o' EXIT
B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$o/gpu.txt"
start=$SECONDS
# sweep SEED PTX...: 60 random cases each, a line each in the summary.
sweep() {
  local seed=$1; shift
  for p in "$@"; do
    n=$(basename $p .ptx)
    $B --sweep random --count 60 --max-size 900 --seed $seed $p > "$o/sweep-$n.log" 2>&1
    echo "$n t=$((SECONDS-start)): $(grep -E '^sweep:' "$o/sweep-$n.log" || tail -2 "$o/sweep-$n.log")" | tee -a "$o/summary.txt"
  done
}
# timed LABEL SIZE REP OPTIONS -- PTX...: each file in its own process
# beside cuBLAS (medians of 30 after 5), then one summary line.
timed() {
  local label=$1 size=$2 rep=$3; shift 3
  local options=()
  while [ "$1" != -- ]; do options+=("$1"); shift; done
  shift
  local csvs=()
  for p in "$@"; do
    csv="$o/$label-$(basename $p .ptx)-$size-$rep.csv"
    $B --size $size --runs 30 --warmup 5 ${options[@]+"${options[@]}"} --csv "$csv" $p > /dev/null 2>&1
    csvs+=("$csv")
  done
  python3 - "$label $size rep $rep" "${csvs[@]}" <<'PY' | tee -a "$o/summary.txt"
import csv, sys
out = []
for path in sys.argv[2:]:
    for r in csv.DictReader(open(path)):
        out.append(f"{r['kernel']} {r['status']} {r['ms']} ms {r['tflops']} TFLOP/s {r['x_cublas']}x")
print(f"{sys.argv[1]}: " + "; ".join(out))
PY
}
# An FP8 C (o_*.gemm) beside the same kernel writing bf16, each in its own
# process (one C type a process), twice; cuBLASLt writes no FP8 here.
fp8_out() {
  sweep 63 k/o_*.ptx
  for s in 8192x8192x8192 4096x4096x4096; do
    for rep in 1 2; do
      timed fp8-out $s $rep -- k/o_bf16_tma.ptx k/o_e4m3_tma.ptx
    done
  done
}
if [ "${2:-}" = fp8-out ]; then
  fp8_out
  exit 0
fi
fp8_out
sweep 61 $(ls k/[rs]_*.ptx | grep -v r_grouped)
printf 'groups=8 tokens=3000 n=1024 k=512 routing=zipf name=a\ngroups=4 tokens=777 n=512 k=256 routing=balanced name=b\n' > "$o/grouped.txt"
$B --grouped "$o/grouped.txt" k/r_grouped.ptx > "$o/grouped.log" 2>&1
echo "r_grouped: $(tail -1 "$o/grouped.log")" | tee -a "$o/summary.txt"
# What R costs: hp_plain against hp_res; the fused-epilogue example (alpha,
# a column bias, GELU's tanh form, R) beside its schedule without one.
for s in 8192x8192x8192 4096x4096x4096 16384x4096x4096 4096x14336x4096; do
  for rep in 1 2; do
    timed cost $s $rep -- k/hp_plain.ptx k/hp_res.ptx
    timed fused-plain $s $rep -- k/fused_plain.ptx
    timed fused $s $rep --bias col --activation gelu-tanh -- k/hopper-fused-epilogue.ptx
  done
done
python3 torch-residual.py > "$o/torch.txt" 2>&1; cat "$o/torch.txt" >> "$o/summary.txt"
if [ -f fz.tgz ]; then
  tar xzf fz.tgz
  bash fuzz-gpu.sh $B fz --jobs 12 --memcheck 16 --out "$o/fuzz" > "$o/fuzz.log" 2>&1
  echo "fuzz t=$((SECONDS-start)): $(tail -2 $o/fuzz/summary.txt 2>/dev/null)" | tee -a "$o/summary.txt"
fi
