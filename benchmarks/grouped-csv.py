"""grouped-torch.py's outputs as one CSV for runtime/scripts/plot-shapes.py:
a row a shape (problem: its label; kernel: KERNEL; ms: gemmc's; cublas_ms:
torch's, the yardstick of these runs; ratio: torch's time over gemmc's), in
the order of the files given (the training shapes' run, then the held-out
models'):

  grouped-csv.py KERNEL OUT.csv RUN.txt [RUN.txt ...]
"""
import csv
import re
import sys


def rows(path, kernel):
    """One row a shape line of a grouped-torch.py output."""
    for line in open(path):
        fields = line.split()
        if len(fields) < 8 or not fields[1].startswith("g="):
            continue
        if "FAIL" in line or "error:" in line:
            sys.exit(f"{path}: a shape that did not run: {line.strip()}")
        ratio_at = max(i for i, f in enumerate(fields)
                       if re.fullmatch(r"[0-9.]+x", f))
        yield {"problem": " ".join(fields[:5]), "kernel": kernel,
               "status": "run", "ms": fields[ratio_at - 1],
               "cublas_ms": fields[5], "ratio": fields[ratio_at][:-1]}


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    kernel, out, runs = argv[1], argv[2], argv[3:]
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["problem", "kernel", "status",
                                               "ms", "cublas_ms", "ratio"])
        writer.writeheader()
        for run in runs:
            writer.writerows(rows(run, kernel))


if __name__ == "__main__":
    main(sys.argv)
