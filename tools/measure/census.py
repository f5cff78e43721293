#!/usr/bin/env python3
"""Saved-tensor census: what one forward of a Llama block keeps for backward, as real frameworks write it.

Usage (Debian's CPU PyTorch 1.13 is enough; no GPU, no network, deterministic):

    /usr/bin/python3 tools/measure/census.py --out tests/fixtures/census     # write every fixture
    /usr/bin/python3 tools/measure/census.py --check                         # regenerate into a temporary
                                  # directory, compare with tests/fixtures/census, exit 1 on any difference
    /usr/bin/python3 tools/measure/census.py --framework torchtitan --ckpt op --loss fp32_full \\
            --size 1,64,256,8,2,688,1024 --layers 2 --print                 # one variant, to stdout

    --size b,s,h,heads,kv_heads,ffn,vocab (repeatable); --fixtures DIR is what --check compares against.

Files: <framework>-<ckpt>-<loss>-b<b>-s<s>-h<h>.json with the colon dropped (every:2 -> every2, chunked:8 ->
chunked8), for the sizes (b,s,h,heads,kv,ffn,V) = (1,64,256,8,2,688,1024), (2,128,512,8,8,1376,2048),
(1,96,384,6,2,1024,1536) and layers=2: torchtitan x {none, full, op, every:2} x fp32_full, torchtitan_gqa x
{none, op} x fp32_full, torchtune x {none, full} x {chunked:8, chunked:1}. Megatron-LM is not reproduced (its
fused kernels — TE layernorm-linear, fused SwiGLU, TE attention — cannot run here).

What it does
------------
It builds a small model (random weights, bf16 parameters, layers=2) from faithful reproductions of the
frameworks' model code, runs one forward and the framework's loss under
``torch.autograd.graph.saved_tensors_hooks`` and records every tensor saved for backward. After the forward it
walks the autograd graph from the loss (and from the checkpoint input savers), reading each node's saved
fields (``node._saved_<arg>`` for built-in nodes, ``node.saved_tensors`` for autograd Functions) so that every
saved tensor is attributed to the node that saved it (``op``, the grad_fn name, and ``arg``, the saved field).

Storages are counted once: a saved tensor's storage is ``t.storage().data_ptr()`` / ``t.storage().nbytes()``
(1.13 has no ``untyped_storage``); a view of a storage already saved adds nothing (``counted`` false, ``shared``
true). Tensors whose storage is a parameter's (weights: ``MmBackward0.mat2``, norm weights) or a buffer's
(RoPE tables) are not activations: they are listed apart (``param_tensors``, ``buffer_tensors``). The batch
(token ids, labels, the token count) is listed in ``stage_extras`` with ``kind: input``.

``per_layer_bytes`` is the sum of the unique storages saved inside one transformer block (the block's own
input included, since the block saves it); where the blocks differ (``every:N``) it is their mean and
``per_layer_bytes_by_layer`` gives each. ``alloc_bytes`` rounds each storage up to 512 B as the CUDA caching
allocator does. ``shape_sym`` names each dimension (b, s, h, heads, kv, d = head_dim, f = ffn, V, b*s, kv*d,
s/C with C chunks) where one name fits at every size set generated together, and
``per_layer_bytes_formula`` sums the counted storages as a polynomial in them (checked against the bytes). ``stage_extras`` are the tensors saved outside the blocks (embedding, final norm, output layer,
loss) plus the big transients that are not saved (embedding output, logits, the FP32 copy of the logits).

Reproduced code (``source`` in every file gives repository, path and commit)
----------------------------------------------------------------------------
* ``torchtitan``: torchtitan/models/llama3/model/model.py at 13c98375 (the last version with ``repeat_kv``,
  2026-01-26; #2259 then dropped it for ``enable_gqa``): nn.RMSNorm, Attention wq/wk/wv/wo, complex RoPE
  (``apply_rotary_emb``), ``repeat_kv``, SDPA with is_causal, SwiGLU w1/w2/w3; the loss
  (components/loss.py) ``cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1), reduction="sum")``
  divided by the token count (train.py, which frees ``pred`` before backward). FSDP2 mixed precision
  (param_dtype bf16) is emulated by casting the parameters (not the buffers) to bf16.
* ``torchtitan_gqa``: the same file at 238fa995 (2026-02-23, after #2259): no ``repeat_kv``; K and V reach SDPA
  with kv_heads heads (``enable_gqa=True``, which FlashAttention runs natively).
* ``torchtune``: TransformerSelfAttentionLayer, MultiHeadAttention, RMSNorm (its own: x.float(), pow, mean,
  rsqrt, type_as, * scale), RotaryPositionalEmbeddings, FeedForward, the llama3 component builder, and
  CEWithChunkedOutputLoss with ``num_output_chunks`` (the model returns the logits in chunks; each chunk is
  upcast inside the loss), at bd2a0fc7. The model is built in bf16 as torchtune does.

Activation checkpointing (``--ckpt``)
-------------------------------------
* ``none``.
* ``full``: every block wrapped in ``checkpoint_wrapper`` (NO_REENTRANT, i.e. ``torch.utils.checkpoint`` with
  ``use_reentrant=False``). torch ≥ 2.1 saves the block's tensor arguments through
  ``_NoopSaveInputs.apply(dummy, kwargs, *args)`` (``ctx.save_for_backward`` of the empty ``dummy`` and every
  tensor argument: the block input; for torchtitan also ``freqs_cis``, a buffer) and packs everything saved
  inside the block into an empty ``_Holder``. 1.13's non-reentrant checkpoint keeps the inputs in a closure
  instead, which a saved-tensor hook cannot see, so the census emulates the 2.x mechanism exactly: the same
  ``_NoopSaveInputs`` autograd Function under the census hooks, and an inner ``saved_tensors_hooks`` that
  keeps nothing. (RNG state stashed by ``preserve_rng_state=True`` — torchtune — is host memory, not counted.)
* ``op`` (torchtitan ``selective_ac_option="op"``): checkpoint_wrapper with
  ``create_selective_checkpoint_contexts(policy)``. 1.13 has neither the contexts nor CheckpointPolicy, so
  the policy is run by hand: the block runs as in ``full`` under a ``TorchDispatchMode`` that applies
  torchtitan's ``_custom_policy`` op by op (every ``aten.mm.default`` increments ``forward_mm_count``; an op in
  ``_op_sac_save_list`` is MUST_SAVE unless it is an mm with an even count, so wq, wv, w1, w2 are kept and
  wk, wo, w3 recomputed; the SDPA op is always kept). What ``_CachingTorchDispatchMode`` would store — a
  detached alias of every output of a MUST_SAVE op — is recorded as ``op: "SAC cache: <aten op>"``.
* ``every:N`` (torchtitan ``selective_ac_option="N"``): ``_apply_layer_sac`` increments a counter before
  testing it and wraps a block when ``counter % N == 0``: blocks 0-based i with (i + 1) % N == 0 are fully
  checkpointed (for N = 2: layers 1, 3, …), the others keep everything.

Emulated kernels (torch 1.13 has neither; what torch ≥ 2.8 on CUDA does is reproduced, node names as in 2.x)
-----------------------------------------------------------------------------------------------------------
* ``torch.nn.RMSNorm`` → ``F.rms_norm`` → ``aten::_fused_rms_norm`` whenever input and weight have the same
  dtype (aten/src/ATen/native/layer_norm.cpp ``rms_norm_symint``); derivatives.yaml: the backward
  ``_fused_rms_norm_backward(grad, input, normalized_shape, result1, weight, …)`` ⇒ saves ``input`` (bf16
  [b,s,h]), ``result1`` = rstd (fp32 [b,s,1]) and ``weight``. Node ``FusedRmsNormBackward0``.
* ``F.scaled_dot_product_attention`` on bf16 CUDA picks FlashAttention (torchtitan ranks cuDNN first; cuDNN
  saves the same set with logsumexp [b,heads,s,1]): ``aten::_scaled_dot_product_flash_attention`` →
  backward ``_scaled_dot_product_flash_attention_backward(grad, query, key, value, output, logsumexp,
  cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, rng_state, unused, scale)``. Saved: query, key,
  value (the tensors passed in, views of their producers' storages), output ([b,heads,s,d] view of a
  [b,s,heads,d] buffer allocated like the query's transpose, so the caller's ``.transpose(1, 2).contiguous()``
  is a no-op and the output projection saves the same storage), logsumexp (fp32 [b,heads,s]), and the two RNG
  tensors flash_api.cpp ``mha_fwd`` always allocates on the GPU: ``rng_state`` (uint64 [2], 16 B) and
  ``unused`` (uint64 [], 8 B; formerly philox_seed/philox_offset). cum_seq_q/cum_seq_k are undefined for
  dense inputs and save nothing. The forward computes attention in fp32 under no_grad. Node
  ``ScaledDotProductFlashAttentionBackward0``. (1.13 has no uint64: int64 tensors of the same size stand in.)

Corrections for 1.13 (recorded in ``dropped_1_13``): ``MeanBackward1`` saves ``self`` in 1.13 (its formula
uses ``self.numel()``); torch ≥ 2.0 saves only ``self_sym_sizes``/``self_sym_numel``, so that tensor (the
squares in torchtune's RMSNorm, fp32 [b,s,h]) is dropped. Any (node, field) pair not in ``KNOWN_SAVES``
stops the run, so a new op is reviewed before it is counted.

Loss (``loss_peak_bytes``)
--------------------------
The loss is run once more on its own, from leaf logits (bf16, as the output layer makes them: one tensor, or
the list of chunks), forward then backward, under ``torch.profiler`` with ``profile_memory=True`` on one CPU
thread. The running sum of the allocator's ``[memory]`` events (exact tensor sizes, no rounding), starting
from zero after the logits exist, gives ``loss_forward_peak_bytes`` (the FP32 upcast, log-softmax, …),
``loss_saved_bytes`` (what is left when forward ends: the saved log-probabilities, …) and
``loss_peak_bytes``, the maximum during backward: saved log-probabilities + the NLL gradient + the log-softmax
gradient (FP32) + the bf16 gradient of the logits, released chunk by chunk. The logits themselves are not
included (the frameworks drop their reference before backward: torchtitan ``del pred``, torchtune
``del outputs``); they are listed in ``stage_extras``. On CUDA the same kernels allocate the same tensors.
"""

