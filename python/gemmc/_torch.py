"""gemmc's matrix products on PyTorch tensors: ``torch.ops.gemmc.mm`` and
``torch.ops.gemmc.bmm``, custom ops with fake implementations (so that
``torch.compile(fullgraph=True)`` traces them), on torch's current stream.

Each call runs the family gemmc ships for the dtype and the layouts of A
and B (``gemmc_family_load``: no compiler and no source tree), on the
variant its cost model picks; float32 under torch's allow_tf32 (the flag
torch.matmul honours) runs on the tf32 family, its operands copied K-major
first where the cost model predicts that faster. A transposed or sliced view is read in place
(its leading dimension given to the kernel); only a view that is strided
along both dimensions, or whose address is not 16-byte aligned, is copied.
Each problem (dtype, device, sizes, strides, alignment) is planned once:
the C API's plan of its variant (``gemmc_plan_create``), A's and B's
layouts, copies and workspace sizes; a call then costs an allocation of the
result and one ``gemmc_plan_launch``. Split-K's workspace is the runtime's
own per stream, except in a CUDA graph's capture, which takes new ones:
its partials from the graph's pool, and its counters from blocks zeroed
once before the capture (``_ZeroBlocks``), so that a replay runs the
kernel alone.
"""

import ctypes
import math
import os

import torch

from . import _autotune_count, _capi, _like

_CODES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}
_ROW, _COL = 0, 1
# The bandwidth a copy that transposes an operand is charged at (bytes per
# second, read and written), against the cost model's predictions: torch's
# copy of a row-major f32 B into column-major, with the rcr product after
# it, ran 0.11 ms over the product alone at 4096^3 and 0.36 ms at 8192^3
# (H200, results/h100-issue31/tf32.txt): 1.2-1.4 TB/s.
_COPY_BANDWIDTH = 1.3e12


def _allow_tf32_query():
    """torch's flag for f32 products in tf32 (what torch.matmul honours:
    `torch.backends.cuda.matmul.allow_tf32`, set also by
    `torch.set_float32_matmul_precision("high")`), read cheaply."""
    flag = getattr(torch._C, "_get_cublas_allow_tf32", None)
    if flag is not None:
        return flag
    return lambda: torch.backends.cuda.matmul.allow_tf32


_allow_tf32 = _allow_tf32_query()

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


def one_device(device):
    """Refuses a second device: the shipped families' modules JIT into
    the context of the first."""
    if not _device:
        _device.append(device)
    elif device != _device[0]:
        raise ValueError(f"gemmc's shipped families run on one device per "
                         f"process, here {_device[0]} (first used), not "
                         f"{device}: one process per GPU (torchrun)")


def _family(code, a_layout, b_layout, device, batched=False):
    one_device(device)
    key = (code, a_layout, b_layout, batched)
    handle = _families.get(key)
    if handle is None:
        handle = ctypes.c_void_p()
        runtime = _capi.runtime()
        load = runtime.batched_family_load if batched else runtime.family_load
        _check(load(code, a_layout, b_layout, None, ctypes.byref(handle)))
        _families[key] = handle
    return handle


