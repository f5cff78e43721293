"""tools/measure/measure.py without a GPU: configuration, the model's parameter count against membudget's,
byte sums, the phase recorder with a fake allocator, the JSON it writes, and CPU dry runs compared by
`membudget compare-measured`.

The membudget binary is MEMBUDGET_BIN, else build/membudget, else build-measure/membudget."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "measure"))
import measure  # noqa: E402


def _find_binary():
    candidates = [os.environ.get("MEMBUDGET_BIN", ""), ROOT / "build" / "membudget", ROOT / "build-measure" / "membudget"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


BINARY = _find_binary()
needs_binary = unittest.skipUnless(BINARY, "no membudget binary (build it, or set MEMBUDGET_BIN)")
CONFIGS = sorted((ROOT / "tools" / "measure" / "configs").glob("*.json"))

TINY = {"model": "custom", "hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2, "ffn": 160, "vocab": 128,
        "mb": 2, "seq": 16, "tp": 1, "dp": 1, "ckpt": "none", "gpu": "h100-80gb"}


def membudget(*args, stdin=None):
    return subprocess.run([BINARY, *args], input=stdin, capture_output=True, text=True, timeout=60)


def membudget_json(config):
    """`membudget eval` of a flat configuration."""
    result = membudget("eval", "-", stdin=json.dumps(config))
    if result.returncode == 2:
        raise AssertionError(f"membudget rejected {config}: {result.stdout}{result.stderr}")
    return json.loads(result.stdout)


def compare_measured(document):
    result = membudget("compare-measured", "-", "--json", stdin=json.dumps(document))
    if result.returncode != 0:
        raise AssertionError(f"compare-measured failed: {result.stderr}")
    return {line["id"]: line for line in json.loads(result.stdout)["lines"]}


def resolve(**overrides):
    return measure.resolve_config(TINY, overrides)


def cpu_run(config, **kwargs):
    return measure.measure(config, device="cpu", **kwargs)


class FakeMemory:
    """An allocator that reports scripted numbers: the n-th snapshot has allocated = 1000·n and peaks above it."""

    measures = True

    def __init__(self):
        self.snapshots = 0
        self.resets = 0

    def reset_peak(self):
        self.resets += 1

    def snapshot(self):
        self.snapshots += 1
        n = self.snapshots
        return {"allocated_bytes": 1000 * n, "reserved_bytes": 4096 * n, "active_bytes": 1000 * n + 1,
                "peak_allocated_bytes": 1000 * n + 300 * (n % 3), "peak_reserved_bytes": 4096 * n + 7,
                "peak_active_bytes": 1000 * n + 300 * (n % 3) + 1}


@needs_binary
class TestConfiguration(unittest.TestCase):
    def test_defaults_and_choices_are_read_from_membudget(self):
        fields = {field["key"]: field for field in json.loads(membudget("fields").stdout)}
        for key, value in measure.defaults().items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            self.assertEqual(fields[key]["default"], text, key)
        for key in measure.CHOICE_KEYS:
            self.assertEqual(measure.choices(key), tuple(fields[key]["choices"]), key)

    def test_eval_output_is_accepted_and_what_runs_is_written_back(self):
        evaluated = json.loads(membudget("--model", "llama-3.1-8b", "--tp", "1", "--mb", "2", "--json").stdout)
        notes = []
        config = measure.resolve_config(measure.flat_config(evaluated), {"seq": 1024}, notes=notes)
        for key in measure.ARCHITECTURE_KEYS:
            self.assertEqual(config[key], evaluated["config"][key], key)
        self.assertEqual((config["mb"], config["seq"], config["model"], config["params"]), (2, 1024, "custom", 0))
        self.assertEqual((config["dp"], config["zero"]), (1, 0))
        self.assertTrue(any(note.startswith("dp:") for note in notes))
        # The configuration written back is one membudget reads, with the same architecture.
        self.assertEqual(membudget_json(config)["parameter_count"], evaluated["parameter_count"])

    def test_hf_configs_map_as_membudget_maps_them(self):
        cases = json.loads((ROOT / "tests" / "fixtures" / "hf-configs.json").read_text())["cases"]
        mapped = 0
        for case in cases:
            if "config" not in case or case["config"].get("model_type") not in ("llama", "mistral", "qwen2"):
                continue
            with self.subTest(case["name"]), tempfile.NamedTemporaryFile("w", suffix=".json") as handle:
                json.dump(case["config"], handle)
                handle.flush()
                expected = json.loads(membudget("--hf-config", handle.name, "--json").stdout)["config"]
                ours = measure.hf_to_config(case["config"])
                for key in (*measure.ARCHITECTURE_KEYS, "head_dim", "gated_ffn", "tied_embeddings", "norm", "bias", "qkv_bias"):
                    self.assertEqual(ours[key], expected[key], key)
                model = measure.build_model(measure.resolve_config(ours, {"tp": 1}), device="meta")
                self.assertEqual(measure.parameter_count(model), case["expect"]["parameter_count"])
                mapped += 1
        self.assertGreaterEqual(mapped, 3)


class TestRefusals(unittest.TestCase):
    def assertRefused(self, field, **overrides):
        with self.assertRaises(measure.MeasureError) as caught:
            resolve(**overrides)
        self.assertTrue(str(caught.exception).startswith(field + ":"), str(caught.exception))

    def test_what_measure_py_cannot_run_is_refused_by_field(self):
        self.assertRefused("tp", tp=2)
        self.assertRefused("pp", pp=4)
        self.assertRefused("optimizer", optimizer="adamw_8bit")
        self.assertRefused("precision", precision="fp8")
        self.assertRefused("experts", experts=8)
        self.assertRefused("dropout", dropout=True)
        self.assertRefused("offload", offload="optimizer")
        self.assertRefused("weight_dtype", mode="inference", weight_dtype="int4")
        self.assertRefused("kv_heads", kv_heads=3)
        self.assertRefused("mb", mb=0)
        self.assertRefused("ckpt", ckpt="some")
        if not hasattr(torch.optim, "Adafactor"):
            self.assertRefused("optimizer", optimizer="adafactor")

    def test_a_preset_without_its_architecture_needs_membudget_to_resolve_it(self):
        with self.assertRaises(measure.MeasureError) as caught:
            measure.resolve_config({"model": "llama-3.1-8b", "mb": 2})
        self.assertIn("hidden", str(caught.exception))
        self.assertIn("membudget --config FILE --json", str(caught.exception))


@needs_binary
class TestParameterCount(unittest.TestCase):
    VARIANTS = [
        {},
        {"gated_ffn": False, "norm": "layernorm", "bias": True, "pos_emb": 64, "tied_embeddings": True},
        {"qkv_bias": True, "tied_embeddings": True},
        {"head_dim": 24, "kv_heads": 1},
        {"bias": True, "kv_heads": 4},
    ]

    def test_the_model_has_membudgets_parameter_count(self):
        for variant in self.VARIANTS:
            with self.subTest(variant):
                config = resolve(**variant)
                model = measure.build_model(config, device="meta")
                self.assertEqual(measure.parameter_count(model), membudget_json(config)["parameter_count"])

    def test_the_validation_set_builds_and_fits_an_80_gb_gpu(self):
        self.assertGreaterEqual(len(CONFIGS), 8)
        modes = set()
        for path in CONFIGS:
            with self.subTest(path.name):
                given = json.loads(path.read_text())
                notes = []
                # check_torch=False: the GPU machine's torch, not this one, must have FP8 tensors.
                config = measure.resolve_config(given, notes=notes, check_torch=False)
                self.assertEqual(notes, [], "a validation config should be exactly what runs")
                result = membudget_json(config)
                self.assertEqual(result["verdict"], "fits")
                self.assertLessEqual(result["capacity_bytes"], 86e9)
                count = measure.parameter_count(measure.build_model(config, device="meta"))
                self.assertEqual(count, result["parameter_count"])
                self.assertTrue(0.4e9 <= count <= 8.1e9, count)
                modes.add(config["mode"])
        self.assertEqual(modes, {"training", "inference"})


class TestPieces(unittest.TestCase):
    def test_custom_autograd_functions_match_their_reference(self):
        torch.manual_seed(1)
        x = torch.randn(2, 3, 8, dtype=torch.float64, requires_grad=True)
        weight = torch.randn(8, dtype=torch.float64, requires_grad=True)
        self.assertTrue(torch.autograd.gradcheck(lambda a, w: measure._RMSNormFunction.apply(a, w, 1e-5), (x, weight)))
        reference = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * weight
        self.assertTrue(torch.allclose(measure._RMSNormFunction.apply(x, weight, 1e-5), reference))
        cos, sin = torch.randn(3, 1, 8, dtype=torch.float64), torch.randn(3, 1, 8, dtype=torch.float64)
        heads = torch.randn(2, 3, 4, 8, dtype=torch.float64, requires_grad=True)
        self.assertTrue(torch.autograd.gradcheck(lambda a: measure._RotaryFunction.apply(a, cos, sin), (heads,)))
        gate, up = (torch.randn(2, 5, dtype=torch.float64, requires_grad=True) for _ in range(2))
        self.assertTrue(torch.autograd.gradcheck(measure._SwiGLUFunction.apply, (gate, up)))
        self.assertTrue(torch.allclose(measure._SwiGLUFunction.apply(gate, up), torch.nn.functional.silu(gate) * up))

    def test_attention_over_a_prefix_is_the_tail_of_full_causal_attention(self):
        torch.manual_seed(2)
        q, k, v = torch.randn(1, 4, 10, 8), torch.randn(1, 2, 10, 8), torch.randn(1, 2, 10, 8)
        for eager in (False, True):
            full = measure.attend(q, k, v, eager)
            self.assertTrue(torch.allclose(measure.attend(q[:, :, 6:], k, v, eager), full[:, :, 6:], atol=1e-5))
            self.assertTrue(torch.allclose(measure.attend(q[:, :, 9:], k, v, eager), full[:, :, 9:], atol=1e-5))
        # GQA: query heads 0 and 1 share KV head 0.
        expanded = measure.attend(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), True)
        self.assertTrue(torch.allclose(measure.attend(q, k, v, True), expanded, atol=1e-6))

    def test_chunked_prefill_gives_the_logits_of_one_full_forward(self):
        config = measure.resolve_config(TINY, {"mode": "inference", "seq": 12, "mb": 3})
        model = measure.build_model(config).eval()
        ids = torch.randint(config["vocab"], (3, 12))
        def prefill(workspace):
            cache = measure.KVCache(config, "cpu")
            last = torch.empty(3, 1, config["vocab"])
            for first, count, offset, length in measure.prefill_passes(3, 12, workspace):
                rows = slice(first, first + count)
                logits = model.forward_cached(ids[rows, offset:offset + length], cache, rows, offset)
                if offset + length == 12:
                    last[rows] = logits
            return last

        with torch.inference_mode():
            whole = prefill(100)  # all three sequences in one pass
            # The cache is BF16 while this model is FP32: close to the uncached forward, not equal.
            self.assertTrue(torch.allclose(whole, model(ids)[:, -1:], atol=1e-2))
            for workspace in (4, 5, 12):
                self.assertTrue(torch.allclose(prefill(workspace), whole, atol=1e-5), workspace)

    def test_prefill_passes_cover_every_token_once_within_the_workspace(self):
        for batch, prompt, workspace in ((4, 10, 25), (3, 10, 4), (1, 7, 7), (5, 3, 1)):
            seen = set()
            for first, count, offset, length in measure.prefill_passes(batch, prompt, workspace):
                self.assertLessEqual(count * length, max(workspace, length))
                for sequence in range(first, first + count):
                    for token in range(offset, offset + length):
                        self.assertNotIn((sequence, token), seen)
                        seen.add((sequence, token))
            self.assertEqual(len(seen), batch * prompt)

    def test_tensor_bytes_count_a_tied_weight_once(self):
        shared = torch.zeros(10, 4, dtype=torch.bfloat16)
        self.assertEqual(measure.tensor_bytes([shared, shared, None, torch.zeros(3)]), 80 + 12)
        tied = measure.build_model(resolve(tied_embeddings=True), device="meta")
        untied = measure.build_model(resolve(tied_embeddings=False), device="meta")
        self.assertEqual(measure.parameter_count(untied) - measure.parameter_count(tied), TINY["vocab"] * TINY["hidden"])

    def test_optimizer_state_bytes_walk_the_state(self):
        weights = [torch.nn.Parameter(torch.zeros(6, 5)), torch.nn.Parameter(torch.zeros(7))]
        adamw = torch.optim.AdamW(weights, foreach=False)
        for p in weights:
            p.grad = torch.ones_like(p)
        self.assertEqual(measure.optimizer_state_bytes([adamw]), 0)
        adamw.step()
        counters = sum(torch.is_tensor(state.get("step")) for state in adamw.state.values()) * 4
        self.assertEqual(measure.optimizer_state_bytes([adamw]), 2 * 4 * 37 + counters)


class TestRecorder(unittest.TestCase):
    def test_phases_activations_and_peak_from_a_fake_allocator(self):
        memory = FakeMemory()
        document = cpu_run(resolve(), memory=memory, steps=3)
        phases = document["phases"]
        self.assertEqual([(p["phase"], p["step"]) for p in phases],
                         [("init", 0)] + [(name, step) for step in (1, 2, 3) for name in ("forward", "backward", "optimizer")])
        self.assertEqual(memory.resets, memory.snapshots + 1)  # reset before the run and after every phase
        for n, phase in enumerate(phases, start=1):
            self.assertEqual(phase["allocated_bytes"], 1000 * n)
            self.assertEqual(phase["peak_allocated_bytes"], 1000 * n + 300 * (n % 3))
        # Activations: the peak of the last forward and backward (snapshots 8 and 9) less what was allocated
        # when step 2's optimizer phase ended (snapshot 7): max(8600, 9000) − 7000.
        self.assertEqual(document["lines"]["activations"], 9000 - 7000)
        self.assertEqual(document["peak"], {"allocated_bytes": max(1000 * n + 300 * (n % 3) for n in range(1, 11)),
                                            "reserved_bytes": 4096 * 10 + 7,
                                            "active_bytes": max(1000 * n + 300 * (n % 3) + 1 for n in range(1, 11))})

    def test_inference_phases(self):
        document = cpu_run(resolve(mode="inference"), memory=FakeMemory(), decode_tokens=3)
        self.assertEqual([p["phase"] for p in document["phases"]], ["weights", "kv_cache", "prefill", "decode"])
        # The workspace: the prefill (snapshot 3, peak 3000) and decode (4, 4300) less the cache's end (2000).
        self.assertEqual(document["lines"]["activations"], 4300 - 2000)
        self.assertEqual(set(document["lines"]), {"parameters", "kv_cache", "activations"})

    def test_without_statistics_nothing_is_invented(self):
        document = cpu_run(resolve())
        self.assertNotIn("phases", document)
        self.assertNotIn("peak", document)
        self.assertEqual(set(document["lines"]), {"parameters", "gradients", "optimizer"})

    def test_the_document_has_the_readme_schema_and_integers_only(self):
        document = cpu_run(resolve(), memory=FakeMemory(), steps=1)
        self.assertEqual(list(document), ["format", "config", "device", "phases", "lines", "peak"])
        self.assertEqual(document["format"], "membudget-measured/1")
        self.assertEqual(set(document["device"]), {"name", "total_memory_bytes", "torch", "cuda", "world_size", "rank"})
        for phase in document["phases"]:
            self.assertEqual(set(phase), {"phase", "step", "allocated_bytes", "reserved_bytes", "active_bytes",
                                          "peak_allocated_bytes", "peak_reserved_bytes", "peak_active_bytes"})
        numbers = [v for p in document["phases"] for k, v in p.items() if k != "phase"]
        numbers += list(document["lines"].values()) + list(document["peak"].values())
        self.assertTrue(all(type(value) is int for value in numbers))
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "out.json")
            measure.write_document(document, path)
            with open(path, encoding="utf-8") as handle:
                self.assertEqual(json.load(handle), document)


@needs_binary
class TestDryRunsAgainstMembudget(unittest.TestCase):
    """Static lines on real tensors, compared by `membudget compare-measured`: exact where both count the same."""

    def test_bf16_adamw_with_master_weights(self):
        document = cpu_run(resolve(precision="bf16", optimizer="adamw", master_weights=True))
        lines = compare_measured(document)
        self.assertEqual(lines["parameters"]["difference_bytes"], 0)
        self.assertEqual(lines["gradients"]["difference_bytes"], 0)
        # torch's AdamW adds a 4-byte step counter per parameter tensor (9 a layer + embedding, final norm, output).
        self.assertEqual(lines["optimizer"]["difference_bytes"], 4 * (9 * TINY["layers"] + 3))
        self.assertIsNone(lines["activations"]["measured_bytes"])

    def test_fp32_sgd(self):
        lines = compare_measured(cpu_run(resolve(precision="fp32", optimizer="sgd", master_weights=False)))
        for line in ("parameters", "gradients", "optimizer"):
            self.assertEqual(lines[line]["difference_bytes"], 0, line)

    def test_bf16_adamw_without_master_weights_keeps_bf16_moments(self):
        config = resolve(precision="bf16", optimizer="adamw", master_weights=False)
        lines = compare_measured(cpu_run(config))
        parameters = measure.parameter_count(measure.build_model(config, device="meta"))
        # membudget counts FP32 moments (8 bytes a parameter); torch keeps them in the parameters' type.
        self.assertEqual(lines["optimizer"]["predicted_bytes"], 8 * parameters)
        self.assertEqual(lines["optimizer"]["measured_bytes"], 4 * parameters + 4 * (9 * TINY["layers"] + 3))

    def test_checkpointing_and_attention_variants_run(self):
        for ckpt in ("none", "selective", "full"):
            for attention in ("flash", "eager"):
                with self.subTest(ckpt=ckpt, attention=attention):
                    lines = compare_measured(cpu_run(resolve(ckpt=ckpt, attention=attention), memory=FakeMemory(), steps=2))
                    self.assertEqual(lines["parameters"]["difference_bytes"], 0)

    def test_inference_weights_and_kv_cache(self):
        for variant in ({}, {"kv_heads": 4, "tied_embeddings": True, "workspace_tokens": 5}):
            config = resolve(mode="inference", seq=20, **variant)
            lines = compare_measured(cpu_run(config, decode_tokens=4))
            self.assertEqual(lines["parameters"]["difference_bytes"], 0)
            self.assertEqual(lines["kv_cache"]["difference_bytes"], 0)


class TestCommandLine(unittest.TestCase):
    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = measure.main(list(argv))
        return status, out.getvalue(), err.getvalue()

    def test_a_cpu_dry_run_writes_the_file(self):
        with tempfile.TemporaryDirectory() as directory:
            config_path, out_path = os.path.join(directory, "config.json"), os.path.join(directory, "measured.json")
            with open(config_path, "w", encoding="utf-8") as handle:
                json.dump(TINY, handle)
            status, _, err = self.run_main(config_path, "--device", "cpu", "--mb", "1", "--steps", "1", "--out", out_path)
            self.assertEqual(status, 0, err)
            with open(out_path, encoding="utf-8") as handle:
                document = json.load(handle)
            self.assertEqual(document["config"]["mb"], 1)
            self.assertEqual(document["device"]["name"], "cpu")

    def test_hf_config_with_flags(self):
        hf = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 160, "num_attention_heads": 4,
              "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128, "hidden_act": "silu"}
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "config.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(hf, handle)
            status, out, err = self.run_main("--hf-config", path, "--mb", "1", "--seq", "8", "--mode", "inference",
                                             "--device", "cpu", "--decode-tokens", "2")
            self.assertEqual(status, 0, err)
            document = json.loads(out)
            self.assertEqual((document["config"]["hidden"], document["config"]["tied_embeddings"]), (64, True))
            self.assertIn("kv_cache", document["lines"])

    def test_bad_input_exits_2_naming_the_field(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "config.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(dict(TINY, tp=4), handle)
            status, _, err = self.run_main(path, "--device", "cpu")
            self.assertEqual(status, 2)
            self.assertIn("error: tp:", err)
            status, _, err = self.run_main(os.path.join(directory, "missing.json"), "--device", "cpu")
            self.assertEqual(status, 2)
            self.assertIn("cannot read", err)

    @unittest.skipIf(torch.cuda.is_available(), "a CUDA device is present")
    def test_cuda_without_a_device_says_so(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "config.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(TINY, handle)
            status, _, err = self.run_main(path)
            self.assertEqual(status, 2)
            self.assertIn("no CUDA device", err)


if __name__ == "__main__":
    unittest.main()