import argparse
import contextlib
import filecmp
import json
import math
import os
import shutil
import sys
import tempfile
from collections import defaultdict

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.graph import saved_tensors_hooks
from torch.utils._python_dispatch import TorchDispatchMode

TOOL = "tools/measure/census.py"
CUDA_BLOCK = 512  # the caching allocator's minimum block and rounding
IGNORE_INDEX = -100

TITAN_REPO = "pytorch/torchtitan"
TITAN_COMMIT = "13c983754c702ee306531d603b55e54b66a2cb06"      # 2026-01-26, last with repeat_kv
TITAN_GQA_COMMIT = "238fa9953e4aec2a62582121564273d7cbb1e9f1"  # 2026-02-23, enable_gqa (after #2259)
TUNE_REPO = "pytorch/torchtune"
TUNE_COMMIT = "bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1"       # 2026-04-23
TORCH_REFS = [
    {"module": "FusedRmsNormBackward0 (emulated)", "repo": "pytorch/pytorch",
     "path": "aten/src/ATen/native/layer_norm.cpp (rms_norm_symint -> _fused_rms_norm); "
             "tools/autograd/derivatives.yaml (_fused_rms_norm)", "commit": None},
    {"module": "ScaledDotProductFlashAttentionBackward0 (emulated)", "repo": "pytorch/pytorch",
     "path": "aten/src/ATen/native/transformers/cuda/flash_attn/flash_api.cpp (mha_fwd: softmax_lse, rng_state, "
             "_unused)", "commit": "03b7c19dbe228c9febd503755f723240945f8067"},
    {"module": "checkpoint (emulated _NoopSaveInputs, _checkpoint_hook, _CachingTorchDispatchMode)",
     "repo": "pytorch/pytorch", "path": "torch/utils/checkpoint.py", "commit": None},
]

DEFAULT_SIZES = [(1, 64, 256, 8, 2, 688, 1024), (2, 128, 512, 8, 8, 1376, 2048), (1, 96, 384, 6, 2, 1024, 1536)]
DEFAULT_VARIANTS = (
    [("torchtitan", ck, "fp32_full") for ck in ("none", "full", "op", "every:2")]
    + [("torchtitan_gqa", ck, "fp32_full") for ck in ("none", "op")]
    + [("torchtune", ck, loss) for ck in ("none", "full") for loss in ("chunked:8", "chunked:1")]
)

# (grad_fn name, saved field) -> saved by torch >= 2.x as well. Anything else stops the run.
KNOWN_SAVES = {
    ("MmBackward0", "self"), ("MmBackward0", "mat2"),
    ("MulBackward0", "self"), ("MulBackward0", "other"),
    ("PowBackward0", "self"), ("RsqrtBackward0", "result"), ("SiluBackward0", "self"),
    ("EmbeddingBackward0", "indices"),
    ("LogSoftmaxBackward0", "result"),
    ("NllLossBackward0", "self"), ("NllLossBackward0", "target"), ("NllLossBackward0", "total_weight"),
    ("NllLossBackward0", "weight"),
    ("DivBackward0", "other"), ("DivBackward0", "self"),
    ("FusedRmsNormBackward0", "input"), ("FusedRmsNormBackward0", "result1"),
    ("FusedRmsNormBackward0", "weight"),
    ("ScaledDotProductFlashAttentionBackward0", "query"), ("ScaledDotProductFlashAttentionBackward0", "key"),
    ("ScaledDotProductFlashAttentionBackward0", "value"), ("ScaledDotProductFlashAttentionBackward0", "output"),
    ("ScaledDotProductFlashAttentionBackward0", "logsumexp"),
    ("ScaledDotProductFlashAttentionBackward0", "rng_state"),
    ("ScaledDotProductFlashAttentionBackward0", "unused"),
}
DROP_1_13 = {("MeanBackward1", "self"):
             "1.13 saves self for mean.dim; torch >= 2.0 saves only self_sym_sizes and self_sym_numel",
             ("EmbeddingBackward0", "weight"):
             "1.13 saves the weight for weight.size(0); torch >= 2.0 saves only weight_sym_argsize_0 "
             "(a parameter: never counted either way)"}

# --------------------------------------------------------------------------------------------------------------
# census machinery


class Census:
    """Records what the saved-tensor hooks see, and what the selective-checkpoint cache would keep."""

    def __init__(self):
        self.records = []          # dicts: t, module, kind, op, arg
        self.module_stack = []
        self.extra_roots = []      # grad_fns that hold saved tensors outside the output's graph
        self.keep = []             # keeps checkpoint savers alive, like the checkpoint frame does
        self.dtype_override = {}   # id(tensor) -> dtype name (uint64 stand-ins)
        self._unpacked = []

    # hooks
    def pack(self, t):
        self.records.append({"t": t, "module": self.current_module(), "region": self.current_region(),
                             "kind": "saved", "op": None, "arg": None})
        return len(self.records) - 1

    def unpack(self, i):
        self._unpacked.append(i)
        return self.records[i]["t"]

    def hooks(self):
        return saved_tensors_hooks(self.pack, self.unpack)

    def record_cache(self, t, op, arg):
        """What _CachingTorchDispatchMode keeps for a MUST_SAVE op: a detached alias of each output."""
        alias = t.detach()
        if id(t) in self.dtype_override:
            self.mark_dtype(alias, self.dtype_override[id(t)][0])
        self.records.append({"t": alias, "module": self.current_module(), "region": self.current_region(),
                             "kind": "sac", "op": op, "arg": arg})

    def mark_dtype(self, t, name):
        self.dtype_override[id(t)] = (name, t)  # the reference keeps id(t) from being reused

    def current_region(self):
        """The top-level module running: layers.<i>, tok_embeddings, norm, output, or loss."""
        if not self.module_stack:
            return "?"
        parts = self.module_stack[0].split(".")
        return ".".join(parts[:2]) if parts[0] == "layers" and len(parts) > 1 else parts[0]

    def current_module(self):
        """The innermost module; a module shared by all blocks (torchtune's RoPE) gets the running block's name."""
        if not self.module_stack:
            return ""
        name, region = self.module_stack[-1], self.current_region()
        parts = name.split(".")
        if region.startswith("layers.") and parts[0] == "layers" and len(parts) > 1:
            name = ".".join([region] + parts[2:])
        return name

    @contextlib.contextmanager
    def region(self, name):
        self.module_stack.append(name)
        try:
            yield
        finally:
            self.module_stack.pop()

    def watch(self, root, prefix=""):
        """Tag saved tensors with the innermost module running (names as the framework's FQNs)."""
        for name, mod in root.named_modules():
            full = f"{prefix}.{name}" if prefix and name else (prefix or name)
            if not full:
                continue
            mod.register_forward_pre_hook(self._enter_hook(full))
            mod.register_forward_hook(self._exit_hook)

    def _enter_hook(self, name):
        def hook(module, args):
            self.module_stack.append(name)  # returns None: the input is left alone
        return hook

    def _exit_hook(self, module, args, output):
        self.module_stack.pop()  # returns None: the output is left alone

    # attribution
    def attribute(self, roots):
        seen = set()
        stack = [r for r in roots if r is not None]
        while stack:
            fn = stack.pop()
            if fn in seen:
                continue
            seen.add(fn)
            name = fn.name()
            fwd_cls = getattr(type(fn), "_forward_cls", None)
            if fwd_cls is not None:  # autograd.Function node
                self._unpacked = []
                fn.saved_tensors  # noqa: B018 (runs the unpack hooks)
                names = getattr(fn, "census_names", None) or getattr(fwd_cls, "SAVED", None)
                op = getattr(fwd_cls, "NODE", name)
                for pos, i in enumerate(self._unpacked):
                    self._assign(i, op, names[pos] if names else f"saved[{pos}]")
            else:
                for attr in sorted(a for a in dir(fn) if a.startswith("_saved_")):
                    self._unpacked = []
                    getattr(fn, attr)
                    for i in self._unpacked:
                        self._assign(i, name, attr[len("_saved_"):])
            for nxt, _ in fn.next_functions:
                if nxt is not None:
                    stack.append(nxt)
        missing = [r for r in self.records if r["op"] is None]
        if missing:
            raise RuntimeError(f"{len(missing)} saved tensors not reached from the graph roots")

    def _assign(self, i, op, arg):
        rec = self.records[i]
        if rec["op"] is not None and (rec["op"], rec["arg"]) != (op, arg):
            raise RuntimeError(f"saved tensor {i} claimed by {rec['op']}.{rec['arg']} and {op}.{arg}")
        rec["op"], rec["arg"] = op, arg


