"""The host's cost of a gemmc.Kernel call on PyTorch tensors beside
torch.mm's, in one process: for each PTX given (a kernel whose contract
takes the sizes at launch) and each problem, the wall time a call of 200
back to back on the host (out allocated, as torch.mm allocates its
result), and each call's time with CUDA events around it (medians of 50
after 10 warm-ups: what a caller waits for). The first call of a
signature is checked and planned; the ones timed here launch the plan.

    python3 kernel-call-cost.py tensorcore-f16-dynamic.ptx:float16:64x64x64 \\
        sgemm-dynamic.ptx:float32:1x4096x4096 ...

Results: benchmarks/results/h100-issue31/kernel-call-cost-h200.txt."""

import sys

import torch

import gemmc
from torch_timing import event_ms, host_us


print(torch.cuda.get_device_name(), "torch", torch.__version__)
for spec in sys.argv[1:]:
    path, dtype, size = spec.split(":")
    kernel = gemmc.load(path)
    m, n, k = (int(x) for x in size.split("x"))
    dt = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda", dtype=dt)
    b = torch.randn(k, n, device="cuda", dtype=dt)
    ours = kernel(a, b)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = ((ours.double() - ref).norm() / ref.norm()).item()
    rows = []
    for name, f in (("gemmc.Kernel", lambda: kernel(a, b)),
                    ("torch.mm", lambda: torch.mm(a, b))):
        rows.append((name, host_us(f), event_ms(f, warmup=10, runs=50)))
    print(f"{path} {dtype} {size} (error against fp64 {err:.1e}, "
          f"{len(getattr(kernel, '_plans', {}))} plans):")
    for name, host, ms in rows:
        print(f"  {name:13s} host {host:6.1f} us a call, "
              f"{1e3 * ms:8.1f} us a call (events)")
    print(f"  host cost / torch.mm's {rows[0][1] / rows[1][1]:.2f}, "
          f"torch.mm's time / gemmc's {rows[1][2] / rows[0][2]:.3f}")
