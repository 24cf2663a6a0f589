#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out/logs; L=$out/logs
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader | tee $L/gpu.txt
b() { name=$1; shift; timeout 150 bin/gemm-bench "$@" --csv $L/$name.csv > $L/$name.log 2>&1; rc=$?; echo "== $name rc=$rc: $(grep -c ' PASS ' $L/$name.log) PASS, $(grep -c ' FAIL ' $L/$name.log) FAIL, $(grep -c ' SKIP ' $L/$name.log) SKIP"; grep -E " FAIL | SKIP |rror|problem:" $L/$name.log | cut -c1-150; }
for beta in -0.75 0; do
  b f32-beta$beta --runs 3 --alpha 1.5 --beta $beta ab/f32-*-t.ptx ab/f32-*-1k.ptx ab/f32-plain.ptx
  b f16-beta$beta --runs 3 --alpha 1.5 --beta $beta ab/f16-tuned-t.ptx ab/f16-simple-t.ptx ab/f16-tuned-1k.ptx
  b bf16-beta$beta --runs 3 --alpha 1.5 --beta $beta ab/bf16-tuned-t.ptx ab/bf16-tuned-1k.ptx
  b tf32-beta$beta --runs 3 --alpha 1.5 --beta $beta ab/tf32-tuned-t.ptx ab/tf32-tuned-1k.ptx
done
b f32-default --runs 3 ab/f32-sgemm-best-1k.ptx ab/f32-plain.ptx
b f16-perf-beta1 --runs 20 --alpha 1 --beta 1 ab/f16-tuned-4k.ptx
grep " PASS " $L/f16-perf-beta1.log | cut -c1-100
b f16-perf-beta0 --runs 20 ab/f16-tuned-4k.ptx ab/f16-plain-4k.ptx
grep " PASS " $L/f16-perf-beta0.log | cut -c1-100
timeout 100 compute-sanitizer --tool memcheck bin/gemm-bench --runs 1 --warmup 0 --no-cublas --beta 0.5 ab/f16-tuned-t.ptx > $L/memcheck.log 2>&1; echo "memcheck rc=$?"; grep -E "SUMMARY| PASS " $L/memcheck.log | cut -c1-100
tar czf $out/ab-logs.tgz -C $out logs
