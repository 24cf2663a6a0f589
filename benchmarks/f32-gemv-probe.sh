#!/usr/bin/env bash
# f32 GEMV (1xK times KxN, B row-major): the decode tiles `slice-k` built
# (`_gs`, docs/tuning.md) beside cuBLAS, over the tile's width, its slices,
# the unrolling and the register cap, at forced counts of splits; then one
# call from Python beside torch (single-call.py), where torch runs cuBLAS's
# GEMV kernel; then ncu's launch, occupancy and memory figures of torch's
# GEMV and of the 1 x 128 x 16-slice tile (docs/benchmarks.md, issue 31;
# results/h100-issue31/f32-gemv-probe-h200.txt).
#   benchmarks/f32-gemv-probe.sh compile DIR   # here: schedules and PTX
#   bash DIR/f32-gemv-probe.sh run DIR         # on the GPU machine: DIR
#       also holding bin/gemm-bench, lib/ (the runtime), py/gemmc, and
#       share/gemmc/families/sm_90a (the families)
set -euo pipefail
mode=$1 dir=$2
schedule() { # name tile register-tile load-width unroll slices
  cat > "$dir/ptx/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ?  a = f32 row  b = f32 row  c = f32 row }
  schedule { tile $2  register-tile $3
             vectorize global-load $4 shared-load 1 shared-store 1 global-store $4
             unroll $5  split-k ?  slice-k $6 }
}
GEMM
}
if [ "$mode" = compile ]; then
  mkdir -p "$dir/ptx"
  cp "$0" "$(dirname "$0")/single-call.py" "$(dirname "$0")/torch_timing.py" "$dir/"
  # gNsSuU: a tile of 1 x N, S slices of K, the loop unrolled U ways; a
  # trailing r: the register cap raised to 128 (.maxnreg), one block a
  # multiprocessor (gemmc caps these at two blocks' worth, 64).
  schedule g128s16u2 1x128x1 1x4 4 2 16   # the family's gs2
  schedule g128s16u4 1x128x1 1x4 4 4 16
  schedule g128s32u2 1x128x1 1x4 4 2 32
  schedule g128s8u8 1x128x1 1x4 4 8 8
  schedule g128s16u8r 1x128x1 1x4 4 8 16
  schedule g256s16u2 1x256x1 1x8 4 2 16
  schedule g256s8u2 1x256x1 1x4 4 2 8
  schedule g512s8u1 1x512x1 1x4 4 1 8
  schedule g64s16u8 1x64x1 1x2 2 8 16
  # cuBLAS's GEMV as ncu shows it (128 blocks of 32 x 16 threads, 32
  # columns a block, K whole, 128 registers): 32 columns, 16 slices.
  schedule g32s16u16 1x32x1 1x1 1 16 16
  schedule g32s16u32r 1x32x1 1x1 1 32 16
  schedule g32s8u64r 1x32x1 1x1 1 64 8
  for f in "$dir"/ptx/*.gemm; do
    "${GEMMC:-build/bin/gemmc}" --arch sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  for f in "$dir"/ptx/*r.ptx; do sed -i 's/^\.maxnreg .*/.maxnreg 128/' "$f"; done
  exit 0
fi
cd "$dir"
o=${OUT:-out}; mkdir -p "$o"
printf '%s\n' 1x4096x4096 1x12288x4096 1x4096x11008 1x3584x3584 \
  1x1600x1600 1x8192x8192 1x4096x14336 > m1.txt
for s in 1 2 4 8 16; do
  bin/gemm-bench --dtype f32 --layout rrr --shapes m1.txt --runs 20 \
    --warmup 5 --splits $s --csv "$o/gemv-s$s.csv" ptx/*.ptx > "$o/gemv-s$s.txt" 2>&1
done
export GEMMC_LIBRARY_DIR=$PWD/lib GEMMC_FAMILY_DIR=$PWD/share/gemmc/families \
  PYTHONPATH=$PWD/py
python3 single-call.py --only float32 --f32 ptx > "$o/single-call.txt" 2>&1
cat > ncu-gemv.py <<'PY'
import torch
a = torch.randn(1, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda")
for _ in range(3): torch.mm(a, b)
torch.cuda.synchronize()
PY
ncu --section LaunchStats --section SpeedOfLight --section Occupancy \
  -k regex:gemv -c 1 python3 ncu-gemv.py > "$o/ncu-torch-gemv.txt" 2>&1
ncu --section LaunchStats --section SpeedOfLight --section Occupancy \
  --section MemoryWorkloadAnalysis -k regex:g128s16u2 -c 1 bin/gemm-bench \
  --dtype f32 --layout rrr --size 1x4096x4096 --splits 8 --runs 2 \
  --warmup 1 ptx/g128s16u2.ptx > "$o/ncu-g128s16u2.txt" 2>&1
(cd "$o" && tar czf gemv-probe.tgz *.txt *.csv)
