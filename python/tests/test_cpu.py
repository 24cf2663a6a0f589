"""gemmc's Python package without a GPU: compiling, the contract, and the
checks of the arguments against it (tensors stand in through
__cuda_array_interface__ and __dlpack_device__). unittest classes, so that
pytest and `python -m unittest` both run them."""

import ctypes
import os
import unittest
from pathlib import Path

import gemmc
from gemmc import _dlpack

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


class FakeTensor:
    """A device array as CuPy or PyTorch describe it, at a fake address."""

    def __init__(self, shape, typestr="<f4", strides=None, device=2,
                 pointer=0x7F0000000000):
        self.shape = tuple(shape)
        self._device = device
        self.__cuda_array_interface__ = {
            "shape": self.shape, "typestr": typestr,
            "data": (pointer, False), "version": 3,
            "strides": None if strides is None else
            tuple(s * int(typestr[-1]) for s in strides)}

    def __dlpack_device__(self):
        return (self._device, 0)


class CompileTest(unittest.TestCase):
    def test_compiles_a_schedule_file_and_reads_its_contract(self):
        k = gemmc.compile(EXAMPLES / "sgemm-dynamic.gemm")
        self.assertEqual(k.name, "sgemm_dynamic")
        self.assertEqual(k.sizes, (0, 0, 0))
        self.assertEqual(k.dtypes, ("float32",) * 3)
        self.assertEqual(k.layouts, ("row",) * 3)
        self.assertEqual(len(k.variants), 1)
        self.assertEqual(k.variants[0]["ld_multiple_a"], 4)
        self.assertIn("gemmc-contract-begin", k.ptx)

    def test_compiles_text_and_loads_saved_ptx(self):
        text = (EXAMPLES / "tensorcore-f16-dynamic.gemm").read_text()
        k = gemmc.compile(text, name="tc.gemm")
        self.assertEqual(k.dtypes, ("float16",) * 3)
        path = Path(os.environ.get("TMPDIR", "/tmp")) / "gemmc-test.ptx"
        k.save(path)
        again = gemmc.load(path)
        self.assertEqual(again.name, k.name)
        self.assertEqual(again.variants, k.variants)

    def test_a_family_lists_its_variants(self):
        k = gemmc.compile(ROOT / "test" / "Target" / "ptx-family.gemm")
        self.assertGreater(len(k.variants), 1)
        self.assertEqual(k.variants[-1]["max_m"], 2**63 - 1)

    def test_a_bad_schedule_raises_its_diagnostic(self):
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.compile("kernel k {\n  problem { m = 0 }\n}\n",
                          name="bad.gemm")
        self.assertEqual(e.exception.status, "GEMMC_ERROR_COMPILE")
        self.assertIn("bad.gemm:2:17: error: size 'm' must be positive",
                      str(e.exception))

    def test_an_unknown_arch(self):
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.compile(EXAMPLES / "naive.gemm", arch="sm_42")
        self.assertIn("sm_42", str(e.exception))

    def test_a_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            gemmc.compile("no-such-schedule.gemm")


