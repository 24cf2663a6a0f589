"""gemmc.scaled_mm: torch._scaled_mm's FP8 products on the families gemmc
ships (``gemmc_scaled_family_load``; sm_90a), on torch's current stream.

``a`` (M x K, row-major) and ``b`` (K x N, column-major: the transposed
view of an N x K row-major weight, as torch._scaled_mm takes it) in
float8_e4m3fn or float8_e5m2 (not both e5m2); ``scale_a`` and ``scale_b``
float32, one each (per tensor) or M x 1 and 1 x N (rowwise); the result
``scale_a * scale_b * (a @ b)`` (per row of A and column of B where
rowwise) in ``out_dtype`` (bfloat16, float16 or float32), the products of
each k tile summed in f32, or over all of K on the tensor cores with
``use_fast_accum``; ``bias`` (N values of ``out_dtype``, as torch takes
it: float8_e4m3fn operands into bfloat16 or float16) added in the
epilogue. An FP8 result (float8_e4m3fn, torch's default ``out_dtype``)
from float8_e4m3fn operands per tensor, without a bias: each value times
``scale_result`` (one float32 on the device; 1 where None) just before
its cast, saturated at 448, as torch._scaled_mm writes it. A call is a
planned Kernel call (docs/library.md): checked once per signature, then
one ``gemmc_plan_launch_operands``.

Not shipped (refused with the reason): a float8_e5m2 result, an FP8 result
from rowwise scales (torch takes neither of the two for rowwise either), a
bias into an FP8 result and a bias with an e5m2 operand; DeepSeek-V3's
block scales run on a compiled schedule (examples/hopper-fp8-block.gemm).
"""

import torch

from . import scaled_family
from ._torch import one_device

_FP8 = {torch.float8_e4m3fn: "float8_e4m3fn", torch.float8_e5m2: "float8_e5m2"}
_OUT = {torch.bfloat16: "bfloat16", torch.float16: "float16",
        torch.float32: "float32", torch.float8_e4m3fn: "float8_e4m3fn"}
_kernels = {}  # (A's, B's, C's dtype, scales, fast, bias) -> gemmc.Kernel
_ones = {}  # device -> a float32 1 there: an FP8 result's scale by default


def _kernel(a, b, out_dtype, scales, fast, bias):
    key = (a, b, out_dtype, scales, fast, bias)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = scaled_family(_FP8[a], _FP8[b], _OUT[out_dtype], scales,
                               fast, bias="col" if bias else None)
        _kernels[key] = kernel
    return kernel


def _check_bias(bias, a, b, n, out_dtype):
    """torch._scaled_mm's rules for `bias`, and the families gemmc ships."""
    if not isinstance(bias, torch.Tensor):
        raise TypeError("gemmc.scaled_mm: bias must be a torch.Tensor")
    if out_dtype == torch.float32:
        raise ValueError("gemmc.scaled_mm adds no bias to a float32 result "
                         "(as torch._scaled_mm)")
    if bias.dtype != out_dtype:
        raise TypeError(f"gemmc.scaled_mm's bias is of out_dtype "
                        f"({out_dtype}), got {bias.dtype}")
    if tuple(bias.shape) != (n,):
        raise ValueError(f"gemmc.scaled_mm's bias is a vector of {n} values "
                         f"(one per column), got {tuple(bias.shape)}")
    if a.dtype != torch.float8_e4m3fn or b.dtype != torch.float8_e4m3fn:
        raise TypeError(f"gemmc ships the bias for float8_e4m3fn operands, "
                        f"not {a.dtype} and {b.dtype}: add it to the result")


