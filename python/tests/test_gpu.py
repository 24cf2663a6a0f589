"""gemmc's Python package on a GPU with PyTorch: kernels run on torch
tensors, on torch's streams, beside torch.matmul. Skipped without torch or
a GPU. The kernels are compiled here, or, where gemmc's compiler cannot
load (a GPU machine without LLVM), loaded from $GEMMC_PTX_DIR: NAME.ptx
for examples/NAME.gemm, compiled beforehand (docs/library.md)."""

import os
import unittest
from pathlib import Path

import gemmc

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def kernel(name):
    ptx_dir = os.environ.get("GEMMC_PTX_DIR")
    if ptx_dir:
        return gemmc.load(Path(ptx_dir) / f"{name}.ptx")
    return gemmc.compile(EXAMPLES / f"{name}.gemm")


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

    def test_matmul_with_a_family_takes_odd_sizes(self):
        family = kernel("sgemm-any-ld")
        a = torch.randn(1001, 997, device="cuda")
        b = torch.randn(997, 999, device="cuda")
        c = gemmc.matmul(a, b, family=family)
        torch.cuda.synchronize()
        self.assertMatches(c, a @ b, 1e-5)

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


if __name__ == "__main__":
    unittest.main()
