#!/usr/bin/env bash
# GELU into an f32 C (Lowering/Epilogue.cpp, geluByErfc with Q of degree 8):
# the cost, old and new compiler in one process beside cuBLAS (wgmma
# 128x256x64, cluster 2x1, f16 inputs, 4096^3 and 8192^3, beside the same
# kernel without GELU), then the fuzzer's case that failed (gelu_f32_fam.gemm
# at 1x1x15), 30 random cases through it and 400 through a SIMT kernel.
#   benchmarks/epilogue/gelu-f32.sh prepare DIR [OLD] # here (OLD: gemmc at d1bf07f;
#                                                     #  without it, the new kernel alone)
#   bash DIR/gelu-f32.sh                              # there: $OUT
# Results: benchmarks/results/h100-issue33/gelu-f32-tail.txt.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root=$(cd "$(dirname "$0")/../.." && pwd) dir=${2:?folder} old=${3:-}
  mkdir -p "$dir"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  for a in none gelu; do
    act="activation = $a"; [ $a = none ] && act=""
    cat > "$dir/g_$a.gemm" <<EOF
kernel g32_$a {
  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = f32 row  $act }
  schedule { tile 128x256x64  wgmma m64n256k16  tma a b c  pipeline stages 4  warp-specialize 2  persistent  raster 8  cluster 2x1 }
}
EOF
  done
  cat > "$dir/simt.gemm" <<'EOF'
kernel gelu_simt {
  problem { m = ? n = ? k = ?  epilogue = alpha-beta  activation = gelu }
  schedule { tile 64x64x8  register-tile 4x4  promote a b }
}
EOF
  # (env -u CUDA_HOME: without libdevice, as the tests compile.)
  g() { env -u CUDA_HOME "$@" 2> /dev/null; }
  g "$root/build/bin/gemmc" --arch=sm_90a "$dir/g_none.gemm" -o "$dir/none.ptx" || exit 1
  g "$root/build/bin/gemmc" --arch=sm_90a "$dir/g_gelu.gemm" -o "$dir/gelu_new.ptx" || exit 1
  if [ -n "$old" ]; then
    g "$old" --arch=sm_90a "$dir/g_gelu.gemm" -o "$dir/gelu_old.ptx" || exit 1
    sed -i 's/g32_gelu/g32_gelu_old/g' "$dir/gelu_old.ptx"
  fi
  g "$root/build/bin/gemmc" --arch=sm_90a "$root/benchmarks/epilogue/gelu_f32_fam.gemm" -o "$dir/fam.ptx" || exit 1
  g "$root/build/bin/gemmc" "$dir/simt.gemm" -o "$dir/simt.ptx" || exit 1
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt"
row() { python3 -c 'import csv,sys; print(" ".join(f"{x["kernel"]} {x["status"]} {x["ms"]}" for x in csv.DictReader(open(sys.argv[1]))))' "$O/x.csv"; }
for s in 4096x4096x4096 8192x8192x8192; do
  for rep in 1 2; do
    ./gemm-bench --size $s --runs 30 --warmup 5 --csv "$O/x.csv" none.ptx > /dev/null 2>&1; line="$s rep $rep: $(row);"
    ./gemm-bench --size $s --runs 30 --warmup 5 --activation gelu --csv "$O/x.csv" $(ls gelu_old.ptx 2> /dev/null) gelu_new.ptx > /dev/null 2>&1
    echo "$line $(row)" | tee -a "$O/cost.txt"
  done
done
rm -f "$O/x.csv"
{
  ./gemm-bench --sweep random --count 8 --max-size 1000 fam.ptx 2>&1 | grep -a "1x1x15 .*S"
  echo "fam: $(./gemm-bench --sweep random --count 30 --max-size 1000 fam.ptx 2>&1 | grep -a 'results,')"
  echo "simt, sizes 1-6: $(./gemm-bench --sweep random --count 300 --max-size 6 simt.ptx 2>&1 | grep -a 'results,')"
  echo "simt: $(./gemm-bench --sweep random --count 100 --max-size 1000 simt.ptx 2>&1 | grep -a 'results,')"
} | tee "$O/checks.txt"
