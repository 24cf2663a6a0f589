"""What a call of a Python op costs through torch's dispatcher, by the way
it is registered: torch.library.custom_op, torch.library.Library with and
without an autograd kernel, beside the function alone and torch.mm (why
gemmc's ops are registered through torch.library.Library; issue 31)."""

import time

import torch


def body(a, b):
    return a.new_empty((a.shape[0], b.shape[1]))

@torch.library.custom_op("probe::cop", mutates_args=())
def cop(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return body(a, b)

@cop.register_fake
def _(a, b):
    return body(a, b)

lib = torch.library.Library("probe", "DEF")
lib.define("lop(Tensor a, Tensor b) -> Tensor")
lib.impl("lop", body, "CUDA")
torch.library.register_fake("probe::lop")(body)

lib.define("aop(Tensor a, Tensor b) -> Tensor")
lib.impl("aop", body, "CUDA")
torch.library.register_fake("probe::aop")(body)
def _bw(ctx, g):
    return None, None
def _setup(ctx, inputs, output):
    pass
torch.library.register_autograd("probe::aop", _bw, setup_context=_setup)

cop_ad = torch.ops.probe.cop.default
def host(fn, calls=20000):
    fn(); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls): fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / calls * 1e6

a = torch.randn(64, 64, device="cuda"); b = torch.randn(64, 64, device="cuda")
for name, fn in [("body", lambda: body(a, b)),
                 ("custom_op torch.ops.probe.cop", lambda: torch.ops.probe.cop(a, b)),
                 ("custom_op .default", lambda: cop_ad(a, b)),
                 ("Library.impl torch.ops.probe.lop", lambda: torch.ops.probe.lop(a, b)),
                 ("Library.impl + register_autograd", lambda: torch.ops.probe.aop(a, b)),
                 ("torch.mm", lambda: torch.mm(a, b))]:
    print(f"{name}: {host(fn):.2f} us")
with torch.no_grad():
    print(f"no_grad custom_op: {host(lambda: torch.ops.probe.cop(a, b)):.2f} us")
    print(f"no_grad Library.impl+autograd: {host(lambda: torch.ops.probe.aop(a, b)):.2f} us")
