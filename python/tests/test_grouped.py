"""gemmc.grouped_mm (torch.ops.gemmc.grouped_mm) against fp64 and
torch._grouped_mm: groups empty, of one row, of any size; B of either
layout; CUDA graphs replayed with new offsets; torch.compile. And
gemmc.scaled_grouped_mm (FP8) against the dequantised product in fp64
and torch._scaled_grouped_mm. And gemmc.grouped_gemm, the general form
(lists of groups each of its own sizes), against fp64, its table
replayed by a CUDA graph with new rows. Skipped without PyTorch or a GPU."""

import threading
import unittest

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

if HAVE_GPU:
    import gemmc


def offsets(sizes):
    return torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)


def reference(a, b, sizes):
    """Each group's rows times its B, in fp64; rows past the last group
    NaN (the result leaves them as they are)."""
    out = torch.full((a.shape[0], b.shape[2]), float("nan"),
                     dtype=torch.float64, device="cuda")
    start = 0
    for g, size in enumerate(sizes):
        out[start:start + size] = a[start:start + size].double() @ b[g].double()
        start += size
    return out


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a GPU")
class GroupedMM(unittest.TestCase):
    def check(self, c, a, b, sizes):
        ref = reference(a, b, sizes)
        rows = sum(sizes)
        got, want = c[:rows].double(), ref[:rows]
        self.assertFalse(torch.isnan(got).any().item(), "C has NaNs")
        err = (got - want).norm() / max(want.norm().item(), 1e-30)
        self.assertLess(err.item(), 1e-2)

    def test_every_group_size_and_layout(self):
        torch.manual_seed(0)
        cases = [[0, 1, 127, 128, 129, 0, 300], [5], [0, 0, 64], [1] * 40]
        for dtype in (torch.bfloat16, torch.float16):
            for sizes in cases:
                g, k, n = len(sizes), 136, 264
                a = torch.randn(sum(sizes) + 3, k, device="cuda", dtype=dtype)
                # B row-major (G, K, N), and the transpose of (G, N, K).
                for b in (torch.randn(g, k, n, device="cuda", dtype=dtype),
                          torch.randn(g, n, k, device="cuda",
                                      dtype=dtype).transpose(1, 2)):
                    c = gemmc.grouped_mm(a, b, offsets(sizes))
                    self.check(c, a, b, sizes)

    def test_matches_torch_grouped_mm(self):
        if not hasattr(torch, "_grouped_mm"):
            self.skipTest("torch has no _grouped_mm")
        torch.manual_seed(1)
        sizes = [200, 0, 31, 1024, 7, 0, 0, 500]
        a = torch.randn(sum(sizes), 512, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(8, 1024, 512, device="cuda", dtype=torch.bfloat16)
        b = w.transpose(1, 2)
        offs = offsets(sizes)
        ours = gemmc.grouped_mm(a, b, offs).double()
        theirs = torch._grouped_mm(a, b, offs=offs).double()
        err = (ours - theirs).norm() / theirs.norm()
        self.assertLess(err.item(), 1e-2)

    def test_graph_replays_with_new_offsets(self):
        torch.manual_seed(2)
        k, n, g, rows = 256, 512, 16, 2048
        a = torch.randn(rows, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(g, n, k, device="cuda",
                        dtype=torch.bfloat16).transpose(1, 2)
        offs = offsets([rows // g] * g)
        out = torch.empty(rows, n, device="cuda", dtype=torch.bfloat16)
        gemmc.grouped_mm(a, b, offs, out=out)  # plans outside the capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            gemmc.grouped_mm(a, b, offs, out=out)
        for sizes in ([rows // g] * g, [rows] + [0] * (g - 1),
                      [0, 1, 2, 3] * 4, [100, 0] * 8):
            offs.copy_(offsets(sizes))
            out.fill_(float("nan"))
            graph.replay()
            eager = gemmc.grouped_mm(a, b, offs)
            used = sum(sizes)
            self.assertTrue(torch.equal(out[:used], eager[:used]))
            self.check(out, a, b, sizes)

    def test_views_copied_where_they_must_be(self):
        torch.manual_seed(3)
        sizes, k, n = [40, 0, 77, 11], 136, 264
        rows = sum(sizes)
        # a dense but 2 bytes off a 16-byte boundary, b's groups a step
        # apart, offs every other value of a longer tensor.
        a = torch.randn(rows * k + 1, device="cuda",
                        dtype=torch.bfloat16)[1:].view(rows, k)
        b = torch.randn(2 * len(sizes), k, n, device="cuda",
                        dtype=torch.bfloat16)[::2]
        spread = torch.zeros(2 * len(sizes), device="cuda", dtype=torch.int32)
        spread[::2] = offsets(sizes)
        for _ in range(2):  # the plan made, then reused
            self.check(gemmc.grouped_mm(a, b, spread[::2]), a, b, sizes)

    def test_refuses_what_it_cannot_take(self):
        a = torch.randn(8, 16, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(2, 16, 8, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(TypeError, "int32"):
            gemmc.grouped_mm(a, b, torch.tensor([4, 8], device="cuda"))
        with self.assertRaisesRegex(ValueError, "3 values for 2 groups"):
            gemmc.grouped_mm(a, b, offsets([1, 2, 5]))
        with self.assertRaisesRegex(TypeError, "float16 or bfloat16"):
            gemmc.grouped_mm(a.float(), b.float(), offsets([4, 4]))

    def test_compiles_fullgraph(self):
        a = torch.randn(300, 128, device="cuda", dtype=torch.float16)
        b = torch.randn(4, 128, 256, device="cuda", dtype=torch.float16)
        sizes = [100, 0, 150, 50]
        f = torch.compile(lambda x, w, o: torch.ops.gemmc.grouped_mm(x, w, o),
                          fullgraph=True)
        self.check(f(a, b, offsets(sizes)), a, b, sizes)


def each(dtype, shapes, b_col, seed):
    """Lists of A (m x k) and B (k x n, a transposed view where b_col) a
    group of `shapes` (m, n, k)."""
    torch.manual_seed(seed)
    a = [torch.randn(m, k, device="cuda", dtype=dtype) for m, n, k in shapes]
    b = [torch.randn(n, k, device="cuda", dtype=dtype).t() if b_col else
         torch.randn(k, n, device="cuda", dtype=dtype)
         for m, n, k in shapes]
    return a, b


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a GPU")
class GroupedGemm(unittest.TestCase):
    SHAPES = [(0, 64, 64), (5, 0, 32), (7, 9, 0), (1, 1, 1),
              (129, 257, 300), (64, 128, 64), (300, 136, 520), (33, 8, 8)]

    def check(self, out, a, b):
        self.assertEqual(len(out), len(a))
        for g, (c, x, y) in enumerate(zip(out, a, b)):
            want = x.double() @ y.double()
            self.assertEqual(tuple(c.shape), tuple(want.shape))
            if not want.numel():
                continue
            got = c.double()
            self.assertFalse(torch.isnan(got).any().item(), f"group {g}")
            err = (got - want).norm() / max(want.norm().item(), 1e-30)
            self.assertLess(err.item(), 1e-2, f"group {g}")

    def test_each_group_its_own_sizes(self):
        for dtype in (torch.bfloat16, torch.float16):
            for b_col in (False, True):
                a, b = each(dtype, self.SHAPES, b_col, 4)
                self.check(gemmc.grouped_gemm(a, b), a, b)

    def test_views_in_place_or_copied(self):
        torch.manual_seed(5)
        dt = torch.bfloat16
        wide = torch.randn(96, 200, device="cuda", dtype=dt)
        # A: a padded view (read in place), an odd leading dimension and a
        # column-major view (copied); B: row-major, and a column-major one
        # among them (copied to the first's layout).
        a = [wide[:50, :136], torch.randn(40, 13, device="cuda", dtype=dt),
             torch.randn(24, 70, device="cuda", dtype=dt).t()]
        b = [torch.randn(136, 72, device="cuda", dtype=dt),
             torch.randn(40, 13, device="cuda", dtype=dt).t(),
             torch.randn(24, 100, device="cuda", dtype=dt)]
        self.check(gemmc.grouped_gemm(a, b), a, b)
        out = [torch.empty(x.shape[0], y.shape[1], device="cuda", dtype=dt)
               for x, y in zip(a, b)]
        self.assertIs(gemmc.grouped_gemm(a, b, out=out), out)
        self.check(out, a, b)
        # C column-major (written apart, then copied) and misaligned.
        out = [torch.empty(y.shape[1], x.shape[0], device="cuda",
                           dtype=dt).t() for x, y in zip(a, b)]
        m, n = a[2].shape[0], b[2].shape[1]
        out[2] = torch.empty(m * n + 1, device="cuda",
                             dtype=dt)[1:].view(m, n)
        self.assertIs(gemmc.grouped_gemm(a, b, out=out), out)
        self.check(out, a, b)

    def test_new_results_share_one_allocation(self):
        a, b = each(torch.bfloat16, self.SHAPES, True, 9)
        out = gemmc.grouped_gemm(a, b)
        self.check(out, a, b)
        bases = {c.untyped_storage().data_ptr() for c in out}
        self.assertEqual(len(bases), 1)
        for c in out:
            self.assertEqual(c.data_ptr() % 16, 0)
            self.assertTrue(c.is_contiguous())

    def test_threads_share_a_plan(self):
        # Eight threads, each on a stream of its own, launch through one
        # plan (one group count): its staging of the rows is shared. Each
        # result is bit-identical to the first launch's.
        a, b = each(torch.bfloat16, self.SHAPES[3:], True, 11)
        want = gemmc.grouped_gemm(a, b)
        torch.cuda.synchronize()
        failures = []

        def work(t):
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                for i in range(100):
                    try:
                        got = gemmc.grouped_gemm(a, b)
                        stream.synchronize()
                        same = all(torch.equal(x, y)
                                   for x, y in zip(got, want))
                    except Exception as e:  # noqa: BLE001 (reported below)
                        same = e
                    if same is not True:
                        failures.append((t, i, same))

        pool = [threading.Thread(target=work, args=(t,)) for t in range(8)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        self.assertEqual(failures, [])

    def test_opcheck(self):
        a, b = each(torch.float16, self.SHAPES[3:6], True, 10)
        torch.library.opcheck(torch.ops.gemmc.grouped_gemm.default, (a, b))

    def test_graph_replays_with_new_rows(self):
        dt = torch.float16
        # Buffers at the largest sizes; each replay's rows take views of
        # them at new sizes.
        big = [(256, 256, 256), (128, 512, 64), (64, 64, 512)]
        a, b = each(dt, big, True, 6)
        out = [torch.empty(m, n, device="cuda", dtype=dt) for m, n, k in big]

        def rows(shapes):
            sub_a = [x[:m, :k] for x, (m, n, k) in zip(a, shapes)]
            sub_b = [y[:k, :n] for y, (m, n, k) in zip(b, shapes)]
            sub_c = [c[:m, :n] for c, (m, n, k) in zip(out, shapes)]
            table, layout = gemmc.group_table(sub_a, sub_b, sub_c)
            self.assertEqual(layout, "col")
            return table, sub_a, sub_b, sub_c

        table = rows(big)[0].cuda()
        gemmc.grouped_gemm_table(table, dt)  # plans outside the capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            gemmc.grouped_gemm_table(table, dt)
        for shapes in (big, [(0, 256, 256), (1, 8, 8), (64, 64, 0)],
                       [(200, 136, 248), (128, 512, 64), (3, 40, 16)]):
            host, sub_a, sub_b, sub_c = rows(shapes)
            table.copy_(host)
            for c in out:
                c.fill_(float("nan"))
            graph.replay()
            replayed = [c.clone() for c in sub_c]
            # The same launch, eager (the table on the device alone: the
            # family's variant for any rows, as the graph's).
            for c in out:
                c.fill_(float("nan"))
            gemmc.grouped_gemm_table(table, dt)
            for r, e in zip(replayed, sub_c):
                self.assertTrue(torch.equal(r, e))
            self.check(replayed, sub_a, sub_b)

    @staticmethod
    def kernels_run(call):
        """The names of the CUDA kernels `call` launches."""
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            call()
            torch.cuda.synchronize()
        return {event.key for event in prof.key_averages()}

    def test_the_rows_a_group_choose_the_variant(self):
        # The shipped families run `few` (ping-pong 64x128 tiles) up to 64
        # rows a group (the groups' rows in all over the groups), `many`
        # above; with the table on the device alone, `many`.
        few = [(10, 200, 96), (60, 72, 136), (3, 128, 64), (40, 264, 520)]
        many = [(200, 200, 96), (160, 72, 136), (3, 128, 64),
                (300, 264, 520)]
        for dtype in (torch.bfloat16, torch.float16):
            for b_col in (False, True):
                for shapes, variant in ((few, "few"), (many, "many")):
                    a, b = each(dtype, shapes, b_col, 12)
                    out = []
                    names = self.kernels_run(
                        lambda: out.append(gemmc.grouped_gemm(a, b)))
                    self.assertTrue(
                        any(name.endswith("_ptr_array_" + variant)
                            for name in names), names)
                    self.check(out[0], a, b)
        a, b = each(torch.bfloat16, few, True, 13)
        out = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
               for m, n, k in few]
        table = gemmc.group_table(a, b, out)[0].cuda()
        names = self.kernels_run(
            lambda: gemmc.grouped_gemm_table(table, torch.bfloat16))
        self.assertTrue(any(name.endswith("_ptr_array_many")
                            for name in names), names)
        self.check(out, a, b)

    def test_refuses_what_it_cannot_take(self):
        a, b = each(torch.bfloat16, [(8, 16, 16), (4, 8, 32)], False, 7)
        with self.assertRaisesRegex(ValueError, "one b a group"):
            gemmc.grouped_gemm(a, b[:1])
        with self.assertRaisesRegex(ValueError, "sizes do not match"):
            gemmc.grouped_gemm(a, b[::-1])
        with self.assertRaisesRegex(TypeError, "every group's operands"):
            gemmc.grouped_gemm(a, [b[0], b[1].half()])
        with self.assertRaisesRegex(TypeError, "float16 or bfloat16"):
            gemmc.grouped_gemm([x.float() for x in a], [y.float() for y in b])
        with self.assertRaisesRegex(ValueError, "one CUDA device"):
            gemmc.grouped_gemm(a, [b[0], b[1].cpu()])
        odd = [torch.randn(8, 13, device="cuda", dtype=torch.bfloat16)]
        with self.assertRaisesRegex(ValueError, "copies what is not"):
            gemmc.group_table(odd, [torch.randn(13, 8, device="cuda",
                                                dtype=torch.bfloat16)],
                              [torch.empty(8, 8, device="cuda",
                                           dtype=torch.bfloat16)])
        with self.assertRaisesRegex(ValueError, "int64 CUDA tensor"):
            gemmc.grouped_gemm_table(torch.zeros(2, 8, dtype=torch.int64,
                                                 device="cuda"))
        graph = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(RuntimeError, "grouped_gemm_table"):
            with torch.cuda.graph(graph):
                gemmc.grouped_gemm(a, b)

    def test_compiles_fullgraph(self):
        a, b = each(torch.float16, self.SHAPES[3:6], False, 8)
        f = torch.compile(lambda x, w: torch.ops.gemmc.grouped_gemm(x, w),
                          fullgraph=True)
        self.check(f(a, b), a, b)


def scaled_reference(a8, b8, scale_a, scale_b, sizes):
    """The dequantised product in fp64, scale_a per row (or one) and
    scale_b per group and column (or one a group)."""
    out = torch.zeros(sum(sizes), b8.shape[2], dtype=torch.float64,
                      device="cuda")
    start = 0
    for g, size in enumerate(sizes):
        part = a8[start:start + size].double() @ b8[g].double()
        sa = scale_a.double().reshape(-1)
        sa = sa[start:start + size, None] if sa.numel() > 1 else sa
        sb = scale_b[g].double().reshape(1, -1)
        out[start:start + size] = part * sa * sb
        start += size
    return out


@unittest.skipUnless(HAVE_GPU and hasattr(torch, "float8_e4m3fn"),
                     "needs PyTorch with FP8 and a GPU")
class ScaledGroupedMM(unittest.TestCase):
    def operands(self, sizes, k, n, rowwise=True, seed=4):
        torch.manual_seed(seed)
        g, rows = len(sizes), sum(sizes)
        a8 = torch.randn(rows + 5, k, device="cuda").to(torch.float8_e4m3fn)
        b8 = torch.randn(g, n, k, device="cuda").to(
            torch.float8_e4m3fn).transpose(1, 2)
        if rowwise:
            sa = torch.rand(rows + 5, device="cuda") + 0.5
            sb = torch.rand(g, n, device="cuda") + 0.5
        else:
            sa = torch.rand(1, device="cuda") + 0.5
            sb = torch.rand(g, device="cuda") + 0.5
        return a8, b8, sa, sb

    def check(self, c, a8, b8, sa, sb, sizes):
        rows = sum(sizes)
        self.assertEqual(c.dtype, torch.bfloat16)
        got = c[:rows].double()
        want = scaled_reference(a8, b8, sa, sb, sizes)
        self.assertFalse(torch.isnan(got).any().item(), "C has NaNs")
        err = (got - want).norm() / max(want.norm().item(), 1e-30)
        self.assertLess(err.item(), 1e-2)

    def test_every_group_size_both_scales_and_sums(self):
        for sizes in ([0, 1, 127, 128, 129, 0, 300], [5], [1] * 20):
            for rowwise in (True, False):
                for fast in (False, True):
                    a8, b8, sa, sb = self.operands(sizes, 256, 272, rowwise)
                    c = gemmc.scaled_grouped_mm(a8, b8, sa, sb,
                                                offsets(sizes),
                                                use_fast_accum=fast)
                    self.check(c, a8, b8, sa, sb, sizes)

    def test_matches_torch_scaled_grouped_mm(self):
        if not hasattr(torch, "_scaled_grouped_mm"):
            self.skipTest("torch has no _scaled_grouped_mm")
        sizes = [200, 0, 31, 1024, 7, 0, 0, 512]
        a8, b8, sa, sb = self.operands(sizes, 512, 1024)
        a8, sa = a8[:sum(sizes)], sa[:sum(sizes)]
        offs = offsets(sizes)
        ours = gemmc.scaled_grouped_mm(a8, b8, sa, sb, offs).double()
        theirs = torch._scaled_grouped_mm(
            a8, b8, sa, sb, offs=offs, out_dtype=torch.bfloat16).double()
        err = (ours - theirs).norm() / theirs.norm()
        self.assertLess(err.item(), 1e-2)

    def test_graph_replays_with_new_offsets(self):
        rows, g = 1024, 8
        a8, b8, sa, sb = self.operands([rows // g] * g, 256, 512)
        offs = offsets([rows // g] * g)
        gemmc.scaled_grouped_mm(a8, b8, sa, sb, offs)  # planned outside
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = gemmc.scaled_grouped_mm(a8, b8, sa, sb, offs)
        for sizes in ([rows] + [0] * (g - 1), [0, 1, 2, 3] * 2, [100, 0] * 4):
            offs.copy_(offsets(sizes))
            out.fill_(float("nan"))
            graph.replay()
            eager = gemmc.scaled_grouped_mm(a8, b8, sa, sb, offs)
            used = sum(sizes)
            self.assertTrue(torch.equal(out[:used], eager[:used]))
            self.check(out, a8, b8, sa, sb, sizes)

    def test_b_copied_column_major_where_it_must_be(self):
        sizes = [40, 0, 77]
        a8, b8, sa, sb = self.operands(sizes, 128, 256)
        row_major = b8.contiguous()  # (G, K, N), N contiguous
        c = gemmc.scaled_grouped_mm(a8, row_major, sa, sb, offsets(sizes))
        self.check(c, a8, b8, sa, sb, sizes)

    def test_refuses_what_it_cannot_take(self):
        sizes = [4, 4]
        a8, b8, sa, sb = self.operands(sizes, 64, 64)
        with self.assertRaisesRegex(ValueError, "per tensor"):
            gemmc.scaled_grouped_mm(a8, b8, sa[:3], sb, offsets(sizes))
        with self.assertRaisesRegex(TypeError, "float8_e4m3fn"):
            gemmc.scaled_grouped_mm(a8.to(torch.float8_e5m2), b8, sa, sb,
                                    offsets(sizes))
        with self.assertRaisesRegex(TypeError, "writes bfloat16"):
            gemmc.scaled_grouped_mm(a8, b8, sa, sb, offsets(sizes),
                                    out_dtype=torch.float16)

    def test_compiles_fullgraph(self):
        sizes = [100, 0, 150, 50]
        a8, b8, sa, sb = self.operands(sizes, 128, 256)
        f = torch.compile(
            lambda x, w, s, t, o: torch.ops.gemmc.scaled_grouped_mm(
                x, w, s, t, o), fullgraph=True)
        self.check(f(a8, b8, sa, sb, offsets(sizes)), a8, b8, sa, sb, sizes)


if __name__ == "__main__":
    unittest.main()