def storage_of(t):
    st = t.storage()
    return st.data_ptr(), st.nbytes()


DTYPE_NAMES = {torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float16: "float16",
               torch.int64: "int64", torch.int32: "int32", torch.complex64: "complex64", torch.bool: "bool"}


def alloc_round(n):
    return 0 if n == 0 else -(-n // CUDA_BLOCK) * CUDA_BLOCK


# --------------------------------------------------------------------------------------------------------------
# emulated torch >= 2.x kernels and checkpointing

_SAC_MODES = []  # the active selective-checkpoint mode, if any (innermost last)
_CENSUS = []     # the active census (to mark uint64 stand-ins)


class FusedRmsNormFn(torch.autograd.Function):
    """aten::_fused_rms_norm as nn.RMSNorm runs it on CUDA in torch >= 2.8: saves input, rstd (fp32), weight."""
    NODE = "FusedRmsNormBackward0"
    SAVED = ("input", "result1", "weight")

    @staticmethod
    def forward(ctx, x, weight, eps):
        xf = x.float()
        rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)  # [.., 1] fp32 (acc type)
        y = (xf * rstd * weight.float()).to(x.dtype)
        ctx.save_for_backward(x, rstd, weight)
        ctx.eps = eps
        return y

    @staticmethod
    def backward(ctx, gy):
        x, rstd, weight = ctx.saved_tensors
        with torch.enable_grad():
            xd, wd = x.detach().requires_grad_(), weight.detach().requires_grad_()
            xf = xd.float()
            y = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + ctx.eps) * wd.float()).to(x.dtype)
            gx, gw = torch.autograd.grad(y, (xd, wd), gy)
        return gx, gw, None


class ScaledDotProductFlashAttentionFn(torch.autograd.Function):
    """aten::_scaled_dot_product_flash_attention (FlashAttention-2 in torch >= 2.5, dropout 0, dense inputs).

    Returns (output, logsumexp, rng_state, unused) like the aten op (cum_seq_q/k are undefined and max_q/max_k
    are ints); only output is differentiable. Saves query, key, value, output, logsumexp, rng_state, unused.
    K/V may have fewer heads than Q (GQA, run natively by FlashAttention)."""
    NODE = "ScaledDotProductFlashAttentionBackward0"
    SAVED = ("query", "key", "value", "output", "logsumexp", "rng_state", "unused")
    ATEN = "aten._scaled_dot_product_flash_attention.default"

    @staticmethod
    def forward(ctx, q, k, v, is_causal, scale):
        sac = _SAC_MODES[-1] if _SAC_MODES else None
        with (sac.suspended() if sac else contextlib.nullcontext()):
            b, hq, s, d = q.shape
            rep = hq // k.shape[1]
            scale_ = scale if scale is not None else 1.0 / math.sqrt(d)
            kf = k.float().repeat_interleave(rep, dim=1)
            vf = v.float().repeat_interleave(rep, dim=1)
            scores = q.float() @ kf.transpose(-1, -2) * scale_
            if is_causal:
                mask = torch.ones(s, kf.shape[2], dtype=torch.bool).tril()
                scores = scores.masked_fill(~mask, float("-inf"))
            lse = torch.logsumexp(scores, dim=-1)                        # [b, heads, s] fp32
            o = torch.softmax(scores, dim=-1) @ vf
            out_bshd = torch.empty_like(q.transpose(1, 2))               # mha_fwd: empty_like(q_padded)
            out_bshd.copy_(o.transpose(1, 2))
            out = out_bshd.transpose(1, 2)
            rng_state = torch.zeros(2, dtype=torch.int64)                # uint64 [2] on the GPU
            unused = torch.zeros((), dtype=torch.int64)                  # uint64 [] on the GPU
            debug_attn_mask = torch.empty(0, dtype=q.dtype)
        if _CENSUS:
            _CENSUS[-1].mark_dtype(rng_state, "uint64")
            _CENSUS[-1].mark_dtype(unused, "uint64")
        if sac is not None:
            sac.record(ScaledDotProductFlashAttentionFn.ATEN,
                       [("output", out), ("logsumexp", lse), ("rng_state", rng_state), ("unused", unused),
                        ("debug_attn_mask", debug_attn_mask)])
        ctx.mark_non_differentiable(lse, rng_state, unused)
        ctx.save_for_backward(q, k, v, out, lse, rng_state, unused)
        ctx.is_causal, ctx.scale = is_causal, scale
        return out, lse, rng_state, unused

    @staticmethod
    def backward(ctx, gout, *_):
        q, k, v, out, lse, rng, unused = ctx.saved_tensors
        with torch.enable_grad():
            qd, kd, vd = (t.detach().requires_grad_() for t in (q, k, v))
            rep = q.shape[1] // k.shape[1]
            scale = ctx.scale if ctx.scale is not None else 1.0 / math.sqrt(q.shape[-1])
            scores = qd.float() @ kd.float().repeat_interleave(rep, 1).transpose(-1, -2) * scale
            if ctx.is_causal:
                s = q.shape[2]
                scores = scores.masked_fill(~torch.ones(s, s, dtype=torch.bool).tril(), float("-inf"))
            o = (torch.softmax(scores, -1) @ vd.float().repeat_interleave(rep, 1)).to(q.dtype)
            gq, gk, gv = torch.autograd.grad(o, (qd, kd, vd), gout)
        return gq, gk, gv, None, None


def sdpa(q, k, v, is_causal=True, scale=None):
    """F.scaled_dot_product_attention on the flash path (head_dim % 8 == 0: no padding, inputs passed as is)."""
    return ScaledDotProductFlashAttentionFn.apply(q, k, v, is_causal, scale)[0]


class _NoopSaveInputs(torch.autograd.Function):
    """torch.utils.checkpoint._NoopSaveInputs (torch >= 2.1): saves the dummy and every tensor argument."""
    NODE = "_NoopSaveInputsBackward"

    @staticmethod
    def forward(ctx, names, *args):
        ctx.census_names = names
        ctx.save_for_backward(*args)
        return torch.empty((0,))

    @staticmethod
    def backward(ctx, *grads):
        raise AssertionError("Did not expect to backward on this graph")


class _Holder:
    pass


def _discard_pack(t):
    return _Holder()


def _discard_unpack(h):
    # Only the census's graph walk reads these (the census never runs the model's backward): nothing was kept.
    return torch.empty(0)


class TitanSACMode(TorchDispatchMode):
    """torchtitan _apply_op_sac's _custom_policy + what _CachingTorchDispatchMode stores for MUST_SAVE ops."""

    def __init__(self, census, save_list, mm_recompute_shapes=frozenset()):
        super().__init__()
        self.census, self.save_list, self.mm_recompute_shapes = census, save_list, mm_recompute_shapes
        self.meta = defaultdict(int)  # selective_checkpointing_context_fn: a fresh meta per checkpoint call
        self._suspend = 0

    @contextlib.contextmanager
    def suspended(self):
        self._suspend += 1
        try:
            yield
        finally:
            self._suspend -= 1

    def policy(self, name, args):
        mm_count_key = "forward_mm_count"  # ctx.is_recompute is False in forward
        if name == "aten.mm.default":
            if tuple(args[1].shape) in self.mm_recompute_shapes:
                return False
            self.meta[mm_count_key] += 1
        return name in self.save_list and not (name == "aten.mm.default" and self.meta[mm_count_key] % 2 == 0)

    def record(self, name, outputs):
        if self.policy(name, None):
            for arg, t in outputs:
                self.census.record_cache(t, f"SAC cache: {name}", arg)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self._suspend:
            return out
        name = str(func)
        if self.policy(name, args):
            outs = out if isinstance(out, (tuple, list)) else (out,)
            for i, t in enumerate(outs):
                if isinstance(t, torch.Tensor):
                    self.census.record_cache(t, f"SAC cache: {name}", "out" if len(outs) == 1 else f"out{i}")
        return out


