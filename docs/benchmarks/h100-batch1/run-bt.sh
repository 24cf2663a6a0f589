#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out/logs; L=$out/logs
b() { name=$1; shift; timeout 150 bin/gemm-bench "$@" --csv $L/$name.csv > $L/$name.log 2>&1; rc=$?; echo "== $name rc=$rc: $(grep -c ' PASS ' $L/$name.log) PASS, $(grep -c ' FAIL ' $L/$name.log) FAIL, $(grep -c ' SKIP ' $L/$name.log) SKIP"; grep -E " PASS | FAIL | SKIP |rror" $L/$name.log | cut -c1-140; }
b f32-b3 --runs 3 bt/f32-best-b3.ptx
b f32-bs --runs 3 bt/f32-best-bs.ptx
b f32-naive --runs 3 bt/f32-naive-b3.ptx
b f16-b4 --runs 3 bt/f16-tuned-b4.ptx
b f16-b2 --runs 3 bt/f16-tuned-b2.ptx
b tf32-b2 --runs 3 bt/tf32-tuned-b2.ptx
b bf16-b3e --runs 3 --alpha 1.5 --beta -0.75 --bias col --relu bt/bf16-tuned-b3e.ptx
b perf --runs 20 bt/f16-perf.ptx
b mismatch --runs 3 --batch 2 bt/f16-tuned-b4.ptx
timeout 100 compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas bt/f16-tuned-b2.ptx > $L/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "SUMMARY| PASS " $L/memcheck.log | cut -c1-100
tar czf $out/bt-logs.tgz -C $out logs
