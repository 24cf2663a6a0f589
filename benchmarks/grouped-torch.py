"""torch._grouped_mm on benchmarks/moe-shapes.txt (bf16, A row-major, B as
nn.Linear's weights, N x K row-major per expert), and gemmc.grouped_mm
beside it in the same process where the package imports (PYTHONPATH),
each first checked against torch's result; timed with CUDA events: median
of 20 calls after 5, each call as a user pays for it (launch included).
First the host time of one call on a small problem (calls back to back);
then one line a shape: the label gemm-bench prints, torch's milliseconds
and TFLOP/s, then gemmc's and torch's time over gemmc's.

With --fp8 (`grouped-torch.py --fp8 [--fast] SHAPES`): torch._scaled_grouped_mm
and gemmc.scaled_grouped_mm instead, the same products in float8_e4m3fn
with rowwise scales (A's per row, B's per group and column, random in
[0.5, 2)), bf16 results, each k tile's sums in f32 (with --fast, both
with use_fast_accum); each checked against torch's and against the
dequantised product in fp32. With --tensor (and --fp8), gemmc takes the
scales per tensor (A's one value, B's one a group) and torch, which has no
such form, the same values broadcast as rowwise vectors: the same product.

With --b-row, B is row-major (K x N per expert, torch's contiguous
G x K x N) for both, which gemmc.grouped_mm runs on its `_rrr` kernel.
With --table, the general form: gemmc.grouped_gemm on lists of each
group's A and B (B the transpose of nn.Linear's weights) beside the loop of
torch.mm calls a user writes without it, each as a user pays (the loop's
calls, gemmc's table built and copied on the host). With --f16, gemmc's operands and result are float16 and torch's bfloat16
(torch._grouped_mm takes bfloat16 alone): a yardstick for gemmc's f16
kernels, checked against torch's result to bfloat16's precision."""
import sys

import numpy as np
import torch

from torch_timing import event_ms, host_us


def route(tokens, groups, routing, seed=1):
    if routing == "balanced":
        return [tokens // groups + (g < tokens % groups) for g in range(groups)]
    w = 1.0 / np.power(np.arange(1, groups + 1, dtype=np.float64), 1.2)
    np.random.default_rng(seed).shuffle(w)
    sizes = np.floor(tokens * w / w.sum()).astype(np.int64)
    sizes[np.argmax(w)] += tokens - sizes.sum()
    return sizes.tolist()


def call_costs(ours):
    """Per-call cost on a small problem: 8 groups of 8 rows, 128 x 128."""
    a = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8, 128, 128, device="cuda",
                    dtype=torch.bfloat16).transpose(-2, -1)
    offs = torch.arange(8, 72, 8, device="cuda", dtype=torch.int32)
    # The host's time of a call: 2,000 back to back after 50.
    theirs = host_us(lambda: torch._grouped_mm(a, b, offs=offs), 2000, 50)
    line = f"per call, g=8 t=64 128x128: torch._grouped_mm {theirs:.1f} us"
    if ours is not None:
        out = torch.empty(64, 128, device="cuda", dtype=torch.bfloat16)
        alone = host_us(lambda: ours(a, b, offs), 2000, 50)
        given = host_us(lambda: ours(a, b, offs, out=out), 2000, 50)
        line += (f", gemmc.grouped_mm {alone:.1f} us, with out= "
                 f"{given:.1f} us")
    print(line)


def fp8_call_costs(ours):
    """Per-call cost of the FP8 form on a small problem: 8 groups of 8
    rows, 128 x 128, rowwise scales."""
    sizes = [8] * 8
    a = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(8, 128, 128, device="cuda", dtype=torch.bfloat16)
    a8, b8, sa, sb, _ = fp8_operands(a, w, sizes)
    offs = torch.arange(8, 72, 8, device="cuda", dtype=torch.int32)
    theirs = host_us(lambda: torch._scaled_grouped_mm(
        a8, b8, sa, sb, offs=offs, out_dtype=torch.bfloat16), 2000, 50)
    line = f"per call, g=8 t=64 128x128: torch._scaled_grouped_mm {theirs:.1f} us"
    if ours is not None:
        mine = host_us(lambda: ours(a8, b8, sa, sb, offs), 2000, 50)
        line += f", gemmc.scaled_grouped_mm {mine:.1f} us"
    print(line)


