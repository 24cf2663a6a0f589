"""The timing the benchmark scripts beside torch share (call-anatomy.py,
fp8-torch.py, grouped-torch.py, kernel-call-cost.py, scaled-mm-torch.py,
torch-ops.py): a call's time with CUDA events around it, what a caller
waits for, the host's launch included; the host's time of a call alone;
a call captured in a CUDA graph."""

import statistics
import time

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


def rounds_ms(f, rounds=3):
    """The median of `rounds` rounds of event_ms (ms)."""
    return statistics.median(event_ms(f) for _ in range(rounds))


def host_us(f, calls=200, warmup=1):
    """The host's time of one call (us): `calls` calls back to back after
    `warmup`, the clock stopped before waiting for the GPU (what a user's
    Python pays for each launch where the GPU's work is shorter)."""
    for _ in range(warmup):
        f()
    torch.cuda.synchronize()
    begin = time.perf_counter()
    for _ in range(calls):
        f()
    seconds = time.perf_counter() - begin
    torch.cuda.synchronize()
    return seconds / calls * 1e6


def graphed(f):
    """A function that replays a CUDA graph of one call of f (warmed up on
    a side stream outside the capture, as torch's recipe does)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        f()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        f()
    return graph.replay
