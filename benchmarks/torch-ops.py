"""gemmc.mm beside torch.matmul in one Python process, as a PyTorch user
pays for it (issue 31):

- per call: the host time of a call, launch included (N calls back to
  back, then one synchronisation; the GPU's work is tiny, so the host's
  cost is what is measured), for gemmc.mm and torch.mm;
- speed: each call timed with CUDA events around the whole call (median of
  --runs after --warmup; the median of --rounds such, gemmc's and torch's
  in turn, so that neither gains by its place), the ratio torch time /
  gemmc time; in each of --modes: eager calls, the replay of a CUDA graph
  that captured one call, and a function compiled by
  torch.compile(fullgraph=True).

With --bmm, batched products instead (gemmc.bmm beside torch.bmm, eager
and graph): attention's score and value products (B transposed for the
scores) and square batches.

With --tf32, float32 under allow_tf32 (torch.matmul in tf32, gemmc on its
tf32 family), B row-major (`tf32-rr`) and column-major as nn.Linear's
x @ W.T (`tf32-rc`), speed alone.

Every gemmc result is checked against torch.matmul in fp64 first.
    python3 benchmarks/torch-ops.py [--runs 20] [--rounds 3]
        [--modes eager,graph,compile]
        [--csv FILE] [--bmm | --tf32]
"""

import argparse
import statistics
import time

import torch

import gemmc
from gemmc import _capi
from gemmc import _torch as gemmc_torch
from torch_timing import event_ms, graphed

SIZES = [(1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 8192),
         (1, 4096, 4096), (16, 4096, 4096), (128, 4096, 4096),
         (2048, 11008, 4096), (4096, 4096, 14336)]
DTYPES = [torch.float16, torch.bfloat16, torch.float32]
# (batch, M, N, K, B transposed): attention's scores Q K^T and values P V
# at sequences of 512 to 4096 and heads of 64 or 128, and square batches.
BATCHED = [(32, 2048, 2048, 128, True), (32, 2048, 128, 2048, False),
           (64, 512, 512, 64, True), (64, 512, 64, 512, False),
           (16, 4096, 4096, 128, True), (16, 4096, 128, 4096, False),
           (16, 1024, 1024, 1024, False), (4, 4096, 4096, 4096, False),
           (128, 256, 256, 256, False), (8, 1000, 1000, 1000, True)]
TOLERANCE = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.5e-2}


def in_mode(mode, fn, a, b):
    """fn(a, b) as `mode` runs it, as a function of no arguments."""
    if mode == "graph":
        return graphed(lambda: fn(a, b))
    if mode == "compile":
        torch._dynamo.reset()
        compiled = torch.compile(fn, fullgraph=True, dynamic=False)
        return lambda: compiled(a, b)
    return lambda: fn(a, b)


def per_call_us(fn, calls=2000):
    fn()
    torch.cuda.synchronize()
    begin = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - begin) / calls * 1e6


