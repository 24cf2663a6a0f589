#!/usr/bin/env bash
# Configures (once) and builds gemmc, gemmc-opt and the runtime into
# ${GEMMC_BUILD_DIR:-build}. Assumes scripts/setup.sh has run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}

if [ ! -f "$build/build.ninja" ]; then
  # Clang builds everything, and its libFuzzer builds the front-end fuzzer
  # (without Clang the fuzzer and its test are skipped).
  tools=()
  if command -v clang++ >/dev/null 2>&1; then
    tools+=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  fi
  if command -v ld.lld >/dev/null 2>&1; then tools+=(-DLLVM_USE_LINKER=lld); fi
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${tools[@]}"
fi
# Two jobs: the machines have two cores, and MLIR's headers are heavy.
ninja -C "$build" -j "${GEMMC_JOBS:-2}" all
