#!/usr/bin/env bash
# Ping-pong consumers of 192 values whose epilogue reads vectors (rowwise
# scales, a column bias, R, beta * C: 24 + 2 x 240 registers,
# Schedule/Warpgroup.cpp): e4m3 (fast sums) and f16 128x192 tiles, C of 16
# and 32 bits, sizes at launch; ptxas's spills here, then 40 random cases
# each on the GPU against cuBLAS and fp64.
#   benchmarks/epilogue/ping-pong-grid.sh prepare DIR   # here
#   bash DIR/ping-pong-grid.sh                          # there: $OUT
# Results: benchmarks/results/h100-issue33/ping-pong-epilogue-sweeps.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/../.." && pwd) dir=${2:?folder}
  mkdir -p "$dir/k"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  i=0
  for ty in fp8 f16; do
    kk=16; [ $ty = fp8 ] && kk=32
    for c in narrow f32; do
      [ $c = narrow ] && { [ $ty = fp8 ] && c=bf16 || c=f16; }
      epis=("bias = col" "epilogue = alpha-beta" "residual = add"
            "epilogue = alpha-beta|bias = col|activation = gelu-tanh|residual = add")
      [ $ty = fp8 ] && epis+=("scales = rowwise" "scales = rowwise|activation = gelu|bias = row")
      for e in "${epis[@]}"; do
        i=$((i + 1)); name=g${i}_${ty}_$c
        {
          echo "kernel $name {"
          echo "  problem {"
          echo "    m = ?"; echo "    n = ?"; echo "    k = ?"
          if [ $ty = fp8 ]; then
            echo "    a = e4m3 row"; echo "    b = e4m3 col"; echo "    math = fast-accumulate"
          else
            echo "    a = f16 row"; echo "    b = f16 col"
          fi
          echo "    c = $c row"
          IFS='|' read -ra parts <<< "$e"
          for p in "${parts[@]}"; do echo "    $p"; done
          echo "  }"
          echo "  schedule {"
          echo "    tile 128x192x$((kk * 4))"; echo "    wgmma m64n192k$kk"; echo "    tma a b c"
          echo "    pipeline stages 4"; echo "    warp-specialize 2 ping-pong"
          echo "    persistent"; echo "    raster 8"
          echo "  }"
          echo "}"
        } > "$dir/k/$name.gemm"
        "$root/build/bin/gemmc" --arch=sm_90a "$dir/k/$name.gemm" -o "$dir/k/$name.ptx" 2> /dev/null || exit 1
        echo "$name: $(/usr/local/cuda/bin/ptxas -arch=sm_90a -v "$dir/k/$name.ptx" -o /dev/null 2>&1 |
          grep -o '[0-9]* bytes spill stores')"
      done
    done
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
for p in k/*.ptx; do
  n=$(basename $p .ptx)
  echo "$n: $(./gemm-bench --sweep random --count 40 --max-size 1200 --seed 7 $p 2>&1 | grep -a 'results,')"
done | tee "$O/sweeps.txt"
