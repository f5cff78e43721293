#!/usr/bin/env python3
"""Measure on a GPU the four figures the serving-speed model takes from published measurements (docs/constants.md):

- the share of HBM's bandwidth a decode step's weight reads reach (decodeHbmFraction): F.linear of batch B against a
  layer stack's weights larger than L2, B = 1 … 512, bytes read ÷ time; and a plain copy and a read-only sum;
- the host time of one eager launch (eagerLaunchSeconds): a Python loop of N ops, host time per op, for the ops a
  decode step launches (an in-place add, an add that allocates, a small linear, RMSNorm, decode attention);
- a small kernel's time on the GPU (smallKernelSeconds) and the gap between graph nodes (graphNodeSeconds): a CUDA
  graph of N tiny kernels replayed, each kernel's start and end from the profiler (CUPTI), so per node = duration +
  gap, apart;
- a real decode step: a Llama-3.1-8B-shaped stack (random bf16 weights, preallocated KV cache, SDPA decode
  attention, greedy sampling) at batch 1 … 256, eager and as one CUDA graph, its time per step and, from the
  profiler, its kernels: count, time in GEMMs / attention / the rest, and the idle time between them.

One JSON object (format membudget-serving-bench/1) to --out, each part as it finishes (a run cut short keeps what it
measured). `--device cpu --small` runs every part on tiny shapes for a syntax and logic check (no timings meant).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

RESULT: dict = {"format": "membudget-serving-bench/1"}


def save(path):
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump(RESULT, f, indent=1)
        os.replace(path + ".tmp", path)


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, file=sys.stderr, flush=True)


class Clock:
    """Elapsed GPU time of a callable, by CUDA events (or the wall clock on the CPU)."""

    def __init__(self, dev):
        self.cuda = dev.type == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def time(self, fn, reps, warm=3):
        for _ in range(warm):
            fn()
        self.sync()
        if self.cuda:
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(reps):
                fn()
            b.record()
            b.synchronize()
            return a.elapsed_time(b) / 1e3 / reps
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        return (time.perf_counter() - t) / reps


def kernels_of(prof_fn, dev):
    """Runs prof_fn under the profiler and returns the GPU kernels it ran as (name, start_us, dur_us), by start."""
    if dev.type != "cuda":
        return []
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        prof_fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    p.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    os.unlink(path)
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    ks = [(e.get("name", ""), float(e["ts"]), float(e.get("dur", 0))) for e in ev
          if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")]
    return sorted(ks, key=lambda k: k[1])


def kind_of(name):
    n = name.lower()
    if any(s in n for s in ("flash", "fmha", "attention", "sdpa")):
        return "attention"
    if any(s in n for s in ("gemm", "gemv", "nvjet", "cutlass", "sm90_xmma", "cublas", "splitk")):
        return "gemm"
    return "other"


def summarize(ks, steps):
    """Per step: kernel count, busy time by kind, span from the first start to the last end, and idle = span − busy."""
    if not ks:
        return None
    busy = {"gemm": 0.0, "attention": 0.0, "other": 0.0}
    count = {"gemm": 0, "attention": 0, "other": 0}
    for name, _, dur in ks:
        busy[kind_of(name)] += dur
        count[kind_of(name)] += 1
    span = ks[-1][1] + ks[-1][2] - ks[0][1]
    total = sum(busy.values())
    other = sorted(d for n, _, d in ks if kind_of(n) == "other")
    return {"kernels_per_step": len(ks) / steps, "count_per_step": {k: v / steps for k, v in count.items()},
            "busy_us_per_step": {k: v / steps for k, v in busy.items()}, "span_us_per_step": span / steps,
            "idle_us_per_step": (span - total) / steps,
            "idle_us_per_gap": (span - total) / max(1, len(ks) - steps),
            "other_kernel_median_us": other[len(other) // 2] if other else None,
            "names": {k: sorted({n[:100] for n, _, _ in ks if kind_of(n) == k})[:6] for k in ("gemm", "attention")},
            "top_other": sorted(((d, n[:80]) for n, _, d in ks if kind_of(n) == "other"), reverse=True)[:3]}


def make_sdpa(dev, dt):
    """Decode attention q [B, H, 1, d] over k, v [B, K, L, d]: PyTorch's SDPA with enable_gqa where it has it (2.5+),
    else K and V repeated to H heads; a plain softmax where SDPA is missing (torch < 2.0, the CPU check only)."""
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is not None:
        try:
            t = torch.zeros(1, 2, 1, 8, device=dev, dtype=dt)
            sdpa(t, t[:, :1], t[:, :1], enable_gqa=True)
            return lambda q, k, v: sdpa(q, k, v, enable_gqa=True)
        except (TypeError, RuntimeError):
            pass

    def repeated(q, k, v):
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        if sdpa is not None:
            return sdpa(q, k, v)
        return torch.softmax((q @ k.transpose(-1, -2)).float() / q.shape[-1] ** 0.5, -1).to(q.dtype) @ v
    return repeated


def part_hbm(dev, dt, small, clock):
    """Decode's weight reads: batch B against the weights of whole Llama-3.1-8B layers (qkv, o, gate_up, down)."""
    h, ffn, q, kv = (256, 512, 256, 64) if small else (4096, 14336, 4096, 1024)
    layers = 2 if small else 8
    ws = []
    for _ in range(layers):
        ws += [torch.randn(q + 2 * kv, h, device=dev, dtype=dt), torch.randn(h, q, device=dev, dtype=dt),
               torch.randn(2 * ffn, h, device=dev, dtype=dt), torch.randn(h, ffn, device=dev, dtype=dt)]
    wbytes = sum(w.numel() * w.element_size() for w in ws)
    flops_per_row = 2 * sum(w.numel() for w in ws)
    rows = []
    for b in ([1, 4, 16] if small else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]):
        xh, xf = torch.randn(b, h, device=dev, dtype=dt), torch.randn(b, ffn, device=dev, dtype=dt)

        def run():
            for i, w in enumerate(ws):
                F.linear(xf if i % 4 == 3 else xh, w)
        s = clock.time(run, 2 if small else 20)
        rows.append({"batch": b, "seconds": s, "weight_bytes": wbytes, "bytes_per_second": wbytes / s,
                     "tflops": b * flops_per_row / s / 1e12})
        log(f"hbm linear B={b}: {wbytes / s / 1e12:.3f} TB/s, {b * flops_per_row / s / 1e12:.1f} TFLOP/s")
    ws.clear()
    n = (1 << 20) if small else (1 << 30)  # 2 GiB of bf16
    src, dst = torch.randn(n, device=dev, dtype=dt), torch.empty(n, device=dev, dtype=dt)
    copy_s = clock.time(lambda: dst.copy_(src), 3 if small else 20)
    sum_s = clock.time(lambda: src.sum(dtype=torch.float32), 3 if small else 20)
    nb = n * src.element_size()
    log(f"copy {2 * nb / copy_s / 1e12:.3f} TB/s (read + write), sum {nb / sum_s / 1e12:.3f} TB/s")
    src = dst = None
    return {"linear": rows, "copy": {"bytes_moved": 2 * nb, "seconds": copy_s}, "sum": {"bytes_read": nb, "seconds": sum_s}}


