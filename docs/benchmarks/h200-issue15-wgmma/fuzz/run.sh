#!/usr/bin/env bash
# The suite's seed-1 fuzz corpus: its 52 wgmma split-K kernels on the GPU.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
timeout 300 bash fuzz-gpu.sh bin/gemm-bench ptx --jobs 8 --memcheck 8 --out "$out/fz" > "$out/fuzz-gpu.txt" 2>&1; echo "fuzz-gpu rc=$?"; tail -3 "$out/fuzz-gpu.txt"
fails=0; n=0
for f in ptx/*.ptx; do n=$((n+1))
  extra=""; grep -q "c=f32" $f && grep -q "a=f16\|a=bf16" $f && extra=--no-cublas
  timeout 40 bin/gemm-bench $f --sweep random --count 6 --max-size 1500 --seed 171 $extra > "$out/logs/$(basename $f).txt" 2>&1
  rc=$?; [ $rc = 0 ] || { fails=$((fails+1)); echo "FAIL $f rc=$rc $(grep -E 'FAIL|rror' $out/logs/$(basename $f).txt | head -1 | cut -c1-200)"; }
done
echo "sweeps: $n kernels x 6 cases, $fails failed"
cd $out && tar czf logs.tgz logs && rm -rf logs
