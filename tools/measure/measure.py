#!/usr/bin/env python3
"""Run a membudget configuration with PyTorch on random weights and record what the CUDA allocator holds.

Reads a membudget configuration (the JSON of `membudget eval` / `membudget --json`, a flat config, or a
Hugging Face config.json with flags), builds a Llama-style decoder of that architecture, runs a few training
steps (or a prefill and decode with a preallocated KV cache) and writes the measured JSON that
`membudget compare-measured FILE` compares with the prediction. The output format is described in README.md
next to this file; keep the two in step.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

FORMAT = "membudget-measured/1"

# The keys this tool reads from a configuration. Their defaults and allowed choices are membudget's own, read
# from `membudget fields` (the engine's field table), never copied here.
READ_KEYS = (
    "head_dim", "gated_ffn", "tied_embeddings", "norm", "bias", "qkv_bias", "pos_emb", "experts", "kv_lora_rank",
    "mtp_layers", "tp", "pp", "dp", "cp", "ep", "sp", "zero", "gpus", "vpp", "mb", "seq", "ckpt", "static_bytes",
    "attention", "dropout", "optimizer", "precision", "master_weights", "offload", "mode", "weight_dtype", "kv_dtype",
    "kv_block", "workspace_tokens",
)
CHOICE_KEYS = ("norm", "ckpt", "attention", "optimizer", "precision", "mode", "weight_dtype", "kv_dtype")
# The architecture must be given: membudget's defaults are the chapter's 70B example, which nobody means
# to build by leaving a key out.
ARCHITECTURE_KEYS = ("hidden", "layers", "heads", "kv_heads", "ffn", "vocab")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
FP16_LOSS_SCALE = 1024.0  # a static loss scale for FP16 training; its value does not change memory

_TORCH_VERSION = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
_HAS_SDPA = hasattr(F, "scaled_dot_product_attention")  # torch >= 2.0
_SDPA_GQA = _TORCH_VERSION >= (2, 5)  # scaled_dot_product_attention(enable_gqa=True)


class MeasureError(Exception):
    """A configuration measure.py cannot run; the message starts with the field it is about."""


# ---------------------------------------------------------------------------------------------------------
# Configuration: membudget's own field table and config.json mapping, through its command line


def membudget_binary() -> str:
    """The membudget CLI: MEMBUDGET_BIN, else build/membudget of this repository, else `membudget` on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.environ.get("MEMBUDGET_BIN"), os.path.join(here, "..", "..", "build", "membudget"), shutil.which("membudget")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise MeasureError("membudget: the membudget binary is needed for its field table (build it with `npm run build`, "
                       "or set MEMBUDGET_BIN)")


_FIELDS = None


