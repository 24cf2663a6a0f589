#!/usr/bin/env bash
# The amax of C (`amax = c`, issue 33) on the GPU: every kernel of
# benchmarks/epilogue/amax/ and examples/hopper-fp8-amax.gemm through
# random cases (gemm-bench checks the amax exactly: rounded to C's type it
# must equal C's largest magnitude, the buffer a NaN before each run),
# memcheck on two, Python's test (a CUDA graph's replays among it), and
# what the amax costs: each kernel beside its twin without it, in one
# process, beside cuBLAS.
#
#   bash benchmarks/epilogue/amax.sh prepare   # here: .device/amax
#   cd .device/amax && bash amax.sh gpu        # there; results in $OUT
set -uo pipefail
mode=${1:-prepare}
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/../.."
  dir=.device/amax
  gemmc() { env -u CUDA_HOME build/bin/gemmc --arch=sm_90a "$@"; }
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/ptx" "$dir/py/tests"
  cp build/bin/gemm-bench "$dir/bin/"
  cp "$0" "$dir/"
  for f in benchmarks/epilogue/amax/*.gemm examples/hopper-fp8-amax.gemm; do
    gemmc "$f" -o "$dir/ptx/$(basename "$f" .gemm).ptx" || exit 1
  done
  # The twins without the amax, for its cost.
  sed -e 's/  amax = c//' -e 's/hopper_fp8_amax/hopper_fp8_plain/' \
    examples/hopper-fp8-amax.gemm > "$dir/fp8-plain.gemm"
  sed -e 's/    c = bf16 row/    c = bf16 row\n    amax = c/' \
    -e 's/hopper_bf16/hopper_bf16_amax/' examples/hopper-bf16.gemm \
    > "$dir/bf16-amax.gemm"
  gemmc "$dir/fp8-plain.gemm" -o "$dir/fp8-plain.ptx" || exit 1
  gemmc "$dir/bf16-amax.gemm" -o "$dir/bf16-amax.ptx" || exit 1
  gemmc examples/hopper-bf16.gemm -o "$dir/bf16-plain.ptx" || exit 1
  bash scripts/python-package.sh build "$dir/pkg" > /dev/null || exit 1
  find "$dir/pkg" -name '*.ptx' -delete
  cp python/tests/test_gpu.py "$dir/py/tests/"
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
out=${OUT:-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader \
  > "$out/gpu.txt"
{
  for f in ptx/*.ptx; do
    echo "== $f"
    timeout 120 bin/gemm-bench --sweep random --count "${COUNT:-60}" \
      --max-size 700 --seed 33 "$f" 2>&1 | grep -E "PASS|FAIL|passed|failed" |
      grep -v "^  PASS" | tail -3
  done
} > "$out/checks.txt" 2>&1
{
  for f in ptx/x_fp8_e4m3c.ptx ptx/x_bf16_splitk.ptx; do
    echo "== memcheck $f"
    timeout 200 compute-sanitizer --tool memcheck bin/gemm-bench --sweep random \
      --count 4 --max-size 300 --seed 5 "$f" 2>&1 | tail -3
  done
} > "$out/memcheck.txt" 2>&1
(cd py/tests && GEMMC_PTX_DIR=$PWD/../../ptx PYTHONPATH=$PWD/../../pkg \
  timeout 120 python3 -m unittest -v \
  test_gpu.TorchTest.test_amax_of_an_fp8_product) > "$out/python.txt" 2>&1
echo "rc=$?" >> "$out/python.txt"
{
  for round in 1 2 3; do
    echo "== round $round: fp8 e4m3 -> bf16, per tensor"
    timeout 150 bin/gemm-bench --size 8192,4096,2048x8192x4096 --runs 30 \
      ptx/hopper-fp8-amax.ptx fp8-plain.ptx 2>&1 | grep -vE "^\[|^ *$"
    echo "== round $round: bf16 8192^3"
    timeout 150 bin/gemm-bench --runs 30 bf16-amax.ptx bf16-plain.ptx 2>&1 |
      grep -vE "^\[|^ *$"
  done
} > "$out/speed.txt" 2>&1
tail -n 5 "$out"/*.txt
