#!/usr/bin/env bash
# Decode problems on transposed narrow wgmma tiles: the stages in flight
# against the K step's depth (docs/benchmarks.md, "Deep K steps").
#   benchmarks/deep-k.sh compile DIR   # here: schedules and PTX into DIR
#   benchmarks/deep-k.sh run DIR       # on the GPU machine, DIR holding the
#                                      # PTX, bin/gemm-bench and fam/f16_rrr.ptx
# `run` times each kernel at 1 and 2 splits of K and the f16 family at its
# own choice, beside cuBLAS in each process, and writes $OUT/deep-k/
# summary.txt: kernel/splits, problem, ms, ratio to cuBLAS, best first.
set -euo pipefail
mode=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
schedule() { # name BM BN BK stages consumers: C^T = B^T A^T, f16 rrr
  cat > "$dir/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ?  a = f16 row  b = f16 row  c = f16 row }
  schedule { transpose  tile $2x$3x$4  wgmma m64n${3}k16  tma a b  pipeline stages $5  warp-specialize $6  split-k ? }
}
GEMM
}
if [ "$mode" = compile ]; then
  mkdir -p "$dir"
  for s in 8 16 24; do schedule t8k64s$s 64 8 64 $s 1; done
  for s in 4 8; do schedule t8k128s$s 64 8 128 $s 1; done
  schedule t8k256s4 64 8 256 4 1
  schedule t16k256s4 64 16 256 4 1
  schedule t32k64s8 64 32 64 8 1
  schedule t32k256s4 64 32 256 4 1
  schedule t64k128s4 64 64 128 4 1
  schedule t32w2k128s4 128 32 128 4 2
  for f in "$dir"/*.gemm; do
    "${GEMMC:-$here/../build/bin/gemmc}" --arch=sm_90a "$f" -o "${f%.gemm}.ptx"
  done
  exit 0
fi
cd "$dir"; o=${OUT:-out}/deep-k; mkdir -p "$o"
sizes=1x4096x4096,16x4096x4096,64x4096x4096,128x4096x4096,32x4096x2048,1x3072x4096,1x14336x4096,5x5120x1280,8x768x768,1x11008x4096,16x11008x4096,64x1280x5120
for s in 1 2; do
  for f in *.ptx; do
    timeout 120 bin/gemm-bench --size $sizes --runs 20 --warmup 5 --splits $s "$f" \
      > "$o/${f%.ptx}-s$s.log" 2>&1 || true
    grep -h -E ' (PASS|FAIL) ' "$o/${f%.ptx}-s$s.log" | grep -v '^cuBLAS' |
      awk -v s=$s '{print $1 "/" s, $2, $4, $6}' >> "$o/all.txt"
  done
done
timeout 120 bin/gemm-bench --size $sizes --runs 20 --warmup 5 fam/f16_rrr.ptx \
  > "$o/fam.log" 2>&1 || true
grep -h -E ' (PASS|FAIL) ' "$o/fam.log" | awk '{print $1, $2, $4, $6}' >> "$o/all.txt"
sort -k2,2 -k4,4nr "$o/all.txt" > "$o/summary.txt"
