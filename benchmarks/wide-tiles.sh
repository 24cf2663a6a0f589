#!/usr/bin/env bash
# Wave quantisation: which kernels cuBLAS runs on the held-out f16 problems
# the family ran slowest (ncu), and transposed persistent 128 x BN tiles
# (BN along M, wgmma's N, any multiple of 8) beside the family's choice
# (docs/benchmarks.md, "Wide transposed tiles").
#   benchmarks/wide-tiles.sh compile DIR   # here: schedules and PTX into DIR
#   benchmarks/wide-tiles.sh run DIR       # on the GPU machine, DIR holding
#                                          # the PTX, bin/gemm-bench and
#                                          # fam/f16_rrr.ptx
# `run` writes $OUT/wide/: cublas-kernels.csv (ncu: each launch's kernel,
# grid and time, cuBLAS's and the family's, over problems-ncu.txt) and
# tiles.log (each tile and the family beside cuBLAS over problems.txt).
set -euo pipefail
mode=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ "$mode" = compile ]; then
  mkdir -p "$dir"
  for bn in 144 160 168 192 200 216 224 240 256; do
    cat > "$dir/tn$bn.gemm" <<GEMM
kernel tn$bn {
  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = f16 row }
  schedule { transpose  tile 128x${bn}x64  wgmma m64n${bn}k16  tma a b c  pipeline stages 4  warp-specialize 2  persistent  raster 8 }
}
GEMM
    "${GEMMC:-$here/../build/bin/gemmc}" "$dir/tn$bn.gemm" --arch sm_90a \
      -o "$dir/tn$bn.ptx"
  done
  # The held-out problems below 0.93x before the wide tiles, and squares.
  printf '%s\n' 3000x3584x3584 1500x4608x3584 977x2816x2048 700x4096x4096 \
    1200x4544x4544 300x152064x3584 700x50272x4096 1576x2304x768 \
    2048x2560x2560 1024x4800x1600 512x10240x1280 3000x3584x18944 \
    1200x4544x18176 256x12288x49152 640x2560x10240 4096x4096x4096 \
    8192x8192x8192 > "$dir/problems.txt"
  head -n 15 "$dir/problems.txt" > "$dir/problems-ncu.txt"
  exit 0
fi
cd "$dir"
o=$OUT/wide; mkdir -p "$o"
ncu --csv --clock-control none \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size \
  bin/gemm-bench --shapes problems-ncu.txt --runs 2 --warmup 1 \
  fam/f16_rrr.ptx > "$o/cublas-kernels.csv" 2> "$o/ncu.err" || true
bin/gemm-bench --shapes problems.txt --runs 10 --warmup 3 tn*.ptx \
  fam/f16_rrr.ptx > "$o/tiles.log" 2>&1
grep -E '^(tn|f16_rrr|cuBLAS) ' "$o/tiles.log" | awk '{print $1, $2, $4, $6}'
