#!/usr/bin/env bash
# The shipped families beside the same families at an earlier commit, in
# one gemm-bench process per list, so that a re-selection is judged on the
# same GPU with cuBLAS in the same run: the held-out problems (all of them:
# each family runs its own choice), the problems of the issue-15 shape set
# whose choice changed, a random sweep through each new family.
#
#   benchmarks/family-ab.sh compile DIR REV [TYPES]   (here: the families
#       of the tree and of git REV, sm_90a, rrr, or GEMMC_AB_LAYOUT's
#       layouts (rcr: B column-major); TYPES defaults to "f32")
#   DIR/family-ab.sh run DIR                          (there; to $OUT/ab)
#
# The kernels of REV are renamed o32_rrr_* (f32), o16_* (f16), ob16_*
# (bf16): of the same length, so that the PTX stays valid. Where the cost
# model itself changed since REV, GEMMC_OLD_BENCH names a gemm-bench built
# at REV: the old families then choose by their own model, each family in
# its own process beside its own cuBLAS (each ratio against the cuBLAS of
# its run). Where the compiler changed (the same family, new code),
# GEMMC_OLD_GEMMC names a gemmc built at REV, which compiles REV's family.
# summary.txt gives each family's geometric mean over each list and the
# problems whose choice changed, with both ratios. GEMMC_AB_CHANGED=1 (at
# compile) runs only the held-out problems whose choice changed too.
# A choice is the variant and its splits of K.
set -uo pipefail
mode=${1:?compile or run} dir=${2:?folder}
L=${GEMMC_AB_LAYOUT:-rrr}
if [ "$mode" = compile ]; then
  rev=${3:?a git revision} types=${4:-f32}
  here=$(cd "$(dirname "$0")/.." && pwd)
  build=${GEMMC_BUILD_DIR:-$here/build}
  mkdir -p "$dir/fam" "$dir/bin"
  cp "$0" "$dir/"
  cp "$build/bin/gemm-bench" "$dir/bin/"
  rm -f "$dir/bin/gemm-bench-old"
  [ -z "${GEMMC_OLD_BENCH:-}" ] || cp "$GEMMC_OLD_BENCH" "$dir/bin/gemm-bench-old"
  cp "$here/benchmarks/workloads-heldout.txt" "$here/benchmarks/shapes.txt" "$dir/"
  echo "$types" > "$dir/types.txt"
  echo "${GEMMC_AB_LAYOUT:-rrr}" > "$dir/layout.txt"
  for t in $types; do
    o=${t/f/o}; o=${o/bo/ob}
    "$build/bin/gemmc" --arch=sm_90a "$here/families/sm_90a/${t}_${L}.gemm" \
      -o "$dir/fam/${t}_${L}.ptx" || exit 1
    git -C "$here" show "$rev:families/sm_90a/${t}_${L}.gemm" > "$dir/old.gemm" || exit 1
    "${GEMMC_OLD_GEMMC:-$build/bin/gemmc}" --arch=sm_90a "$dir/old.gemm" \
      -o "$dir/old.ptx" || exit 1
    sed "s/\b${t}_${L}_/${o}_${L}_/g" "$dir/old.ptx" > "$dir/fam/${o}_${L}.ptx"
    rm "$dir/old.gemm" "$dir/old.ptx"
    # The problems whose first-ranked variant, or its splits, changed.
    for list in shapes workloads-heldout; do
      for f in "$o" "$t"; do
        bench=$dir/bin/gemm-bench
        [ "$f" = "$t" ] || [ ! -x "$dir/bin/gemm-bench-old" ] || bench=$dir/bin/gemm-bench-old
        "$bench" --explain --device-model "${GEMMC_DEVICE_MODEL:-h200}" --shapes "$dir/$list.txt" \
          "$dir/fam/${f}_${L}.ptx" |
          awk '/ \(m=/{p=$0; sub(/^[^:]*: /, "", p); sub(/ \(m=.*/, "", p); gsub(/ /, "_", p)}
               /^1 /{v=$2; sub(/^[a-z0-9]+_'"$L"'_/, "", v); print p, v, $4}' \
          > "$dir/choice-$list-$f.txt"
      done
      # (A problem's leading dimensions kept: its label's spaces as _.)
      paste -d' ' "$dir/choice-$list-$o.txt" "$dir/choice-$list-$t.txt" |
        awk '$2 != $5 || $3 != $6 {print $1}' | tr _ ' ' > "$dir/$list-changed-$t.txt"
    done
    wc -l < "$dir/shapes-changed-$t.txt" | sed "s/^/$t: issue-15 problems changed: /"
    wc -l < "$dir/workloads-heldout-changed-$t.txt" | sed "s/^/$t: held-out problems changed: /"
  done
  [ -z "${GEMMC_AB_CHANGED:-}" ] || touch "$dir/changed-only"
  exit 0
