#!/usr/bin/env bash
# The issue's sweeps: 300 random cases per precision, the tuned schedules
# compiled with '?' sizes (plus layout, epilogue and batch variants).
cd "$(dirname "$0")"
O=${OUT:-out}; mkdir -p $O/logs
B=./gemm-bench
N=${SWEEP:-300}
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/logs/gpu.txt 2>&1
t0=$(date +%s)
timeout 170 $B --sweep random --count $N --seed 7001 --json $O/logs/sweep-f32.json ptx/sgemm-dynamic.ptx ptx/v-a.ptx ptx/v-b.ptx ptx/v-c.ptx ptx/v-ac.ptx ptx/v-epi.ptx ptx/v-naive.ptx > $O/logs/sweep-f32.txt 2>&1; echo "rc $? $(( $(date +%s) - t0 ))s" >> $O/logs/sweep-f32.txt
t0=$(date +%s)
timeout 140 $B --sweep random --count $N --seed 7002 --json $O/logs/sweep-f16.json ptx/tensorcore-f16-dynamic.ptx ptx/v-h_c.ptx ptx/v-h_epi.ptx > $O/logs/sweep-f16.txt 2>&1; echo "rc $? $(( $(date +%s) - t0 ))s" >> $O/logs/sweep-f16.txt
t0=$(date +%s)
timeout 140 $B --sweep random --count $N --seed 7003 --json $O/logs/sweep-bf16.json ptx/tensorcore-bf16-dynamic.ptx ptx/v-bf_c.ptx ptx/v-bf_epi.ptx > $O/logs/sweep-bf16.txt 2>&1; echo "rc $? $(( $(date +%s) - t0 ))s" >> $O/logs/sweep-bf16.txt
t0=$(date +%s)
timeout 140 $B --sweep random --count $N --seed 7004 --json $O/logs/sweep-tf32.json ptx/tensorcore-tf32-dynamic.ptx ptx/v-t_c.ptx ptx/v-t_epi.ptx > $O/logs/sweep-tf32.txt 2>&1; echo "rc $? $(( $(date +%s) - t0 ))s" >> $O/logs/sweep-tf32.txt
cd $O && tar czf sweep-logs.tgz logs && rm -rf logs
