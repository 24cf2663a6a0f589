#!/usr/bin/env bash
# Grouped GEMM for mixture-of-experts (docs/benchmarks.md, "Grouped GEMM"):
# the grouped kernels, compiled here, on benchmarks/moe-shapes.txt beside a
# loop of cuBLAS calls (gemm-bench --grouped) and torch._grouped_mm (in its
# own process), a random sweep, and compute-sanitizer on a sample; and the
# shipped schedule on the held-out models of moe-shapes-heldout.txt.
#   benchmarks/grouped.sh prepare [DIR]   # here: DIR (default .device/grouped)
#   bash DIR/grouped.sh shapes            # there: results under $OUT (~6 min)
#   bash DIR/grouped.sh checks            # there: Python, torch, sweep (~8 min)
#   bash DIR/grouped.sh heldout           # there: both beside it (~6 min)
#   bash DIR/grouped.sh fp8               # there: FP8 beside torch (~5 min)
#   bash DIR/grouped.sh fp8-tiles         # there: the FP8 tile candidates
#   bash DIR/grouped.sh bf16-tiles        # there: bf16 tiles beside torch (~7 min)
#   bash DIR/grouped.sh ping-pong         # there: ping-pong candidates (~8 min;
#                                         #   PP=, SWEPT=: fewer, ~3 min)
#   bash DIR/grouped.sh layouts           # there: f16 and B row-major (~7 min)
#   bash DIR/grouped.sh shipped           # there: the shipped families'
#                                         #   checks and speed (~8 min;
#                                         #   KINDS=, ROUNDS=)
#   bash DIR/grouped.sh table             # there: the general form's checks
#   bash DIR/grouped.sh table-shapes      # there: and its speed (~9 min)
#   bash DIR/grouped.sh table-tiles       # there: its tiles above 64
#                                         #   rows a group (~9 min)
#   bash DIR/grouped.sh table-tma         # there: A and B by TMA, maps
#                                         #   made on the device (~8 min)
#   bash DIR/grouped.sh table-family      # there: the general form's
#                                         #   families, checks and speed
#                                         #   beside those before (~9 min)
# (separate commands: each fits the lent machine's 10 minutes a command)
# Results: benchmarks/results/h100-issue34/.
set -uo pipefail
mode=${1:-prepare}
if [ "$mode" = prepare ]; then
  cd "$(dirname "$0")/.."
  dir=${2:-.device/grouped}
  gemmc=${GEMMC:-build/bin/gemmc}
  rm -rf "$dir"
  mkdir -p "$dir/v" "$dir/bin"
  cp build/bin/gemm-bench "$dir/bin/"
  cp "$0" benchmarks/moe-shapes.txt benchmarks/moe-shapes-heldout.txt \
    benchmarks/grouped-torch.py benchmarks/torch_timing.py "$dir/"
  # The Python package with the runtime and the shipped grouped kernels,
  # for gemmc.grouped_mm beside torch._grouped_mm in one process.
  bash scripts/python-package.sh build "$dir/pkg" > /dev/null || exit 1
  # (the grouped kernels only: the package's other families are not run)
  find "$dir/pkg" -name '*.ptx' ! -name '*_grouped.ptx' \
    ! -name '*_ptr_array.ptx' -delete
  cp python/tests/test_grouped.py "$dir/"
  cp build/share/gemmc/families/sm_90a/fp8_*_grouped.ptx "$dir/v/"
  "$gemmc" --arch=sm_90a examples/hopper-moe-grouped.gemm \
    -o "$dir/hopper-moe-grouped.ptx" 2>/dev/null || exit 1
  "$gemmc" --arch=sm_90a examples/hopper-grouped-ptr-array.gemm \
    -o "$dir/hopper-grouped-ptr-array.ptx" 2>/dev/null || exit 1
  # The general form's tile candidates (table-shapes):
  # name, tile, wgmma's N, stages, `ping-pong` or nothing, and an
  # activation or none.
  pa() {
    sed -e "s/hopper_grouped_ptr_array/$1/" -e "s/tile 128x128x64/tile $2/" \
      -e "s/m64n128k16/m64n$3k16/" -e "s/stages 4/stages $4/" \
      -e "s/warp-specialize 2/warp-specialize 2 ${5:-}/" \
      -e "s/epilogue = alpha-beta/epilogue = alpha-beta activation = ${6:-none}/" \
      examples/hopper-grouped-ptr-array.gemm > "$dir/v/$1.gemm"
    "$gemmc" --arch=sm_90a "$dir/v/$1.gemm" -o "$dir/v/$1.ptx" 2>/dev/null ||
      exit 1
  }
  pa pa128x192 128x192x64 192 4
  pa pa128x128s5 128x128x64 128 5
  pa papp128x128 128x128x64 128 4 ping-pong
  pa papp64x128 64x128x64 128 8 ping-pong
  pa papp128x128gelu 128x128x64 128 4 ping-pong gelu
  # (table-tiles: the tile for more than 64 rows a group)
  pa pa128x256 128x256x64 256 4
  pa pa256x128 256x128x64 128 4
  pa papp64x192 64x192x64 192 6 ping-pong
  pa papp64x256 64x256x64 256 4 ping-pong
  # (table-tma: A and B by TMA, each group's maps made on the device)
  pat() {
    pa "$@"
    sed -i "s/vectorize global-load 8/tma a b/" "$dir/v/$1.gemm"
    "$gemmc" --arch=sm_90a "$dir/v/$1.gemm" -o "$dir/v/$1.ptx" 2>/dev/null ||
      exit 1
  }
  pat pat128x192 128x192x64 192 4
  pat pat128x256 128x256x64 256 4
  pat pat128x128 128x128x64 128 6
  pat patpp64x128 64x128x64 128 8 ping-pong
  for s in moe-shapes moe-shapes-heldout; do
    grep -v "^#" benchmarks/$s.txt | awk '{split($1, g, "="); split($2, t, "=");
      if (t[2] / g[2] > 64) print}' > "$dir/over64-$s.txt"
  done
  # The general-form families before their last change, a family folder
  # (GEMMC_FAMILY_DIR) to time the shipped ones beside (table-family).
  mkdir -p "$dir/before/sm_90a"
  cp "$dir"/pkg/gemmc/share/gemmc/families/sm_90a/*.ptx "$dir/before/sm_90a/"
  before=$(git log -1 --format=%H -- families/sm_90a/bf16_rcr_ptr_array.gemm)^
  for n in bf16_rcr f16_rcr bf16_rrr f16_rrr; do
    git show "$before:families/sm_90a/${n}_ptr_array.gemm" \
      > "$dir/before/${n}_ptr_array.gemm" || exit 1
    "$gemmc" --arch=sm_90a "$dir/before/${n}_ptr_array.gemm" \
      -o "$dir/before/sm_90a/${n}_ptr_array.ptx" 2>/dev/null || exit 1
  done
  # name, tile BMxBN, wgmma's N, stages, consumers, what TMA copies
  mk() {
    cat > "$dir/v/$1.gemm" <<GEMM
kernel $1 {
  problem { m = ? n = ? k = ? a = bf16 row b = bf16 col c = bf16 row groups = ? }
  schedule { tile $2x64 wgmma m64n$3k16 tma $6 pipeline stages $4
             warp-specialize $5 persistent raster 8 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/v/$1.gemm" -o "$dir/v/$1.ptx" 2>/dev/null ||
      exit 1
  }
  mk g128x256 128x256 256 4 2 "a b"
  mk g128x128c 128x128 128 6 2 "a b c"
  # The rowwise FP8 kernels' tile candidates (fp8-tiles), each a family
  # folder with the shipped names: candidate, tile of the promoted sums'
  # kernel and of the fast one, what TMA copies.
  fp8() { # folder name scales-and-sums tile what-TMA-copies
    local math=""
    [ "${3#*fast}" = "$3" ] || math="math = fast-accumulate"
    mkdir -p "$dir/c/$1/sm_90a"
    cat > "$dir/c/$1/$2.gemm" <<GEMM
kernel fp8_e4m3_e4m3_bf16_$2_grouped {
  problem { m = ? n = ? k = ? a = e4m3 row b = e4m3 col c = bf16 row
            groups = ? scales = rowwise $math }
  schedule { tile $4x128 wgmma m64n${4#*x}k32 tma $5 pipeline stages $6
             warp-specialize 2 persistent raster 8 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/c/$1/$2.gemm" \
      -o "$dir/c/$1/sm_90a/fp8_e4m3_e4m3_bf16_$2_grouped.ptx" 2>/dev/null ||
      exit 1
  }
  fp8 tma-c rowwise rowwise 128x192 "a b c" 4
  fp8 tma-c rowwise_fast rowwise_fast 128x256 "a b c" 4
  fp8 no-tma-c rowwise rowwise 128x192 "a b" 4
  fp8 no-tma-c rowwise_fast rowwise_fast 128x256 "a b" 4
  fp8 n128 rowwise rowwise 128x128 "a b c" 6
  fp8 n128 rowwise_fast rowwise_fast 128x128 "a b c" 6
  # bf16_rcr_grouped's tile candidates (bf16-tiles), each a family folder
  # with the shipped name (the shipped tile: 128x256x64, 4 stages, tma a b
  # c): folder, tile BMxBN, stages.
  bf16() {
    mkdir -p "$dir/b/$1/sm_90a"
    cat > "$dir/b/$1/bf16_rcr_grouped.gemm" <<GEMM
kernel bf16_rcr_grouped {
  problem { m = ? n = ? k = ? a = bf16 row b = bf16 col c = bf16 row groups = ? }
  schedule { tile $2x64 wgmma m64n${2#*x}k16 tma a b c pipeline stages $3
             warp-specialize 2 persistent raster 8 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/b/$1/bf16_rcr_grouped.gemm" \
      -o "$dir/b/$1/sm_90a/bf16_rcr_grouped.ptx" 2>/dev/null || exit 1
  }
  bf16 n192 128x192 4
  bf16 n128 128x128 6
  # Ping-pong consumers (ping-pong): bf16_rcr_grouped's and the promoted
  # rowwise FP8 kernel's variants alone, each a family folder with the
  # shipped name: folder, kernel, problem, tile BMxBNxBK, wgmma's shape,
  # stages, and `ping-pong` or nothing (cooperative consumers).
  pp() {
    mkdir -p "$dir/pp/$1/sm_90a"
    cat > "$dir/pp/$1/$2.gemm" <<GEMM
kernel $2 {
  problem { $3 }
  schedule { tile $4 wgmma $5 tma a b c pipeline stages $6
             warp-specialize 2 $7 persistent raster 8 }
}
GEMM
    "$gemmc" --arch=sm_90a "$dir/pp/$1/$2.gemm" \
      -o "$dir/pp/$1/sm_90a/$2.ptx" 2>/dev/null || exit 1
  }
  bf16p="m = ? n = ? k = ? a = bf16 row b = bf16 col c = bf16 row groups = ?"
  fp8p="m = ? n = ? k = ? a = e4m3 row b = e4m3 col c = bf16 row groups = ? scales = rowwise"
  fp8k=fp8_e4m3_e4m3_bf16_rowwise_grouped
  pp pp64x128 bf16_rcr_grouped "$bf16p" 64x128x64 m64n128k16 8 ping-pong
  pp pp128x128 bf16_rcr_grouped "$bf16p" 128x128x64 m64n128k16 6 ping-pong
  pp co128x256 bf16_rcr_grouped "$bf16p" 128x256x64 m64n256k16 4 ""
  pp fr64x128 $fp8k "$fp8p" 64x128x128 m64n128k32 8 ping-pong
  pp fco128x192 $fp8k "$fp8p" 128x192x128 m64n192k32 4 ""
  # use_fast_accum's kernel: ping-pong 64x256 and 64x128 beside the
  # shipped 128x256.
  pp ff64x256 ${fp8k%_grouped}_fast_grouped \
    "$fp8p math = fast-accumulate" 64x256x128 m64n256k32 4 ping-pong
  pp ff64x128 ${fp8k%_grouped}_fast_grouped \
    "$fp8p math = fast-accumulate" 64x128x128 m64n128k32 8 ping-pong
  # The kernels of per-tensor scales with the rowwise ones' tiles:
  # use_fast_accum's ping-pong 64x256, and promoted sums' 64x128.
  fp8t="${fp8p% scales = rowwise} scales = tensor"
  pp tf64x256 ${fp8k%_rowwise_grouped}_tensor_fast_grouped \
    "$fp8t math = fast-accumulate" 64x256x128 m64n256k32 4 ping-pong
  pp tr64x128 ${fp8k%_rowwise_grouped}_tensor_grouped "$fp8t" \
    64x128x128 m64n128k32 8 ping-pong
  # bf16 with use_fast_accum's tile: ping-pong 64x256.
  pp pp64x256 bf16_rcr_grouped "$bf16p" 64x256x64 m64n256k16 4 ping-pong
  # The other 16-bit grouped families (layouts): the cooperative 128x256
  # tile shipped before and ping-pong 64x256.
  for n in f16_rcr f16_rrr bf16_rrr; do
    t=${n%_*} b=col
    [ "${n#*_}" = rrr ] && b=row
    p="m = ? n = ? k = ? a = $t row b = $t $b c = $t row groups = ?"
    pp lo-co-$n ${n}_grouped "$p" 128x256x64 m64n256k16 4 ""
    pp lo-pp-$n ${n}_grouped "$p" 64x256x64 m64n256k16 4 ping-pong
  done
  # Every other shape of each set, for the layouts' comparison.
  for s in moe-shapes moe-shapes-heldout; do
    grep -v '^#' benchmarks/$s.txt | awk 'NF && NR % 2' > "$dir/$s-half.txt"
  done
  du -sh "$dir"
  exit 0
fi
cd "$(dirname "$0")"
B=bin/gemm-bench O=${OUT:-/tmp}
# The kind of a grouped-torch.py run: its flags.
kind_flags() {
  case $1 in
    bf16) echo "" ;;
    bf16-rrr) echo --b-row ;;
    f16) echo --f16 ;;
    f16-rrr) echo "--f16 --b-row" ;;
    fp8) echo --fp8 ;;
    fp8-fast) echo "--fp8 --fast" ;;
    fp8-tensor) echo --tensor ;;
    fp8-tensor-fast) echo "--tensor --fast" ;;
  esac
}
if [ "$mode" = shapes ]; then
  # The example (C by TMA inside the groups) and a 128x128 tile beside the
  # loop of cuBLAS calls.
  timeout 540 $B --grouped moe-shapes.txt --runs 20 hopper-moe-grouped.ptx \
    v/g128x128c.ptx > "$O/grouped-shapes.txt" 2>&1
  grep "geomean\|cases," "$O/grouped-shapes.txt"
  exit 0
fi
if [ "$mode" = heldout ]; then
  # The shipped schedule (the example's) on models it was not chosen on:
  # beside the loop of cuBLAS calls, then torch._grouped_mm from Python.
  timeout 330 $B --grouped moe-shapes-heldout.txt --runs 20 \
    hopper-moe-grouped.ptx > "$O/grouped-heldout.txt" 2>&1
  grep "geomean\|cases," "$O/grouped-heldout.txt"
  PYTHONPATH=$PWD/pkg timeout 200 python3 grouped-torch.py \
    moe-shapes-heldout.txt > "$O/grouped-torch-heldout.txt" 2>&1
  tail -1 "$O/grouped-torch-heldout.txt"
  exit 0
fi
if [ "$mode" = fp8 ]; then
  # gemmc.scaled_grouped_mm (the shipped rowwise kernels) beside
  # torch._scaled_grouped_mm on both shape sets, promoted and fast sums;
  # random grouped FP8 problems through the four shipped kernels.
  for shapes in moe-shapes moe-shapes-heldout; do
    for fast in "" --fast; do
      PYTHONPATH=$PWD/pkg timeout 100 python3 grouped-torch.py --fp8 $fast \
        $shapes.txt > "$O/fp8-torch-$shapes$fast.txt" 2>&1
      tail -1 "$O/fp8-torch-$shapes$fast.txt"
    done
  done
  for f in v/fp8_*_grouped.ptx; do
    timeout 40 $B --sweep random --count 100 --max-size 256 --seed 47 "$f" \
      > "$O/fp8-sweep-$(basename "$f" .ptx).log" 2>&1
    grep "cases," "$O/fp8-sweep-$(basename "$f" .ptx).log"
  done
  exit 0
fi
if [ "$mode" = fp8-tiles ]; then
  # Each candidate folder loaded as the shipped families (GEMMC_FAMILY_DIR).
  for c in c/*/; do
    for fast in "" --fast; do
      GEMMC_FAMILY_DIR=$PWD/$c PYTHONPATH=$PWD/pkg timeout 100 python3 \
        grouped-torch.py --fp8 $fast moe-shapes.txt \
        > "$O/fp8-tiles-$(basename "$c")$fast.txt" 2>&1
      echo "$(basename "$c") $fast: $(tail -1 "$O/fp8-tiles-$(basename "$c")$fast.txt")"
    done
  done
  exit 0
