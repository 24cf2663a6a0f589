#!/usr/bin/env bash
# The activations (relu, gelu, gelu-tanh, silu) on every kernel kind (SIMT
# f32 and mma.sync f16 for sm_80, wgmma bf16 and FP8 for sm_90a; alpha-beta
# and a column bias, sizes at launch), 30 random cases each; then, where
# DIR/fz.tar.gz holds gemmc-schedule-fuzz --out output, the fuzzer's
# kernels.
#   benchmarks/activations-gpu.sh prepare DIR   # here: the PTX
#   bash DIR/activations-gpu.sh run             # there: results in $OUT
# Results: benchmarks/results/h100-issue33/activation-sweeps.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  dir=$2 gemmc=${GEMMC:-$root/build/bin/gemmc}
  mkdir -p "$dir/bin"
  cp "$root/build/bin/gemm-bench" "$dir/bin/"
  cp "$0" "$root/runtime/scripts/fuzz-gpu.sh" "$dir/"
  for act in relu gelu gelu-tanh silu; do
    for kind in simt mma wgmma fp8; do
      case $kind in
      simt) P="a = f32 row b = f32 row c = f32 row" A=sm_80
        S="tile 64x64x8 register-tile 4x4 promote a b" ;;
      mma) P="a = f16 row b = f16 row c = f16 row" A=sm_80
        S="tile 128x256x64 warp-tile 64x64 mma m16n8k16 promote a b swizzle vectorize global-load 8 global-store 2 pipeline stages 3 registers cp-async raster 8 unroll 1" ;;
      wgmma) P="a = bf16 row b = bf16 col c = f32 row" A=sm_90a
        S="tile 128x128x64 wgmma m64n128k16 tma a b c pipeline stages 4 warp-specialize 2 persistent" ;;
      fp8) P="a = e4m3 row b = e4m3 col c = bf16 row scales = rowwise" A=sm_90a
        S="tile 128x128x128 wgmma m64n128k32 tma a b pipeline stages 4 warp-specialize 2 persistent" ;;
      esac
      cat > "$dir/${kind}_$act.gemm" <<GEMM
kernel ${kind}_${act//-/_} {
  problem { m = ? n = ? k = ? $P epilogue = alpha-beta bias = col activation = $act }
  schedule { $S }
}
GEMM
      "$gemmc" --arch=$A "$dir/${kind}_$act.gemm" -o "$dir/${kind}_$act.ptx" ||
        exit 1
    done
  done
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
for f in *.ptx; do
  echo "$f $($B --sweep random --count 30 --max-size 700 $f 2>&1 | grep 'results,')"
done | tee "$O/activation-sweeps.txt"
if [ -f fz.tar.gz ]; then
  mkdir -p fz && tar xzf fz.tar.gz -C fz
  bash fuzz-gpu.sh $B fz --jobs 12 --memcheck 12 --out "$O/fuzz" 2>&1 | tail -6
fi
