"""Where gemmc.mm's eager call goes (issue 31), beside torch.mm:

1. one call between CUDA events, every call's rounds in turn (medians of
   7 rounds of 30): torch.mm, gemmc.mm, gemmc's plan launched through
   ctypes alone (output preallocated), an allocation alone (the floor of
   an event pair around a call);
2. the host's cost of each piece of gemmc.mm's path (us a call, the median
   of 5 timings of 20,000 calls, f32 1x4096x4096), and of whole launches
   at 64^3 (synchronised between timings).

    python3 benchmarks/eager-path.py
Results: benchmarks/results/h100-issue31/eager-path-h200.txt."""
import statistics
import time

import torch

import gemmc
from gemmc import _capi
from gemmc import _torch as gt
from torch_timing import event_ms


def one_calls():
    for m, n, k, dt in [(1, 4096, 4096, torch.float32),
                        (128, 4096, 4096, torch.float16),
                        (64, 64, 64, torch.float32)]:
        a = torch.randn(m, k, device="cuda", dtype=dt)
        b = torch.randn(k, n, device="cuda", dtype=dt)
        out = torch.empty(m, n, device="cuda", dtype=dt)
        ref = a.double() @ b.double()
        c = gemmc.mm(a, b)
        err = ((c.double() - ref).norm() / ref.norm()).item()
        print(f"== {m}x{n}x{k} {dt} err {err:.2e}")
        plan, a_ptr, b_ptr = gt._plan_for(a, b, batched=False)
        runtime = _capi.runtime()
        stream = gt._raw_stream(a.device.index)
        c_ptr = out.data_ptr()
        calls = {
            "torch.mm": lambda: torch.mm(a, b),
            "torch.mm(out=)": lambda: torch.mm(a, b, out=out),
            "gemmc.mm": lambda: gemmc.mm(a, b),
            "gemmc._mm": lambda: gt._mm(a, b),
            "plan_launch": lambda: runtime.plan_launch(
                plan.handle, a_ptr, b_ptr, c_ptr, 0, stream, 0, 0),
            "new_empty": lambda: a.new_empty((m, n)),
        }
        times = {name: [] for name in calls}
        for _ in range(7):
            for name, f in calls.items():
                times[name].append(event_ms(f, warmup=3, runs=30) * 1e3)
        for name, v in times.items():
            print(f"  {name:16s} median {statistics.median(v):6.2f} us  "
                  f"(rounds {min(v):.2f}-{max(v):.2f})")


def host_us(f, n=20000, sync=False):
    times = []
    for _ in range(5):
        if sync:
            torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - start) / n * 1e6)
    if sync:
        torch.cuda.synchronize()
    return statistics.median(times)


def path_costs():
    a = torch.randn(1, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    gemmc.mm(a, b)
    torch.cuda.synchronize()
    plan, _, _ = gt._plan_for(a, b, batched=False)
    pieces = {
        "noop lambda": lambda: None,
        "torch.compiler.is_compiling()": torch.compiler.is_compiling,
        "torch.is_grad_enabled()": torch.is_grad_enabled,
        "_through_dispatcher": lambda: gt._through_dispatcher(a, b),
        "a.data_ptr()": a.data_ptr,
        "a.shape": lambda: a.shape,
        "a.stride()": a.stride,
        "a.dtype": lambda: a.dtype,
        "a.device": lambda: a.device,
        "a.get_device()": a.get_device,
        "_allow_tf32()": gt._allow_tf32,
        "_plan_for": lambda: gt._plan_for(a, b, False),
        "a.new_empty((1,4096))": lambda: a.new_empty((1, 4096)),
        "torch.empty(..., device=, dtype=)": lambda: torch.empty(
            (1, 4096), device=a.device, dtype=a.dtype),
        "_raw_stream(0)": lambda: gt._raw_stream(0),
        "capture_workspace": lambda: gt.capture_workspace(
            a.device, plan.partials, plan.counters),
        "torch.cuda.is_current_stream_capturing()":
            torch.cuda.is_current_stream_capturing,
    }
    for name, f in pieces.items():
        print(f"  {name:42s} {host_us(f):6.3f} us")
    a2 = torch.randn(64, 64, device="cuda")
    b2 = torch.randn(64, 64, device="cuda")
    o2 = torch.empty(64, 64, device="cuda")
    gemmc.mm(a2, b2)
    plan2, p2a, p2b = gt._plan_for(a2, b2, batched=False)
    runtime = _capi.runtime()
    stream = gt._raw_stream(0)
    launches = {
        "64^3 plan_launch (ctypes)": lambda: runtime.plan_launch(
            plan2.handle, p2a, p2b, o2.data_ptr(), 0, stream, 0, 0),
        "64^3 plan.launch": lambda: plan2.launch(p2a, p2b, o2.data_ptr(),
                                                 a2.device),
        "64^3 plan(a, b, ...)": lambda: plan2(a2, b2, p2a, p2b),
        "64^3 gt._mm": lambda: gt._mm(a2, b2),
        "64^3 gemmc.mm": lambda: gemmc.mm(a2, b2),
        "64^3 torch.mm": lambda: torch.mm(a2, b2),
        "64^3 torch.mm(out=)": lambda: torch.mm(a2, b2, out=o2),
    }
    for name, f in launches.items():
        print(f"  {name:42s} {host_us(f, n=2000, sync=True):6.3f} us")


if __name__ == "__main__":
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), torch.__version__)
    one_calls()
    path_costs()
