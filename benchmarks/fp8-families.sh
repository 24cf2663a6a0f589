#!/usr/bin/env bash
# The FP8 families gemmc ships for torch._scaled_mm's products
# (families/sm_90a/fp8_A_B_C_SCALES[_fast][_bias].gemm; gemmc.scaled_mm and
# gemmc_scaled_family_load run them): A row-major and B column-major (K
# contiguous in both, as wgmma reads FP8), in e4m3 or e5m2 (not both e5m2,
# as torch._scaled_mm), C row-major in bf16, f16 or f32 (and e4m3 x e4m3
# into e4m3 per tensor, with C's scale: `output-scale`), with per-tensor or
# rowwise scales, each k tile's sums promoted to f32 or (`_fast`,
# torch's use_fast_accum) summed on the tensor cores over all of K; for
# e4m3 x e4m3 into bf16 or f16 also with torch's bias (`_bias`: N values
# of C's type added to each row).
#
#   benchmarks/fp8-families.sh candidates DIR   the candidate schedules,
#       compiled: DIR/p (promoted sums), DIR/f (fast), e4m3 x e4m3 -> bf16,
#       per tensor; measured on the GPU by runtime/scripts/tune-gpu.sh on
#       the training problems whose K is a multiple of 16
#   benchmarks/fp8-families.sh                  the 46 families, from the
#       committed measurements (benchmarks/tuning/h200/fp8-promoted- and
#       fp8-fast-results.tsv): gemmc-tune select chooses the variants and
#       fits their constants for e4m3 x e4m3 -> bf16 per tensor, and every
#       other family takes the same variants and constants (their
#       measurements stand in, as a retargeted family's do; docs/tuning.md)
#   benchmarks/fp8-families.sh heldout DIR REV [FAMILY...]  an A/B on
#       held-out problems: the shipped e4m3 x e4m3 -> bf16 families (per
#       tensor, fast, rowwise; or the FAMILY names given) as built and as of
#       git revision REV, gemm-bench, and the held-out
#       problems whose K is a multiple of 16 (shuffled, seed 3) into DIR;
#       on the GPU machine `bash DIR/run.sh` writes $OUT/fp8-heldout/
#       (results/h100-issue33/fp8-transposed-heldout.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}

# Each candidate's schedule (the schedule section's directives).
schedules() { # promoted|fast
  local wide=192
  [ "$1" = promoted ] || wide=256
  python3 - "$wide" "$1" <<'PY'
import sys
wide, mode = int(sys.argv[1]), sys.argv[2]
def s(tile, n, ws, stages, *extra, tma="tma a b c"):
    lines = [f"tile {tile}", f"wgmma m64n{n}k32", tma,
             f"pipeline stages {stages}", f"warp-specialize {ws}", *extra]
    if any(e.startswith("persistent") for e in extra):
        lines.append("raster 8")
    return lines
c = {
    "w0": s(f"128x{wide}x128", wide, 2, 4, "persistent"),
    "w1": s(f"128x{wide}x128", wide, 2, 4, "persistent stream-k"),
    "w2": s(f"128x{wide}x128", wide, 2, 4, "persistent", "cluster 2x1"),
    "m0": s("128x128x128", 128, 2, 5, "persistent"),
    "m1": s("128x128x128", 128, 2, 5, "persistent stream-k"),
    "m2": s("128x128x128", 128, 2, 5),
    "m3": s("128x128x128", 128, 2, 5, "split-k ?"),
    "n0": s("64x128x128", 128, 1, 6, "persistent"),
    "n1": s("64x128x128", 128, 1, 6, "persistent stream-k"),
    "n2": s("64x128x128", 128, 1, 6, "split-k ?"),
    "n3": s("64x64x128", 64, 1, 8, "split-k ?"),
    # The catch-all: C stored without TMA, any N.
    "any": s("128x128x128", 128, 2, 4, tma="tma a b"),
}
# Transposed (C^T = B^T A^T: M along wgmma's N, both operands still
# K-major): decode tiles 8 to 64 wide along M with K split at launch, deep
# K steps as f16's `_wd`, and persistent tiles 32 to 128 wide for M up to
# a few hundred, as f16's `_wn`.
for n in (8, 16, 32, 64):
    c[f"d{n}"] = ["transpose"] + s(f"64x{n}x256", n, 1, 4, "split-k ?",
                                   tma="tma a b")
for n in (16, 32):
    c[f"t{n}"] = ["transpose"] + s(f"64x{n}x128", n, 1, 8, "split-k ?",
                                   tma="tma a b")
for n, stages in ((32, 8), (64, 6), (128, 5)):
    c[f"p{n}"] = ["transpose"] + s(f"128x{n}x128", n, 2, stages, "persistent")
if mode == "fast":  # 64 x 256: the promoted sums leave no registers for it
    c["n4"] = s("64x256x128", 256, 1, 5, "persistent stream-k")
    # Ping-pong consumers, a whole 128 x 192 tile each (192 accumulators:
    # promoted sums would need as many again): one's epilogue runs while
    # the other's wgmma do.
    c["w3"] = s("128x192x128", 192, "2 ping-pong", 4, "persistent")
for name, lines in c.items():
    print(name + "\t" + ";".join(lines))
PY
}

