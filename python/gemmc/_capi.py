"""ctypes declarations of gemmc's C API (include/gemmc/gemmc.h).

The libraries are found, in order: in $GEMMC_LIBRARY_DIR, beside this
package (a wheel may bundle them in gemmc/lib), in the source tree's
build/lib, in the lib/ that `cmake --install` puts the package under
(PREFIX/lib/python/gemmc), and by the system's loader (LD_LIBRARY_PATH, ldconfig). The
compiler's library is loaded on first use, so a machine without LLVM can
still load and launch PTX compiled elsewhere.
"""

import ctypes
import os
from pathlib import Path

c_int64 = ctypes.c_int64

# gemmc_dtype's GEMMC_TF32 (include/gemmc/gemmc.h): f32 tensors, the
# families that multiply in tf32.
TF32 = 3

STATUS_NAMES = {
    0: "GEMMC_SUCCESS",
    1: "GEMMC_ERROR_INVALID_ARGUMENT",
    2: "GEMMC_ERROR_INVALID_HANDLE",
    3: "GEMMC_ERROR_COMPILE",
    4: "GEMMC_ERROR_CONTRACT",
    5: "GEMMC_ERROR_UNSUPPORTED_PROBLEM",
    6: "GEMMC_ERROR_NO_GPU",
    7: "GEMMC_ERROR_CUDA",
    8: "GEMMC_ERROR_IO",
    9: "GEMMC_ERROR_INTERNAL",
}


class KernelInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p), ("arch", ctypes.c_char_p),
        ("variants", ctypes.c_int),
        ("m", c_int64), ("n", c_int64), ("k", c_int64),
        ("a", ctypes.c_int), ("b", ctypes.c_int), ("c", ctypes.c_int),
        ("a_layout", ctypes.c_int), ("b_layout", ctypes.c_int),
        ("c_layout", ctypes.c_int),
        ("alpha_beta", ctypes.c_int), ("bias", ctypes.c_int),
        ("relu", ctypes.c_int), ("batched", ctypes.c_int),
        ("activation", ctypes.c_int), ("grouped", ctypes.c_int),
        ("residual", ctypes.c_int), ("scales", ctypes.c_int),
        ("group_table", ctypes.c_int), ("amax", ctypes.c_int),
        ("output_scale", ctypes.c_int),
    ]


class VariantInfo(ctypes.Structure):
    _fields_ = [
        ("entry", ctypes.c_char_p),
        ("min_m", c_int64), ("max_m", c_int64), ("min_n", c_int64),
        ("max_n", c_int64), ("min_k", c_int64), ("max_k", c_int64),
        ("multiple_m", c_int64), ("multiple_n", c_int64),
        ("multiple_k", c_int64),
        ("ld_multiple_a", c_int64), ("ld_multiple_b", c_int64),
        ("ld_multiple_c", c_int64),
        ("block_threads", ctypes.c_uint), ("shared_bytes", c_int64),
        ("split_k", ctypes.c_int),
    ]


class Problem(ctypes.Structure):
    _fields_ = [
        ("m", c_int64), ("n", c_int64), ("k", c_int64),
        ("a", ctypes.c_uint64), ("b", ctypes.c_uint64),
        ("c", ctypes.c_uint64), ("bias", ctypes.c_uint64),
        ("lda", c_int64), ("ldb", c_int64), ("ldc", c_int64),
        ("alpha", ctypes.c_float), ("beta", ctypes.c_float),
        ("batch", c_int64),
        ("stride_a", c_int64), ("stride_b", c_int64), ("stride_c", c_int64),
        ("residual", ctypes.c_uint64), ("scale_a", ctypes.c_uint64),
        ("scale_b", ctypes.c_uint64), ("amax", ctypes.c_uint64),
        ("scale_c", ctypes.c_uint64),
    ]


class Operands(ctypes.Structure):
    """gemmc_operands: a plan's launch addresses."""
    _fields_ = [(name, ctypes.c_uint64) for name in
                ("a", "b", "c", "bias", "residual", "scale_a", "scale_b",
                 "amax", "scale_c")]


class GroupedProblem(ctypes.Structure):
    _fields_ = [
        ("m", c_int64), ("n", c_int64), ("k", c_int64), ("groups", c_int64),
        ("a", ctypes.c_uint64), ("b", ctypes.c_uint64),
        ("c", ctypes.c_uint64), ("offsets", ctypes.c_uint64),
        ("lda", c_int64), ("ldb", c_int64), ("ldc", c_int64),
        ("stride_b", c_int64), ("alpha", ctypes.c_float),
        ("scale_a", ctypes.c_uint64), ("scale_b", ctypes.c_uint64),
    ]


def _candidates(stem):
    names = [f"lib{stem}.so.0", f"lib{stem}.so"]
    dirs = []
    if os.environ.get("GEMMC_LIBRARY_DIR"):
        dirs.append(Path(os.environ["GEMMC_LIBRARY_DIR"]))
    here = Path(__file__).resolve().parent
    # Bundled in a wheel; the source tree's build; `cmake --install`'s
    # PREFIX/lib/python/gemmc beside PREFIX/lib.
    dirs += [here / "lib", here.parent.parent / "build" / "lib",
             here.parent.parent]
    for d in dirs:
        for name in names:
            if (d / name).exists():
                yield str(d / name)
    yield from names  # the system's loader


def _load(stem):
    errors = []
    for path in _candidates(stem):
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise OSError(f"gemmc: cannot load lib{stem}.so (set GEMMC_LIBRARY_DIR "
                  "to the folder of gemmc's libraries): " + "; ".join(errors))


def _declare(lib, name, args, result=ctypes.c_int):
    fn = getattr(lib, name)
    fn.argtypes = args
    fn.restype = result
    return fn


