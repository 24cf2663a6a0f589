#!/usr/bin/env bash
# FP8 on wgmma beside cuBLASLt (docs/benchmarks.md, "FP8"): the schedules
# measured, compiled here, and their runs on the GPU machine.
#   benchmarks/fp8.sh prepare [DIR]   # here: DIR (default .device/fp8)
#   bash DIR/fp8.sh run               # there: results under $OUT
# Results: benchmarks/results/h100-issue33/.
set -uo pipefail
mode=${1:-prepare}
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  dir=${2:-.device/fp8}
  gemmc=${GEMMC:-build/bin/gemmc}
  mkdir -p "$dir/v" "$dir/bin"
  cp build/bin/gemm-bench "$dir/bin/"
  cp "$0" "$dir/fp8.sh"
  for f in hopper-fp8 hopper-fp8-dynamic; do
    "$gemmc" --arch=sm_90a examples/$f.gemm -o "$dir/$f.ptx" || exit 1
  done
  # name, sizes, scales, extra problem statements, schedule
  mk() {
    cat > "$dir/v/$1.gemm" <<GEMM
kernel $1 {
  problem { $2 a = e4m3 row b = e4m3 col c = bf16 row scales = $3 $4 }
  schedule { $5 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/v/$1.gemm" -o "$dir/v/$1.ptx" 2> /dev/null || exit 1
  }
  S="m = 8192 n = 8192 k = 8192" D="m = ? n = ? k = ?"
  W2="warp-specialize 2 persistent"
  mk p192_nc "$S" tensor "" "tile 128x192x128 wgmma m64n192k32 tma a b c pipeline stages 4 $W2 raster 8"
  mk p192_c21 "$S" tensor "" "tile 128x192x128 wgmma m64n192k32 tma a b c pipeline stages 4 $W2 cluster 2x1 raster 8"
  mk p128_c21 "$S" tensor "" "tile 128x128x128 wgmma m64n128k32 tma a b c pipeline stages 6 $W2 cluster 2x1 raster 8"
  mk p192r_nc "$S" rowwise "" "tile 128x192x128 wgmma m64n192k32 tma a b c pipeline stages 4 $W2 raster 8"
  mk p192r_c21 "$S" rowwise "" "tile 128x192x128 wgmma m64n192k32 tma a b c pipeline stages 4 $W2 cluster 2x1 raster 8"
  mk f256_c21 "$S" tensor "math = fast-accumulate" "tile 128x256x128 wgmma m64n256k32 tma a b c pipeline stages 4 $W2 cluster 2x1 raster 8"
  mk f256r_c21 "$S" rowwise "math = fast-accumulate" "tile 128x256x128 wgmma m64n256k32 tma a b c pipeline stages 4 $W2 cluster 2x1 raster 8"
  # Ping-pong consumers, a whole tile each (240 registers with rowwise scales).
  mk f192ppr "$S" rowwise "math = fast-accumulate" "tile 128x192x128 wgmma m64n192k32 tma a b c pipeline stages 4 warp-specialize 2 ping-pong persistent raster 8"
  mk pd192 "$D" tensor "" "tile 128x192x128 wgmma m64n192k32 tma a b pipeline stages 4 $W2 raster 8"
  mk pd192c "$D" tensor "" "tile 128x192x128 wgmma m64n192k32 tma a b c pipeline stages 4 $W2 raster 8"
  mk pd192r "$D" rowwise "" "tile 128x192x128 wgmma m64n192k32 tma a b pipeline stages 4 $W2 raster 8"
  mk fd256 "$D" tensor "math = fast-accumulate" "tile 128x256x128 wgmma m64n256k32 tma a b pipeline stages 4 $W2 raster 8"
  mk pdsk "$D" tensor "" "tile 128x192x128 wgmma m64n192k32 tma a b pipeline stages 4 warp-specialize 2 persistent stream-k"
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
# Sweeps (verified against cuBLASLt where it has an algorithm, and fp64).
{
  $B --sweep random --count 60 --max-size 1500 v/pd192.ptx v/pdsk.ptx
  $B --sweep random --count 40 --max-size 1500 v/pd192r.ptx
  $B --sweep random --count 40 --max-size 1500 v/fd256.ptx
  $B --sweep random --count 100 --max-size 2000 hopper-fp8-dynamic.ptx
} 2>&1 | grep "results," > "$O/sweeps.txt"
# The headline in three processes; each kernel beside cuBLASLt in its mode.
for i in 1 2 3; do
  for k in v/p192_nc.ptx v/p192r_nc.ptx v/p192r_c21.ptx v/f256_c21.ptx \
    v/f256r_c21.ptx v/f192ppr.ptx; do
    $B --runs 30 $k 2>&1 | grep "PASS\|FAIL"
  done
done > "$O/headline.txt"
for s in 4096x7168x16384 4096x4096x4096 2048x8192x8192 8192x8192x8192; do
  $B --runs 20 --size $s v/pd192.ptx v/pd192c.ptx v/pdsk.ptx
  $B --runs 20 --size $s v/pd192r.ptx
  $B --runs 20 --size $s v/fd256.ptx hopper-fp8-dynamic.ptx
done 2>&1 | grep "PASS\|FAIL\|SKIP" > "$O/sizes.txt"
compute-sanitizer --tool memcheck $B --runs 1 --warmup 0 --size 300x500x700 \
  v/pd192.ptx v/pd192r.ptx > "$O/memcheck.txt" 2>&1
tail -1 "$O/memcheck.txt"