# DIR/p or DIR/f: each candidate's schedule file and PTX, and the list
# gemmc-tune select reads.
candidates() { # DIR promoted|fast
  local dir=$1 mode=$2 prefix=fp8${2:0:1}
  mkdir -p "$dir"
  printf 'name\tthreads\tshared_bytes\tregisters\tld_multiple\n' > "$dir/candidates.tsv"
  while IFS=$'\t' read -r name directives; do
    {
      echo "kernel ${prefix}_$name {"
      echo "  problem {"
      echo "    m = ?"
      echo "    n = ?"
      echo "    k = ?"
      echo "    a = e4m3 row"
      echo "    b = e4m3 col"
      echo "    c = bf16 row"
      echo "    scales = tensor"
      [ "$mode" = promoted ] || echo "    math = fast-accumulate"
      echo "  }"
      echo "  schedule {"
      tr ';' '\n' <<< "$directives" | sed 's/^/    /'
      echo "  }"
      echo "}"
    } > "$dir/${prefix}_$name.gemm"
    "$build/bin/gemmc" --arch=sm_90a "$dir/${prefix}_$name.gemm" \
      -o "$dir/${prefix}_$name.ptx"
    printf '%s\t0\t0\t0\t-\n' "${prefix}_$name" >> "$dir/candidates.tsv"
  done < <(schedules "$mode")
}

