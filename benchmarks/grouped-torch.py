"""torch._grouped_mm on benchmarks/moe-shapes.txt (bf16, A row-major, B as
nn.Linear's weights, N x K row-major per expert), and gemmc.grouped_mm
beside it in the same process where the package imports (PYTHONPATH),
each first checked against torch's result; timed with CUDA events: median
of 20 calls after 5, each call as a user pays for it (launch included).
First the host time of one call on a small problem (calls back to back);
then one line a shape: the label gemm-bench prints, torch's milliseconds
and TFLOP/s, then gemmc's and torch's time over gemmc's."""
import sys

import numpy as np
import torch

from torch_timing import event_ms, host_us


def route(tokens, groups, routing, seed=1):
    if routing == "balanced":
        return [tokens // groups + (g < tokens % groups) for g in range(groups)]
    w = 1.0 / np.power(np.arange(1, groups + 1, dtype=np.float64), 1.2)
    np.random.default_rng(seed).shuffle(w)
    sizes = np.floor(tokens * w / w.sum()).astype(np.int64)
    sizes[np.argmax(w)] += tokens - sizes.sum()
    return sizes.tolist()


def call_costs(ours):
    """Per-call cost on a small problem: 8 groups of 8 rows, 128 x 128."""
    a = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8, 128, 128, device="cuda",
                    dtype=torch.bfloat16).transpose(-2, -1)
    offs = torch.arange(8, 72, 8, device="cuda", dtype=torch.int32)
    # The host's time of a call: 2,000 back to back after 50.
    theirs = host_us(lambda: torch._grouped_mm(a, b, offs=offs), 2000, 50)
    line = f"per call, g=8 t=64 128x128: torch._grouped_mm {theirs:.1f} us"
    if ours is not None:
        out = torch.empty(64, 128, device="cuda", dtype=torch.bfloat16)
        alone = host_us(lambda: ours(a, b, offs), 2000, 50)
        given = host_us(lambda: ours(a, b, offs, out=out), 2000, 50)
        line += (f", gemmc.grouped_mm {alone:.1f} us, with out= "
                 f"{given:.1f} us")
    print(line)


def main(path):
    if not hasattr(torch, "_grouped_mm"):
        print("torch", torch.__version__, "has no _grouped_mm")
        return
    try:
        import gemmc
        ours = gemmc.grouped_mm
    except (ImportError, AttributeError, OSError) as e:
        print("gemmc.grouped_mm not timed:", e)
        ours = None
    print("torch", torch.__version__, torch.cuda.get_device_name())
    call_costs(ours)
    ratios = []
    for line in open(path):
        line = line.split("#")[0].split()
        if not line:
            continue
        f = dict(word.split("=") for word in line)
        g, t, n, k = (int(f[x]) for x in ("groups", "tokens", "n", "k"))
        sizes = route(t, g, f["routing"])
        a = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(g, n, k, device="cuda", dtype=torch.bfloat16)
        offs = torch.tensor(np.cumsum(sizes), device="cuda", dtype=torch.int32)
        b = w.transpose(-2, -1)
        label = f"{f.get('name', '')} g={g} t={t} {n}x{k} {f['routing']}"
        try:
            ms = event_ms(lambda: torch._grouped_mm(a, b, offs=offs),
                          runs=20)
            line = f"{label:44s} {ms:9.4f} {2 * t * n * k / ms / 1e9:8.1f}"
            if ours is not None:
                want = torch._grouped_mm(a, b, offs=offs).double()
                got = ours(a, b, offs).double()
                err = ((got - want).norm() / want.norm()).item()
                if not err < 1e-2:
                    line += f"  gemmc FAIL (relative error {err:.1e})"
                else:
                    mine = event_ms(lambda: ours(a, b, offs), runs=20)
                    ratios.append(ms / mine)
                    line += f" {mine:9.4f} {ms / mine:6.2f}x ({err:.0e})"
            print(line)
        except RuntimeError as e:
            print(f"{label:44s} error: {str(e).splitlines()[0]}")
        sys.stdout.flush()
    if ratios:
        mean = float(np.exp(np.mean(np.log(ratios))))
        print(f"gemmc.grouped_mm over torch._grouped_mm: {mean:.3f}x "
              f"(geometric mean of {len(ratios)}), lowest {min(ratios):.2f}x")


if __name__ == "__main__":
    main(sys.argv[1])
