"""One call's time, torch beside gemmc's family and single variants of
it, on the sizes issue 31's whole-call ratios left below 0.95x: the call
between CUDA events (launch included), the call replayed in a CUDA graph
(medians of five rounds of 30), and each kernel's own time in isolated
calls (CUPTI, a synchronisation after each call).

    python3 single-call.py [--only float32] [--f16 DIR] [--f32 DIR]

DIR holds single-kernel PTX files (gemmc.load), each verified against
fp64 before it is timed; benchmarks/f32-gemv-probe.sh runs it.
Results: benchmarks/results/h100-issue31/single-call-h200.txt."""

import argparse
import glob
import os
import statistics

import torch
from torch.profiler import ProfilerActivity, profile

import gemmc
from torch_timing import event_ms, graphed


def isolated_kernels(f, calls=20):
    """(name, us, kernels a call) of each kernel f launches, each call
    alone on an idle GPU."""
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as p:
        for _ in range(calls):
            f()
            torch.cuda.synchronize()
    return [(e.key[:50], e.device_time_total / max(e.count, 1),
             e.count // calls)
            for e in p.key_averages() if e.device_time_total > 0]


def report(label, f):
    eager = statistics.median(event_ms(f, runs=30) for _ in range(5)) * 1e3
    replay = graphed(f)
    graph = statistics.median(event_ms(replay, runs=30)
                              for _ in range(5)) * 1e3
    kernels = " ".join(f"{k}={us:.1f}x{n}"
                       for k, us, n in isolated_kernels(f))
    print(f"  {label:28s} eager {eager:6.1f} graph {graph:6.1f} us; "
          f"kernels {kernels}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--f16", default="")
    parser.add_argument("--f32", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    problems = [(torch.float16, 128, 4096, 4096, args.f16),
                (torch.bfloat16, 128, 4096, 4096, ""),
                (torch.float32, 1, 4096, 4096, args.f32)]
    for dtype, m, n, k, folder in problems:
        if args.only and str(dtype) != "torch." + args.only:
            continue
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        exact = torch.mm(a.double(), b.double())
        print(f"== {m}x{n}x{k} {dtype}", flush=True)
        forced = []
        for path in sorted(glob.glob(os.path.join(folder, "*.ptx"))
                           if folder else []):
            kernel = gemmc.load(open(path).read())
            error = ((kernel(a, b).double() - exact).abs().max()
                     / exact.abs().max()).item()
            name = os.path.basename(path)[:-4]
            if error > 1e-2:
                print(f"  {name}: WRONG, relative error {error:.3g}")
                continue
            forced.append((name, kernel))
        for _ in range(2):  # two rounds: the spread between them
            report("torch.mm", lambda: torch.mm(a, b))
            report("gemmc.mm (family)", lambda: gemmc.mm(a, b))
            for name, kernel in forced:
                report(name, lambda: kernel(a, b))


if __name__ == "__main__":
    main()
