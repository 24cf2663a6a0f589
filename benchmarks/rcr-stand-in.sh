#!/usr/bin/env bash
# Do rrr's measurements stand in for rcr's (the rcr families are chosen
# from the f16 rrr measurements, docs/tuning.md)? Eight variants of the
# f16 families, compiled as the rrr candidates and with B column-major,
# and both families, on 17 training problems of M 256-1024, one
# gemm-bench process a layout (results/h100-issue30/rcr-stand-in.txt).
#   benchmarks/rcr-stand-in.sh compile DIR   # here
#   bash DIR/rcr-stand-in.sh run DIR         # on the GPU machine
set -euo pipefail
mode=$1 dir=$2
if [ "$mode" = compile ]; then
  here=$(cd "$(dirname "$0")/.." && pwd)
  build=${GEMMC_BUILD_DIR:-$here/build}
  mkdir -p "$dir/ptx" "$dir/bin"
  cp "$0" "$dir/"
  cp "$build/bin/gemm-bench" "$dir/bin/"
  cp "$build/share/gemmc/families/sm_90a/f16_rcr.ptx" \
    "$build/share/gemmc/families/sm_90a/f16_rrr.ptx" "$dir/"
  "$build/bin/gemmc-tune" candidates --type f16 --layout rrr --limit 16 \
    --arch sm_90a -o "$dir/cand" > /dev/null
  for v in wm3 w23 wm4 wm6 ws3 w18 wd6 wp1; do
    sed "s/\bf16_$v\b/rrr_$v/" "$dir/cand/f16_$v.gemm" > "$dir/ptx/rrr_$v.gemm"
    sed "s/\bf16_$v\b/rcr_$v/; s/b = f16 row/b = f16 col/" \
      "$dir/cand/f16_$v.gemm" > "$dir/ptx/rcr_$v.gemm"
  done
  for f in "$dir"/ptx/*.gemm; do
    "$build/bin/gemmc" --arch=sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  rm -rf "$dir/cand"
  printf '%s\n' 1024x1600x6400 1024x3072x24576 1024x3072x4096 1024x768x3072 \
    256x4096x4096 300x3584x18944 300x3584x3584 300x4608x3584 384x768x3072 \
    512x4096x11008 512x4096x14336 512x4096x2048 512x4096x4096 \
    512x5120x13824 512x5120x5120 640x2560x2560 700x4096x16384 > "$dir/train.txt"
  exit 0
fi
cd "$dir"; o=${OUT:-out}; mkdir -p "$o"
for lay in rcr rrr; do
  bin/gemm-bench --shapes train.txt --runs 10 --warmup 3 --csv "$o/$lay.csv" \
    ptx/${lay}_*.ptx f16_$lay.ptx > "$o/$lay.txt" 2>&1
done
