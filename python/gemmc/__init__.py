"""gemmc from Python: compile a schedule, run it on PyTorch or CuPy tensors.

    import gemmc, torch
    kernel = gemmc.compile(open("examples/sgemm-dynamic.gemm").read())
    a = torch.randn(1000, 520, device="cuda"); b = torch.randn(520, 777, device="cuda")
    c = kernel(a, b)                      # on torch's current stream
    torch.testing.assert_close(c, a @ b)

Pure Python over the C API (ctypes): one package for every Python 3, no
compiler needed to install it. Tensors are read through
DLPack (``__dlpack__``: PyTorch, CuPy, JAX, ...) or else
``__cuda_array_interface__`` (Numba, ...); each is
checked against the kernel's contract (dtype, shape, strides, device)
before anything runs. docs/library.md describes the package.
"""

import ctypes
import math
import os

from . import _capi, _dlpack

__all__ = ["GemmcError", "Kernel", "compile", "family", "grouped_family",
           "load", "matmul", "scaled_family", "scaled_grouped_family"]

try:  # torch.ops.gemmc.mm and .bmm, where PyTorch is installed
    import torch as _torch_module  # noqa: F401
except ImportError:
    _torch_module = None
__version__ = "0.1.0"

# gemmc_dtype -> the name NumPy and PyTorch give the type (FP8: OCP's
# e4m3 and e5m2, torch.float8_e4m3fn and torch.float8_e5m2).
_DTYPES = {0: "float32", 1: "float16", 2: "bfloat16", 4: "float8_e4m3fn",
           5: "float8_e5m2"}
_CODES = {name: code for code, name in _DTYPES.items()}
_TYPESTR = {"<f4": "float32", "<f2": "float16"}
_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1,
             "float8_e5m2": 1}


class GemmcError(RuntimeError):
    """A failure of gemmc's C API: ``status`` is its name
    (e.g. ``GEMMC_ERROR_COMPILE``), the message gemmc's."""

    def __init__(self, status, message):
        self.status = _capi.STATUS_NAMES.get(status, str(status))
        super().__init__(message)


def _check(status):
    if status != 0:
        message = _capi.runtime().last_error().decode(errors="replace")
        raise GemmcError(status, message)


