#!/usr/bin/env bash
# Stream-K beside the persistent kernel (docs/benchmarks.md, "Stream-K").
#   benchmarks/stream-k.sh compile DIR   # here: schedules and PTX into DIR
#   benchmarks/stream-k.sh run DIR       # on the GPU machine, DIR holding
#                                        # the PTX, bin/gemm-bench, fam/
# `run` writes sweeps, timings (times.txt: kernel, problem, ms, ratio to
# cuBLAS in the kernel's own process) and logs under $OUT/sk.
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
# Each kernel in a process of its own, beside cuBLAS in that process (a
# kernel that hangs takes only its own run down).
sizes=$(grep -v '^#' "$here/stream-k-shapes.txt" | paste -sd, -)
for k in sk_a p_a sk_b p_b sk_c p_c; do
  timeout 200 bin/gemm-bench --size "$sizes" --runs 10 --warmup 3 $k.ptx \
    > "$o/time-$k.log" 2>&1 || true
done
# kernel, problem, ms, x cuBLAS of its own process
grep -h -E ' (PASS|FAIL) ' "$o"/time-*.log | grep -v '^cuBLAS' |
  awk '{print $1, $2, $4, $6}' | sort -k2,2 -k1,1 > "$o/times.txt"
