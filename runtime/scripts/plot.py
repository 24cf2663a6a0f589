#!/usr/bin/env python3
"""Turn gemm-bench JSON or CSV files into PNG charts.

    plot.py [--precision LABEL] OUTDIR bench-4096.json [bench-8192.csv ...]

Writes, for each problem size, a bar chart of TFLOP/s per kernel annotated
with the ratio to cuBLAS from the same run (bars-MxNxK.png), and a line chart
of TFLOP/s against problem size for every kernel (tflops-vs-size.png).
Kernels compiled for one size (gemmc's, named NAME_SIZE) are grouped by NAME.
LABEL names the precision in the titles (default FP32, e.g. "f16").
Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import json
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    """Rows of gemm-bench's --json or --csv output, verified ones only."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            if path.endswith(".json"):
                data = json.load(f)
                rows.extend(dict(r, gpu=data["gpu"]) for r in data["results"])
            else:
                rows.extend(csv.DictReader(f))
    return [r for r in rows if r["status"] == "PASS"]


def family(name):
    return re.sub(r"_\d+$", "", name)


def size_label(r):
    return f'{r["m"]}x{r["n"]}x{r["k"]}'


def bars(rows, outdir, gpu, precision):
    by_size = defaultdict(list)
    for r in rows:
        by_size[size_label(r)].append(r)
    for size, group in by_size.items():
        group.sort(key=lambda r: float(r["tflops"]))
        names = [family(r["kernel"]) for r in group]
        tflops = [float(r["tflops"]) for r in group]
        colors = ["tab:gray" if n == "cuBLAS" else
                  "tab:blue" if n.startswith("ptx_") else "tab:orange"
                  for n in names]
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(group) + 1.5))
        ax.barh(names, tflops, color=colors)
        for i, r in enumerate(group):
            ax.text(tflops[i], i, f' {float(r["x_cublas"]):.3f}x',
                    va="center", fontsize=8)
        ax.set_xlabel("TFLOP/s (label: ratio to cuBLAS, same run)")
        ax.set_title(f"{precision} GEMM {size}, {gpu}\n"
                     "blue: hand-written PTX, orange: gemmc, gray: cuBLAS",
                     fontsize=9)
        ax.set_xlim(0, max(tflops) * 1.2)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, f"bars-{size}.png"), dpi=120)
        plt.close(fig)


def lines(rows, outdir, gpu, precision):
    series = defaultdict(dict)
    for r in rows:
        series[family(r["kernel"])][int(r["m"])] = float(r["tflops"])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, points in sorted(series.items()):
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("M = N = K")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"{precision} GEMM, {gpu}", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "tflops-vs-size.png"), dpi=120)
    plt.close(fig)


def main():
    args = sys.argv[1:]
    precision = "FP32"
    if args[:1] == ["--precision"] and len(args) > 1:
        precision, args = args[1], args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    outdir = args[0]
    os.makedirs(outdir, exist_ok=True)
    rows = load(args[1:])
    if not rows:
        sys.exit("no verified (PASS) results in the CSV files")
    gpu = rows[0]["gpu"]
    bars(rows, outdir, gpu, precision)
    lines(rows, outdir, gpu, precision)


if __name__ == "__main__":
    main()
