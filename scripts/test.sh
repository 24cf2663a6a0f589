#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (lit, through
# ctest). .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}

bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir "$build" --output-on-failure
