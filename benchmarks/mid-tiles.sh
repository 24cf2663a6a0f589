#!/usr/bin/env bash
# The f16 problems of M or N from 17 to 2048 that the family runs slowest:
# which kernels cuBLAS runs there (ncu: its tile, grid and cluster), and
# transposed persistent 128 x BN tiles of BN 64 to 152 along M (wgmma's N),
# alone and in clusters, beside the family
# (results/h100-issue30/transposed-mid-tiles.txt; docs/benchmarks.md,
# "What cuBLAS does there").
#   benchmarks/mid-tiles.sh compile DIR   # here: schedules and PTX into DIR,
#                                         # with bin/gemm-bench and
#                                         # fam/f16_rrr.ptx from the build
#   benchmarks/mid-tiles.sh run DIR       # on the GPU machine
# `run` writes $OUT/mid/: kernels.txt (ncu: each kernel's grid, cluster and
# time, cuBLAS's and the family's, over problems-ncu.txt), tiles.tsv (each
# tile and the family beside cuBLAS over the training problems of
# train-mid.txt, gemm-bench --results), clusters.log (three problems,
# each tile with and without its cluster) and skinny-*.tsv (transposed
# tiles of BN 32-128 over M, 64 or 128 rows over N, splits of K at launch
# or stream-K, on the training problems of M 17-128: the model's splits,
# then 2 and 4; results/h100-issue30/skinny-transposed-tiles.txt).
set -euo pipefail
mode=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
build=${GEMMC_BUILD_DIR:-$here/../build}
compile() { # PATH SCHEDULE (the kernel named as the file)
  printf 'kernel %s {\n  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = f16 row }\n  schedule { %s }\n}\n' \
    "${1##*/}" "$2" > "$dir/$1.gemm"
  "$build/bin/gemmc" "$dir/$1.gemm" --arch sm_90a -o "$dir/$1.ptx"
}
tile() { # NAME BN [CLUSTER [STAGES]]
  compile "$1" "transpose  tile 128x${2}x64  wgmma m64n${2}k16  tma a b c  pipeline stages ${4:-6}  warp-specialize 2  persistent ${3:+cluster $3}  raster 8"
}
if [ "$mode" = compile ]; then
  mkdir -p "$dir/bin" "$dir/fam"
  for bn in 64 72 80 88 96 104 112 120 128 136; do tile "m$bn" "$bn"; done
  tile m152 152 "" 5
  # With a cluster: 1 x 2 shares the 128 rows' operand (its slices of 64
  # rows whole swizzle atoms), 2 x 1 the BN rows' (80 / 2 = 40 rows).
  for bn in 72 104 120 152; do tile "d$bn" "$bn" 1x2; done
  tile c80 80 2x1
  # The skinny probe's tiles (skinny/): 64 or 128 rows over N, one or two
  # consumer warpgroups, 8 or 6 stages, no TMA store.
  mkdir -p "$dir/skinny"
  for bm in 64 128; do
    for bn in 32 48 64 80 96 128; do
      for walk in "s:split-k ?" "p:persistent stream-k"; do
        compile "skinny/m${bm}n${bn}${walk%%:*}" "transpose  tile ${bm}x${bn}x64  wgmma m64n${bn}k16  tma a b  pipeline stages $((bm == 64 ? 8 : 6))  warp-specialize $((bm / 64))  ${walk#*:}"
      done
    done
  done
  cp "$build/bin/gemm-bench" "$dir/bin/"
  cp "$build/share/gemmc/families/sm_90a/f16_rrr.ptx" "$dir/fam/"
  printf '%s\n' 300x3584x3584 1576x768x3072 2048x640x2560 300x4608x3584 \
    512x4096x11008 1024x1600x6400 256x12288x12288 640x2560x2560 \
    77x6144x2048 64x8192x4096 1500x1280x5120 128x12288x4096 \
    > "$dir/problems-ncu.txt"
  # The training problems of min(M, N) 17 to 2048 and 2 x 10^8 flops or more.
  awk '!/^#/ && NF { split($1, s, "x"); small = s[1] < s[2] ? s[1] : s[2];
         if (small >= 17 && small <= 2048 && s[1] * s[2] * s[3] >= 2e8) print }' \
    "$here/workloads-train.txt" > "$dir/train-mid.txt"
  awk '!/^#/ && NF { split($1, s, "x");
         if (s[1] >= 17 && s[1] <= 128 && s[2] > 256) print }' \
    "$here/workloads-train.txt" > "$dir/train-skinny.txt"
  exit 0
fi
cd "$dir"
o=$OUT/mid; mkdir -p "$o"
sizes=$(paste -sd, problems-ncu.txt)
for k in 'regex:nvjet|sm90|cutlass|gemm' 'regex:f16_rrr'; do
  ncu --kernel-name "$k" --section LaunchStats \
    --metrics gpu__time_duration.sum bin/gemm-bench --size "$sizes" --runs 1 \
    --warmup 0 fam/f16_rrr.ptx 2> /dev/null
done | awk '/\([0-9]+, [0-9]+, [0-9]+\)x\(/ { name = $1 }
  /gpu__time_duration.sum/ { us = $NF }
  /Cluster Size/ { cluster = $NF }
  /Grid Size/ { print name, "grid", $NF, "cluster", cluster, us, "us" }' \
  > "$o/kernels.txt"
bin/gemm-bench --shapes train-mid.txt --prune 3 --runs 3 --warmup 1 \
  --budget 260 --results "$o/tiles.tsv" m*.ptx d*.ptx c*.ptx \
  fam/f16_rrr.ptx > "$o/tiles.log" 2>&1
bin/gemm-bench --size 1024x1600x6400,300x3584x3584,640x2560x2560 --runs 20 \
  --warmup 5 m104.ptx d104.ptx m80.ptx c80.ptx > "$o/clusters.log" 2>&1
bin/gemm-bench --shapes train-skinny.txt --runs 5 --warmup 2 \
  --results "$o/skinny-model.tsv" skinny/*.ptx fam/f16_rrr.ptx \
  > "$o/skinny-model.log" 2>&1
for splits in 2 4; do
  bin/gemm-bench --shapes train-skinny.txt --runs 5 --warmup 2 \
    --splits "$splits" --results "$o/skinny-$splits.tsv" skinny/*s.ptx \
    > "$o/skinny-$splits.log" 2>&1
done
cat "$o/kernels.txt"
