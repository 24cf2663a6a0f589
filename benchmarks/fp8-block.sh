#!/usr/bin/env bash
# FP8 with block scales (A's 1 x 128, B's 128 x 128; docs/benchmarks.md,
# "FP8"): the schedules measured, compiled here, the schedule fuzzer's FP8
# kernels, and their runs on the GPU machine.
#   benchmarks/fp8-block.sh prepare [DIR]   # here: DIR (default .device/fp8b)
#   bash DIR/fp8-block.sh run               # there: results under $OUT
# Results: benchmarks/results/h100-issue33/block-*.
set -uo pipefail
mode=${1:-prepare}
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  dir=${2:-.device/fp8b}
  gemmc=${GEMMC:-build/bin/gemmc}
  rm -rf "$dir"
  mkdir -p "$dir/v" "$dir/bin" "$dir/fuzz"
  cp build/bin/gemm-bench "$dir/bin/"
  cp runtime/scripts/fuzz-gpu.sh "$0" "$dir/"
  "$gemmc" --arch=sm_90a examples/hopper-fp8-block.gemm \
    -o "$dir/hopper-fp8-block.ptx" || exit 1
  # name, tile's N, stages, what TMA copies, the other directives (sizes
  # at launch; `tma c` takes BN in groups of 64 bf16 columns)
  mk() {
    cat > "$dir/v/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ? a = e4m3 row b = e4m3 col c = bf16 row scales = block }
  schedule { tile 128x$2x128 wgmma m64n$2k32 tma $4 pipeline stages $3
             warp-specialize 2 persistent $5 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/v/$1.gemm" -o "$dir/v/$1.ptx" || exit 1
  }
  mk b192c 192 4 "a b c" "raster 8 cluster 2x1"
  mk b176 176 4 "a b" "raster 8"
  mk b160 160 5 "a b" "raster 8"
  mk b128c 128 5 "a b c" "raster 8 cluster 2x1"
  mk b192sk 192 4 "a b c" "stream-k"
  # The schedule fuzzer's FP8 kernels (a fifth of its Hopper schedules).
  "${FUZZ:-build/bin/gemmc-schedule-fuzz}" --arch=sm_90a --hopper-only \
    --count 1500 --seed 33 --out "$dir/all" > "$dir/fuzz-cpu.txt" 2>&1
  tail -1 "$dir/fuzz-cpu.txt"
  for g in $(grep -l "e4m3\|e5m2" "$dir"/all/*.gemm); do
    cp "${g%.gemm}.sm_90a.ptx" "$dir/fuzz/"
  done
  grep -l "scales = block" "$dir"/all/*.gemm | wc -l
  rm -rf "$dir/all"
  ls "$dir/fuzz" | wc -l
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
# Sweeps, verified against fp64 (and cuBLASLt's block scales where it has
# an algorithm).
{
  $B --sweep random --count 100 --max-size 1500 hopper-fp8-block.ptx
  $B --sweep random --count 40 --max-size 1500 v/b128c.ptx v/b192sk.ptx
  $B --sweep random --count 40 --max-size 1500 v/b176.ptx v/b160.ptx
} > "$O/block-sweeps.log" 2>&1
grep "results," "$O/block-sweeps.log" > "$O/block-sweeps.txt"
# The goal's size and 8192^3 in three processes.
for i in 1 2 3; do
  for s in 4096x7168x16384 8192x8192x8192; do
    $B --runs 20 --size $s hopper-fp8-block.ptx v/b192c.ptx v/b176.ptx \
      v/b160.ptx v/b128c.ptx v/b192sk.ptx 2>&1 | grep "PASS\|FAIL\|SKIP"
  done
done > "$O/block-sizes.txt"
compute-sanitizer --tool memcheck $B --runs 1 --warmup 0 --size 300x500x700 \
  hopper-fp8-block.ptx v/b192sk.ptx > "$O/block-memcheck.txt" 2>&1
tail -1 "$O/block-memcheck.txt"
bash fuzz-gpu.sh bin/gemm-bench fuzz --jobs 12 --memcheck 20 --out "$O/fuzz" \
  > /dev/null 2>&1
cat "$O/fuzz/summary.txt"
