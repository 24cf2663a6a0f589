"""How well two register counts predict ptxas's spills, on the schedule
fuzzer's output (scripts/fuzz-schedules.sh --out DIR keeps the PTX, ptxas's
reports and the manifest: name, arch, threads, shared bytes, gemmc's
register estimate, the cap, whether gemmc warned):

- gemmc's estimate (the schedule model's, which the warning uses);
- the most virtual registers live at once in the emitted PTX (32-bit units,
  64-bit registers counting two, predicates none): a backward liveness
  over each kernel's basic blocks.

For the SIMT and mma.sync kernels it prints each count's correlation with
the registers ptxas gives the kernels it does not spill, and per arch, for
thresholds on count / cap, the kernels warned without a spill and those
spilling more than 64 bytes unwarned (docs/fuzzing.md, "The warning
against ptxas").

    python3 benchmarks/spill-warning-eval.py DIR
"""

import math
import os
import re
import sys

REG = re.compile(r'%([a-z]+)(\d+)\b')
# Instructions without a destination register (their registers are read).
NO_DEF = ('st.', 'red.', 'bar', 'bra', 'ret', 'exit', 'cp.async', 'fence',
          'wgmma.fence', 'wgmma.commit', 'wgmma.wait', 'prefetch',
          'setmaxnreg', 'membar', 'barrier', 'cp.reduce', 'griddepcontrol',
          'mbarrier.init', 'mbarrier.expect_tx', 'mbarrier.try_wait', 'trap',
          'stmatrix', 'nanosleep', 'discard', 'applypriority', 'tensormap')
WIDTH = {'rd': 2, 'fd': 2, 'p': 0}


def kernels(text):
    for m in re.finditer(r'\.entry\s+(\w+)\s*\(.*?\)\s*[^{]*\n\{(.*?)\n\}',
                         text, re.S):
        yield m.group(1), m.group(2)


def registers(text):
    return [(m.group(1), m.group(2)) for m in REG.finditer(text)
            if m.group(1) != 'p']


def max_live(body):
    """The most 32-bit units of virtual registers live at once."""
    body = re.sub(r'//[^\n]*', '', body)
    blocks, current, labels = [], [], {}
    for raw in re.split(r';|\n', body):
        s = raw.strip()
        if not s or s.startswith(('.reg', '.shared', '.local')) or s in '{}':
            continue
        while (m := re.match(r'^(\$?[\w$]+):\s*(.*)$', s)):
            if current:
                blocks.append(current)
                current = []
            labels[m.group(1)] = len(blocks)
            s = m.group(2).strip()
        if not s:
            continue
        current.append(s)
        op = s.split()[1] if s.startswith('@') else s.split()[0]
        if op.startswith(('bra', 'ret', 'exit')):
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    code, succ = [], []
    for i, block in enumerate(blocks):
        insts = []
        for s in block:
            uses, defs = [], []
            if s.startswith('@'):
                guard, s = s.split(None, 1)
                uses += registers(guard)
            op, _, args = s.partition(' ')
            args = args.strip()
            if op.startswith(NO_DEF) and not op.startswith('mbarrier.arrive'):
                uses += registers(args)
            elif args.startswith('{'):
                end = args.index('}')
                defs, rest = registers(args[:end]), args[end + 1:]
                uses += registers(rest)
                if op.startswith(('wgmma.mma_async', 'mma.sync')):
                    uses += defs  # the accumulators are read too
            else:
                first, _, rest = args.partition(',')
                if first.strip().startswith('['):
                    uses += registers(args)
                else:
                    defs = registers(first)
                    uses += registers(rest)
            insts.append((defs, uses))
        code.append(insts)
        last = block[-1]
        guarded = last.startswith('@')
        op = (last.split(None, 1)[1] if guarded else last).split()[0]
        targets = []
        if op.startswith('bra'):
            target = labels.get(last.split()[-1])
            targets = [target] if target is not None and target < len(blocks) else []
            if guarded:
                targets.append(i + 1)
        elif not op.startswith(('ret', 'exit')) or guarded:
            targets = [i + 1]
        succ.append([t for t in targets if t < len(blocks)])
    gen, kill = [], []
    for insts in code:
        g, k = set(), set()
        for defs, uses in insts:
            g |= set(uses) - k
            k |= set(defs)
        gen.append(g)
        kill.append(k)
    live_in = [set() for _ in code]
    live_out = [set() for _ in code]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(code))):
            out = set().union(*(live_in[s] for s in succ[i]))
            inn = gen[i] | (out - kill[i])
            if out != live_out[i] or inn != live_in[i]:
                live_out[i], live_in[i], changed = out, inn, True
    width = lambda regs: sum(WIDTH.get(kind, 1) for kind, _ in regs)
    most = 0
    for i, insts in enumerate(code):
        live = set(live_out[i])
        most = max(most, width(live))
        for defs, uses in reversed(insts):
            most = max(most, width(live | set(defs)))
            live = (live - set(defs)) | set(uses)
    return most


def main(folder):
    rows = []
    for line in open(os.path.join(folder, 'manifest.tsv')):
        name, arch, _, _, estimate, cap, warned = line.split()
        path = os.path.join(folder, f'{name}.{arch}.ptx')
        report = open(path + '.ptxas').read()
        schedule = open(os.path.join(folder, name.replace('_fam', '') + '.gemm')).read()
        if 'wgmma' in schedule:
            continue
        live = max((max_live(b) for _, b in kernels(open(path).read())), default=0)
        rows.append(dict(
            arch=arch, estimate=int(estimate), cap=int(cap), live=live,
            used=max(map(int, re.findall(r'Used (\d+) registers', report)), default=0),
            spill=sum(map(int, re.findall(r'(\d+) bytes spill stores', report)))))

    def correlation(key):
        fit = [r for r in rows if r['spill'] == 0]
        xs, ys = [r[key] for r in fit], [r['used'] for r in fit]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
        return sxy / math.sqrt(sum((x - mx) ** 2 for x in xs) *
                               sum((y - my) ** 2 for y in ys))

    print(f'{len(rows)} SIMT and mma.sync kernels; correlation with the '
          f'registers ptxas gives those it does not spill: estimate '
          f'{correlation("estimate"):.3f}, PTX live {correlation("live"):.3f}')
    print('arch    count     threshold  warned-no-spill  unwarned->64B')
    for arch in sorted({r['arch'] for r in rows}):
        of = [r for r in rows if r['arch'] == arch]
        for key in ('estimate', 'live'):
            for t in (0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5):
                warn = lambda r: r[key] >= t * r['cap']
                false = sum(1 for r in of if r['spill'] == 0 and warn(r))
                missed = sum(1 for r in of if r['spill'] > 64 and not warn(r))
                print(f'{arch:7} {key:9} {t:4.1f} x cap  {false:5} '
                      f'({100 * false / len(of):4.1f}%)  {missed:5}')


if __name__ == '__main__':
    main(sys.argv[1])
