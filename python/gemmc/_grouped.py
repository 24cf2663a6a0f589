"""gemmc.grouped_mm: torch._grouped_mm's 2-D x 3-D form, the grouped GEMM
of a mixture-of-experts layer, as ``torch.ops.gemmc.grouped_mm`` (a custom
op with a fake implementation, for torch.compile), on torch's current
stream.

``a`` (M x K) holds every group's rows one after the other (tokens sorted
by expert), ``b`` (G x K x N) a K x N matrix a group (either layout: a
transposed view of nn.Linear-like G x N x K weights is read in place), and
``offs`` (G int32 on the device) where each group's rows end, cumulative:
group g has rows [offs[g-1], offs[g]) (from 0), any count, 0 included.
The result's rows past offs[-1] are left as they are (uninitialised in a
new result). The sizes of the groups never go to the host: a call costs
one ``gemmc_grouped_plan_launch`` on a plan made once per shape, needs no
synchronisation and no allocation beyond the result, and a CUDA graph
replays it with new values written into ``offs``. It runs the grouped
kernel gemmc ships for the dtype (f16, bf16) and B's layout
(``gemmc_grouped_family_load``; sm_90a).

gemmc.scaled_grouped_mm: torch._scaled_grouped_mm's 2-D x 3-D form, the
same in FP8 (``torch.ops.gemmc.scaled_grouped_mm``): ``a`` and ``b`` in
float8_e4m3fn, ``b`` column-major (G x K x N, the transposed view of
G x N x K weights), the result ``scale_a * scale_b * (a @ b[g])`` in
bfloat16 with rowwise scales (``scale_a`` of M, ``scale_b`` of G x N: each
group's columns' own) or per tensor (``scale_a`` of one value, ``scale_b``
of one a group), each k tile's sums added in f32, or over all of K on the
tensor cores with ``use_fast_accum`` (``gemmc_scaled_grouped_family_load``).

gemmc.grouped_gemm: the general form, CUTLASS's pointer-array grouped
GEMM: ``[a[g] @ b[g] for g]`` in one launch for lists of 2-D tensors, each
group of its own M, N and K (0 included) and at its own address (``torch.ops.gemmc.grouped_gemm``).
Each group's sizes, leading dimensions and addresses go to the device in
a table (``gemmc.group_table`` makes its rows) that the kernel reads there;
``gemmc.grouped_gemm_table`` launches on a table already on the device,
which a CUDA graph replays with new rows written into it
(``gemmc_grouped_table_family_load``; sm_90a).
"""

import array
import ctypes

import torch

from . import _capi, scaled_grouped_family
from ._torch import _check, _raw_stream, one_device

_CODES = {torch.float16: 1, torch.bfloat16: 2}
_ROW, _COL = 0, 1

# (dtype code, B's layout) -> module handle, or ("scaled", scales, fast)
# -> the gemmc.Kernel of the module.
_modules = {}
# The plans, per (shapes and strides of a, b and offs, dtypes, devices, and
# whether a and b are 16-byte aligned): a call looks its plan up and
# launches it, nothing checked or decided twice.
_plans = {}


def _module(key):
    handle = _modules.get(key)
    if handle is None:
        if key[0] == "scaled":
            handle = scaled_grouped_family(key[1], key[2])
        elif key[-1] == "ptr-array":
            handle = ctypes.c_void_p()
            _check(_capi.runtime().grouped_table_family_load(
                key[0], key[1], None, ctypes.byref(handle)))
        else:
            handle = ctypes.c_void_p()
            _check(_capi.runtime().grouped_family_load(
                key[0], key[1], None, ctypes.byref(handle)))
        _modules[key] = handle
    return handle._handle if key[0] == "scaled" else handle


def _check_operands(a, b, offs):
    _check_shapes(a, b, offs, "gemmc.grouped_mm")
    if a.dtype != b.dtype or a.dtype not in _CODES:
        raise TypeError(f"gemmc.grouped_mm takes float16 or bfloat16 "
                        f"operands of one dtype, got {a.dtype} and "
                        f"{b.dtype}")


