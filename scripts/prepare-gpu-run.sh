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

# An example by name: examples/NAME.gemm, or a path (candidates being tuned).
example_path() {
  case "$1" in
    */*) echo "$1" ;;
    *) echo "examples/$1.gemm" ;;
  esac
}

# resize FILE M N K SUFFIX: the schedule FILE with sizes M x N x K, its
# kernel renamed NAME_SUFFIX.
resize() {
  sed -e "s/^\(  *\)m = [0-9]*/\1m = $2/" -e "s/^\(  *\)n = [0-9]*/\1n = $3/" \
      -e "s/^\(  *\)k = [0-9]*/\1k = $4/" -e "s/^kernel \([a-z_0-9]*\)/kernel \1_$5/" "$1"
}

# gemmc's schedules at the benchmark sizes: the examples with m = n = k = S.
examples="naive coalesced smem-blocking blocktile-1d blocktile-2d vectorized warptile double-buffered work-per-thread sgemm-best ${GEMMC_EXTRA_EXAMPLES:-}"
for size in 4096 8192; do
  mkdir -p "$dest/gemmc/$size"
  for ex in $examples; do
    name=$(basename "$ex" .gemm)
    resize "$(example_path "$ex")" $size $size $size $size > "$dest/gemmc/$size/$name.gemm"
    "$build/bin/gemmc" "$dest/gemmc/$size/$name.gemm" -o "$dest/gemmc/$size/$name.ptx"
  done
done

# The GPU check: the examples at 1024^3, and at 1536x640x384 with layouts
# (A, B, C) row/row/row, col/row/col, row/col/row and col/col/col.
mkdir -p "$dest/gemmc/check"
for ex in $examples; do
  name=$(basename "$ex" .gemm)
  resize "$(example_path "$ex")" 1024 1024 1024 1024 > "$dest/gemmc/check/$name-1024.gemm"
  resize "$(example_path "$ex")" 1536 640 384 nonsquare > "$dest/gemmc/check/$name-nonsquare.gemm"
  sed -e 's/a = f32 row/a = f32 col/; s/c = f32 row/c = f32 col/' \
      -e 's/_nonsquare/_nonsquare_colmajor/' \
      "$dest/gemmc/check/$name-nonsquare.gemm" > "$dest/gemmc/check/$name-colmajor.gemm"
  sed -e 's/b = f32 row/b = f32 col/' -e 's/_nonsquare/_nonsquare_bcol/' \
      "$dest/gemmc/check/$name-nonsquare.gemm" > "$dest/gemmc/check/$name-bcol.gemm"
  sed -e 's/[abc] = f32 row/&-col/g' -e 's/ row-col/ col/g' -e 's/_nonsquare/_nonsquare_allcol/' \
      "$dest/gemmc/check/$name-nonsquare.gemm" > "$dest/gemmc/check/$name-allcol.gemm"
done
for f in "$dest"/gemmc/check/*.gemm; do
  # A schedule whose tiles do not divide a check size is skipped, said so.
  "$build/bin/gemmc" "$f" -o "${f%.gemm}.ptx" 2> "${f%.gemm}.err" ||
    { echo "skip $(basename "$f"): $(head -1 "${f%.gemm}.err")"; rm -f "${f%.gemm}.ptx"; }
  rm -f "${f%.gemm}.err"
done
echo "prepared $dest ($(du -sh "$dest" | cut -f1))"
