#!/bin/bash
# The activations (relu, gelu, gelu-tanh, silu) on every kernel kind
# (SIMT f32 and mma.sync f16 for sm_80, wgmma bf16 and FP8 for sm_90a;
# alpha-beta and a column bias, sizes at launch), 30 random cases each;
# then the schedule fuzzer's kernels (seeds 5 and 6, activations and FP8
# drawn; gemmc-schedule-fuzz --out, archived as fz.tar.gz). Run from a
# folder with the kernels' PTX (*.ptx), fuzz-gpu.sh and ../bin/gemm-bench.
# Results: benchmarks/results/h100-issue33/activation-sweeps.txt.
cd "$(dirname "$0")"
B=../bin/gemm-bench O=${OUT:-/tmp}
for f in *.ptx; do
  echo "$f $($B --sweep random --count 30 --max-size 700 $f 2>&1 | grep 'results,')"
done | tee $O/activation-sweeps.txt
mkdir -p fz && tar xzf fz.tar.gz -C fz
bash fuzz-gpu.sh $B fz --jobs 12 --memcheck 12 --out $O/fuzz 2>&1 | tail -6
