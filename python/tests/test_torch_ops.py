"""torch.ops.gemmc.mm / .bmm and gemmc.matmul on PyTorch tensors, through
the families gemmc ships (no compiler): results against fp64, views read
in place, torch.matmul's shapes, torch.library.opcheck, torch.compile
(fullgraph), CUDA graphs, autograd, torch's current stream. Skipped without
PyTorch and a GPU."""

import os
import subprocess
import sys
import tempfile
import unittest

import gemmc

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

# Relative Frobenius error against fp64 that passes, per dtype (the
# families accumulate in f32; f32 runs as tf32x3 or SIMT f32).
TOLERANCE = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.5e-2}


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a GPU")
class TorchOpsTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def check(self, c, a, b):
        ref = torch.matmul(a.double(), b.double())
        self.assertEqual(c.shape, ref.shape)
        self.assertEqual(c.dtype, a.dtype)
        self.assertFalse(torch.isnan(c).any().item(), "C has NaNs")
        err = ((c.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        self.assertLess(err, TOLERANCE[str(a.dtype).split(".")[1]],
                        f"{tuple(a.shape)} @ {tuple(b.shape)} {a.dtype}")

    def test_mm_every_dtype_and_shape(self):
        shapes = [(1, 4096, 4096), (16, 4096, 4096), (128, 11008, 4096),
                  (1000, 776, 520), (3000, 5000, 700), (33, 17, 4099),
                  (64, 64, 16384), (4096, 8, 4096), (1, 1, 1)]
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for m, n, k in shapes:
                a = torch.randn(m, k, device="cuda", dtype=dtype)
                b = torch.randn(k, n, device="cuda", dtype=dtype)
                self.check(torch.ops.gemmc.mm(a, b), a, b)

    def test_f32_in_tf32_where_torch_allows_it(self):
        # Under allow_tf32 f32 runs on the tf32 family (tf32's error: 10
        # bits of mantissa), in every layout, B row-major copied K-major
        # where the cost model says so; the flag is read at each call.
        wide = torch.randn(2048, 4160, device="cuda")
        a = wide[:, :4096].contiguous()
        b = torch.randn(4096, 2048, device="cuda")
        ref = torch.matmul(a.double(), b.double())
        saved = torch.backends.cuda.matmul.allow_tf32
        try:
            errors = {}
            for allow in (False, True):
                torch.backends.cuda.matmul.allow_tf32 = allow
                # A a slice in "sr": its leading dimension kept where B is
                # copied K-major.
                operands = {"rr": (a, b), "rc": (a, b.t().contiguous().t()),
                            "cr": (a.t().contiguous().t(), b),
                            "sr": (wide[:, :4096], b)}
                for name, (x, y) in operands.items():
                    c = gemmc.mm(x, y)
                    errors[allow, name] = ((c.double() - ref).norm() /
                                           ref.norm()).item()
            for name in ("rr", "rc", "cr", "sr"):
                self.assertLess(errors[False, name], 1e-5)
                self.assertLess(errors[True, name], 2e-3)
                # tf32 rounds: the error shows it ran so.
                self.assertGreater(errors[True, name], 1e-5)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = saved

    def test_views_are_read_in_place(self):
        # x @ W.T (B column-major), A column-major, sliced rows and columns.
        x = torch.randn(300, 1024, device="cuda", dtype=torch.float16)
        w = torch.randn(2048, 1024, device="cuda", dtype=torch.float16)
        self.check(gemmc.mm(x, w.t()), x, w.t())
        self.check(gemmc.mm(x.t().contiguous().t(), w.t()), x, w.t())
        big = torch.randn(1100, 1536, device="cuda", dtype=torch.bfloat16)
        self.check(gemmc.mm(big[:, 8:520], big[8:520, 16:1040]),
                   big[:, 8:520], big[8:520, 16:1040])
        # Strided along both dimensions, or misaligned: copied first.
        self.check(gemmc.mm(big[::2, ::2], big[:768, :100]),
                   big[::2, ::2], big[:768, :100])
        self.check(gemmc.mm(big[:, 1:257], big[1:257, :64]),
                   big[:, 1:257], big[1:257, :64])

    def test_matmul_shapes_as_torch(self):
        f = torch.float32
        cases = [((7,), (7,)), ((5, 7), (7,)), ((7,), (7, 3)),
                 ((2, 5, 7), (7, 3)), ((5, 7), (4, 7, 3)),
                 ((3, 1, 5, 7), (4, 7, 2)), ((6, 5, 7), (6, 7, 3))]
        for sa, sb in cases:
            a = torch.randn(sa, device="cuda", dtype=f)
            b = torch.randn(sb, device="cuda", dtype=f)
            c = gemmc.matmul(a, b)
            ref = torch.matmul(a.double(), b.double())
            self.assertEqual(c.shape, ref.shape, f"{sa} @ {sb}")
            torch.testing.assert_close(c.double(), ref, rtol=1e-4, atol=1e-4)
        out = torch.empty(5, 3, device="cuda")
        a, b = torch.randn(5, 7, device="cuda"), torch.randn(7, 3, device="cuda")
        self.assertIs(gemmc.matmul(a, b, out=out), out)
        self.check(out, a, b)

    def test_empty_dimensions_as_torch(self):
        for sa, sb in [((0, 5), (5, 3)), ((4, 5), (5, 0)), ((4, 0), (0, 3)),
                       ((2, 0, 5), (2, 5, 3)), ((0, 4, 5), (0, 5, 3))]:
            a = torch.randn(sa, device="cuda")
            b = torch.randn(sb, device="cuda")
            c = gemmc.matmul(a, b)
            ref = torch.matmul(a, b)
            self.assertEqual(c.shape, ref.shape)
            self.assertTrue(torch.equal(c, ref), f"{sa} @ {sb}")

    def test_bmm(self):
        a = torch.randn(3, 100, 64, device="cuda", dtype=torch.float16)
        b = torch.randn(3, 64, 200, device="cuda", dtype=torch.float16)
        self.check(torch.ops.gemmc.bmm(a, b), a, b)
        # The batched family (one launch) and the launch per product alike:
        # transposed matrices, odd sizes, strides it refuses (a padded
        # batch of odd strides), every dtype.
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            a = torch.randn(5, 77, 136, device="cuda", dtype=dtype)
            b = torch.randn(5, 200, 136, device="cuda",
                            dtype=dtype).transpose(1, 2)
            self.check(torch.ops.gemmc.bmm(a, b), a, b)
            a = torch.randn(4, 65, 33, device="cuda", dtype=dtype)
            b = torch.randn(4, 33, 130, device="cuda", dtype=dtype)
            self.check(torch.ops.gemmc.bmm(a, b), a, b)

    def test_opcheck(self):
        for dtype in (torch.float32, torch.bfloat16):
            a = torch.randn(65, 130, device="cuda", dtype=dtype)
            b = torch.randn(130, 70, device="cuda", dtype=dtype)
            torch.library.opcheck(torch.ops.gemmc.mm.default, (a, b))
            ga = a.clone().requires_grad_()
            torch.library.opcheck(torch.ops.gemmc.mm.default, (ga, b))
            a3, b3 = a.reshape(5, 13, 130), b.expand(5, 130, 70).contiguous()
            torch.library.opcheck(torch.ops.gemmc.bmm.default, (a3, b3))

    def test_autograd(self):
        a = torch.randn(64, 96, device="cuda", requires_grad=True)
        b = torch.randn(96, 48, device="cuda", requires_grad=True)
        gemmc.mm(a, b).square().sum().backward()
        ga, gb = a.grad, b.grad
        a2, b2 = a.detach().double().requires_grad_(), \
            b.detach().double().requires_grad_()
        (a2 @ b2).square().sum().backward()
        torch.testing.assert_close(ga.double(), a2.grad, rtol=1e-4, atol=1e-3)
        torch.testing.assert_close(gb.double(), b2.grad, rtol=1e-4, atol=1e-3)

    def test_torch_compile_fullgraph(self):
        class MLP(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w1 = torch.nn.Parameter(torch.randn(512, 1024) / 32)
                self.w2 = torch.nn.Parameter(torch.randn(1024, 512) / 32)

            def forward(self, x):
                h = torch.relu(torch.ops.gemmc.mm(x, self.w1))
                return torch.ops.gemmc.mm(h, self.w2)

        model = MLP().cuda().to(torch.bfloat16)
        x = torch.randn(128, 512, device="cuda", dtype=torch.bfloat16)
        compiled = torch.compile(model, fullgraph=True)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x))

    def test_cuda_graph_replays_match_eager(self):
        # A split-K problem (its workspace comes from torch's allocator
        # inside the capture) and one that does not split.
        for m, n, k in [(64, 64, 16384), (16, 4096, 4096), (512, 512, 512)]:
            a = torch.randn(m, k, device="cuda", dtype=torch.float16)
            b = torch.randn(k, n, device="cuda", dtype=torch.float16)
            eager = gemmc.mm(a, b)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                gemmc.mm(a, b)  # warm-up outside the capture
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                captured = gemmc.mm(a, b)
            for _ in range(1000):
                graph.replay()
                # Each replay's result, bit for bit (checked on the GPU).
                if not torch.equal(captured, eager):
                    self.fail(f"{m}x{n}x{k}: a replay differs from eager")
            torch.cuda.synchronize()

    def test_measured_choice(self):
        # set_autotune: a problem's first call times the model's first
        # candidates (on its operands, into a C of the measurement's own)
        # and plans the fastest; results as torch's, eager and in a
        # capture (where a new problem takes the model's choice, as a
        # measurement cannot run there), and the plans kept per setting.
        gemmc.set_autotune(3)
        try:
            for m, n, k in [(50, 7680, 2560), (64, 1024, 4096),
                            (1, 4096, 4096), (300, 200, 100)]:
                a = torch.randn(m, k, device="cuda", dtype=torch.float16)
                b = torch.randn(k, n, device="cuda", dtype=torch.float16)
                self.check(gemmc.mm(a, b), a, b)
                self.check(gemmc.mm(a, b), a, b)
            # A batch: its plan of one launch measures on the batch.
            a = torch.randn(6, 128, 512, device="cuda", dtype=torch.float16)
            b = torch.randn(6, 512, 256, device="cuda", dtype=torch.float16)
            self.check(gemmc.bmm(a, b), a, b)
            a = torch.randn(96, 3000, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(3000, 700, device="cuda", dtype=torch.bfloat16)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.stream(side), torch.cuda.graph(graph):
                captured = gemmc.mm(a, b)
            torch.cuda.current_stream().wait_stream(side)
            graph.replay()
            self.check(captured, a, b)
            for bad in (-1, "three"):
                with self.assertRaisesRegex(ValueError, "count of candidates"):
                    gemmc.set_autotune(bad)
        finally:
            gemmc.set_autotune(0)
        a = torch.randn(50, 2560, device="cuda", dtype=torch.float16)
        b = torch.randn(2560, 7680, device="cuda", dtype=torch.float16)
        self.check(gemmc.mm(a, b), a, b)

    def test_cuda_graph_runs_split_k_alone(self):
        # A captured split-K launch takes counters zeroed before the
        # capture: the graph holds gemmc's kernels and no memset or fill.
        # One problem captured twice in a graph, and in a second graph,
        # each launch on counters of its own: every replay matches eager.
        a = torch.randn(16, 4096, device="cuda", dtype=torch.float16)
        b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
        eager = gemmc.mm(a, b)  # plans it (and zeroes the blocks) eagerly
        plan = next(p for p in gemmc._torch._plans.values()
                    if getattr(p, "shape", None) == (16, 4096))
        self.assertGreater(plan.partials, 0, "16x4096x4096 no longer splits K")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            gemmc.mm(a, b)
        torch.cuda.current_stream().wait_stream(side)
        graphs, outputs = [], []
        for twice in (True, False):
            # The captured graph kept to be read (torch 2.8 and later).
            graph = torch.cuda.CUDAGraph(keep_graph=True)
            with torch.cuda.graph(graph):
                outputs.append(gemmc.mm(a, b))
                if twice:
                    outputs.append(gemmc.mm(a, b))
            graphs.append(graph)
        with tempfile.TemporaryDirectory() as tmp:
            dot = os.path.join(tmp, "graph.dot")
            graphs[0].debug_dump(dot)
            with open(dot) as f:
                nodes = f.read()
        # Two nodes, each a launch of the family's variant.
        self.assertEqual(nodes.count('label="{'), 2, nodes)
        self.assertEqual(nodes.count('label="{KERNEL'), 2, nodes)
        self.assertEqual(nodes.count("| f16_rrr_"), 2, nodes)
        for _ in range(100):
            for graph in graphs:
                graph.replay()
            for out in outputs:
                if not torch.equal(out, eager):
                    self.fail("a replay differs from eager")
        torch.cuda.synchronize()

    def test_misuse_raises(self):
        a = torch.randn(8, 8, device="cuda")
        with self.assertRaisesRegex(ValueError, "one CUDA device"):
            gemmc.mm(a.cpu(), a.cpu())
        with self.assertRaisesRegex(TypeError, "float32, float16 or bfloat16"):
            gemmc.mm(a.to(torch.int32), a.to(torch.int32))
        with self.assertRaisesRegex(TypeError, "one dtype"):
            gemmc.mm(a, a.half())
        with self.assertRaisesRegex(TypeError, "float32, float16 or bfloat16"):
            gemmc.mm(a.double(), a.double())
        with self.assertRaisesRegex(ValueError, "sizes do not match"):
            gemmc.mm(a, torch.randn(9, 8, device="cuda"))
        with self.assertRaisesRegex(ValueError, "2-D"):
            torch.ops.gemmc.mm(a[0], a)
        if torch.cuda.device_count() > 1:
            with self.assertRaisesRegex(ValueError, "one CUDA device"):
                gemmc.mm(a, a.to("cuda:1"))
        # A capture on the legacy stream is refused with an exception, no
        # crash (in a process of its own: the refused capture leaves
        # torch's generator unusable in this one).
        code = ("import torch, gemmc\n"
                "a = torch.ones(8, 8, device='cuda')\n"
                "g = torch.cuda.CUDAGraph()\n"
                "with torch.cuda.graph(g, stream=torch.cuda.default_stream()):\n"
                "    gemmc.mm(a, a)\n")
        run = subprocess.run([sys.executable, "-c", code],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("Error", run.stderr.strip().splitlines()[-1])

    def test_runs_on_the_current_stream(self):
        a = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
        b = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(50_000_000)  # the stream busy for a while
            c = gemmc.mm(a, b)
            done = torch.cuda.Event()
            done.record(stream)
        self.assertFalse(done.query(), "gemmc.mm did not run on the "
                         "current stream (it finished before the sleep)")
        stream.synchronize()
        self.check(c, a, b)


if __name__ == "__main__":
    unittest.main()
