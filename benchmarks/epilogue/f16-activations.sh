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
  root=$(cd "$(dirname "$0")/../.." && pwd) dir=${2:?folder}
  mkdir -p "$dir/k"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  HP="tile 128x256x64  wgmma m64n256k16  tma a b c  pipeline stages 4  warp-specialize 2  persistent  raster 8  cluster 2x1"
  P128="tile 128x128x64  wgmma m64n128k16  tma a b c  pipeline stages 6  warp-specialize 2 ping-pong  persistent  raster 8"
  kernel() { # NAME EPILOGUE SCHEDULE
    printf 'kernel %s {\n  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = f16 row  %s }\n  schedule { %s }\n}\n' \
      "$1" "$2" "$3" > "$dir/k/$1.gemm"
    env -u CUDA_HOME "$root/build/bin/gemmc" --arch=sm_90a "$dir/k/$1.gemm" \
      -o "$dir/k/$1.ptx" 2> /dev/null || exit 1
  }
  kernel hp_none "" "$HP"
  kernel hp_res "residual = add" "$HP"
  kernel p128_none "" "$P128"
  kernel p128_gelu "activation = gelu" "$P128"
  kernel p128_silu "activation = silu" "$P128"
  kernel p128_res "residual = add" "$P128"
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
