#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out
for s in ns 1k 4096 8192; do
  ptx=tf/tf-$s.ptx
  [ $s = 4096 ] && ptx="tf/tf-4096.ptx tf/tf-bk32.ptx tf/tf-noswz.ptx"
  timeout 90 bin/gemm-bench --runs 20 $ptx > $out/tf-$s.log 2>&1
  echo "rc=$? tf-$s"; grep -E "problem|PASS|FAIL|rror" $out/tf-$s.log | head -6
done
timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas tf/tf-ns.ptx > $out/sanitizer.log 2>&1
echo "sanitizer rc=$?"; tail -2 $out/sanitizer.log
