#!/usr/bin/env bash
# Split-K whose splits the launch chooses (`split-k ?`, docs/dsl.md): the
# kernels, then, on the GPU machine, random sweeps through every count they
# may take, compute-sanitizer, their speed beside cuBLAS and the shipped
# families on long-K and skinny problems, and the time at each count of
# splits beside the cost model's choice (docs/benchmarks.md).
#
#   benchmarks/splits-at-launch.sh compile DIR   (here: gemmc writes DIR/k/*.ptx)
#   DIR/splits-at-launch.sh run DIR              (there: DIR/bin/gemm-bench,
#                                                 DIR/fam/*.ptx; to $OUT)
set -uo pipefail
mode=${1:?compile or run} dir=${2:?folder}
if [ "$mode" = compile ]; then
  . "$(dirname "$0")/gen-kernel.sh"
  ws="tma a b c; split-k ?"
  gen z_w64x64 ? ? ? f16 rrr "tile 64x64x64; wgmma m64n64k16; pipeline stages 8; warp-specialize 1; $ws"
  gen z_w64x128 ? ? ? f16 rrr "tile 64x128x64; wgmma m64n128k16; pipeline stages 8; warp-specialize 1; $ws"
  gen z_w128x64 ? ? ? f16 rrr "tile 128x64x64; wgmma m64n64k16; pipeline stages 6; warp-specialize 2; $ws"
  gen z_w128x128 ? ? ? f16 rrr "tile 128x128x64; wgmma m64n128k16; pipeline stages 4; warp-specialize 2; $ws"
  gen z_w128x256 ? ? ? f16 rrr "tile 128x256x64; wgmma m64n256k16; pipeline stages 4; warp-specialize 2; $ws"
  mma="mma m16n8k16; promote a b swizzle; vectorize global-load 8 shared-load 1 shared-store 1 global-store 2; pipeline stages 3 cp-async; split-k ?"
  gen z_m32x32 ? ? ? f16 rrr "tile 32x32x32; warp-tile 16x16; $mma"
  gen z_m64x64 ? ? ? f16 rrr "tile 64x64x32; warp-tile 32x32; $mma"
  x3="vectorize global-load 4 shared-load 1 shared-store 1 global-store 1; split-k ?"
  gen z_x128x128 ? ? ? f32 rrr "tile 128x128x32; wgmma m64n128k8; pipeline stages 3; warp-specialize 2; $x3" "math = tf32x3"
  gen z_x64x128 ? ? ? f32 rrr "tile 64x128x32; wgmma m64n128k8; pipeline stages 4; warp-specialize 1; $x3" "math = tf32x3"
  gen z_x128x64 ? ? ? f32 rrr "tile 128x64x32; wgmma m64n64k8; pipeline stages 4; warp-specialize 2; $x3" "math = tf32x3"
  gen z_s32x32 ? ? ? f32 rrr "tile 32x32x32; warp-tile 32x32; register-tile 4x8; promote a b pad 4 transpose-a; vectorize global-load 4; split-k ?"
  cat > "$dir/longk.txt" <<'EOF'
64x64x16384
8x8x8192
128x8x8192
64x64x100000
128x128x200000
16x16x500000
256x256x131072
1024x1024x100000
32x1024x100000
EOF
  cat > "$dir/skinny.txt" <<'EOF'
24x37888x3584
40x4672x4544
40x18176x4544
32x15360x5120
50x7680x2560
64x4096x4096
1200x4544x18176
256x36864x12288
1x3072x4096
EOF
  exit 0
fi
cd "$dir"
o=${OUT:-out}/splits; mkdir -p "$o"
trap 'tar -C "$(dirname "$o")" -czf "$(dirname "$o")/splits.tgz" splits' EXIT
B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
f16=(k/z_w*.ptx k/z_m*.ptx) f32=(k/z_x*.ptx k/z_s*.ptx)
# Correct first: random sizes, leading dimensions and beta, each case at a
# random count of splits (empty splits past K included).
for p in "${f16[@]}" "${f32[@]}"; do
  n=$(basename "$p" .ptx)
  $B --sweep random --count 60 --max-size 2000 --seed 7 "$p" > "$o/sweep-$n.log" 2>&1
  echo "sweep $n: $(grep -E '^sweep:' "$o/sweep-$n.log")"
done
for n in z_w64x64 z_m32x32; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 $B --sweep random \
      --count 3 --max-size 300 --seed 3 k/$n.ptx > "$o/$tool-$n.log" 2>&1
    echo "$tool $n: exit $? $(grep -cE 'ERROR SUMMARY: 0|RACECHECK SUMMARY: 0 ' "$o/$tool-$n.log")"
  done
done
# Speed beside cuBLAS and the shipped family, the model's count of splits.
$B --shapes longk.txt --runs 10 --warmup 3 --csv "$o/longk-f16.csv" \
  fam/f16_rrr.ptx "${f16[@]}" > "$o/longk-f16.log" 2>&1
$B --shapes longk.txt --runs 10 --warmup 3 --csv "$o/longk-f32.csv" \
  fam/f32_rrr.ptx "${f32[@]}" > "$o/longk-f32.log" 2>&1
$B --shapes skinny.txt --runs 10 --warmup 3 --csv "$o/skinny-f16.csv" \
  fam/f16_rrr.ptx "${f16[@]}" > "$o/skinny-f16.log" 2>&1
$B --shapes skinny.txt --runs 10 --warmup 3 --csv "$o/skinny-f32.csv" \
  fam/f32_rrr.ptx "${f32[@]}" > "$o/skinny-f32.log" 2>&1
tail -n 14 "$o/longk-f16.log" "$o/longk-f32.log"
# Every count of splits on a few problems: is the model's choice the best?
for s in 1 2 4 8 16 24 32 48 64 96 128; do
  for size in 64x64x16384 64x64x100000 128x128x200000 16x16x500000; do
    $B --size $size --runs 10 --warmup 3 --splits $s --csv "$o/s$s-$size.csv" \
      k/z_w64x64.ptx k/z_w128x64.ptx k/z_m32x32.ptx > /dev/null 2>&1
    $B --size $size --runs 10 --warmup 3 --splits $s --csv "$o/x$s-$size.csv" \
      k/z_x128x64.ptx k/z_x64x128.ptx > /dev/null 2>&1
  done
done
echo done