def _check_shapes(a, b, offs, caller):
    if a.dim() != 2 or b.dim() != 3:
        raise ValueError(f"{caller} takes a 2-D a and a 3-D b, got "
                         f"{a.dim()}-D and {b.dim()}-D")
    if offs.dim() != 1 or offs.dtype != torch.int32:
        raise TypeError(f"offs must be a 1-D int32 tensor, got "
                        f"{offs.dim()}-D {offs.dtype}")
    if offs.shape[0] != b.shape[0]:
        raise ValueError(f"offs has {offs.shape[0]} values for "
                         f"{b.shape[0]} groups")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"sizes do not match: {tuple(a.shape)} @ "
                         f"{tuple(b.shape)}")
    devices = {a.device, b.device, offs.device}
    if len(devices) != 1 or not a.is_cuda:
        raise ValueError(f"{caller} takes tensors on one CUDA "
                         f"device, got {sorted(map(str, devices))}")


def _a_in_place(a):
    """A's leading dimension where it is read in place (row-major, its rows
    at 16-byte multiples), else None: a dense copy is read."""
    size = a.element_size()
    if (a.stride(1) == 1 and a.stride(0) >= a.shape[1] and
            (a.stride(0) * size) % 16 == 0 and a.data_ptr() % 16 == 0):
        return a.stride(0)
    return None


def _b_in_place(b):
    """B's matrices row- or column-major where read in place: their layout,
    leading dimension and the elements from one group's matrix to the next;
    else None: a dense row-major copy is read."""
    _, k, n = b.shape
    size = b.element_size()
    s0, s1, s2 = b.stride()
    if b.data_ptr() % 16 == 0 and (s0 * size) % 16 == 0:
        if s2 == 1 and s1 >= n and (s1 * size) % 16 == 0 and s0 >= s1 * k:
            return _ROW, s1, s0
        if s1 == 1 and s2 >= k and (s2 * size) % 16 == 0 and s0 >= s2 * n:
            return _COL, s2, s0
    return None


def _dense(t):
    """A dense row-major copy at a new (aligned) address: contiguous() would
    hand back a dense tensor that starts off a 16-byte boundary."""
    return t.clone(memory_format=torch.contiguous_format)


def _dense_col(b):
    """B's matrices copied column-major (K contiguous), at a new address."""
    return _dense(b.transpose(1, 2)).transpose(1, 2)


def _scaled_kind(a, b, scale_a, scale_b, offs, out_dtype):
    """The scales ("tensor", "rowwise") of a scaled grouped product, its
    operands checked."""
    _check_shapes(a, b, offs, "gemmc.scaled_grouped_mm")
    if a.dtype != torch.float8_e4m3fn or b.dtype != torch.float8_e4m3fn:
        raise TypeError(f"gemmc.scaled_grouped_mm takes float8_e4m3fn "
                        f"operands, got {a.dtype} and {b.dtype}")
    if out_dtype != torch.bfloat16:
        raise TypeError(f"gemmc.scaled_grouped_mm writes bfloat16 (as "
                        f"torch._scaled_grouped_mm), not {out_dtype}")
    if scale_a.dtype != torch.float32 or scale_b.dtype != torch.float32:
        raise TypeError(f"gemmc.scaled_grouped_mm's scales are float32, got "
                        f"{scale_a.dtype} and {scale_b.dtype}")
    m, groups, n = a.shape[0], b.shape[0], b.shape[2]
    if scale_a.numel() == 1 and scale_b.numel() == groups and \
            scale_b.shape[0] == groups and (scale_b.dim() == 1 or
                                            tuple(scale_b.shape[1:]) == (1,)):
        kind = "tensor"
    elif tuple(scale_a.shape) == (m,) and tuple(scale_b.shape) == (groups, n):
        kind = "rowwise"
    else:
        raise ValueError(f"gemmc.scaled_grouped_mm's scales are one for a and "
                         f"one a group for b (per tensor), or {m} and "
                         f"{groups} x {n} (rowwise), got "
                         f"{tuple(scale_a.shape)} and {tuple(scale_b.shape)}")
    if {scale_a.device, scale_b.device} != {a.device}:
        raise ValueError("gemmc.scaled_grouped_mm takes tensors on one CUDA "
                         "device")
    return kind


