#!/usr/bin/env bash
# Writes the families gemmc ships (families/ARCH/TYPE_LAYOUT.gemm, and
# sm_90a's TYPE_LAYOUT_batched.gemm) from the
# tuning measurements in benchmarks/tuning/: the candidates of the tuning
# space are generated again (deterministically, the same schedules as
# measured), each family's variants chosen by gemmc-tune select on the
# training part of the workload set alone, with the current shape set
# (benchmarks/shapes.txt) as coverage probes. docs/tuning.md.
#
# The measurements: on the GPU machine, for each tuned precision,
#   gemm-bench --shapes benchmarks/workloads-train.txt --prune 3 --runs 3 \
#     --warmup 1 --results RESULTS DIR/*.ptx
# (runtime/scripts/tune-gpu.sh DIR benchmarks/workloads-train.txt BUDGET),
# RESULTS kept as
# benchmarks/tuning/DEVICE/TYPE-rrr-results.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tune="$build/bin/gemmc-tune"
"$tune" candidates --type f16 --layout rrr --limit 16 --arch sm_90a \
  -o "$work/f16" > /dev/null 2>&1
"$tune" candidates --type f32 --layout rrr --limit 16 --arch sm_90a \
  -o "$work/f32" --also examples/sgemm-dynamic.gemm > /dev/null 2>&1
# Where the measurements were made (benchmarks/tuning/DEVICE/): f16's on an
# H100 for every candidate, and again on an H200 for 48 of them (the family
# then shipped and the others nearest the fastest there), once the timing
# left the host's launch cost out (docs/tuning.md); those choose sm_90a's
# f16 and bf16 families of a K-major A (rrr, rcr); f32's and the batched
# rcr's on an H100, and f32's again on an H200 for 30 candidates (the
# variants of the rrr family then shipped and `_wxr`, whose tf32x3 splits
# wgmma's A in registers) and the sliced decode tiles `_gs`, which choose
# sm_90a's f32 rrr family (the 37 decode problems that data lacks are
# measured apart, h200/f32-rrr-decode-results.tsv, docs/tuning.md); tf32's
# on an H200.
device_of() { # the folder of measured candidates (under $work)
  case "$1" in
    f16-h200 | f32-h200 | tf32-*) echo h200 ;;
    *) echo h100 ;;
  esac
}
cp "benchmarks/tuning/$(device_of f16)/f16-rrr-results.tsv" "$work/f16/results.tsv"
cp "benchmarks/tuning/$(device_of f32)/f32-rrr-results.tsv" "$work/f32/results.tsv"
# A second set of measurements of a precision's candidates: the
# candidates of FROM beside DATA's results (benchmarks/tuning/DEVICE/).
measured_again() { # NAME FROM DATA
  mkdir -p "$work/$1"
  cp "$work/$2/$2"_* "$work/$2/candidates.tsv" "$work/$1/"
  cp "benchmarks/tuning/$(device_of "$1")/$3-results.tsv" "$work/$1/results.tsv"
}
measured_again f32-h200 f32 f32-rrr
measured_again f16-h200 f16 f16-rrr
# The batched rcr families' own measurements: the f16 candidates with B
# column-major and `batch = ?` (those that take a batch), on attention's
# score products (benchmarks/attention-scores-train.txt).
measured_again f16-rcr-batched f16 f16-rcr-batched

# tf32 (f32 under `math = tf32`, torch's allow_tf32): its own candidates,
# measured on an H200 with A and B row-major and with B column-major, where
# tf32 wgmma reads both operands by TMA (it reads them K-major only).
for layout in rrr rcr; do
  "$tune" candidates --type tf32 --layout "$layout" --limit 4 --arch sm_90a \
    -o "$work/tf32-$layout" > /dev/null 2>&1
  cp "benchmarks/tuning/$(device_of "tf32-$layout")/tf32-$layout-results.tsv" \
    "$work/tf32-$layout/results.tsv"
done

# One family: families/ARCH/TYPE_LAYOUT[_batched].gemm from the measured
# precision's candidates (f16's for bf16), its training summary printed.
write_family() { # ARCH LAYOUT TYPE [--batch]
  local arch=$1 layout=$2 type=$3 batch=${4:-}
  local measured data out shapes=benchmarks/workloads-train.txt
  local retype=(--type "$type")
  measured=$([ "$type" = f32 ] && echo f32 || echo f16)
  data=$measured-rrr
  if [ -n "$batch" ] && [ "$measured$layout" = f16rcr ]; then
    measured=f16-rcr-batched data=f16-rcr-batched
    shapes=benchmarks/attention-scores-train.txt
  elif [ -z "$batch" ] && [ "$measured$arch" = f16sm_90a ] &&
    [ "${layout:0:1}" = r ]; then
    measured=f16-h200
  elif [ -z "$batch" ] && [ "$measured$arch$layout" = f32sm_90arrr ]; then
    measured=f32-h200
  fi
  if [ "$type" = tf32 ]; then
    # B column-major from its own measurements; the other layouts from
    # rrr's (what TMA cannot read there is copied by the producer's threads).
    data=tf32-$([ "$layout" = rcr ] && echo rcr || echo rrr)
    measured=$data retype=()
    shapes=benchmarks/workloads-train.txt
  fi
  local device
  device=$(device_of "$measured")
  out="families/$arch/${type}_$layout${batch:+_batched}.gemm"
  "$tune" select "$work/$measured" --shapes "$shapes" \
    --cover benchmarks/shapes.txt --device-model "$device" \
    "${retype[@]}" --layout "$layout" --arch "$arch" $batch -o "$out" |
    grep -E '^gemmc-tune: [0-9]+ training' | sed "s|^gemmc-tune|$out|"
  # Not the machine's temporary folder: where the data lives.
  sed -i "s|$work/$measured/results.tsv|benchmarks/tuning/$device/$data-results.tsv|" "$out"
}

# C is row-major in every family; the runtime runs a column-major C as the
# transposed problem (C^T = B^T A^T) on the family of its layouts.
for arch in sm_90a sm_80; do
  mkdir -p "families/$arch"
  for layout in rrr rcr crr ccr; do
    for type in f16 bf16 f32 tf32; do
      write_family "$arch" "$layout" "$type"
    done
  done
done

# Hopper's batched families (NAME_batched, `batch = ?`): the candidates that
# take a batch (no split-K or stream-K yet), chosen on the
# same measurements of single GEMMs. (sm_80's kernels take a batch too, but
# no family of them is shipped.)
for layout in rrr rcr crr ccr; do
  for type in f16 bf16 f32 tf32; do
    write_family sm_90a "$layout" "$type" --batch
  done
done