fi
if [ "$mode" = table ]; then
  # The general form (each group its own sizes, matrices apart, padded
  # leading dimensions): random cases verified against cuBLAS and fp64
  # through the example and the four shipped kernels, compute-sanitizer on
  # a few, then gemmc.grouped_gemm's Python tests.
  timeout 200 $B --sweep random --count 300 --max-size 512 \
    hopper-grouped-ptr-array.ptx > "$O/table-sweep.log" 2>&1
  grep "cases," "$O/table-sweep.log"
  for f in pkg/gemmc/share/gemmc/families/sm_90a/*_ptr_array.ptx; do
    timeout 60 $B --sweep random --count 100 --max-size 384 --seed 41 "$f" \
      > "$O/table-sweep-$(basename "$f" .ptx).log" 2>&1
    echo "$(basename "$f"): $(grep "cases," \
      "$O/table-sweep-$(basename "$f" .ptx).log")"
  done
  timeout 60 compute-sanitizer --tool memcheck $B --sweep random --count 4 \
    --seed 7 hopper-grouped-ptr-array.ptx > "$O/table-memcheck.txt" 2>&1
  tail -1 "$O/table-memcheck.txt"
  PYTHONPATH=$PWD/pkg timeout 120 python3 -m unittest -v \
    test_grouped.GroupedGemm > "$O/table-python-tests.txt" 2>&1
  tail -1 "$O/table-python-tests.txt"
  exit 0
fi
if [ "$mode" = table-shapes ]; then
  # The MoE shapes through the general form (each group's matrices apart)
  # beside the loop of cuBLAS calls, the example and its candidates
  # (TABLE_KERNELS: others from v/, e.g. "pa128x192 pa128x128s5";
  # TABLE_SHAPES=moe-shapes-heldout for the held-out models).
  timeout 560 $B --grouped ${TABLE_SHAPES:-moe-shapes}.txt --runs 10 \
    hopper-grouped-ptr-array.ptx \
    $(for k in ${TABLE_KERNELS:-papp128x128 papp64x128}; do echo v/$k.ptx; done) \
    > "$O/table-${TABLE_SHAPES:-moe-shapes}.txt" 2>&1
  grep "geomean\|cases," "$O/table-${TABLE_SHAPES:-moe-shapes}.txt"
  exit 0
fi
if [ "$mode" = table-tma ]; then
  # The general form with A and B by TMA (its maps made on the device)
  # beside the threads' copies: random cases through each (sizes from 1,
  # groups of 0 rows among them), memcheck, then the MoE shapes of more
  # than 64 rows a group and all of them beside the loop of cuBLAS calls.
  for k in pat128x192 pat128x256 pat128x128 patpp64x128; do
    timeout 25 $B --sweep random --count 80 --max-size 700 --seed 46 \
      v/$k.ptx > "$O/table-tma-sweep-$k.log" 2>&1
    echo "$k: $(grep "cases," "$O/table-tma-sweep-$k.log")"
  done
  timeout 90 compute-sanitizer --tool memcheck $B --sweep random --count 6 \
    --seed 8 v/pat128x192.ptx > "$O/table-tma-memcheck.txt" 2>&1
  tail -1 "$O/table-tma-memcheck.txt"
  for shapes in over64-moe-shapes over64-moe-shapes-heldout moe-shapes; do
    timeout 200 $B --grouped $shapes.txt --runs 10 \
      v/pa128x192.ptx v/pat128x192.ptx v/pat128x256.ptx v/pat128x128.ptx \
      v/papp64x128.ptx v/patpp64x128.ptx \
      > "$O/table-tma-$shapes.txt" 2>&1
    grep "geomean\|cases," "$O/table-tma-$shapes.txt"
  done
  exit 0
fi
if [ "$mode" = table-tiles ]; then
  # The tile of the general form's `many` variant (more than 64 rows a
  # group): random cases through each candidate, then the MoE shapes of
  # more than 64 rows a group beside the loop of cuBLAS calls, the
  # example's 128x128 and the candidates; chosen on the training shapes,
  # the held-out ones a check.
  for k in pa128x192 pa128x256 pa256x128 papp64x192 papp64x256; do
    timeout 20 $B --sweep random --count 60 --max-size 512 --seed 45 \
      v/$k.ptx > "$O/table-tiles-sweep-$k.log" 2>&1
    echo "$k: $(grep "cases," "$O/table-tiles-sweep-$k.log")"
  done
  for shapes in moe-shapes moe-shapes-heldout; do
    timeout 250 $B --grouped over64-$shapes.txt --runs 10 \
      hopper-grouped-ptr-array.ptx v/pa128x192.ptx v/pa128x256.ptx \
      v/pa256x128.ptx v/papp64x192.ptx v/papp64x256.ptx \
      > "$O/table-tiles-$shapes.txt" 2>&1
    grep "geomean\|cases," "$O/table-tiles-$shapes.txt"
  done
  exit 0
fi
if [ "$mode" = table-family ]; then
  # The shipped general-form families (a variant by the rows a group):
  # random cases through each, verified against cuBLAS and fp64 (each
  # problem on the variant its rows choose), compute-sanitizer on a few,
  # gemmc.grouped_gemm's Python tests, then gemmc.grouped_gemm beside a
  # loop of torch.mm with the families before (before/) and as shipped,
  # in turn, on both shape sets.
  # (FAMILY_COUNT, FAMILY_TIME: each sweep's cases and seconds;
  # TABLE_FAMILY_TIME=0 leaves the timing out, TABLE_FAMILY_CHECKS=0 the
  # checks.)
  [ "${TABLE_FAMILY_CHECKS:-1}" = 0 ] ||
  for f in pkg/gemmc/share/gemmc/families/sm_90a/*_ptr_array.ptx; do
    timeout ${FAMILY_TIME:-30} $B --sweep random --count ${FAMILY_COUNT:-100} \
      --max-size 512 --seed 44 "$f" \
      > "$O/table-family-sweep-$(basename "$f" .ptx).log" 2>&1
    echo "$(basename "$f"): $(grep "cases," \
      "$O/table-family-sweep-$(basename "$f" .ptx).log")"
  done
  if [ "${TABLE_FAMILY_CHECKS:-1}" != 0 ]; then
    timeout 60 compute-sanitizer --tool memcheck $B --sweep random --count 6 \
      --seed 8 pkg/gemmc/share/gemmc/families/sm_90a/bf16_rcr_ptr_array.ptx \
      > "$O/table-family-memcheck.txt" 2>&1
    tail -1 "$O/table-family-memcheck.txt"
    PYTHONPATH=$PWD/pkg timeout 150 python3 -m unittest -v \
      test_grouped.GroupedGemm > "$O/table-family-python-tests.txt" 2>&1
    tail -1 "$O/table-family-python-tests.txt"
  fi
  [ "${TABLE_FAMILY_TIME:-400}" = 0 ] && exit 0
  for shapes in moe-shapes moe-shapes-heldout; do
    for c in before shipped; do
      (if [ $c = before ]; then export GEMMC_FAMILY_DIR=$PWD/before; fi
       PYTHONPATH=$PWD/pkg timeout 100 python3 grouped-torch.py --table \
         $shapes.txt > "$O/table-family-$c-$shapes.txt" 2>&1)
      echo "$c $shapes: $(tail -1 "$O/table-family-$c-$shapes.txt")"
    done
  done
  exit 0
fi
if [ "$mode" = bf16-tiles ]; then
  # gemmc.grouped_mm beside torch._grouped_mm with the shipped bf16 kernel
  # and each candidate folder (GEMMC_FAMILY_DIR), on both shape sets.
  for c in shipped b/*/; do
    for shapes in moe-shapes moe-shapes-heldout; do
      name=$(basename "$c")
      (if [ "$c" != shipped ]; then export GEMMC_FAMILY_DIR=$PWD/$c; fi
       PYTHONPATH=$PWD/pkg timeout 75 python3 grouped-torch.py \
         $shapes.txt > "$O/bf16-tiles-$name-$shapes.txt" 2>&1)
      echo "$name $shapes: $(tail -1 "$O/bf16-tiles-$name-$shapes.txt")"
    done
  done
  exit 0
