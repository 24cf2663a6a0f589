#!/usr/bin/env bash
# `slice-k` in slices of fewer threads than a warp (docs/dsl.md): first
# correctness, then speed. Checks: hand-written kernels (epilogues, column-
# major operands, a batch, static sizes, `transpose`, tiles of several
# rows) through 40 random sweep cases each against cuBLAS and fp64, and
# compute-sanitizer memcheck on two. Then f32 GEMV tiles of 8 or 16 threads
# a slice (cuBLAS's GEMV's shape: 32 columns a block, K whole) beside
# cuBLAS and the family's `gs2` in gemm-bench; and one call from Python
# beside torch (single-call.py), where torch runs cuBLAS's GEMV kernel
# (issue 31; results/h100-issue31/sub-warp-slices-h200.txt).
#   benchmarks/sub-warp-slices.sh compile DIR   # here: schedules and PTX
#   bash DIR/sub-warp-slices.sh run DIR         # on the GPU machine: DIR
#       also holding bin/gemm-bench, lib/ (the runtime), py/gemmc, and
#       share/gemmc/families/sm_90a (the families)
set -euo pipefail
mode=$1 dir=$2
kernel() { # subdir name problem schedule
  printf 'kernel %s {\n  problem { %s }\n  schedule { %s }\n}\n' "$2" "$3" \
    "$4" > "$dir/$1/$2.gemm"
}
f32='m = ? n = ? k = ?  a = f32 row  b = f32 row  c = f32 row'
gemv() { # name tile slices unroll [more] (1 x tile columns, 1x4 register tiles)
  kernel gemv "$1" "$f32" "tile 1x$2x1  register-tile 1x4
    vectorize global-load 4 shared-load 1 shared-store 1 global-store 4
    unroll $4  slice-k $3 ${5:-}"
}
if [ "$mode" = compile ]; then
  rm -rf "$dir/check" "$dir/gemv"
  mkdir -p "$dir/check" "$dir/gemv"
  cp "$0" "$(dirname "$0")/single-call.py" "$(dirname "$0")/torch_timing.py" "$dir/"
  v4='vectorize global-load 4 global-store 4'
  kernel check sw_plain "$f32" "tile 1x32 register-tile 1x4 $v4 unroll 4 slice-k 32"
  kernel check sw_epi "$f32 epilogue = alpha-beta bias = row activation = relu" \
    "tile 1x32 register-tile 1x4 $v4 unroll 8 slice-k 64"
  kernel check sw_gelu_res "$f32 activation = gelu residual = add" \
    "tile 2x32 register-tile 2x4 $v4 unroll 4 slice-k 16"
  kernel check sw_acol "m = ? n = ? k = ? a = f32 col b = f32 row c = f32 row epilogue = alpha-beta" \
    "tile 4x16 register-tile 1x4 $v4 unroll 4 slice-k 8"
  kernel check sw_bcol "m = ? n = ? k = ? a = f32 row b = f32 col c = f32 row" \
    "tile 2x8 register-tile 1x2 unroll 2 slice-k 16"
  kernel check sw_ccol "m = ? n = ? k = ? a = f32 row b = f32 row c = f32 col bias = col" \
    "tile 1x64 register-tile 1x4 vectorize global-load 4 unroll 2 slice-k 8"
  kernel check sw_batch "$f32 batch = ?" \
    "tile 1x16 register-tile 1x4 $v4 unroll 2 slice-k 64"
  kernel check sw_static "m = 7 n = 999 k = 1001 a = f32 row b = f32 row c = f32 row" \
    "tile 1x32 register-tile 1x1 unroll 3 slice-k 32"
  kernel check sw_transpose "$f32" \
    "transpose tile 1x16 register-tile 1x1 unroll 4 slice-k 16"
  kernel check sw_one_warp "$f32" "tile 1x4 register-tile 1x4 $v4 unroll 8 slice-k 32"
  # GEMV tiles gNsSuU: 1 x N columns, S slices, unroll U (the family's
  # gs2 beside them, at the count of splits the runtime would choose);
  # a trailing r: `blocks-per-sm 1`, the register cap raised to 128, one
  # block of 512 threads a multiprocessor, as cuBLAS's GEMV runs.
  gemv g32s32u8 32 32 8
  gemv g32s32u16 32 32 16
  gemv g32s64u4 32 64 4
  gemv g32s64u8r 32 64 8 "blocks-per-sm 1"
  gemv g32s64u16r 32 64 16 "blocks-per-sm 1"
  gemv g32s16u16 32 16 16
  gemv g64s32u8r 64 32 8 "blocks-per-sm 1"
  gemv g64s16u8 64 16 8
  gemv g16s64u8 16 64 8
  kernel gemv g128s16u2 "$f32" "tile 1x128x1 register-tile 1x4
    vectorize global-load 4 shared-load 1 shared-store 1 global-store 4
    unroll 2 split-k ? slice-k 16"
  for f in "$dir"/check/*.gemm "$dir"/gemv/*.gemm; do
    "${GEMMC:-build/bin/gemmc}" --arch sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  exit 0
fi
cd "$dir"
o=${OUT:-out}; mkdir -p "$o"
for f in check/*.ptx; do
  bin/gemm-bench --sweep random --count 40 --max-size 2000 --seed 9 "$f" \
    > "$o/$(basename "$f" .ptx).txt" 2>&1 && rc=0 || rc=$?
  echo "$(basename "$f") rc $rc $(tail -1 "$o/$(basename "$f" .ptx).txt")" | tee -a "$o/checks.txt"
done
for k in sw_epi sw_batch; do
  compute-sanitizer --tool memcheck bin/gemm-bench --sweep random --count 4 \
    --max-size 600 --seed 3 "check/$k.ptx" > "$o/memcheck-$k.txt" 2>&1 && rc=0 || rc=$?
  echo "memcheck $k rc $rc $(grep 'ERROR SUMMARY' "$o/memcheck-$k.txt")" | tee -a "$o/checks.txt"
done
printf '%s\n' 1x4096x4096 1x12288x4096 1x4096x11008 1x3584x3584 \
  1x1600x1600 1x8192x8192 1x4096x14336 > m1.txt
bin/gemm-bench --dtype f32 --layout rrr --shapes m1.txt --runs 20 --warmup 5 \
  --csv "$o/gemv.csv" gemv/*.ptx > "$o/gemv.txt" 2>&1
export GEMMC_LIBRARY_DIR=$PWD/lib GEMMC_FAMILY_DIR=$PWD/share/gemmc/families \
  PYTHONPATH=$PWD/py
python3 single-call.py --only float32 --f32 gemv > "$o/single-call.txt" 2>&1
(cd "$o" && tar czf sub-warp.tgz *.txt *.csv)
