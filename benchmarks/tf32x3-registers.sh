#!/usr/bin/env bash
# f32 (math = tf32x3) with wgmma's A from registers: the tuner's `_wxr`
# candidates for x @ W with W row-major (rrr, C^T = B^T * A^T: B^T copied
# by TMA and split in the consumers' registers, A^T split by the producer's
# threads) and examples/hopper-tf32x3-registers.gemm, each verified by a
# 40-case random sweep, then timed beside the shipped f32_rrr family (its
# model's choice) and cuBLAS SGEMM in one gemm-bench process.
#   benchmarks/tf32x3-registers.sh prepare DIR   # here: the PTX
#   bash DIR/tf32x3-registers.sh run             # there: $OUT
# Results: benchmarks/results/h100-issue30/tf32x3-registers.txt (the
# family there is 788c167's, before `_wxr`).
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  dir=$2 build=${GEMMC_BUILD_DIR:-$root/build}
  mkdir -p "$dir/bin" "$dir/ptx"
  cp "$build/bin/gemm-bench" "$dir/bin/" && cp "$0" "$dir/"
  work=$(mktemp -d)
  "$build/bin/gemmc-tune" candidates --type f32 --layout rrr --limit 16 \
    --arch sm_90a -o "$work" > /dev/null 2>&1 || exit 1
  cp "$work"/f32_wxr*.ptx "$dir/ptx/" && rm -rf "$work"
  "$build/bin/gemmc" --arch=sm_90a "$root/examples/hopper-tf32x3-registers.gemm" \
    -o "$dir/ptx/example_x3r.ptx" || exit 1
  "$build/bin/gemmc" --arch=sm_90a "$root/families/sm_90a/f32_rrr.gemm" \
    -o "$dir/ptx/f32_rrr.ptx" || exit 1
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
for f in ptx/f32_wxr*.ptx ptx/example_x3r.ptx; do
  echo "$f $($B --sweep random --count 40 --dtype f32 --layout rrr "$f" 2>&1 | grep 'results,')"
done | tee "$O/sweeps.txt"
printf '%s\n' 50x7680x2560 64x8192x4096 64x4096x4096 24x37888x3584 40x4672x4544 \
  130x2816x2048 16x4096x4096 1x2560x2560 256x12288x4096 512x4096x4096 \
  2048x2048x2048 4096x4096x4096 8192x8192x8192 > "$O/probe.txt"
$B --dtype f32 --layout rrr --shapes "$O/probe.txt" --runs 10 --warmup 3 \
  --csv "$O/tf32x3-registers-probe.csv" ptx/f32_wxr*.ptx ptx/f32_rrr.ptx \
  > "$O/probe.log" 2>&1
tail -3 "$O/probe.log"
