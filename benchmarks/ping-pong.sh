#!/usr/bin/env bash
# Ping-pong consumers (`warp-specialize 2 ping-pong`, docs/dsl.md) tried by
# hand beside the same tiles shared by the two consumers and cuBLAS
# (results/h100-issue30/ping-pong-probe.txt; docs/benchmarks.md):
#   benchmarks/ping-pong.sh compile DIR   # here: schedules, PTX, gemm-bench
#   bash DIR/ping-pong.sh run DIR         # on the GPU machine, to $OUT
# `run`: random sweeps through the ping-pong kernels, f16 (rrr, sizes at
# launch, tma a b c, persistent, raster 8) over ping-pong-shapes.txt in
# one gemm-bench process (mid.csv), and FP8 per tensor with and without
# GELU at 8192^3 in three rounds (fp8.txt).
set -euo pipefail
mode=$1 dir=$2
if [ "$mode" = compile ]; then
  here=$(cd "$(dirname "$0")" && pwd)
  build=${GEMMC_BUILD_DIR:-$here/../build}
  mkdir -p "$dir/bin"
  cp "$build/bin/gemm-bench" "$dir/bin/"
  cp "$0" "$dir/ping-pong.sh"
  cp "$here/ping-pong-shapes.txt" "$dir/"
  kernel() { # NAME A B C TILE WGMMA STAGES CONSUMERS [PROBLEM...]
    local name=$1 a=$2 b=$3 c=$4 tile=$5 wgmma=$6 stages=$7 ws=$8
    shift 8
    printf 'kernel %s {\n  problem { m = ? n = ? k = ? a = %s b = %s c = %s %s }\n  schedule { tile %s wgmma %s tma a b c pipeline stages %s warp-specialize %s persistent raster 8 }\n}\n' \
      "$name" "$a" "$b" "$c" "$*" "$tile" "$wgmma" "$stages" "$ws" > "$dir/$name.gemm"
    "$build/bin/gemmc" --arch=sm_90a "$dir/$name.gemm" -o "$dir/$name.ptx"
  }
  f16=("f16 row" "f16 row" "f16 row")
  kernel f16_coop_128x256 "${f16[@]}" 128x256x64 m64n256k16 4 2
  kernel f16_coop_128x128 "${f16[@]}" 128x128x64 m64n128k16 6 2
  kernel f16_pp_128x128 "${f16[@]}" 128x128x64 m64n128k16 6 "2 ping-pong"
  kernel f16_pp_128x192 "${f16[@]}" 128x192x64 m64n192k16 4 "2 ping-pong"
  kernel f16_pp_128x64 "${f16[@]}" 128x64x64 m64n64k16 8 "2 ping-pong"
  kernel f16_pp_64x128 "${f16[@]}" 64x128x64 m64n128k16 8 "2 ping-pong"
  f8=("e4m3 row" "e4m3 col" "bf16 row")
  for act in none gelu; do
    kernel f8_coop_128x192_$act "${f8[@]}" 128x192x128 m64n192k32 4 2 \
      scales = tensor activation = $act
    kernel f8_pp_64x192_$act "${f8[@]}" 64x192x128 m64n192k32 6 "2 ping-pong" \
      scales = tensor activation = $act
  done
  exit 0
fi
cd "$dir"
O=${OUT:-/tmp} B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$O/gpu.txt"
for k in f16_pp_128x128 f16_pp_128x192 f16_pp_128x64 f16_pp_64x128; do
  timeout 120 $B --sweep random --count 120 --seed 7 $k.ptx 2>&1 | tail -n 1 | sed "s/^/$k: /"
done > "$O/sweeps.txt"
for k in f8_pp_64x192_none f8_pp_64x192_gelu; do
  timeout 120 $B --sweep random --count 60 --max-size 2000 --seed 7 $k.ptx 2>&1 | tail -n 1 | sed "s/^/$k: /"
done >> "$O/sweeps.txt"
timeout 300 $B --shapes ping-pong-shapes.txt --csv "$O/mid.csv" f16_coop_128x256.ptx \
  f16_coop_128x128.ptx f16_pp_128x128.ptx f16_pp_128x192.ptx f16_pp_128x64.ptx \
  f16_pp_64x128.ptx > "$O/mid.txt" 2>&1
for i in 1 2 3; do
  for k in f8_coop_128x192 f8_pp_64x192; do for act in none gelu; do
    timeout 60 $B --runs 20 --activation $act --size 8192 ${k}_$act.ptx 2>&1 |
      grep "PASS\|FAIL" | sed "s/^/$i /"
  done; done
done > "$O/fp8.txt"
cat "$O/sweeps.txt"
