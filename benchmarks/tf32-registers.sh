#!/usr/bin/env bash
# wgmma's A from registers (tf32, `wgmma m64nNk8 registers`): x @ W with W
# row-major (rrr) as C^T = B^T * A^T, beside the staged kernel of the
# family before (B transposed in shared memory) and cuBLAS FAST_TF32 in one
# gemm-bench process; first 40-case random sweeps of ten such schedules
# (persistent, stream-K, split-K ?, one consumer, A copied by the
# producer's threads, a cluster, and a column-major A without `transpose`).
#   benchmarks/tf32-registers.sh prepare DIR   # here: the PTX
#   bash DIR/tf32-registers.sh run             # there: $OUT
# Results: benchmarks/results/h100-issue30/tf32-registers.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  dir=$2 gemmc=${GEMMC:-$root/build/bin/gemmc}
  mkdir -p "$dir/bin"
  cp "$root/build/bin/gemm-bench" "$dir/bin/" && cp "$0" "$dir/"
  rrr="a = f32 row b = f32 row c = f32 row"
  gen() { # NAME PROBLEM SCHEDULE
    printf 'kernel %s {\n  problem { m = ? n = ? k = ? %s math = tf32 }\n  schedule { %s }\n}\n' \
      "$1" "$2" "$3" > "$dir/$1.gemm"
    "$gemmc" --arch=sm_90a "$dir/$1.gemm" -o "$dir/$1.ptx" || exit 1
  }
  p="pipeline stages" t="transpose"
  gen s1 "$rrr" "tile 128x128x32 wgmma m64n128k8 tma a b c $p 4 warp-specialize 2 persistent raster 8"
  gen r1 "$rrr" "$t tile 128x128x32 wgmma m64n128k8 registers tma a b c $p 4 warp-specialize 2 persistent raster 8"
  gen r2 "$rrr" "$t tile 128x256x32 wgmma m64n256k8 registers tma a b c $p 4 warp-specialize 2 persistent raster 8"
  gen r3 "$rrr" "$t tile 128x128x32 wgmma m64n128k8 registers tma a b c $p 6 warp-specialize 2 persistent raster 8"
  gen r4 "$rrr" "$t tile 128x128x32 wgmma m64n128k8 registers tma a b $p 5 warp-specialize 2 persistent stream-k raster 8"
  gen r5 "$rrr" "$t tile 128x128x32 wgmma m64n128k8 registers tma a b $p 4 warp-specialize 2 split-k ?"
  gen r6 "$rrr" "$t tile 128x128x32 wgmma m64n128k8 registers tma b $p 4 warp-specialize 2 persistent"
  gen r7 "a = f32 col b = f32 col c = f32 row" "tile 128x128x32 wgmma m64n128k8 registers tma a b $p 4 warp-specialize 2 persistent"
  gen r8 "$rrr" "$t tile 128x128x32 wgmma m64n128k8 registers tma a b c $p 4 warp-specialize 2 persistent cluster 1x2"
  gen r9 "$rrr" "$t tile 64x64x32 wgmma m64n64k8 registers tma a b $p 6 warp-specialize 1 split-k ?"
  gen r10 "$rrr" "$t tile 128x192x32 wgmma m64n192k8 registers tma a b c $p 4 warp-specialize 2 persistent raster 8"
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
for f in r1 r2 r3 r4 r5 r6 r8 r9 r10; do
  echo "$f $($B --layout rrr --math tf32 --sweep random --count 40 --max-size 1500 $f.ptx 2>&1 | grep 'results,')"
done | tee "$O/sweeps.txt"
echo "r7 $($B --layout ccr --math tf32 --sweep random --count 40 --max-size 1500 r7.ptx 2>&1 | grep 'results,')" | tee -a "$O/sweeps.txt"
$B --layout rrr --math tf32 --runs 20 \
  --size 4096,8192x4096x4096,4096x4096x11008,640x2560x10240,2000x4096x4096,8192 \
  s1.ptx r1.ptx r2.ptx r3.ptx r10.ptx > "$O/speed.txt" 2>&1
grep -E '^(cuBLAS|s1|r[0-9]+) ' "$O/speed.txt" | awk '{print $1, $2, $3, $4, $6}' | tee "$O/tf32-registers.txt"
