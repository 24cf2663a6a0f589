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
# Results: benchmarks/results/h100-issue33/residual.txt.
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
# An FP8 C (o_*.gemm) beside the same kernel writing bf16, each in its own
# process (one C type a process), twice; cuBLASLt writes no FP8 here.
fp8_out() {
  for p in k/o_*.ptx; do
    n=$(basename $p .ptx)
    $B --sweep random --count 60 --max-size 900 --seed 63 $p > "$o/sweep-$n.log" 2>&1
    echo "$n t=$((SECONDS-start)): $(grep -E '^sweep:' "$o/sweep-$n.log" || tail -2 "$o/sweep-$n.log")" | tee -a "$o/summary.txt"
  done
  for s in 8192x8192x8192 4096x4096x4096; do
    for rep in 1 2; do
      for k in o_bf16_tma o_e4m3_tma; do
        $B --size $s --runs 30 --warmup 5 --csv "$o/out-$k-$s-$rep.csv" k/$k.ptx > /dev/null 2>&1
      done
      python3 - "$o" $s $rep <<'PY' | tee -a "$o/summary.txt"
import csv, sys
o, s, rep = sys.argv[1:4]
out = []
for k in ("o_bf16_tma", "o_e4m3_tma"):
    for r in csv.DictReader(open(f"{o}/out-{k}-{s}-{rep}.csv")):
        out.append(f"{r['kernel']} {r['status']} {r['ms']} ms {r['tflops']} TFLOP/s {r['x_cublas']}x")
print(f"fp8-out {s} rep {rep}: " + "; ".join(out))
PY
    done
  done
}
if [ "${2:-}" = fp8-out ]; then
  fp8_out
  exit 0
fi
fp8_out
for p in k/[rs]_*.ptx; do
  n=$(basename $p .ptx)
  [ $n = r_grouped ] && continue
  $B --sweep random --count 60 --max-size 900 --seed 61 $p > "$o/sweep-$n.log" 2>&1
  echo "$n t=$((SECONDS-start)): $(grep -E '^sweep:' "$o/sweep-$n.log" || tail -2 "$o/sweep-$n.log")" | tee -a "$o/summary.txt"
done
printf 'groups=8 tokens=3000 n=1024 k=512 routing=zipf name=a\ngroups=4 tokens=777 n=512 k=256 routing=balanced name=b\n' > "$o/grouped.txt"
$B --grouped "$o/grouped.txt" k/r_grouped.ptx > "$o/grouped.log" 2>&1
echo "r_grouped: $(tail -1 "$o/grouped.log")" | tee -a "$o/summary.txt"
for s in 8192x8192x8192 4096x4096x4096 16384x4096x4096 4096x14336x4096; do
  for rep in 1 2; do
    for k in hp_plain hp_res; do
      $B --size $s --runs 30 --warmup 5 --csv "$o/cost-$k-$s-$rep.csv" k/$k.ptx > "$o/cost-$k-$s-$rep.log" 2>&1
    done
    python3 - "$o" $s $rep <<'PY' | tee -a "$o/summary.txt"
import csv, sys
o, s, rep = sys.argv[1:4]
out = []
for k in ("hp_plain", "hp_res"):
    for r in csv.DictReader(open(f"{o}/cost-{k}-{s}-{rep}.csv")):
        out.append(f"{r['kernel']} {r['status']} {r['ms']} ms {r['x_cublas']}x")
print(f"cost {s} rep {rep}: " + "; ".join(out))
PY
  done
done
# The fused-epilogue example (alpha, a column bias, GELU's tanh form, R)
# beside its schedule without an epilogue, each in its own process.
for s in 8192x8192x8192 4096x14336x4096 16384x4096x4096; do
  for rep in 1 2; do
    $B --size $s --runs 30 --warmup 5 --csv "$o/fused-plain-$s-$rep.csv" k/fused_plain.ptx > /dev/null 2>&1
    $B --size $s --runs 30 --warmup 5 --bias col --activation gelu-tanh --csv "$o/fused-$s-$rep.csv" k/hopper-fused-epilogue.ptx > /dev/null 2>&1
    python3 - "$o" $s $rep <<'PY' | tee -a "$o/summary.txt"
import csv, sys
o, s, rep = sys.argv[1:4]
out = []
for f in ("fused-plain", "fused"):
    for r in csv.DictReader(open(f"{o}/{f}-{s}-{rep}.csv")):
        out.append(f"{r['kernel']} {r['status']} {r['ms']} ms {r['x_cublas']}x")
print(f"fused {s} rep {rep}: " + "; ".join(out))
PY
  done
done
python3 torch-residual.py > "$o/torch.txt" 2>&1; cat "$o/torch.txt" >> "$o/summary.txt"
if [ -f fz.tgz ]; then
  tar xzf fz.tgz
  bash fuzz-gpu.sh $B fz --jobs 12 --memcheck 16 --out "$o/fuzz" > "$o/fuzz.log" 2>&1
  echo "fuzz t=$((SECONDS-start)): $(tail -2 $o/fuzz/summary.txt 2>/dev/null)" | tee -a "$o/summary.txt"
fi
