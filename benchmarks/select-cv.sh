#!/usr/bin/env bash
# Cross-validation of gemmc-tune select's stopping rule (--min-gain) on the
# training set alone (docs/tuning.md, "select"): the 270 training problems
# split in two halves of whole models (seed 7, SEED=N another; BY_MODEL=0: problems at
# random), so that a half never holds another batch size of a layer the
# other holds, as the held-out set may; a family selected on each half from the
# f16 measurements (benchmarks/tuning/DEVICE/, GEMMC_TUNING_DEVICE: h200
# or h100), each problem of the other
# half run, on paper, on the variant the family's fitted model picks
# (gemm-bench --explain), at the time measured for that candidate there.
# No GPU. Prints, per --min-gain, the variants and the other half's
# geometric mean x cuBLAS (GAINS: the --min-gain values, MAX_VARIANTS the
# cap, default 24). TYPE=tf32 (LIMIT=4) takes the tf32 rrr
# measurements instead (62 of the training problems measured).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
device=${GEMMC_TUNING_DEVICE:-h200}
type=${TYPE:-f16} limit=${LIMIT:-16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/gemmc-tune" candidates --type "$type" --layout rrr --limit "$limit" \
  --arch sm_90a -o "$work/c" > /dev/null 2>&1
cp "benchmarks/tuning/$device/$type-rrr-results.tsv" "$work/c/results.tsv"
python3 - "$work" <<'PY'
import os, random, sys
w = sys.argv[1]
seed = int(os.environ.get("SEED", "7"))
train = [l.strip() for l in open('benchmarks/workloads-train.txt')
         if l.strip() and not l.startswith('#')]
order = list(range(len(train)))
random.Random(seed).shuffle(order)
half = len(train) // 2
parts = (order[:half], order[half:])
if os.environ.get("BY_MODEL", "1") != "0":
    # Whole models to each half (the text after '#' up to the layer), so
    # that no half sees another batch size of a layer the other holds.
    models = sorted({l.split('#')[1].split()[0] for l in train})
    random.Random(seed).shuffle(models)
    first = set(models[:len(models) // 2])
    parts = ([i for i in order if train[i].split('#')[1].split()[0] in first],
             [i for i in order if train[i].split('#')[1].split()[0] not in first])
for name, part in (('A', parts[0]), ('B', parts[1])):
    open(f'{w}/{name}.txt', 'w').write(
        '\n'.join(train[i] for i in sorted(part)) + '\n')
PY
for gain in ${GAINS:-0.002 0.0003}; do
  for fold in A B; do
    other=$([ $fold = A ] && echo B || echo A)
    f=$work/fam-$gain-$fold
    "$build/bin/gemmc-tune" select "$work/c" --shapes "$work/$fold.txt" \
      --device-model "$device" --max-variants "${MAX_VARIANTS:-24}" --min-gain "$gain" ${SELECT_ARGS:-} \
      -o "$f.gemm" \
      > /dev/null 2>&1
    "$build/bin/gemmc" --arch=sm_90a "$f.gemm" -o "$f.ptx" 2> /dev/null
    "$build/bin/gemm-bench" --explain --shapes "$work/$other.txt" \
      --device-model "$device" "$f.ptx" > "$f.explain" 2>&1
  done
done
python3 - "$work" "benchmarks/tuning/$device/$type-rrr-results.tsv" "$type" <<'PY'
import collections, glob, math, re, sys
w, results, kind = sys.argv[1:4]
first, times = {}, collections.defaultdict(dict)
for line in open(results):
    r = line.rstrip('\n').split('\t')
    try:
        cublas = float(r[5])
    except (IndexError, ValueError):
        continue
    first.setdefault(r[0], cublas)
    if r[3] == 'PASS':
        t = float(r[4]) * first[r[0]] / cublas
        times[r[0]][r[2]] = min(times[r[0]].get(r[2], 1e9), t)
for f in sorted(glob.glob(f'{w}/fam-*.explain')):
    gain, fold = f.split('/')[-1][4:-8].rsplit('-', 1)
    ratios = []
    for block in open(f).read().split('\n\n'):
        m = re.search(r'\.ptx: (\S+) \(m=', block)
        top = [l for l in block.split('\n') if re.match(r'^1\s+\S', l)]
        if m and top:
            v = top[0].split()[1].replace(f'{kind}_rrr_', f'{kind}_')
            if v in times[m.group(1)]:
                ratios.append(first[m.group(1)] / times[m.group(1)][v])
    names = [f'{kind}_' + n for n in
             re.findall(r'^  variant (\w+)', open(f[:-8] + '.gemm').read(), re.M)]
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    # Each of the other half's problems on the family's fastest variant
    # there: what a perfect choice would give.
    other = 'B' if fold == 'A' else 'A'
    best = []
    for p in open(f'{w}/{other}.txt'):
        p = p.split('#')[0].split()
        if p and any(v in times[p[0]] for v in names):
            best.append(first[p[0]] / min(times[p[0]][v] for v in names
                                          if v in times[p[0]]))
    b = math.exp(sum(map(math.log, best)) / len(best))
    print(f'min-gain {gain} selected on {fold}: {len(names)} variants; '
          f'the other half {g:.4f}x over {len(ratios)} '
          f'(its fastest variant each: {b:.4f}x)')
PY
