#!/usr/bin/env bash
# f32 decode (M of 1 to 64, cuBLAS's GEMV and skinny SGEMM): register tiles
# that read global memory themselves (no `promote`: B's rows in 16-byte
# loads, the loop over K unrolled so that a thread's reads are in flight
# together) at the count of splits chosen at launch, beside the f32 family
# (docs/benchmarks.md, "Where the time still goes"; results/h100-issue30/
# f32-gemv.txt). The shapes are training problems (workloads-train.txt).
# These explored the kernel; the family's own are gemmc-tune's `_gv` part.
#   benchmarks/f32-gemv-tiles.sh compile DIR  # here: schedules and PTX
#   bash DIR/f32-gemv-tiles.sh run DIR        # on the GPU machine, DIR
#       holding the PTX, bin/gemm-bench and f32_rrr.ptx (the family)
set -euo pipefail
mode=$1 dir=$2
schedule() { # name tile register-tile unroll
  cat > "$dir/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ?  a = f32 row  b = f32 row  c = f32 row }
  schedule { tile $2  register-tile $3
             vectorize global-load 4 global-store 4  unroll $4  split-k ? }
}
GEMM
}
if [ "$mode" = compile ]; then
  mkdir -p "$dir"
  cp "$0" "$dir/"
  schedule gv1x1024u8 1x1024 1x4 8
  schedule gv1x512u4 1x512 1x4 4
  schedule gv1x512u8 1x512 1x4 8
  schedule gv1x2048u4 1x2048 1x8 4
  schedule gv2x512u8 2x512 2x4 8
  schedule gv4x512u4 4x512 4x4 4
  schedule gv8x512u4 8x512 8x4 4
  schedule gv8x256u8 8x256 8x4 8
  schedule gv16x256u4 16x256 16x4 4
  for f in "$dir"/gv*.gemm; do
    "${GEMMC:-build/bin/gemmc}" --arch sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  exit 0
fi
cd "$dir"
printf '%s\n' 1x4096x4096 1x12288x4096 1x4096x11008 1x5120x5120 \
  1x1600x1600 1x2304x768 1x1280x5120 1x32000x4096 2x4096x4096 4x4096x4096 \
  5x1280x1280 8x4096x4096 8x1000x4096 16x4096x4096 24x3584x3584 \
  32x5120x5120 40x4544x4544 50x2560x2560 64x6144x4096 > shapes.txt
mkdir -p "$OUT"
bin/gemm-bench --shapes shapes.txt --runs 20 --warmup 5 \
  --csv "$OUT/f32-gemv.csv" gv*.ptx f32_rrr.ptx > "$OUT/f32-gemv.txt" 2>&1
grep -v "^\[" "$OUT/f32-gemv.txt" | tail -40
# The kernels alone at forced counts of splits, on the problems of M = 1.
printf '%s\n' 1x4096x4096 1x12288x4096 1x4096x11008 1x1600x1600 1x2304x768 \
  1x1280x5120 1x32000x4096 8x4096x4096 > m1.txt
for s in 16 32 64 128; do
  bin/gemm-bench --shapes m1.txt --runs 20 --warmup 5 --splits $s \
    --csv "$OUT/gv-s$s.csv" gv*.ptx > "$OUT/gv-s$s.txt" 2>&1
done
