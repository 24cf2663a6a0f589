"""examples/python/tensor_parallel.py with a world size of 1, through the
same code path as on several GPUs (torchrun, the NCCL process group, the
all-reduce): its result matches the single-GPU reference. Skipped without
PyTorch and a GPU. docs/library.md gives the 2-GPU run."""

import os
import subprocess
import sys
import unittest
from pathlib import Path

try:
    import torch
    HAVE_GPU = torch.cuda.is_available() and \
        torch.distributed.is_nccl_available()
except ImportError:
    HAVE_GPU = False

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / \
    "tensor_parallel.py"


@unittest.skipUnless(HAVE_GPU, "needs PyTorch with NCCL and a GPU")
class TensorParallelTest(unittest.TestCase):
    def test_one_rank_matches_the_reference(self):
        run = subprocess.run(
            [sys.executable, "-m", "torch.distributed.run",
             "--nproc-per-node", "1", "--master-port", "29517", str(EXAMPLE),
             "--tokens", "256", "--hidden", "512", "--ffn", "1024",
             "--steps", "5"],
            capture_output=True, text=True, timeout=300, env=os.environ)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        result = [line for line in run.stdout.splitlines()
                  if line.startswith("result: ")]
        self.assertEqual(len(result), 1, run.stdout)
        self.assertIn("world=1", result[0])
        self.assertIn(" matches ", result[0])


if __name__ == "__main__":
    unittest.main()
