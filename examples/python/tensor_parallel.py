"""A tensor-parallel MLP in Megatron's style, its local GEMMs on gemmc.

    torchrun --nproc-per-node N examples/python/tensor_parallel.py \\
        [--tokens 4096] [--hidden 4096] [--ffn 14336] [--steps 50]

Y = GELU(X W1) W2 in bf16 over N GPUs (torch.distributed, NCCL): W1 is
split by columns (each rank holds ffn/N of them: a column-parallel
linear layer), W2 by rows (a row-parallel one), so that each rank computes
its share of the hidden layer with no communication and one all-reduce
sums the N partial outputs. Every rank builds the same weights from one
seed and keeps its shard.

The local GEMMs run through torch.ops.gemmc.mm (gemmc's shipped bf16
family); the same model on torch.matmul runs beside it. Both are checked
against a single-GPU reference computed on rank 0 from the full weights in
f32 (relative Frobenius error at most TOLERANCE: the inputs are bf16, the
hidden layer is rounded to bf16 once and the output once). Then each
version's step (forward, all-reduce included) is timed with CUDA events,
the median of --steps after warm-up, the slowest rank's. Rank 0 prints one
line per version and `result: ...` (the summary the tests read).
"""

import argparse
import os
import statistics

import torch
import torch.distributed as dist

import gemmc  # noqa: F401  (registers torch.ops.gemmc)

TOLERANCE = 2e-2


class ParallelMLP(torch.nn.Module):
    """This rank's shard of Y = GELU(X W1) W2, summed over the ranks."""

    def __init__(self, w1, w2, rank, world, mm):
        super().__init__()
        ffn = w1.shape[1]
        share = ffn // world
        cols = slice(rank * share, (rank + 1) * share)
        self.w1 = torch.nn.Parameter(w1[:, cols].contiguous(),
                                     requires_grad=False)
        self.w2 = torch.nn.Parameter(w2[cols, :].contiguous(),
                                     requires_grad=False)
        self.mm = mm

    def forward(self, x):
        h = torch.nn.functional.gelu(self.mm(x, self.w1))  # column-parallel
        y = self.mm(h, self.w2)                             # row-parallel
        dist.all_reduce(y)
        return y


def step_ms(model, x, steps, warmup=5):
    """The median time of one step on this rank, then the slowest rank's."""
    for _ in range(warmup):
        model(x)
    times = []
    for _ in range(steps):
        start, end = torch.cuda.Event(True), torch.cuda.Event(True)
        start.record()
        model(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    median = torch.tensor([statistics.median(times)], device=x.device)
    dist.all_reduce(median, op=dist.ReduceOp.MAX)
    return median.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=14336)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    if args.ffn % world:
        raise SystemExit(f"--ffn {args.ffn} does not split over {world} ranks")
    device = torch.device("cuda", local)

    # The same weights and input on every rank, from one seed.
    g = torch.Generator(device="cpu").manual_seed(30)
    scale = args.hidden ** -0.5
    w1 = (torch.randn(args.hidden, args.ffn, generator=g) * scale).to(
        device, torch.bfloat16)
    w2 = (torch.randn(args.ffn, args.hidden, generator=g) *
          args.ffn ** -0.5).to(device, torch.bfloat16)
    x = torch.randn(args.tokens, args.hidden, generator=g).to(
        device, torch.bfloat16)

    versions = {"gemmc": torch.ops.gemmc.mm, "torch": torch.matmul}
    models = {name: ParallelMLP(w1, w2, rank, world, mm)
              for name, mm in versions.items()}
    reference = None
    if rank == 0:
        reference = torch.nn.functional.gelu(x.float() @ w1.float()) @ \
            w2.float()
    del w1, w2

    errors, times = {}, {}
    with torch.no_grad():
        for name, model in models.items():
            y = model(x)
            if rank == 0:
                errors[name] = ((y.float() - reference).norm() /
                                reference.norm()).item()
            times[name] = step_ms(model, x, args.steps)
    if rank == 0:
        gpu = torch.cuda.get_device_name(device)
        shape = f"{args.tokens}x{args.hidden}x{args.ffn}"
        for name in versions:
            print(f"{name}: {world} x {gpu}, MLP {shape} bf16: step "
                  f"{times[name]:.3f} ms, error against the single-GPU "
                  f"reference {errors[name]:.2e}")
        ok = all(e <= TOLERANCE for e in errors.values())
        print(f"result: world={world} gemmc_ms={times['gemmc']:.4f} "
              f"torch_ms={times['torch']:.4f} "
              f"torch_over_gemmc={times['torch'] / times['gemmc']:.3f} "
              f"max_error={max(errors.values()):.2e} "
              f"{'matches' if ok else 'DIFFERS'} (tolerance {TOLERANCE})")
    dist.destroy_process_group()
    if rank == 0 and not all(e <= TOLERANCE for e in errors.values()):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