# torchtitan models/llama3/infra/parallelize.py _op_sac_save_list, as aten op names
TITAN_OP_SAC_SAVE_LIST = frozenset({
    "aten.mm.default", "aten._scaled_dot_product_efficient_attention.default",
    "aten._scaled_dot_product_flash_attention.default", "aten._scaled_dot_product_cudnn_attention.default",
    "aten._scaled_dot_product_attention_math.default",
    "aten._scaled_dot_product_fused_attention_overrideable.default",
    "_c10d_functional.reduce_scatter_tensor.default", "aten.max.default",
})


class CheckpointWrapper(nn.Module):
    """checkpoint_wrapper(module) with CheckpointImpl.NO_REENTRANT, as torch >= 2.1 runs it (see docstring)."""

    def __init__(self, module, census, context_fn=None):
        super().__init__()
        self._checkpoint_wrapped_module = module
        self.census, self.context_fn = census, context_fn

    def forward(self, *args, **kwargs):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        tensors += [v for v in kwargs.values() if isinstance(v, torch.Tensor)]
        dummy = torch.empty((0,), requires_grad=True)
        names = ("dummy",) + tuple(f"args[{i}]" for i in range(len(tensors)))
        saver = _NoopSaveInputs.apply(names, dummy, *tensors)  # under the census hooks
        self.census.extra_roots.append(saver.grad_fn)
        self.census.keep.append(saver)
        ctx = self.context_fn() if self.context_fn else contextlib.nullcontext()
        with saved_tensors_hooks(_discard_pack, _discard_unpack):
            if isinstance(ctx, TorchDispatchMode):
                _SAC_MODES.append(ctx)
                try:
                    with ctx:
                        return self._checkpoint_wrapped_module(*args, **kwargs)
                finally:
                    _SAC_MODES.pop()
            with ctx:
                return self._checkpoint_wrapped_module(*args, **kwargs)


# --------------------------------------------------------------------------------------------------------------
# torchtitan: torchtitan/models/llama3/model/model.py (13c98375; gqa_native: 238fa995)


class RoPEScalingArgs:
    scaling_factor = 8.0
    low_freq_factor = 1.0
    high_freq_factor = 4.0
    original_max_position_embeddings = 8192


def precompute_freqs_cis(dim, end, theta=10000.0, scaling_args=RoPEScalingArgs()):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    scaling_factor = scaling_args.scaling_factor
    low_freq_factor = scaling_args.low_freq_factor
    high_freq_factor = scaling_args.high_freq_factor
    original_max_position_embeddings = scaling_args.original_max_position_embeddings
    wavelen = 2 * math.pi / freqs
    high_freq_wavelen = original_max_position_embeddings / high_freq_factor
    low_freq_wavelen = original_max_position_embeddings / low_freq_factor
    freqs = torch.where(wavelen > low_freq_wavelen, freqs / scaling_factor, freqs)
    smooth_factor = (original_max_position_embeddings / wavelen - low_freq_factor) / (
        high_freq_factor - low_freq_factor)
    smoothed_freqs = (1 - smooth_factor) * freqs / scaling_factor + smooth_factor * freqs
    is_medium_freqs = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    freqs = torch.where(is_medium_freqs, smoothed_freqs, freqs)
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def reshape_for_broadcast(freqs_cis, x, positions=None):
    ndim = x.ndim
    seqlen = x.shape[1]
    assert positions is None
    freqs_cis = freqs_cis[0:seqlen]
    assert freqs_cis.shape == (seqlen, x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis, positions=None):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_, positions)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    """torch.repeat_interleave(x, dim=2, repeats=n_rep)"""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (torch.unsqueeze(x, dim=3).expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim))


class TorchRMSNorm(nn.Module):
    """torch.nn.RMSNorm(dim, eps) (torch >= 2.4), run through the emulated aten::_fused_rms_norm."""

    def __init__(self, dim, eps):
        super().__init__()
        self.normalized_shape, self.eps = (dim,), eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return FusedRmsNormFn.apply(x, self.weight, self.eps)


class ScaledDotProductAttentionWrapper(nn.Module):
    """torchtitan/models/attention.py: sdpa_kernel([CUDNN, FLASH, (EFFICIENT,) MATH], set_priority=True)."""

    def forward(self, q, k, v, *, scale=None, enable_gqa=False, is_causal=True):
        return sdpa(q, k, v, is_causal=is_causal, scale=scale)


class TitanAttention(nn.Module):
    def __init__(self, a, gqa_native):
        super().__init__()
        self.n_heads = a["n_heads"]
        self.n_kv_heads = a["n_heads"] if a["n_kv_heads"] is None else a["n_kv_heads"]
        self.n_rep = self.n_heads // self.n_kv_heads
        self.head_dim = a["dim"] // a["n_heads"]
        self.enable_gqa = self.n_heads > self.n_kv_heads
        self.gqa_native = gqa_native
        self.wq = nn.Linear(a["dim"], a["n_heads"] * self.head_dim, bias=False)
        self.wk = nn.Linear(a["dim"], self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(a["dim"], self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(a["n_heads"] * self.head_dim, a["dim"], bias=False)
        self.inner_attention = ScaledDotProductAttentionWrapper()

    def forward(self, x, freqs_cis, attention_masks, positions=None):
        bs, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bs, seqlen, -1, self.head_dim)
        xk = xk.view(bs, seqlen, -1, self.head_dim)
        xv = xv.view(bs, seqlen, -1, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis, positions=positions)
        if not self.gqa_native:  # 13c98375
            keys = repeat_kv(xk, self.n_rep)
            values = repeat_kv(xv, self.n_rep)
            xq = xq.transpose(1, 2)
            xk = keys.transpose(1, 2)
            xv = values.transpose(1, 2)
            assert attention_masks is None
            output = self.inner_attention(xq, xk, xv)
            output = output.transpose(1, 2).contiguous()
        else:  # 238fa995
            xq = xq.transpose(1, 2)
            xk = xk.transpose(1, 2)
            xv = xv.transpose(1, 2)
            assert attention_masks is None
            output = self.inner_attention(xq, xk, xv, enable_gqa=self.enable_gqa).transpose(1, 2).contiguous()
        output = output.view(bs, seqlen, -1)
        return self.wo(output)


class TitanFeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of, ffn_dim_multiplier):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TitanTransformerBlock(nn.Module):
    def __init__(self, layer_id, a, gqa_native):
        super().__init__()
        self.attention = TitanAttention(a, gqa_native)
        self.feed_forward = TitanFeedForward(dim=a["dim"], hidden_dim=4 * a["dim"], multiple_of=a["multiple_of"],
                                             ffn_dim_multiplier=a["ffn_dim_multiplier"])
        self.attention_norm = TorchRMSNorm(a["dim"], eps=a["norm_eps"])
        self.ffn_norm = TorchRMSNorm(a["dim"], eps=a["norm_eps"])

    def forward(self, x, freqs_cis, attention_masks, positions=None):
        h = x + self.attention(self.attention_norm(x), freqs_cis, attention_masks, positions)
        out = h + self.feed_forward(self.ffn_norm(h))
        return out


class TitanTransformer(nn.Module):
    def __init__(self, a, gqa_native=False):
        super().__init__()
        self.a = a
        self.tok_embeddings = nn.Embedding(a["vocab_size"], a["dim"])
        self.register_buffer("freqs_cis", precompute_freqs_cis(a["dim"] // a["n_heads"], a["max_seq_len"],
                                                               a["rope_theta"]), persistent=False)
        self.layers = nn.ModuleDict()
        for layer_id in range(a["n_layers"]):
            self.layers[str(layer_id)] = TitanTransformerBlock(layer_id, a, gqa_native)
        self.norm = TorchRMSNorm(a["dim"], eps=a["norm_eps"])
        self.output = nn.Linear(a["dim"], a["vocab_size"], bias=False)

    def forward(self, tokens, attention_masks=None, positions=None):
        h = self.tok_embeddings(tokens) if self.tok_embeddings is not None else tokens
        for layer in self.layers.values():
            h = layer(h, self.freqs_cis, attention_masks=attention_masks, positions=positions)
        h = self.norm(h) if self.norm is not None else h
        output = self.output(h) if self.output is not None else h
        return output


def titan_cross_entropy_loss(pred, labels):
    """torchtitan/components/loss.py cross_entropy_loss."""
    return F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1), reduction="sum",
                           ignore_index=IGNORE_INDEX)