fi
if [ "$mode" = ping-pong ]; then
  # Ping-pong candidates: random problems (verified only), then each folder
  # loaded as the shipped families beside torch in one process, and the
  # shipped families (their variants by the rows a group). grouped-rule.py
  # reads a cooperative variant's results and a ping-pong one's:
  #   grouped-rule.py pp-bf16-co128x256-moe-shapes.txt
  #     pp-bf16-pp64x128-moe-shapes.txt (and the two -moe-shapes-heldout)
  #   (FP8: pp-fp8-fco128x192-... and pp-fp8-fr64x128-...; use_fast_accum:
  #   pp-fp8-fast-shipped-... and pp-fp8-fast-ff64x256-...)
  # (the shipped families as a whole: their variants by the rows a group)
  # PP="pp/ff*/ pp/tr*/" limits the candidates to some folders,
  # SWEPT="bf16_rcr" the shipped families swept (by the start of their
  # names), KINDS="bf16 fp8-tensor" the shipped kernels timed (bf16,
  # bf16-rrr, f16, f16-rrr, fp8, fp8-fast, fp8-tensor, fp8-tensor-fast;
  # the first three by default; f16 beside torch's bf16,
  # grouped-torch.py --f16), PP_COUNT and PP_SIZE the sweeps' cases.
  cands=${PP:-pp/*/}
  for f in $(for c in $cands; do echo "$c"/sm_90a/*.ptx; done) \
      pkg/gemmc/share/gemmc/families/sm_90a/${SWEPT:-}*_grouped.ptx; do
    name=$(basename "$(dirname "$(dirname "$f")")")
    case $f in pkg/*) name=shipped-$(basename "$f" .ptx) ;; esac
    timeout 60 $B --sweep random --count ${PP_COUNT:-60} \
      --max-size ${PP_SIZE:-700} --seed 12 "$f" > "$O/pp-sweep-$name.log" 2>&1
    echo "$name: $(grep "cases," "$O/pp-sweep-$name.log")"
  done
  for c in shipped $cands; do
    name=$(basename "$c")
    # the shipped kernels (KINDS: which), a candidate's own
    kinds=${KINDS:-bf16 fp8 fp8-fast}
    case $(ls "$c" 2>/dev/null) in
      *tensor_fast_grouped*) kinds=fp8-tensor-fast ;;
      *tensor_grouped*) kinds=fp8-tensor ;;
      *_fast_grouped*) kinds=fp8-fast ;;
      *fp8_*) kinds=fp8 ;;
      *bf16_rrr*) kinds=bf16-rrr ;;
      *bf16_*) kinds=bf16 ;;
      *f16_rrr*) kinds=f16-rrr ;;
      *f16_*) kinds=f16 ;;
    esac
    for kind in $kinds; do
      flag=$(kind_flags $kind)
      for shapes in moe-shapes moe-shapes-heldout; do
        out="$O/pp-$kind-$name-$shapes.txt"
        (if [ "$c" != shipped ]; then export GEMMC_FAMILY_DIR=$PWD/$c; fi
         PYTHONPATH=$PWD/pkg timeout 60 python3 grouped-torch.py $flag \
           $shapes.txt > "$out" 2>&1)
        echo "$kind $name $shapes: $(tail -1 "$out")"
      done
    done
  done
  exit 0
fi
if [ "$mode" = layouts ]; then
  # The other 16-bit grouped families: ping-pong 64x256 against the
  # cooperative 128x256 tile beside the loop of cuBLAS calls (every other
  # shape of each set), random problems through the ping-pong kernels.
  for n in f16_rcr bf16_rrr; do
    for s in moe-shapes moe-shapes-heldout; do
      timeout 150 $B --grouped $s-half.txt --runs 5 \
        pp/lo-co-$n/sm_90a/*.ptx pp/lo-pp-$n/sm_90a/*.ptx \
        > "$O/layouts-$n-$s.txt" 2>&1
      echo "$n $s:"; grep "geomean\|cases," "$O/layouts-$n-$s.txt"
    done
  done
  for f in pp/lo-pp-*/sm_90a/*.ptx; do
    timeout 40 $B --sweep random --count 60 --max-size 512 --seed 13 "$f" \
      > "$O/layouts-sweep-$(basename "$f" .ptx).log" 2>&1
    echo "$(basename "$f"): $(grep "cases," \
      "$O/layouts-sweep-$(basename "$f" .ptx).log")"
  done
  exit 0
fi
if [ "$mode" = shipped ]; then
  # The shipped grouped families as the runtime loads them: random problems
  # through each (SWEEP: the starts of their names, all by default;
  # verified only), compute-sanitizer on one, the Python tests, then each
  # kind (KINDS, all eight by default) beside torch on both shape sets in
  # ROUNDS processes (default 1).
  F=pkg/gemmc/share/gemmc/families/sm_90a
  for f in $(for p in ${SWEEP:-""}; do echo $F/$p*_grouped.ptx; done); do
    n=$(basename "$f" .ptx)
    timeout 45 $B --sweep random --count 60 --max-size 512 --seed 21 "$f" \
      > "$O/shipped-sweep-$n.log" 2>&1
    echo "$n: $(grep "cases," "$O/shipped-sweep-$n.log")"
  done
  timeout 60 compute-sanitizer --tool memcheck $B --sweep random --count 3 \
    --seed 7 $F/f16_rrr_grouped.ptx > "$O/shipped-memcheck.txt" 2>&1
  tail -1 "$O/shipped-memcheck.txt"
  PYTHONPATH=$PWD/pkg timeout 120 python3 -m unittest -v test_grouped \
    > "$O/shipped-python-tests.txt" 2>&1
  tail -1 "$O/shipped-python-tests.txt"
  for round in $(seq ${ROUNDS:-1}); do
    for kind in ${KINDS:-bf16 bf16-rrr f16 f16-rrr fp8 fp8-fast fp8-tensor fp8-tensor-fast}; do
      for shapes in moe-shapes moe-shapes-heldout; do
        out="$O/shipped-$kind-$shapes-$round.txt"
        PYTHONPATH=$PWD/pkg timeout 60 python3 grouped-torch.py \
          $(kind_flags $kind) $shapes.txt > "$out" 2>&1
        echo "$round $kind $shapes: $(tail -1 "$out")"
      done
    done
  done
  exit 0
fi
[ "$mode" = checks ] || { echo "grouped.sh: prepare, shapes, heldout, fp8, fp8-tiles, bf16-tiles, ping-pong, layouts, shipped, table, table-shapes, table-ping-pong or checks" >&2; exit 2; }
# gemmc.grouped_mm beside torch._grouped_mm in one process, the Python
# tests, random grouped problems (verified only), compute-sanitizer.
PYTHONPATH=$PWD/pkg timeout 200 python3 grouped-torch.py moe-shapes.txt \
  > "$O/grouped-torch.txt" 2>&1
tail -1 "$O/grouped-torch.txt"
PYTHONPATH=$PWD/pkg timeout 120 python3 -m unittest -v test_grouped \
  > "$O/grouped-python-tests.txt" 2>&1
tail -1 "$O/grouped-python-tests.txt"
# Random grouped problems, verified only; then compute-sanitizer.
timeout 150 $B --sweep random --count 300 hopper-moe-grouped.ptx \
  v/g128x128c.ptx v/g128x256.ptx > "$O/grouped-sweep.log" 2>&1
grep "cases," "$O/grouped-sweep.log"
timeout 60 compute-sanitizer --tool memcheck $B --sweep random --count 4 \
  --seed 7 hopper-moe-grouped.ptx > "$O/grouped-memcheck.txt" 2>&1
tail -1 "$O/grouped-memcheck.txt"