fi
cd "$dir"
L=$(cat layout.txt 2>/dev/null || echo rrr)
o=${OUT:-out}/ab; mkdir -p "$o"
trap 'tar -C "$(dirname "$o")" -czf "$(dirname "$o")/ab.tgz" ab' EXIT
B=bin/gemm-bench
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$o/gpu.txt" 2>&1
start=$SECONDS
# Each family's geometric mean over one CSV, and the problems where the
# two ran different variants.
summarize() { # NEW OLD CSV...
  python3 - "$L" "$@" <<'EOF'
import csv, math, sys
layout, new, old = sys.argv[1:4]
runs = {}
for r in (r for path in sys.argv[4:] for r in csv.DictReader(open(path))):
    if r["status"] != "PASS":
        continue
    fam = new if r["kernel"].startswith(new + "_") else old
    runs.setdefault((r["m"], r["n"], r["k"]), {})[fam] = (
        r["kernel"].split(f"_{layout}_")[-1], float(r["x_cublas"]))
both = [v for v in runs.values() if len(v) == 2]
for fam in (old, new):
    logs = [math.log(v[fam][1]) for v in both]
    low = sorted((v[fam][1], p) for p, v in runs.items() if len(v) == 2)[:3]
    print(f"  {fam}: {math.exp(sum(logs) / len(logs)):.3f}x over {len(logs)}; lowest",
          ", ".join(f"{'x'.join(p)} {r:.2f}" for r, p in low))
for p, v in sorted(runs.items(), key=lambda x: x[1].get(new, ("", 0))[1]):
    if len(v) == 2 and v[new][0] != v[old][0]:
        print(f"  {'x'.join(p)}: {v[old][0]} {v[old][1]:.3f} -> {v[new][0]} {v[new][1]:.3f}")
EOF
}
for t in $(cat types.txt); do
  ot=${t/f/o}; ot=${ot/bo/ob}
  $B --sweep random --count 300 --max-size 1500 --seed 33 fam/${t}_${L}.ptx > "$o/sweep-$t.log" 2>&1
  echo "sweep $t t=$((SECONDS - start)): $(grep -E '^sweep:' "$o/sweep-$t.log")" | tee -a "$o/summary.txt"
  for list in heldout shapes; do
    shapes=$([ $list = heldout ] && echo workloads-heldout.txt || echo shapes-changed-$t.txt)
    [ $list = shapes ] || [ ! -f changed-only ] || shapes=workloads-heldout-changed-$t.txt
    [ -s "$shapes" ] || continue
    csvs=("$o/$list-$t.csv")
    if [ -x bin/gemm-bench-old ]; then
      # Each family chooses by its own model, in its own process.
      $B --shapes "$shapes" --runs 10 --warmup 3 --csv "$o/$list-$t.csv" \
        fam/${t}_${L}.ptx > "$o/$list-$t.log" 2>&1
      bin/gemm-bench-old --shapes "$shapes" --runs 10 --warmup 3 \
        --csv "$o/$list-$ot.csv" fam/${ot}_${L}.ptx > "$o/$list-$ot.log" 2>&1
      csvs+=("$o/$list-$ot.csv")
    else
      $B --shapes "$shapes" --runs 10 --warmup 3 --csv "$o/$list-$t.csv" \
        fam/${ot}_${L}.ptx fam/${t}_${L}.ptx > "$o/$list-$t.log" 2>&1
    fi
    echo "$([ $list = heldout ] && echo held-out || echo 'issue-15 set, changed choices,') $t t=$((SECONDS - start)):" | tee -a "$o/summary.txt"
    summarize $t $ot "${csvs[@]}" | tee -a "$o/summary.txt"
  done
done
