#!/usr/bin/env python3
"""Plot gemm-bench --shape-summary files: the ratio to cuBLAS by problem.

    plot-shapes.py [--title T] [--ylim LO,HI] [--ylabel L] OUT.png
                   LABEL=summary.csv ...

One bar per problem (in the order of the shapes file) and per summary,
on a logarithmic axis, with each summary's geometric mean as a line;
problems no kernel took are marked below the axis. Needs matplotlib.
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(argv):
    title, ylim = "Best kernel per problem against cuBLAS", (0.001, 10)
    ylabel = "x cuBLAS (same run; higher is better)"
    argv = list(argv)
    while len(argv) > 2 and argv[1].startswith("--"):
        if argv[1] == "--title":
            title = argv[2]
        elif argv[1] == "--ylim":
            ylim = tuple(float(v) for v in argv[2].split(","))
        elif argv[1] == "--ylabel":
            ylabel = argv[2]
        else:
            sys.exit(__doc__)
        del argv[1:3]
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.exit(__doc__)
    out = argv[1]
    series = [(a.split("=", 1)[0], load(a.split("=", 1)[1])) for a in argv[2:]]
    problems = [row["problem"] for row in series[0][1]]
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(12, len(problems) * 0.28), 6))
    for i, (label, rows) in enumerate(series):
        ratios = []
        for row in rows:
            r = float(row["ratio"]) if row["status"] == "run" else float("nan")
            ratios.append(r if r > 0 else float("nan"))
        timed = [r for r in ratios if not math.isnan(r)]
        mean = math.exp(sum(map(math.log, timed)) / len(timed)) if timed else 0
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(rows))]
        bars = ax.bar(xs, [0 if math.isnan(r) else r for r in ratios], width,
                      label=f"{label} (geomean {mean:.2f}x, "
                            f"{len(rows) - len(timed)} not run)")
        ax.axhline(mean, color=bars.patches[0].get_facecolor(), ls="--", lw=1)
        for x, r in zip(xs, ratios):
            if math.isnan(r):
                ax.text(x, ylim[0] * 1.1, "x", ha="center", va="bottom", fontsize=7,
                        color=bars.patches[0].get_facecolor())
    ax.set_yscale("log")
    ax.set_ylim(*ylim)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xticks(range(len(problems)))
    ax.set_xticklabels(problems, rotation=90, fontsize=6)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main(sys.argv)
