#!/usr/bin/env bash
# Builds everything here and gathers what a GPU machine needs into a
# git-ignored folder (default .device/): gemm-bench and gemm-check (they need
# only the CUDA driver and cuBLAS there), the hand-written PTX, gemmc's PTX
# for the benchmark sizes, and the script that runs it all
# (runtime/scripts/run-gpu-bench.sh). Then, on the GPU machine:
#   bash .device/run-gpu-bench.sh        # results under $OUT or .device/out
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
dest=${1:-.device}

bash scripts/build.sh
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/ptx" "$dest/gemmc"
cp "$build/bin/gemm-bench" "$build/bin/gemm-check" "$dest/bin/"
cp runtime/ptx/*.ptx "$dest/ptx/"
cp runtime/scripts/run-gpu-bench.sh "$dest/"

# gemmc's schedules at the benchmark sizes: the examples with m = n = k = S.
examples="naive coalesced"
for size in 4096 8192; do
  mkdir -p "$dest/gemmc/$size"
  for ex in $examples; do
    sed -e "s/^\(  *\)m = [0-9]*/\1m = $size/" -e "s/^\(  *\)n = [0-9]*/\1n = $size/" \
        -e "s/^\(  *\)k = [0-9]*/\1k = $size/" -e "s/^kernel \([a-z_0-9]*\)/kernel \1_$size/" \
        "examples/$ex.gemm" > "$dest/gemmc/$size/$ex.gemm"
    "$build/bin/gemmc" "$dest/gemmc/$size/$ex.gemm" -o "$dest/gemmc/$size/$ex.ptx"
  done
done

# The first GPU check: the examples at 1024^3, and at 1536x640x384 with
# row-major and with column-major A and C.
mkdir -p "$dest/gemmc/check"
for ex in $examples; do
  cp "examples/$ex.gemm" "$dest/gemmc/check/$ex-1024.gemm"
  sed -e 's/m = 1024/m = 1536/; s/n = 1024/n = 640/; s/k = 1024/k = 384/' \
      -e 's/^kernel \([a-z_0-9]*\)/kernel \1_nonsquare/' \
      "examples/$ex.gemm" > "$dest/gemmc/check/$ex-nonsquare.gemm"
  sed -e 's/a = f32 row/a = f32 col/; s/c = f32 row/c = f32 col/' \
      -e 's/_nonsquare/_nonsquare_colmajor/' \
      "$dest/gemmc/check/$ex-nonsquare.gemm" > "$dest/gemmc/check/$ex-colmajor.gemm"
done
for f in "$dest"/gemmc/check/*.gemm; do
  "$build/bin/gemmc" "$f" -o "${f%.gemm}.ptx"
done
echo "prepared $dest ($(du -sh "$dest" | cut -f1))"