class Runtime:
    def __init__(self):
        lib = _load("gemmc_runtime")
        self.path = lib._name  # where it was found
        p = ctypes.c_void_p
        self.last_error = _declare(lib, "gemmc_last_error", [], ctypes.c_char_p)
        self.free = _declare(lib, "gemmc_free", [p], None)
        self.module_load = _declare(lib, "gemmc_module_load",
                                    [ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.POINTER(p)])
        self.module_destroy = _declare(lib, "gemmc_module_destroy", [p])
        self.module_jit = _declare(lib, "gemmc_module_jit", [p])
        self.module_info = _declare(lib, "gemmc_module_info",
                                    [p, ctypes.POINTER(KernelInfo)])
        self.module_variant = _declare(lib, "gemmc_module_variant",
                                       [p, ctypes.c_int,
                                        ctypes.POINTER(VariantInfo)])
        self.problem_init = _declare(lib, "gemmc_problem_init",
                                     [ctypes.POINTER(Problem), c_int64,
                                      c_int64, c_int64], None)
        self.select = _declare(lib, "gemmc_select",
                               [p, ctypes.POINTER(Problem),
                                ctypes.POINTER(ctypes.c_int)])
        self.launch = _declare(lib, "gemmc_launch",
                               [p, ctypes.POINTER(Problem), p])
        size = ctypes.c_size_t
        u64 = ctypes.c_uint64
        self.workspace_size = _declare(lib, "gemmc_workspace_size",
                                       [p, ctypes.POINTER(Problem),
                                        ctypes.POINTER(size),
                                        ctypes.POINTER(size)])
        self.launch_workspace = _declare(lib, "gemmc_launch_workspace",
                                         [p, ctypes.POINTER(Problem), p, u64,
                                          size, u64, size])
        self.plan_create = _declare(lib, "gemmc_plan_create",
                                    [p, ctypes.POINTER(Problem),
                                     ctypes.POINTER(p)])
        self.plan_workspace_size = _declare(lib, "gemmc_plan_workspace_size",
                                            [p, ctypes.POINTER(size),
                                             ctypes.POINTER(size)])
        self.plan_launch = _declare(lib, "gemmc_plan_launch",
                                    [p, u64, u64, u64, u64, p, u64, u64])
        self.plan_launch_operands = _declare(
            lib, "gemmc_plan_launch_operands",
            [p, ctypes.POINTER(Operands), p, u64, u64])
        self.family_load = _declare(lib, "gemmc_family_load",
                                    [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_char_p, ctypes.POINTER(p)])
        self.plan_destroy = _declare(lib, "gemmc_plan_destroy", [p])
        self.scaled_family_load = _declare(
            lib, "gemmc_scaled_family_load",
            [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
             ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(p)])
        self.predict = _declare(lib, "gemmc_predict",
                                [p, ctypes.POINTER(Problem),
                                 ctypes.POINTER(ctypes.c_double)])
        self.autotune = _declare(lib, "gemmc_autotune",
                                 [p, ctypes.POINTER(Problem), p,
                                  ctypes.c_int, ctypes.POINTER(ctypes.c_int)])
        self.prefer_batched = _declare(lib, "gemmc_prefer_batched",
                                       [p, p, ctypes.POINTER(Problem),
                                        ctypes.POINTER(ctypes.c_int)])
        self.batched_family_load = _declare(
            lib, "gemmc_batched_family_load",
            [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
             ctypes.POINTER(p)])
        self.grouped_problem_init = _declare(
            lib, "gemmc_grouped_problem_init",
            [ctypes.POINTER(GroupedProblem), c_int64, c_int64, c_int64,
             c_int64], None)
        self.grouped_plan_create = _declare(
            lib, "gemmc_grouped_plan_create",
            [p, ctypes.POINTER(GroupedProblem), ctypes.POINTER(p)])
        self.grouped_plan_launch = _declare(
            lib, "gemmc_grouped_plan_launch", [p, u64, u64, u64, u64, p])
        self.grouped_table_plan_create = _declare(
            lib, "gemmc_grouped_table_plan_create",
            [p, c_int64, ctypes.c_float, ctypes.c_float, ctypes.POINTER(p)])
        self.grouped_table_plan_launch = _declare(
            lib, "gemmc_grouped_table_plan_launch", [p, u64, p])
        self.grouped_table_plan_launch_rows = _declare(
            lib, "gemmc_grouped_table_plan_launch_rows", [p, p, p])
        self.grouped_family_load = _declare(
            lib, "gemmc_grouped_family_load",
            [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(p)])
        self.grouped_table_family_load = _declare(
            lib, "gemmc_grouped_table_family_load",
            [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(p)])
        self.grouped_plan_launch_operands = _declare(
            lib, "gemmc_grouped_plan_launch_operands",
            [p, ctypes.POINTER(Operands), u64, p])
        self.scaled_grouped_family_load = _declare(
            lib, "gemmc_scaled_grouped_family_load",
            [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
             ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(p)])
        self.matmul = _declare(lib, "gemmc_matmul",
                               [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                ctypes.c_int, ctypes.POINTER(Problem), p])


class Compiler:
    def __init__(self):
        lib = _load("gemmc_compiler")
        self.compile = _declare(lib, "gemmc_compile",
                                [ctypes.c_char_p, ctypes.c_char_p,
                                 ctypes.c_char_p,
                                 ctypes.POINTER(ctypes.c_void_p)])


_runtime = None
_compiler = None


def runtime():
    global _runtime
    if _runtime is None:
        _runtime = Runtime()
    return _runtime


def compiler():
    global _compiler
    runtime()  # the error state lives there
    if _compiler is None:
        _compiler = Compiler()
    return _compiler