if [ "${1:-}" = heldout ]; then
  dir=${2:?folder} rev=${3:?git revision}
  shift 3
  [ $# -gt 0 ] || set -- fp8_e4m3_e4m3_bf16_tensor \
    fp8_e4m3_e4m3_bf16_tensor_fast fp8_e4m3_e4m3_bf16_rowwise
  mkdir -p "$dir"
  cp "$build/bin/gemm-bench" "$dir/"
  printf '%s\n' "$@" > "$dir/families.txt"
  while read -r f; do
    cp "$build/share/gemmc/families/sm_90a/$f.ptx" "$dir/"
    git show "$rev:families/sm_90a/$f.gemm" |
      sed "s/^kernel $f {/kernel ${f}_old {/" > "$dir/${f}_old.gemm"
    "$build/bin/gemmc" --arch=sm_90a "$dir/${f}_old.gemm" -o "$dir/${f}_old.ptx"
  done < "$dir/families.txt"
  awk '!/^#/ && NF { split($1, s, "x"); if (s[3] % 16 == 0) print $1 }' \
    benchmarks/workloads-heldout.txt |
    python3 -c 'import random, sys
lines = sys.stdin.readlines(); random.Random(3).shuffle(lines)
sys.stdout.writelines(lines)' > "$dir/heldout.txt"
  cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Each family's new and old PTX in one process, beside cuBLASLt's FP8;
# BUDGET seconds a family (a run cut short resumes from its results).
cd "$(dirname "$0")"
o=${OUT:-/tmp}/fp8-heldout; mkdir -p "$o"
while read -r f; do
  ./gemm-bench --shapes heldout.txt --runs 5 --warmup 2 \
    --budget "${BUDGET:-600}" --results "$o/$f.tsv" "$f.ptx" "${f}_old.ptx" \
    > "$o/$f.log" 2>&1
  echo "$f exit $?"; tail -2 "$o/$f.log"
done < families.txt
RUN
  exit 0
fi

if [ "${1:-}" = candidates ]; then
  candidates "${2:?folder}/p" promoted
  candidates "$2/f" fast
  exit 0
fi

# Compiles the family FILE, leaving out each variant gemmc warns may spill
# (the ping-pong one beside rowwise scales and a bias); then it compiles
# without a warning.
dropSpilling() { # FILE
  local lines
  lines=$("$build/bin/gemmc" --arch=sm_90a "$1" -o /dev/null 2>&1 |
    sed -n "s|^$1:\([0-9]*\):[0-9]*: warning: .*spill.*|\1|p")
  [ -n "$lines" ] || return 0
  python3 - "$1" $lines <<'PY'
import re, sys
path, warned = sys.argv[1], {int(n) for n in sys.argv[2:]}
lines = open(path).read().split("\n")
starts = [i for i, l in enumerate(lines) if re.match(r"  variant \w+ ", l)]
drop = set()
for start in starts:
    end = lines.index("  }", start)
    if any(start < n - 1 <= end for n in warned):
        first = start - 1 if lines[start - 1].startswith("  #") else start
        drop.update(range(first, end + 1))
        print(f"{path}: {lines[start].split()[1]} left out: gemmc warns it "
              f"may spill", file=sys.stderr)
names = [lines[i].split()[1] for i in starts if i in drop]
kept = [l for i, l in enumerate(lines) if i not in drop]
at = next(i for i, l in enumerate(kept) if l.startswith("kernel "))
kept.insert(at, f"# Left out: {', '.join(names)} (gemmc warns it may spill "
                "registers here).")
open(path, "w").write("\n".join(kept))
PY
  ! "$build/bin/gemmc" --arch=sm_90a "$1" -o /dev/null 2>&1 | grep .
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for mode in promoted fast; do
  dir=$work/${mode:0:1}
  candidates "$dir" "$mode"
  cp "benchmarks/tuning/h200/fp8-$mode-results.tsv" "$dir/results.tsv"
  cut -f1 "$dir/results.tsv" | sort -u > "$dir/shapes.txt"
  "$build/bin/gemmc-tune" select "$dir" --shapes "$dir/shapes.txt" \
    --device-model h200 -o "$work/$mode.gemm" |
    grep -E '^gemmc-tune: [0-9]+ training' | sed "s|^gemmc-tune|fp8 $mode|"
  # Into e4m3, chosen and fitted again without the candidates 192 wide
  # (TMA stores an e4m3 C in groups of 128 columns: they would store it
  # from registers), on the same measurements.
  wide=$(grep -l "^    tile 128x192x128" "$dir"/*.gemm | xargs -n1 basename |
    sed 's/\.gemm$//')
  mkdir -p "$dir/e4m3"
  cp "$dir"/*.ptx "$dir"/*.gemm "$dir/e4m3/"
  grep -v -F -f <(printf '%s.ptx\n' $wide) "$dir/results.tsv" \
    > "$dir/e4m3/results.tsv"
  grep -v -F -f <(printf '%s\t\n' $wide) "$dir/candidates.tsv" \
    > "$dir/e4m3/candidates.tsv"
  (cd "$dir/e4m3" && ln -s . "${mode:0:1}")
  "$build/bin/gemmc-tune" select "$dir/e4m3" --shapes "$dir/shapes.txt" \
    --device-model h200 -o "$work/$mode-e4m3.gemm" |
    grep -E '^gemmc-tune: [0-9]+ training' |
    sed "s|^gemmc-tune|fp8 $mode into e4m3|"
done
# (Not the grouped FP8 families: benchmarks/grouped.sh writes those.)
rm -f families/sm_90a/fp8_*_tensor.gemm families/sm_90a/fp8_*_rowwise.gemm \
  families/sm_90a/fp8_*_fast.gemm families/sm_90a/fp8_*_bias.gemm
# Each pair torch._scaled_mm takes, into bf16, f16 or f32; and with
# torch's bias (`bias = col`, N values of C's type: bf16 or f16, as torch
# takes it) for e4m3 x e4m3, the forward products of inference and
# training (the e5m2 gradients' products add none).
for family in "e4m3 e4m3 bf16 f16 f32" "e4m3 e5m2 bf16 f16 f32" \
              "e5m2 e4m3 bf16 f16 f32" "e4m3 e4m3 bf16 f16 bias"; do
  set -- $family
  a=$1 b=$2
  shift 2
  bias=
  [ "${!#}" != bias ] || { bias=_bias; set -- "${@:1:$#-1}"; }
  for c in "$@"; do
    for scales in tensor rowwise; do
      for mode in promoted fast; do
        name=fp8_${a}_${b}_${c}_$scales$([ $mode = promoted ] || echo _fast)$bias
        out=families/sm_90a/$name.gemm
        # The selected family, its problem's types and scales those of this
        # one, its data the committed file's.
        sed -e "s|^kernel [a-z0-9_]* {|kernel $name {|" \
            -e "s|^    a = e4m3 row|    a = $a row|" \
            -e "s|^    b = e4m3 col|    b = $b col|" \
            -e "s|^    c = bf16 row|    c = $c row|" \
            -e "s|^    scales = tensor|    scales = $scales${bias:+\\n    bias = col}|" \
            -e "s|from $work/[pf]/results.tsv|from benchmarks/tuning/h200/fp8-$mode-results.tsv|" \
            -e "s|over \([0-9]*\) training problems of $work/[pf]/shapes.txt|over \1 training problems (its measured ones)|" \
            "$work/$mode.gemm" > "$out"
        [ "$name" = fp8_e4m3_e4m3_bf16_tensor$([ $mode = promoted ] || echo _fast) ] ||
          sed -i '2a # Its variants and constants are those of e4m3 x e4m3 -> bf16 per tensor'"${bias:+ without a bias}"', measured: they stand in for this type'"'"'s.' "$out"
        dropSpilling "$out"
      done
    done
  done
done
# And into e4m3, as torch._scaled_mm writes an FP8 result: e4m3 x e4m3,
# per tensor, C's scale (its scale_result) last, the cast saturated. TMA
# stores an e4m3 C in groups of 128 columns, row-major: a variant whose
# tile is narrower, or transposed (C^T column-major), stores it from
# registers, and one 192 wide is left out (from
# registers, 128 x 192 tiles ran 0.78x and 0.82x cuBLASLt's FP8 D at 4096^3
# and 4096x14336x4096 on an H200, where 128 x 128 tiles with TMA's store
# ran 0.93x and 0.91x; results/h100-issue33/fp8-out-scale.txt).
for mode in promoted fast; do
  name=fp8_e4m3_e4m3_e4m3_tensor$([ $mode = promoted ] || echo _fast)
  out=families/sm_90a/$name.gemm
  sed -e "s|^kernel [a-z0-9_]* {|kernel $name {|" \
      -e "s|^    c = bf16 row|    c = e4m3 row|" \
      -e "s|^    scales = tensor|    scales = tensor\n    output-scale = tensor|" \
      -e "s|from $work/[pf]/e4m3/results.tsv|from benchmarks/tuning/h200/fp8-$mode-results.tsv (but its 128 x 192 candidates)|" \
      -e "s|over \([0-9]*\) training problems of $work/[pf]/shapes.txt|over \1 training problems (its measured ones)|" \
      "$work/$mode-e4m3.gemm" > "$out"
  python3 - "$out" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
bn, drop, start, transposed = None, set(), None, False
for i, line in enumerate(lines):
    if re.match(r"  variant \w+ ", line):
        start = i - 1 if lines[i - 1].startswith("  #") else i
        transposed = False
    transposed = transposed or line == "    transpose"
    tile = re.match(r"    tile \d+x(\d+)", line)
    if tile:
        bn = int(tile.group(1))
    if line == "    tma a b c" and transposed:
        lines[i] = "    tma a b"
    if line == "    tma a b c" and bn is not None and bn % 128:
        lines[i] = "    tma a b"
        if bn > 128:
            drop.update(range(start, lines.index("  }", i) + 1))
names = [l.split()[1] for i, l in enumerate(lines)
         if i in drop and l.startswith("  variant")]
lines = [l for i, l in enumerate(lines) if i not in drop]
if names:
    at = next(i for i, l in enumerate(lines) if l.startswith("kernel "))
    lines.insert(at, f"# Left out: {', '.join(names)} (128 x 192 tiles would "
                     "store an e4m3 C from registers).")
open(path, "w").write("\n".join(lines))
PY
  sed -i '2a # Chosen and fitted from the measurements of e4m3 x e4m3 -> bf16 per tensor without its 128 x 192 candidates: they stand in for this type'"'"'s.' "$out"
  dropSpilling "$out"
done
ls families/sm_90a/fp8_*.gemm | wc -l
