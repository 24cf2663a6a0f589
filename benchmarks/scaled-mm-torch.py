"""gemmc.scaled_mm beside torch._scaled_mm in one process: e4m3 x e4m3 ->
bf16, per tensor and rowwise, promoted sums and use_fast_accum, over square
sizes, a model's linear layers at prefill and decode, and DeepSeek-V3's
block-scale shape. Each problem is checked first (the two results'
relative difference, and gemmc's against fp64 of the dequantised operands
on a sample of rows), then each call is timed with CUDA events around it
(what a caller waits for, the launch included; medians of 30 after 5
warm-ups, in three rounds, the median round reported).

    python3 scaled-mm-torch.py > scaled-mm-h200.txt
    python3 scaled-mm-torch.py --bias > scaled-mm-bias-h200.txt
    python3 scaled-mm-torch.py --fp8-out > scaled-mm-fp8-out-h200.txt

With --bias both add torch's bias (N bf16 values; gemmc's families with
it), and gemmc's call without it is timed too: the bias's cost. With
--fp8-out both write an FP8 result (float8_e4m3fn, per-tensor scales,
no scale_result: torch 2.11 ignores it, and gemmc's kernel multiplies by
C's scale, a 1, all the same; gemmc's fp8_e4m3_e4m3_e4m3_tensor[_fast]),
and gemmc's call into bfloat16 is timed too.

Results: benchmarks/results/h100-issue33/scaled-mm-h200.txt and
scaled-mm-bias-h200.txt."""

import statistics
import sys

import torch

import gemmc
from torch_timing import rounds_ms

SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048),
          (4096, 7168, 16384), (4096, 14336, 4096), (4096, 4096, 14336),
          (1024, 4096, 4096), (128, 4096, 4096), (16, 8192, 8192),
          (16, 4096, 14336), (1, 8192, 8192)]


def main():
    with_bias = "--bias" in sys.argv[1:]
    fp8_out = "--fp8-out" in sys.argv[1:]
    out_dtype = torch.float8_e4m3fn if fp8_out else torch.bfloat16
    scale_result = None
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), "torch", torch.__version__,
          "with torch's bias" if with_bias else "",
          "into float8_e4m3fn" if fp8_out else "")
    print("m n k scales fast | diff(torch) err(fp64) | gemmc ms torch ms "
          "torch/gemmc | gemmc TFLOP/s" +
          (" | gemmc ms without the bias" if with_bias else "") +
          (" | gemmc ms into bfloat16" if fp8_out else ""))
    ratios, costs = [], []
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
        rows = torch.arange(0, m, max(m // 64, 1), device="cuda")
        exact = a[rows].double() @ b.double()
        bias = torch.randn(n, device="cuda").to(torch.bfloat16) \
            if with_bias else None
        for rowwise in (False,) if fp8_out else (False, True):
            sa = (torch.rand(m, 1, device="cuda") + 0.5) if rowwise else \
                torch.tensor([0.75], device="cuda")
            sb = (torch.rand(1, n, device="cuda") + 0.5) if rowwise else \
                torch.tensor([1.25], device="cuda")
            for fast in (False, True):
                def ours(bias=bias):
                    return gemmc.scaled_mm(a, b, sa, sb, bias=bias,
                                           scale_result=scale_result,
                                           out_dtype=out_dtype,
                                           use_fast_accum=fast)

                def theirs():
                    return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb,
                                            bias=bias,
                                            scale_result=scale_result,
                                            out_dtype=out_dtype,
                                            use_fast_accum=fast)
                c = ours()
                ref = (sa[rows].double() if rowwise else sa.double()) * \
                    exact * sb.double()
                if with_bias:
                    ref = ref + bias.double()
                if fp8_out:
                    ref = ref.clamp(-448, 448)
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
                plain = ""
                if with_bias:
                    t0 = rounds_ms(lambda: ours(None))
                    costs.append(tg / t0)
                    plain = f" | {t0:.4f}"
                if fp8_out:
                    t0 = rounds_ms(lambda: gemmc.scaled_mm(
                        a, b, sa, sb, out_dtype=torch.bfloat16,
                        use_fast_accum=fast))
                    costs.append(tg / t0)
                    plain = f" | {t0:.4f}"
                print(f"{m} {n} {k} {'rowwise' if rowwise else 'tensor'} "
                      f"{int(fast)} | {diff:.1e} {err:.1e} | {tg:.4f} "
                      f"{tt:.4f} {tt / tg:.3f} | "
                      f"{2 * m * n * k / tg / 1e9:.0f}{plain}", flush=True)
    logs = [r for r in ratios if r > 0]
    gm = statistics.geometric_mean(logs)
    print(f"geometric mean torch/gemmc over {len(logs)}: {gm:.3f}")
    if costs:
        print(f"geometric mean of gemmc's time "
              f"{'into float8_e4m3fn over its time into bfloat16' if fp8_out else 'with the bias over its time without'}"
              f": {statistics.geometric_mean(costs):.3f}")


main()