class ShippedFamilyTest(unittest.TestCase):
    def test_loads_the_shipped_family_of_a_dtype_and_layouts(self):
        f = gemmc.family("bfloat16", "row", "col", arch="sm_90a")
        self.assertEqual(f.dtypes, ("bfloat16",) * 3)
        self.assertEqual(f.layouts, ("row", "col", "row"))
        self.assertGreater(len(f.variants), 1)
        self.assertEqual(f.sizes, (0, 0, 0))  # any size, at launch
        with self.assertRaisesRegex(ValueError, "family gemmc ships"):
            f.save("unused.ptx")

    def test_loads_the_tf32_family(self):
        # float32 tensors multiplied in tf32: its own family, whose kernels
        # take f32 (its contract says so) and differ from float32's.
        for layouts in (("row", "row"), ("row", "col")):
            t = gemmc.family("tf32", *layouts, arch="sm_90a")
            f = gemmc.family("float32", *layouts, arch="sm_90a")
            self.assertEqual(t.dtypes, ("float32",) * 3)
            self.assertGreater(len(t.variants), 1)
            self.assertNotEqual(t.variants, f.variants)
            self.assertTrue(t.name.startswith("tf32_"), t.name)

    def test_loads_the_shipped_grouped_kernel(self):
        g = gemmc.grouped_family("bfloat16", "col", arch="sm_90a")
        self.assertTrue(g.grouped)
        self.assertEqual(g.layouts, ("row", "col", "row"))
        self.assertFalse(g.group_table)
        self.assertFalse(gemmc.family("bfloat16", arch="sm_90a").grouped)
        with self.assertRaisesRegex(TypeError, "float16 and bfloat16"):
            gemmc.grouped_family("float32")
        # The general form's: f16 and bf16, B either way.
        for dtype in ("float16", "bfloat16"):
            for b in ("row", "col"):
                t = gemmc.grouped_family(dtype, b, arch="sm_90a",
                                         ptr_array=True)
                self.assertTrue(t.grouped and t.group_table)
                self.assertEqual(t.layouts, ("row", b, "row"))
                self.assertEqual(t.dtypes, (dtype,) * 3)

    def test_loads_the_shipped_grouped_fp8_kernels(self):
        # torch._scaled_grouped_mm's: e4m3 into bf16, B's scales a group.
        for scales in ("tensor", "rowwise"):
            for fast in (False, True):
                g = gemmc.scaled_grouped_family(scales, fast, arch="sm_90a")
                self.assertTrue(g.grouped)
                self.assertEqual(g.dtypes, ("float8_e4m3fn", "float8_e4m3fn",
                                            "bfloat16"))
                self.assertEqual(g.layouts, ("row", "col", "row"))
                self.assertEqual(g.scales, scales)
                self.assertEqual(g.name.endswith("_fast_grouped"), fast)
        with self.assertRaisesRegex(ValueError, "'tensor' or 'rowwise'"):
            gemmc.scaled_grouped_family("block")

    def test_loads_the_shipped_fp8_families(self):
        # torch._scaled_mm's products: A row-major, B column-major, each
        # pair of FP8 types but e5m2 x e5m2, three result types, two kinds
        # of scales, promoted or fast sums.
        fp8 = ("float8_e4m3fn", "float8_e5m2")
        for a in fp8:
            for b in fp8:
                if a == b == "float8_e5m2":
                    with self.assertRaises(gemmc.GemmcError):
                        gemmc.scaled_family(a, b, "bfloat16", arch="sm_90a")
                    continue
                for out in ("bfloat16", "float16", "float32"):
                    for scales in ("tensor", "rowwise"):
                        f = gemmc.scaled_family(a, b, out, scales, True,
                                                arch="sm_90a")
                        self.assertEqual(f.dtypes, (a, b, out))
                        self.assertEqual(f.layouts, ("row", "col", "row"))
                        self.assertEqual(f.scales, scales)
                        self.assertTrue(f.name.endswith("_fast"), f.name)
        f = gemmc.scaled_family(*fp8, "float32", "rowwise", arch="sm_90a")
        self.assertEqual(f.name, "fp8_e4m3_e5m2_f32_rowwise")
        self.assertGreater(len(f.variants), 1)
        with self.assertRaisesRegex(TypeError, "float8_e5m2 operands, not "
                                    "float16"):
            gemmc.scaled_family("float16", "float8_e4m3fn", "bfloat16")
        with self.assertRaisesRegex(TypeError, "bfloat16, float16, "
                                    "float32 or float8_e4m3fn, not "
                                    "float8_e5m2"):
            gemmc.scaled_family(*fp8, "float8_e5m2")
        # An FP8 result: e4m3 x e4m3 per tensor, C's scale taken.
        for fast in (False, True):
            f = gemmc.scaled_family(fp8[0], fp8[0], "float8_e4m3fn",
                                    fast_accumulate=fast, arch="sm_90a")
            self.assertEqual(f.dtypes, (fp8[0], fp8[0], "float8_e4m3fn"))
            self.assertTrue(f.output_scale)
            self.assertGreater(len(f.variants), 1)
        self.assertFalse(f.amax)
        self.assertFalse(gemmc.scaled_family(fp8[0], fp8[0], "bfloat16",
                                             arch="sm_90a").output_scale)
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.scaled_family(*fp8, "float8_e4m3fn", arch="sm_90a")
        self.assertIn("into E4M3 are E4M3 x E4M3", str(e.exception))
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.scaled_family(fp8[0], fp8[0], "float8_e4m3fn", "rowwise",
                                arch="sm_90a")
        self.assertIn("per-tensor scales and no bias", str(e.exception))
        with self.assertRaisesRegex(ValueError, "'tensor' or 'rowwise'"):
            gemmc.scaled_family(*fp8, "bfloat16", "block")
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.scaled_family(*fp8, "bfloat16", arch="sm_80")
        self.assertIn("sm_90a's", str(e.exception))
        # torch's bias: e4m3 x e4m3 into bfloat16 or float16.
        for out in ("bfloat16", "float16"):
            for scales in ("tensor", "rowwise"):
                for fast in (False, True):
                    f = gemmc.scaled_family(fp8[0], fp8[0], out, scales, fast,
                                            arch="sm_90a", bias="col")
                    self.assertEqual(f.bias, "col")
                    self.assertTrue(f.name.endswith("_bias"), f.name)
        self.assertIsNone(gemmc.scaled_family(fp8[0], fp8[0], "bfloat16",
                                              arch="sm_90a").bias)
        with self.assertRaisesRegex(ValueError, "bias='col'"):
            gemmc.scaled_family(*fp8, "bfloat16", bias="row")
        for types in ((fp8[0], fp8[1], "bfloat16"),
                      (fp8[0], fp8[0], "float32")):
            with self.assertRaises(gemmc.GemmcError) as e:
                gemmc.scaled_family(*types, arch="sm_90a", bias="col")
            self.assertIn("E4M3 x E4M3 into bf16 or f16", str(e.exception))

    def test_refuses_what_no_family_covers(self):
        with self.assertRaisesRegex(TypeError, "float32, tf32, float16"):
            gemmc.family("int8")
        with self.assertRaisesRegex(ValueError, "'row' or 'col'"):
            gemmc.family("float16", "diagonal")
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.family("float16", arch="sm_70")
        self.assertEqual(e.exception.status, "GEMMC_ERROR_INVALID_ARGUMENT")


