#!/usr/bin/env python3
"""The loss's own peak on a GPU, as torchtune runs it unchunked under compile: logits = output(h).float() (the model's
unembed), then torch.compile(nn.CrossEntropyLoss()) (training.compile_loss), backward. Prints the blocks live at the
peak (hf_peak.py's write_peak_blocks) and the peak above the inputs.

    python3 tools/measure/loss_peak.py --tokens 8192 --hidden 3072 --vocab 128256 --out loss.json
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_peak import write_peak_blocks  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--hidden", type=int, default=3072)
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--eager", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.manual_seed(0)
    w = torch.randn(a.vocab, a.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, a.vocab, (a.tokens,), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-100)
    if not a.eager:
        loss_fn = torch.compile(loss_fn)
    for step in range(3):
        h = torch.randn(a.tokens, a.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        w.grad = None
        torch.cuda.synchronize()
        if step == 2:
            base = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            torch.cuda.memory._record_memory_history(max_entries=100000, stacks="python")
        logits = F.linear(h, w).float()
        loss = loss_fn(logits, labels)
        del logits
        loss.backward()
        torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    write_peak_blocks(torch.cuda.memory._snapshot(), a.out)
    doc = json.load(open(a.out))
    doc.update({"peak_above_inputs": peak, "logit_elements": a.tokens * a.vocab, "eager": a.eager, "torch": torch.__version__})
    json.dump(doc, open(a.out, "w"), indent=1)
    print(f"peak above inputs {peak / 2**30:.3f} GiB = {peak / (a.tokens * a.vocab):.2f} B per logit", file=sys.stderr)


if __name__ == "__main__":
    main()
