"""A rule of choice between two grouped kernels by the rows a group (the
host knows M and the groups, not each group's rows): the candidate where
M / G <= T, else the shipped kernel. Reads grouped-torch.py's outputs of
both on the training shapes and on the held-out ones (each line a shape's
time over torch's), picks T on the training shapes alone and reports the
held-out shapes' geometric mean at that T beside every other:

  grouped-rule.py SHIPPED-TRAIN CANDIDATE-TRAIN SHIPPED-HELDOUT CANDIDATE-HELDOUT
"""
import math
import re
import sys

THRESHOLDS = (0, 16, 32, 48, 64, 96, 128, 192, 256, 512)


def ratios(path):
    """(label, rows a group, gemmc's speed over torch's) per shape."""
    rows = []
    for line in open(path):
        fields = line.split()
        if len(fields) < 3 or not fields[1].startswith("g="):
            continue
        if "FAIL" in line:
            sys.exit(f"{path}: a failed shape: {line.strip()}")
        groups = int(fields[1][2:])
        tokens = int(fields[2][2:])
        times = [f for f in fields if re.fullmatch(r"[0-9.]+x", f)]
        rows.append((" ".join(fields[:5]), tokens / groups,
                     float(times[-1][:-1])))
    return rows


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def chosen(shipped, candidate, t):
    if [s[0] for s in shipped] != [c[0] for c in candidate]:
        sys.exit("the two files hold different shapes")
    return [c[2] if s[1] <= t else s[2] for s, c in zip(shipped, candidate)]


def main(paths):
    train = [ratios(p) for p in paths[:2]]
    held = [ratios(p) for p in paths[2:]]
    print("T (rows a group)  training  held-out")
    best = max(THRESHOLDS, key=lambda t: (geomean(chosen(*train, t)), -t))
    for t in THRESHOLDS:
        mark = "  <- chosen on training" if t == best else ""
        print(f"{t:16d}  {geomean(chosen(*train, t)):8.3f}  "
              f"{geomean(chosen(*held, t)):8.3f}{mark}")
    print(f"shipped alone: training {geomean([s[2] for s in train[0]]):.3f}, "
          f"held-out {geomean([s[2] for s in held[0]]):.3f}; candidate "
          f"alone: {geomean([c[2] for c in train[1]]):.3f}, "
          f"{geomean([c[2] for c in held[1]]):.3f}")
    print("held-out shapes (rows a group, shipped, candidate):")
    for s, c in zip(*held):
        pick = "*" if s[1] <= best else " "
        print(f"  {s[0]:48s} {s[1]:7.1f}  {s[2]:.2f}  {c[2]:.2f} {pick}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1:])
