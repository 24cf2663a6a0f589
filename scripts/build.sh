#!/usr/bin/env bash
# Configures (once) and builds gemmc, gemmc-opt and the runtime into
# ${GEMMC_BUILD_DIR:-build}. Assumes scripts/setup.sh has run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}

if [ ! -f "$build/build.ninja" ]; then
  # Clang builds everything, and its libFuzzer builds the front-end fuzzer
  # (without Clang the fuzzer and its test are skipped).
  # GEMMC_HOST_COMPILER=gcc builds with GCC instead (the test suite checks
  # that both builds emit the same PTX).
  tools=()
  if [ "${GEMMC_HOST_COMPILER:-clang}" = gcc ]; then
    tools+=(-DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++)
  elif command -v clang++ >/dev/null 2>&1; then
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
# GEMMC_TARGETS: what to build (default all).
ninja -C "$build" -j "${GEMMC_JOBS:-2}" ${GEMMC_TARGETS:-all}
