#!/usr/bin/env python3
"""Measure a Hugging Face training step as users run it: transformers' model, accelerate, PEFT, torch AdamW.

Unlike measure.py (which builds membudget's own Llama-style model), this runs the libraries' code itself, so the
figures are what a transformers/accelerate user sees. One configuration per process (the caching allocator's
settings and peaks are per process). Random weights, random token ids, nothing downloaded.

    python3 tools/measure/hf_peak.py --arch llama-3.2-1b --mb 4 --seq 2048 --amp bf16 --out run.json
    python3 tools/measure/hf_peak.py --arch llama-3.2-1b --mb 4 --seq 2048 --amp none --dtype bf16 ...
    python3 tools/measure/hf_peak.py ... --gc            # model.gradient_checkpointing_enable()
    python3 tools/measure/hf_peak.py ... --lora 16 --lora-targets q_proj,v_proj
    python3 tools/measure/hf_peak.py ... --compile       # torch.compile(model)
    python3 tools/measure/hf_peak.py ... --trace t.json.gz  # every allocator event from the model's build on

The loop is transformers' Trainer's (training_step returns loss.detach(), so the outputs die with the step):
zero_grad(set_to_none=True), forward with labels (the model's own ForCausalLMLoss), accelerator.backward, step.
Recorded per step: the peak allocated / reserved / active bytes (torch.cuda.memory_stats, reset before each step)
and the allocated bytes before the step; after the last step, a census of the tensors one forward saves for
backward (torch.autograd.graph.saved_tensors_hooks; storages counted once, parameters apart). Output: one JSON
object (format membudget-hf-peak/1).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import torch

ARCHES = {
    # config.json of meta-llama/Llama-3.2-1B (hidden 2048, 16 layers, 32 heads, 8 KV heads, head_dim 64, tied)
    "llama-3.2-1b": dict(kind="llama", vocab_size=128256, hidden_size=2048, intermediate_size=8192,
                         num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8, head_dim=64,
                         tie_word_embeddings=True, rope_theta=500000.0, rms_norm_eps=1e-5,
                         max_position_embeddings=131072),
    # config.json of Qwen/Qwen3-0.6B (q_norm/k_norm per head, tied)
    "qwen3-0.6b": dict(kind="qwen3", vocab_size=151936, hidden_size=1024, intermediate_size=3072,
                       num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128,
                       tie_word_embeddings=True, rope_theta=1000000.0, rms_norm_eps=1e-6,
                       max_position_embeddings=40960),
}


def build(arch: str, dtype):
    spec = dict(ARCHES[arch])
    kind = spec.pop("kind")
    if kind == "llama":
        from transformers import LlamaConfig as Config, LlamaForCausalLM as Model
    else:
        from transformers import Qwen3Config as Config, Qwen3ForCausalLM as Model
    config = Config(**spec, attention_dropout=0.0)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # built in its own type, as from_pretrained(dtype=...) loads it: no FP32 detour
    try:
        with torch.device("cuda"):
            model = Model(config)
    finally:
        torch.set_default_dtype(default)
    return model


def stats():
    s = torch.cuda.memory_stats()
    return {k: int(s.get(k, 0)) for k in ("allocated_bytes.all.current", "reserved_bytes.all.current",
                                          "active_bytes.all.current", "allocated_bytes.all.peak",
                                          "reserved_bytes.all.peak", "active_bytes.all.peak")}


def census(model, batch):
    """Every storage one forward (and its loss) saves for backward; parameters' storages apart."""
    param_ptrs = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen, saved = set(), []

    def pack(t):
        try:
            st = t.untyped_storage()
            key = (st.data_ptr(), st.nbytes())
        except Exception:  # a tensor without storage (a functional wrapper): count its own bytes
            key = (id(t), t.numel() * t.element_size())
        if key[0] not in param_ptrs and key not in seen:
            seen.add(key)
            saved.append({"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "bytes": key[1]})
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(**batch)
    loss = out.loss
    del out
    total = sum(e["bytes"] for e in saved)
    groups = {}
    for e in saved:
        k = (tuple(e["shape"]), e["dtype"])
        g = groups.setdefault(k, {"shape": e["shape"], "dtype": e["dtype"], "bytes_each": e["bytes"], "count": 0})
        g["count"] += 1
    del loss
    return {"saved_bytes": total, "saved_storages": len(saved),
            "by_shape": sorted(groups.values(), key=lambda g: -g["bytes_each"] * g["count"])}


def write_peak_blocks(snapshot, path):
    """Replays the recorded allocations of the last step and writes the blocks live at its peak (allocated during
    the step; what existed before it is the static memory), largest first, each with its innermost Python frames."""
    trace = snapshot["device_traces"][0]
    live, total, best, best_at = {}, 0, -1, -1
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            live[e["addr"]] = e["size"]
            total += e["size"]
        elif e["action"] == "free_completed" and e["addr"] in live:
            total -= live.pop(e["addr"])
        if total > best:
            best, best_at = total, i
    alive = {}
    for e in trace[: best_at + 1]:
        if e["action"] == "alloc":
            alive[e["addr"]] = e
        elif e["action"] == "free_completed":
            alive.pop(e["addr"], None)
    rows = []
    for e in sorted(alive.values(), key=lambda e: -e["size"]):
        frames = [f"{f['filename'].split('/')[-1]}:{f['line']} {f['name']}" for f in e.get("frames", [])
                  if "torch/utils" not in f["filename"]][:4]
        rows.append({"bytes": e["size"], "frames": frames})
    with open(path, "w") as f:
        json.dump({"peak_bytes_above_start": best, "event_index": best_at, "events": len(trace), "blocks": rows[:80]}, f,
                  indent=1)


def write_trace(snapshot, marks, path, args):
    """The caching allocator's own event stream from before the model was built (torch.cuda.memory history, no
    stacks): each event as [action, address, size, stream], and the event index at which each step began and
    ended, so a simulation of the allocator can replay the same requests and be checked segment by segment."""
    import gzip
    codes = {"alloc": "a", "free_requested": "r", "free_completed": "f", "segment_alloc": "S", "segment_free": "F",
             "segment_map": "M", "segment_unmap": "U", "oom": "O", "snapshot": "s"}
    trace = snapshot["device_traces"][0]
    events = [[codes.get(e["action"], e["action"]), e["addr"], e["size"], e.get("stream", 0)] for e in trace]
    with gzip.open(path, "wt") as f:
        json.dump({"format": "membudget-alloc-trace/1", "args": args, "torch": torch.__version__,
                   "device": torch.cuda.get_device_name(), "marks": marks, "events": events}, f)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", choices=sorted(ARCHES), default="llama-3.2-1b")
    ap.add_argument("--mb", type=int, default=4)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--amp", choices=["bf16", "none"], default="bf16", help="accelerate mixed_precision")
    ap.add_argument("--dtype", choices=["fp32", "bf16"], default="fp32", help="the model's parameters")
    ap.add_argument("--gc", action="store_true", help="model.gradient_checkpointing_enable()")
    ap.add_argument("--lora", type=int, default=0, help="LoRA rank (peft); 0: full fine-tuning")
    ap.add_argument("--lora-targets", default="q_proj,v_proj")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--snapshot", help="write the live blocks at the last step's peak here (torch.cuda.memory history)")
    ap.add_argument("--trace", help="write every allocator event (gzip JSON) here, from before the model's build")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    marks = []

    def mark(name):  # the index of the next allocator event
        if a.trace:
            torch.cuda.synchronize()
            marks.append([name, len(torch.cuda.memory._snapshot()["device_traces"][0])])

    if a.trace:
        torch.cuda.init()
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python",
                                                 max_entries=4_000_000)

    import accelerate
    import transformers
    from accelerate import Accelerator

    t0 = time.time()
    model = build(a.arch, torch.float32 if a.dtype == "fp32" else torch.bfloat16)
    if a.gc:
        model.gradient_checkpointing_enable()
    if a.lora:
        import peft
        lcfg = peft.LoraConfig(r=a.lora, lora_alpha=2 * a.lora, lora_dropout=0.0,
                               target_modules=a.lora_targets.split(","), task_type="CAUSAL_LM")
        model = peft.get_peft_model(model, lcfg)
    model.train()
    accelerator = Accelerator(mixed_precision="no" if a.amp == "none" else a.amp)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-5)
    model, optimizer = accelerator.prepare(model, optimizer)
    if a.compile:
        model = torch.compile(model)
    torch.cuda.synchronize()
    vocab = ARCHES[a.arch]["vocab_size"]
    g = torch.Generator(device="cuda").manual_seed(0)

    def batch():
        ids = torch.randint(0, vocab, (a.mb, a.seq), device="cuda", generator=g)
        return {"input_ids": ids, "labels": ids}

    def training_step(b):
        out = model(**b)
        loss = out.loss
        del out
        accelerator.backward(loss)
        return loss.detach()

    steps = []
    for step in range(1, a.steps + 1):
        if a.snapshot and step == a.steps:
            torch.cuda.memory._record_memory_history(max_entries=1_000_000, stacks="python")
        optimizer.zero_grad(set_to_none=True)
        mark(f"step {step}")
        torch.cuda.synchronize()
        before = stats()
        torch.cuda.reset_peak_memory_stats()
        b = batch()
        training_step(b)
        torch.cuda.synchronize()
        after_backward = stats()
        mark(f"step {step} optimizer")
        optimizer.step()
        torch.cuda.synchronize()
        after = stats()
        steps.append({"step": step, "allocated_before": before["allocated_bytes.all.current"],
                      "reserved_before": before["reserved_bytes.all.current"],
                      "peak_allocated_forward_backward": after_backward["allocated_bytes.all.peak"],
                      "peak_allocated": after["allocated_bytes.all.peak"],
                      "peak_reserved": after["reserved_bytes.all.peak"],
                      "peak_active": after["active_bytes.all.peak"],
                      "allocated_after": after["allocated_bytes.all.current"]})
        del b
    mark("end")
    if a.trace:
        write_trace(torch.cuda.memory._snapshot(), marks, a.trace, vars(a))
        torch.cuda.memory._record_memory_history(enabled=None)
    if a.snapshot:
        write_peak_blocks(torch.cuda.memory._snapshot(), a.snapshot)
        torch.cuda.memory._record_memory_history(enabled=None)
    params = sum(p.numel() for p in model.parameters())
    param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    grad_bytes = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    opt_bytes = sum(v.numel() * v.element_size() for st in optimizer.state.values() for v in st.values()
                    if torch.is_tensor(v))
    optimizer.zero_grad(set_to_none=True)
    try:
        cen = census(model, batch())
    except Exception as e:  # saved-tensor hooks a compiled graph refuses: say so, keep the peaks
        cen = {"error": f"{type(e).__name__}: {e}"[:500], "saved_bytes": 0}
    result = {
        "format": "membudget-hf-peak/1", "args": vars(a),
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "accelerate": accelerate.__version__, "cuda": torch.version.cuda,
                     "device": torch.cuda.get_device_name()},
        "parameters": params, "trainable": sum(p.numel() for p in trainable),
        "lines": {"parameters": param_bytes, "gradients": grad_bytes, "optimizer": opt_bytes},
        "steps": steps, "census": cen, "seconds": round(time.time() - t0, 1),
    }
    text = json.dumps(result, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    last = steps[-1]
    print(f"{a.out or ''}: peak allocated {last['peak_allocated'] / 2**30:.3f} GiB, reserved "
          f"{last['peak_reserved'] / 2**30:.3f} GiB, saved {cen['saved_bytes'] / 2**30:.3f} GiB, "
          f"{result['seconds']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
