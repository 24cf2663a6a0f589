"""gemmc.scaled_mm beside torch._scaled_mm in one process: e4m3 x e4m3 ->
bf16, per tensor and rowwise, promoted sums and use_fast_accum, over square
sizes, a model's linear layers at prefill and decode, and DeepSeek-V3's
block-scale shape. Each problem is checked first (the two results'
relative difference, and gemmc's against fp64 of the dequantised operands
on a sample of rows), then each call is timed with CUDA events around it
(what a caller waits for, the launch included; medians of 30 after 5
warm-ups, in three rounds, the median round reported).

    python3 scaled-mm-torch.py > scaled-mm-h200.txt

Results: benchmarks/results/h100-issue33/scaled-mm-h200.txt."""

import statistics

import torch

import gemmc
from torch_timing import rounds_ms

SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048),
          (4096, 7168, 16384), (4096, 14336, 4096), (4096, 4096, 14336),
          (1024, 4096, 4096), (128, 4096, 4096), (16, 8192, 8192),
          (16, 4096, 14336), (1, 8192, 8192)]


def main():
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    print("m n k scales fast | diff(torch) err(fp64) | gemmc ms torch ms "
          "torch/gemmc | gemmc TFLOP/s")
    ratios = []
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
        rows = torch.arange(0, m, max(m // 64, 1), device="cuda")
        exact = a[rows].double() @ b.double()
        for rowwise in (False, True):
            sa = (torch.rand(m, 1, device="cuda") + 0.5) if rowwise else \
                torch.tensor([0.75], device="cuda")
            sb = (torch.rand(1, n, device="cuda") + 0.5) if rowwise else \
                torch.tensor([1.25], device="cuda")
            for fast in (False, True):
                def ours():
                    return gemmc.scaled_mm(a, b, sa, sb,
                                           out_dtype=torch.bfloat16,
                                           use_fast_accum=fast)

                def theirs():
                    return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb,
                                            out_dtype=torch.bfloat16,
                                            use_fast_accum=fast)
                c = ours()
                ref = (sa[rows].double() if rowwise else sa.double()) * \
                    exact * sb.double()
                err = ((c[rows].double() - ref).norm() / ref.norm()).item()
                try:
                    t = theirs()
                    diff = ((c.float() - t.float()).norm() /
                            t.float().norm()).item()
                    tt = rounds_ms(theirs)
                except RuntimeError as e:  # a mode torch does not take
                    diff, tt = float("nan"), float("nan")
                    print(f"  torch refuses: {str(e).splitlines()[0]}")
                tg = rounds_ms(ours)
                if tt == tt:
                    ratios.append(tt / tg)
                print(f"{m} {n} {k} {'rowwise' if rowwise else 'tensor'} "
                      f"{int(fast)} | {diff:.1e} {err:.1e} | {tg:.4f} "
                      f"{tt:.4f} {tt / tg:.3f} | "
                      f"{2 * m * n * k / tg / 1e9:.0f}", flush=True)
    logs = [r for r in ratios if r > 0]
    gm = statistics.geometric_mean(logs)
    print(f"geometric mean torch/gemmc over {len(logs)}: {gm:.3f}")


main()
