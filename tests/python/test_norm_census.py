"""The norms beyond a Llama layer's two, on the CPU: what transformers' query/key norms (Qwen3, OLMo 2) and post-norms
(GLM-4) save for backward, against membudget's "query/key norm" and "post-attention and post-MLP norm" tensors.

The norms are transformers' own code: Qwen3RMSNorm / Glm4RMSNorm / Olmo2RMSNorm (modeling_qwen3.py, modeling_glm4.py,
modeling_olmo2.py) compute in FP32 by hand, ``weight * hidden_states.to(input_dtype)``. Qwen3Attention normalises
each head, ``q_norm(q_proj(x).view(*input_shape, -1, head_dim))``; Olmo2Attention the whole projection,
``q_norm(q_proj(x))`` with an RMSNorm of num_heads * head_dim (and num_key_value_heads * head_dim for k). Glm4's
decoder layer adds post_self_attn_layernorm and post_mlp_layernorm on the blocks' outputs. Every storage autograd
saves inside the norms is counted once; parameters are not activations. The framework is torchtune, whose RMSNorm
saves the same tensors (FP32 copy, rstd, the normalised input before the scale).

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

B, S, H, HEADS, KV, D = 2, 24, 64, 4, 2, 32  # head_dim 32 is not H / HEADS, as in Qwen3


class RMSNorm(nn.Module):
    """transformers Qwen3RMSNorm (= LlamaRMSNorm, Glm4RMSNorm, Olmo2RMSNorm)."""

    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def saved_bytes(run, parameters):
    """Bytes of the storages autograd saves while run() executes, parameters left out, each storage once.

    Read from the graph's nodes (``_saved_<arg>``), so that PyTorch 1.13's MeanBackward1 ``self`` is left out as
    tools/measure/census.py leaves it out (DROP_1_13: torch >= 2.0 saves only the sizes for mean.dim)."""
    owned = {p.data.storage().data_ptr() for p in parameters}
    outputs = run()
    storages, seen, stack = {}, set(), [o.grad_fn for o in outputs]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if not name.startswith("_saved_") or (type(node).__name__ == "MeanBackward1" and name == "_saved_self"):
                continue
            value = getattr(node, name)
            if isinstance(value, torch.Tensor) and value.storage().data_ptr() not in owned:
                storages[value.storage().data_ptr()] = value.storage().nbytes()
        stack.extend(f for f, _ in node.next_functions)
    return sum(storages.values())


def projections(width_q, width_k):
    torch.manual_seed(0)
    x = torch.randn(B, S, H, dtype=torch.bfloat16, requires_grad=True)
    q_proj = nn.Linear(H, width_q, bias=False).to(torch.bfloat16)
    k_proj = nn.Linear(H, width_k, bias=False).to(torch.bfloat16)
    # Leaves of their own, so that the walk stops at the norms' inputs (the projections save x and their weights).
    return q_proj(x).detach().requires_grad_(), k_proj(x).detach().requires_grad_()


def qwen3_norms():
    q, k = projections(HEADS * D, KV * D)
    q_norm, k_norm = RMSNorm(D).to(torch.bfloat16), RMSNorm(D).to(torch.bfloat16)
    return saved_bytes(lambda: (q_norm(q.view(B, S, -1, D)), k_norm(k.view(B, S, -1, D))),
                       [*q_norm.parameters(), *k_norm.parameters()])


def olmo2_norms():
    q, k = projections(HEADS * D, KV * D)
    q_norm, k_norm = RMSNorm(HEADS * D).to(torch.bfloat16), RMSNorm(KV * D).to(torch.bfloat16)
    return saved_bytes(lambda: (q_norm(q), k_norm(k)), [*q_norm.parameters(), *k_norm.parameters()])


def glm4_post_norms():
    torch.manual_seed(0)
    attention_out = torch.randn(B, S, H, dtype=torch.bfloat16, requires_grad=True)
    mlp_out = torch.randn(B, S, H, dtype=torch.bfloat16, requires_grad=True)
    after_attention, after_mlp = RMSNorm(H).to(torch.bfloat16), RMSNorm(H).to(torch.bfloat16)
    return saved_bytes(lambda: (after_attention(attention_out), after_mlp(mlp_out)),
                       [*after_attention.parameters(), *after_mlp.parameters()])


def membudget_layer_bytes(name_start, **architecture):
    config = {"model": "custom", "params": 0, "hidden": H, "layers": 2, "heads": HEADS, "kv_heads": KV, "head_dim": D,
              "ffn": 128, "vocab": 256, "mb": B, "seq": S, "framework": "torchtune", "tp": 1, "dp": 1, "zero": 0,
              "ckpt": "none", "gpu": "h100-80gb", "method": "membudget", **architecture}
    result = subprocess.run([BINARY, "eval", "-", "--json"], input=json.dumps(config), capture_output=True, text=True,
                            timeout=60)
    if result.returncode != 0:
        raise AssertionError(result.stderr)
    tensors = [t for t in json.loads(result.stdout)["tensors"] if t["name"].startswith(name_start)]
    assert tensors, f"no tensor named {name_start}"
    return sum(t["bytes_per_copy"] * t["copies"] / 2 for t in tensors)  # per layer (2 layers)


class NormCensus(unittest.TestCase):
    def test_the_norms_save_an_fp32_copy_rstd_and_the_normalised_input(self):
        elements = B * S * (HEADS + KV) * D
        self.assertEqual(qwen3_norms(), 4 * elements + 4 * B * S * (HEADS + KV) + 2 * elements)
        self.assertEqual(olmo2_norms(), 4 * elements + 4 * B * S * 2 + 2 * elements)
        self.assertEqual(glm4_post_norms(), 2 * (4 * B * S * H + 4 * B * S + 2 * B * S * H))

    @needs_binary
    def test_membudget_counts_them(self):
        self.assertEqual(membudget_layer_bytes("query/key norm", qk_norm="per_head"), qwen3_norms())
        self.assertEqual(membudget_layer_bytes("query/key norm", qk_norm="full_width"), olmo2_norms())
        self.assertEqual(membudget_layer_bytes("post-attention and post-MLP norm", post_norms=True), glm4_post_norms())


if __name__ == "__main__":
    unittest.main()