class _Plan:
    """One shape's launch: what was decided about a, b and offs (read in
    place or copied) and the C API's plan, made on the first call. `scaled`:
    a scaled product's (scales, fast sums), its operands checked."""

    __slots__ = ("shape", "handle", "copy_a", "copy_b", "copy_offs", "zero",
                 "index", "dtype", "scaled")

    def __init__(self, a, b, offs, scaled=None):
        if scaled is None:
            _check_operands(a, b, offs)
        m, k = a.shape
        groups, _, n = b.shape
        self.shape = (m, n)
        self.dtype = torch.bfloat16 if scaled else a.dtype
        self.scaled = scaled
        self.handle = None
        self.index = a.device.index
        self.zero = k == 0 and m > 0 and n > 0
        # offs a view with a step: its values copied together.
        self.copy_offs = offs.stride(0) != 1 and groups > 1
        if m == 0 or n == 0 or k == 0:
            return
        lda = _a_in_place(a)
        b_read = _b_in_place(b)
        # FP8 is read K-major only: B column-major.
        if scaled and b_read and b_read[0] != _COL:
            b_read = None
        self.copy_a, self.copy_b = lda is None, b_read is None
        if self.copy_a:
            lda = k
        dense_b = (_COL, k, k * n) if scaled else (_ROW, n, k * n)
        b_layout, ldb, stride_b = b_read or dense_b
        p = _capi.GroupedProblem(m, n, k, groups, 0, 0, 0, 0, lda, ldb, n,
                                 stride_b, 1.0)
        key = ("scaled",) + scaled if scaled else (_CODES[a.dtype], b_layout)
        made = ctypes.c_void_p()
        _check(_capi.runtime().grouped_plan_create(
            _module(key), ctypes.byref(p), ctypes.byref(made)))
        self.handle = made.value

    def __call__(self, a, b, offs, out, scales=None):
        if out is None:
            out = a.new_empty(self.shape, dtype=self.dtype)
        if self.handle is None:
            return out.zero_() if self.zero else out
        # The copies stay alive until the launch is enqueued: torch's
        # allocator reuses their memory only behind it on the stream.
        if self.copy_a:
            a = _dense(a)
        if self.copy_b:
            b = _dense_col(b) if self.scaled else _dense(b)
        if self.copy_offs:
            offs = offs.contiguous()
        if self.scaled:
            scale_a, scale_b = (t.contiguous() for t in scales)
            operands = _capi.Operands(a.data_ptr(), b.data_ptr(),
                                      out.data_ptr(), 0, 0,
                                      scale_a.data_ptr(), scale_b.data_ptr())
            status = _capi.runtime().grouped_plan_launch_operands(
                self.handle, ctypes.byref(operands), offs.data_ptr(),
                _raw_stream(self.index))
        else:
            status = _capi.runtime().grouped_plan_launch(
                self.handle, a.data_ptr(), b.data_ptr(), out.data_ptr(),
                offs.data_ptr(), _raw_stream(self.index))
        if status:
            _check(status)
        return out


def _grouped_mm(a, b, offs, out=None):
    key = (a.shape, a.stride(), b.shape, b.stride(), offs.shape,
           offs.stride(), a.dtype, b.dtype, offs.dtype, a.device, b.device,
           offs.device, not a.data_ptr() & 15, not b.data_ptr() & 15)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _Plan(a, b, offs)
    return plan(a, b, offs, out)


def _fake_grouped_mm(a, b, offs):
    _check_operands(a, b, offs)
    return a.new_empty((a.shape[0], b.shape[2]))


_lib = torch.library.Library("gemmc", "FRAGMENT")
_lib.define("grouped_mm(Tensor a, Tensor b, Tensor offs) -> Tensor")
_lib.impl("grouped_mm", _grouped_mm, "CUDA")
_lib.impl("grouped_mm", _grouped_mm, "CPU")  # refused with gemmc's message
torch.library.register_fake("gemmc::grouped_mm", _fake_grouped_mm, lib=_lib)


