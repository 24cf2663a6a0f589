#!/usr/bin/env bash
# Issue 15, sixth step: per-operand global-load widths verified (sweeps, the
# fuzzer's schedules with `global-load b`), then gemmc-tune's new parts
# (_n narrow B, _k long K, _wk Hopper long K) measured on their problems.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
B=./gemm-bench
for k in ptx16/f16_n0.ptx ptx16/f16_n4.ptx ptx32/f32_n0.ptx ptx32/f32_n6.ptx; do
  n=$(basename $k .ptx)
  timeout 60 $B $k --sweep random --count 25 --max-size 2500 --seed 23 > $out/sweep-$n.txt 2>&1
  echo "sweep $n rc=$? $(tail -1 $out/sweep-$n.txt)"
done
timeout 150 ./fuzz-gpu.sh $B fz --jobs 8 --memcheck 4 --out $out/fz > $out/fz.txt 2>&1; echo "fz rc=$?"; cat $out/fz/summary.txt 2>/dev/null | tail -5
m() { # tag shapes budget ptx...
  local tag=$1 shapes=$2 budget=$3; shift 3
  timeout $((budget + 40)) $B --shapes $shapes --results $out/r-$tag.tsv --budget $budget --runs 3 --warmup 1 "$@" > $out/t-$tag.txt 2> $out/t-$tag.err
  echo "$tag rc=$? $(wc -l < $out/r-$tag.tsv) results"; grep -E "^geometric" $out/t-$tag.txt
}
m 16n narrow.txt 80 ptx16/f16_n*.ptx
m 32n narrow.txt 80 ptx32/f32_n*.ptx
m 16k longk.txt 60 ptx16/f16_k*.ptx ptx16/f16_wk*.ptx
m 32k longk.txt 60 ptx32/f32_k*.ptx
tar czf $out/logs.tgz -C $out --exclude logs.tgz . 2>/dev/null
