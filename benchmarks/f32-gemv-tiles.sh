#!/usr/bin/env bash
# f32 at M = 1 (cuBLAS's GEMV): wide SIMT tiles staged by cp.async at fixed
# counts of splits, beside the f32 family (docs/benchmarks.md, "Where the
# time still goes"; results/h100-issue31/f32-gemv-tiles.txt).
#   benchmarks/f32-gemv-tiles.sh compile DIR  # here: schedules and PTX
#   benchmarks/f32-gemv-tiles.sh run DIR      # on the GPU machine, DIR
#       holding the PTX, bin/gemm-bench and f32_rrr.ptx (the family)
set -euo pipefail
mode=$1 dir=$2
schedule() { # name tile register-tile splits promote stages
  cat > "$dir/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ?  a = f32 row  b = f32 row  c = f32 row }
  schedule { tile $2  register-tile $3  promote $5  vectorize global-load 4
             pipeline stages $6 cp-async  split-k $4 }
}
GEMM
}
if [ "$mode" = compile ]; then
  mkdir -p "$dir"
  for s in 8 16 32 64; do
    schedule gva$s 8x256x32 8x4 $s "a b" 3
    schedule gvb$s 8x128x32 8x2 $s b 4
    schedule gvc$s 8x64x64 8x1 $s b 3
  done
  for f in "$dir"/gv*.gemm; do
    "${GEMMC:-build/bin/gemmc}" --arch sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  exit 0
fi
cd "$dir"
printf '%s\n' 1x4096x4096 1x2560x2560 1x1000x2048 1x11008x4096 \
  1x4096x11008 8x4096x4096 1x768x768 > shapes.txt
mkdir -p "$OUT"
bin/gemm-bench --shapes shapes.txt --runs 20 --warmup 5 \
  --csv "$OUT/f32-gemv-tiles.csv" gv*.ptx f32_rrr.ptx | tee "$OUT/f32-gemv-tiles.txt"
