#!/usr/bin/env bash
# The schedule fuzzer's GPU part (docs/fuzzing.md): each accepted schedule's
# kernel (FILE.sm_90.ptx or FILE.sm_90a.ptx in DIR, as gemmc-schedule-fuzz
# writes them)
# verified by gemm-bench in a process of its own (a kernel that faults
# takes only its own context down): one case of `--sweep random`, so at the
# kernel's own sizes, or random ones for `?`, with its layouts, epilogue and
# batch, random alpha and beta where it takes them (beta 0 a third of the
# time), against cuBLAS and fp64. Then compute-sanitizer memcheck on a
# sample. Results: results.txt (name and pass, wrong, fault or timeout),
# summary.txt, and the logs of every failure (failures.tar.gz) in --out.
#
# usage: fuzz-gpu.sh GEMM-BENCH DIR [--jobs J] [--max-size S]
#                    [--memcheck N] [--out DIR]
# Exit status: 0 all passed, 1 a failure, 3 no GPU.
set -uo pipefail
bench=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$2
shift 2
jobs=8 maxsize=512 memcheck=0 out=${OUT:-$dir/gpu}
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --max-size) maxsize=$2; shift 2 ;;
    --memcheck) memcheck=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "fuzz-gpu: unknown option '$1'" >&2; exit 2 ;;
  esac
done
logs=$out/logs
mkdir -p "$logs"

# One kernel: "NAME STATUS". Its case is seeded by its name, so a rerun
# draws the same sizes, alpha and beta.
one() {
  local f=$1 name status
  name=$(basename "$f" | sed 's/\.sm_90a\{0,1\}\.ptx$//')
  local seed
  seed=$(printf '%s' "$name" | cksum | cut -d' ' -f1)
  timeout 300 "$bench" --sweep random --count 1 --max-size "$maxsize" \
    --seed "$seed" "$f" > "$logs/$name.log" 2>&1
  case $? in
    0) status=pass ;;
    3) status=nogpu ;;
    124) status=timeout ;;
    *) if grep -q 'CUDA_ERROR' "$logs/$name.log"; then status=fault;
       else status=wrong; fi ;;
  esac
  echo "$name $status"
}
export -f one
export bench maxsize logs

ls "$dir"/*.sm_90*.ptx | xargs -P "$jobs" -I{} bash -c 'one {}' \
  | tee "$out/results.raw" | sort > "$out/results.txt"
if grep -q ' nogpu$' "$out/results.txt"; then
  echo "fuzz-gpu: no GPU"
  exit 3
fi

# compute-sanitizer memcheck on every Nth kernel (no cuBLAS: the kernel's
# accesses are what is checked; fp64 still verifies the result).
checked=0 memerrors=0
if [ "$memcheck" -gt 0 ] && command -v compute-sanitizer > /dev/null; then
  total=$(wc -l < "$out/results.txt")
  step=$(( total / memcheck > 0 ? total / memcheck : 1 ))
  for f in $(ls "$dir"/*.sm_90*.ptx | awk -v s="$step" 'NR % s == 0'); do
    name=$(basename "$f" | sed 's/\.sm_90a\{0,1\}\.ptx$//')
    seed=$(printf '%s' "$name" | cksum | cut -d' ' -f1)
    checked=$((checked + 1))
    if ! compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$bench" --sweep random --count 1 --max-size 256 --seed "$seed" \
        --no-cublas "$f" > "$logs/$name.memcheck.log" 2>&1; then
      if grep -q 'Device not supported' "$logs/$name.memcheck.log"; then
        echo "fuzz-gpu: compute-sanitizer does not support this device"
        checked=0
        break
      fi
      memerrors=$((memerrors + 1))
      echo "$name memcheck" >> "$out/memcheck-failures.txt"
    fi
  done
fi

pass=$(grep -c ' pass$' "$out/results.txt")
total=$(wc -l < "$out/results.txt")
failed=$((total - pass + memerrors))
{
  echo "kernels: $total; passed $pass; wrong $(grep -c ' wrong$' "$out/results.txt"); faults $(grep -c ' fault$' "$out/results.txt"); timeouts $(grep -c ' timeout$' "$out/results.txt")"
  echo "memcheck: $checked kernels, $memerrors with errors"
  grep -v ' pass$' "$out/results.txt"
  [ -f "$out/memcheck-failures.txt" ] && cat "$out/memcheck-failures.txt"
} > "$out/summary.txt"
cat "$out/summary.txt"
# The logs of the failures, and a sample of the passes, in one file.
(cd "$logs" && {
  grep -v ' pass$' "$out/results.txt" | awk '{ print $1 ".log" }'
  ls | head -20
  ls *.memcheck.log 2> /dev/null
} | sort -u | xargs tar czf "$out/failures.tar.gz" 2> /dev/null)
echo "fuzz-gpu: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
