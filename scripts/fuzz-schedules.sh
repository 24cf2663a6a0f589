#!/usr/bin/env bash
# The schedule-space fuzzer's CPU part (docs/fuzzing.md): random schedules
# over the whole language through gemmc for sm_90 and sm_80, in process
# (gemmc-schedule-fuzz: a schedule the checks accept must compile), then
#   - ptxas accepts every PTX for its architecture;
#   - every kernel that ptxas makes spill more than 64 bytes was warned of
#     by gemmc (the register estimate errs on the safe side), and at most
#     one in twenty was warned without a spill (gemmc asks ptxas, in
#     process, where the estimate suspects one);
#   - with --other-build DIR (gemmc built by the other host compiler), the
#     other build writes byte-identical sm_90a PTX for every schedule (every
#     lowering of ours runs for sm_90a; sm_80 differs only in LLVM's
#     back-end, the same library in both builds).
# The accepted schedules and their PTX stay in the output folder, for the
# GPU part (runtime/scripts/fuzz-gpu.sh).
#
# usage: scripts/fuzz-schedules.sh [--seed S] [--count N] [--out DIR]
#                                  [--other-build DIR] [--jobs J]
#                                  [--hopper-only]
# (--hopper-only: Hopper's warpgroup schedules alone)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
seed=1 count=2000 out=$build/schedule-fuzz other="" jobs=$(nproc) only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --other-build) other=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --hopper-only) only=(--hopper-only); shift ;;
    *) echo "fuzz-schedules: unknown option '$1'" >&2; exit 2 ;;
  esac
done
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
# The tool links the whole compiler: one built before the sources' last
# change fuzzes the code as it was (bin/gemmc alone rebuilt is not enough).
for tool in "$build" ${other:+"$other"}; do
  newer=$(find lib include tools -newer "$tool/bin/gemmc-schedule-fuzz" \
            \( -name '*.cpp' -o -name '*.h' -o -name '*.td' \) 2>/dev/null | head -1)
  if [ -n "$newer" ]; then
    echo "fuzz-schedules: $tool/bin/gemmc-schedule-fuzz is older than $newer: rebuild it (ninja -C $tool bin/gemmc-schedule-fuzz)" >&2
    exit 2
  fi
done
# sm_90a decides acceptance: the Hopper schedules (wgmma, tma) need it, and
# it compiles every other schedule as sm_90 does.
arches=sm_90a,sm_80

# Draws and compiles in $jobs processes side by side; every one must end
# without a failure (a crash prints the schedule it died on).
fuzz() { # fuzz TOOL DIR ARCHES
  local tool=$1 dir=$2 arch=$3 pids=() status=0 i per=$(( (count + jobs - 1) / jobs ))
  rm -rf "$dir"
  mkdir -p "$dir"
  for ((i = 0; i < jobs; ++i)); do
    "$tool" --seed "$seed" --count "$per" --arch "$arch" --out "$dir" \
      --shard "$i/$jobs" "${only[@]}" > "$dir/fuzz.$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      status=1
      cat "$dir/fuzz.$i.log" >&2
    fi
  done
  # (One process writes manifest.tsv itself; shards manifest.I.tsv.)
  if ((jobs > 1)); then
    cat "$dir"/manifest.*.tsv > "$dir/manifest.tsv"
  fi
  if [ ! -s "$dir/manifest.tsv" ]; then
    echo "fuzz-schedules: no kernel in $dir/manifest.tsv" >&2
    status=1
  fi
  return $status
}

failed=0
fuzz "$build/bin/gemmc-schedule-fuzz" "$out" "$arches" || failed=$((failed + 1))
grep -h 'schedules drawn' "$out"/fuzz.*.log

