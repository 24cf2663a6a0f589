#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (lit, through
# ctest). .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}

# Each step's time goes to the log: the suite is meant to take at most 20
# minutes from a clean clone on 2 cores.
step() { local t=$SECONDS; "$@"; echo "test.sh: $((SECONDS - t)) s: $*"; }

step bash scripts/setup.sh
step bash scripts/build.sh
# gemmc must build, pass its tests and emit the same output whichever host
# compiler built it: a second build by GCC (the main one uses Clang) must
# compile the shipped families (every variant of every dtype, layout and
# arch) to the same PTX as the main build, runs the lit suite and the unit
# tests, and the schedule fuzzer compares its PTX with the main build's.
# Its lit suite leaves ptxas out: the PTX it would assemble is the main
# build's, which the main suite assembles.
if command -v g++ >/dev/null 2>&1 && command -v clang++ >/dev/null 2>&1; then
  export GEMMC_OTHER_BUILD_DIR=${GEMMC_OTHER_BUILD_DIR:-$build-gcc}
  GEMMC_BUILD_DIR=$GEMMC_OTHER_BUILD_DIR GEMMC_HOST_COMPILER=gcc \
    step bash scripts/build.sh
  step diff -r "$build/share/gemmc/families" \
    "$GEMMC_OTHER_BUILD_DIR/share/gemmc/families"
  GEMMC_LIT_NO_PTXAS=1 \
    step ctest --test-dir "$GEMMC_OTHER_BUILD_DIR" --output-on-failure \
      -R '^lit$|-unit$'
fi
# Two tests at once: lit's last long tests and the fuzzer's shards leave a
# core idle at their ends, which the other fills.
step ctest --test-dir "$build" --output-on-failure -j "${GEMMC_TEST_JOBS:-2}"
echo "test.sh: $SECONDS s in all"
