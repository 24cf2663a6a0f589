#!/usr/bin/env bash
# Grouped GEMM for mixture-of-experts (docs/benchmarks.md, "Grouped GEMM"):
# the grouped kernels, compiled here, on benchmarks/moe-shapes.txt beside a
# loop of cuBLAS calls (gemm-bench --grouped) and torch._grouped_mm (in its
# own process), a random sweep, and compute-sanitizer on a sample.
#   benchmarks/grouped.sh prepare [DIR]   # here: DIR (default .device/grouped)
#   bash DIR/grouped.sh run               # there: results under $OUT
# Results: benchmarks/results/h100-issue34/.
set -uo pipefail
mode=${1:-prepare}
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  dir=${2:-.device/grouped}
  gemmc=${GEMMC:-build/bin/gemmc}
  rm -rf "$dir"
  mkdir -p "$dir/v" "$dir/bin"
  cp build/bin/gemm-bench "$dir/bin/"
  cp "$0" benchmarks/moe-shapes.txt benchmarks/grouped-torch.py "$dir/"
  "$gemmc" --arch=sm_90a examples/hopper-moe-grouped.gemm \
    -o "$dir/hopper-moe-grouped.ptx" 2>/dev/null || exit 1
  # name, tile BMxBN, wgmma's N, stages, consumers
  mk() {
    cat > "$dir/v/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ? a = bf16 row b = bf16 col c = bf16 row groups = ? }
  schedule { tile $2x64 wgmma m64n$3k16 tma a b pipeline stages $4
             warp-specialize $5 persistent raster 8 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/v/$1.gemm" -o "$dir/v/$1.ptx" 2>/dev/null ||
      exit 1
  }
  mk g128x128 128x128 128 6 2
  mk g128x192 128x192 192 5 2
  mk g64x256 64x256 256 5 1
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
K="hopper-moe-grouped.ptx v/g128x128.ptx v/g128x192.ptx v/g64x256.ptx"
$B --sweep random --count 300 $K > "$O/grouped-sweep.log" 2>&1
grep "cases," "$O/grouped-sweep.log"
grep -c FAIL "$O/grouped-sweep.log"
$B --grouped moe-shapes.txt --runs 20 $K > "$O/grouped-shapes.txt" 2>&1
grep "geomean\|cases," "$O/grouped-shapes.txt"
python3 grouped-torch.py moe-shapes.txt > "$O/grouped-torch.txt" 2>&1
head -3 "$O/grouped-torch.txt"
compute-sanitizer --tool memcheck $B --sweep random --count 6 --seed 7 \
  hopper-moe-grouped.ptx > "$O/grouped-memcheck.txt" 2>&1
tail -2 "$O/grouped-memcheck.txt"
