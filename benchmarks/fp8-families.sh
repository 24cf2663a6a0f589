#!/usr/bin/env bash
# Writes the FP8 families gemmc ships for torch._scaled_mm's products
# (families/sm_90a/fp8_A_B_C_SCALES[_fast].gemm; gemmc.scaled_mm and
# gemmc_scaled_family_load run them): A row-major and B column-major (K
# contiguous in both, as wgmma reads FP8), in e4m3 or e5m2 (not both e5m2,
# as torch._scaled_mm), C row-major in bf16, f16 or f32, with per-tensor or
# rowwise scales, each k tile's sums promoted to f32 or (`_fast`,
# torch's use_fast_accum) summed on the tensor cores over all of K.
#
# Not tuned: the same four schedules in each, chosen among by the cost
# model's default constants (docs/selection.md) until FP8 measurements fit
# them: a 128 x 192 tile (128 x 256 with fast accumulation, where the
# promoted sums leave no registers for it), 128 x 128, a 64 x 128
# stream-K tile for skinny problems, and a 128 x 128 tile that stores C
# without TMA for any N (the family's catch-all: FP8's A and B are read by
# TMA, rows 16 bytes apart). The defaults take the 64 x 128 tile, one
# consumer warpgroup, for as fast as two: it runs M of 256 or less alone,
# an explicit override (`when`), where it ran 4096x7168x16384 at half the
# 128-row tiles' speed (H200, results/h100-issue33/scaled-mm-h200.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f families/sm_90a/fp8_*.gemm
for pair in "e4m3 e4m3" "e4m3 e5m2" "e5m2 e4m3"; do
  set -- $pair
  a=$1 b=$2
  for c in bf16 f16 f32; do
    for scales in tensor rowwise; do
      for fast in "" _fast; do
        name=fp8_${a}_${b}_${c}_$scales$fast
        wide=192
        [ -z "$fast" ] || wide=256
        {
          echo "# Written by benchmarks/fp8-families.sh: do not edit."
          echo "kernel $name {"
          echo "  problem {"
          echo "    m = ?"
          echo "    n = ?"
          echo "    k = ?"
          echo "    a = $a row"
          echo "    b = $b col"
          echo "    c = $c row"
          echo "    scales = $scales"
          [ -z "$fast" ] || echo "    math = fast-accumulate"
          echo "  }"
          echo "  variant big {"
          echo "    tile 128x${wide}x128"
          echo "    wgmma m64n${wide}k32"
          echo "    tma a b c"
          echo "    pipeline stages 4"
          echo "    warp-specialize 2"
          echo "    persistent"
          echo "    raster 8"
          echo "  }"
          echo "  variant mid {"
          echo "    tile 128x128x128"
          echo "    wgmma m64n128k32"
          echo "    tma a b c"
          echo "    pipeline stages 5"
          echo "    warp-specialize 2"
          echo "    persistent"
          echo "    raster 8"
          echo "  }"
          echo "  variant skinny when m <= 256 {"
          echo "    tile 64x128x128"
          echo "    wgmma m64n128k32"
          echo "    tma a b c"
          echo "    pipeline stages 6"
          echo "    warp-specialize 1"
          echo "    persistent stream-k"
          echo "    raster 8"
          echo "  }"
          echo "  variant any {"
          echo "    tile 128x128x128"
          echo "    wgmma m64n128k32"
          echo "    tma a b"
          echo "    pipeline stages 4"
          echo "    warp-specialize 2"
          echo "  }"
          echo "}"
        } > families/sm_90a/$name.gemm
      done
    done
  done
done
ls families/sm_90a/fp8_*.gemm | wc -l
