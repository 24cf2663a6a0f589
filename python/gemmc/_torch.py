"""gemmc's matrix products on PyTorch tensors: ``torch.ops.gemmc.mm`` and
``torch.ops.gemmc.bmm``, custom ops with fake implementations (so that
``torch.compile(fullgraph=True)`` traces them), on torch's current stream.

Each call runs the family gemmc ships for the dtype and the layouts of A
and B (``gemmc_family_load``: no compiler and no source tree), on the
variant its cost model picks. A transposed or sliced view is read in place
(its leading dimension given to the kernel); only a view that is strided
along both dimensions, or whose address is not 16-byte aligned, is copied.
Split-K's partial tiles come from torch's allocator at each call and its
counters from a zeroed buffer kept per stream (a CUDA graph's capture takes
new ones from the graph's pool), so a graph captures the launch
(``gemmc_launch_workspace``). Each problem's plan (family, layouts, copies,
workspace sizes) is remembered here, its choice of variant by the C API.
"""

import ctypes
import math

import torch

from . import _capi

_CODES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}
_ROW, _COL = 0, 1

# (dtype code, A's layout, B's layout) -> the family's module handle; each
# module JIT-compiles into the context current at its first launch, so the
# families serve one device per process (a torchrun rank's).
_families = {}
_device = []


def _check(status):
    if status != 0:
        from . import GemmcError
        raise GemmcError(status,
                         _capi.runtime().last_error().decode(errors="replace"))


def _family(code, a_layout, b_layout, device):
    if not _device:
        _device.append(device)
    elif device != _device[0]:
        raise ValueError(f"gemmc's shipped families run on one device per "
                         f"process, here {_device[0]} (first used), not "
                         f"{device}: one process per GPU (torchrun)")
    key = (code, a_layout, b_layout)
    handle = _families.get(key)
    if handle is None:
        handle = ctypes.c_void_p()
        _check(_capi.runtime().family_load(code, a_layout, b_layout, None,
                                           ctypes.byref(handle)))
        _families[key] = handle
    return handle


def _operand(t):
    """(tensor, layout, leading dimension) of a 2-D operand, read in place
    where its strides allow, else copied."""
    rows, cols = t.shape
    row_stride, col_stride = t.stride()
    if t.data_ptr() % 16 == 0:
        if col_stride == 1 or cols == 1:
            ld = row_stride if rows > 1 else cols
            if ld >= cols:
                return t, _ROW, max(ld, 1)
        if row_stride == 1 or rows == 1:
            ld = col_stride if cols > 1 else rows
            if ld >= rows:
                return t, _COL, max(ld, 1)
    t = t.contiguous() if t.data_ptr() % 16 == 0 else t.clone(
        memory_format=torch.contiguous_format)
    return t, _ROW, max(cols, 1)


# What a problem needs beyond its pointers, per (dtype, sizes, strides,
# alignment of A and B): the family's module, A's and B's layouts and
# leading dimensions, whether they must be copied, and the workspace sizes.
_plans = {}


def _plan(a, b, out):
    key = (a.dtype, a.device, a.shape, a.stride(), b.shape, b.stride(),
           a.data_ptr() % 16 == 0, b.data_ptr() % 16 == 0)
    plan = _plans.get(key)
    if plan is None:
        a2, a_layout, lda = _operand(a)
        b2, b_layout, ldb = _operand(b)
        m, k = a.shape
        n = b.shape[1]
        handle = _family(_CODES[a.dtype], a_layout, b_layout, a.device)
        p = _capi.Problem(m, n, k, a2.data_ptr(), b2.data_ptr(),
                          out.data_ptr(), 0, lda, ldb, max(n, 1), 1.0, 0.0,
                          0, 0, 0, 0)
        partials, counters = ctypes.c_size_t(), ctypes.c_size_t()
        _check(_capi.runtime().workspace_size(handle, ctypes.byref(p),
                                              ctypes.byref(partials),
                                              ctypes.byref(counters)))
        plan = (handle, a2 is not a, b2 is not b, p, partials.value,
                counters.value)
        _plans[key] = plan
    return plan


# Split-K's counters per (device, stream), zeroed once: each launch leaves
# them zero, and launches on one stream run in its order.
_stream_counters = {}


def _counters(device, stream, size):
    """Zeroed counters of at least `size` bytes for a launch on `stream`.
    During a CUDA graph's capture, new ones from the graph's pool (zeroed
    by a captured memset at each replay), so that the graph owns them."""
    if torch.cuda.is_current_stream_capturing():
        return torch.zeros(size, dtype=torch.uint8, device=device)
    key = (device.index, stream)
    zeros = _stream_counters.get(key)
    if zeros is None or zeros.numel() < size:
        zeros = torch.zeros(max(size, 4096), dtype=torch.uint8,
                            device=device)
        _stream_counters[key] = zeros
    return zeros


def _launch(a, b, out):
    """out (row-major, dense) = a @ b for 2-D CUDA tensors of one dtype."""
    handle, copy_a, copy_b, p, partials, counters = _plan(a, b, out)
    if copy_a:
        a = _operand(a)[0]
    if copy_b:
        b = _operand(b)[0]
    target = out if out.data_ptr() % 16 == 0 else torch.empty_like(out)
    p = _capi.Problem.from_buffer_copy(p)  # the plan's stays as it is
    p.a, p.b, p.c = a.data_ptr(), b.data_ptr(), target.data_ptr()
    runtime = _capi.runtime()
    stream = _current_stream(a.device.index)
    if partials:
        work = torch.empty(partials, dtype=torch.uint8, device=a.device)
        zeros = _counters(a.device, stream, counters)
        _check(runtime.launch_workspace(handle, p, stream, work.data_ptr(),
                                        partials, zeros.data_ptr(), counters))
    else:
        _check(runtime.launch(handle, p, stream))
    if target is not out:
        out.copy_(target)