def part_launch(dev, dt, small, clock):
    """Host time per eager op (no synchronisation inside the loop), and the GPU's time per op for the same loop."""
    n = 200 if small else 20000
    h = 256 if small else 4096
    a = torch.zeros(1, device=dev, dtype=dt)
    x = torch.randn(8, h, device=dev, dtype=dt)
    w = torch.randn(h, h, device=dev, dtype=dt)
    g = torch.ones(h, device=dev, dtype=dt)
    q = torch.randn(*((2, 4, 1, 64) if small else (8, 32, 1, 128)), device=dev, dtype=dt)
    k = torch.randn(*((2, 2, 32, 64) if small else (8, 8, 256, 128)), device=dev, dtype=dt)
    rms = getattr(F, "rms_norm", None)
    sdpa = make_sdpa(dev, dt)
    ops = {"add_inplace": lambda: a.add_(1), "add_alloc": lambda: torch.add(a, 1), "linear_8xh": lambda: F.linear(x, w),
           "rms_norm": (lambda: rms(x, (h,), g)) if rms else (lambda: x * torch.rsqrt(x.float().pow(2).mean(-1, True)).to(dt)),
           "sdpa_decode": lambda: sdpa(q, k, k)}
    out = {}
    for name, fn in ops.items():
        for _ in range(50):
            fn()
        clock.sync()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        host = (time.perf_counter() - t0) / n
        clock.sync()
        wall = (time.perf_counter() - t0) / n
        out[name] = {"host_seconds_per_op": host, "wall_seconds_per_op": wall, "ops": n}
        log(f"eager {name}: host {host * 1e6:.2f} us/op, wall {wall * 1e6:.2f} us/op")
    return out


