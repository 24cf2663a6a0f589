# What the FP8 epilogue scripts (fp8-bias.sh, fp8-out.sh) share, sourced by
# them here and on the GPU machine.

# fp8_prepare DIR SCRIPT: into DIR (emptied), gemm-bench, SCRIPT and this
# file, scaled-mm-torch.py with its timing, python/tests/test_gpu.py, the
# held-out problems whose K is a multiple of 16 (shuffled, seed 3), and the
# Python package with only the FP8 families (compressed: the carry's
# limit). Run from the checkout's root.
fp8_prepare() {
  local dir=$1 script=$2
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/py"
  cp build/bin/gemm-bench "$dir/bin/"
  cp "$script" benchmarks/epilogue/fp8-device.sh \
    benchmarks/scaled-mm-torch.py benchmarks/torch_timing.py "$dir/"
  cp python/tests/test_gpu.py "$dir/py/"
  awk '!/^#/ && NF { split($1, s, "x"); if (s[3] % 16 == 0) print $1 }' \
    benchmarks/workloads-heldout.txt |
    python3 -c 'import random, sys
lines = sys.stdin.readlines(); random.Random(3).shuffle(lines)
sys.stdout.writelines(lines)' > "$dir/heldout.txt"
  bash scripts/python-package.sh build "$dir/pkg" > /dev/null || return 1
  local fam=$dir/pkg/gemmc/share/gemmc/families
  tar czf "$dir/fp8.tar.gz" -C "$fam" $(cd "$fam" && ls sm_90a/fp8_*.ptx)
  rm -rf "$fam"
}

# fp8_unpack OUT: on the GPU machine, in the prepared folder: the GPU's
# name, clock and driver into OUT/gpu.txt, and the FP8 families back into
# the package ($fam, their folder).
fp8_unpack() {
  mkdir -p "$1"
  nvidia-smi --query-gpu=name,clocks.max.sm,driver_version \
    --format=csv,noheader > "$1/gpu.txt"
  fam=pkg/gemmc/share/gemmc/families
  mkdir -p "$fam" && tar xzf fp8.tar.gz -C "$fam"
}
