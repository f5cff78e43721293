#!/usr/bin/env python3
"""What a compiled block saves for backward, on a GPU: census.py's torchtitan and torchtune blocks, eager and under
torch.compile as the frameworks apply it (torchtitan apply_compile: each block torch.compile(fullgraph=True);
torchtune training.compile_model: layer.compile()), with CUDA's own kernels (SDPA, F.rms_norm) in place of the
CPU emulations. Each saved storage is counted once (torch.autograd.graph.saved_tensors_hooks; a compiled graph's
saved tensors are its CompiledFunction's), parameters apart; the block's input counts (the block saves it).

    python3 tools/measure/compile_census.py --out census.json      # needs a CUDA build of torch >= 2.5
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import census as cz  # noqa: E402  (the reproductions of the frameworks' model code)


def real_kernels():
    cz.sdpa = lambda q, k, v, is_causal=True, scale=None: F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale)
    cz.ScaledDotProductAttentionWrapper.forward = (
        lambda self, q, k, v, *, scale=None, enable_gqa=False, is_causal=True:
        F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale, enable_gqa=enable_gqa))
    cz.TorchRMSNorm.forward = lambda self, x: F.rms_norm(x, self.normalized_shape, self.weight, self.eps)


def build(framework, b, s, h, heads, kv, ffn, layers):
    V = 1024
    if framework.startswith("torchtitan"):
        a = {"dim": h, "n_layers": layers, "n_heads": heads, "n_kv_heads": kv, "vocab_size": V,
             "multiple_of": cz.titan_multiple_of(h, ffn), "ffn_dim_multiplier": None, "norm_eps": 1e-5,
             "rope_theta": 500000, "max_seq_len": s}
        model = cz.TitanTransformer(a, gqa_native=(framework == "torchtitan_gqa")).cuda()
        for p in model.parameters():
            p.data = p.data.to(torch.bfloat16)
        blocks = list(model.layers.values())
        call = lambda blk, x: blk(x, model.freqs_cis, attention_masks=None, positions=None)  # noqa: E731
    else:
        prev = torch.get_default_dtype()
        torch.set_default_dtype(torch.bfloat16)
        try:
            model = cz.tune_llama3(vocab_size=V, num_layers=layers, num_heads=heads, num_kv_heads=kv, embed_dim=h,
                                   max_seq_len=s, intermediate_dim=ffn).cuda()
        finally:
            torch.set_default_dtype(prev)
        blocks = list(model.layers)
        call = lambda blk, x: blk(x, mask=None, encoder_input=None, encoder_mask=None, input_pos=None)  # noqa: E731
    return model, blocks, call


def run(framework, compiled, b, s, h, heads, kv, ffn, layers):
    torch.manual_seed(0)
    model, blocks, call = build(framework, b, s, h, heads, kv, ffn, layers)
    if compiled:
        blocks = [torch.compile(blk, fullgraph=framework.startswith("torchtitan")) for blk in blocks]
    x0 = torch.randn(b, s, h, device="cuda", dtype=torch.bfloat16)

    def forward():
        x = x0.clone().requires_grad_()
        y = x
        for blk in blocks:
            y = call(blk, y)
        return x, y

    _, y = forward()  # compile and warm up outside the census
    y.float().sum().backward()
    del y
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    params |= {t.untyped_storage().data_ptr() for t in model.buffers()}
    seen, per_layer = set(), []
    current = []

    def pack(t):
        st = t.untyped_storage()
        key = (st.data_ptr(), st.nbytes())
        if key[0] not in params and key not in seen:
            seen.add(key)
            current.append({"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "bytes": key[1]})
        return t

    x = x0.clone().requires_grad_()
    y = x
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        for blk in blocks:
            current = []
            seen.add((y.untyped_storage().data_ptr(), y.untyped_storage().nbytes()))
            current.append({"shape": list(y.shape), "dtype": str(y.dtype).replace("torch.", ""),
                            "bytes": y.untyped_storage().nbytes(), "note": "block input"})
            y = call(blk, y)
            per_layer.append(current)
    last = per_layer[-1]
    return {"framework": framework, "compiled": compiled, "size": dict(b=b, s=s, h=h, heads=heads, kv=kv, ffn=ffn),
            "layer_bytes": [sum(e["bytes"] for e in layer) for layer in per_layer], "last_layer": last}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="2,2048,3072,24,8,8192", help="b,s,h,heads,kv_heads,ffn")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    b, s, h, heads, kv, ffn = (int(v) for v in a.size.split(","))
    real_kernels()
    results = []
    for framework in ("torchtune", "torchtitan_gqa", "torchtitan"):
        for compiled in (False, True):
            try:
                r = run(framework, compiled, b, s, h, heads, kv, ffn, a.layers)
            except Exception as e:  # report and go on: one failure must not lose the others
                r = {"framework": framework, "compiled": compiled, "error": f"{type(e).__name__}: {e}"[:800]}
            results.append(r)
            print(framework, compiled, r.get("layer_bytes", r.get("error")), file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
    doc = {"format": "membudget-compile-census/1", "torch": torch.__version__, "results": results}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