class ContractTest(unittest.TestCase):
    def test_a_newer_contract_is_refused(self):
        ptx = gemmc.compile(EXAMPLES / "naive.gemm").ptx
        newer = ptx.replace("gemmc-contract-begin v", "gemmc-contract-begin v9", 1)
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.load(newer)
        self.assertEqual(e.exception.status, "GEMMC_ERROR_CONTRACT")
        self.assertIn("version", str(e.exception))

    def test_ptx_without_a_contract(self):
        with self.assertRaises(gemmc.GemmcError) as e:
            gemmc.Kernel("// gemmc-contract-begin v1\n// gemmc-contract-end\n")
        self.assertEqual(e.exception.status, "GEMMC_ERROR_CONTRACT")


class FakeDLPackTensor:
    """A device array exported only through DLPack (as JAX's, or PyTorch's
    bfloat16 tensors), at a fake address; it records the streams it was
    exported for."""

    _new_capsule = ctypes.pythonapi.PyCapsule_New
    _new_capsule.restype = ctypes.py_object
    _new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                             ctypes.c_void_p]

    def __init__(self, shape, code=2, bits=32, strides=None, device=2,
                 pointer=0x7F0000000000, byte_offset=0, name=b"dltensor"):
        self.shape, self.name, self.streams = tuple(shape), name, []
        n = len(shape)
        self._shape = (ctypes.c_int64 * n)(*shape)
        self._strides = None if strides is None else \
            (ctypes.c_int64 * n)(*strides)
        self._managed = _dlpack.DLManagedTensor()
        t = self._managed.dl_tensor
        t.data, t.ndim, t.byte_offset = pointer, n, byte_offset
        t.device = _dlpack.DLDevice(device, 0)
        t.dtype = _dlpack.DLDataType(code, bits, 1)
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        if self._strides is not None:
            t.strides = ctypes.cast(self._strides,
                                    ctypes.POINTER(ctypes.c_int64))

    def __dlpack_device__(self):
        return (self._managed.dl_tensor.device.device_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self._new_capsule(ctypes.addressof(self._managed), self.name,
                                 None)


class DLPackTest(unittest.TestCase):
    def test_reads_the_tensor_for_the_stream(self):
        t = FakeDLPackTensor((64, 32), strides=(40, 1), byte_offset=256)
        op = gemmc._Operand("A", t, 0x1234)
        self.assertEqual((op.pointer, op.dtype, op.shape, op.strides),
                         (0x7F0000000100, "float32", (64, 32), (40, 1)))
        self.assertEqual(t.streams, [0x1234])
        # No strides: compact row-major; the null stream is DLPack's 1.
        t = FakeDLPackTensor((2, 3, 5), code=4, bits=16)
        op = gemmc._Operand("B", t, 0)
        self.assertEqual((op.dtype, op.strides), ("bfloat16", (15, 5, 1)))
        self.assertEqual(t.streams, [1])

    def test_type_names(self):
        def dtype(code, bits):
            t = FakeDLPackTensor((4, 4), code=code, bits=bits)
            return gemmc._Operand("A", t, 0).dtype
        self.assertEqual(dtype(2, 16), "float16")
        self.assertEqual(dtype(2, 64), "float64")
        self.assertEqual(dtype(0, 8), "int8")
        self.assertIn("code 3, 8 bits", dtype(3, 8))  # kDLOpaqueHandle
        self.assertEqual(dtype(10, 8), "float8_e4m3fn")
        self.assertEqual(dtype(12, 8), "float8_e5m2")
        self.assertIn("code 11, 8 bits", dtype(11, 8))  # e4m3fnuz

    def test_a_consumed_capsule(self):
        with self.assertRaises(TypeError) as e:
            gemmc._Operand("A", FakeDLPackTensor((4, 4),
                                                 name=b"used_dltensor"), 0)
        self.assertIn("did not return a 'dltensor' capsule",
                      str(e.exception))

    def test_a_tensor_that_cannot_be_exported(self):
        class RequiresGrad(FakeDLPackTensor):
            def __dlpack__(self, stream=None):
                raise RuntimeError("Can't export tensors that require "
                                   "gradient, use tensor.detach()")
        with self.assertRaises(TypeError) as e:
            gemmc._Operand("B", RequiresGrad((4, 4)), 0)
        self.assertIn("B cannot be exported through DLPack: Can't export",
                      str(e.exception))


class EpilogueOperandTest(unittest.TestCase):
    """R and the scales a kernel's contract asks for, checked before any
    launch (select needs no GPU)."""

    @classmethod
    def setUpClass(cls):
        # C = relu(alpha * A * B + beta * C + bias[row]) + R.
        cls.fused = gemmc.compile(EXAMPLES / "sgemm-fused-epilogue.gemm")
        # C = alpha * scale_a * scale_b * A * B + beta * C + R.
        cls.scaled = gemmc.compile(ROOT / "benchmarks" / "epilogue" /
                                   "s_simt.gemm")

    def ops(self):
        return FakeTensor((64, 32)), FakeTensor((32, 128)), \
            FakeTensor((64, 128))

    def test_the_contract_names_r_and_the_scales(self):
        self.assertTrue(self.fused.residual)
        self.assertIsNone(self.fused.scales)
        self.assertTrue(self.scaled.residual)
        self.assertEqual(self.scaled.scales, "tensor")

    def test_r_of_out_s_shape_selects(self):
        a, b, c = self.ops()
        self.assertEqual(self.fused.select(a, b, c, bias=FakeTensor((64,)),
                                           residual=FakeTensor((64, 128))), 0)

    def test_r_missing_or_misshapen(self):
        a, b, c = self.ops()
        with self.assertRaises(ValueError) as e:
            self.fused.select(a, b, c, bias=FakeTensor((64,)))
        self.assertIn("the kernel adds R: pass residual=", str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.fused.select(a, b, c, bias=FakeTensor((64,)),
                              residual=FakeTensor((64, 127)))
        self.assertIn("residual must be float32 of out's shape",
                      str(e.exception))

    def test_scales(self):
        a, b, c = self.ops()
        r = FakeTensor((64, 128))
        self.assertEqual(self.scaled.select(a, b, c, residual=r,
                                            scale_a=FakeTensor((1,)),
                                            scale_b=FakeTensor((1,))), 0)
        with self.assertRaises(ValueError) as e:
            self.scaled.select(a, b, c, residual=r)
        self.assertIn("pass scale_a= and scale_b=", str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.scaled.select(a, b, c, residual=r, scale_a=FakeTensor((2,)),
                               scale_b=FakeTensor((1,)))
        self.assertIn("scale_a must be 1 contiguous float32 values",
                      str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.fused.select(a, b, c, bias=FakeTensor((64,)), residual=r,
                              scale_a=FakeTensor((1,)),
                              scale_b=FakeTensor((1,)))
        self.assertIn("the kernel takes no scales", str(e.exception))


class AmaxOperandTest(unittest.TestCase):
    """The amax a kernel writes (`amax = c`): one float32, checked before
    any launch (select needs no GPU)."""

    @classmethod
    def setUpClass(cls):
        cls.amax = gemmc.compile(EXAMPLES / "hopper-fp8-amax.gemm",
                                 arch="sm_90a")
        cls.plain = gemmc.compile(EXAMPLES / "hopper-fp8-dynamic.gemm",
                                  arch="sm_90a")

    def test_the_contract_names_the_amax(self):
        self.assertTrue(self.amax.amax)
        self.assertFalse(self.plain.amax)

    def test_amax_required_and_one_float32(self):
        a = FakeDLPackTensor((128, 256), code=10, bits=8)
        b = FakeDLPackTensor((256, 64), code=10, bits=8, strides=(1, 256))
        c = FakeDLPackTensor((128, 64), code=4, bits=16)
        s = FakeTensor((1,))
        self.assertEqual(self.amax.select(a, b, c, scale_a=s, scale_b=s,
                                          amax=FakeTensor((1,))), 0)
        with self.assertRaises(ValueError) as e:
            self.amax.select(a, b, c, scale_a=s, scale_b=s)
        self.assertIn("the kernel writes the amax of C: pass amax=",
                      str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.amax.select(a, b, c, scale_a=s, scale_b=s,
                             amax=FakeTensor((2,)))
        self.assertIn("amax must be one float32 value", str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.amax.select(a, b, c, scale_a=s, scale_b=s,
                             amax=FakeDLPackTensor((1,), code=4, bits=16))
        self.assertIn("amax must be one float32 value", str(e.exception))


class OutputScaleOperandTest(unittest.TestCase):
    """C's scale (`output-scale = tensor`): one float32, checked before any
    launch (select needs no GPU)."""

    @classmethod
    def setUpClass(cls):
        cls.scaled = gemmc.compile(EXAMPLES / "hopper-fp8-out.gemm",
                                   arch="sm_90a")

    def test_scale_c_required_and_one_float32(self):
        self.assertTrue(self.scaled.output_scale)
        self.assertTrue(self.scaled.amax)
        a = FakeDLPackTensor((128, 256), code=10, bits=8)
        b = FakeDLPackTensor((256, 64), code=10, bits=8, strides=(1, 256))
        c = FakeDLPackTensor((128, 64), code=10, bits=8)
        s = FakeTensor((1,))
        self.assertEqual(self.scaled.select(a, b, c, scale_a=s, scale_b=s,
                                            amax=FakeTensor((1,)),
                                            scale_c=FakeTensor((1,))), 0)
        with self.assertRaises(ValueError) as e:
            self.scaled.select(a, b, c, scale_a=s, scale_b=s,
                               amax=FakeTensor((1,)))
        self.assertIn("the kernel multiplies C by its scale: pass scale_c=",
                      str(e.exception))
        with self.assertRaises(ValueError) as e:
            self.scaled.select(a, b, c, scale_a=s, scale_b=s,
                               amax=FakeTensor((1,)),
                               scale_c=FakeTensor((2,)))
        self.assertIn("scale_c must be one float32 value", str(e.exception))
        plain = gemmc.compile(EXAMPLES / "hopper-fp8-amax.gemm",
                              arch="sm_90a")
        c16 = FakeDLPackTensor((128, 64), code=4, bits=16)
        with self.assertRaises(ValueError) as e:
            plain.select(a, b, c16, scale_a=s, scale_b=s,
                         amax=FakeTensor((1,)), scale_c=FakeTensor((1,)))
        self.assertIn("the kernel takes no scale of C, but scale_c= was "
                      "given", str(e.exception))


class FP8OperandTest(unittest.TestCase):
    """FP8 kernels through the C API: their types named as torch names
    them (DLPack's float8 codes), their scales counted as the contract
    says, checked before any launch."""

    @classmethod
    def setUpClass(cls):
        # e4m3 A (row-major) x e5m2 B (column-major) -> f16, rowwise scales.
        cls.rowwise = gemmc.compile(EXAMPLES / "hopper-fp8-dynamic.gemm",
                                    arch="sm_90a")
        # e4m3 x e4m3 -> bf16, DeepSeek-V3's block scales.
        cls.block = gemmc.compile(EXAMPLES / "hopper-fp8-block.gemm",
                                  arch="sm_90a")

    @staticmethod
    def ops(m, n, k, b_code, c_code=2, c_bits=16):
        return (FakeDLPackTensor((m, k), code=10, bits=8),
                FakeDLPackTensor((k, n), code=b_code, bits=8,
                                 strides=(1, k)),
                FakeDLPackTensor((m, n), code=c_code, bits=c_bits))

    def test_the_contract_names_the_fp8_types(self):
        self.assertEqual(self.rowwise.dtypes,
                         ("float8_e4m3fn", "float8_e5m2", "float16"))
        self.assertEqual(self.rowwise.scales, "rowwise")
        self.assertEqual(self.block.dtypes,
                         ("float8_e4m3fn", "float8_e4m3fn", "bfloat16"))
        self.assertEqual(self.block.scales, "block")

    def test_rowwise_scales_select(self):
        a, b, c = self.ops(128, 256, 512, b_code=12)
        self.assertEqual(self.rowwise.select(
            a, b, c, scale_a=FakeTensor((128, 1)),
            scale_b=FakeTensor((1, 256))), 0)
        with self.assertRaises(TypeError) as e:
            a, b, c = self.ops(128, 256, 512, b_code=10)
            self.rowwise.select(a, b, c, scale_a=FakeTensor((128,)),
                                scale_b=FakeTensor((256,)))
        self.assertIn("B is float8_e4m3fn, but the kernel takes float8_e5m2",
                      str(e.exception))

    def test_block_scales_are_counted_by_block(self):
        # A's 1 x 128 blocks: 200 x ceil(320/128); B's 128 x 128: ceil(
        # 384/128) x ceil(320/128).
        a, b, c = self.ops(200, 384, 320, b_code=10, c_code=4)
        self.assertEqual(self.block.select(
            a, b, c, scale_a=FakeTensor((200 * 3,)),
            scale_b=FakeTensor((3 * 3,))), 0)
        with self.assertRaises(ValueError) as e:
            self.block.select(a, b, c, scale_a=FakeTensor((200,)),
                              scale_b=FakeTensor((9,)))
        self.assertIn("scale_a must be 600 contiguous float32 values",
                      str(e.exception))


class ArgumentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.k = gemmc.compile(EXAMPLES / "sgemm-dynamic.gemm")

    def check(self, error, text, *args, **kwargs):
        with self.assertRaises(error) as e:
            self.k.select(*args, **kwargs)
        self.assertIn(text, str(e.exception))

    def test_a_valid_problem_selects_the_kernel(self):
        a, b, c = FakeTensor((64, 32)), FakeTensor((32, 128)), \
            FakeTensor((64, 128))
        self.assertEqual(self.k.select(a, b, c), 0)

    def test_autotune_checks_its_count(self):
        # The measured choice's count of candidates, checked before any
        # GPU is needed: by the C API for a Kernel, and by the Python
        # helper of set_autotune and $GEMMC_AUTOTUNE.
        a, b, c = FakeTensor((64, 32)), FakeTensor((32, 128)), \
            FakeTensor((64, 128))
        with self.assertRaises(gemmc.GemmcError) as e:
            self.k.autotune(a, b, c, candidates=0)
        self.assertIn("candidates must be 1 or more, got 0", str(e.exception))
        self.assertEqual(gemmc._autotune_count("4", "x"), 4)
        self.assertEqual(gemmc._autotune_count(True, "x"), 3)
        self.assertEqual(gemmc._autotune_count(False, "x"), 0)
        for bad in (-1, "three", None):
            with self.assertRaises(ValueError) as e:
                gemmc._autotune_count(bad, "$GEMMC_AUTOTUNE must be")
            self.assertIn("$GEMMC_AUTOTUNE must be a count of candidates",
                          str(e.exception))

    def test_wrong_dtype(self):
        self.check(TypeError, "A is float16, but the kernel takes float32",
                   FakeTensor((64, 32), "<f2"), FakeTensor((32, 64)),
                   FakeTensor((64, 64)))

    def test_cpu_tensor(self):
        self.check(ValueError, "B is not on a CUDA device",
                   FakeTensor((64, 32)), FakeTensor((32, 64), device=1),
                   FakeTensor((64, 64)))

    def test_mismatched_sizes(self):
        self.check(ValueError, "sizes do not match: A is 64x32, B is 33x64",
                   FakeTensor((64, 32)), FakeTensor((33, 64)),
                   FakeTensor((64, 64)))
        self.check(ValueError, "out has shape (64, 63)",
                   FakeTensor((64, 32)), FakeTensor((32, 64)),
                   FakeTensor((64, 63)))

    def test_non_contiguous(self):
        # A transposed view: strides (1, 64) for a row-major kernel.
        self.check(ValueError, "A has strides (1, 64)",
                   FakeTensor((64, 32), strides=(1, 64)),
                   FakeTensor((32, 64)), FakeTensor((64, 64)))

    def test_a_leading_dimension_the_kernel_refuses(self):
        # Rows 66 apart: sgemm-dynamic loads 4-wide, so ld must be a
        # multiple of 4; the C API says why.
        with self.assertRaises(gemmc.GemmcError) as e:
            self.k.select(FakeTensor((64, 32), strides=(66, 1)),
                          FakeTensor((32, 64)), FakeTensor((64, 64)))
        self.assertEqual(e.exception.status,
                         "GEMMC_ERROR_UNSUPPORTED_PROBLEM")
        self.assertIn("multiple of 4", str(e.exception))

    def test_dlpack_tensors(self):
        self.assertEqual(self.k.select(FakeDLPackTensor((64, 32)),
                                       FakeDLPackTensor((32, 128)),
                                       FakeTensor((64, 128))), 0)
        self.check(TypeError, "A is bfloat16, but the kernel takes float32",
                   FakeDLPackTensor((64, 32), code=4, bits=16),
                   FakeTensor((32, 64)), FakeTensor((64, 64)))
        self.check(ValueError, "B is not on a CUDA device (DLPack device "
                   "type 1)", FakeTensor((64, 32)),
                   FakeDLPackTensor((32, 64), device=1),
                   FakeTensor((64, 64)))
        self.check(ValueError, "A has strides (1, 64)",
                   FakeDLPackTensor((64, 32), strides=(1, 64)),
                   FakeTensor((32, 64)), FakeTensor((64, 64)))

    def test_a_batch_for_a_single_gemm_kernel(self):
        self.check(ValueError, "not a batch",
                   FakeTensor((2, 64, 32)), FakeTensor((2, 32, 64)),
                   FakeTensor((2, 64, 64)))

    def test_not_an_array(self):
        self.check(TypeError, "A is not a CUDA array", object(),
                   FakeTensor((32, 64)), FakeTensor((64, 64)))

    def test_out_is_needed_for_other_libraries(self):
        self.check(TypeError, "pass out=", FakeTensor((64, 32)),
                   FakeTensor((32, 64)))

    def test_a_bias_the_kernel_does_not_add(self):
        self.check(ValueError, "adds no bias", FakeTensor((64, 32)),
                   FakeTensor((32, 64)), FakeTensor((64, 64)),
                   bias=FakeTensor((64,)))

    def test_a_closed_kernel(self):
        k = gemmc.compile(EXAMPLES / "naive.gemm")
        k.close()
        with self.assertRaises(gemmc.GemmcError) as e:
            k.select(FakeTensor((1024, 1024)), FakeTensor((1024, 1024)),
                     FakeTensor((1024, 1024)))
        self.assertEqual(e.exception.status, "GEMMC_ERROR_INVALID_HANDLE")
        with self.assertRaises(gemmc.GemmcError):
            k.close()


if __name__ == "__main__":
    unittest.main()
