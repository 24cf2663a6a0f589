#!/usr/bin/env bash
# f32 on wgmma through the producer's threads (docs/benchmarks.md, "f32 on
# wgmma"): math = tf32x3 (each element split into its tf32 part and the
# remainder as it is copied) and plain tf32 with M/N-major operands
# transposed on the way; the kernels, then, on the GPU machine, their speed
# beside cuBLAS SGEMM, random sweeps and compute-sanitizer.
#
#   benchmarks/wgmma-tf32x3.sh compile DIR   (here: gemmc writes DIR/k/*.ptx)
#   DIR/wgmma-tf32x3.sh run DIR              (there: DIR/bin/gemm-bench; to $OUT)
set -uo pipefail
mode=${1:?compile or run} dir=${2:?folder}
if [ "$mode" = compile ]; then
  . "$(dirname "$0")/gen-kernel.sh"
  w="pipeline stages 3; warp-specialize 2; persistent; raster 8"
  t="tile 128x128x32; wgmma m64n128k8; $w"
  v() { echo "vectorize global-load a $1 global-load b $2"; }
  Q=\?
  gen x3_44 $Q $Q $Q f32 rrr "$t; $(v 4 4)" "math = tf32x3"
  gen x3_44c $Q $Q $Q f32 rrr "$t; tma c; $(v 4 4)" "math = tf32x3"
  gen x3_42 $Q $Q $Q f32 rrr "$t; $(v 4 2)" "math = tf32x3"
  gen x3_11 $Q $Q $Q f32 rrr "$t" "math = tf32x3"
  gen x3_rcr $Q $Q $Q f32 rcr "$t; $(v 4 4)" "math = tf32x3"
  gen x3_crr $Q $Q $Q f32 crr "$t; $(v 4 4)" "math = tf32x3"
  gen x3_ccr11 $Q $Q $Q f32 ccr "$t" "math = tf32x3"
  gen x3_rrc $Q $Q $Q f32 rrc "$t; $(v 2 4)" "math = tf32x3"
  gen x3_64x128 $Q $Q $Q f32 rrr "tile 64x128x32; wgmma m64n128k8; pipeline stages 4; warp-specialize 1; persistent; $(v 4 4)" "math = tf32x3"
  gen x3_128x64 $Q $Q $Q f32 rrr "tile 128x64x32; wgmma m64n64k8; pipeline stages 4; warp-specialize 2; persistent; $(v 1 1)" "math = tf32x3"
  gen x3_sk4 $Q $Q $Q f32 rrr "tile 128x128x32; wgmma m64n128k8; pipeline stages 3; warp-specialize 2; split-k 4; $(v 4 4)" "math = tf32x3"
  gen x3_sk16 $Q $Q $Q f32 rrr "tile 64x128x32; wgmma m64n128k8; pipeline stages 4; warp-specialize 1; split-k 16; $(v 4 1)" "math = tf32x3"
  gen x3_epi $Q $Q $Q f32 rrr "$t; $(v 4 4)" "math = tf32x3; epilogue = alpha-beta; bias = row; activation = relu"
  gen t1_rrr $Q $Q $Q f32 rrr "$t; $(v 4 4)" "math = tf32"
  gen t1_crr $Q $Q $Q f32 crr "$t; $(v 1 4)" "math = tf32"
  gen t1_ccc $Q $Q $Q f32 ccc "$t; tma b; vectorize global-load a 2" "math = tf32"
  gen s_4096 4096 4096 4096 f32 rrr "$t; tma c; $(v 4 4)" "math = tf32x3"
  gen s_odd 4095 4097 4093 f32 rrr "$t" "math = tf32x3"
  gen s_vocab 1500 51866 1280 f32 rrr "$t; $(v 4 2)" "math = tf32x3"
  exit 0
fi
cd "$dir"
o=${OUT:-out}/tf32x3; mkdir -p "$o"
trap 'tar -C "$(dirname "$o")" -czf "$(dirname "$o")/tf32x3.tgz" tf32x3' EXIT
B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
$B --runs 10 --warmup 3 k/s_4096.ptx k/s_odd.ptx k/s_vocab.ptx > "$o/static.log" 2>&1
$B --size 4096,8192,4095x4097x4093,3000x5000x700,1500x51866x1280,64x4096x4096 \
  --runs 10 --warmup 3 k/x3_44.ptx k/x3_44c.ptx k/x3_42.ptx k/x3_11.ptx \
  k/x3_64x128.ptx k/x3_128x64.ptx k/x3_sk4.ptx k/x3_sk16.ptx > "$o/rrr.log" 2>&1
$B --size 4096,8192 --runs 10 --warmup 3 --layout rcr k/x3_rcr.ptx > "$o/rcr.log" 2>&1
$B --size 4096,8192 --runs 10 --warmup 3 --layout crr k/x3_crr.ptx > "$o/crr.log" 2>&1
$B --size 4096,8192 --runs 10 --warmup 3 --math tf32 k/t1_rrr.ptx > "$o/tf32.log" 2>&1
for seed in 1 2 3; do
  $B --sweep random --count 200 --max-size 1500 --seed $seed k/x3_*.ptx k/t1_*.ptx \
    > "$o/sweep-$seed.log" 2>&1
done
grep -h '^sweep:' "$o"/sweep-*.log
compute-sanitizer --tool memcheck $B --sweep random --count 14 --max-size 300 \
  --seed 9 k/x3_*.ptx k/t1_*.ptx > "$o/memcheck.log" 2>&1
grep -h 'ERROR SUMMARY' "$o/memcheck.log"
