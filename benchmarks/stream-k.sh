#!/usr/bin/env bash
# Stream-K beside the persistent kernel (docs/benchmarks.md, "Stream-K").
#   benchmarks/stream-k.sh compile DIR   # here: schedules and PTX into DIR
#   benchmarks/stream-k.sh run DIR       # on the GPU machine, DIR holding
#                                        # the PTX, bin/gemm-bench, fam/
# `run` writes sweeps, timings (--results TSV) and logs under $OUT/sk.
set -euo pipefail
mode=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
schedule() { # name type tile wgmma stages consumers tma persistent [math]
  cat > "$dir/$1.gemm" <<GEMM
kernel $1 {
  problem {
    m = ? n = ? k = ?
    a = $2 row  b = $2 row  c = $2 row
    ${9:-}
  }
  schedule { tile $3  wgmma $4  ${7:+$7 } pipeline stages $5  warp-specialize $6  $8  raster 8 }
}
GEMM
}
if [ "$mode" = compile ]; then
  mkdir -p "$dir"
  schedule sk_a f16 128x256x64 m64n256k16 4 2 "tma a b c" "persistent stream-k"
  schedule sk_b f16 128x128x64 m64n128k16 6 2 "tma a b c" "persistent stream-k"
  schedule sk_c f16 64x128x64 m64n128k16 8 1 "tma a b c" "persistent stream-k"
  schedule sk_d f16 128x128x64 m64n128k16 4 2 "tma a" "persistent stream-k"
  schedule sk_e bf16 128x256x64 m64n256k16 4 2 "tma a b c" "persistent stream-k"
  schedule sk_f f32 128x128x32 m64n128k8 3 2 "" "persistent stream-k" "math = tf32x3"
  schedule p_a f16 128x256x64 m64n256k16 4 2 "tma a b c" persistent
  schedule p_b f16 128x128x64 m64n128k16 6 2 "tma a b c" persistent
  schedule p_c f16 64x128x64 m64n128k16 8 1 "tma a b c" persistent
  for f in "$dir"/*.gemm; do
    "${GEMMC:-$here/../build/bin/gemmc}" --arch=sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  exit 0
fi
cd "$dir"; o=${OUT:-out}/sk; mkdir -p "$o"
for k in sk_a sk_b sk_c sk_d sk_e sk_f; do
  bin/gemm-bench --sweep random --count 60 --max-size 2000 --seed 7 $k.ptx \
    > "$o/sweep-$k.log" 2>&1 || true
  echo "$k: $(tail -1 "$o/sweep-$k.log")"
done
bin/gemm-bench --shapes "$here/stream-k-shapes.txt" --runs 10 --warmup 3 \
  --results "$o/stream-k.tsv" sk_a.ptx sk_b.ptx sk_c.ptx p_a.ptx p_b.ptx \
  p_c.ptx fam/f16_rrr.ptx > "$o/stream-k.log" 2>&1
