"""Compile a gemmc schedule, run it on PyTorch tensors beside torch.matmul,
check the result, and plot TFLOP/s over a range of sizes.

    python examples/python/torch_matmul.py [examples/sgemm-dynamic.gemm | KERNEL.ptx]
        [--arch sm_90a] [--sizes 256,512,...] [--plot tflops.png]

A .ptx argument is loaded instead of compiled (a GPU machine without LLVM).
"""

import argparse
import sys

import torch

import gemmc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kernel", nargs="?", default="examples/sgemm-dynamic.gemm")
    parser.add_argument("--arch", default="sm_90",
                        help="sm_90a for wgmma/TMA schedules (hopper-*.gemm)")
    parser.add_argument("--sizes", default="256,512,1024,2048,3072,4096")
    parser.add_argument("--plot", default="")
    args = parser.parse_args()

    k = gemmc.load(args.kernel) if args.kernel.endswith(".ptx") \
        else gemmc.compile(args.kernel, arch=args.arch)
    dtype = getattr(torch, k.dtypes[0])
    torch.backends.cuda.matmul.allow_tf32 = False
    print(k)

    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        c = k(a, b)
        ref = a.float() @ b.float()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        if not err < (1e-5 if dtype == torch.float32 else 2e-3):
            sys.exit(f"{size}: gemmc's C differs from torch.matmul's "
                     f"(relative error {err:.3g})")
        times = {}
        for name, run in (("gemmc", lambda: k(a, b, out=c)),
                          ("torch", lambda: torch.matmul(a, b))):
            for _ in range(3):
                run()
            samples = []
            for _ in range(20):
                start, stop = torch.cuda.Event(True), torch.cuda.Event(True)
                start.record()
                run()
                stop.record()
                stop.synchronize()
                samples.append(start.elapsed_time(stop))
            times[name] = sorted(samples)[len(samples) // 2]
        tflops = {n: 2 * size**3 / (t * 1e-3) / 1e12 for n, t in times.items()}
        rows.append((size, tflops["gemmc"], tflops["torch"]))
        print(f"{size:6d}^3  gemmc {tflops['gemmc']:7.2f} TFLOP/s  "
              f"torch.matmul {tflops['torch']:7.2f}  ratio "
              f"{tflops['gemmc'] / tflops['torch']:.3f}  rel.err {err:.2e}")

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        sizes = [r[0] for r in rows]
        plt.plot(sizes, [r[1] for r in rows], "o-", label=f"gemmc {k.name}")
        plt.plot(sizes, [r[2] for r in rows], "s--", label="torch.matmul")
        plt.xlabel("M = N = K")
        plt.ylabel("TFLOP/s")
        plt.title(f"{k.dtypes[0]} on {torch.cuda.get_device_name()}")
        plt.legend()
        plt.grid(alpha=0.3)
        plt.savefig(args.plot, dpi=120)
        print("plot:", args.plot)


if __name__ == "__main__":
    main()