def scaled_mm(a, b, scale_a, scale_b, bias=None, scale_result=None,
              out_dtype=None, use_fast_accum=False, out=None):
    """torch._scaled_mm(a, b, scale_a, scale_b, bias=..., out_dtype=...,
    use_fast_accum=...) on gemmc's shipped FP8 families; `out` (optional)
    receives the result. Returns it."""
    for name, t in (("a", a), ("b", b), ("scale_a", scale_a),
                    ("scale_b", scale_b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"gemmc.scaled_mm: {name} must be a torch.Tensor")
    if a.dtype not in _FP8 or b.dtype not in _FP8 or \
            a.dtype == b.dtype == torch.float8_e5m2:
        raise TypeError(f"gemmc.scaled_mm takes float8_e4m3fn and "
                        f"float8_e5m2 operands (not both e5m2), got "
                        f"{a.dtype} and {b.dtype}")
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"gemmc.scaled_mm takes 2-D operands of matching "
                         f"sizes, got {tuple(a.shape)} and {tuple(b.shape)}")
    out_dtype = a.dtype if out_dtype is None else out_dtype
    if out_dtype not in _OUT:
        raise TypeError(f"gemmc.scaled_mm writes bfloat16, float16, float32 "
                        f"or float8_e4m3fn, not {out_dtype}")
    fp8_out = out_dtype == torch.float8_e4m3fn
    if fp8_out and (a.dtype != torch.float8_e4m3fn or
                    b.dtype != torch.float8_e4m3fn):
        raise TypeError(f"gemmc ships a float8_e4m3fn result for "
                        f"float8_e4m3fn operands, not {a.dtype} and "
                        f"{b.dtype}")
    if scale_result is not None and not fp8_out:
        raise ValueError("gemmc.scaled_mm's scale_result scales an FP8 "
                         "result (out_dtype=torch.float8_e4m3fn)")
    if scale_result is not None and (
            not isinstance(scale_result, torch.Tensor) or
            scale_result.dtype != torch.float32 or
            scale_result.numel() != 1):
        raise TypeError("gemmc.scaled_mm's scale_result is one float32 "
                        "value in a tensor")
    if scale_a.dtype != torch.float32 or scale_b.dtype != torch.float32:
        raise TypeError(f"gemmc.scaled_mm's scales are float32, got "
                        f"{scale_a.dtype} and {scale_b.dtype}")
    m, k = a.shape
    n = b.shape[1]
    tensor = scale_a.numel() == 1 and scale_b.numel() == 1
    if not tensor and (tuple(scale_a.shape) != (m, 1) or
                       tuple(scale_b.shape) != (1, n)):
        raise ValueError(f"gemmc.scaled_mm's scales are one each (per "
                         f"tensor) or {m} x 1 and 1 x {n} (rowwise), got "
                         f"{tuple(scale_a.shape)} and "
                         f"{tuple(scale_b.shape)}")
    if fp8_out and not tensor:
        raise ValueError("gemmc.scaled_mm writes a float8_e4m3fn result with "
                         "per-tensor scales (as torch._scaled_mm)")
    if bias is not None and fp8_out:
        raise ValueError("gemmc ships no bias into a float8_e4m3fn result: "
                         "add it to a bfloat16 one")
    if bias is not None:
        _check_bias(bias, a, b, n, out_dtype)
    if not (a.is_cuda and b.is_cuda and a.device == b.device ==
            scale_a.device == scale_b.device and
            (bias is None or bias.device == a.device) and
            (scale_result is None or scale_result.device == a.device)):
        raise ValueError("gemmc.scaled_mm takes tensors on one CUDA device")
    if m == 0 or n == 0 or k == 0:
        result = out if out is not None else torch.empty(
            m, n, dtype=out_dtype, device=a.device)
        if k == 0:
            result.zero_()
        if bias is not None and m and n:
            result += bias
        return result
    one_device(a.device)
    kernel = _kernel(a.dtype, b.dtype, out_dtype,
                     "tensor" if tensor else "rowwise", bool(use_fast_accum),
                     bias is not None)
    scale_c = None
    if fp8_out:
        scale_c = scale_result
        if scale_c is None:
            scale_c = _ones.get(a.device)
            if scale_c is None:
                scale_c = torch.ones(1, dtype=torch.float32, device=a.device)
                _ones[a.device] = scale_c
    return kernel(a, b, out=out, scale_a=scale_a, scale_b=scale_b,
                  bias=bias, scale_c=scale_c)
