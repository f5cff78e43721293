#!/usr/bin/env python3
"""How far the CUDA caching allocator's reserve runs above what a dropless-MoE step allocates.

A question membudget cannot answer from a framework's source alone: with dropless routing, the rows an expert rank
receives change every layer and step, so the big dispatch buffers (rows x hidden) change size; the caching
allocator reuses a freed block of max_split_size_mb or more only for a request within
max_non_split_rounding_size (20 MiB) of it (c10/cuda/CUDACachingAllocator.cpp get_free_block). This runs the
per-rank pattern of an expert-parallel MoE stack under full activation checkpointing (torchtitan's MoE: router,
token gather, torch._grouped_mm SwiGLU experts, index_add combine; attention through SDPA), with the received
rows drawn per layer and step as rows = tokens * top_k * (1 + u), u uniform in [-imbalance, +imbalance], and
reports the peak allocated and reserved bytes. Run it once per allocator setting (PYTORCH_CUDA_ALLOC_CONF is read
when CUDA starts):

    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128 \
        python3 tools/measure/moe_alloc.py --imbalance 0.3 --out run.json

Shapes default to Qwen3-30B-A3B on one of eight expert-parallel ranks (hidden 2048, 32 heads, 4 KV heads,
head_dim 128, 16 local experts of 128, top-8, expert ffn 768, 48 layers), 8 x 4096 tokens per rank. Parameters
are BF16 with BF16 gradients and no optimizer (what fragments is the activation traffic).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

ALIGN = 16  # torchtitan pads each expert's token group to a multiple of 16 rows for torch._grouped_mm


class Block(nn.Module):
    def __init__(self, a, index):
        super().__init__()
        h, d = a.hidden, a.head_dim
        self.a, self.index = a, index
        self.norm1, self.norm2 = nn.RMSNorm(h), nn.RMSNorm(h)
        self.wq, self.wk = nn.Linear(h, a.heads * d, bias=False), nn.Linear(h, a.kv_heads * d, bias=False)
        self.wv, self.wo = nn.Linear(h, a.kv_heads * d, bias=False), nn.Linear(a.heads * d, h, bias=False)
        self.router = nn.Linear(h, a.experts_total, bias=False)
        scale = 0.02
        self.w1 = nn.Parameter(torch.randn(a.local_experts, h, a.expert_ffn) * scale)
        self.w3 = nn.Parameter(torch.randn(a.local_experts, h, a.expert_ffn) * scale)
        self.w2 = nn.Parameter(torch.randn(a.local_experts, a.expert_ffn, h) * scale)

    def rows(self):
        a = self.a
        rng = random.Random(hash((a.seed, a.step, self.index)))
        tokens = a.mb * a.seq
        r = tokens * a.top_k * (1 + rng.uniform(-a.imbalance, a.imbalance))
        groups = [rng.random() + 0.5 for _ in range(a.local_experts)]
        total = sum(groups)
        sizes = [max(ALIGN, int(r * g / total) // ALIGN * ALIGN) for g in groups]
        return sizes, rng.randrange(1 << 30)

    def forward(self, x):
        a = self.a
        b, s, h = x.shape
        y = self.norm1(x)
        q = self.wq(y).view(b, s, a.heads, a.head_dim).transpose(1, 2)
        k = self.wk(y).view(b, s, a.kv_heads, a.head_dim).transpose(1, 2)
        v = self.wv(y).view(b, s, a.kv_heads, a.head_dim).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.wo(o.transpose(1, 2).reshape(b, s, -1))
        y = self.norm2(x).view(b * s, h)
        scores = torch.sigmoid(self.router(y).float())  # the router's scores (its top-k picks are emulated)
        sizes, seed = self.rows()
        gen = torch.Generator(device=x.device).manual_seed(seed)
        idx = torch.randint(0, b * s, (sum(sizes),), device=x.device, generator=gen)
        xs = y.index_select(0, idx)  # the received tokens, grouped by local expert
        offs = torch.tensor(sizes, device=x.device, dtype=torch.int32).cumsum(0, dtype=torch.int32)
        h1 = torch._grouped_mm(xs, self.w1, offs=offs)
        h3 = torch._grouped_mm(xs, self.w3, offs=offs)
        out = torch._grouped_mm(F.silu(h1) * h3, self.w2, offs=offs)
        w = scores[idx, idx % a.experts_total].unsqueeze(1)  # one score per received row
        moe = torch.zeros_like(y).index_add_(0, idx, (out.float() * w).to(y.dtype))
        return x + moe.view(b, s, h)


def main(argv=None):
    ap = argparse.ArgumentParser()
    for name, default in (("hidden", 2048), ("heads", 32), ("kv_heads", 4), ("head_dim", 128), ("layers", 48),
                          ("experts_total", 128), ("local_experts", 16), ("top_k", 8), ("expert_ffn", 768),
                          ("mb", 8), ("seq", 4096), ("steps", 3), ("seed", 0)):
        ap.add_argument("--" + name.replace("_", "-"), type=int, default=default)
    ap.add_argument("--imbalance", type=float, default=0.3)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    a.step = 0
    with torch.device("cuda"):
        blocks = nn.ModuleList(Block(a, i) for i in range(a.layers)).to(torch.bfloat16)
    torch.cuda.synchronize()
    static = torch.cuda.memory_allocated()
    steps = []
    for step in range(1, a.steps + 1):
        a.step = step
        for p in blocks.parameters():
            p.grad = None
        torch.cuda.reset_peak_memory_stats()
        x = torch.randn(a.mb, a.seq, a.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        for blk in blocks:
            x = checkpoint(blk, x, use_reentrant=False)
        x.float().pow(2).mean().backward()
        del x
        torch.cuda.synchronize()
        s = torch.cuda.memory_stats()
        steps.append({"step": step, "peak_allocated": s["allocated_bytes.all.peak"],
                      "peak_reserved": s["reserved_bytes.all.peak"], "reserved_after": s["reserved_bytes.all.current"],
                      "allocated_after": s["allocated_bytes.all.current"],
                      "segments": s.get("segment.all.current", 0), "oversize_segments": s.get("oversize_segments.current", 0),
                      "oversize_allocations": s.get("oversize_allocations.peak", 0)})
    result = {"format": "membudget-moe-alloc/1", "args": {k: v for k, v in vars(a).items() if k != "step"},
              "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", os.environ.get("PYTORCH_ALLOC_CONF", "")),
              "torch": torch.__version__, "static_allocated": static, "steps": steps}
    if a.out:
        with open(a.out, "w") as f:
            f.write(json.dumps(result, indent=1) + "\n")
    last = steps[-1]
    print(f"{result['alloc_conf'] or 'default'} imbalance {a.imbalance}: allocated {last['peak_allocated'] / 2**30:.2f} "
          f"GiB, reserved {last['peak_reserved'] / 2**30:.2f} GiB (max over steps "
          f"{max(x['peak_reserved'] for x in steps) / 2**30:.2f})", file=sys.stderr)


if __name__ == "__main__":
    main()
