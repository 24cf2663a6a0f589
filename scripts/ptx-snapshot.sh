#!/usr/bin/env bash
# What gemmc emits, for a change that must not alter it (a restructuring):
# every example, every Target test's schedule and every shipped family
# compiled for sm_90a, sm_90 and sm_80 (where gemmc accepts it), and the
# PTX of N fuzzed schedules (gemmc-schedule-fuzz, both architectures).
# Snapshot before and after, then compare:
#   scripts/ptx-snapshot.sh /tmp/before [N]   # N fuzzed schedules, default 400
#   ... change, rebuild ...
#   scripts/ptx-snapshot.sh /tmp/after [N] && diff -r /tmp/before /tmp/after
set -uo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
out=${1:?output folder} count=${2:-400}
rm -rf "$out"; mkdir -p "$out/files"
for f in examples/*.gemm test/Target/*.gemm families/*/*.gemm; do
  name=$(echo "$f" | tr / _)
  for arch in sm_90a sm_90 sm_80; do
    "$build/bin/gemmc" --arch=$arch "$f" -o "$out/files/$name.$arch.ptx" \
      2>/dev/null || rm -f "$out/files/$name.$arch.ptx"
  done
done
"$build/bin/gemmc-schedule-fuzz" --seed 32 --count "$count" --arch sm_90a,sm_80 \
  --out "$out/fuzz" > "$out/fuzz.log" 2>&1
echo "$(ls "$out/files" | wc -l) PTX files of the tree, $(find "$out/fuzz" -name '*.ptx' | wc -l) fuzzed"
