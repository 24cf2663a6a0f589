#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out/logs; L=$out/logs
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader | tee $L/gpu.txt
b() { name=$1; shift; timeout 150 bin/gemm-bench "$@" --csv $L/$name.csv > $L/$name.log 2>&1; rc=$?; echo "== $name rc=$rc: $(grep -c ' PASS ' $L/$name.log) PASS, $(grep -c ' FAIL ' $L/$name.log) FAIL, $(grep -c ' SKIP ' $L/$name.log) SKIP"; grep -E " FAIL |rror" $L/$name.log | cut -c1-150; }
b f32-cr --runs 3 --bias col --relu br/f32-*-cr.ptx
b f32-ar --runs 3 --alpha 1.5 --beta -0.75 --bias row br/f32-*-ar.ptx
b f16-cr --runs 3 --bias col --relu br/f16-tuned-cr.ptx
b f16-ar --runs 3 --alpha 1.5 --beta -0.75 --bias row br/f16-tuned-ar.ptx
b bf16-cr --runs 3 --bias col --relu br/bf16-tuned-cr.ptx
b bf16-ar --runs 3 --alpha 0.5 --beta 2 --bias row br/bf16-tuned-ar.ptx
b tf32-cr --runs 3 --bias col --relu br/tf32-tuned-cr.ptx
b tf32-ar --runs 3 --alpha 1.5 --beta 0 --bias row br/tf32-tuned-ar.ptx
b mismatch --runs 3 --bias col br/f16-perf-plain.ptx br/f16-perf-cr.ptx
grep -E "SKIP" $L/mismatch.log | cut -c1-160
b perf --runs 20 --bias col --relu br/f16-perf-cr.ptx
grep " PASS " $L/perf.log | cut -c1-100
b perf-plain --runs 20 br/f16-perf-plain.ptx
grep " PASS " $L/perf-plain.log | cut -c1-100
timeout 100 compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas --bias col --relu br/f16-tuned-cr.ptx > $L/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "SUMMARY| PASS " $L/memcheck.log | cut -c1-100
tar czf $out/br-logs.tgz -C $out logs
