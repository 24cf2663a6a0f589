#!/usr/bin/env python3
"""GELU's approximation (Epilogue.cpp, geluByErfc): x Phi(x), Phi(-|x|) =
erfc(t) / 2 with t = |x| / sqrt 2, written r 2^(Q(r) - log2(e) x^2 / 2)
with r = 1 / (1 + P t) and Q a polynomial: of degree 4 where C has 16 bits
or fewer (kCoefficients), of degree 8 where C is f32 (kCoefficients32).

  gelu-fit.py fit [DEGREE [P]]   fits Q (minimax over t in [0, 9.2], by
                                 Lawson's reweighted least squares) and
                                 prints its coefficients, lowest first
  gelu-fit.py check FILE [BOUND [BOUND32]]
                                 reads P and both sets of coefficients
                                 from FILE (Epilogue.cpp), runs the
                                 kernel's sequence with every step rounded
                                 to f32 (rcp and ex2 exact, then rounded)
                                 over x in [-13, 13] and prints GELU's
                                 largest relative error (the f32 set's over
                                 [-5, 13] too); fails above BOUND (default
                                 6e-5) or, over [-5, 13], BOUND32 (2e-6)

Pure Python (no numpy): the build and CI machines have none."""
import math
import re
import struct
import sys

LOG2E = 1 / math.log(2)
T_MAX = 9.2


def solve(rows, values):
    """Least squares by the normal equations (a handful of unknowns)."""
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    v = [sum(r[i] * y for r, y in zip(rows, values)) for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(m[k][i]))
        m[i], m[p], v[i], v[p] = m[p], m[i], v[p], v[i]
        for k in range(i + 1, n):
            f = m[k][i] / m[i][i]
            for c in range(i, n):
                m[k][c] -= f * m[i][c]
            v[k] -= f * v[i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (v[i] - sum(m[i][c] * x[c] for c in range(i + 1, n))) / m[i][i]
    return x


def fit(degree, p, nodes=500, rounds=200):
    low = 1 / (1 + p * T_MAX)
    rs = [low + (1 - low) * (0.5 - 0.5 * math.cos(math.pi * (i + 0.5) / nodes))
          for i in range(nodes)]
    target = []
    for r in rs:
        t = (1 / r - 1) / p
        target.append(math.log2(math.erfc(t) / (2 * r)) + t * t * LOG2E)
    weights = [1.0] * nodes
    for _ in range(rounds):
        rows = [[w ** 0.5 * r ** j for j in range(degree + 1)]
                for w, r in zip(weights, rs)]
        coefficients = solve(rows, [w ** 0.5 * y
                                    for w, y in zip(weights, target)])
        errors = [abs(sum(c * r ** j for j, c in enumerate(coefficients)) - y)
                  for r, y in zip(rs, target)]
        total = sum(w * e for w, e in zip(weights, errors))
        weights = [w * e / total * nodes for w, e in zip(weights, errors)]
    return coefficients, max(errors)


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def gelu_f32(x, p, coefficients):
    """Epilogue.cpp's sequence, each step rounded to f32."""
    magnitude = abs(x)
    r = f32(1 / f32(magnitude * f32(p * math.sqrt(0.5)) + 1))
    q = f32(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        q = f32(r * q + f32(c))
    exponent = f32(f32(x * x) * f32(-0.5 * LOG2E) + q)
    lower = f32(r * (f32(2.0 ** exponent) if exponent > -150 else 0.0))
    phi = f32(1 - lower) if x >= 0 else lower
    return f32(x * phi)


def worst_error(p, coefficients, low):
    worst, at, x = 0.0, 0.0, -13.0
    while x <= 13.0:
        exact = 0.5 * x * math.erfc(-x / math.sqrt(2))
        if exact != 0 and x >= low:
            error = abs(gelu_f32(x, p, coefficients) / exact - 1)
            if error > worst:
                worst, at = error, x
        x += 0.00037
    return worst, at


def check(path, bound, bound32):
    text = open(path).read()
    p = float(re.search(r"kP = ([0-9.]+);", text).group(1))
    ok = True
    for name, limit in (("kCoefficients", bound), ("kCoefficients32", bound32)):
        body = re.search(name + r"\[\] = \{([^}]*)\}", text).group(1)
        coefficients = [float(c) for c in body.replace("\n", " ").split(",")]
        worst, at = worst_error(p, coefficients, -13.0)
        label = "gelu" if name == "kCoefficients" else "gelu32"
        line = (f"{label}: P = {p}, {len(coefficients)} coefficients, relative "
                f"error at most {worst:.2e} (x = {at:.3f}) over [-13, 13]")
        if label == "gelu":
            ok = ok and worst <= limit
        else:
            inner, inner_at = worst_error(p, coefficients, -5.0)
            line += f", {inner:.2e} (x = {inner_at:.3f}) over [-5, 13]"
            ok = ok and inner <= limit
        print(line)
    return ok


def main(args):
    if args and args[0] == "fit":
        degree = int(args[1]) if len(args) > 1 else 4
        p = float(args[2]) if len(args) > 2 else 0.7
        coefficients, error = fit(degree, p)
        print(f"degree {degree}, P = {p}: |error| of log2 at most "
              f"{error:.2e}")
        print(", ".join(f"{c:.9g}" for c in coefficients))
        return 0
    if len(args) >= 2 and args[0] == "check":
        bound = float(args[2]) if len(args) > 2 else 6e-5
        bound32 = float(args[3]) if len(args) > 3 else 2e-6
        return 0 if check(args[1], bound, bound32) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
