#!/usr/bin/env bash
# A change to the compiler judged on the GPU: each schedule compiled by an
# earlier gemmc (old) and by this tree's (new), each kernel in its own
# gemm-bench process beside cuBLAS, old and new in turn, for some rounds.
# gemm-bench takes C's type and the activation from each schedule's
# problem section, A's and B's types and the layouts from the kernel.
#   benchmarks/compiler-ab.sh prepare DIR OLD_GEMMC FILE.gemm...  # here
#   bash DIR/compiler-ab.sh run [ROUNDS] [SIZES]                  # there:
#       $OUT/ab.txt, one line a kernel, version and round (SIZES: a
#       gemm-bench --size list; default 4096^3, 8192^3, 4096x4096x1024,
#       16384x4096x4096, 4096x14336x4096)
#   benchmarks/compiler-ab.sh summary AB.TXT...   # medians: each kernel's
#       new speed over its old, per size, and both against cuBLAS
# Build the old gemmc at the earlier commit, e.g. in a git worktree.
# Results: benchmarks/results/h100-issue30/wgmma-zeros-ab.txt (opaque
# zeros), benchmarks/results/h100-issue33/epilogue-release.txt.
set -uo pipefail
mode=${1:?prepare, run or summary}
if [ "$mode" = summary ]; then
  shift
  exec python3 - "$@" <<'PY'
import re, statistics, sys
times = {}
for path in sys.argv[1:]:
    for line in open(path):
        head, _, rest = line.partition(":")
        kernel, version = head.split()[:2]
        for size, who, ms in re.findall(r"(\S+) (\S+) PASS ([0-9.]+)", rest):
            key = "cuBLAS" if who == "cuBLAS" else version
            times.setdefault((kernel, size), {}).setdefault(key, []).append(float(ms))
for (kernel, size), t in times.items():
    if "old" not in t or "new" not in t:
        continue
    m = {k: statistics.median(v) for k, v in t.items()}
    print(f"{kernel:22s} {size:17s} old {m['old']:.4f} new {m['new']:.4f} ms: "
          f"new x old {m['old'] / m['new']:.3f}; x cuBLAS old "
          f"{m['cuBLAS'] / m['old']:.3f}, new {m['cuBLAS'] / m['new']:.3f}")
PY
fi
if [ "$mode" = prepare ]; then
  dir=${2:?folder} old=${3:?the earlier gemmc}
  shift 3
  root=$(cd "$(dirname "$0")/.." && pwd)
  mkdir -p "$dir/old" "$dir/new"
  cp "$root/build/bin/gemm-bench" "$0" "$dir/"
  : > "$dir/kernels.txt"
  for g in "$@"; do
    name=$(basename "$g" .gemm)
    env -u CUDA_HOME "$old" --arch=sm_90a "$g" -o "$dir/old/$name.ptx" || exit 1
    env -u CUDA_HOME "$root/build/bin/gemmc" --arch=sm_90a "$g" \
      -o "$dir/new/$name.ptx" || exit 1
    # gemm-bench's flags from the problem section: C's type, the activation.
    flags=""
    c=$(grep -oE '\bc = [a-z0-9]+' "$g" | head -1 | cut -d' ' -f3)
    [ -z "$c" ] || flags="--ctype $c"
    act=$(grep -oE 'activation = [a-z-]+' "$g" | head -1 | cut -d' ' -f3)
    [ -z "$act" ] || flags="$flags --activation $act"
    echo "$name $flags" >> "$dir/kernels.txt"
  done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp}
rounds=${2:-2}
sizes=${3:-4096x4096x4096,8192x8192x8192,4096x4096x1024,16384x4096x4096,4096x14336x4096}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt"
for round in $(seq "$rounds"); do
  while read -r name flags; do
    for version in old new; do
      # shellcheck disable=SC2086
      ./gemm-bench --size "$sizes" $flags --runs 20 --warmup 5 \
        --csv "$O/x.csv" "$version/$name.ptx" > "$O/last.log" 2>&1 ||
        { echo "$name $version: gemm-bench failed" >> "$O/ab.txt"; tail -3 "$O/last.log"; }
      python3 -c 'import csv, sys
rows = csv.DictReader(open(sys.argv[1]))
print(sys.argv[2] + ":", " ".join(f"{r["m"]}x{r["n"]}x{r["k"]} {r["kernel"]} {r["status"]} {r["ms"]}" for r in rows))' \
        "$O/x.csv" "$name $version $round" | tee -a "$O/ab.txt"
    done
  done < kernels.txt
done
