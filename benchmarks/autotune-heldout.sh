#!/usr/bin/env bash
# The measured choice (gemm-bench --autotune, docs/selection.md) beside the
# cost model's on the held-out problems:
#   benchmarks/autotune-heldout.sh DIR [FAMILY...]   gemm-bench, the shipped
#       sm_90a families (default f16_rrr bf16_rrr tf32_rcr tf32_rrr) and the
#       held-out problems into DIR (git-ignored, e.g. .device/at); then on
#       the GPU machine
#   bash DIR/run.sh FAMILY:N ...   each FAMILY's model choice (N = 0) or its
#       measured choice of N candidates, each in its own gemm-bench process
#       beside cuBLAS, into $OUT/at (FAMILY-model.csv, FAMILY-atN.csv, logs,
#       summary.txt; at.tgz after each step)
# (results/h100-issue30/autotune/summary.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
dir=${1:?folder}
shift
[ $# -gt 0 ] || set -- f16_rrr bf16_rrr tf32_rcr tf32_rrr
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/fam"
cp "$build/bin/gemm-bench" "$dir/bin/"
for f in "$@"; do
  cp "$build/share/gemmc/families/sm_90a/$f.ptx" "$dir/fam/"
done
cp benchmarks/workloads-heldout.txt "$dir/"
cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
cd "$(dirname "$0")"
o=${OUT:-out}/at; mkdir -p "$o"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
for step in "$@"; do
  f=${step%%:*}; n=${step#*:}
  extra=(); tag=model
  [ "$n" != 0 ] && { extra=(--autotune "$n"); tag=at$n; }
  s=$(date +%s)
  bin/gemm-bench --shapes workloads-heldout.txt --runs 10 --warmup 3 \
    --shape-summary "$o/$f-$tag.csv" "${extra[@]}" "fam/$f.ptx" > "$o/$f-$tag.log" 2>&1
  echo "$f $tag: $(( $(date +%s) - s )) s: $(grep -E '^(geometric|lowest)' "$o/$f-$tag.log" | tr '\n' ' ')" | tee -a "$o/summary.txt"
  tar -C "$o/.." -czf "$o/../at.tgz" at
done
RUN
chmod +x "$dir/run.sh"
echo "$dir: then on the GPU machine: bash $dir/run.sh f16_rrr:0 f16_rrr:3 ..."
