#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out
nvidia-smi --query-gpu=name,clocks.sm --format=csv > $out/gpu.txt 2>&1
for t in f16 bf16; do
  for s in ns 1k 4096 8192; do
    ptx=sw/$t-$s.ptx
    [ $s = 4096 ] && ptx="sw/$t-4096.ptx sw/$t-noswz.ptx"
    timeout 60 bin/gemm-bench --runs 20 $ptx --json $out/$t-$s.json > $out/$t-$s.log 2>&1
    echo "rc=$? $t-$s"; grep -E "PASS|FAIL|error" $out/$t-$s.log | head -5
  done
done
timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas sw/f16-ns.ptx > $out/sanitizer.log 2>&1
echo "sanitizer rc=$?"; tail -3 $out/sanitizer.log