def batched(args):
    """gemmc.bmm beside torch.bmm: ratios torch time / gemmc time."""
    print("bmm (CUDA events, ms): mode batch problem dtype gemmc torch "
          "torch/gemmc")
    logs = {}
    for dtype in DTYPES:
        for count, m, n, k, transposed in BATCHED:
            a = torch.randn(count, m, k, device="cuda", dtype=dtype)
            b = (torch.randn(count, n, k, device="cuda",
                             dtype=dtype).transpose(1, 2) if transposed else
                 torch.randn(count, k, n, device="cuda", dtype=dtype))
            c = gemmc.bmm(a, b)
            ref = a.double() @ b.double()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            label = f"{count}x{m}x{n}x{k}{'t' if transposed else ''}"
            if not err < TOLERANCE[dtype]:
                print(f"  {label} {dtype}: WRONG (error {err:.2e})")
                continue
            for mode in ("eager", "graph"):
                g, t = alternated(args, in_mode(mode, gemmc.bmm, a, b),
                                  in_mode(mode, torch.bmm, a, b))
                logs.setdefault((mode, dtype), []).append(t / g)
                print(f"  {mode} {label} {str(dtype)[6:]} {g:.4f} {t:.4f} "
                      f"{t / g:.3f}", flush=True)
    for (mode, dtype), ratios in logs.items():
        geo = statistics.geometric_mean(ratios)
        print(f"geometric mean torch/gemmc bmm {mode} {str(dtype)[6:]}: "
              f"{geo:.3f} over {len(ratios)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="eager,graph,compile")
    parser.add_argument("--csv")
    parser.add_argument("--bmm", action="store_true")
    parser.add_argument("--tf32", action="store_true")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    if args.bmm:
        batched(args)
        return
    rows = []
    if args.tf32:
        speed(args, rows, [(torch.float32, False, "tf32-rr", 2e-3),
                           (torch.float32, True, "tf32-rc", 2e-3)])
        write_csv(args, rows)
        return
    print("per call (host, us): problem dtype gemmc.mm torch.ops.gemmc.mm "
          "C-API-launch-alone torch.mm")
    runtime = _capi.runtime()
    for m, n, k in [(64, 64, 64), (1, 4096, 4096), (256, 256, 256)]:
        for dtype in (torch.float16, torch.float32):
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            g = per_call_us(lambda: gemmc.mm(a, b))
            op = per_call_us(lambda: torch.ops.gemmc.mm(a, b))
            # The C API's launch of the plan: what is left of a call below
            # Python.
            out = torch.empty(m, n, device="cuda", dtype=dtype)
            plan, a_ptr, b_ptr = gemmc_torch._plan_for(a, b, batched=False)
            c_ptr = out.data_ptr()
            stream = gemmc_torch._raw_stream(a.device.index)
            alone = per_call_us(lambda: runtime.plan_launch(
                plan.handle, a_ptr, b_ptr, c_ptr, 0, stream, 0, 0))
            t = per_call_us(lambda: torch.mm(a, b))
            print(f"  {m}x{n}x{k} {str(dtype)[6:]} {g:.1f} {op:.1f} "
                  f"{alone:.1f} {t:.1f}")
            rows.append(("per-call", f"{m}x{n}x{k}", str(dtype)[6:], g, t))
    speed(args, rows, [(dtype, False, str(dtype)[6:], TOLERANCE[dtype])
                       for dtype in DTYPES])
    write_csv(args, rows)


def alternated(args, gemmc_call, torch_call):
    """The medians (ms) of --rounds rounds of event_ms of each call, gemmc's
    and torch's in turn, so that neither gains by its place."""
    g, t = [], []
    for _ in range(args.rounds):
        g.append(event_ms(gemmc_call, runs=args.runs, warmup=args.warmup))
        t.append(event_ms(torch_call, runs=args.runs, warmup=args.warmup))
    return statistics.median(g), statistics.median(t)


def speed(args, rows, kinds):
    """Each size of SIZES per (dtype, B column-major, label, tolerance) of
    `kinds`: checked, then timed in each mode beside torch.matmul."""
    print("speed (CUDA events, ms): mode problem dtype gemmc torch "
          "torch/gemmc")
    logs = {}
    for dtype, b_col, label, tolerance in kinds:
        for m, n, k in SIZES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = (torch.randn(n, k, device="cuda", dtype=dtype).t() if b_col
                 else torch.randn(k, n, device="cuda", dtype=dtype))
            c = gemmc.mm(a, b)
            ref = a.double() @ b.double()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            if not err < tolerance:
                print(f"  {m}x{n}x{k} {label}: WRONG (error {err:.2e})")
                rows.append(("wrong", f"{m}x{n}x{k}", label, err, 0))
                continue
            for mode in args.modes.split(","):
                g, t = alternated(args, in_mode(mode, gemmc.mm, a, b),
                                  in_mode(mode, torch.matmul, a, b))
                logs.setdefault((mode, label), []).append(t / g)
                print(f"  {mode} {m}x{n}x{k} {label} {g:.4f} "
                      f"{t:.4f} {t / g:.3f}", flush=True)
                rows.append((mode, f"{m}x{n}x{k}", label, g, t))
    for (mode, label), ratios in logs.items():
        geo = statistics.geometric_mean(ratios)
        print(f"geometric mean torch/gemmc {mode} {label}: "
              f"{geo:.3f} over {len(ratios)}")


def write_csv(args, rows):
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("kind,problem,dtype,gemmc,torch\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
