#!/usr/bin/env bash
# GELU, its tanh form and SiLU through the C API from Python (gemmc.load:
# gemmc_module_load and gemmc_launch), against torch on the same inputs:
# mma.sync f16 kernels with a column bias and wgmma bf16 kernels, sizes at
# launch (docs/library.md).
#   benchmarks/activations-capi.sh prepare [DIR]   # here (default .device/p)
#   bash DIR/activations-capi.sh run               # there, with torch
# Result: benchmarks/results/h100-issue33/activations-capi.txt.
set -euo pipefail
mode=${1:-prepare}
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  dir=${2:-.device/p}
  gemmc=${GEMMC:-build/bin/gemmc}
  rm -rf "$dir"
  bash scripts/python-package.sh build "$dir/pkg" > /dev/null
  mkdir -p "$dir/k"
  cp "$0" benchmarks/activations-capi.py "$dir/"
  for act in gelu gelu-tanh silu; do
    n=$(echo $act | tr - _)
    sed "s/hgemm_dynamic/mma_$n/; s/    c = f16 row/    c = f16 row\n    activation = $act\n    bias = col/" \
      examples/tensorcore-f16-dynamic.gemm > "$dir/k/mma_$n.gemm"
    "$gemmc" --arch=sm_90 "$dir/k/mma_$n.gemm" -o "$dir/k/mma_$n.ptx"
    sed "s/kernel [a-z_0-9]*/kernel wg_$n/; s/    c = bf16 row/    c = bf16 row\n    activation = $act/" \
      examples/hopper-bf16-dynamic.gemm > "$dir/k/wg_$n.gemm"
    "$gemmc" --arch=sm_90a "$dir/k/wg_$n.gemm" -o "$dir/k/wg_$n.ptx"
  done
  exit 0
fi
cd "$(dirname "$0")"
PYTHONPATH=$PWD/pkg python3 activations-capi.py | tee "${OUT:-/tmp}/activations-capi.txt"
