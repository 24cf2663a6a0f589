"""gemmc's Python package on a GPU with PyTorch and CuPy: kernels run on
torch tensors and CuPy arrays, on their libraries' streams, beside
torch.matmul / fp64. Skipped without torch (CuPy) or a GPU. The kernels
are compiled here, or, where gemmc's compiler cannot load (a GPU machine
without LLVM), loaded from $GEMMC_PTX_DIR: NAME.ptx for examples/NAME.gemm
or tests/kernels/NAME.gemm, compiled beforehand (docs/library.md)."""

import os
import unittest
from pathlib import Path

import gemmc

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # not installed, or no GPU/driver
    HAVE_CUPY = False

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Kernels of these tests alone (not examples): kernels/NAME.gemm.
KERNELS = Path(__file__).resolve().parent / "kernels"


def kernel(name, folder=EXAMPLES):
    ptx_dir = os.environ.get("GEMMC_PTX_DIR")
    if ptx_dir:
        return gemmc.load(Path(ptx_dir) / f"{name}.ptx")
    return gemmc.compile(folder / f"{name}.gemm")


def fp8_scales(m, n, rowwise):
    """torch._scaled_mm's scale_a and scale_b: M x 1 and 1 x N in [0.5,
    1.5) where rowwise, else one each."""
    if rowwise:
        return (torch.rand(m, 1, device="cuda") + 0.5,
                torch.rand(1, n, device="cuda") + 0.5)
    return (torch.tensor([0.75], device="cuda"),
            torch.tensor([1.25], device="cuda"))


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a GPU")
class TorchTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        torch.backends.cuda.matmul.allow_tf32 = False

    def assertMatches(self, c, ref, tol):
        self.assertFalse(torch.isnan(c).any().item(), "C has NaNs")
        err = ((c.double() - ref.double()).norm() / ref.double().norm()).item()
        self.assertLess(err, tol)
        return err

    def test_f32_on_our_stream(self):
        k = kernel("sgemm-dynamic")
        a = torch.randn(1000, 520, device="cuda")
        b = torch.randn(520, 776, device="cuda")
        c = torch.full((1000, 776), float("nan"), device="cuda")
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            k(a, b, out=c)  # torch's current stream: ours
            stream.synchronize()
        self.assertMatches(c, a @ b, 1e-5)
        # An explicit stream, and C allocated by gemmc.
        c2 = k(a, b, stream=stream)
        stream.synchronize()
        self.assertTrue(torch.equal(c, c2))

    def test_f16_tensor_cores(self):
        k = kernel("tensorcore-f16-dynamic")
        a = torch.randn(512, 1024, device="cuda", dtype=torch.float16)
        b = torch.randn(1024, 768, device="cuda", dtype=torch.float16)
        c = k(a, b)
        torch.cuda.synchronize()
        self.assertMatches(c, a.float() @ b.float(), 2e-3)

    def test_tf32_with_a_row_major_b(self):
        # x @ W with W row-major in tf32: the transposed problem, whose A
        # (W^T) wgmma takes from registers (hopper-tf32-registers.gemm),
        # at sizes that leave partial tiles and several k tiles.
        k = kernel("hopper-tf32-registers")
        for m, n, kk in [(1000, 776, 520), (64, 256, 96), (3, 4096, 4096)]:
            a = torch.randn(m, kk, device="cuda")
            b = torch.randn(kk, n, device="cuda")
            c = k(a, b)
            torch.cuda.synchronize()
            # tf32's 10-bit mantissa: about 2^-11 relative a product.
            self.assertMatches(c, a.double() @ b.double(), 2e-3)

    def test_fused_epilogue_with_residual(self):
        # The Hopper example: C = gelu_tanh(alpha A B + beta C + bias[col])
        # + R, B column-major (x @ W.T), odd sizes.
        if torch.cuda.get_device_capability() < (9, 0):
            self.skipTest("the example is sm_90a's")
        k = kernel("hopper-fused-epilogue")
        self.assertTrue(k.residual)
        m, n, kk = 1000, 776, 520
        bf16 = torch.bfloat16
        a = torch.randn(m, kk, device="cuda", dtype=bf16)
        w = torch.randn(n, kk, device="cuda", dtype=bf16)
        c0 = torch.randn(m, n, device="cuda", dtype=bf16)
        bias = torch.randn(n, device="cuda", dtype=bf16)
        r = torch.randn(m, n, device="cuda", dtype=bf16)
        c = c0.clone()
        k(a, w.t(), out=c, alpha=0.5, beta=0.25, bias=bias, residual=r)
        # Through its plan (the bias and R too), on the same inputs.
        again = c0.clone()
        k(a, w.t(), out=again, alpha=0.5, beta=0.25, bias=bias, residual=r)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(c, again))
        x = 0.5 * (a.double() @ w.double().t()) + 0.25 * c0.double() + \
            bias.double()
        ref = torch.nn.functional.gelu(x, approximate="tanh") + r.double()
        self.assertMatches(c, ref, 1e-2)
        # R must be out's shape and type.
        with self.assertRaises(ValueError):
            k(a, w.t(), out=c, bias=bias, residual=r[:, :-1])

    def test_fp8_result_with_its_scale_and_amax(self):
        # examples/hopper-fp8-out.gemm: e4m3 x e4m3 -> e4m3, per-tensor
        # scales, each value times C's scale before its saturating cast,
        # and the amax of the values before that scale.
        if torch.cuda.get_device_capability() < (9, 0):
            self.skipTest("the example is sm_90a's")
        k = kernel("hopper-fp8-out")
        self.assertTrue(k.output_scale)
        self.assertTrue(k.amax)
        m, n, kk = 1000, 768, 512
        e4m3 = torch.float8_e4m3fn
        a = torch.randn(m, kk, device="cuda").to(e4m3)
        w = torch.randn(n, kk, device="cuda").to(e4m3)
        sa = torch.tensor([0.5], device="cuda")
        sb = torch.tensor([0.25], device="cuda")
        for scale in (0.5, 64.0):  # 64: many values saturate
            sc = torch.tensor([scale], device="cuda")
            amax = torch.full((1,), float("nan"), device="cuda")
            c = k(a, w.t(), scale_a=sa, scale_b=sb, amax=amax, scale_c=sc)
            torch.cuda.synchronize()
            exact = 0.125 * (a.double() @ w.double().t())
            largest = exact.abs().max().item()
            self.assertLess(abs(amax.item() - largest), 1e-4 * largest)
            self.assertMatches(c.float(),
                               (exact * scale).clamp(-448, 448), 0.06)
            # The amax times the scale, cast (saturated, as the kernel's
            # cast; torch's makes a NaN past 448), is C's largest magnitude.
            self.assertEqual((amax * sc).clamp(max=448).to(e4m3).float()
                             .item(), c.float().abs().max().item())

    def test_amax_of_an_fp8_product(self):
        # examples/hopper-fp8-amax.gemm: e4m3 x e4m3 -> bf16, per-tensor
        # scales, and max |C| taken before the cast to bf16, which the call
        # zeroes first (a NaN left there would stay: its bits pass every
        # magnitude's).
        if torch.cuda.get_device_capability() < (9, 0):
            self.skipTest("the example is sm_90a's")
        k = kernel("hopper-fp8-amax")
        self.assertTrue(k.amax)
        m, n, kk = 1000, 776, 512
        e4m3 = torch.float8_e4m3fn
        a = (4 * torch.randn(m, kk, device="cuda")).to(e4m3)
        w = (4 * torch.randn(n, kk, device="cuda")).to(e4m3)
        sa = torch.tensor([0.5], device="cuda")
        sb = torch.tensor([0.25], device="cuda")
        amax = torch.full((1,), float("nan"), device="cuda")
        c = k(a, w.t(), scale_a=sa, scale_b=sb, amax=amax)
        # Through its plan, on the same inputs.
        again = torch.full((1,), float("nan"), device="cuda")
        k(a, w.t(), scale_a=sa, scale_b=sb, amax=again)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(amax, again))
        # The cast is monotonic: the amax rounds to C's largest magnitude.
        self.assertEqual(amax.to(torch.bfloat16).item(),
                         c.abs().max().item())
        ref = 0.125 * (a.double() @ w.double().t())
        largest = ref.abs().max().item()
        self.assertLess(abs(amax.item() - largest), 1e-4 * largest)
        # In a CUDA graph each replay zeroes it first.
        graph = torch.cuda.CUDAGraph()
        replayed = torch.zeros(1, device="cuda")
        with torch.cuda.graph(graph):
            k(a, w.t(), scale_a=sa, scale_b=sb, amax=replayed)
        replayed.fill_(1e30)
        graph.replay()
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(replayed, amax))
        # Without one the call is refused before any launch.
        with self.assertRaises(ValueError):
            k(a, w.t(), scale_a=sa, scale_b=sb)

    def test_row_and_column_scales(self):
        # C = diag(scale_a) A B diag(scale_b), as torch._scaled_mm's rowwise
        # scales are given: M x 1 and 1 x N.
        k = kernel("tensorcore-f16-rowwise", KERNELS)
        self.assertEqual(k.scales, "rowwise")
        m, n, kk = 333, 520, 200
        a = torch.randn(m, kk, device="cuda", dtype=torch.float16)
        b = torch.randn(kk, n, device="cuda", dtype=torch.float16)
        sa = torch.rand(m, 1, device="cuda") + 0.5
        sb = torch.rand(1, n, device="cuda") + 0.5
        c = k(a, b, scale_a=sa, scale_b=sb)
        torch.cuda.synchronize()
        ref = sa.double() * (a.double() @ b.double()) * sb.double()
        self.assertMatches(c, ref, 2e-3)
        with self.assertRaises(ValueError):
            k(a, b, scale_a=sa[:-1], scale_b=sb)

    def test_fp8_rowwise_as_torch_scaled_mm(self):
        # e4m3 A x e5m2 B (column-major, as torch._scaled_mm takes B) -> f16
        # with per-row and per-column scales (M x 1 and 1 x N), FP8 read
        # through DLPack; against the dequantised operands in fp64.
        if torch.cuda.get_device_capability() < (9, 0):
            self.skipTest("the example is sm_90a's")
        k = kernel("hopper-fp8-dynamic")
        self.assertEqual(k.dtypes,
                         ("float8_e4m3fn", "float8_e5m2", "float16"))
        m, n, kk = 1000, 776, 512
        a = torch.randn(m, kk, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, kk, device="cuda").to(torch.float8_e5m2).t()
        sa = torch.rand(m, 1, device="cuda") + 0.5
        sb = torch.rand(1, n, device="cuda") + 0.5
        c = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.float16)
        k(a, b, out=c, scale_a=sa, scale_b=sb)
        torch.cuda.synchronize()
        ref = sa.double() * (a.double() @ b.double()) * sb.double()
        self.assertMatches(c, ref, 5e-3)
        # Again, through the plan the first call made: the scales too.
        c2 = k(a, b, scale_a=sa, scale_b=sb)
        c3 = k(a, b, scale_a=sa, scale_b=sb)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(c, c3))
        self.assertTrue(torch.equal(c2, c3))

    def test_scaled_mm_as_torch_scaled_mm(self):
        # gemmc.scaled_mm on the shipped FP8 families: each pair of types
        # torch takes, into bf16, f16 and f32, per tensor and rowwise,
        # promoted and fast sums, against fp64 of the dequantised operands
        # (and torch._scaled_mm where it computes the same); an N that TMA
        # cannot store C at runs on the catch-all.
        if torch.cuda.get_device_capability() != (9, 0):
            self.skipTest("the FP8 families are sm_90a's")
        e4, e5 = torch.float8_e4m3fn, torch.float8_e5m2
        for m, n, kk in ((1000, 528, 512), (77, 1004, 4096)):
            for ta, tb in ((e4, e4), (e4, e5), (e5, e4)):
                a = torch.randn(m, kk, device="cuda").to(ta)
                b = torch.randn(n, kk, device="cuda").to(tb).t()
                exact = a.double() @ b.double()
                for rowwise in (False, True):
                    sa, sb = fp8_scales(m, n, rowwise)
                    ref = sa.double() * exact * sb.double()
                    for out in (torch.bfloat16, torch.float16, torch.float32):
                        for fast in (False, True):
                            c = gemmc.scaled_mm(a, b, sa, sb, out_dtype=out,
                                                use_fast_accum=fast)
                            torch.cuda.synchronize()
                            self.assertEqual(c.dtype, out)
                            self.assertMatches(c, ref, 1e-2)
        # Beside torch._scaled_mm on its own terms: bit for bit per tensor
        # into bf16 (as hopper-fp8.gemm at 8192^3, fp8-torch.py).
        a = torch.randn(512, 1024, device="cuda").to(e4)
        b = torch.randn(768, 1024, device="cuda").to(e4).t()
        sa = torch.tensor([0.75], device="cuda")
        sb = torch.tensor([1.25], device="cuda")
        ours = gemmc.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
        theirs = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb,
                                  out_dtype=torch.bfloat16)
        self.assertMatches(ours, theirs.double(), 1e-2)
        out = torch.empty(512, 768, device="cuda", dtype=torch.bfloat16)
        self.assertIs(gemmc.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16,
                                      out=out), out)
        empty = gemmc.scaled_mm(a[:0], b, sa, sb, out_dtype=torch.bfloat16)
        self.assertEqual(tuple(empty.shape), (0, 768))
        # torch's default out_dtype, A's: an FP8 result.
        self.assertEqual(gemmc.scaled_mm(a, b, sa, sb).dtype,
                         torch.float8_e4m3fn)
        # Misuse, refused with the reason.
        with self.assertRaisesRegex(TypeError, "or float8_e4m3fn, not"):
            gemmc.scaled_mm(a.float().to(torch.float8_e5m2), b, sa, sb)
        with self.assertRaisesRegex(ValueError, "scales an FP8 result"):
            gemmc.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16,
                            scale_result=sa)
        with self.assertRaisesRegex(ValueError, "column"):
            gemmc.scaled_mm(a, b.contiguous(), sa, sb,
                            out_dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "rowwise"):
            gemmc.scaled_mm(a, b, sa.expand(512).contiguous(), sb,
                            out_dtype=torch.bfloat16)
        with self.assertRaisesRegex(TypeError, "not both e5m2"):
            gemmc.scaled_mm(a.to(e5), b.to(e5), sa, sb,
                            out_dtype=torch.bfloat16)

    def test_scaled_mm_with_bias(self):
        # torch._scaled_mm's bias (N values of out_dtype, added last) on the
        # shipped families with it: e4m3 x e4m3 into bf16 and f16, per
        # tensor and rowwise, promoted and fast sums, against fp64; decode,
        # skinny and odd sizes (the transposed variants add it per row of
        # C^T), and torch._scaled_mm itself.
        if torch.cuda.get_device_capability() != (9, 0):
            self.skipTest("the FP8 families are sm_90a's")
        e4 = torch.float8_e4m3fn
        for m, n, kk in ((1000, 528, 512), (77, 1004, 4096), (1, 4096, 4096),
                         (16, 2056, 1024), (4100, 96, 256)):
            a = torch.randn(m, kk, device="cuda").to(e4)
            b = torch.randn(n, kk, device="cuda").to(e4).t()
            exact = a.double() @ b.double()
            for rowwise in (False, True):
                sa, sb = fp8_scales(m, n, rowwise)
                for out in (torch.bfloat16, torch.float16):
                    bias = (torch.randn(n, device="cuda") * 8).to(out)
                    ref = sa.double() * exact * sb.double() + bias.double()
                    for fast in (False, True):
                        c = torch.full((m, n), float("nan"), device="cuda",
                                       dtype=out)
                        gemmc.scaled_mm(a, b, sa, sb, bias=bias, out=c,
                                        out_dtype=out, use_fast_accum=fast)
                        torch.cuda.synchronize()
                        self.assertMatches(c, ref, 1e-2)
        a = torch.randn(512, 1024, device="cuda").to(e4)
        b = torch.randn(768, 1024, device="cuda").to(e4).t()
        sa = torch.tensor([0.75], device="cuda")
        sb = torch.tensor([1.25], device="cuda")
        bias = torch.randn(768, device="cuda", dtype=torch.bfloat16)
        ours = gemmc.scaled_mm(a, b, sa, sb, bias=bias,
                               out_dtype=torch.bfloat16)
        theirs = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, bias=bias,
                                  out_dtype=torch.bfloat16)
        self.assertMatches(ours, theirs.double(), 1e-2)
        # K = 0: the bias alone, as torch's empty sum plus the bias.
        none = gemmc.scaled_mm(a[:, :0], b[:0], sa, sb, bias=bias,
                               out_dtype=torch.bfloat16)
        self.assertTrue(torch.equal(none, bias.expand(512, 768)))
        # Misuse, refused with the reason.
        with self.assertRaisesRegex(ValueError, "float32 result"):
            gemmc.scaled_mm(a, b, sa, sb, bias=bias.float(),
                            out_dtype=torch.float32)
        with self.assertRaisesRegex(TypeError, "of out_dtype"):
            gemmc.scaled_mm(a, b, sa, sb, bias=bias.half(),
                            out_dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "vector of 768"):
            gemmc.scaled_mm(a, b, sa, sb, bias=bias[:512],
                            out_dtype=torch.bfloat16)
        with self.assertRaisesRegex(TypeError, "float8_e4m3fn operands"):
            gemmc.scaled_mm(a, b.to(torch.float8_e5m2), sa, sb, bias=bias,
                            out_dtype=torch.bfloat16)

    def test_scaled_mm_into_fp8(self):
        # torch._scaled_mm's FP8 result: e4m3 x e4m3 per tensor into e4m3,
        # each value times scale_result before its cast (cuBLASLt's D
        # scale), saturated at 448; against fp64 (rounded as e4m3 rounds: 3
        # bits of mantissa), and without scale_result beside
        # torch._scaled_mm itself (torch 2.11 ignores its scale_result: its
        # results with 0.5 and 2 equal those without, measured on an H200).
        if torch.cuda.get_device_capability() != (9, 0):
            self.skipTest("the FP8 families are sm_90a's")
        e4 = torch.float8_e4m3fn
        sa, sb = fp8_scales(0, 0, False)
        for m, n, kk in ((1000, 528, 512), (77, 1004, 4096), (1, 4096, 4096),
                         (16, 2056, 1024), (4100, 96, 256), (2048, 2048, 2048)):
            a = torch.randn(m, kk, device="cuda").to(e4)
            b = torch.randn(n, kk, device="cuda").to(e4).t()
            exact = a.double() @ b.double() * (0.75 * 1.25)
            for scale in (None, 0.5, 16.0):  # 16: many values saturate
                sr = None if scale is None else \
                    torch.tensor([scale], device="cuda")
                ref = (exact * (scale or 1)).clamp(-448, 448)
                for fast in (False, True):
                    c = torch.full((m, n), float("nan"), device="cuda").to(e4)
                    gemmc.scaled_mm(a, b, sa, sb, scale_result=sr, out=c,
                                    out_dtype=e4, use_fast_accum=fast)
                    torch.cuda.synchronize()
                    self.assertMatches(c.float(), ref, 0.06)
                    # (torch writes an FP8 result only where N is a
                    # multiple of 16.)
                    if scale is not None or n % 16:
                        continue
                    theirs = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb,
                                              out_dtype=e4,
                                              use_fast_accum=fast)
                    # Sums in another order round a few values the other
                    # way: one e4m3 step apart.
                    differ = (c.float() != theirs.float()).float().mean()
                    self.assertLess(differ.item(), 0.05)
        # Without scale_result, C's scale is 1, as torch's.
        a = torch.randn(512, 1024, device="cuda").to(e4)
        b = torch.randn(768, 1024, device="cuda").to(e4).t()
        ours = gemmc.scaled_mm(a, b, sa, sb, out_dtype=e4)
        self.assertEqual(ours.dtype, e4)
        ref = (a.double() @ b.double() * (0.75 * 1.25)).clamp(-448, 448)
        self.assertMatches(ours.float(), ref, 0.06)
        # Misuse, refused with the reason.
        sr = torch.tensor([2.0], device="cuda")
        with self.assertRaisesRegex(ValueError, "scales an FP8 result"):
            gemmc.scaled_mm(a, b, sa, sb, scale_result=sr,
                            out_dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "per-tensor scales"):
            ra, rb = fp8_scales(512, 768, True)
            gemmc.scaled_mm(a, b, ra, rb, out_dtype=e4)
        with self.assertRaisesRegex(ValueError, "no bias into"):
            gemmc.scaled_mm(a, b, sa, sb, out_dtype=e4,
                            bias=torch.zeros(768, device="cuda",
                                             dtype=torch.bfloat16))
        with self.assertRaisesRegex(TypeError, "for float8_e4m3fn operands"):
            gemmc.scaled_mm(a, b.to(torch.float8_e5m2), sa, sb, out_dtype=e4)
        with self.assertRaisesRegex(TypeError, "one float32 value"):
            gemmc.scaled_mm(a, b, sa, sb, out_dtype=e4,
                            scale_result=torch.ones(2, device="cuda"))

    def test_scaled_mm_with_the_measured_choice(self):
        # gemmc.set_autotune reaches Kernel calls, so gemmc.scaled_mm: each
        # signature's first call makes the measured choice of its problem
        # (the promoted FP8 result's family at 8192^3 has the model's m1
        # and the 128 x 128 m0 among its first three), and the results are
        # the family's, into bf16 and into e4m3.
        if torch.cuda.get_device_capability() != (9, 0):
            self.skipTest("the FP8 families are sm_90a's")
        e4 = torch.float8_e4m3fn
        sa, sb = fp8_scales(0, 0, False)
        gemmc.set_autotune(3)
        try:
            for m, n, kk in ((8192, 8192, 8192), (77, 1004, 4096)):
                a = torch.randn(m, kk, device="cuda").to(e4)
                b = torch.randn(n, kk, device="cuda").to(e4).t()
                exact = a.double() @ b.double() * (0.75 * 1.25)
                for out_dtype in (torch.bfloat16, e4):
                    c = gemmc.scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
                    c = gemmc.scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
                    torch.cuda.synchronize()
                    self.assertMatches(c.float(), exact.clamp(-448, 448)
                                       if out_dtype == e4 else exact, 0.06)
        finally:
            gemmc.set_autotune(0)

    def test_fp8_block_scales(self):
        # DeepSeek-V3's scales: A's 1 x 128 blocks at [(k / 128) * M + m],
        # B's 128 x 128 at [(n / 128) * ceil(K/128) + k / 128] (gemmc.h).
        if torch.cuda.get_device_capability() < (9, 0):
            self.skipTest("the example is sm_90a's")
        k = kernel("hopper-fp8-block")
        self.assertEqual(k.scales, "block")
        m, n, kk = 1000, 768, 1024
        kb, nb = -(-kk // 128), -(-n // 128)
        a = torch.randn(m, kk, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, kk, device="cuda").to(torch.float8_e4m3fn).t()
        sa = torch.rand(kb, m, device="cuda") + 0.5
        sb = torch.rand(nb, kb, device="cuda") + 0.5
        c = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        k(a, b, out=c, scale_a=sa.reshape(-1), scale_b=sb.reshape(-1))
        torch.cuda.synchronize()
        da = a.double() * sa.double().t().repeat_interleave(128, 1)[:, :kk]
        db = b.double() * sb.double().t().repeat_interleave(128, 0)[:kk] \
            .repeat_interleave(128, 1)[:, :n]
        self.assertMatches(c, da @ db, 5e-3)

    def test_bf16_through_dlpack(self):
        # torch's bfloat16 has no __cuda_array_interface__: gemmc reads it
        # through __dlpack__, exported for the stream the kernel runs on.
        k = kernel("tensorcore-bf16-dynamic")
        a = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(512, 640, device="cuda", dtype=torch.bfloat16)
        stream = torch.cuda.Stream()
        c = k(a, b, stream=stream)
        stream.synchronize()
        self.assertEqual(c.dtype, torch.bfloat16)
        self.assertMatches(c, a.float() @ b.float(), 1e-2)

    def test_matmul_with_a_family_takes_odd_sizes(self):
        family = kernel("sgemm-any-ld")
        a = torch.randn(1001, 997, device="cuda")
        b = torch.randn(997, 999, device="cuda")
        c = gemmc.matmul(a, b, family=family)
        torch.cuda.synchronize()
        self.assertMatches(c, a @ b, 1e-5)

    def test_planned_calls(self):
        # A call's first of its signature is checked and planned; the next
        # ones launch the plan (same result), a new signature (strides,
        # dtype, out given) is checked again, and misuse is still refused.
        k = kernel("sgemm-dynamic")
        a = torch.randn(300, 200, device="cuda")
        b = torch.randn(200, 100, device="cuda")
        c1 = k(a, b)
        c2 = k(a, b)
        torch.cuda.synchronize()
        self.assertEqual(len(k._plans), 1)
        self.assertTrue(torch.equal(c1, c2))
        self.assertMatches(c2, a @ b, 1e-5)
        c3 = torch.full((300, 100), float("nan"), device="cuda")
        k(a, b, out=c3)
        k(a, b, out=c3)
        padded = torch.randn(300, 208, device="cuda")[:, :200]
        padded.copy_(a)
        c4 = k(padded, b)
        torch.cuda.synchronize()
        self.assertEqual(len(k._plans), 3)
        self.assertTrue(torch.equal(c1, c3))
        self.assertTrue(torch.equal(c1, c4))
        with self.assertRaisesRegex(TypeError, "A is float16"):
            k(a.half(), b)
        with self.assertRaisesRegex(ValueError, "sizes do not match"):
            k(a, b[:-1])
        with self.assertRaisesRegex(TypeError, "A cannot be exported "
                                    "through DLPack: .*detach"):
            k(a.clone().requires_grad_(), b)
        k.close()
        self.assertEqual(k._plans, {})

    def test_measured_choice_of_a_family(self):
        # Kernel.autotune times the model's first variants on the call's
        # operands and makes the fastest the choice of the problem: out is
        # not written, the calls after it (planned ones too) run that
        # variant, and no measurement runs inside a capture.
        k = gemmc.family("float16")
        a = torch.randn(50, 2560, device="cuda", dtype=torch.float16)
        b = torch.randn(2560, 7680, device="cuda", dtype=torch.float16)
        before = k(a, b)  # planned on the model's choice
        self.assertEqual(len(k._plans), 1)
        out = torch.full((50, 7680), float("nan"), device="cuda",
                         dtype=torch.float16)
        index = k.autotune(a, b, out=out, candidates=3)
        torch.cuda.synchronize()
        self.assertTrue(0 <= index < len(k.variants))
        self.assertTrue(torch.isnan(out).all())
        self.assertEqual(k._plans, {})
        self.assertEqual(k.select(a, b), index)
        for _ in range(2):
            c = k(a, b)
        torch.cuda.synchronize()
        self.assertMatches(c, a.float() @ b.float(), 1e-2)
        self.assertMatches(before, a.float() @ b.float(), 1e-2)
        with self.assertRaisesRegex(gemmc.GemmcError, "candidates must be"):
            k.autotune(a, b, candidates=0)
        side = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(gemmc.GemmcError, "captured into a CUDA "
                                    "graph"):
            with torch.cuda.graph(graph, stream=side):
                k.autotune(a, b, stream=side)

    def test_split_k_calls_in_cuda_graphs(self):
        # A Kernel that splits K, called first inside a capture (the
        # checked call) and then again in a second one (the planned call):
        # each launch takes the graph's own workspace, none is allocated
        # while capturing, and the replays give eager's result bit for bit.
        k = kernel("sgemm-split-k-small")
        a = torch.randn(16, 20000, device="cuda")
        b = torch.randn(20000, 16, device="cuda")
        graphs, outputs = [], []
        for _ in range(2):
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                outputs.append(k(a, b))
            graphs.append(graph)
        self.assertEqual(len(k._plans), 1)
        eager = k(a, b)
        for graph in graphs:
            graph.replay()
        torch.cuda.synchronize()
        for c in outputs:
            self.assertTrue(torch.equal(c, eager))
        self.assertMatches(eager, a.double() @ b.double(), 1e-5)
        k.close()

    def test_split_k_capture_without_a_workspace_is_refused(self):
        # Given a stream, a Kernel call is the C API's gemmc_launch, whose
        # workspace is the runtime's own for the stream: in a capture the
        # runtime refuses it, naming the remedy, before any CUDA call can
        # fail (the capture stays valid: its graph is empty).
        k = kernel("sgemm-split-k-small")
        a = torch.randn(16, 20000, device="cuda")
        b = torch.randn(20000, 16, device="cuda")
        k(a, b, stream=torch.cuda.current_stream())  # its stream's made
        side = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(gemmc.GemmcError,
                                    "capturing a CUDA graph: give the "
                                    "launch a workspace"):
            with torch.cuda.graph(graph, stream=side):
                k(a, b, stream=side)
        k.close()

    def test_a_padded_view(self):
        k = kernel("sgemm-dynamic")
        big = torch.randn(256, 136, device="cuda")
        a = big[:, :128]  # rows 136 apart
        b = torch.randn(128, 64, device="cuda")
        c = k(a, b)
        torch.cuda.synchronize()
        self.assertMatches(c, a @ b, 1e-5)

    def test_bad_tensors(self):
        k = kernel("sgemm-dynamic")
        a = torch.randn(64, 32, device="cuda")
        b = torch.randn(32, 64, device="cuda")
        with self.assertRaisesRegex(ValueError, "not on a CUDA device"):
            k(a.cpu(), b)
        with self.assertRaisesRegex(TypeError, "A is float16"):
            k(a.half(), b)
        with self.assertRaisesRegex(ValueError, "B has strides"):
            k(a, torch.randn(64, 32, device="cuda").t())
        with self.assertRaisesRegex(ValueError, "sizes do not match"):
            k(a, torch.randn(33, 64, device="cuda"))
        with self.assertRaisesRegex(TypeError, "A cannot be exported "
                                    "through DLPack: .*detach"):
            k(a.requires_grad_(), b)

    def test_an_array_interface_only(self):
        # A library with __cuda_array_interface__ and no DLPack (Numba's
        # device arrays): gemmc reads the interface.
        class Interface:
            def __init__(self, t):
                self.__cuda_array_interface__ = t.__cuda_array_interface__

        k = kernel("sgemm-dynamic")
        a = torch.randn(300, 200, device="cuda")
        b = torch.randn(200, 100, device="cuda")
        c = torch.full((300, 100), float("nan"), device="cuda")
        k(Interface(a), Interface(b), out=Interface(c))
        torch.cuda.synchronize()
        self.assertMatches(c, a @ b, 1e-5)


@unittest.skipUnless(HAVE_CUPY, "needs CuPy and a GPU")
class CuPyTest(unittest.TestCase):
    def test_f32_on_a_cupy_stream(self):
        k = kernel("sgemm-dynamic")
        rng = cupy.random.default_rng(0)
        a = rng.standard_normal((700, 300), dtype=cupy.float32)
        b = rng.standard_normal((300, 500), dtype=cupy.float32)
        with cupy.cuda.Stream(non_blocking=True) as stream:
            c = k(a, b)  # C allocated by CuPy, on CuPy's current stream
            stream.synchronize()
        self.assertIsInstance(c, cupy.ndarray)
        ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
        err = float(cupy.linalg.norm(c - ref) / cupy.linalg.norm(ref))
        self.assertLess(err, 1e-5)

    def test_bad_arrays(self):
        k = kernel("sgemm-dynamic")
        a = cupy.ones((64, 32), dtype=cupy.float32)
        with self.assertRaisesRegex(TypeError, "B is float64"):
            k(a, cupy.ones((32, 64)))
        with self.assertRaisesRegex(ValueError, "B has strides"):
            k(a, cupy.ones((32, 64), dtype=cupy.float32, order="F"))


if __name__ == "__main__":
    unittest.main()