def part_graph(dev, dt, small):
    """A CUDA graph of N tiny kernels: per node from events, and each kernel's duration and the gaps from CUPTI."""
    if dev.type != "cuda":
        return None
    n = 1000
    a = torch.zeros(1, device=dev, dtype=dt)
    big = torch.zeros(1 << 20, device=dev, dtype=dt)  # 2 MB: a kernel a little longer than the floor
    res = {}
    for name, fn in {"tiny_add": lambda: a.add_(1), "add_2MB": lambda: big.add_(1)}.items():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n):
                fn()
        clock = Clock(dev)
        per_replay = clock.time(g.replay, 20)
        ks = kernels_of(lambda: [g.replay() for _ in range(3)], dev)
        durs = sorted(d for _, _, d in ks)
        gaps = sorted(ks[i + 1][1] - (ks[i][1] + ks[i][2]) for i in range(len(ks) - 1)
                      if ks[i + 1][1] - (ks[i][1] + ks[i][2]) < 50)
        res[name] = {"nodes": n, "seconds_per_node": per_replay / n, "profiled_kernels": len(ks),
                     "kernel_us_median": durs[len(durs) // 2] if durs else None,
                     "gap_us_median": gaps[len(gaps) // 2] if gaps else None,
                     "gap_us_mean": sum(gaps) / len(gaps) if gaps else None}
        # eager for comparison: the same N ops launched from Python, GPU time per op
        eager = Clock(dev).time(lambda: [fn() for _ in range(n)], 5) / n
        res[name]["eager_seconds_per_op"] = eager
        log(f"graph {name}: {per_replay / n * 1e6:.2f} us/node (eager {eager * 1e6:.2f}), kernel "
            f"{res[name]['kernel_us_median']} us, gap {res[name]['gap_us_median']} us")
    return res


class Stack:
    """A Llama-3.1-8B-shaped decoder for decode steps: fused QKV and gate-up GEMMs (as vLLM's models run them),
    RMSNorm, rotary on q and k, the KV-cache write at the step's position, SDPA decode attention over a fixed context,
    SiLU-and-mul, the output layer and greedy sampling. Random weights; the attended context length is fixed so that
    one CUDA graph replays every step."""

    def __init__(self, dev, dt, small, batch, context):
        self.h, self.heads, self.kv, self.d = (256, 4, 2, 64) if small else (4096, 32, 8, 128)
        self.ffn, self.vocab, self.layers = (512, 1000, 2) if small else (14336, 128256, 32)
        h, d = self.h, self.d
        r = lambda *s: torch.randn(*s, device=dev, dtype=dt) * 0.02
        self.emb, self.head, self.norm = r(self.vocab, h), r(self.vocab, h), torch.ones(h, device=dev, dtype=dt)
        self.w = [dict(qkv=r((self.heads + 2 * self.kv) * d, h), o=r(h, self.heads * d), gu=r(2 * self.ffn, h),
                       down=r(h, self.ffn), n1=torch.ones(h, device=dev, dtype=dt), n2=torch.ones(h, device=dev, dtype=dt))
                  for _ in range(self.layers)]
        self.kc = [torch.zeros(batch, self.kv, context, d, device=dev, dtype=dt) for _ in range(self.layers)]
        self.vc = [torch.zeros(batch, self.kv, context, d, device=dev, dtype=dt) for _ in range(self.layers)]
        self.tokens = torch.zeros(batch, dtype=torch.long, device=dev)
        self.pos = torch.full((1,), context - 1, dtype=torch.long, device=dev)
        inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=dev).float() / d))
        ang = torch.arange(context, device=dev).float()[:, None] * inv[None, :]
        self.cos, self.sin = ang.cos().to(dt), ang.sin().to(dt)
        self.rms = getattr(F, "rms_norm", None)
        self.sdpa = make_sdpa(dev, dt)

    def norm_(self, x, g):
        if self.rms:
            return self.rms(x, (self.h,), g, 1e-5)
        return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * g

    def rope(self, t, cos, sin):  # t [B, H, 1, d], rotate-half form
        a, b = t.chunk(2, dim=-1)
        return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)

    def step(self):
        B, H, K, d = self.tokens.shape[0], self.heads, self.kv, self.d
        x = self.emb[self.tokens]
        cos = self.cos.index_select(0, self.pos).view(1, 1, 1, -1)
        sin = self.sin.index_select(0, self.pos).view(1, 1, 1, -1)
        for l, w in enumerate(self.w):
            y = self.norm_(x, w["n1"])
            qkv = F.linear(y, w["qkv"])
            q, k, v = qkv.split([H * d, K * d, K * d], dim=-1)
            q = self.rope(q.view(B, H, 1, d), cos, sin)
            k = self.rope(k.view(B, K, 1, d), cos, sin)
            self.kc[l].index_copy_(2, self.pos, k)
            self.vc[l].index_copy_(2, self.pos, v.view(B, K, 1, d))
            a = self.sdpa(q, self.kc[l], self.vc[l])
            x = x + F.linear(a.reshape(B, H * d), w["o"])
            y = self.norm_(x, w["n2"])
            g, u = F.linear(y, w["gu"]).chunk(2, dim=-1)
            x = x + F.linear(F.silu(g) * u, w["down"])
        logits = F.linear(self.norm_(x, self.norm), self.head)
        self.tokens.copy_(logits.argmax(-1))

    def bytes(self):
        weights = sum(t.numel() * t.element_size() for w in self.w for t in w.values()) + self.head.numel() * 2 + \
            self.norm.numel() * 2
        kv = sum(t.numel() * t.element_size() for t in self.kc + self.vc)
        return weights, kv