def fields() -> dict:
    """membudget's field table (`membudget fields`), by key."""
    global _FIELDS
    if _FIELDS is None:
        run = subprocess.run([membudget_binary(), "fields"], capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise MeasureError(f"membudget: `membudget fields` failed: {run.stderr.strip()}")
        _FIELDS = {field["key"]: field for field in json.loads(run.stdout)}
    return _FIELDS


def _typed(field: dict, text: str):
    if field["kind"] == "integer":
        return int(float(text))
    if field["kind"] == "number":
        return float(text)
    if field["kind"] == "boolean":
        return text == "true"
    return text


def defaults() -> dict:
    """membudget's default for every key this tool reads."""
    table = fields()
    return {key: _typed(table[key], table[key]["default"]) for key in READ_KEYS}


def choices(key: str) -> tuple:
    return tuple(fields()[key]["choices"])


def hf_to_config(hf: dict) -> dict:
    """A Hugging Face config.json as `membudget --hf-config` maps it: the architecture keys."""
    if not isinstance(hf, dict):
        raise MeasureError("hf_config: a config.json is a JSON object")
    run = subprocess.run([membudget_binary(), "--hf-config", "-", "--tp", "1", "--dp", "1", "--json"], input=json.dumps(hf),
                         capture_output=True, text=True, check=False)
    try:
        result = json.loads(run.stdout)
    except json.JSONDecodeError as error:
        raise MeasureError(f"hf_config: membudget could not read it: {run.stderr.strip() or error}") from error
    errors = result.get("errors") or []
    if errors:
        raise MeasureError(f"{errors[0].get('field') or 'hf_config'}: {errors[0]['message']}")
    config = result["config"]
    keys = (*ARCHITECTURE_KEYS, "head_dim", "gated_ffn", "tied_embeddings", "norm", "bias", "qkv_bias", "pos_emb",
            "experts", "kv_lora_rank", "mtp_layers")
    return {"model": "custom", "params": 0, **{key: config[key] for key in keys}, "method": "membudget"}


def flat_config(document) -> dict:
    """The flat configuration inside any accepted JSON: eval output and measured files hold it under `config`."""
    if not isinstance(document, dict):
        raise MeasureError("config: the configuration must be a JSON object")
    inner = document.get("config")
    if isinstance(inner, dict):
        return dict(inner)
    return dict(document)


def _integer(config, key, minimum=0):
    value = config[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != math.floor(value) or value < minimum:
        raise MeasureError(f"{key}: must be an integer of at least {minimum}; got {value!r}")
    return int(value)


def _boolean(config, key):
    value = config[key]
    if not isinstance(value, bool):
        raise MeasureError(f"{key}: must be true or false; got {value!r}")
    return value


def _choice(config, key):
    value = config[key]
    if value not in choices(key):
        raise MeasureError(f"{key}: must be one of {', '.join(choices(key))}; got {value!r}")
    return value


def resolve_config(given: dict, overrides: dict | None = None, world_size: int = 1, notes: list | None = None,
                   check_torch: bool = True) -> dict:
    """The flat membudget configuration this tool runs: `given` with `overrides` applied, defaults filled in,
    and the keys it cannot honour either refused (MeasureError naming the field) or set to what it runs
    (one model replica per GPU: dp = world size, zero = 0), each change noted in `notes`. With check_torch,
    also refuses what this torch lacks (Adafactor, Muon, FP8 tensors)."""
    notes = notes if notes is not None else []
    config = dict(given)
    config.update({key: value for key, value in (overrides or {}).items() if value is not None})
    missing = [key for key in ARCHITECTURE_KEYS if key not in config]
    if missing:
        model = config.get("model", "custom")
        hint = f" (model={model} is a preset: resolve it with `membudget --config FILE --json` first)" if model != "custom" else ""
        raise MeasureError(f"{missing[0]}: the configuration does not give {', '.join(missing)}{hint}")
    # Parallelism a configuration leaves out is what runs here (membudget's own defaults are the chapter's
    # TP 8 × DP 32); given explicitly it must be runnable.
    for key in ("tp", "pp", "cp", "ep", "vpp", "dp"):
        config.setdefault(key, 1)
    config.setdefault("zero", 0)
    for key, value in defaults().items():
        config.setdefault(key, value)
    config.setdefault("method", "membudget")

    for key in ARCHITECTURE_KEYS:
        _integer(config, key, 1)
    for key in ("head_dim", "pos_emb", "experts", "kv_lora_rank", "mtp_layers", "workspace_tokens"):
        _integer(config, key, 0)
    for key in ("mb", "seq", "tp", "pp", "dp", "cp", "ep", "vpp"):
        _integer(config, key, 1)
    for key in ("gated_ffn", "tied_embeddings", "bias", "qkv_bias", "sp", "dropout", "master_weights"):
        _boolean(config, key)
    for key in CHOICE_KEYS:
        _choice(config, key)

    if config["experts"] > 0:
        raise MeasureError("experts: measure.py builds dense models only (experts must be 0)")
    if config["kv_lora_rank"] > 0:
        raise MeasureError("kv_lora_rank: multi-head latent attention is not built by measure.py")
    if config["mtp_layers"] > 0:
        raise MeasureError("mtp_layers: multi-token prediction layers are not built by measure.py")
    if config["heads"] % config["kv_heads"]:
        raise MeasureError(f"kv_heads: {config['kv_heads']} must divide heads ({config['heads']})")
    head_dim = config["head_dim"] or config["hidden"] // config["heads"]
    if not config["head_dim"] and config["hidden"] % config["heads"]:
        raise MeasureError(f"head_dim: hidden ({config['hidden']}) is not divisible by heads; give head_dim")
    if config["pos_emb"] == 0 and head_dim % 2:
        raise MeasureError(f"head_dim: rotary embeddings need an even head width; got {head_dim}")
    if config["pos_emb"] and config["seq"] > config["pos_emb"]:
        raise MeasureError(f"seq: {config['seq']} tokens exceed the {config['pos_emb']} learned positions (pos_emb)")
    for key in ("tp", "pp", "cp", "ep", "vpp"):
        if config[key] != 1:
            raise MeasureError(f"{key}: measure.py runs one whole model replica per GPU ({key} must be 1; got {config[key]})")
    if config["dropout"]:
        raise MeasureError("dropout: measure.py builds the model without dropout (dropout must be false)")
    if config["offload"] != "none":
        raise MeasureError(f"offload: measure.py keeps everything on the GPU (offload must be none; got {config['offload']})")

    if config["mode"] == "training":
        if config["precision"] == "fp8":
            raise MeasureError("precision: fp8 training needs NVIDIA Transformer Engine; measure.py uses torch only (bf16, fp16, fp32)")
        optimizer = config["optimizer"]
        if optimizer == "adamw_8bit":
            raise MeasureError("optimizer: adamw_8bit needs bitsandbytes; measure.py uses torch only (adamw, sgd; "
                               "adafactor with torch >= 2.5, muon where torch.optim.Muon exists)")
        if check_torch and optimizer == "adafactor" and not hasattr(torch.optim, "Adafactor"):
            raise MeasureError(f"optimizer: adafactor needs torch.optim.Adafactor (torch >= 2.5); this is torch {torch.__version__}")
        if check_torch and optimizer == "muon" and not hasattr(torch.optim, "Muon"):
            raise MeasureError(f"optimizer: muon needs torch.optim.Muon; this is torch {torch.__version__}")
    else:
        if config["weight_dtype"] not in ("bf16", "fp16"):
            raise MeasureError(f"weight_dtype: {config['weight_dtype']} weights need a quantization library; "
                               "measure.py runs bf16 and fp16")
        if check_torch and config["kv_dtype"] == "fp8" and not hasattr(torch, "float8_e4m3fn"):
            raise MeasureError(f"kv_dtype: an fp8 KV cache needs torch.float8_e4m3fn (torch >= 2.1); this is torch {torch.__version__}")

    # What is run, written back so that the prediction is made for exactly this.
    forced = {"model": "custom", "params": 0, "dp": world_size, "zero": 0, "sp": False, "gpus": 0}
    if config["mode"] == "training":
        # Gradients are kept in the parameters' type (2 bytes with bf16/fp16): membudget's 16-byte convention.
        forced["static_bytes"] = 16
    else:
        forced["kv_block"] = 1  # the cache holds exactly mb × seq tokens, no block rounding
    for key, value in forced.items():
        if key in given and config[key] != value:
            notes.append(f"{key}: {config[key]!r} → {value!r} (what measure.py runs)")
        config[key] = value
    return config


def head_dim_of(config) -> int:
    return config["head_dim"] or config["hidden"] // config["heads"]


# ---------------------------------------------------------------------------------------------------------
# The model: a Llama-style decoder whose parameters are exactly those membudget counts
# (engine/src/model/architecture.cpp derivedParameterCount), with the saved tensors an efficient framework keeps.


def _wide(x):
    """At least FP32: the type norms and activation functions compute in."""
    return x.to(torch.promote_types(x.dtype, torch.float32))


class _RMSNormFunction(torch.autograd.Function):
    """Saves the input and the FP32 reciprocal RMS only (as fused kernels do), not FP32 copies of the input."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        x32 = _wide(x)
        rstd = torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, weight, rstd)
        return (x32 * rstd).to(x.dtype) * weight

    @staticmethod
    def backward(ctx, grad):
        x, weight, rstd = ctx.saved_tensors
        x_hat = _wide(x) * rstd
        grad32 = _wide(grad)
        grad_weight = (grad32 * x_hat).sum(dim=tuple(range(grad.dim() - 1))).to(weight.dtype)
        g = grad32 * _wide(weight)
        grad_x = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))
        return grad_x.to(x.dtype), grad_weight, None


class RMSNorm(nn.Module):
    def __init__(self, hidden, device, dtype, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden, device=device, dtype=dtype))
        self.eps = eps

    def forward(self, x):
        return _RMSNormFunction.apply(x, self.weight, self.eps)


def _rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


def _rotate_half_transposed(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((second, -first), dim=-1)


class _RotaryFunction(torch.autograd.Function):
    """RoPE saves nothing but its tables: the rotation is linear, its backward the inverse rotation."""

    @staticmethod
    def forward(ctx, x, cos, sin):
        ctx.save_for_backward(cos, sin)
        return x * cos + _rotate_half(x) * sin

    @staticmethod
    def backward(ctx, grad):
        cos, sin = ctx.saved_tensors
        return grad * cos + _rotate_half_transposed(grad * sin), None, None


class _SwiGLUFunction(torch.autograd.Function):
    """silu(gate) · up saving gate and up only (the product is recomputed in backward)."""

    @staticmethod
    def forward(ctx, gate, up):
        ctx.save_for_backward(gate, up)
        return F.silu(gate) * up

    @staticmethod
    def backward(ctx, grad):
        gate, up = ctx.saved_tensors
        gate32, grad32 = _wide(gate), _wide(grad)
        sigmoid = torch.sigmoid(gate32)
        silu = gate32 * sigmoid
        grad_up = (grad32 * silu).to(up.dtype)
        grad_gate = (grad32 * _wide(up) * sigmoid * (1 + gate32 * (1 - sigmoid))).to(gate.dtype)
        return grad_gate, grad_up


def _repeat_kv(x, groups):
    return x if groups == 1 else x.repeat_interleave(groups, dim=1)


def attend(q, k, v, eager=False):
    """Causal attention of q [b, a, L, d] on k, v [b, kv, S, d], the queries being the last L of S positions.

    flash: scaled_dot_product_attention (FlashAttention for bf16/fp16 on CUDA, memory-efficient attention for
    fp32), GQA by enable_gqa where FlashAttention takes it (torch >= 2.5, bf16/fp16 on CUDA; elsewhere torch
    would fall back to the math kernel and keep s × s scores) and by repeating K and V otherwise; a
    lower-right causal mask when L < S (chunked prefill).
    eager (or torch < 2.0): the s × s probabilities are materialised and saved."""
    length, span = q.shape[-2], k.shape[-2]
    groups = q.shape[1] // k.shape[1]
    if not eager and _HAS_SDPA:
        if length == span or length == 1:
            if groups > 1 and _SDPA_GQA and q.is_cuda and q.dtype in (torch.float16, torch.bfloat16):
                return F.scaled_dot_product_attention(q, k, v, is_causal=length > 1, enable_gqa=True)
            return F.scaled_dot_product_attention(q, _repeat_kv(k, groups), _repeat_kv(v, groups), is_causal=length > 1)
        allowed = torch.ones(length, span, dtype=torch.bool, device=q.device).tril(span - length)
        return F.scaled_dot_product_attention(q, _repeat_kv(k, groups), _repeat_kv(v, groups), attn_mask=allowed)
    k, v = _repeat_kv(k, groups), _repeat_kv(v, groups)
    scores = torch.matmul(q, k.transpose(-2, -1))
    scores.mul_(1.0 / math.sqrt(q.shape[-1]))  # in place: matmul's backward needs its inputs, not its output
    if length > 1:
        masked = torch.ones(length, span, dtype=torch.bool, device=q.device).triu(span - length + 1)
        scores.masked_fill_(masked, float("-inf"))
    probabilities = torch.softmax(scores, dim=-1)
    del scores
    return torch.matmul(probabilities, v)


class Attention(nn.Module):
    def __init__(self, config, device, dtype):
        super().__init__()
        hidden, heads, kv_heads, head_dim = config["hidden"], config["heads"], config["kv_heads"], head_dim_of(config)
        qkv_bias = config["bias"] or config["qkv_bias"]
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.q = nn.Linear(hidden, heads * head_dim, bias=qkv_bias, device=device, dtype=dtype)
        self.k = nn.Linear(hidden, kv_heads * head_dim, bias=qkv_bias, device=device, dtype=dtype)
        self.v = nn.Linear(hidden, kv_heads * head_dim, bias=qkv_bias, device=device, dtype=dtype)
        self.o = nn.Linear(heads * head_dim, hidden, bias=config["bias"], device=device, dtype=dtype)
        self.eager = config["attention"] == "eager"
        self.selective = config["ckpt"] == "selective"

    def _project(self, x, rotary):
        b, length, _ = x.shape
        q = self.q(x).view(b, length, self.heads, self.head_dim)
        k = self.k(x).view(b, length, self.kv_heads, self.head_dim)
        v = self.v(x).view(b, length, self.kv_heads, self.head_dim)
        if rotary is not None:
            cos, sin = rotary
            q, k = _RotaryFunction.apply(q, cos, sin), _RotaryFunction.apply(k, cos, sin)
        return q, k, v

    def _output(self, out):
        b, _, length, _ = out.shape
        return self.o(out.transpose(1, 2).reshape(b, length, self.heads * self.head_dim))

    def forward(self, x, rotary):
        q, k, v = self._project(x, rotary)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        if self.selective:
            # Selective recomputation (Megatron-LM's "core attention"): only the attention core is rebuilt.
            out = checkpoint(attend, q, k, v, self.eager, use_reentrant=False)
        else:
            out = attend(q, k, v, self.eager)
        return self._output(out)

    def forward_cached(self, x, rotary, cache_k, cache_v, offset):
        """Inference: writes this chunk's K and V at [offset, offset + L) of the cache rows given and attends
        to everything up to offset + L."""
        q, k, v = self._project(x, rotary)
        end = offset + x.shape[1]
        cache_k[:, :, offset:end] = k.transpose(1, 2).to(cache_k.dtype)
        cache_v[:, :, offset:end] = v.transpose(1, 2).to(cache_v.dtype)
        keys, values = cache_k[:, :, :end], cache_v[:, :, :end]
        if keys.dtype != q.dtype:  # an FP8 cache is read back in the compute type (a transient copy)
            keys, values = keys.to(q.dtype), values.to(q.dtype)
        return self._output(attend(q.transpose(1, 2), keys, values, self.eager))


class MLP(nn.Module):
    def __init__(self, config, device, dtype):
        super().__init__()
        hidden, ffn, bias = config["hidden"], config["ffn"], config["bias"]
        self.gated = config["gated_ffn"]
        if self.gated:
            self.gate = nn.Linear(hidden, ffn, bias=bias, device=device, dtype=dtype)
        self.up = nn.Linear(hidden, ffn, bias=bias, device=device, dtype=dtype)
        self.down = nn.Linear(ffn, hidden, bias=bias, device=device, dtype=dtype)

    def forward(self, x):
        if self.gated:
            return self.down(_SwiGLUFunction.apply(self.gate(x), self.up(x)))
        return self.down(F.gelu(self.up(x)))


def _norm(config, device, dtype):
    if config["norm"] == "layernorm":
        return nn.LayerNorm(config["hidden"], device=device, dtype=dtype)
    return RMSNorm(config["hidden"], device, dtype)


class Block(nn.Module):
    def __init__(self, config, device, dtype):
        super().__init__()
        self.attention_norm = _norm(config, device, dtype)
        self.attention = Attention(config, device, dtype)
        self.mlp_norm = _norm(config, device, dtype)
        self.mlp = MLP(config, device, dtype)

    def forward(self, x, rotary):
        x = x + self.attention(self.attention_norm(x), rotary)
        return x + self.mlp(self.mlp_norm(x))

    def forward_cached(self, x, rotary, cache_k, cache_v, offset):
        x = x + self.attention.forward_cached(self.attention_norm(x), rotary, cache_k, cache_v, offset)
        return x + self.mlp(self.mlp_norm(x))


class Decoder(nn.Module):
    """Embedding (+ learned positions), layers, final norm, output layer (or the tied embedding)."""

    def __init__(self, config, device="cpu", dtype=torch.float32):
        super().__init__()
        self.config = config
        hidden, vocab = config["hidden"], config["vocab"]
        self.embedding = nn.Embedding(vocab, hidden, device=device, dtype=dtype)
        self.positions = nn.Embedding(config["pos_emb"], hidden, device=device, dtype=dtype) if config["pos_emb"] else None
        self.layers = nn.ModuleList(Block(config, device, dtype) for _ in range(config["layers"]))
        self.final_norm = _norm(config, device, dtype)
        self.output = None if config["tied_embeddings"] else nn.Linear(hidden, vocab, bias=False, device=device, dtype=dtype)
        self.full_checkpointing = config["ckpt"] == "full"
        if config["pos_emb"] == 0 and torch.device(device).type != "meta":
            d = head_dim_of(config)
            inverse = 1.0 / (10000.0 ** (torch.arange(0, d, 2, device=device, dtype=torch.float32) / d))
            angles = torch.outer(torch.arange(config["seq"], device=device, dtype=torch.float32), inverse)
            angles = torch.cat((angles, angles), dim=-1)[:, None, :]  # [s, 1, d]: broadcast over heads
            self.register_buffer("cos", angles.cos().to(dtype), persistent=False)
            self.register_buffer("sin", angles.sin().to(dtype), persistent=False)
        else:
            self.cos = self.sin = None

    def _rotary(self, offset, length):
        if self.cos is None:
            return None
        return self.cos[offset:offset + length], self.sin[offset:offset + length]

    def _embed(self, ids, offset):
        x = self.embedding(ids)
        if self.positions is not None:
            x = x + self.positions(torch.arange(offset, offset + ids.shape[1], device=ids.device))
        return x

    def logits(self, x):
        weight = self.embedding.weight if self.output is None else self.output.weight
        return F.linear(self.final_norm(x), weight)

    def forward(self, ids):
        rotary = self._rotary(0, ids.shape[1])
        x = self._embed(ids, 0)
        for layer in self.layers:
            if self.full_checkpointing and torch.is_grad_enabled():
                # Full recomputation: each layer keeps only its input; one layer is rebuilt at a time.
                x = checkpoint(layer, x, rotary, use_reentrant=False)
            else:
                x = layer(x, rotary)
        return self.logits(x)

    def forward_cached(self, ids, cache, rows, offset):
        """Runs ids [n, L] at positions [offset, offset + L) against the cache rows `rows` (a slice);
        returns the logits of the last position of each sequence only, in FP32 (for sampling)."""
        rotary = self._rotary(offset, ids.shape[1])
        x = self._embed(ids, offset)
        for index, layer in enumerate(self.layers):
            x = layer.forward_cached(x, rotary, cache.keys[index][rows], cache.values[index][rows], offset)
        return self.logits(x[:, -1:]).float()


def build_model(config, device="cpu", dtype=torch.float32) -> Decoder:
    return Decoder(config, device=device, dtype=dtype)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def tensor_bytes(tensors) -> int:
    """Bytes of distinct tensors (a tensor given twice, as a tied weight can be, counts once)."""
    seen, total = set(), 0
    for t in tensors:
        if t is None or not torch.is_tensor(t) or id(t) in seen:
            continue
        seen.add(id(t))
        total += t.numel() * t.element_size()
    return total


def optimizer_state_bytes(optimizers) -> int:
    """Every tensor held in optimizer.state (moments, momentum, factors, step counters)."""
    tensors = []
    for optimizer in optimizers:
        for state in optimizer.state.values():
            tensors.extend(value for value in state.values() if torch.is_tensor(value))
    return tensor_bytes(tensors)


# ---------------------------------------------------------------------------------------------------------
# Memory statistics: a provider gives the allocator's numbers; tests inject a fake one.


class CudaMemory:
    """torch.cuda.memory_stats() of one device: current and peak of allocated, reserved and active bytes."""

    measures = True

    def __init__(self, device):
        self.device = torch.device(device)

    def reset_peak(self):
        torch.cuda.synchronize(self.device)
        torch.cuda.reset_peak_memory_stats(self.device)

    def snapshot(self):
        torch.cuda.synchronize(self.device)
        stats = torch.cuda.memory_stats(self.device)
        out = {}
        for name in ("allocated", "reserved", "active"):
            out[f"{name}_bytes"] = int(stats.get(f"{name}_bytes.all.current", 0))
            out[f"peak_{name}_bytes"] = int(stats.get(f"{name}_bytes.all.peak", 0))
        return out


class NoMemory:
    """The CPU dry run: PyTorch keeps no allocator statistics for the CPU, so nothing is recorded."""

    measures = False

    def reset_peak(self):
        pass

    def snapshot(self):
        return None


class Recorder:
    """One entry per phase: the statistics at its end and the peaks since the previous phase ended."""

    def __init__(self, memory):
        self.memory = memory
        self.phases = []
        memory.reset_peak()

    def record(self, phase, step):
        snapshot = self.memory.snapshot()
        if snapshot is not None:
            entry = {"phase": phase, "step": int(step)}
            for key in ("allocated_bytes", "reserved_bytes", "active_bytes",
                        "peak_allocated_bytes", "peak_reserved_bytes", "peak_active_bytes"):
                entry[key] = int(snapshot[key])
            self.phases.append(entry)
        self.memory.reset_peak()


def workspace_bytes(phases, busy, before):
    """Peak allocated during the `busy` phases of the last step that has them, less what was allocated when
    the phase `before` them ended (the static tensors: weights, gradients, optimizer states, KV cache)."""
    if not phases:
        return None
    last_step = max(entry["step"] for entry in phases if entry["phase"] in busy)
    indices = [i for i, entry in enumerate(phases) if entry["phase"] in busy and entry["step"] == last_step]
    first = indices[0]
    if first == 0 or phases[first - 1]["phase"] not in before:
        raise ValueError(f"phase {phases[first]['phase']} has no preceding {'/'.join(before)} phase")
    return max(phases[i]["peak_allocated_bytes"] for i in indices) - phases[first - 1]["allocated_bytes"]


def device_info(device, world_size, rank):
    device = torch.device(device)
    info = {"name": "cpu", "total_memory_bytes": 0, "torch": torch.__version__, "cuda": torch.version.cuda,
            "world_size": int(world_size), "rank": int(rank)}
    if device.type == "cuda":
        properties = torch.cuda.get_device_properties(device)
        info["name"] = properties.name
        info["total_memory_bytes"] = int(properties.total_memory)
    else:
        try:
            info["total_memory_bytes"] = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (ValueError, OSError, AttributeError):
            pass
    return info


# ---------------------------------------------------------------------------------------------------------
# Runs


class _Optimizers:
    """One or two torch optimizers (Muon for hidden matrices, AdamW for the rest) behind one step()."""

    def __init__(self, optimizers):
        self.optimizers = optimizers

    def step(self):
        for optimizer in self.optimizers:
            optimizer.step()


def make_optimizer(config, parameters, hidden_matrices=()):
    """AdamW (fused on CUDA where torch has it), SGD with momentum 0.9, Adafactor, Muon."""
    name = config["optimizer"]
    cuda = all(p.is_cuda for p in parameters)

    def build(cls, params, **kwargs):
        if cuda:
            try:
                return cls(params, fused=True, **kwargs)
            except (TypeError, RuntimeError):
                pass
        try:
            return cls(params, foreach=False, **kwargs)
        except TypeError:
            return cls(params, **kwargs)

    if name == "adamw":
        return _Optimizers([build(torch.optim.AdamW, parameters, lr=1e-5)])
    if name == "sgd":
        return _Optimizers([build(torch.optim.SGD, parameters, lr=1e-5, momentum=0.9)])
    if name == "adafactor":
        return _Optimizers([torch.optim.Adafactor(parameters, lr=1e-5)])
    if name == "muon":
        matrices = {id(p) for p in hidden_matrices}
        muon = [p for p in parameters if id(p) in matrices]
        rest = [p for p in parameters if id(p) not in matrices]
        return _Optimizers([torch.optim.Muon(muon, lr=1e-5), build(torch.optim.AdamW, rest, lr=1e-5)])
    raise MeasureError(f"optimizer: {name} is not available in measure.py")


def _hidden_matrices(model):
    """The layers' 2-D weights (what Muon updates); embeddings, output layer, norms and biases go to AdamW."""
    return [p for name, p in model.named_parameters() if name.startswith("layers.") and p.dim() == 2]


def run_training(config, device, memory, steps=3, seed=0, distributed=False):
    """Builds the model and runs `steps` optimizer steps on random tokens; returns (phases, lines).

    Mixed precision with master_weights: the model's parameters and gradients are bf16/fp16, the optimizer
    updates FP32 master copies (the FP32 gradient copy it needs exists during the step only); without
    master weights or with fp32 the optimizer updates the model's own parameters. Gradients are zeroed in
    place, not freed, so from step 2 on they are allocated throughout forward and backward, as in
    frameworks with a gradient buffer; the lines are taken from the last step."""
    torch.manual_seed(seed)
    dtype = DTYPES[config["precision"]]
    recorder = Recorder(memory)
    model = build_model(config, device=device, dtype=dtype)
    parameters = list(model.parameters())
    master = None
    if config["master_weights"] and dtype != torch.float32:
        master = [nn.Parameter(p.detach().float()) for p in parameters]
    by_model = {id(p): i for i, p in enumerate(parameters)}
    matrices = [master[by_model[id(p)]] if master else p for p in _hidden_matrices(model)]
    optimizer = make_optimizer(config, master if master else parameters, matrices)
    runner = model
    if distributed:
        runner = nn.parallel.DistributedDataParallel(
            model, device_ids=[torch.device(device).index] if torch.device(device).type == "cuda" else None,
            gradient_as_bucket_view=True)
    scale = FP16_LOSS_SCALE if dtype == torch.float16 else 1.0
    recorder.record("init", 0)

    lines = {"parameters": tensor_bytes(parameters)}
    batch, seq, vocab = config["mb"], config["seq"], config["vocab"]
    for step in range(1, steps + 1):
        # forward: the batch is made here so that its token ids count as activations, as membudget's do
        ids = torch.randint(vocab, (batch, seq), device=device)
        labels = torch.randint(vocab, (batch, seq), device=device)
        logits = runner(ids)
        loss = F.cross_entropy(logits.float().view(-1, vocab), labels.view(-1))
        del logits
        recorder.record("forward", step)

        (loss * scale).backward()
        del loss, ids, labels
        recorder.record("backward", step)
        lines["gradients"] = tensor_bytes(p.grad for p in parameters)

        if master:
            for copy, p in zip(master, parameters):
                copy.grad = p.grad.float()
                if scale != 1.0:
                    copy.grad.div_(scale)
        optimizer.step()
        with torch.no_grad():
            if master:
                for copy, p in zip(master, parameters):
                    p.copy_(copy)
                    copy.grad = None
            for p in parameters:
                p.grad.zero_()
        recorder.record("optimizer", step)
        lines["optimizer"] = tensor_bytes(master or []) + optimizer_state_bytes(optimizer.optimizers)

    if memory.measures:
        lines["activations"] = workspace_bytes(recorder.phases, ("forward", "backward"), ("init", "optimizer"))
    return recorder.phases, lines


class KVCache:
    """One preallocated K and one V tensor per layer, [mb, kv_heads, seq, head_dim], in kv_dtype."""

    def __init__(self, config, device):
        dtype = torch.float8_e4m3fn if config["kv_dtype"] == "fp8" else DTYPES[config["kv_dtype"]]
        shape = (config["mb"], config["kv_heads"], config["seq"], head_dim_of(config))
        self.keys = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(config["layers"])]
        self.values = [torch.zeros(shape, device=device, dtype=dtype) for _ in range(config["layers"])]

    def tensors(self):
        return self.keys + self.values


def prefill_passes(batch, prompt, workspace_tokens):
    """(first sequence, sequences, first token, tokens) of each forward pass: whole prompts of as many
    sequences as fit in workspace_tokens, or chunks of workspace_tokens tokens of one sequence."""
    budget = max(1, workspace_tokens)
    if prompt <= budget:
        per_pass = max(1, budget // prompt)
        return [(start, min(per_pass, batch - start), 0, prompt) for start in range(0, batch, per_pass)]
    return [(sequence, 1, start, min(budget, prompt - start))
            for sequence in range(batch) for start in range(0, prompt, budget)]


def run_inference(config, device, memory, decode_tokens=16, seed=0):
    """Weights, then the KV cache of mb × seq tokens, then a prefill of seq − decode_tokens tokens per
    sequence (in passes of at most workspace_tokens tokens, as chunked prefill does) and decode_tokens
    decode steps of all mb sequences; returns (phases, lines)."""
    torch.manual_seed(seed)
    batch, seq, vocab = config["mb"], config["seq"], config["vocab"]
    decode_tokens = max(0, min(decode_tokens, seq - 1))
    prompt = seq - decode_tokens
    recorder = Recorder(memory)
    with torch.inference_mode():
        model = build_model(config, device=device, dtype=DTYPES[config["weight_dtype"]]).eval()
        recorder.record("weights", 1)
        cache = KVCache(config, device)
        recorder.record("kv_cache", 1)
        next_tokens = torch.empty(batch, 1, dtype=torch.long, device=device)
        for first, count, offset, length in prefill_passes(batch, prompt, config["workspace_tokens"]):
            ids = torch.randint(vocab, (count, length), device=device)
            logits = model.forward_cached(ids, cache, slice(first, first + count), offset)
            if offset + length == prompt:
                next_tokens[first:first + count] = logits.argmax(-1)
            del ids, logits
        recorder.record("prefill", 1)
        for position in range(prompt, prompt + decode_tokens):
            logits = model.forward_cached(next_tokens, cache, slice(0, batch), position)
            next_tokens = logits.argmax(-1)
            del logits
        recorder.record("decode", 1)
        lines = {"parameters": tensor_bytes(model.parameters()), "kv_cache": tensor_bytes(cache.tensors())}
    if memory.measures:
        busy = ("prefill", "decode") if decode_tokens else ("prefill",)
        lines["activations"] = workspace_bytes(recorder.phases, busy, ("kv_cache",))
    return recorder.phases, lines


def measured_document(config, device, phases, lines):
    """The output, in the order README.md gives; keys only where measured, every byte count an integer."""
    document = {"format": FORMAT, "config": config, "device": device}
    if phases:
        document["phases"] = phases
    document["lines"] = {key: int(value) for key, value in lines.items() if value is not None}
    if phases:
        document["peak"] = {
            "allocated_bytes": max(p["peak_allocated_bytes"] for p in phases),
            "reserved_bytes": max(p["peak_reserved_bytes"] for p in phases),
            "active_bytes": max(p["peak_active_bytes"] for p in phases),
        }
    return document


def write_document(document, path):
    text = json.dumps(document, indent=2) + "\n"
    if path in (None, "-"):
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def measure(config, device="cuda", memory=None, steps=3, decode_tokens=16, seed=0, world_size=1, rank=0):
    """Runs a resolved configuration and returns the measured document."""
    if memory is None:
        memory = CudaMemory(device) if torch.device(device).type == "cuda" else NoMemory()
    if config["mode"] == "inference":
        phases, lines = run_inference(config, device, memory, decode_tokens=decode_tokens, seed=seed)
    else:
        phases, lines = run_training(config, device, memory, steps=steps, seed=seed, distributed=world_size > 1)
    return measured_document(config, device_info(device, world_size, rank), phases, lines)


# ---------------------------------------------------------------------------------------------------------
# Command line


def _read_json(path):
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise MeasureError(f"file: cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise MeasureError(f"file: {path} is not JSON: {error}") from None


def _bool_text(text):
    if text not in ("true", "false"):
        raise argparse.ArgumentTypeError("true or false")
    return text == "true"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="measure.py",
        description="Run a membudget configuration with PyTorch (random weights) and record the CUDA allocator's "
                    "memory per phase, as JSON for `membudget compare-measured`.")
    parser.add_argument("config", nargs="?", help="membudget JSON: `membudget eval`/`--json` output or a flat config ('-': stdin)")
    parser.add_argument("--hf-config", metavar="FILE", help="a Hugging Face config.json (Llama, Mistral, Qwen2) instead")
    for key in ("mb", "seq", "workspace_tokens"):
        parser.add_argument("--" + key.replace("_", "-"), dest=key, type=int)
    for key in ("ckpt", "optimizer", "precision", "mode", "attention", "weight_dtype", "kv_dtype"):
        parser.add_argument("--" + key.replace("_", "-"), dest=key, metavar="ID")  # checked against membudget's choices
    parser.add_argument("--master-weights", dest="master_weights", type=_bool_text, metavar="true|false")
    parser.add_argument("--steps", type=int, default=3, help="training steps (default 3; the lines come from the last)")
    parser.add_argument("--decode-tokens", type=int, default=16, help="decode steps in inference (default 16)")
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu: a dry run with no memory statistics")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="-", help="output file (default: standard output); with WORLD_SIZE > 1 "
                                                   "each rank writes FILE with .rankN before its extension")
    arguments = parser.parse_args(argv)
    if (arguments.config is None) == (arguments.hf_config is None):
        parser.error("give a membudget configuration or --hf-config, not both")
    if arguments.steps < 1:
        parser.error("--steps must be at least 1")
    return arguments


def _rank_path(path, rank):
    root, extension = os.path.splitext(path)
    return f"{root}.rank{rank}{extension}"


def main(argv=None):
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    try:
        given = hf_to_config(_read_json(arguments.hf_config)) if arguments.hf_config else flat_config(_read_json(arguments.config))
        overrides = {key: getattr(arguments, key) for key in
                     ("mb", "seq", "workspace_tokens", "ckpt", "optimizer", "precision", "mode", "attention",
                      "weight_dtype", "kv_dtype", "master_weights")}
        notes = []
        config = resolve_config(given, overrides, world_size=world_size, notes=notes)
    except MeasureError as error:
        print(f"measure.py: error: {error}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"measure.py: note: {note}", file=sys.stderr)

    device = arguments.device
    if device == "cuda" or device.startswith("cuda"):
        if not torch.cuda.is_available():
            print(f"measure.py: error: device: no CUDA device visible to torch {torch.__version__} "
                  "(a CPU-only build?); use --device cpu for a dry run", file=sys.stderr)
            return 2
        device = f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}" if device == "cuda" else device
        torch.cuda.set_device(torch.device(device))
    if world_size > 1:
        # Plain data parallelism: every rank runs the whole model on its own batch (DDP in training) and
        # records its own allocator; README.md "Several GPUs".
        torch.distributed.init_process_group("nccl" if device.startswith("cuda") else "gloo")
    document = measure(config, device=device, steps=arguments.steps, decode_tokens=arguments.decode_tokens,
                       seed=arguments.seed + rank, world_size=world_size, rank=rank)
    out = arguments.out if world_size == 1 or arguments.out == "-" else _rank_path(arguments.out, rank)
    write_document(document, out)
    if world_size > 1:
        torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