def titan_multiple_of(dim, ffn):
    for m in (16, 32, 64, 128, 256, 512, 1024):
        hidden = int(2 * (4 * dim) / 3)
        if m * ((hidden + m - 1) // m) == ffn:
            return m
    raise SystemExit(f"census.py: error: ffn {ffn} is not torchtitan's FeedForward size for dim {dim} "
                     f"(int(8*dim/3) rounded up to a multiple_of)")


def apply_titan_ac(model, ckpt, census):
    """torchtitan distributed/activation_checkpoint.py apply_ac (full, selective 'op', selective 'N')."""
    if ckpt == "none":
        return []
    wrapped = []
    layer_sac_count = 0  # the module-level _layer_sac_count of a fresh process
    for layer_id, block in list(model.layers.named_children()):
        if ckpt == "full":
            new = CheckpointWrapper(block, census)
        elif ckpt == "op":
            new = CheckpointWrapper(block, census,
                                    context_fn=lambda: TitanSACMode(census, TITAN_OP_SAC_SAVE_LIST))
        else:
            ac_freq = int(ckpt.split(":")[1])
            layer_sac_count += 1
            new = CheckpointWrapper(block, census) if (not ac_freq or layer_sac_count % ac_freq == 0) else block
        if new is not block:
            wrapped.append(int(layer_id))
        model.layers.register_module(layer_id, new)
    return wrapped


# --------------------------------------------------------------------------------------------------------------
# torchtune: modules/{transformer,attention,attention_utils,rms_norm,position_embeddings,feed_forward}.py,
# models/llama3/_component_builders.py, modules/loss/ce_chunked_output_loss.py (bd2a0fc7)


class TuneRMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.normalized_shape = (dim,)
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x_fp32 = x.float()
        x_normed = (x_fp32 * torch.rsqrt(x_fp32.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x)
        return x_normed * self.scale


class RotaryPositionalEmbeddings(nn.Module):
    def __init__(self, dim, max_seq_len=4096, base=10_000):
        super().__init__()
        self.dim, self.base, self.max_seq_len = dim, base, max_seq_len
        theta = 1.0 / (self.base ** (torch.arange(0, self.dim, 2)[: (self.dim // 2)].float() / self.dim))
        self.register_buffer("theta", theta, persistent=False)
        seq_idx = torch.arange(max_seq_len, dtype=self.theta.dtype, device=self.theta.device)
        idx_theta = torch.einsum("i, j -> ij", seq_idx, self.theta).float()
        cache = torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)
        self.register_buffer("cache", cache, persistent=False)

    def forward(self, x, *, input_pos=None):
        seq_len = x.size(1)
        rope_cache = self.cache[:seq_len] if input_pos is None else self.cache[input_pos]
        xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
        rope_cache = rope_cache.view(-1, xshaped.size(1), 1, xshaped.size(3), 2)
        x_out = torch.stack(
            [xshaped[..., 0] * rope_cache[..., 0] - xshaped[..., 1] * rope_cache[..., 1],
             xshaped[..., 1] * rope_cache[..., 0] + xshaped[..., 0] * rope_cache[..., 1]], -1)
        x_out = x_out.flatten(3)
        return x_out.type_as(x)


class TuneMultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, num_kv_heads, head_dim, pos_embeddings, attn_dropout=0.0):
        super().__init__()
        self.num_heads, self.num_kv_heads, self.embed_dim = num_heads, num_kv_heads, embed_dim
        self.attn_dropout, self.head_dim, self.is_causal = attn_dropout, head_dim, True
        self.q_proj = nn.Linear(embed_dim, num_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(embed_dim, num_kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim, num_kv_heads * head_dim, bias=False)
        self.output_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.pos_embeddings = pos_embeddings
        self.q_norm = self.k_norm = None
        self.kv_cache = None

    def _attention_call(self, q, k, v, mask, dropout_p, is_causal):
        # attention_utils._sdpa_or_flex_attention -> _sdpa_call (mask is not a BlockMask)
        assert mask is None and dropout_p == 0.0
        return sdpa(q, k, v, is_causal=is_causal)

    def forward(self, x, y=None, *, mask=None, input_pos=None):
        b, s_x, _ = x.shape
        s_y = y.shape[1] if y is not None else 0
        q = self.q_proj(x)
        q_per_kv = self.num_heads // self.num_kv_heads
        q = q.view(b, s_x, self.num_kv_heads * q_per_kv, self.head_dim)
        if self.pos_embeddings is not None:
            q = self.pos_embeddings(q, input_pos=input_pos)
        q = q.transpose(1, 2)
        k = self.k_proj(y)
        v = self.v_proj(y)
        k = k.view(b, s_y, -1, self.head_dim)
        v = v.view(b, s_y, -1, self.head_dim)
        if self.pos_embeddings is not None:
            k = self.pos_embeddings(k, input_pos=input_pos)
        k = k.transpose(1, 2)
        v = v.transpose(1, 2)
        if self.num_heads != self.num_kv_heads:
            expand_shape = (b, self.num_kv_heads, q_per_kv, -1, self.head_dim)
            k = k.unsqueeze(2).expand(expand_shape).flatten(1, 2)
            v = v.unsqueeze(2).expand(expand_shape).flatten(1, 2)
        output = self._attention_call(q, k, v, mask=mask,
                                      dropout_p=self.attn_dropout if self.training else 0.0,
                                      is_causal=self.kv_cache is None and mask is None and self.is_causal)
        output = output.transpose(1, 2).contiguous().view(b, s_x, -1)
        return self.output_proj(output)


class TuneFeedForward(nn.Module):
    def __init__(self, *, gate_proj, down_proj, up_proj=None, activation=None):
        super().__init__()
        self.w1, self.w2, self.w3 = gate_proj, down_proj, up_proj
        self.activation = activation if activation is not None else nn.SiLU()

    def forward(self, x):
        h = self.activation(self.w1(x))
        if self.w3 is not None:
            h = h * self.w3(x)
        h = self.w2(h)
        return h


class TransformerSelfAttentionLayer(nn.Module):
    def __init__(self, attn, mlp, *, sa_norm=None, mlp_norm=None):
        super().__init__()
        self.attn, self.mlp = attn, mlp
        self.sa_norm = sa_norm or nn.Identity()
        self.mlp_norm = mlp_norm or nn.Identity()
        self.sa_scale = nn.Identity()
        self.mlp_scale = nn.Identity()
        self.mask_mod = None

    def forward(self, x, *, mask=None, input_pos=None, **kwargs):
        h = self.sa_norm(x)
        attn_out = self.attn(h, h, mask=mask, input_pos=input_pos)
        h = self.sa_scale(attn_out) + x
        mlp_out = self.mlp(self.mlp_norm(h))
        out = h + self.mlp_scale(mlp_out)
        return out


class TuneTransformerDecoder(nn.Module):
    def __init__(self, *, tok_embeddings, layers, norm, output):
        super().__init__()
        self.tok_embeddings, self.layers, self.norm, self.output = tok_embeddings, layers, norm, output
        self.num_output_chunks = 0
        self.skip_output_layer = False

    def set_num_output_chunks(self, num_output_chunks):
        self.num_output_chunks = num_output_chunks

    def chunked_output(self, last_hidden_state):
        return [self.output(chunk) for chunk in last_hidden_state.tensor_split(self.num_output_chunks, dim=1)]

    def forward(self, tokens, *, mask=None, input_pos=None):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h, mask=mask, encoder_input=None, encoder_mask=None, input_pos=input_pos)
        return self.unembed(h)

    def unembed(self, h):
        h = self.norm(h)
        if self.skip_output_layer:
            output = h
        elif self.num_output_chunks > 0:
            output = self.chunked_output(h)
        else:
            output = self.output(h).float()
        return output


def tune_llama3(*, vocab_size, num_layers, num_heads, num_kv_heads, embed_dim, max_seq_len, intermediate_dim,
                rope_base=500_000, norm_eps=1e-5, attn_dropout=0.0):
    """torchtune/models/llama3/_component_builders.py llama3() (rope shared by all layers)."""
    head_dim = embed_dim // num_heads
    rope = RotaryPositionalEmbeddings(dim=head_dim, max_seq_len=max_seq_len, base=rope_base)
    layers = nn.ModuleList()
    for _ in range(num_layers):
        self_attn = TuneMultiHeadAttention(embed_dim=embed_dim, num_heads=num_heads, num_kv_heads=num_kv_heads,
                                           head_dim=head_dim, pos_embeddings=rope, attn_dropout=attn_dropout)
        mlp = TuneFeedForward(gate_proj=nn.Linear(embed_dim, intermediate_dim, bias=False),
                              down_proj=nn.Linear(intermediate_dim, embed_dim, bias=False),
                              up_proj=nn.Linear(embed_dim, intermediate_dim, bias=False))
        layers.append(TransformerSelfAttentionLayer(attn=self_attn, mlp=mlp,
                                                    sa_norm=TuneRMSNorm(dim=embed_dim, eps=norm_eps),
                                                    mlp_norm=TuneRMSNorm(dim=embed_dim, eps=norm_eps)))
    return TuneTransformerDecoder(tok_embeddings=nn.Embedding(vocab_size, embed_dim), layers=layers,
                                  norm=TuneRMSNorm(embed_dim, eps=norm_eps),
                                  output=nn.Linear(embed_dim, vocab_size, bias=False))


class CEWithChunkedOutputLoss(nn.Module):
    def __init__(self, num_output_chunks=8, ignore_index=-100):
        super().__init__()
        self.num_output_chunks, self.ignore_index = num_output_chunks, ignore_index

    def compute_cross_entropy(self, logits, labels, normalize=True):
        return F.cross_entropy(logits.float(), labels, ignore_index=self.ignore_index, reduction="sum")

    def forward(self, logits, labels):
        total_elements = (labels != self.ignore_index).sum()
        labels = [target_chunk.reshape(-1) for target_chunk in labels.tensor_split(self.num_output_chunks, dim=1)]
        logits = [logit_chunk.reshape(-1, logit_chunk.size(-1)) for logit_chunk in logits]
        total_loss = 0.0
        for logits_chunk, labels_chunk in zip(logits, labels):
            total_loss += self.compute_cross_entropy(logits_chunk, labels_chunk)
        return total_loss / total_elements


def apply_tune_ac(model, ckpt, census):
    """training.set_activation_checkpointing(model, auto_wrap_policy={TransformerSelfAttentionLayer})."""
    if ckpt == "none":
        return []
    if ckpt != "full":
        raise SystemExit(f"census.py: error: torchtune has no ckpt {ckpt!r} (none|full)")
    for i in range(len(model.layers)):
        model.layers[i] = CheckpointWrapper(model.layers[i], census)
    return list(range(len(model.layers)))


# --------------------------------------------------------------------------------------------------------------
# one variant

def sources(framework):
    if framework.startswith("torchtitan"):
        c = TITAN_GQA_COMMIT if framework == "torchtitan_gqa" else TITAN_COMMIT
        return [
            {"module": "Transformer, TransformerBlock, Attention, FeedForward, apply_rotary_emb, precompute_freqs_cis"
                       + ("" if framework == "torchtitan_gqa" else ", repeat_kv"),
             "repo": TITAN_REPO, "path": "torchtitan/models/llama3/model/model.py", "commit": c},
            {"module": "ScaledDotProductAttentionWrapper", "repo": TITAN_REPO,
             "path": "torchtitan/models/attention.py", "commit": c},
            {"module": "cross_entropy_loss", "repo": TITAN_REPO, "path": "torchtitan/components/loss.py",
             "commit": c},
            {"module": "forward_backward_step (loss_sum / global_valid_tokens, del pred)", "repo": TITAN_REPO,
             "path": "torchtitan/train.py", "commit": c},
            {"module": "apply_ac, _apply_full_ac, _apply_op_sac, _apply_layer_sac", "repo": TITAN_REPO,
             "path": "torchtitan/distributed/activation_checkpoint.py", "commit": c},
            {"module": "_op_sac_save_list", "repo": TITAN_REPO,
             "path": "torchtitan/models/llama3/infra/parallelize.py", "commit": c},
        ] + TORCH_REFS
    c = TUNE_COMMIT
    return [
        {"module": "TransformerSelfAttentionLayer, TransformerDecoder (chunked_output, unembed)", "repo": TUNE_REPO,
         "path": "torchtune/modules/transformer.py", "commit": c},
        {"module": "MultiHeadAttention", "repo": TUNE_REPO, "path": "torchtune/modules/attention.py", "commit": c},
        {"module": "_sdpa_or_flex_attention", "repo": TUNE_REPO, "path": "torchtune/modules/attention_utils.py",
         "commit": c},
        {"module": "RMSNorm", "repo": TUNE_REPO, "path": "torchtune/modules/rms_norm.py", "commit": c},
        {"module": "RotaryPositionalEmbeddings", "repo": TUNE_REPO,
         "path": "torchtune/modules/position_embeddings.py", "commit": c},
        {"module": "FeedForward", "repo": TUNE_REPO, "path": "torchtune/modules/feed_forward.py", "commit": c},
        {"module": "llama3 (component builder)", "repo": TUNE_REPO,
         "path": "torchtune/models/llama3/_component_builders.py", "commit": c},
        {"module": "CEWithChunkedOutputLoss", "repo": TUNE_REPO,
         "path": "torchtune/modules/loss/ce_chunked_output_loss.py", "commit": c},
        {"module": "set_activation_checkpointing", "repo": TUNE_REPO, "path": "torchtune/training/memory.py",
         "commit": c},
        {"module": "_loss_step (del outputs before backward)", "repo": TUNE_REPO,
         "path": "recipes/full_finetune_single_device.py", "commit": c},
    ] + TORCH_REFS


def describe(region, op, arg, dtype):
    if region == "tok_embeddings":
        return "embedding: token ids (indices for the weight gradient)"
    if region == "norm":
        return {("FusedRmsNormBackward0", "input"): "final norm: input (last block's output)",
                ("FusedRmsNormBackward0", "result1"): "final norm: rstd",
                ("PowBackward0", "self"): "final norm: fp32 copy of the input (last block's output)",
                ("MulBackward0", "self"): ("final norm: fp32 copy of the input" if dtype == "float32" else
                                           "final norm: normalized input before * scale"),
                ("RsqrtBackward0", "result"): "final norm: rstd",
                ("MulBackward0", "other"): "final norm: rstd"}.get((op, arg), f"final norm: {op}.{arg}")
    if region == "output":
        return "output layer: its input (the final norm's output)"
    if region == "loss":
        return {("LogSoftmaxBackward0", "result"): "loss: log-softmax of the fp32 logits",
                ("NllLossBackward0", "self"): "loss: log-softmax of the fp32 logits",
                ("NllLossBackward0", "target"): ("loss: labels" if dtype != "copy" else
                                                  "loss: labels (a chunk's copy)"),
                ("NllLossBackward0", "total_weight"): "loss: NLL total_weight",
                ("DivBackward0", "other"): "loss: valid-token count"}.get((op, arg), f"loss: {op}.{arg}")
    return f"{region}: {op}.{arg}"


def entry_of(rec, census, param_ptrs, buffer_ptrs, input_ptrs):
    t = rec["t"]
    ptr, sbytes = storage_of(t)
    dtype = (census.dtype_override[id(t)][0] if id(t) in census.dtype_override
             else DTYPE_NAMES.get(t.dtype, str(t.dtype).replace("torch.", "")))
    kind = ("param" if ptr in param_ptrs else "buffer" if ptr in buffer_ptrs else
            "input" if ptr in input_ptrs else "activation")
    return {"ptr": ptr, "kind": kind, "module": rec["module"], "op": rec["op"], "arg": rec["arg"],
            "shape": list(t.shape), "dtype": dtype, "element_size": t.element_size(),
            "bytes": t.numel() * t.element_size(), "storage_bytes": sbytes}


def measure_loss(framework, loss_kind, b, s, V, seed):
    """Loss forward + backward from leaf bf16 logits, allocator events from torch.profiler (see docstring)."""
    from torch.profiler import ProfilerActivity, profile

    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, V, (b, s), generator=g)
    if loss_kind == "fp32_full":
        leaves = [torch.randn(b, s, V, generator=g).to(torch.bfloat16).requires_grad_()]
        valid = (labels != IGNORE_INDEX).sum().float()  # train_step: global_valid_tokens, before forward

        def forward():
            return titan_cross_entropy_loss(leaves[0], labels) / valid
    else:
        n = int(loss_kind.split(":")[1])
        sizes = [c.shape[1] for c in torch.empty(b, s, 0).tensor_split(n, dim=1)]
        leaves = [torch.randn(b, c, V, generator=g).to(torch.bfloat16).requires_grad_() for c in sizes]
        loss_fn = CEWithChunkedOutputLoss(num_output_chunks=n)

        def forward():
            return loss_fn(list(leaves), labels)

    def running(events, start):
        mem = sorted(((e.start_us(), i, e.nbytes()) for i, e in enumerate(events) if e.name() == "[memory]"))
        cur = peak = start
        for _, _, nb in mem:
            cur += nb
            peak = max(peak, cur)
        return cur, peak

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p1:
        loss = forward()
    saved, fwd_peak = running(p1.profiler.kineto_results.events(), 0)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p2:
        loss.backward()
        del loss
    end, bwd_peak = running(p2.profiler.kineto_results.events(), saved)
    return {"loss_forward_peak_bytes": fwd_peak, "loss_saved_bytes": saved, "loss_peak_bytes": bwd_peak,
            "loss_end_bytes": end}


def run_variant(framework, ckpt, loss_kind, size, layers=2, seed=0):
    b, s, h, heads, kv, ffn, V = size
    torch.manual_seed(seed)
    census = Census()
    d = h // heads
    if framework in ("torchtitan", "torchtitan_gqa"):
        if loss_kind != "fp32_full":
            raise SystemExit(f"census.py: error: torchtitan's loss is fp32_full, not {loss_kind!r}")
        a = {"dim": h, "n_layers": layers, "n_heads": heads, "n_kv_heads": kv, "vocab_size": V,
             "multiple_of": titan_multiple_of(h, ffn), "ffn_dim_multiplier": None, "norm_eps": 1e-5,
             "rope_theta": 500000, "max_seq_len": s}
        model = TitanTransformer(a, gqa_native=(framework == "torchtitan_gqa"))
        # FSDP2 MixedPrecisionPolicy(param_dtype=bf16): the parameters are cast, the buffers (freqs_cis) are not
        for p in model.parameters():
            p.data = p.data.to(torch.bfloat16)
        census.watch(model)
        wrapped = apply_titan_ac(model, ckpt, census)
    elif framework == "torchtune":
        if not loss_kind.startswith("chunked:"):
            raise SystemExit(f"census.py: error: torchtune's loss here is chunked:N, not {loss_kind!r}")
        prev = torch.get_default_dtype()
        torch.set_default_dtype(torch.bfloat16)  # training.set_default_dtype(bf16) around instantiate
        try:
            model = tune_llama3(vocab_size=V, num_layers=layers, num_heads=heads, num_kv_heads=kv, embed_dim=h,
                                max_seq_len=s, intermediate_dim=ffn)
        finally:
            torch.set_default_dtype(prev)
        model.set_num_output_chunks(int(loss_kind.split(":")[1]))
        census.watch(model)
        wrapped = apply_tune_ac(model, ckpt, census)
    else:
        raise SystemExit(f"census.py: error: unknown framework {framework!r}")
    for name, mod in model.named_modules():  # the checkpoint wrappers are layers.i too
        if isinstance(mod, CheckpointWrapper):
            mod.register_forward_pre_hook(census._enter_hook(name))
            mod.register_forward_hook(census._exit_hook)

    param_ptrs = {storage_of(p)[0] for p in model.parameters()}
    buffer_ptrs = {storage_of(x)[0] for x in model.buffers()}
    g = torch.Generator().manual_seed(seed + 1)
    tokens = torch.randint(0, V, (b, s), generator=g)
    labels = torch.randint(0, V, (b, s), generator=g)
    global_valid_tokens = (labels != IGNORE_INDEX).sum().float()
    input_ptrs = {storage_of(x)[0] for x in (tokens, labels, global_valid_tokens)}

    _CENSUS.append(census)
    try:
        with census.hooks():
            if framework.startswith("torchtitan"):
                pred = model(tokens)
                with census.region("loss"):
                    loss_sum = titan_cross_entropy_loss(pred, labels)
                    loss = loss_sum / global_valid_tokens
                logits = [pred]
            else:
                outputs = model(tokens)
                with census.region("loss"):
                    loss = CEWithChunkedOutputLoss(num_output_chunks=model.num_output_chunks)(outputs, labels)
                logits = outputs
    finally:
        _CENSUS.pop()
    census.attribute([loss.grad_fn] + census.extra_roots)

    # entries, 1.13 corrections, storage accounting
    dropped, entries = [], []
    for rec in census.records:
        e = entry_of(rec, census, param_ptrs, buffer_ptrs, input_ptrs)
        e["region"] = rec["region"]
        key = (e["op"], e["arg"])
        if rec["kind"] == "saved" and key in DROP_1_13:
            dropped.append({k: e[k] for k in ("region", "module", "op", "arg", "shape", "dtype", "bytes")}
                           | {"why": DROP_1_13[key]})
            continue
        if rec["kind"] == "saved" and key not in KNOWN_SAVES and key[0] != "_NoopSaveInputsBackward":
            raise SystemExit(f"census.py: error: {key[0]}.{key[1]} is not in KNOWN_SAVES: check what torch 2.x "
                             f"saves for it before counting it")
        entries.append(e)
    users = defaultdict(int)
    for e in entries:
        if e["kind"] == "activation" and e["storage_bytes"] > 0:
            users[e["ptr"]] += 1
    seen = set()
    for e in entries:  # forward order: a storage is counted where it is first saved
        e["shared"] = users.get(e["ptr"], 0) > 1
        if e["kind"] in ("activation", "input") and e["storage_bytes"] > 0:
            e["counted"] = e["ptr"] not in seen
            seen.add(e["ptr"])
        else:
            e["counted"] = False  # parameters, buffers, 0-byte tensors (the checkpoint dummy)
        e["alloc_bytes"] = alloc_round(e["storage_bytes"]) if e["counted"] else 0

    def clean(e, with_region=False):
        out = {"layer": int(e["region"].split(".")[1])} if e["region"].startswith("layers.") else {}
        if with_region:
            out["region"] = e["region"]
        out.update({k: e[k] for k in ("module", "op", "arg", "shape", "dtype", "element_size", "bytes",
                                      "storage_bytes", "alloc_bytes", "shared", "counted")})
        return out

    layer_entries = [e for e in entries if e["region"].startswith("layers.") and e["kind"] == "activation"]
    by_layer = []
    for i in range(layers):
        es = [e for e in layer_entries if e["region"] == f"layers.{i}" and e["counted"]]
        by_layer.append((sum(e["storage_bytes"] for e in es), sum(e["alloc_bytes"] for e in es)))
    stage = [e for e in entries if not e["region"].startswith("layers.") and e["kind"] in ("activation", "input")]

    # transients and the embedding output, for reference
    emb_shape = [b, s, h]
    extras = []
    for e in stage:
        x = clean(e, with_region=True)
        what = describe(e["region"], e["op"], e["arg"],
                        "copy" if (e["op"], e["arg"], e["kind"]) == ("NllLossBackward0", "target", "activation")
                        else e["dtype"])
        x = {"what": what, "kind": e["kind"], "saved": True} | x
        extras.append(x)
    saved_block0 = [e for e in layer_entries if e["region"] == "layers.0" and e["shape"] == emb_shape
                    and e["op"] in ("FusedRmsNormBackward0", "_NoopSaveInputsBackward")]
    extras.append({"what": "embedding output (layers.0's input)", "kind": "activation", "shape": emb_shape,
                   "dtype": "bfloat16", "bytes": 2 * b * s * h,
                   "saved": bool(saved_block0),
                   "note": (f"saved by layers.0 ({saved_block0[0]['op']}.{saved_block0[0]['arg']}): counted in "
                            "per_layer_bytes" if saved_block0 else
                            "not saved (torchtune's RMSNorm saves an fp32 copy instead): freed after layers.0")})
    if framework.startswith("torchtitan"):
        extras.append({"what": "logits", "kind": "transient", "shape": [b, s, V], "dtype": "bfloat16",
                       "bytes": 2 * b * s * V, "saved": False,
                       "note": "not saved (ToCopyBackward0 keeps none); train.py frees pred before backward"})
        extras.append({"what": "logits fp32 copy (pred.flatten(0, 1).float())", "kind": "transient",
                       "shape": [b * s, V], "dtype": "float32", "bytes": 4 * b * s * V, "saved": False,
                       "note": "not saved (log_softmax saves its result); lives during the loss forward"})
    else:
        n = model.num_output_chunks
        csz = [list(t.shape) for t in logits]
        extras.append({"what": f"logits ({n} chunks)", "kind": "transient", "shape": csz[0] if n == 1 else csz,
                       "dtype": "bfloat16", "bytes": sum(2 * math.prod(c) for c in csz), "saved": False,
                       "note": "the list the model returns; not saved; the recipe frees it before backward"})
        extras.append({"what": "logits fp32 copy (one chunk at a time)", "kind": "transient",
                       "shape": [math.prod(csz[0][:2]), V], "dtype": "float32",
                       "bytes": 4 * math.prod(csz[0][:2]) * V, "saved": False,
                       "note": "compute_cross_entropy upcasts one chunk; freed when its cross_entropy returns"})

    lm = measure_loss(framework, loss_kind, b, s, V, seed + 2)
    per_layer = by_layer[0][0] if len({x[0] for x in by_layer}) == 1 else None
    doc = {
        "tool": TOOL,
        "torch": torch.__version__,
        "framework": framework,
        "ckpt": ckpt,
        "loss": loss_kind,
        "dims": {"b": b, "s": s, "h": h, "heads": heads, "kv_heads": kv, "head_dim": d, "ffn": ffn, "vocab": V,
                 "layers": layers},
        "dtype": "bf16",
        "checkpointed_layers": wrapped,
        "layer_tensors": [clean(e) for e in layer_entries],
        "per_layer_bytes": per_layer if per_layer is not None else sum(x[0] for x in by_layer) // layers,
        "per_layer_alloc_bytes": (by_layer[0][1] if per_layer is not None
                                  else sum(x[1] for x in by_layer) // layers),
        "per_layer_bytes_by_layer": [x[0] for x in by_layer],
        "per_layer_alloc_bytes_by_layer": [x[1] for x in by_layer],
        "stage_extras": extras,
        "stage_saved_bytes": sum(e["storage_bytes"] for e in stage if e["counted"] and e["kind"] == "activation"),
        "stage_input_bytes": sum(e["storage_bytes"] for e in stage if e["counted"] and e["kind"] == "input"),
        "param_tensors": [clean(e, with_region=True) for e in entries if e["kind"] == "param"],
        "buffer_tensors": [clean(e, with_region=True) for e in entries if e["kind"] == "buffer"],
        "dropped_1_13": dropped,
        "total_saved_bytes": sum(e["storage_bytes"] for e in entries if e["counted"]),
        **lm,
        "loss_peak_method": ("torch.profiler [memory] events (CPU, exact sizes), loss run alone from leaf bf16 "
                             "logits: running sum from 0 after the logits exist; forward peak, what forward "
                             "leaves (saved), and the maximum during backward (includes the bf16 gradient of "
                             "the logits, excludes the logits)"),
        "source": sources(framework),
    }
    return doc


# --------------------------------------------------------------------------------------------------------------
# symbolic shapes across size sets

SYMBOLS = ["b", "s", "h", "heads", "kv", "d", "f", "V", "b*s", "kv*d", "s/C", "b*s/C", "0", "1", "2"]


def sym_values(doc):
    dm = doc["dims"]
    n = int(doc["loss"].split(":")[1]) if doc["loss"].startswith("chunked:") else 1
    v = {"b": dm["b"], "s": dm["s"], "h": dm["h"], "heads": dm["heads"], "kv": dm["kv_heads"], "d": dm["head_dim"],
         "f": dm["ffn"], "V": dm["vocab"], "b*s": dm["b"] * dm["s"], "kv*d": dm["kv_heads"] * dm["head_dim"],
         "0": 0, "1": 1, "2": 2}
    if dm["s"] % n == 0:
        v["s/C"], v["b*s/C"] = dm["s"] // n, dm["b"] * dm["s"] // n
    return v


def annotate_symbols(docs):
    """docs: the same variant at several sizes. Adds shape_sym where one symbol fits a dim at every size."""
    if len(docs) < 2:
        return
    lists = [d["layer_tensors"] for d in docs]
    if len({len(x) for x in lists}) != 1:
        return
    vals = [sym_values(d) for d in docs]
    for i in range(len(lists[0])):
        rows = [x[i] for x in lists]
        if len({(r["op"], r["arg"], len(r["shape"])) for r in rows}) != 1:
            return
        sym = []
        for j in range(len(rows[0]["shape"])):
            fit = [k for k in SYMBOLS if all(k in v and v[k] == r["shape"][j] for v, r in zip(vals, rows))]
            sym.append(fit[0] if fit else "?")
        for r in rows:
            r["shape_sym"] = sym


ORDER = ["b", "s", "heads", "kv", "h", "d", "f", "V", "C"]


def bytes_formula(entries):
    """Sum of counted storages as a polynomial in the dims, from shape_sym (None if a shape is not symbolic)."""
    terms = defaultdict(int)
    for e in entries:
        if not e["counted"]:
            continue
        sym = e.get("shape_sym")
        if sym is None or "?" in sym or e["bytes"] != e["storage_bytes"]:
            return None
        coef, names = e["element_size"], []
        for x in sym:
            if x.isdigit():
                coef *= int(x)
            else:
                names += x.split("*")
        if "heads" in names and "d" in names:  # heads * head_dim = h
            names.remove("heads")
            names.remove("d")
            names.append("h")
        terms[tuple(sorted(names, key=ORDER.index))] += coef
    parts = []
    for key in sorted(terms, key=lambda k: (-len(k), [ORDER.index(n) for n in k])):
        parts.append("*".join([str(terms[key])] + list(key)) if key else str(terms[key]))
    return " + ".join(parts)


def eval_formula(formula, values):
    total = 0
    for term in formula.split(" + "):
        f = term.split("*")
        total += int(f[0]) * math.prod(values[n] for n in f[1:])
    return total


def annotate_formulas(docs):
    for doc in docs:
        forms = [bytes_formula([e for e in doc["layer_tensors"] if e.get("layer") == i])
                 for i in range(doc["dims"]["layers"])]
        v = sym_values(doc)
        for f, n in zip(forms, doc["per_layer_bytes_by_layer"]):
            if f is not None and eval_formula(f, v) != n:
                raise RuntimeError(f"formula {f} gives {eval_formula(f, v)}, census {n}")
        doc["per_layer_bytes_formula_by_layer"] = forms
        doc["per_layer_bytes_formula"] = forms[0] if len(set(forms)) == 1 else None


# --------------------------------------------------------------------------------------------------------------
# CLI

def dumps(doc):
    """One key per line at the top; each tensor (a dict in a list) on one line; everything else compact."""
    def compact(v):
        return json.dumps(v, separators=(", ", ": "))

    lines = []
    for k, v in doc.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            body = ",\n".join("  " + compact(x) for x in v)
            lines.append(f" {json.dumps(k)}: [\n{body}\n ]")
        else:
            lines.append(f" {json.dumps(k)}: {compact(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def file_name(framework, ckpt, loss, size):
    b, s, h = size[:3]
    return f"{framework}-{ckpt.replace(':', '')}-{loss.replace(':', '')}-b{b}-s{s}-h{h}.json"


def generate(out_dir, variants, sizes, layers):
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for fw, ck, lo in variants:
        docs = [run_variant(fw, ck, lo, size, layers=layers) for size in sizes]
        annotate_symbols(docs)
        annotate_formulas(docs)
        for size, doc in zip(sizes, docs):
            path = os.path.join(out_dir, file_name(fw, ck, lo, size))
            with open(path, "w") as f:
                f.write(dumps(doc))
            written.append(path)
    return written


def parse_size(text):
    vals = tuple(int(x) for x in text.split(","))
    if len(vals) != 7:
        raise argparse.ArgumentTypeError("--size takes b,s,h,heads,kv_heads,ffn,vocab")
    b, s, h, heads, kv, ffn, V = vals
    if h % heads or heads % kv or (h // heads) % 8:
        raise argparse.ArgumentTypeError("heads must divide h, kv_heads heads, and head_dim be a multiple of 8")
    return vals


def main(argv=None):
    ap = argparse.ArgumentParser(prog="census.py", description=__doc__.split("What it does")[0].rstrip(),
                                 epilog="Definitions, emulations and sources: the module docstring "
                                        "(python3 -c 'import census; help(census)' in tools/measure).",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="directory to write the fixtures into")
    ap.add_argument("--check", action="store_true", help="regenerate into a temporary directory and compare")
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                       "tests", "fixtures", "census"),
                    help="what --check compares against (default: tests/fixtures/census)")
    ap.add_argument("--framework", choices=["torchtitan", "torchtitan_gqa", "torchtune"])
    ap.add_argument("--ckpt", help="none | full | op | every:N")
    ap.add_argument("--loss", help="fp32_full (torchtitan) | chunked:N (torchtune)")
    ap.add_argument("--size", type=parse_size, action="append", help="b,s,h,heads,kv_heads,ffn,vocab")
    ap.add_argument("--layers", type=int, default=2, help="transformer blocks (default 2)")
    ap.add_argument("--print", action="store_true", help="print the JSON of one variant")
    args = ap.parse_args(argv)

    torch.set_num_threads(1)
    sizes = args.size or DEFAULT_SIZES
    if args.framework:
        variants = [(args.framework, args.ckpt or "none",
                     args.loss or ("fp32_full" if args.framework.startswith("torchtitan") else "chunked:8"))]
    else:
        variants = DEFAULT_VARIANTS
    if args.print:
        docs = [run_variant(*variants[0], size, layers=args.layers) for size in sizes]
        annotate_symbols(docs)
        annotate_formulas(docs)
        for doc in docs:
            sys.stdout.write(dumps(doc))
        return 0
    if args.check:
        ref = os.path.normpath(args.fixtures)
        tmp = tempfile.mkdtemp(prefix="census-")
        try:
            written = generate(tmp, variants, sizes, args.layers)
            bad = []
            names = sorted(os.path.basename(p) for p in written)
            for n in names:
                r = os.path.join(ref, n)
                if not os.path.exists(r):
                    bad.append(f"missing fixture {n}")
                elif not filecmp.cmp(r, os.path.join(tmp, n), shallow=False):
                    with open(r) as f1, open(os.path.join(tmp, n)) as f2:
                        a, b_ = json.load(f1), json.load(f2)
                    keys = sorted(k for k in set(a) | set(b_) if a.get(k) != b_.get(k))
                    bad.append(f"{n}: differs in {', '.join(keys) or 'formatting'}")
            if args.framework is None and args.size is None:
                extra = sorted(set(os.listdir(ref)) - set(names)) if os.path.isdir(ref) else []
                bad += [f"fixture not produced by the tool: {n}" for n in extra if n.endswith(".json")]
            for line in bad:
                print(f"census.py: {line}", file=sys.stderr)
            print(f"census.py: {len(names) - len([x for x in bad if not x.startswith('fixture')])}/{len(names)} "
                  f"fixtures match", file=sys.stderr)
            return 1 if bad else 0
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if not args.out:
        ap.error("give --out DIR, --check or --print")
    for p in generate(args.out, variants, sizes, args.layers):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
