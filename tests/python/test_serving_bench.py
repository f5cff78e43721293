"""tools/measure/serving_bench.py on the CPU (--device cpu --small): every part runs on tiny shapes and writes what a
GPU run writes, so the device session that runs it for real (gpu-session.sh) does not find a broken script. Timings
here mean nothing; the test checks shapes of the output and the byte counts, which do not depend on the machine."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "measure" / "serving_bench.py"


class ServingBenchOnCpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "bench.json"
            subprocess.run([sys.executable, str(SCRIPT), "--device", "cpu", "--small", "--out", str(out)], check=True,
                           capture_output=True, timeout=300)
            cls.result = json.loads(out.read_text())

    def test_every_part_ran(self):
        r = self.result
        self.assertEqual(r["format"], "membudget-serving-bench/1")
        self.assertEqual([k for k in r if k.endswith("_error")], [])
        self.assertEqual(set(r["seconds"]), {"hbm", "launch", "graph", "decode"})
        self.assertIsNone(r["graph"])  # CUDA graphs only on a GPU

    def test_hbm_bytes_are_the_weights(self):
        # Two small layers: qkv (256+2·64)×256, o 256×256, gate_up 1024×256, down 256×512, bf16.
        per_layer = (384 * 256 + 256 * 256 + 1024 * 256 + 256 * 512) * 2
        rows = self.result["hbm"]["linear"]
        self.assertEqual([row["batch"] for row in rows], [1, 4, 16])
        for row in rows:
            self.assertEqual(row["weight_bytes"], 2 * per_layer)
            self.assertGreater(row["seconds"], 0)

    def test_launch_ops(self):
        self.assertEqual(set(self.result["launch"]), {"add_inplace", "add_alloc", "linear_8xh", "rms_norm", "sdpa_decode"})

    def test_decode_counts_the_stack(self):
        rows = self.result["decode"]
        self.assertEqual([(r["batch"], r["context"]) for r in rows], [(1, 64), (4, 64)])
        h, layers, kv, d, ffn, vocab = 256, 2, 2, 64, 512, 1000
        weights = layers * (((4 + 2 * kv) * d * h + h * 4 * d + 2 * ffn * h + h * ffn) + 2 * h) * 2 + (vocab * h + h) * 2
        for r in rows:
            self.assertEqual(r["weight_bytes"], weights)
            self.assertEqual(r["kv_bytes"], 2 * layers * r["batch"] * kv * r["context"] * d * 2)
            self.assertGreater(r["eager_seconds"], 0)


if __name__ == "__main__":
    unittest.main()