def fp8_operands(a, w, sizes, seed=2, tensor=False):
    """The FP8 form of a bf16 case: e4m3 operands (B column-major, as
    torch._scaled_grouped_mm takes it), rowwise scales, and the
    dequantised product in fp32 (the reference). With `tensor`, the rowwise
    scales are one value for A and one a group for B, broadcast."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    g, n, _ = w.shape
    a8 = a.to(torch.float8_e4m3fn)
    b8 = w.to(torch.float8_e4m3fn).transpose(-2, -1)
    scale_a = torch.rand(a.shape[0], device="cuda", generator=gen) * 1.5 + 0.5
    scale_b = torch.rand(g, n, device="cuda", generator=gen) * 1.5 + 0.5
    if tensor:
        scale_a = scale_a[:1].expand(a.shape[0]).contiguous()
        scale_b = scale_b[:, :1].expand(g, n).contiguous()
    want = torch.empty(a.shape[0], n, device="cuda")
    first = 0
    for e, rows in enumerate(sizes):
        part = a8[first:first + rows].float() @ b8[e].float()
        want[first:first + rows] = (part * scale_a[first:first + rows, None] *
                                    scale_b[e][None, :])
        first += rows
    return a8, b8, scale_a, scale_b, want


def shapes(path):
    """Each problem of a shape file: groups, tokens, N, K, the groups' rows
    (routed) and a label."""
    for line in open(path):
        words = line.split("#")[0].split()
        if not words:
            continue
        f = dict(word.split("=") for word in words)
        g, t, n, k = (int(f[x]) for x in ("groups", "tokens", "n", "k"))
        label = f"{f.get('name', '')} g={g} t={t} {n}x{k} {f['routing']}"
        yield g, t, n, k, route(t, g, f["routing"]), label


def summary(ratios, what):
    """The geometric mean of gemmc's speed over torch's, and the lowest."""
    if ratios:
        mean = float(np.exp(np.mean(np.log(ratios))))
        print(f"{what}: {mean:.3f}x (geometric mean of {len(ratios)}), "
              f"lowest {min(ratios):.2f}x")


def timed_if_right(line, err, ms, mine, ratios):
    """`line` with gemmc's time and speed over torch's (`ms`) where its
    relative error `err` is below 1e-2, else with the failure."""
    if not err < 1e-2:
        return line + f"  gemmc FAIL (relative error {err:.1e})"
    mine_ms = event_ms(mine, runs=20)
    ratios.append(ms / mine_ms)
    return line + f" {mine_ms:9.4f} {ms / mine_ms:6.2f}x ({err:.0e})"


def table_call_costs(gemmc):
    """The host's time of a call of the general form against the loop of
    torch.mm calls, on problems small enough that the host sets the pace:
    G groups of 8 rows, 128 x 128."""
    for g in (1, 8, 64, 256):
        a = [torch.randn(8, 128, device="cuda", dtype=torch.bfloat16)
             for _ in range(g)]
        b = [torch.randn(128, 128, device="cuda", dtype=torch.bfloat16).t()
             for _ in range(g)]
        runs = max(20, 4000 // g)
        theirs = host_us(lambda: [x @ y for x, y in zip(a, b)], runs, 10)
        mine = host_us(lambda: gemmc.grouped_gemm(a, b), runs, 10)
        print(f"per call, g={g} 8x128x128 a group: a loop of torch.mm "
              f"{theirs:.1f} us ({theirs / g:.2f} a group), "
              f"gemmc.grouped_gemm {mine:.1f} us ({mine / g:.2f} a group)")


def main_table(path):
    """gemmc.grouped_gemm beside a loop of torch.mm on each shape."""
    import gemmc
    print("torch", torch.__version__, torch.cuda.get_device_name())
    table_call_costs(gemmc)
    ratios = []
    for g, t, n, k, sizes, label in shapes(path):
        a = [torch.randn(rows, k, device="cuda", dtype=torch.bfloat16)
             for rows in sizes]
        b = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t()
             for _ in sizes]

        def theirs():
            return [x @ y for x, y in zip(a, b)]

        def mine():
            return gemmc.grouped_gemm(a, b)

        ms = event_ms(theirs, runs=20)
        line = f"{label:44s} {ms:9.4f} {2 * t * n * k / ms / 1e9:8.1f}"
        want, got = theirs(), mine()
        err = max(((y.double() - x.double()).norm() /
                   max(x.double().norm(), 1e-30)).item()
                  for x, y in zip(want, got) if x.numel())
        print(timed_if_right(line, err, ms, mine, ratios))
        sys.stdout.flush()
    summary(ratios, "gemmc.grouped_gemm over a loop of torch.mm")


def main(path, fp8=False, fast=False, tensor=False, b_row=False,
         f16=False):
    theirs_name = "_scaled_grouped_mm" if fp8 else "_grouped_mm"
    if not hasattr(torch, theirs_name):
        print("torch", torch.__version__, "has no", theirs_name)
        return
    try:
        import gemmc
        ours = gemmc.scaled_grouped_mm if fp8 else gemmc.grouped_mm
    except (ImportError, AttributeError, OSError) as e:
        print("gemmc not timed:", e)
        ours = None
    print("torch", torch.__version__, torch.cuda.get_device_name())
    try:
        (fp8_call_costs if fp8 else call_costs)(ours)
    except RuntimeError as e:
        print("per call: not measured:", str(e).splitlines()[0])
    ratios = []
    for g, t, n, k, sizes, label in shapes(path):
        a = torch.randn(t, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(g, n, k, device="cuda", dtype=torch.bfloat16)
        offs = torch.tensor(np.cumsum(sizes), device="cuda", dtype=torch.int32)
        # nn.Linear's weights (B column-major), or B row-major.
        b = w.transpose(-2, -1).contiguous() if b_row else w.transpose(-2, -1)
        if fp8:
            a8, b8, sa, sb, exact = fp8_operands(a, w, sizes, tensor=tensor)
            del w, a, b
            # gemmc's scales per tensor: the values torch's vectors repeat.
            sa_mine, sb_mine = (sa[:1], sb[:, 0].contiguous()) if tensor \
                else (sa, sb)

            def theirs():
                return torch._scaled_grouped_mm(
                    a8, b8, sa, sb, offs=offs, out_dtype=torch.bfloat16,
                    use_fast_accum=fast)

            def mine():
                return ours(a8, b8, sa_mine, sb_mine, offs,
                            use_fast_accum=fast)
        else:
            exact = None

            a_mine, b_mine = (a.half(), b.half()) if f16 else (a, b)

            def theirs():
                return torch._grouped_mm(a, b, offs=offs)

            def mine():
                return ours(a_mine, b_mine, offs)
        try:
            ms = event_ms(theirs, runs=20)
            line = f"{label:44s} {ms:9.4f} {2 * t * n * k / ms / 1e9:8.1f}"
            if ours is not None:
                want = theirs().double()
                got = mine().double()
                err = ((got - want).norm() / want.norm()).item()
                if exact is not None:
                    # Both against the dequantised product.
                    exact = exact.double()
                    mine_err = ((got - exact).norm() / exact.norm()).item()
                    their_err = ((want - exact).norm() / exact.norm()).item()
                    err = max(err, mine_err)
                    line += f" [fp32: gemmc {mine_err:.1e} torch {their_err:.1e}]"
                line = timed_if_right(line, err, ms, mine, ratios)
            print(line)
        except RuntimeError as e:
            print(f"{label:44s} error: {str(e).splitlines()[0]}")
        sys.stdout.flush()
    ours_name = "scaled_grouped_mm" if fp8 else "grouped_mm"
    summary(ratios, f"gemmc.{ours_name} over torch.{theirs_name}")


if __name__ == "__main__":
    args = sys.argv[1:]
    fast = "--fast" in args
    tensor = "--tensor" in args
    fp8 = "--fp8" in args or fast or tensor
    if "--table" in args:
        main_table([a for a in args if not a.startswith("--")][0])
        sys.exit(0)
    main([a for a in args if not a.startswith("--")][0], fp8=fp8, fast=fast,
         tensor=tensor, b_row="--b-row" in args, f16="--f16" in args)
