#!/usr/bin/env bash
# Builds, runs the schedule fuzzer's CPU part (scripts/fuzz-schedules.sh)
# and gathers what its GPU part needs into .device/fuzz (git-ignored):
# gemm-bench, runtime/scripts/fuzz-gpu.sh, and the sm_90a PTX of every
# accepted schedule (the fuzzer compiles for sm_90a and sm_80) and of the
# regression corpus (test/fuzz/regressions), in one archive. Then, on the GPU machine:
#   cd .device/fuzz && tar xzf ptx.tar.gz &&
#     bash fuzz-gpu.sh bin/gemm-bench ptx --jobs 12 --memcheck 40 --out "$OUT"
#
# usage: scripts/prepare-gpu-fuzz.sh [--seed S] [--count N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
seed=1 count=2000
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    *) echo "prepare-gpu-fuzz: unknown option '$1'" >&2; exit 2 ;;
  esac
done
bash scripts/build.sh
# Its failures are for the CPU part to fix; the GPU part runs regardless.
bash scripts/fuzz-schedules.sh --seed "$seed" --count "$count" \
  --out "$build/schedule-fuzz-$seed" || echo "prepare-gpu-fuzz: the CPU part failed (above)"
dest=.device/fuzz
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/ptx"
cp "$build/bin/gemm-bench" "$dest/bin/"
cp runtime/scripts/fuzz-gpu.sh "$dest/"
cp "$build/schedule-fuzz-$seed"/*.sm_90a.ptx "$build/schedule-fuzz-$seed"/*.gemm "$dest/ptx/"
for f in test/fuzz/regressions/*.gemm; do
  name=$(basename "$f" .gemm)
  "$build/bin/gemmc" "$f" --arch=sm_90a -o "$dest/ptx/$name.sm_90a.ptx"
  cp "$f" "$dest/ptx/"
done
(cd "$dest" && tar czf ptx.tar.gz ptx && rm -rf ptx)
du -sh "$dest"