def grouped_mm(a, b, offs, out=None):
    """torch._grouped_mm(a, b, offs=offs) for a 2-D ``a`` and a 3-D ``b``:
    torch.ops.gemmc.grouped_mm (module docstring)."""
    if torch.compiler.is_compiling():
        result = torch.ops.gemmc.grouped_mm(a, b, offs)
    elif (out is not None and out.shape == (a.shape[0], b.shape[-1]) and
          out.dtype == a.dtype and out.device == a.device and
          out.is_contiguous() and out.data_ptr() % 16 == 0):
        return _grouped_mm(a, b, offs, out=out)  # straight into out
    else:
        result = _grouped_mm(a, b, offs)
    if out is not None:
        out.copy_(result)
        return out
    return result


def _scaled_grouped_mm(a, b, scale_a, scale_b, offs, use_fast_accum=False):
    key = ("scaled", a.shape, a.stride(), b.shape, b.stride(), scale_a.shape,
           scale_b.shape, offs.shape, offs.stride(), a.dtype, b.dtype,
           scale_a.dtype, scale_b.dtype, offs.dtype, a.device, b.device,
           scale_a.device, scale_b.device, offs.device, bool(use_fast_accum),
           not a.data_ptr() & 15, not b.data_ptr() & 15)
    plan = _plans.get(key)
    if plan is None:
        kind = _scaled_kind(a, b, scale_a, scale_b, offs, torch.bfloat16)
        plan = _plans[key] = _Plan(a, b, offs,
                                   scaled=(kind, int(bool(use_fast_accum))))
    return plan(a, b, offs, None, scales=(scale_a, scale_b))


def _fake_scaled_grouped_mm(a, b, scale_a, scale_b, offs,
                            use_fast_accum=False):
    _scaled_kind(a, b, scale_a, scale_b, offs, torch.bfloat16)
    return a.new_empty((a.shape[0], b.shape[2]), dtype=torch.bfloat16)


_lib.define("scaled_grouped_mm(Tensor a, Tensor b, Tensor scale_a, "
            "Tensor scale_b, Tensor offs, bool use_fast_accum=False) "
            "-> Tensor")
_lib.impl("scaled_grouped_mm", _scaled_grouped_mm, "CUDA")
_lib.impl("scaled_grouped_mm", _scaled_grouped_mm, "CPU")  # refused
torch.library.register_fake("gemmc::scaled_grouped_mm",
                            _fake_scaled_grouped_mm, lib=_lib)


def scaled_grouped_mm(a, b, scale_a, scale_b, offs, bias=None,
                      scale_result=None, out_dtype=torch.bfloat16,
                      use_fast_accum=False):
    """torch._scaled_grouped_mm(a, b, scale_a, scale_b, offs=offs,
    out_dtype=torch.bfloat16, use_fast_accum=...) for a 2-D ``a`` and a
    3-D ``b``: torch.ops.gemmc.scaled_grouped_mm (module docstring)."""
    if bias is not None or scale_result is not None:
        raise ValueError("gemmc.scaled_grouped_mm fuses no bias and no "
                         "scale_result")
    if out_dtype != torch.bfloat16:
        raise TypeError(f"gemmc.scaled_grouped_mm writes bfloat16 (as "
                        f"torch._scaled_grouped_mm), not {out_dtype}")
    if torch.compiler.is_compiling():
        return torch.ops.gemmc.scaled_grouped_mm(a, b, scale_a, scale_b,
                                                 offs, bool(use_fast_accum))
    return _scaled_grouped_mm(a, b, scale_a, scale_b, offs, use_fast_accum)


# The general form: each group its own sizes and matrices, listed in a
# table on the device, a row a group (gemmc-contract's GroupColumn).
_TABLE_COLUMNS = 9  # m n k lda ldb ldc, then the addresses of A, B and C
# (dtype, B's layout, groups, device index) -> the C API's plan.
_table_plans = {}


