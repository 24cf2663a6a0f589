#!/usr/bin/env bash
# The FP8 families with torch's bias (fp8_e4m3_e4m3_{bf16,f16}_SCALES
# [_fast]_bias, benchmarks/fp8-families.sh) on the GPU: random cases of
# each (gemm-bench checks C against fp64 and cuBLASLt's FP8 with its bias
# epilogue), memcheck on two, the held-out problems whose K is a multiple
# of 16 beside cuBLASLt with the bias (bf16, each kind of scales and sums),
# Python's tests of gemmc.scaled_mm, and gemmc.scaled_mm(bias=) beside
# torch._scaled_mm(bias=) (benchmarks/scaled-mm-torch.py --bias).
#
#   bash benchmarks/epilogue/fp8-bias.sh prepare   # here: .device/bias
#   cd .device/bias && bash fp8-bias.sh checks     # there; results in $OUT
#   cd .device/bias && bash fp8-bias.sh speed      # (each within 10 min)
set -uo pipefail
mode=${1:-prepare}
source "$(dirname "$0")/fp8-device.sh"
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/../.."
  dir=.device/bias
  fp8_prepare "$dir" "$0" || exit 1
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
out=${OUT:-out}
fp8_unpack "$out"
bias=$(ls $fam/sm_90a/fp8_*_bias.ptx)
if [ "$mode" = checks ]; then
{
  for f in $bias; do
    echo "== $f"
    timeout 150 bin/gemm-bench --sweep random --count "${COUNT:-60}" \
      --max-size 1500 --seed 34 "$f" 2>&1 | grep -E "FAIL|passed|failed"
  done
} > "$out/checks.txt" 2>&1
{
  for f in $fam/sm_90a/fp8_e4m3_e4m3_bf16_rowwise_fast_bias.ptx \
           $fam/sm_90a/fp8_e4m3_e4m3_f16_tensor_bias.ptx; do
    echo "== memcheck $f"
    timeout 200 compute-sanitizer --tool memcheck bin/gemm-bench --sweep random \
      --count 6 --max-size 400 --seed 5 "$f" 2>&1 | tail -3
  done
} > "$out/memcheck.txt" 2>&1
(cd py && PYTHONPATH=$PWD/../pkg timeout 300 python3 -m unittest -v \
  test_gpu.TorchTest.test_scaled_mm_with_bias \
  test_gpu.TorchTest.test_scaled_mm_as_torch_scaled_mm) > "$out/python.txt" 2>&1
echo "rc=$?" >> "$out/python.txt"
fi
if [ "$mode" = speed ]; then
for f in ${FAMILIES:-tensor tensor_fast rowwise rowwise_fast}; do
  timeout 200 bin/gemm-bench --shapes heldout.txt --bias col --runs 5 --warmup 2 \
    --budget "${BUDGET:-100}" $fam/sm_90a/fp8_e4m3_e4m3_bf16_${f}_bias.ptx \
    > "$out/heldout-$f.txt" 2>&1
done
PYTHONPATH=$PWD/pkg timeout 400 python3 scaled-mm-torch.py --bias \
  > "$out/scaled-mm-bias.txt" 2>&1
fi
tail -n 4 "$out"/*.txt
(cd "$out" && tar czf results.tar.gz *.txt && rm -f *.txt)
