#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (lit, through
# ctest). .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}

bash scripts/setup.sh
bash scripts/build.sh
# The schedule fuzzer compares its PTX with that of a build by the other
# host compiler (GCC; the main build uses Clang): gemmc's output must not
# depend on it.
if command -v g++ >/dev/null 2>&1 && command -v clang++ >/dev/null 2>&1; then
  export GEMMC_OTHER_BUILD_DIR=${GEMMC_OTHER_BUILD_DIR:-$build-gcc}
  GEMMC_BUILD_DIR=$GEMMC_OTHER_BUILD_DIR GEMMC_HOST_COMPILER=gcc \
    GEMMC_TARGETS=gemmc-schedule-fuzz bash scripts/build.sh
fi
ctest --test-dir "$build" --output-on-failure