class _ZeroBlocks:
    """Split-K's counters for the launches CUDA graphs capture, zero before
    the capture, so that no captured memset zeroes them at each replay.

    A kernel leaves its counters zero when it ends (the runtime's own
    workspace, zeroed once, relies on it too), so a block stays zero for
    every replay of the graph that holds it. Each captured launch takes a
    block of its own, never handed out again: graphs replayed side by side,
    or one problem captured twice, share none. The blocks are carved from
    arenas allocated and zeroed outside a capture, when a plan that takes a
    workspace is made (an eager warm-up before capturing makes it); a
    capture that finds no room zeroes its counters with a captured memset.
    """

    ARENA = 1 << 20
    ALIGN = 256

    def __init__(self):
        self.arenas = {}  # device index -> [arena, next free offset]
        self.held = []  # full arenas: graphs may still hold their blocks

    def _aligned(self, nbytes):
        return -(-nbytes // self.ALIGN) * self.ALIGN

    def reserve(self, device, nbytes):
        """Outside a capture: an arena with room for `nbytes` more."""
        if torch.cuda.is_current_stream_capturing():
            return
        entry = self.arenas.get(device.index)
        size = self._aligned(nbytes)
        if entry is not None and entry[1] + size <= entry[0].numel():
            return
        if entry is not None:
            self.held.append(entry[0])
        arena = torch.zeros(max(self.ARENA, size), dtype=torch.uint8,
                            device=device)
        # Zero before any capture's first replay, on whichever stream.
        torch.cuda.current_stream(device).synchronize()
        self.arenas[device.index] = [arena, 0]

    def take(self, device, nbytes):
        """A zero block of `nbytes` (its address), or 0 if none is left."""
        entry = self.arenas.get(device.index)
        size = self._aligned(nbytes)
        if entry is None or entry[1] + size > entry[0].numel():
            return 0
        address = entry[0].data_ptr() + entry[1]
        entry[1] += size
        return address


_zero_blocks = _ZeroBlocks()


def plan_workspace(handle, device):
    """The bytes of partials and of counters plan `handle` takes where it
    splits K (0 and 0 where not), with room for its counters in a zero
    block made now, before any capture needs one."""
    partials, counters = ctypes.c_size_t(), ctypes.c_size_t()
    _check(_capi.runtime().plan_workspace_size(handle, ctypes.byref(partials),
                                               ctypes.byref(counters)))
    if partials.value:
        _zero_blocks.reserve(device, counters.value)
    return partials.value, counters.value


def capture_workspace(device, partial_bytes, counter_bytes):
    """A split-K launch's workspace where torch's current stream is
    capturing a CUDA graph: the graph owns it, the partials from the
    graph's pool, the counters a zero block of their own (else zeroed by a
    captured memset at each replay). Returns (what the caller holds until
    the launch is captured, lest another launch reuse the memory, the
    partials' address, the counters'); outside a capture, or where the
    launch splits nothing, (None, 0, 0): the runtime's own workspace for
    the stream (whose first use allocates, which a capture refuses)."""
    if not partial_bytes or not torch.cuda.is_current_stream_capturing():
        return None, 0, 0
    work = torch.empty(partial_bytes, dtype=torch.uint8, device=device)
    counters = _zero_blocks.take(device, counter_bytes)
    if counters:
        return work, work.data_ptr(), counters
    zeros = torch.zeros(counter_bytes, dtype=torch.uint8, device=device)
    return (work, zeros), work.data_ptr(), zeros.data_ptr()


def _k_major(t, operand):
    """A copy of a 2-D operand in which K is contiguous (A row-major, B
    column-major), as tf32 wgmma reads both, through TMA."""
    if operand == "a":
        return t.contiguous()
    return t.t().contiguous().t()


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


class _Plan:
    """One problem's launch (per dtype, device, sizes and strides of A and
    B): the C API's plan of the family's chosen variant, A's and B's
    layouts, whether either must be copied, and the workspace it takes.
    An empty product is a plan too, that launches nothing. With `batch`
    (count, A's and B's strides in elements) the plan is of the batched
    family, a batch of products of a's and b's layouts in one launch."""

    __slots__ = ("shape", "handle", "copy_a", "copy_b", "partials",
                 "counters", "index", "zero", "family", "problem")

    def __init__(self, a, b, batch=None, tf32=False):
        m, k = a.shape
        n = b.shape[1]
        self.shape = (m, n) if batch is None else (batch[0], m, n)
        self.handle = None
        self.index = a.device.index
        self.zero = k == 0
        if m == 0 or n == 0 or k == 0:
            return
        a2, a_layout, lda = _operand(a)
        b2, b_layout, ldb = _operand(b)
        # A copy per call, or None: the operand is read in place.
        self.copy_a = (lambda t: _operand(t)[0]) if a2 is not a else None
        self.copy_b = (lambda t: _operand(t)[0]) if b2 is not b else None
        code = _capi.TF32 if tf32 else _CODES[a.dtype]
        family = _family(code, a_layout, b_layout, a.device,
                         batched=batch is not None)
        count, stride_a, stride_b = batch if batch is not None else (1, 0, 0)
        p = _capi.Problem(m, n, k, 0, 0, 0, 0, lda, ldb, max(n, 1), 1.0, 0.0,
                          count, stride_a, stride_b, m * n if batch else 0)
        runtime = _capi.runtime()
        if tf32 and batch is None and (a_layout, b_layout) != (_ROW, _COL):
            # tf32 wgmma reads A and B K-major: an operand stored the other
            # way is copied by the producer's threads, which transpose it
            # slowly. Where the cost model predicts it faster, it is copied
            # K-major first (by torch) and run on the family that reads
            # both by TMA.
            # An operand already K-major keeps its leading dimension (a
            # slice's); a copied one is dense.
            p2 = _capi.Problem(m, n, k, 0, 0, 0, 0,
                               lda if a_layout == _ROW else k,
                               ldb if b_layout == _COL else k, max(n, 1), 1.0,
                               0.0, 1, 0, 0, 0)
            family2 = _family(code, _ROW, _COL, a.device)
            here, there = ctypes.c_double(), ctypes.c_double()
            _check(runtime.predict(family, ctypes.byref(p), ctypes.byref(here)))
            _check(runtime.predict(family2, ctypes.byref(p2),
                                   ctypes.byref(there)))
            copied = (m * k * (a_layout != _ROW) + k * n * (b_layout != _COL))
            if there.value + 2 * 4 * copied / _COPY_BANDWIDTH < here.value:
                family, p = family2, p2
                if a_layout != _ROW:
                    self.copy_a = lambda t: _k_major(t, "a")
                if b_layout != _COL:
                    self.copy_b = lambda t: _k_major(t, "b")
        # (A batch's plan measures where it reads the operands in place: a
        # copy is of one matrix.)
        if _autotune and not torch.cuda.is_current_stream_capturing() and (
                batch is None or (self.copy_a is None and
                                  self.copy_b is None)):
            self._measure(family, p, a, b)
        handle = ctypes.c_void_p()
        _check(runtime.plan_create(family, ctypes.byref(p),
                                   ctypes.byref(handle)))
        self.family, self.problem = family, p
        self.handle = handle.value
        self.partials, self.counters = plan_workspace(self.handle, a.device)

    def _measure(self, family, p, a, b):
        """The family's measured choice for problem `p` (set_autotune),
        made on a and b (as the launches read them) into a C of its own."""
        a = self.copy_a(a) if self.copy_a is not None else a
        b = self.copy_b(b) if self.copy_b is not None else b
        out = a.new_empty(self.shape)
        p.a, p.b, p.c = a.data_ptr(), b.data_ptr(), out.data_ptr()
        _check(_capi.runtime().autotune(family, ctypes.byref(p),
                                        _raw_stream(self.index), _autotune,
                                        None))
        p.a = p.b = p.c = 0

    def __call__(self, a, b, a_ptr, b_ptr):
        out = a.new_empty(self.shape)
        if self.handle is None:
            return out.zero_() if self.zero and out.numel() else out
        # The copies are held until the launch is enqueued (torch's
        # allocator then reuses their memory only behind it on the stream).
        if self.copy_a is not None:
            a = self.copy_a(a)
            a_ptr = a.data_ptr()
        if self.copy_b is not None:
            b = self.copy_b(b)
            b_ptr = b.data_ptr()
        self.launch(a_ptr, b_ptr, out.data_ptr(), a.device)
        return out

    def launch(self, a_ptr, b_ptr, c_ptr, device):
        """C = A B at these addresses on torch's current stream."""
        stream = _raw_stream(self.index)
        held, partials, counters = capture_workspace(device, self.partials,
                                                     self.counters)
        status = _capi.runtime().plan_launch(
            self.handle, a_ptr, b_ptr, c_ptr, 0, stream, partials, counters)
        del held
        if status:
            _check(status)


# The plans, per (sizes and strides of A and B, dtypes, devices, and
# whether A and B are 16-byte aligned).
_plans = {}


def set_autotune(candidates=3):
    """Calls after this one (gemmc.matmul, the torch ops, gemmc.scaled_mm
    and Kernel calls on PyTorch tensors) run on the measured choice of
    their family (gemmc_autotune, docs/selection.md): at a problem's first
    call, outside a CUDA graph's capture, the cost model's first
    `candidates` variants are timed on its operands and the fastest is
    planned (True: 3). 0 (or False) measures no more problems; one
    measured keeps its choice in the process. The plans are kept per
    setting: a problem planned before is planned again at its next call
    after the setting changes. $GEMMC_AUTOTUNE, where set, is the setting
    at import."""
    global _autotune
    _autotune = _autotune_count(candidates, "set_autotune takes")


def autotune_candidates():
    """set_autotune's count of candidates (0: none measured)."""
    return _autotune


def capturing():
    """Whether torch's current stream is capturing a CUDA graph."""
    return torch.cuda.is_current_stream_capturing()


# set_autotune's count of candidates (0: none measured), at first
# $GEMMC_AUTOTUNE's.
_autotune = _autotune_count(os.environ.get("GEMMC_AUTOTUNE") or 0,
                            "$GEMMC_AUTOTUNE must be")


def _new_plan(a, b, batched, tf32):
    _check_operands(a, b, batched)
    if a.numel() and b.numel() and not (a.is_cuda and b.is_cuda and
                                        a.device == b.device):
        raise ValueError(f"gemmc.{'bmm' if batched else 'mm'} takes "
                         f"tensors on one CUDA device")
    return _BatchPlan(a, b, tf32) if batched else _Plan(a, b, tf32=tf32)


class _BatchPlan:
    """A batch of products: one launch of the batched family's plan where
    the device's architecture has one (sm_90a) and it takes the batch's
    strides; else one launch each of the 2-D plan of the first, at the
    addresses of each."""

    __slots__ = ("shape", "item", "steps", "whole")

    def __init__(self, a, b, tf32=False):
        count = a.shape[0]
        self.shape = (count, a.shape[1], b.shape[2])
        self.item = _Plan(a[0], b[0], tf32=tf32) if count else None
        size = a.element_size()
        self.steps = (a.stride(0) * size, b.stride(0) * size,
                      a.shape[1] * b.shape[2] * size)
        self.whole = None
        item = self.item
        # (A stride of 0, a broadcast operand, is the C API's "dense": a
        # launch a product then.)
        if (count > 1 and item is not None and item.handle is not None and
                item.copy_a is None and item.copy_b is None and
                a.stride(0) and b.stride(0)):
            from . import GemmcError
            try:
                whole = _Plan(a[0], b[0],
                              batch=(count, a.stride(0), b.stride(0)),
                              tf32=tf32)
            except GemmcError:
                return  # no batched family here, or not for these strides
            # The batched family where the cost model predicts it faster
            # than a launch a product (it lacks split-K and stream-K): the
            # C API's rule, gemmc_matmul's too.
            runtime = _capi.runtime()
            use = ctypes.c_int()
            _check(runtime.prefer_batched(item.family, whole.family,
                                          ctypes.byref(whole.problem),
                                          ctypes.byref(use)))
            if use.value:
                self.whole = whole
            else:
                _check(runtime.plan_destroy(whole.handle))

    def __call__(self, a, b, a_ptr, b_ptr):
        out = a.new_empty(self.shape)
        if self.whole is not None:
            self.whole.launch(a_ptr, b_ptr, out.data_ptr(), a.device)
            return out
        item = self.item
        if item is None or item.handle is None:
            return out.zero_() if item and item.zero and out.numel() else out
        c_ptr = out.data_ptr()
        step_a, step_b, step_c = self.steps
        if (item.copy_a is not None or item.copy_b is not None or
                (step_a | step_b | step_c) & 15):
            for i in range(self.shape[0]):
                out[i] = _mm(a[i], b[i])
            return out
        for i in range(self.shape[0]):
            item.launch(a_ptr + i * step_a, b_ptr + i * step_b,
                        c_ptr + i * step_c, a.device)
        return out


def _raw_stream_query():
    """torch's current CUstream of a device index, as an integer (torch's
    raw query where it has one: a Stream object costs microseconds)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda index: torch.cuda.current_stream(index).cuda_stream


_raw_stream = _raw_stream_query()


def call_signature(tensors, alpha, beta):
    """What a Kernel call's checks and choice of variant depend on, for
    PyTorch tensors (None in place of an argument not given): each one's
    dtype, device, shape, strides and 16-byte alignment, whether it needs
    a gradient or is a negative view (which DLPack's export refuses, with
    its reason), with alpha and beta; None where one is not a
    torch.Tensor."""
    key = [alpha, beta]
    for t in tensors:
        if t is None:
            key.append(None)
        elif isinstance(t, torch.Tensor):
            key.append((t.dtype, t.device, t.shape, t.stride(),
                        t.data_ptr() % 16, t.requires_grad, t.is_neg()))
        else:
            return None
    return tuple(key)


def checked_launch(module, problem, stream, device):
    """gemmc_launch of a Kernel's checked call on torch's current stream
    (`stream`, its handle); where the stream is capturing a CUDA graph and
    the variant splits K, with the graph's own workspace
    (capture_workspace). Returns the status."""
    runtime = _capi.runtime()
    if torch.cuda.is_current_stream_capturing():
        partials, counters = ctypes.c_size_t(), ctypes.c_size_t()
        status = runtime.workspace_size(module, ctypes.byref(problem),
                                        ctypes.byref(partials),
                                        ctypes.byref(counters))
        if status:
            return status
        held, work, zeros = capture_workspace(device, partials.value,
                                              counters.value)
        if work:
            status = runtime.launch_workspace(
                module, ctypes.byref(problem), ctypes.c_void_p(stream), work,
                partials.value, zeros, counters.value)
            del held  # captured: the graph's pool holds the memory now
            return status
    return runtime.launch(module, ctypes.byref(problem),
                          ctypes.c_void_p(stream))


class KernelPlan:
    """A Kernel's call of one signature (``call_signature``), planned after
    its first call passed the contract's checks: later calls of the
    signature allocate out where none is given and launch the C API's plan
    on torch's current stream, no DLPack export, no checks repeated."""

    __slots__ = ("handle", "index", "shape", "dtype", "layout", "partials",
                 "counters")

    def __init__(self, handle, a, b, dtype, layout):
        self.handle, self.index = handle, a.device.index
        self.shape = a.shape[:-2] + (a.shape[-2], b.shape[-1])
        self.dtype, self.layout = dtype, layout
        self.partials, self.counters = plan_workspace(handle, a.device)

    def __call__(self, a, b, out, bias, residual, scale_a, scale_b,
                 amax=None, scale_c=None):
        if out is None:
            out = _like(a, self.shape, self.dtype, self.layout)
        ops = _capi.Operands(
            a.data_ptr(), b.data_ptr(), out.data_ptr(),
            0 if bias is None else bias.data_ptr(),
            0 if residual is None else residual.data_ptr(),
            0 if scale_a is None else scale_a.data_ptr(),
            0 if scale_b is None else scale_b.data_ptr(),
            0 if amax is None else amax.data_ptr(),
            0 if scale_c is None else scale_c.data_ptr())
        held, partials, counters = capture_workspace(a.device, self.partials,
                                                     self.counters)
        status = _capi.runtime().plan_launch_operands(
            self.handle, ctypes.byref(ops), _raw_stream(self.index), partials,
            counters)
        del held
        if status:
            _check(status)
        return out


def plan_call(kernel_handle, problem, a, b, dtype, layout):
    """The KernelPlan of a checked call's problem, or None where the
    runtime makes none (the call then always takes the checked path)."""
    handle = ctypes.c_void_p()
    if _capi.runtime().plan_create(kernel_handle, ctypes.byref(problem),
                                   ctypes.byref(handle)):
        return None
    return KernelPlan(handle.value, a, b, dtype, layout)


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


def _plan_for(a, b, batched):
    """The plan of a @ b, and A's and B's addresses."""
    a_ptr, b_ptr = a.data_ptr(), b.data_ptr()
    # f32 in tf32 where torch.matmul would (allow_tf32), on the tf32 family.
    tf32 = a.dtype is torch.float32 and _allow_tf32()
    key = (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype,
           a.device, b.device, not a_ptr & 15, not b_ptr & 15, tf32,
           _autotune)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _new_plan(a, b, batched, tf32)
    return plan, a_ptr, b_ptr


def _mm(a, b):
    plan, a_ptr, b_ptr = _plan_for(a, b, batched=False)
    return plan(a, b, a_ptr, b_ptr)


def _bmm(a, b):
    plan, a_ptr, b_ptr = _plan_for(a, b, batched=True)
    return plan(a, b, a_ptr, b_ptr)


def _fake_mm(a, b):
    _check_operands(a, b, batched=False)
    return a.new_empty((a.shape[0], b.shape[1]))


def _fake_bmm(a, b):
    _check_operands(a, b, batched=True)
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


class _Product(torch.autograd.Function):
    """a @ b recorded for autograd (`op`: gemmc's mm or bmm): d(a @ b) is
    grad @ b^T and a^T @ grad, on gemmc too (the transposes are views, read
    in place)."""

    @staticmethod
    def forward(ctx, op, a, b):
        ctx.op = op
        ctx.save_for_backward(a, b)
        with torch._C._AutoDispatchBelowAutograd():
            return op(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = ctx.op(grad, b.mT) if ctx.needs_input_grad[1] else None
        grad_b = ctx.op(a.mT, grad) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b


def _autograd(name):
    """The kernel for autograd of op `name`: a node only where a gradient
    is needed, else straight to the kernel below."""
    op = getattr(torch.ops.gemmc, name).default

    def kernel(a, b):
        if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
            return _Product.apply(op, a, b)
        with torch._C._AutoDispatchBelowAutograd():
            return op(a, b)
    return kernel


# The ops, through torch.library's low-level registration: a kernel for
# CUDA (and CPU, to refuse CPU tensors with gemmc's own message), a fake
# one, and one for autograd. (torch.library.custom_op's wrappers cost
# 13 us a call more, measured on an H100: benchmarks/torch-ops.py.)
_lib = torch.library.Library("gemmc", "DEF")
_lib.define("mm(Tensor a, Tensor b) -> Tensor")
_lib.define("bmm(Tensor a, Tensor b) -> Tensor")
for _name, _kernel, _fake in (("mm", _mm, _fake_mm),
                              ("bmm", _bmm, _fake_bmm)):
    _lib.impl(_name, _kernel, "CUDA")
    _lib.impl(_name, _kernel, "CPU")
    _lib.impl(_name, _autograd(_name), "Autograd")
    torch.library.register_fake(f"gemmc::{_name}", _fake, lib=_lib)


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