if [ -n "$other" ]; then
  if fuzz "$other/bin/gemmc-schedule-fuzz" "$out.other" sm_90a &&
     diff -r -q -x 'fuzz.*.log' -x '*.sm_80.ptx' -x 'manifest*.tsv' \
       "$out" "$out.other" &&
     awk '$2 != "sm_80"' "$out/manifest.tsv" | diff -q - "$out.other/manifest.tsv"; then
    echo "host compilers: the other build wrote the same sm_90a PTX for every schedule"
  else
    echo "host compilers: the builds differ (above)" >&2
    failed=$((failed + 1))
  fi
  rm -rf "$out.other"
fi

# ptxas, with its resource report, for every kernel and architecture; the
# spills against gemmc's warnings (manifest: name arch threads shared-bytes
# register-estimate register-cap warnings).
if [ -x "$ptxas" ]; then
  ls "$out"/*.ptx | xargs -P "$jobs" -I{} sh -c '
    arch=$(basename "{}" .ptx); arch=${arch##*.}
    "$0" -arch="$arch" -v "{}" -o /dev/null > "{}.ptxas" 2>&1 ||
      echo "FAIL ptxas rejects {}"' "$ptxas" > "$out/ptxas-failures.txt"
  cat "$out/ptxas-failures.txt" >&2
  failed=$((failed + $(wc -l < "$out/ptxas-failures.txt")))

  spills=0 small=0 unwarned=0 false=0
  while read -r name arch _ _ _ _ warned; do
    bytes=$(grep -o '[0-9]* bytes spill stores' "$out/$name.$arch.ptx.ptxas" |
            awk '$1 > s { s = $1 } END { print s + 0 }')
    if [ "$bytes" -eq 0 ]; then
      [ "$warned" -gt 0 ] && false=$((false + 1))
      continue
    fi
    spills=$((spills + 1))
    if [ "$bytes" -le 64 ]; then
      small=$((small + 1))
    elif [ "$warned" -eq 0 ]; then
      echo "FAIL $name ($arch): ptxas spills $bytes bytes, gemmc did not warn" >&2
      unwarned=$((unwarned + 1))
    fi
  done < "$out/manifest.tsv"
  failed=$((failed + unwarned))
  kernels=$(wc -l < "$out/manifest.tsv")
  # A spill warning is given where ptxas, asked in process, spills: at most
  # one kernel in twenty may be warned without one (issue 32's bound).
  if [ $((false * 20)) -gt "$kernels" ]; then
    echo "FAIL $false of $kernels kernels warned of spills that ptxas does not make" >&2
    failed=$((failed + 1))
  fi

  warned=$(awk '$7 > 0' "$out/manifest.tsv" | wc -l)
  echo "ptxas: $kernels kernels (sm_90 and sm_80), $spills spill ($small of them 64 bytes or less), $warned warned by gemmc ($false of them without a spill), $unwarned spilling more without a warning"
  # Kernels whose wgmma ptxas serialises (C7510-C7515, C7520: correct,
  # slower; docs/fuzzing.md), and those where it injects waits or
  # arrivals around them (C7517, C7519): reported, not failed.
  kernels_warned() { # PATTERN: the kernels whose ptxas output has it
    grep -l "$1" "$out"/*.ptxas 2>/dev/null | sed 's|.*/||; s|\.ptx\.ptxas$||'
  }
  kernels_warned 'C751[0-5]\|C7520' > "$out/wgmma-serialised.txt"
  kernels_warned 'C751[79]' > "$out/wgmma-injected.txt"
  echo "ptxas: $(wc -l < "$out/wgmma-serialised.txt") kernels with wgmma serialised (C7510-C7515, C7520; in wgmma-serialised.txt), $(wc -l < "$out/wgmma-injected.txt") with waits or arrivals injected (C7517, C7519; in wgmma-injected.txt)"
else
  echo "fuzz-schedules: no ptxas (PTXAS or /usr/local/cuda/bin): the ptxas and spill checks are skipped"
fi
schedules=$(ls "$out"/*.gemm | wc -l)
if [ "$failed" -eq 0 ]; then
  echo "fuzz: $schedules passed, 0 failed"
  exit 0
fi
echo "fuzz: $((schedules - failed)) passed, $failed failed"
exit 1