class _Operand:
    """A tensor's device pointer, dtype, shape and strides (in elements),
    read through ``__dlpack__`` (exported for `stream`, the CUstream the
    kernel will run on) or else ``__cuda_array_interface__``."""

    def __init__(self, name, tensor, stream=0):
        self.name, self.tensor = name, tensor
        device = getattr(tensor, "__dlpack_device__", None)
        self.device = 0
        if device is not None:
            kind, self.device = device()
            self._check_device(kind)
        if hasattr(tensor, "__dlpack__"):  # PyTorch, CuPy, JAX, ...
            view = _dlpack.read(name, tensor, stream)
            self._check_device(view.device_type)
            self.capsule = view.capsule  # the tensor stays exported
            self.device = view.device_id
            self.pointer, self.dtype = view.pointer, view.dtype
            self.shape, self.strides = view.shape, view.strides
            return
        try:  # Numba, older CuPy, ...
            cai = tensor.__cuda_array_interface__
        except (AttributeError, TypeError, RuntimeError) as e:
            raise TypeError(f"{name} is not a CUDA array: it has neither "
                            f"__dlpack__ nor __cuda_array_interface__"
                            + ("" if isinstance(e, AttributeError) else
                               f" ({e})")) from None
        self.pointer = cai["data"][0]
        self.shape = tuple(cai["shape"])
        self.dtype = _TYPESTR.get(cai["typestr"],
                                  f"array type {cai['typestr']}")
        strides = cai.get("strides")
        size = _ITEMSIZE.get(self.dtype, 1)
        self.strides = _dlpack.compact_strides(self.shape) \
            if strides is None else tuple(s // size for s in strides)

    def _check_device(self, kind):
        if kind not in (_dlpack.KDL_CUDA, _dlpack.KDL_CUDA_MANAGED):
            raise ValueError(f"{self.name} is not on a CUDA device (DLPack "
                             f"device type {kind}): move it to the GPU")


def _scalar_pointer(name, value, taken, stream, missing, unexpected):
    """The device address of `value`, one float32 (0 for None), where the
    kernel takes it (`taken`); else ValueError with `missing` or
    `unexpected`."""
    if taken != (value is not None):
        raise ValueError(missing + " (one float32 on the device)" if taken
                         else unexpected)
    if value is None:
        return 0
    x = _Operand(name, value, stream)
    if x.dtype != "float32" or math.prod(x.shape) != 1:
        raise ValueError(f"{name} must be one float32 value, got "
                         f"{x.dtype} {x.shape}")
    return x.pointer


class Kernel:
    """A loaded PTX module: one kernel, or a kernel family whose variant is
    chosen per problem. Call it like a function; ``close()`` unloads it."""

    def __init__(self, ptx, name="<ptx>", handle=None):
        self.ptx = ptx
        rt = _capi.runtime()
        if handle is None:
            handle = ctypes.c_void_p()
            _check(rt.module_load(ptx.encode(), name.encode(),
                                  ctypes.byref(handle)))
        self._handle = handle
        # The plans of calls on PyTorch tensors, per signature (_torch's
        # call_signature; None: the runtime made none), at most
        # _PLAN_LIMIT: a call of another kind takes the checked path.
        self._plans = {}
        info = _capi.KernelInfo()
        _check(rt.module_info(handle, ctypes.byref(info)))
        self.name = info.name.decode()
        self.arch = info.arch.decode()
        self.sizes = (info.m, info.n, info.k)  # 0: given at launch
        self.dtypes = tuple(_DTYPES[t] for t in (info.a, info.b, info.c))
        self.layouts = tuple("row" if l == 0 else "col" for l in
                             (info.a_layout, info.b_layout, info.c_layout))
        self.alpha_beta = bool(info.alpha_beta)
        self.bias = {0: None, 1: "row", 2: "col"}[info.bias]
        self.relu = bool(info.relu)
        self.activation = (None, "relu", "gelu", "gelu-tanh",
                           "silu")[info.activation]
        self.batched = bool(info.batched)
        # A grouped GEMM's kernel (grouped_mm runs the shipped ones).
        self.grouped = bool(info.grouped)
        # The general form's: its groups listed in a table on the device
        # (grouped_gemm runs the shipped ones).
        self.group_table = bool(info.group_table)
        # R added last (`residual = add`), and the scales of A and B.
        self.residual = bool(info.residual)
        self.scales = (None, "tensor", "rowwise", "block")[info.scales]
        # Writes max |C| (`amax = c`) to a float32 scalar.
        self.amax = bool(info.amax)
        # Multiplies an FP8 C by its scale (`output-scale = tensor`).
        self.output_scale = bool(info.output_scale)
        self.variants = []
        for i in range(info.variants):
            v = _capi.VariantInfo()
            _check(rt.module_variant(handle, i, ctypes.byref(v)))
            self.variants.append({f: (getattr(v, f).decode() if f == "entry"
                                      else getattr(v, f))
                                  for f, _ in _capi.VariantInfo._fields_})

    def __repr__(self):
        return (f"<gemmc.Kernel {self.name}: {len(self.variants)} variant(s), "
                f"{'x'.join(str(s or '?') for s in self.sizes)}, "
                f"{'/'.join(self.dtypes)}, {self.arch}>")

    def close(self):
        """Unloads the module; calling the kernel afterwards raises
        GemmcError (GEMMC_ERROR_INVALID_HANDLE)."""
        plans, self._plans = self._plans, {}
        for plan in plans.values():
            if plan is not None:
                _capi.runtime().plan_destroy(plan.handle)
        _check(_capi.runtime().module_destroy(self._handle))

    def save(self, path):
        """Writes the PTX (with its contract): gemmc.load reads it back,
        on a machine without LLVM too."""
        if self.ptx is None:
            raise ValueError(f"{self.name} is a family gemmc ships: its PTX "
                             f"is the installed share/gemmc/families")
        with open(path, "w") as f:
            f.write(self.ptx)

    def _problem(self, a, b, c, alpha, beta, bias, stream, residual=None,
                 scale_a=None, scale_b=None, amax=None, scale_c=None):
        """The C API's problem for the operands, checked against the
        contract."""
        ops = [a, b, c]
        batched = len(a.shape) == 3
        for op, dtype in zip(ops, self.dtypes):
            if op.dtype != dtype:
                raise TypeError(f"{op.name} is {op.dtype}, but the kernel "
                                f"takes {dtype}")
            if len(op.shape) != len(a.shape) or len(op.shape) not in (2, 3):
                raise ValueError(f"{op.name} has shape {op.shape}: the "
                                 f"operands are all matrices (2-D) or all "
                                 f"batches (3-D)")
        if batched and not self.batched:
            raise ValueError("the kernel computes one GEMM, not a batch: "
                             "pass 2-D tensors")
        if len({op.device for op in ops}) != 1:
            raise ValueError("the operands are on different devices")
        m, k = a.shape[-2:]
        kb, n = b.shape[-2:]
        if kb != k:
            raise ValueError(f"sizes do not match: A is {m}x{k}, B is "
                             f"{kb}x{n}")
        if tuple(c.shape[-2:]) != (m, n):
            raise ValueError(f"out has shape {tuple(c.shape)}, but A times B "
                             f"is {m}x{n}")
        if batched and not (a.shape[0] == b.shape[0] == c.shape[0]):
            raise ValueError("the batch counts of A, B and out differ")
        lds = []
        for op, layout in zip(ops, self.layouts):
            rows, cols = op.shape[-2:]
            row_stride, col_stride = op.strides[-2:]
            if layout == "row":
                ok = col_stride == 1 or cols == 1
                ld = row_stride if rows > 1 else cols
            else:
                ok = row_stride == 1 or rows == 1
                ld = col_stride if cols > 1 else rows
            if not ok or ld < (cols if layout == "row" else rows):
                raise ValueError(
                    f"{op.name} has strides {op.strides} (elements): the "
                    f"kernel takes {layout}-major matrices, contiguous along "
                    f"{'rows' if layout == 'row' else 'columns'} (use "
                    f".contiguous(){' or .t().contiguous().t()' if layout == 'col' else ''})")
            lds.append(ld)
        p = _capi.Problem()
        _capi.runtime().problem_init(ctypes.byref(p), m, n, k)
        p.a, p.b, p.c = a.pointer, b.pointer, c.pointer
        p.lda, p.ldb, p.ldc = lds
        p.alpha, p.beta = alpha, beta
        if batched:
            p.batch = a.shape[0]
            p.stride_a, p.stride_b, p.stride_c = (op.strides[0] for op in ops)
        if self.bias is None and bias is not None:
            raise ValueError("the kernel adds no bias, but one was given")
        if self.bias is not None:
            if bias is None:
                raise ValueError(f"the kernel adds a {self.bias} bias: pass "
                                 f"bias=")
            vec = _Operand("bias", bias, stream)
            want = m if self.bias == "row" else n
            if vec.dtype != self.dtypes[2] or vec.shape != (want,) or \
                    vec.strides != (1,):
                raise ValueError(f"the bias must be a contiguous vector of "
                                 f"{want} {self.dtypes[2]} values, got "
                                 f"{vec.dtype} {vec.shape}")
            p.bias = vec.pointer
        if self.residual != (residual is not None):
            raise ValueError("the kernel adds R: pass residual=" if
                             self.residual else
                             "the kernel adds no R, but residual= was given")
        if residual is not None:
            r = _Operand("residual", residual, stream)
            # R is read as C is: its type, shape and strides.
            if r.dtype != c.dtype or r.shape != c.shape or \
                    r.strides != c.strides:
                raise ValueError(f"residual must be {c.dtype} of out's shape "
                                 f"{c.shape} and strides {c.strides}, got "
                                 f"{r.dtype} {r.shape} {r.strides}")
            p.residual = r.pointer
        given = (scale_a is not None, scale_b is not None)
        if given != (self.scales is not None,) * 2:
            raise ValueError(f"the kernel multiplies by {self.scales} "
                             f"scales: pass scale_a= and scale_b=" if
                             self.scales else "the kernel takes no scales, "
                             "but scale_a= or scale_b= was given")
        if self.scales is not None:
            for name, vec in (("scale_a", scale_a), ("scale_b", scale_b)):
                s = _Operand(name, vec, stream)
                count = _scale_count(self.scales, name == "scale_a", m, n, k)
                # A vector in any shape of one long dimension (M x 1 and
                # 1 x N as torch._scaled_mm takes them), contiguous.
                if s.dtype != "float32" or math.prod(s.shape) != count or \
                        any(st != 1 for d, st in zip(s.shape, s.strides)
                            if d > 1):
                    raise ValueError(f"{name} must be {count} contiguous "
                                     f"float32 values, got {s.dtype} "
                                     f"{s.shape}")
                setattr(p, name, s.pointer)
        # One float32 each on the device, where the kernel takes it.
        p.amax = _scalar_pointer(
            "amax", amax, self.amax, stream,
            "the kernel writes the amax of C: pass amax=",
            "the kernel writes no amax, but amax= was given")
        p.scale_c = _scalar_pointer(
            "scale_c", scale_c, self.output_scale, stream,
            "the kernel multiplies C by its scale: pass scale_c=",
            "the kernel takes no scale of C, but scale_c= was given")
        return p

    def select(self, a, b, out=None, alpha=1.0, beta=0.0, bias=None,
               residual=None, scale_a=None, scale_b=None, amax=None,
               scale_c=None):
        """The index of the variant that would run this call."""
        _, p = self._call(a, b, out, _stream_of(a, None), alpha, beta, bias,
                          residual, scale_a, scale_b, amax, scale_c)
        index = ctypes.c_int(-1)
        _check(_capi.runtime().select(self._handle, ctypes.byref(p),
                                      ctypes.byref(index)))
        return index.value

    def autotune(self, a, b, out=None, alpha=1.0, beta=0.0, bias=None,
                 stream=None, residual=None, scale_a=None, scale_b=None,
                 amax=None, scale_c=None, candidates=3):
        """Makes the measured choice for this call's problem
        (gemmc_autotune, docs/selection.md): the cost model's first
        `candidates` variants are timed on these operands, on `stream`,
        and the fastest runs every later call of the problem's sizes,
        strides, alpha, beta and bias. Reads a, b and the epilogue's
        operands; out and amax are not written. Waits for the stream; not
        while it is captured into a CUDA graph. Returns the variant's
        index."""
        handle = _stream_of(a, stream)
        _, p = self._call(a, b, out, handle, alpha, beta, bias, residual,
                          scale_a, scale_b, amax, scale_c)
        index = ctypes.c_int(-1)
        _check(_capi.runtime().autotune(self._handle, ctypes.byref(p),
                                        ctypes.c_void_p(handle),
                                        int(candidates), ctypes.byref(index)))
        # Calls planned before run the model's choice: plan them again.
        plans, self._plans = self._plans, {}
        for plan in plans.values():
            if plan is not None:
                _capi.runtime().plan_destroy(plan.handle)
        return index.value

    def _call(self, a, b, out, stream, alpha, beta, bias, residual, scale_a,
              scale_b, amax, scale_c):
        """A call's operands (A, B, out; out made where None) and its
        gemmc_problem, checked against the contract."""
        ops = self._operands(a, b, out, stream)
        return ops, self._problem(*ops, alpha, beta, bias, stream, residual,
                                  scale_a, scale_b, amax, scale_c)

    def _operands(self, a, b, out, stream):
        a, b = _Operand("A", a, stream), _Operand("B", b, stream)
        if out is None:
            out = _like(a.tensor, a.shape[:-2] + (a.shape[-2], b.shape[-1]),
                        self.dtypes[2], self.layouts[2])
        return a, b, _Operand("out", out, stream)

    def __call__(self, a, b, out=None, alpha=1.0, beta=0.0, bias=None,
                 stream=None, residual=None, scale_a=None, scale_b=None,
                 amax=None, scale_c=None):
        """C = act(alpha * scales * a @ b + beta * out + bias) + residual,
        as the kernel's contract says, on `stream` (a torch/CuPy stream or a
        CUstream handle; None: the tensor library's current stream).
        `residual` has out's dtype, shape and strides; `scale_a` and
        `scale_b` are float32 vectors of 1, of M and N (rowwise), or of
        FP8's blocks (A's M x ceil(K/128), B's ceil(N/128) x ceil(K/128);
        gemmc.h). FP8 operands are torch.float8_e4m3fn or float8_e5m2 (or
        any DLPack tensor of those types). `amax`, where the kernel writes
        one (`amax = c`), is one float32 on the device: the call sets it to
        max |C|, taken before the cast to out's dtype. `scale_c`, where
        the kernel takes C's scale (`output-scale = tensor`), is one
        float32 on the device that multiplies each value of an FP8 out
        just before its cast (torch._scaled_mm's scale_result).
        Returns out.

        PyTorch tensors on torch's current stream (no `stream`) are
        checked once per signature (dtypes, devices, shapes, strides,
        alignment, alpha and beta); later calls of it launch the plan the
        first one made."""
        key = None
        if stream is None and _torch_calls is not None:
            key = _torch_calls.call_signature(
                (a, b, out, bias, residual, scale_a, scale_b, amax, scale_c),
                alpha, beta)
            # Planned per setting of gemmc.set_autotune.
            key = key and (key, _torch_calls.autotune_candidates())
            plan = self._plans.get(key) if key is not None else None
            if plan is not None:
                return plan(a, b, out, bias, residual, scale_a, scale_b, amax,
                            scale_c)
        handle = _stream_of(a, stream)
        ops, p = self._call(a, b, out, handle, alpha, beta, bias, residual,
                            scale_a, scale_b, amax, scale_c)
        if key is not None:
            # set_autotune: a signature's first call makes the measured
            # choice of its problem first (not inside a capture).
            candidates = key[1]
            if candidates and len(self.variants) > 1 and \
                    not _torch_calls.capturing():
                _check(_capi.runtime().autotune(
                    self._handle, ctypes.byref(p), ctypes.c_void_p(handle),
                    candidates, None))
            _check(_torch_calls.checked_launch(self._handle, p, handle,
                                               a.device))
        else:
            _check(_capi.runtime().launch(self._handle, ctypes.byref(p),
                                          ctypes.c_void_p(handle)))
        if key is not None and key not in self._plans and \
                len(self._plans) < _PLAN_LIMIT:
            self._plans[key] = _torch_calls.plan_call(
                self._handle, p, a, b, self.dtypes[2], self.layouts[2])
        return ops[2].tensor


# The most signatures a Kernel plans (Kernel.__call__).
_PLAN_LIMIT = 256
_torch_calls = None  # gemmc._torch where PyTorch is installed


def _autotune_count(value, what):
    """`value` as the measured choice's count of candidates (0: off; True:
    3), else ValueError whose message begins with `what`."""
    if value is True:
        return 3
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = -1
    if count < 0:
        raise ValueError(f"{what} a count of candidates (0: off), got "
                         f"{value!r}")
    return count


def _scale_count(scales, of_a, m, n, k):
    """The f32 scales of A or B (gemmc.h, gemmc_problem): one, one a row
    of A or column of B, or FP8's blocks (A's 1 x 128, B's 128 x 128)."""
    if scales == "tensor":
        return 1
    if scales == "rowwise":
        return m if of_a else n
    blocks = -(-k // 128)
    return (m if of_a else -(-n // 128)) * blocks


def _like(tensor, shape, dtype, layout):
    """A new uninitialised array for C of the tensor's library."""
    module = type(tensor).__module__.split(".")[0]
    if module == "torch":
        import torch
        out = torch.empty(shape if layout == "row" else
                          shape[:-2] + (shape[-1], shape[-2]),
                          dtype=getattr(torch, dtype), device=tensor.device)
        return out if layout == "row" else out.transpose(-1, -2)
    if module == "cupy":
        import cupy
        return cupy.empty(shape, dtype=dtype,
                          order="C" if layout == "row" else "F")
    raise TypeError("pass out= (gemmc allocates C for PyTorch and CuPy "
                    "tensors only)")


def _stream_of(tensor, stream):
    """The CUstream handle to run on: `stream`'s, or by default the
    current stream of the tensor's library (0 for a tensor not on a GPU,
    which its operand check refuses)."""
    if stream is None:
        device = getattr(tensor, "__dlpack_device__", None)
        if device is not None and device()[0] not in (
                _dlpack.KDL_CUDA, _dlpack.KDL_CUDA_MANAGED):
            return 0
        module = type(tensor).__module__.split(".")[0]
        if module == "torch":
            import torch
            return torch.cuda.current_stream(tensor.device).cuda_stream
        if module == "cupy":
            import cupy
            return cupy.cuda.get_current_stream().ptr
        return 0
    for attribute in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    return int(stream)


def compile(schedule, arch="sm_90", name=None):
    """Compiles a schedule (its text, or the path of a .gemm file) in this
    process and loads it. Raises GemmcError (GEMMC_ERROR_COMPILE) with
    gemmc's diagnostics."""
    if isinstance(schedule, os.PathLike) or (
            isinstance(schedule, str) and "{" not in schedule):
        name = name or os.fspath(schedule)
        with open(schedule) as f:
            schedule = f.read()
    name = name or "<schedule>"
    out = ctypes.c_void_p()
    _check(_capi.compiler().compile(schedule.encode(), name.encode(),
                                    arch.encode(), ctypes.byref(out)))
    try:
        ptx = ctypes.string_at(out).decode()
    finally:
        _capi.runtime().free(out)
    return Kernel(ptx, name)


def load(ptx):
    """Loads PTX compiled by gemmc (its text, or the path of a .ptx file);
    needs gemmc's runtime library only, not LLVM."""
    if isinstance(ptx, str) and "gemmc-contract-begin" in ptx:
        return Kernel(ptx)
    with open(ptx) as f:
        return Kernel(f.read(), os.fspath(ptx))


def family(dtype, a_layout="row", b_layout="row", arch=None):
    """The kernel family gemmc ships for `dtype` ("float32", "float16",
    "bfloat16", or "tf32": float32 tensors multiplied in tf32, what
    torch.matmul does under allow_tf32) and the layouts of A and B ("row"
    or "col"; C row-major),
    for `arch` ("sm_90a", "sm_80"; None: the current GPU's). Installed with
    the runtime library (share/gemmc/families beside its lib/, or
    $GEMMC_FAMILY_DIR); loaded once per process. Needs no GPU with an arch
    given."""
    codes = dict(_CODES, tf32=_capi.TF32)
    if dtype not in codes:
        raise TypeError(f"gemmc ships families for float32, tf32, float16 "
                        f"and bfloat16, not {dtype}")
    layouts = {"row": 0, "col": 1}
    if a_layout not in layouts or b_layout not in layouts:
        raise ValueError("the layouts are 'row' or 'col'")
    handle = ctypes.c_void_p()
    _check(_capi.runtime().family_load(
        codes[dtype], layouts[a_layout], layouts[b_layout],
        arch.encode() if arch else None, ctypes.byref(handle)))
    return Kernel(None, handle=handle)


def _scales_code(scales, kernels):
    """gemmc_scales' code of the shipped FP8 `kernels`' `scales`."""
    codes = {"tensor": 1, "rowwise": 2}
    if scales not in codes:
        raise ValueError(f"gemmc's {kernels} take 'tensor' or 'rowwise' "
                         f"scales, not {scales!r}")
    return codes[scales]


def scaled_family(a_dtype, b_dtype, out_dtype, scales="tensor",
                  fast_accumulate=False, arch=None, bias=None):
    """The FP8 family gemmc ships for torch._scaled_mm's products
    (``gemmc_scaled_family_load``; sm_90a): A row-major and B column-major
    in "float8_e4m3fn" or "float8_e5m2" (not both e5m2), C row-major in
    `out_dtype` ("bfloat16", "float16", "float32", or "float8_e4m3fn" from
    float8_e4m3fn operands per tensor without a bias: that family's kernels
    take C's scale, scale_c=), `scales` "tensor" or "rowwise",
    `fast_accumulate` as torch's use_fast_accum; `bias` "col" adds torch's
    bias (N values of `out_dtype`; float8_e4m3fn operands into bfloat16 or
    float16). What gemmc.scaled_mm runs; loaded once per process."""
    fp8 = ("float8_e4m3fn", "float8_e5m2")
    if a_dtype not in fp8 or b_dtype not in fp8:
        raise TypeError(f"gemmc's scaled families take float8_e4m3fn and "
                        f"float8_e5m2 operands, not {a_dtype} and {b_dtype}")
    if out_dtype not in ("bfloat16", "float16", "float32", "float8_e4m3fn"):
        raise TypeError(f"gemmc's scaled families write bfloat16, float16, "
                        f"float32 or float8_e4m3fn, not {out_dtype}")
    if bias not in (None, "col"):
        raise ValueError(f"gemmc's scaled families add torch's bias, one "
                         f"value per column (bias='col'), not {bias!r}")
    handle = ctypes.c_void_p()
    _check(_capi.runtime().scaled_family_load(
        _CODES[a_dtype], _CODES[b_dtype], _CODES[out_dtype],
        _scales_code(scales, "scaled families"), 0 if bias is None else 2,
        int(bool(fast_accumulate)), arch.encode() if arch else None,
        ctypes.byref(handle)))
    return Kernel(None, handle=handle)


def grouped_family(dtype, b_layout="col", arch=None, ptr_array=False):
    """The grouped GEMM kernel gemmc ships for `dtype` ("float16",
    "bfloat16") and B's layout (A and C row-major; docs/library.md), as
    `family` loads a family: what gemmc.grouped_mm runs, or with
    `ptr_array` the general form's, what gemmc.grouped_gemm runs."""
    codes = {"float16": 1, "bfloat16": 2}
    if dtype not in codes:
        raise TypeError(f"gemmc ships grouped kernels for float16 and "
                        f"bfloat16, not {dtype}")
    if b_layout not in ("row", "col"):
        raise ValueError("the layouts are 'row' or 'col'")
    handle = ctypes.c_void_p()
    load = (_capi.runtime().grouped_table_family_load if ptr_array else
            _capi.runtime().grouped_family_load)
    _check(load(codes[dtype], 0 if b_layout == "row" else 1,
                arch.encode() if arch else None, ctypes.byref(handle)))
    return Kernel(None, handle=handle)


def scaled_grouped_family(scales="rowwise", fast_accumulate=False,
                          arch=None):
    """The grouped FP8 kernel gemmc ships for torch._scaled_grouped_mm's
    products (float8_e4m3fn operands, B column-major, bfloat16 result;
    `scales` "tensor" or "rowwise", B's a group; `fast_accumulate` as
    torch's use_fast_accum), as `family` loads a family: what
    gemmc.scaled_grouped_mm runs."""
    handle = ctypes.c_void_p()
    _check(_capi.runtime().scaled_grouped_family_load(
        _CODES["float8_e4m3fn"], _CODES["float8_e4m3fn"], _CODES["bfloat16"],
        _scales_code(scales, "grouped FP8 kernels"),
        int(bool(fast_accumulate)), arch.encode() if arch else None,
        ctypes.byref(handle)))
    return Kernel(None, handle=handle)


def _layout_of(op):
    """(layout code, leading dimension) of a 2-D operand read in place."""
    rows, cols = op.shape
    row_stride, col_stride = op.strides
    if col_stride == 1 or cols == 1:
        return 0, max(row_stride if rows > 1 else cols, cols, 1)
    if row_stride == 1 or rows == 1:
        return 1, max(col_stride if cols > 1 else rows, rows, 1)
    raise ValueError(f"{op.name} has strides {op.strides} (elements): "
                     f"neither rows nor columns are contiguous")


def matmul(a, b, out=None, family=None, stream=None):
    """a @ b. PyTorch tensors take torch.matmul's semantics (1-D to N-D,
    broadcast batches) through ``torch.ops.gemmc.mm``/``bmm``; other CUDA
    arrays (CuPy, ...) are 2-D, with `out` (row- or column-major) where
    their library is not PyTorch or CuPy. Without `family`, the family
    gemmc ships for the dtype and layouts runs it (no compiler, no source
    tree); with `family` (a Kernel), that one."""
    if family is not None:
        return family(a, b, out=out, stream=stream)
    if type(a).__module__.split(".")[0] == "torch" and stream is None:
        from . import _torch
        return _torch.matmul(a, b, out=out)
    handle = _stream_of(a, stream)
    a, b = _Operand("A", a, handle), _Operand("B", b, handle)
    if a.dtype not in _CODES or b.dtype != a.dtype:
        raise TypeError(f"gemmc.matmul takes float32, float16 or bfloat16 "
                        f"operands of one dtype, got {a.dtype}, {b.dtype}")
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"gemmc.matmul takes 2-D arrays of matching sizes "
                         f"here, got {a.shape} and {b.shape}")
    m, k = a.shape
    n = b.shape[1]
    if out is None:
        out = _like(a.tensor, (m, n), a.dtype, "row")
    c = _Operand("out", out, handle)
    if c.dtype != a.dtype or tuple(c.shape) != (m, n):
        raise ValueError(f"out must be {m}x{n} {a.dtype}, got {c.shape} "
                         f"{c.dtype}")
    (la, lda), (lb, ldb), (lc, ldc) = (_layout_of(op) for op in (a, b, c))
    p = _capi.Problem()
    _capi.runtime().problem_init(ctypes.byref(p), m, n, k)
    p.a, p.b, p.c = a.pointer, b.pointer, c.pointer
    p.lda, p.ldb, p.ldc = lda, ldb, ldc
    _check(_capi.runtime().matmul(_CODES[a.dtype], la, lb, lc,
                                  ctypes.byref(p), ctypes.c_void_p(handle)))
    return c.tensor



if _torch_module is not None:
    from ._torch import bmm, mm  # noqa: E402,F401  (registers the ops)
    from . import _torch as _torch_calls  # noqa: E402
    from ._grouped import (grouped_gemm, grouped_gemm_table,  # noqa: E402
                           grouped_mm, group_table,
                           scaled_grouped_mm)  # noqa: F401
    from ._scaled import scaled_mm  # noqa: E402,F401
    from ._torch import set_autotune  # noqa: E402,F401
    __all__ += ["set_autotune", "mm", "bmm", "grouped_gemm",
                "grouped_gemm_table", "grouped_mm", "group_table",
                "scaled_grouped_mm", "scaled_mm"]
