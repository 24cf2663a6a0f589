"""The timing the benchmark scripts beside torch share (fp8-torch.py,
kernel-call-cost.py, scaled-mm-torch.py, torch-ops.py): a call's time
with CUDA events around it, what a caller waits for, the host's launch
included."""

import statistics

import torch


def event_ms(f, warmup=5, runs=30):
    """The median of `runs` calls' times (ms), each between two CUDA
    events on the current stream, after `warmup` untimed calls."""
    for _ in range(warmup):
        f()
    times = []
    for _ in range(runs):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)
