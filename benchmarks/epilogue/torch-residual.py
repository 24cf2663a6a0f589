# torch's residual forms beside the plain product, one process, CUDA events,
# medians of 30 after 5: mm; mm then add (two kernels); addmm (cuBLAS's
# beta = 1 with C = R, where no activation comes between).
import torch, statistics
def t(f, runs=30, warm=5):
    for _ in range(warm): f()
    torch.cuda.synchronize()
    xs = []
    for _ in range(runs):
        s, e = torch.cuda.Event(True), torch.cuda.Event(True)
        s.record(); f(); e.record(); e.synchronize(); xs.append(s.elapsed_time(e))
    return statistics.median(xs)
for (m, n, k) in [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 4096, 4096), (4096, 14336, 4096)]:
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    r = torch.randn(m, n, device="cuda", dtype=torch.float16)
    out = torch.empty(m, n, device="cuda", dtype=torch.float16)
    mm = t(lambda: torch.mm(a, b, out=out))
    two = t(lambda: torch.add(torch.mm(a, b), r, out=out))
    gelu = t(lambda: torch.add(torch.nn.functional.gelu(torch.mm(a, b), approximate="tanh"), r, out=out))
    addmm = t(lambda: torch.addmm(r, a, b, out=out))
    print(f"{m}x{n}x{k} mm {mm:.4f} mm+add {two:.4f} mm+gelu+add {gelu:.4f} addmm {addmm:.4f} ms")
