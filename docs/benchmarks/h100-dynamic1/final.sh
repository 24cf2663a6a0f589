#!/usr/bin/env bash
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $O/logs/gpu.txt 2>&1
# speed first, the GPU otherwise idle
for i in 1 2 3; do $B --runs 20 --size 4095x4097x4093 --lda 4096 --ldb 4100 --ldc 4100 ptx/sgemm-dynamic.ptx > $O/logs/perf-f32-awkward-$i.txt 2>&1; done
for i in 1 2; do $B --runs 10 --size 8191x8193x8190 --lda 8192 --ldb 8200 --ldc 8200 ptx/tensorcore-f16-dynamic.ptx > $O/logs/perf-f16-awkward-$i.txt 2>&1; done
$B --runs 10 --size 8191x8193x8190 --dtype f16 > $O/logs/perf-f16-awkward-cublas-dense.txt 2>&1
$B --runs 20 --size 4095x4097x4093 > $O/logs/perf-f32-awkward-cublas-dense.txt 2>&1
$B --runs 20 --size 4096 ptx/sgemm-dynamic.ptx ptx/static-sgemm-best-4096.ptx > $O/logs/perf-f32-4096.txt 2>&1
for t in f16 bf16 tf32; do $B --runs 10 --size 8192 ptx/tensorcore-$t-dynamic.ptx ptx/static-tensorcore-$t-tuned-8192.ptx > $O/logs/perf-$t-8192.txt 2>&1; done
# the sweeps, three processes at once (host-bound; untimed)
N=${SWEEP:-300}
for spec in "f16 7002 ptx/tensorcore-f16-dynamic.ptx ptx/v-h_c.ptx ptx/v-h_epi.ptx" "bf16 7003 ptx/tensorcore-bf16-dynamic.ptx ptx/v-bf_c.ptx ptx/v-bf_epi.ptx" "tf32 7004 ptx/tensorcore-tf32-dynamic.ptx ptx/v-t_c.ptx ptx/v-t_epi.ptx"; do
  set -- $spec; p=$1; seed=$2; shift 2
  ( t0=$(date +%s); timeout 380 $B --sweep random --count $N --seed $seed --json $O/logs/sweep-$p.json "$@" > $O/logs/sweep-$p.txt 2>&1; echo "rc $? $(( $(date +%s) - t0 ))s" >> $O/logs/sweep-$p.txt ) &
done
wait
cd $O && tar czf final.tgz logs && rm -rf logs
