#!/usr/bin/env bash
# Short M, long N and K (f16, rrr): which kernels cuBLAS runs there (ncu:
# tile, grid, shared memory, DRAM throughput) beside the family's, and
# transposed tiles that take M whole as wgmma's N (the tuning space's `_wm`
# grew from them; docs/tuning.md, docs/benchmarks.md).
#   benchmarks/streaming-tiles.sh compile DIR   # here: schedules, PTX,
#                                               # gemm-bench and the families
#   DIR/streaming-tiles.sh run DIR              # on the GPU machine
# `run` writes $OUT/streaming/: rrr.log, rcr.log (the families beside
# cuBLAS), ncu-rrr.csv, ncu-rcr.csv (every launch's kernel, grid, time,
# DRAM throughput), model.log (each tile at the model's splits) and
# splitsS.log (the split-k ? tiles at S splits), sweep.log.
set -euo pipefail
mode=${1:?compile or run} dir=${2:?folder}
if [ "$mode" = compile ]; then
  here=$(cd "$(dirname "$0")/.." && pwd)
  build=${GEMMC_BUILD_DIR:-$here/build}
  mkdir -p "$dir/bin" "$dir/fam"
  cp "$0" "$dir/"
  cp "$build/bin/gemm-bench" "$dir/bin/"
  for f in f16_rrr f16_rcr; do
    "$build/bin/gemmc" --arch=sm_90a "$here/families/sm_90a/$f.gemm" -o "$dir/fam/$f.ptx"
  done
  # name, tile, wgmma's N, stages, consumers, what follows, TMA.
  while read -r name tile n stages consumers tail tma; do
    cat > "$dir/$name.gemm" <<GEMM
kernel $name {
  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = f16 row }
  schedule { transpose  tile $tile  wgmma m64n${n}k16  tma ${tma//_/ }  pipeline stages $stages  warp-specialize $consumers  ${tail//_/ } }
}
GEMM
    "$build/bin/gemmc" --arch=sm_90a "$dir/$name.gemm" -o "$dir/$name.ptx"
  done <<'TILES'
m1 64x64x64 64 12 1 persistent_stream-k_raster_8 a_b_c
m2 64x64x128 64 6 1 persistent_stream-k_raster_8 a_b_c
m3 128x64x64 64 8 2 persistent_stream-k_raster_8 a_b_c
m4 64x128x64 128 8 1 persistent_stream-k_raster_8 a_b_c
m5 64x56x128 56 7 1 split-k_? a_b
m6 64x64x128 64 6 1 split-k_? a_b
m7 128x48x128 48 5 2 split-k_? a_b
m8 64x32x128 32 8 1 persistent_stream-k_raster_8 a_b_c
m9 64x16x256 16 5 1 persistent_stream-k_raster_8 a_b_c
m10 64x8x256 8 6 1 persistent_stream-k_raster_8 a_b_c
m11 128x8x256 8 3 2 split-k_? a_b
TILES
  printf '%s\n' 50x7680x2560 64x8192x4096 40x4672x4544 77x2048x5120 \
    40x18176x4544 40x4544x18176 24x152064x3584 64x4096x4096 128x8192x8192 \
    32x15360x5120 1x22016x4096 16x4096x4096 77x6144x2048 96x3072x4096 \
    128x12288x4096 64x5280x3520 77x10240x2048 128x4096x4096 40x4544x4544 \
    > "$dir/skinny.txt"
  printf '%s\n' 50x7680x2560 40x18176x4544 1x22016x4096 128x8192x8192 > "$dir/ncu.txt"
  exit 0
fi
cd "$dir"
o=${OUT:-out}/streaming; mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$o/gpu.txt"
bin/gemm-bench --shapes skinny.txt --runs 20 --warmup 5 fam/f16_rrr.ptx > "$o/rrr.log" 2>&1 || true
bin/gemm-bench --shapes skinny.txt --layout rcr --runs 20 --warmup 5 fam/f16_rcr.ptx > "$o/rcr.log" 2>&1 || true
m=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic
m=$m,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
for l in rrr rcr; do
  timeout 200 ncu --csv --clock-control none --metrics "$m" bin/gemm-bench \
    --shapes ncu.txt --layout $l --runs 1 --warmup 0 fam/f16_$l.ptx > "$o/ncu-$l.csv" 2> "$o/ncu-$l.err" || true
done
tiles=$(ls m*.ptx | sort -V)
bin/gemm-bench --shapes skinny.txt --runs 20 --warmup 5 $tiles fam/f16_rrr.ptx > "$o/model.log" 2>&1 || true
for s in 1 2 3 4 6; do
  bin/gemm-bench --shapes skinny.txt --runs 20 --warmup 5 --splits $s m5.ptx m6.ptx m7.ptx m11.ptx > "$o/splits$s.log" 2>&1 || true
done
bin/gemm-bench --sweep random --count 60 --max-size 1500 m1.ptx m3.ptx m4.ptx m10.ptx m5.ptx > "$o/sweep.log" 2>&1 || true
grep -h geometric "$o"/*.log