def _current_stream(index):
    """torch's current CUstream on device `index`, as an integer (torch's
    raw query where it has one: a Stream object costs microseconds)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


def _on_device(device, fn):
    """fn() with `device` current (torch's guard only where it is not)."""
    if device.index == torch.cuda.current_device():
        return fn()
    with torch.cuda.device(device):
        return fn()


def _check_operands(a, b, batched):
    rank = 3 if batched else 2
    if a.dim() != rank or b.dim() != rank:
        raise ValueError(f"gemmc.{'bmm' if batched else 'mm'} takes "
                         f"{rank}-D tensors, got {a.dim()}-D and {b.dim()}-D")
    if a.dtype != b.dtype or a.dtype not in _CODES:
        raise TypeError(f"gemmc takes float32, float16 or bfloat16 operands "
                        f"of one dtype, got {a.dtype} and {b.dtype}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"sizes do not match: {tuple(a.shape)} @ "
                         f"{tuple(b.shape)}")
    if batched and a.shape[0] != b.shape[0]:
        raise ValueError(f"batch counts differ: {a.shape[0]} and "
                         f"{b.shape[0]}")


def _mm(a, b):
    _check_operands(a, b, batched=False)
    out = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype,
                      device=a.device)
    if out.numel() == 0:
        return out
    if a.shape[1] == 0:
        return out.zero_()
    if not a.is_cuda or not b.is_cuda or a.device != b.device:
        raise ValueError("gemmc.mm takes tensors on one CUDA device")
    _on_device(a.device, lambda: _launch(a, b, out))
    return out


@torch.library.custom_op("gemmc::mm", mutates_args=())
def mm_op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b for 2-D tensors (float32, float16, bfloat16)."""
    return _mm(a, b)


@mm_op.register_fake
def _(a, b):
    _check_operands(a, b, batched=False)
    return a.new_empty((a.shape[0], b.shape[1]))


def _setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _backward(ctx, grad):
    """d(a @ b): grad @ b^T and a^T @ grad, on gemmc too (the transposes
    are views, read in place)."""
    a, b = ctx.saved_tensors
    op = torch.ops.gemmc.mm if a.dim() == 2 else torch.ops.gemmc.bmm
    grad_a = op(grad, b.mT) if ctx.needs_input_grad[0] else None
    grad_b = op(a.mT, grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


mm_op.register_autograd(_backward, setup_context=_setup)


def _bmm(a, b):
    _check_operands(a, b, batched=True)
    out = torch.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=a.dtype,
                      device=a.device)
    if out.numel() == 0:
        return out
    if a.shape[2] == 0:
        return out.zero_()
    if not a.is_cuda or not b.is_cuda or a.device != b.device:
        raise ValueError("gemmc.bmm takes tensors on one CUDA device")
    def run():
        for i in range(a.shape[0]):
            _launch(a[i], b[i], out[i])
    _on_device(a.device, run)
    return out


@torch.library.custom_op("gemmc::bmm", mutates_args=())
def bmm_op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b for 3-D tensors: a batch of products, one launch each (the
    shipped families compute one GEMM a launch)."""
    return _bmm(a, b)


@bmm_op.register_fake
def _(a, b):
    _check_operands(a, b, batched=True)
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


bmm_op.register_autograd(_backward, setup_context=_setup)


def _through_dispatcher(a, b):
    """Whether a call must go through torch's dispatcher: when traced
    (torch.compile) or recorded for autograd. Eager calls otherwise run the
    op's implementation directly, which saves the dispatcher's cost."""
    return torch.compiler.is_compiling() or (
        torch.is_grad_enabled() and (a.requires_grad or b.requires_grad))


def mm(a, b):
    """a @ b for 2-D tensors: torch.ops.gemmc.mm."""
    if _through_dispatcher(a, b):
        return torch.ops.gemmc.mm(a, b)
    return _mm(a, b)


def bmm(a, b):
    """a @ b for 3-D tensors: torch.ops.gemmc.bmm."""
    if _through_dispatcher(a, b):
        return torch.ops.gemmc.bmm(a, b)
    return _bmm(a, b)


def matmul(a, b, out=None):
    """torch.matmul's semantics (1-D, 2-D and batched operands, broadcast
    batches) on gemmc.mm and gemmc.bmm."""
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError("gemmc.matmul takes tensors of 1 or more dimensions")
    squeeze = []
    if a.dim() == 1:
        a = a.unsqueeze(0)
        squeeze.append(-2)
    if b.dim() == 1:
        b = b.unsqueeze(-1)
        squeeze.append(-1)
    if a.dim() == 2 and b.dim() == 2:
        result = mm(a, b)
    elif b.dim() == 2:
        # A batch of A against one B: the batch's rows stacked, one GEMM.
        rows = a.reshape(math.prod(a.shape[:-1]), a.shape[-1])
        result = mm(rows, b).reshape(
            *a.shape[:-1], b.shape[-1])
    else:
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        count = math.prod(batch)
        a3 = a.expand(*batch, *a.shape[-2:]).reshape(count, *a.shape[-2:])
        b3 = b.expand(*batch, *b.shape[-2:]).reshape(count, *b.shape[-2:])
        result = bmm(a3, b3).reshape(
            *batch, a.shape[-2], b.shape[-1])
    for dim in squeeze:
        result = result.squeeze(dim)
    if out is not None:
        out.copy_(result)
        return out
    return result