def part_decode(dev, dt, small, clock, out_path):
    cases = [(1, 64), (4, 64)] if small else [(1, 4096), (8, 4096), (32, 2048), (64, 2048), (128, 1024), (256, 1024)]
    rows = []
    RESULT["decode"] = rows
    for batch, context in cases:
        t0 = time.time()
        st = Stack(dev, dt, small, batch, context)
        wb, kvb = st.bytes()
        with torch.inference_mode():
            eager = clock.time(st.step, 2 if small else 10)
            host0 = time.perf_counter()
            st.step()
            host = time.perf_counter() - host0
            row = {"batch": batch, "context": context, "layers": st.layers, "weight_bytes": wb, "kv_bytes": kvb,
                   "eager_seconds": eager, "eager_host_seconds": host,
                   "eager_profile": summarize(kernels_of(lambda: [st.step() for _ in range(3)], dev), 3)}
            if dev.type == "cuda":
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(2):
                        st.step()
                torch.cuda.current_stream().wait_stream(s)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    st.step()
                row["graph_seconds"] = clock.time(g.replay, 20)
                row["graph_profile"] = summarize(kernels_of(lambda: [g.replay() for _ in range(3)], dev), 3)
                del g
        rows.append(row)
        save(out_path)
        log(f"decode B={batch} ctx={context}: eager {eager * 1e3:.3f} ms (host {host * 1e3:.3f}), graph "
            f"{row.get('graph_seconds', 0) * 1e3:.3f} ms; weights {wb / 1e9:.2f} GB kv {kvb / 1e9:.2f} GB; "
            f"{time.time() - t0:.1f} s")
        st = None
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--small", action="store_true", help="tiny shapes: a check of the script, not a measurement")
    ap.add_argument("--parts", default="hbm,launch,graph,decode")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    dev = torch.device(a.device)
    dt = torch.bfloat16
    clock = Clock(dev)
    RESULT["device"] = {"name": torch.cuda.get_device_name() if dev.type == "cuda" else "cpu",
                        "torch": torch.__version__, "cuda": torch.version.cuda}
    if dev.type == "cuda":
        p = torch.cuda.get_device_properties(0)
        RESULT["device"].update(sms=p.multi_processor_count, total_memory_bytes=p.total_memory)
    parts = a.parts.split(",")
    for name, fn in (("hbm", lambda: part_hbm(dev, dt, a.small, clock)), ("launch", lambda: part_launch(dev, dt, a.small, clock)),
                     ("graph", lambda: part_graph(dev, dt, a.small)),
                     ("decode", lambda: part_decode(dev, dt, a.small, clock, a.out))):
        if name not in parts:
            continue
        t0 = time.time()
        try:
            RESULT[name] = fn()
        except Exception as e:  # keep the other parts' figures
            RESULT[name + "_error"] = f"{type(e).__name__}: {e}"[:1000]
            log(f"{name} failed: {RESULT[name + '_error']}")
        RESULT.setdefault("seconds", {})[name] = round(time.time() - t0, 1)
        if dev.type == "cuda":
            torch.cuda.empty_cache()
        save(a.out)
    if not a.out:
        print(json.dumps(RESULT, indent=1))


if __name__ == "__main__":
    main()
