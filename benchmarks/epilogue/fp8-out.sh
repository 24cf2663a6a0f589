#!/usr/bin/env bash
# FP8 results with C's scale (`output-scale = tensor`: torch._scaled_mm's
# out_dtype=float8_e4m3fn with scale_result; cuBLASLt's FP8 D with its D
# scale) on the GPU: random cases of the shipped fp8_e4m3_e4m3_e4m3_tensor
# [_fast] families and examples/hopper-fp8-out.gemm (gemm-bench checks C
# against fp64 and cuBLASLt's FP8 D, and the amax exactly), memcheck on
# two, Python's tests of gemmc.scaled_mm into e4m3; then the held-out
# problems whose K is a multiple of 16 beside cuBLASLt's FP8 D, four
# kernels at three sizes (fp8-out/y_*.gemm) in three processes each, and
# gemmc.scaled_mm beside torch._scaled_mm into float8_e4m3fn
# (benchmarks/scaled-mm-torch.py --fp8-out).
#
#   bash benchmarks/epilogue/fp8-out.sh prepare   # here: .device/fp8out
#   cd .device/fp8out && bash fp8-out.sh checks   # there; results in $OUT
#   cd .device/fp8out && bash fp8-out.sh speed    # (each within 10 min)
set -uo pipefail
mode=${1:-prepare}
source "$(dirname "$0")/fp8-device.sh"
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/../.."
  dir=.device/fp8out
  fp8_prepare "$dir" "$0" || exit 1
  mkdir -p "$dir/k"
  for f in examples/hopper-fp8-out.gemm benchmarks/epilogue/fp8-out/*.gemm; do
    build/bin/gemmc --arch=sm_90a "$f" -o "$dir/k/$(basename "${f%.gemm}").ptx" ||
      exit 1
  done
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
out=${OUT:-out}
fp8_unpack "$out"
families="$fam/sm_90a/fp8_e4m3_e4m3_e4m3_tensor.ptx $fam/sm_90a/fp8_e4m3_e4m3_e4m3_tensor_fast.ptx"
if [ "$mode" = checks ]; then
{
  for f in $families k/hopper-fp8-out.ptx; do
    echo "== $f"
    timeout 150 bin/gemm-bench --sweep random --count "${COUNT:-60}" \
      --max-size 1500 --seed 36 "$f" 2>&1 | grep -E "FAIL|passed|failed"
  done
} > "$out/checks.txt" 2>&1
{
  for f in $fam/sm_90a/fp8_e4m3_e4m3_e4m3_tensor_fast.ptx k/hopper-fp8-out.ptx; do
    echo "== memcheck $f"
    timeout 200 compute-sanitizer --tool memcheck bin/gemm-bench --sweep random \
      --count 6 --max-size 400 --seed 5 "$f" 2>&1 | tail -3
  done
} > "$out/memcheck.txt" 2>&1
(cd py && PYTHONPATH=$PWD/../pkg timeout 300 python3 -m unittest -v \
  test_gpu.TorchTest.test_scaled_mm_into_fp8 \
  test_gpu.TorchTest.test_scaled_mm_with_bias) > "$out/python.txt" 2>&1
echo "rc=$?" >> "$out/python.txt"
fi
if [ "$mode" = speed ]; then
for f in $families; do
  timeout 200 bin/gemm-bench --shapes heldout.txt --runs 5 --warmup 2 \
    --budget "${BUDGET:-90}" "$f" > "$out/heldout-$(basename "$f" .ptx).txt" 2>&1
done
for round in 1 2 3; do
  for f in k/*.ptx; do
    timeout 100 bin/gemm-bench --size 8192,4096,4096x14336x4096 --runs 20 \
      --warmup 3 "$f" 2>&1 | grep -vE "^\[|^ *$" |
      sed "s|^|$round $(basename "$f" .ptx) |"
  done
done > "$out/sizes.txt" 2>&1
PYTHONPATH=$PWD/pkg timeout 300 python3 scaled-mm-torch.py --fp8-out \
  > "$out/scaled-mm-fp8-out.txt" 2>&1
fi
tail -n 4 "$out"/*.txt
(cd "$out" && tar czf results.tar.gz *.txt && rm -f *.txt)
