"""DeepSpeed ZeRO-3 without zero.Init, on the CPU: the gathered weights PyTorch's own F.linear and LayerNorm save
for backward outlive DeepSpeed's release of the parameter, and membudget's "gathered weights autograd saved" tensor
counts them.

DeepSpeed releases a gathered parameter with free_param (deepspeed/runtime/zero/partition_parameters.py):
``param.data = torch.empty(0, ...)``. That drops the parameter's reference to the gathered storage; a view autograd
saved (``MmBackward0.mat2`` is ``weight.t()``) keeps it allocated. zero.Init's zero3_linear_wrap saves the Parameter
itself instead (LinearFunctionForZeroStage3), whose data the release empties. The model is DeepSpeedExamples'
training/bf16_master_weight SimpleTransformerModel at small sizes (nn.MultiheadAttention, post-norm LayerNorm, a GELU
MLP, an untied output layer), with the final norm membudget's architecture has.

The membudget binary is MEMBUDGET_BIN, else build/membudget."""

import json
import os
import subprocess
import unittest
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("MEMBUDGET_BIN") or str(ROOT / "build" / "membudget")
needs_binary = unittest.skipUnless(Path(BINARY).is_file(), "no membudget binary (build it, or set MEMBUDGET_BIN)")

H, HEADS, LAYERS, VOCAB, SEQ, BATCH = 64, 4, 2, 128, 16, 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(H, HEADS, batch_first=True)
        self.norm1 = nn.LayerNorm(H)
        self.norm2 = nn.LayerNorm(H)
        self.ff = nn.Sequential(nn.Linear(H, 4 * H), nn.GELU(), nn.Linear(4 * H, H))

    def forward(self, x):
        attn, _ = self.attention(x, x, x)
        x = self.norm1(x + attn)
        return self.norm2(x + self.ff(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, H)
        self.positions = nn.Embedding(SEQ, H)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(H)
        self.output = nn.Linear(H, VOCAB, bias=False)

    def forward(self, ids):
        x = self.embedding(ids) + self.positions(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.output(self.norm(x))


def saved_parameter_bytes():
    """Bytes of parameter storages still held by autograd after every parameter is released as DeepSpeed does."""
    torch.manual_seed(0)
    model = Model().to(torch.bfloat16)
    storages = {p.data.storage().data_ptr(): p for p in model.parameters()}
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        logits = model(torch.randint(0, VOCAB, (BATCH, SEQ)))
    for p in model.parameters():
        p.data = torch.empty(0, dtype=p.dtype)  # free_param
    held = {t.storage().data_ptr(): t.storage().nbytes() for t in saved if t.storage().data_ptr() in storages}
    del logits
    return sum(held.values())


class Zero3SavedWeights(unittest.TestCase):
    def test_release_leaves_the_saved_views(self):
        held = saved_parameter_bytes()
        # Every matrix but the embeddings (their backward needs only the ids). The norms' weights and biases are
        # saved as the leaves themselves, whose data the release empties: nothing of them is held.
        matrices = LAYERS * (4 * H * H + 8 * H * H) + H * VOCAB
        self.assertEqual(held, 2 * matrices)

    @needs_binary
    def test_membudget_counts_them(self):
        held = saved_parameter_bytes()
        config = {"model": "custom", "hidden": H, "layers": LAYERS, "heads": HEADS, "kv_heads": HEADS, "ffn": 4 * H,
                  "vocab": VOCAB, "gated_ffn": False, "tied_embeddings": False, "norm": "layernorm", "bias": True,
                  "qkv_bias": True, "pos_emb": SEQ, "mb": BATCH, "seq": SEQ, "framework": "deepspeed", "zero": 3,
                  "tp": 1, "dp": 4, "ckpt": "none", "attention": "eager", "zero_init": False, "gpu": "h100-80gb",
                  "method": "membudget", "params": 0}
        result = subprocess.run([BINARY, "eval", "-", "--json"], input=json.dumps(config), capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        tensors = [t for t in json.loads(result.stdout)["tensors"] if "zero.Init" in t["name"]]
        self.assertEqual(len(tensors), 1)
        self.assertEqual(tensors[0]["bytes"], held)


if __name__ == "__main__":
    unittest.main()
