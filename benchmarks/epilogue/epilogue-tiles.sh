#!/usr/bin/env bash
# Where R (`residual = add`) and GELU into an f32 C could cost under 3%:
# f16 kernels with and without them on the cooperative 128x256 tile
# (cluster 2x1) at 4 and 3 stages (R in shared memory needs the fourth
# stage's room), and ping-pong 128x192 and 128x128 tiles, with and
# without clusters; each kernel in its own process beside cuBLAS.
#   benchmarks/epilogue/epilogue-tiles.sh prepare DIR   # here
#   bash DIR/epilogue-tiles.sh [ROUNDS]                 # there: $OUT
# (KERNELS="k/a.ptx k/b.ptx ..." runs those alone.)
# Results: benchmarks/results/h100-issue33/epilogue-tiles.txt.
#   benchmarks/epilogue/epilogue-tiles.sh summary COST.TXT...  # the medians'
#       ratios: each epilogue against the same kernel without it, and the
#       fastest kernel with it against the fastest without
set -uo pipefail
if [ "${1:-}" = summary ]; then
  shift
  exec python3 - "$@" <<'PY'
import re, statistics, sys
times = {}
for path in sys.argv[1:]:
    for line in open(path):
        size = line.split()[0]
        for kernel, ms in re.findall(r"(\w+) PASS ([0-9.]+)", line):
            if kernel != "cuBLAS":
                times.setdefault(size, {}).setdefault(kernel, []).append(float(ms))
for size, kernels in times.items():
    med = {k: statistics.median(v) for k, v in kernels.items()}
    parts = []
    for prefix, epilogue in (("", "res"), ("f_", "gelu")):
        mine = {k: v for k, v in med.items()
                if k.startswith("f_") == (prefix == "f_")}
        alone = {k[:-5]: v for k, v in mine.items() if k.endswith("_none")}
        added = {k[:-len(epilogue) - 1]: v for k, v in mine.items()
                 if k.endswith("_" + epilogue)}
        if not alone or not added:
            continue
        ratios = [f"{k} {alone[k] / v:.3f}" for k, v in added.items() if k in alone]
        best = min(alone.values()) / min(added.values())
        parts.append(f"{epilogue} x without: {', '.join(ratios)}; "
                     f"fastest x fastest {best:.3f}")
    print(f"{size}: " + "; ".join(parts))
PY
fi
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/../.." && pwd) dir=${2:?folder}
  mkdir -p "$dir/k"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  HP="tile 128x256x64  wgmma m64n256k16  tma a b c  pipeline stages 4  warp-specialize 2  persistent  raster 8  cluster 2x1"
  P192="tile 128x192x64  wgmma m64n192k16  tma a b c  pipeline stages 4  warp-specialize 2 ping-pong  persistent  raster 8"
  P128="tile 128x128x64  wgmma m64n128k16  tma a b c  pipeline stages 6  warp-specialize 2 ping-pong  persistent  raster 8"
  kernel() { # NAME C-TYPE EPILOGUE SCHEDULE
    printf 'kernel %s {\n  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = %s row  %s }\n  schedule { %s }\n}\n' \
      "$1" "$2" "$3" "$4" > "$dir/k/$1.gemm"
    env -u CUDA_HOME "$root/build/bin/gemmc" --arch=sm_90a "$dir/k/$1.gemm" \
      -o "$dir/k/$1.ptx" 2> /dev/null || exit 1
  }
  for e in none res; do
    r=""; [ $e = res ] && r="residual = add"
    kernel hp_$e f16 "$r" "$HP"
    kernel hp3_$e f16 "$r" "${HP/stages 4/stages 3}"
    kernel p192_$e f16 "$r" "$P192"
    kernel p192c_$e f16 "$r" "$P192  cluster 2x1"
    kernel p128_$e f16 "$r" "$P128"
    kernel p128c_$e f16 "$r" "$P128  cluster 2x1"
    kernel p128s5_$e f16 "$r" "${P128/stages 6/stages 5}"
  done
  for e in none gelu; do
    g=""; [ $e = gelu ] && g="activation = gelu"
    kernel f_hp_$e f32 "$g" "$HP"
    kernel f_p192c_$e f32 "$g" "$P192  cluster 2x1"
    kernel f_p128c_$e f32 "$g" "$P128  cluster 2x1"
    kernel f_p128_$e f32 "$g" "$P128"
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt"
row() {
  python3 -c 'import csv,sys; print(" ".join(f"{x["kernel"]} {x["status"]} {x["ms"]}" for x in csv.DictReader(open(sys.argv[1]))))' "$O/x.csv"
}
for rep in $(seq "${1:-1}"); do
  for s in 4096x4096x4096 8192x8192x8192 16384x4096x4096 4096x14336x4096; do
    line="$s rep $rep:"
    for k in ${KERNELS:-k/*.ptx}; do
      extra=""; case $k in *gelu*) extra="--activation gelu" ;; esac
      ./gemm-bench --size $s --runs 30 --warmup 5 $extra --csv "$O/x.csv" "$k" > /dev/null 2>&1
      line="$line $(row);"
    done
    echo "$line" | tee -a "$O/cost.txt"
  done
done
rm -f "$O/x.csv"
