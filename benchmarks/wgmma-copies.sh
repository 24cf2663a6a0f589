#!/usr/bin/env bash
# wgmma fed by the producer's threads instead of TMA (docs/benchmarks.md,
# "wgmma without TMA"): the kernels, then, on the GPU machine, their speed
# beside cuBLAS, random sweeps and compute-sanitizer.
#
#   benchmarks/wgmma-copies.sh compile DIR   (here: gemmc writes DIR/k/*.ptx)
#   DIR/wgmma-copies.sh run DIR              (there: DIR/bin/gemm-bench; to $OUT)
set -uo pipefail
mode=${1:?compile or run} dir=${2:?folder}
if [ "$mode" = compile ]; then
  . "$(dirname "$0")/gen-kernel.sh"
  w="pipeline stages 4; warp-specialize 2; persistent; raster 8"
  t128="tile 128x128x64; wgmma m64n128k16; $w"
  t256="tile 128x256x64; wgmma m64n256k16; $w"
  gen d_f16_w1 ? ? ? f16 rrr "$t128"
  gen d_f16_w1_256 ? ? ? f16 rrr "$t256"
  gen d_f16_a4_tmab ? ? ? f16 rrr "$t128; tma b; vectorize global-load a 4"
  gen d_f16_v8 ? ? ? f16 rrr "$t256; vectorize global-load a 8 global-load b 8"
  gen d_f16_tma ? ? ? f16 rrr "$t256; tma a b"
  gen d_f16_rcr_w1 ? ? ? f16 rcr "$t128"
  gen d_bf16_crr_w2 ? ? ? bf16 crr "$t128; vectorize global-load a 2 global-load b 2"
  gen d_tf32_w1 ? ? ? f32 rcr "tile 128x128x32; wgmma m64n128k8; $w" "math = tf32"
  gen d_f16_splitk ? ? ? f16 rrr "tile 128x128x64; wgmma m64n128k16; pipeline stages 4; warp-specialize 2; split-k 4"
  gen d_f16_tmac ? ? ? f16 rrr "$t128; tma c"
  gen d_f16_1c ? ? ? f16 rrr "tile 64x128x64; wgmma m64n128k16; pipeline stages 3; warp-specialize 1"
  gen s_odd 4095 4097 4093 f16 rrr "$t128"
  gen s_odd256 4095 4097 4093 f16 rrr "$t256"
  gen s_3000 3000 5000 700 f16 rrr "$t256; tma b; vectorize global-load a 4"
  gen s_3000w 3000 5000 700 f16 rrr "$t128; tma b; vectorize global-load a 4"
  gen s_conv 401408 64 147 f16 rrr "tile 128x64x64; wgmma m64n64k16; $w; tma b"
  w3="pipeline stages 3; warp-specialize 2; persistent; raster 8"
  w6="pipeline stages 6; warp-specialize 2; persistent; raster 8"
  gen s_odd256_3 4095 4097 4093 f16 rrr "tile 128x256x64; wgmma m64n256k16; $w3"
  gen s_odd_6 4095 4097 4093 f16 rrr "tile 128x128x64; wgmma m64n128k16; $w6"
  exit 0
fi
cd "$dir"
o=${OUT:-out}/copies; mkdir -p "$o"
trap 'tar -C "$(dirname "$o")" -czf "$(dirname "$o")/copies.tgz" copies' EXIT
B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
$B --runs 10 --warmup 3 k/s_odd.ptx k/s_odd256.ptx k/s_odd256_3.ptx \
  k/s_odd_6.ptx k/s_3000.ptx k/s_3000w.ptx k/s_conv.ptx > "$o/static.log" 2>&1
$B --size 4095x4097x4093,3000x5000x700,4096,8192 --runs 10 --warmup 3 \
  k/d_f16_w1.ptx k/d_f16_w1_256.ptx k/d_f16_v8.ptx k/d_f16_tma.ptx \
  k/d_f16_a4_tmab.ptx k/d_f16_tmac.ptx > "$o/f16.log" 2>&1
$B --size 4096,4095x4097x4093 --runs 10 --warmup 3 --math tf32 --layout rcr \
  k/d_tf32_w1.ptx > "$o/tf32.log" 2>&1
$B --size 4096 --runs 10 --warmup 3 --layout crr k/d_bf16_crr_w2.ptx > "$o/bf16.log" 2>&1
for p in k/d_*.ptx; do
  n=$(basename "$p" .ptx)
  $B --sweep random --count 60 --max-size 1500 --seed 42 "$p" > "$o/sweep-$n.log" 2>&1
  echo "sweep $n: $(grep -E '^sweep:' "$o/sweep-$n.log")"
done
for n in d_f16_w1 d_f16_v8 d_f16_a4_tmab d_tf32_w1; do
  extra=(); [ $n = d_tf32_w1 ] && extra=(--math tf32 --layout rcr)
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool $B --size 517x389x301 --runs 1 --warmup 0 \
      --no-cublas "${extra[@]}" k/$n.ptx > "$o/$tool-$n.log" 2>&1
    echo "$tool $n: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/$tool-$n.log")"
  done
done
