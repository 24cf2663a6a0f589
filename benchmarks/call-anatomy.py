"""Where a call's time goes, gemmc beside torch in one process, on the
problems where the whole-call ratios of torch-ops.py and
scaled-mm-torch.py fell below 0.95: one call timed with CUDA events around
it (torch_timing.event_ms, the host's launch included; the median of three
rounds), 50 calls back to back (the host's time hidden behind the GPU's
where it is shorter), the host's time alone (200 calls, no wait), one call
replayed in a CUDA graph, and each kernel's own time on the GPU
(torch.profiler, CUPTI).

    python3 call-anatomy.py > call-anatomy-h200.txt

Results: benchmarks/results/h100-issue31/call-anatomy-h200.txt."""

import torch
from torch.profiler import ProfilerActivity, profile

import gemmc
from torch_timing import event_ms, graphed, host_us, rounds_ms

DENSE = [(torch.float16, 128, 4096, 4096), (torch.bfloat16, 128, 4096, 4096),
         (torch.float32, 1, 4096, 4096), (torch.float16, 2048, 11008, 4096)]


def back_to_back_ms(f, calls=50):
    for _ in range(5):
        f()
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(calls):
        f()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / calls


def kernels(f, calls=10):
    """(name, average us) of each kernel f launches, from CUPTI."""
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
    return [(e.key[:60], e.device_time_total / max(e.count, 1))
            for e in p.key_averages() if e.device_time_total > 0]


def report(name, f):
    one = rounds_ms(f)
    try:
        graph = f"{event_ms(graphed(f)) * 1e3:.1f}"
    except Exception as e:  # a capture refused: its reason
        graph = "refused: " + str(e).splitlines()[0][:80]
    print(f"{name}: one call {one * 1e3:.1f} us, back to back "
          f"{back_to_back_ms(f) * 1e3:.1f}, host {host_us(f):.1f}, "
          f"graph replay {graph}", flush=True)
    for kernel, us in kernels(f):
        print(f"    kernel {kernel}: {us:.1f} us", flush=True)


def main():
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    for dtype, m, n, k in DENSE:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        print(f"== {m}x{n}x{k} {dtype}")
        report("gemmc.mm", lambda: gemmc.mm(a, b))
        report("torch.mm", lambda: torch.mm(a, b))
    m, n, k = 128, 4096, 4096
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    sa = torch.tensor([0.75], device="cuda")
    sb = torch.tensor([1.25], device="cuda")
    for fast in (True, False):
        print(f"== {m}x{n}x{k} e4m3 -> bf16, per tensor, fast sums {fast}")
        report("gemmc.scaled_mm", lambda: gemmc.scaled_mm(
            a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=fast))
        report("torch._scaled_mm", lambda: torch._scaled_mm(
            a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
            use_fast_accum=fast))


if __name__ == "__main__":
    main()
