#!/usr/bin/env bash
# An f16 C with GELU, SiLU or R on ping-pong 128x128 tiles (6 stages), and R
# on cooperative 128x256 tiles (4 stages, cluster 2x1), each against the
# same kernel without the epilogue, each kernel in its own process beside
# cuBLAS; then the SM clock and power while each runs 10,000 times back to
# back at 4096^3 (nvidia-smi every 20 ms).
#   benchmarks/epilogue/f16-activations.sh prepare DIR   # here
#   bash DIR/f16-activations.sh [ROUNDS]                 # there: $OUT
# Results: benchmarks/results/h100-issue33/early-residual.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  here=$(cd "$(dirname "$0")" && pwd) dir=${2:?folder}
  # hp_* and p128_* (none, res) as epilogue-tiles.sh writes them; then
  # p128 with GELU and SiLU into its f16 C.
  bash "$here/epilogue-tiles.sh" prepare "$dir" || exit 1
  cp "$0" "$dir/"
  for act in gelu silu; do
    sed "s/p128_none/p128_$act/; s/c = f16 row /c = f16 row  activation = $act/" \
      "$dir/k/p128_none.gemm" > "$dir/k/p128_$act.gemm"
    env -u CUDA_HOME "$here/../../build/bin/gemmc" --arch=sm_90a \
      "$dir/k/p128_$act.gemm" -o "$dir/k/p128_$act.ptx" 2> /dev/null || exit 1
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/gpu.txt"
extra() { case $1 in *gelu*) echo "--activation gelu" ;; *silu*) echo "--activation silu" ;; esac; }
row() {
  python3 -c 'import csv,sys; print(" ".join(f"{x["kernel"]} {x["status"]} {x["ms"]}" for x in csv.DictReader(open(sys.argv[1]))))' "$O/x.csv"
}
for rep in $(seq "${1:-2}"); do
  for s in 4096x4096x4096 8192x8192x8192 16384x4096x4096; do
    line="$s rep $rep:"
    for k in p128_none p128_gelu p128_silu p128_res hp_none hp_res; do
      ./gemm-bench --size $s --runs 30 --warmup 5 $(extra $k) --csv "$O/x.csv" k/$k.ptx > /dev/null 2>&1
      line="$line $(row);"
    done
    echo "$line" | tee -a "$O/cost.txt"
  done
done
for k in p128_none p128_gelu p128_silu hp_none hp_res; do
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits -lms 20 > "$O/smi.csv" &
  smi=$!
  ./gemm-bench --size 4096 --runs 10000 --warmup 20 --no-cublas $(extra $k) --csv "$O/x.csv" k/$k.ptx > /dev/null 2>&1
  kill $smi; wait $smi 2> /dev/null
  python3 - "$k" "$O/x.csv" "$O/smi.csv" <<'PY' | tee -a "$O/clocks.txt"
import csv, statistics, sys
kernel, times, samples = sys.argv[1:]
ms = next(csv.DictReader(open(times)))["ms"]
rows = [[float(x) for x in l.split(",")] for l in open(samples) if l.strip()]
busy = [r for r in rows if r[1] > 300] or rows  # while the kernels ran
print(f"{kernel}: {ms} ms; {len(busy)} samples: SM clock median "
      f"{statistics.median(r[0] for r in busy):.0f} MHz (min {min(r[0] for r in busy):.0f}), "
      f"power median {statistics.median(r[1] for r in busy):.0f} W (max {max(r[1] for r in busy):.0f}), "
      f"temp {max(r[2] for r in busy):.0f} C")
PY
done
rm -f "$O/x.csv" "$O/smi.csv"