def _padded(t):
    """A row-major copy of 2-D ``t`` whose rows start at 16-byte multiples
    (a view into a wider, aligned tensor)."""
    rows, cols = t.shape
    step = 16 // t.element_size()
    wide = t.new_empty((rows, (cols + step - 1) // step * step))
    wide[:, :cols].copy_(t)
    return wide[:, :cols]


def _scan_groups(a, b, out, caller, table=True):
    """One pass over the groups, which is most of a call's cost on the host
    (a few attribute reads a group). Each group is checked: 2-D @ 2-D, the
    sizes matching, one dtype of _CODES, one CUDA device, ``out``'s shapes.
    Returns (dtype, rows, B's layout, odd). With ``table``, ``rows`` is the
    group table's rows flat, 9 integers a group (C's leading dimension and
    address left 8 and 0 where ``out`` is None); B's layout is the first
    group's that is read in place (row-major where none is); ``odd`` lists
    the operands the kernel cannot read or write where they lie, (g, what):
    "a" (not row-major, a leading dimension or address not at 16 bytes),
    "b" (neither layout at 16 bytes), "b-layout" (the other layout), "c" (C
    not row-major or not 16-byte aligned). An operand with no element is
    never read: its leading dimension is 8."""
    if not isinstance(a, (list, tuple)) or not isinstance(b, (list, tuple)):
        raise TypeError(f"{caller} takes lists of tensors, a group each")
    if len(a) != len(b) or not a:
        raise ValueError(f"{caller} takes one b a group: got {len(a)} a "
                         f"and {len(b)} b")
    if out is not None and len(out) != len(a):
        raise ValueError(f"{caller}: out has {len(out)} tensors for "
                         f"{len(a)} groups")
    dtype = a[0].dtype
    if dtype not in _CODES:
        raise TypeError(f"{caller} takes float16 or bfloat16, got {dtype}")
    if not a[0].is_cuda:
        raise ValueError(f"{caller} takes CUDA tensors, got {a[0].device}")
    index, size = a[0].get_device(), a[0].element_size()
    rows, odd, layout = [], [], None
    for g in range(len(a)):
        x, y = a[g], b[g]
        xs, ys = x.shape, y.shape
        if len(xs) != 2 or len(ys) != 2:
            raise ValueError(f"{caller}: group {g} is {len(xs)}-D @ "
                             f"{len(ys)}-D, not 2-D @ 2-D")
        m, k = xs
        n = ys[1]
        if k != ys[0]:
            raise ValueError(f"{caller}: group {g}'s sizes do not match: "
                             f"{tuple(xs)} @ {tuple(ys)}")
        if x.dtype is not dtype or y.dtype is not dtype:
            raise TypeError(f"{caller}: group {g} is {x.dtype} @ {y.dtype}; "
                            f"every group's operands are {dtype}")
        if x.get_device() != index or y.get_device() != index:
            raise ValueError(f"{caller} takes tensors on one CUDA device: "
                             f"group {g} has {x.device} and {y.device}, "
                             f"group 0 {a[0].device}")
        c = None if out is None else out[g]
        if c is not None and (c.shape != (m, n) or c.dtype is not dtype or
                              c.get_device() != index):
            raise ValueError(f"{caller}: out[{g}] must be {m} x {n} {dtype} "
                             f"on {a[0].device}, got {tuple(c.shape)} "
                             f"{c.dtype} on {c.device}")
        if not table:
            continue
        pa, pb, lda, ldb = x.data_ptr(), y.data_ptr(), 8, 8
        if m and k:
            s0, s1 = x.stride()
            if s1 == 1 and s0 >= k and not (s0 * size) & 15 and not pa & 15:
                lda = s0
            else:
                odd.append((g, "a"))
        if k and n:
            s0, s1 = y.stride()
            row = (s1 == 1 or n == 1) and s0 >= n and not (s0 * size) & 15
            col = (s0 == 1 or k == 1) and s1 >= k and not (s1 * size) & 15
            if pb & 15 or not (row or col):
                odd.append((g, "b"))
            else:
                if layout is None:
                    layout = _ROW if row else _COL
                if row and layout == _ROW:
                    ldb = s0
                elif col and layout == _COL:
                    ldb = s1
                else:
                    odd.append((g, "b-layout"))
        pc, ldc = 0, 8
        if c is not None:
            pc = c.data_ptr()
            if m and n:
                s0, s1 = c.stride()
                if (s1 == 1 or n == 1) and s0 >= n and not pc & 15:
                    ldc = max(s0, 1)
                else:
                    odd.append((g, "c"))
        rows += (m, n, k, lda, ldb, ldc, pa, pb, pc)
    return dtype, rows, _ROW if layout is None else layout, odd


def _host_table(rows):
    """The flat rows as a G x 9 int64 tensor on the host, without a copy."""
    return torch.frombuffer(array.array("q", rows),
                            dtype=torch.int64).view(-1, _TABLE_COLUMNS)


def group_table(a, b, out):
    """The group table's rows for lists of 2-D tensors, ``out[g] = a[g] @
    b[g]``, as a G x 9 int64 tensor on the host (each group's m, n, k,
    lda, ldb, ldc and the addresses of its A, B and C), and B's layout
    ("row" or "col", one for all groups). Each tensor is read where it
    lies: A and C row-major, B either way, each leading dimension a
    multiple of 8 elements and each address 16-byte aligned (else a
    ValueError: gemmc.grouped_gemm copies such operands). Copy the rows to
    the device for gemmc.grouped_gemm_table; the tensors must outlive its
    launches."""
    if out is None:
        raise ValueError("gemmc.group_table takes a list of out tensors")
    _, rows, layout, odd = _scan_groups(a, b, out, "gemmc.group_table")
    for g, what in odd:
        if what == "b-layout":
            raise ValueError("gemmc.group_table: every group's B must be of "
                             "one layout, row- or column-major")
        raise ValueError(
            f"gemmc.group_table: group {g}'s A and C must be row-major "
            f"and B either way, A's and B's leading dimensions multiples "
            f"of 8 elements, each address 16-byte aligned (gemmc."
            f"grouped_gemm copies what is not)")
    return _host_table(rows), "row" if layout == _ROW else "col"


def grouped_gemm_table(table, dtype=torch.bfloat16, b_layout="col"):
    """Launches the general form on torch's current stream with the group
    table on the device: ``table`` a contiguous G x 9 int64 CUDA tensor
    (gemmc.group_table's rows), its groups' A, B and C of ``dtype`` (A and
    C row-major, B of ``b_layout``). The table is read on the device only:
    no synchronisation, nothing allocated, and a CUDA graph captures the
    launch once and replays it with new rows written into the table (the
    caller keeps them to group_table's rules: nothing checks them)."""
    if (not isinstance(table, torch.Tensor) or table.dtype != torch.int64
            or table.dim() != 2 or table.shape[1] != _TABLE_COLUMNS or
            not table.is_cuda or not table.is_contiguous()):
        raise ValueError(f"gemmc.grouped_gemm_table takes a contiguous "
                         f"G x {_TABLE_COLUMNS} int64 CUDA tensor")
    if dtype not in _CODES:
        raise TypeError(f"gemmc.grouped_gemm_table takes float16 or "
                        f"bfloat16, not {dtype}")
    if b_layout not in ("row", "col"):
        raise ValueError("B's layout is 'row' or 'col'")
    groups = table.shape[0]
    if groups == 0:
        return
    index = table.device.index
    plan = _table_plan(dtype, _ROW if b_layout == "row" else _COL, groups,
                       index)
    status = _capi.runtime().grouped_table_plan_launch(
        plan, table.data_ptr(), _raw_stream(index))
    if status:
        _check(status)


def _table_plan(dtype, layout, groups, index):
    """The C API's plan of the general form for these groups (made once)."""
    key = (dtype, layout, groups, index)
    plan = _table_plans.get(key)
    if plan is None:
        one_device(torch.device("cuda", index))
        made = ctypes.c_void_p()
        _check(_capi.runtime().grouped_table_plan_create(
            _module((_CODES[dtype], layout, "ptr-array")), groups, 1.0, 0.0,
            ctypes.byref(made)))
        plan = _table_plans[key] = made.value
    return plan


def _results(rows, dtype, device, shared, groups=None):
    """New results for the groups (all, or those listed), row-major, each
    at a 16-byte multiple, their leading dimensions and addresses written
    into the rows. ``shared``: views of one allocation (one allocator call
    a launch, not one a group), else a tensor each."""
    groups = range(len(rows) // _TABLE_COLUMNS) if groups is None else groups
    sizes = [(rows[9 * g], rows[9 * g + 1]) for g in groups]
    if shared:
        step = 16 // dtype.itemsize
        starts, total = [], 0
        for m, n in sizes:
            starts.append(total if m * n else 0)
            total += (m * n + step - 1) // step * step
        whole = torch.empty(total, dtype=dtype, device=device)
        made = [whole.as_strided((m, n), (max(n, 1), 1), start)
                for (m, n), start in zip(sizes, starts)]
    else:
        made = [torch.empty((m, n), dtype=dtype, device=device)
                for m, n in sizes]
    for g, (m, n), c in zip(groups, sizes, made):
        if m and n:
            rows[9 * g + 5], rows[9 * g + 8] = n, c.data_ptr()
    return made


def _grouped_gemm(a, b, out=None, shared=True):
    """gemmc.grouped_gemm in eager mode (``shared``: the new results views
    of one allocation)."""
    if torch.cuda.is_current_stream_capturing():
        raise RuntimeError(
            "gemmc.grouped_gemm copies its group table from the host, which "
            "a CUDA graph would not replay: capture gemmc.grouped_gemm_table "
            "on a table made before the capture")
    caller = "gemmc.grouped_gemm"
    dtype, rows, layout, odd = _scan_groups(a, b, out, caller)
    # Copies of the operands the kernel cannot read where they lie (A
    # row-major, B in the first readable group's layout, 16-byte rows),
    # then their rows again; C written apart where it cannot be in place.
    into = [g for g, what in odd if what == "c"]
    if len(into) < len(odd):
        a, b = list(a), list(b)
        for g, what in odd:
            if what == "a":
                a[g] = _padded(a[g])
            elif what != "c":
                b[g] = (_padded(b[g]) if layout == _ROW
                        else _padded(b[g].t()).t())
        dtype, rows, layout, odd = _scan_groups(a, b, out, caller)
        if any(what != "c" for _, what in odd):
            raise RuntimeError(f"{caller}: an operand copied for the kernel "
                               f"is still not readable: {odd}")
    device = a[0].device
    if out is None:
        out = _results(rows, dtype, device, shared)
        apart = []
    else:
        apart = _results(rows, dtype, device, shared, into)
    # The plan copies the rows to the device through its own memory (read
    # before the call returns).
    index, host = device.index, array.array("q", rows)
    status = _capi.runtime().grouped_table_plan_launch_rows(
        _table_plan(dtype, layout, len(a), index), host.buffer_info()[0],
        _raw_stream(index))
    if status:
        _check(status)
    for g, c in zip(into, apart):
        out[g].copy_(c)
    return out


def _grouped_gemm_op(a, b):
    # (An op's results may not alias one another: a tensor each.)
    return _grouped_gemm(a, b, shared=False)


def _fake_grouped_gemm(a, b):
    _scan_groups(a, b, None, "gemmc.grouped_gemm", table=False)
    return [x.new_empty((x.shape[0], y.shape[1])) for x, y in zip(a, b)]


_lib.define("grouped_gemm(Tensor[] a, Tensor[] b) -> Tensor[]")
_lib.impl("grouped_gemm", _grouped_gemm_op, "CUDA")
_lib.impl("grouped_gemm", _grouped_gemm_op, "CPU")  # refused
torch.library.register_fake("gemmc::grouped_gemm", _fake_grouped_gemm,
                            lib=_lib)


def grouped_gemm(a, b, out=None):
    """``[a[g] @ b[g] for g in range(len(a))]`` in one launch, for lists of
    2-D float16 or bfloat16 CUDA tensors, each group of its own sizes
    (torch.ops.gemmc.grouped_gemm; module docstring). Operands are read in
    place where the kernel can (A row-major, B either way, 16-byte
    aligned rows), else copied. ``out``: a list of the results' tensors
    to write into (each written in place where it is row-major and
    16-byte aligned, else through a copy). New results are views of one
    allocation, a group each (as torch.split's are)."""
    if not torch.compiler.is_compiling():
        return _grouped_gemm(a, b, out)
    result = torch.ops.gemmc.grouped_gemm(a, b)
    if out is None:
        return result
    _scan_groups(a, b, out, "gemmc.grouped_gemm", table=False)
    for c, r in zip(out, result):
        c.copy_(r)
    return out
