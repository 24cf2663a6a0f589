"""FP8 through gemmc's Python package beside torch._scaled_mm, in one
process: 8192^3 e4m3 x e4m3 -> bf16 with tensor scales on
examples/hopper-fp8.gemm (compiled with --arch=sm_90a, its PTX given as
the argument). Checks the two results against each other, then times each
call with CUDA events around it (what a caller waits for, the host's
launch included; medians of 30 after 5 warm-ups, three rounds) and 50
calls back to back (the host's cost a call, and the throughput).
Results: benchmarks/results/h100-issue33/fp8-python-h200.txt."""

import sys
import time

import torch

import gemmc
from torch_timing import event_ms

torch.manual_seed(0)
k = gemmc.load(sys.argv[1] if len(sys.argv) > 1 else "hopper-fp8.ptx")
m = n = kk = 8192
a = torch.randn(m, kk, device="cuda").to(torch.float8_e4m3fn)
b = torch.randn(n, kk, device="cuda").to(torch.float8_e4m3fn).t()
sa = torch.tensor([0.75], device="cuda")
sb = torch.tensor([1.25], device="cuda")
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)


def ours():
    k(a, b, out=c, scale_a=sa, scale_b=sb)


def torchs():
    return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb,
                            out_dtype=torch.bfloat16)


ref = torchs()
ours()
torch.cuda.synchronize()
diff = ((c.float() - ref.float()).norm() / ref.float().norm()).item()
print(f"relative difference from torch._scaled_mm: {diff}")


for _ in range(3):
    tg, tt = event_ms(ours), event_ms(torchs)
    print(f"gemmc {tg:.4f} ms ({2 * m * n * kk / tg / 1e9:.0f} TFLOP/s), "
          f"torch._scaled_mm {tt:.4f} ms; torch/gemmc {tt / tg:.3f}")
for f, name in ((ours, "gemmc"), (torchs, "torch")):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(50):
        f()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(f"{name}: host {1e6 * (t1 - t0) / 50:.1f} us a call, "
          f"{1e3 * (t2 - t0) / 50:.3f} ms a call back to back")
