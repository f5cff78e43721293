// The saved-tensor model: one description of what a training step keeps for the
// backward pass, walked by two visitors. The summing visitor (the planner's
// kernel and the ledger's numbers) adds bytes and never builds text; the
// describing visitor (the ledger's tensor list) calls each tensor's describe()
// for its shape and sharding. Tensor kinds are an enum; their names are display
// text only.
#pragma once

#include <cstdint>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledger/tensor_names.hpp"
#include "model/lora.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

enum class TensorKind : std::uint8_t {
    attentionNormInput,
    attentionNormStatistics,
    qkvInput,
    query,           // with learned absolute positions
    queryAfterRope,  // with rotary embeddings (pos_emb = 0)
    keyValue,
    softmaxLse,
    attentionProbabilities,
    attentionDropoutMask,
    droppedAttentionProbabilities,
    attentionOutput,          // the output projection's input
    attentionOutputForFlash,  // FP8 with FlashAttention: the BF16 output its
                              // backward reads
    attentionOutputFp8Copy,   // ... and the FP8 copy the output projection saves
    attentionResidualDropoutMask,
    mlpNormInput,
    mlpNormStatistics,
    fc1Input,
    gateUp,
    swigluOutput,
    fc1Output,
    activationOutput,
    routerLogits,
    dispatchedTokens,
    expertGateUp,
    expertSwigluOutput,
    expertFc1Output,
    expertActivationOutput,
    routingWeights,
    routerInputFp32,
    routerScores,
    expertSiluOutput,
    combinedExpertOutputs,
    sharedExpertInput,
    sharedExpertGateUpOutput,
    sharedExpertGate,
    routerInput,  // Megatron-LM: the MLP norm's output the router's gate saves
    mlpResidualDropoutMask,
    attentionNormInputFp32,
    attentionNormalised,
    mlpNormInputFp32,
    mlpNormalised,
    siluOutput,
    flashRngState,
    // qk_norm: the norms of the queries and keys (their input, statistics and
    // normalised output); post_norms: the norms after attention and after the
    // MLP.
    queryKeyNormInput,
    queryKeyNormInputFp32,
    queryKeyNormStatistics,
    queryKeyNormalised,
    latentProjectionInput,  // MLA: the normed latents its up-projections read
    postNormInput,
    postNormInputFp32,
    postNormStatistics,
    postNormalised,
    // LoRA: each adapter's r-wide intermediate (B's input), and with lora_dropout
    // the mask and the dropped input.
    loraIntermediate,
    loraDropoutMask,
    loraDroppedInput,
    // torchtitan's op-level selective checkpointing: what its save list keeps of
    // a block.
    blockInput,
    queryProjection,
    valueProjection,
    attentionReduceScatter,
    gateProjection,
    downProjection,
    mlpReduceScatter,
    topkOutputs,       // torchtitan's op-level SAC of a MoE layer: the router's top-k scores and ids
    dispatchReceived,  // the dispatch's output: the all-to-all's received copies, or DeepEP's received tokens
    combineOutput,     // the combine's output: the all-to-all's returned copies, or DeepEP's combined tokens
    sharedExpertW1,    // the shared expert's saved mm outputs (w1 and w2 of w1, w3, w2; w3 after an odd count)
    sharedExpertW2,
    sharedExpertW3,
    outputProjection,  // MLA with a query LoRA: wo is the fifth mm, saved
    upProjection,      // the MLP's w3, saved after an odd count of attention mms
    // Stage-level tensors.
    layerInputCheckpoint,
    recomputedLayer,
    recomputedAttentionCore,
    recomputedModules,  // Megatron-LM's recompute_modules beyond the core
    moeCombineBackward,
    zero3SavedWeights,
    tokenIds,
    embeddingDropoutMask,
    finalNormInput,
    outputLayerInput,
    logits,
    lossLogits,
    logProbabilities,
    compiledLossLogits,
    compiledLossBackward,
    finalNormInputFp32,
    finalNormStatistics,
    finalNormalised,
    labels,
    lossScalars,
    lossBackward,
    lossParallelBackward,
    chunkedLoss,
    lossGradAccumulator,
    outputLayerGatheredInput,
    pipelineLogits,
    mtpNormInputs,
    mtpProjectionInput,
    mtpOutputInputs,
    mtpLogits,
    attentionOutputCompiledCopy,  // a compiled block over a BF16 stream: the
                                  // output projection's own contiguous input
    compiledOutputWeightCast,     // transformers compiled under autocast: the output
                                  // weight's second BF16 cast
};

// Element types: `activation` is the training precision's (BF16 or FP16: 2
// bytes, FP32: 4; BF16 under FP8 training, whose saved GEMM inputs Transformer
// Engine stores in FP8).
enum class Dtype : std::uint8_t { activation, fp32, fp8, uint8, int64, mixed };

// Text only the describing visitor asks for.
struct TensorText {
    std::string shape;
    std::string sharding;
};

// Which layer a group of layer-copies is of.
enum class LayerGroup : std::uint8_t { dense, moe, mtp };

// What one layer's saved tensors depend on beyond the dimensions.
struct LayerSpec {
    bool attentionCore;  // the attention core's tensors are kept (no recomputation
                         // of it)
    bool moe;
    bool opSaveList = false;  // torchtitan's op-level selective checkpointing: the
                              // block input and its save list only
    bool inputOnly = false;   // checkpointed: the layer's input only
    bool selective = false;   // selective recomputation: without what Dims::recompute rebuilds
};

// How a framework's layer code saves its tensors, beyond the architecture
// (docs/frameworks.md; the census of tools/measure/census.py checks each
// against the framework's own code, tests/cpp/test_census.cpp).
enum class NormSaves : std::uint8_t {
    input,         // a fused kernel (Transformer Engine, torch's fused RMSNorm): the
                   // input and its statistics
    fp32Copy,      // RMSNorm computed in FP32 by hand (torchtune rms_norm.py,
                   // transformers LlamaRMSNorm): the FP32 copy of the input (pow,
                   // mul), rstd, and the normalised tensor before the scale
    fp32Residual,  // the same on an FP32 residual stream (autocast with FP32
                   // parameters): no copy, an FP32 normalised
    fp32Input,     // compiled over an FP32 residual stream: the FP32 input and its
                   // statistics
};
struct LayerStyle {
    NormSaves norm;
    double projectionCasts;  // copies of a norm's output the projections save: 1,
                             // or one autocast cast per linear
    bool expandedKv;         // K and V copied to every query head before attention
                             // (torchtune: expand + flatten)
    bool unfusedSwiglu;      // eager SwiGLU, w2(silu(w1 x) * w3 x): SiLU's output
                             // saved on its own
    bool flashRng;           // torch SDPA's flash backward keeps rng_state and unused (24
                             // bytes)
    bool fp32Softmax;        // autocast runs softmax in FP32: the FP32 probabilities and
                             // the next bmm's cast are kept
    // torch.compile of each block, as inductor's default partitioner
    // (torch/_functorch/partitioners.py min_cut_rematerialization_partition) cut
    // torchtitan's, torchtune's and transformers' blocks on an H200 (torch 2.11,
    // tools/measure/compile_census.py and hf_peak.py; tests/fixtures/census-gpu):
    // the block's input and each norm's statistics, the norms' outputs the
    // projections take (one copy), q/k/v/output of SDPA, gate, up and their
    // product, but not SiLU's output. Over a BF16 stream (torchtitan, torchtune)
    // also the output projection's own contiguous input, and the MLP norm's
    // output but not its input; over transformers' FP32 stream (autocast) the MLP
    // norm's FP32 input instead.
    bool compiled;
};

inline LayerStyle layerStyle(const Config& c) {
    LayerStyle s{NormSaves::input, 1, false, false, false, false, false};
    if (c.framework == Framework::megatron) return s;  // Transformer Engine's fused modules (today's model)
    s.unfusedSwiglu = s.flashRng = true;
    // Autocast over FP32 parameters: the residual stream is FP32 and each linear
    // casts its input. A model loaded in BF16 (master_weights false, or a LoRA
    // base) runs a BF16 stream, whose casts copy nothing.
    const bool autocast = c.framework == Framework::hfAccelerate && c.zero < 3 && c.precision != Precision::fp32 && c.masterWeights &&
                          c.finetune == Finetune::full;
    if (c.norm == Norm::rmsnorm && c.framework != Framework::torchtitan) s.norm = autocast ? NormSaves::fp32Residual : NormSaves::fp32Copy;
    s.projectionCasts = autocast ? 0 : 1;  // 0: one cast per linear (3 for Q, K, V; 2 for w1, w3)
    s.expandedKv = c.framework == Framework::torchtune;
    if (c.precision == Precision::fp32 && s.norm == NormSaves::fp32Copy) s.norm = NormSaves::fp32Residual;  // .float() copies nothing
    if (c.autocast && c.framework == Framework::deepspeed) {
        // torch.autocast over BF16 parameters (DeepSpeed torch_autocast):
        // layer_norm, softmax and log_softmax are on autocast's FP32 list
        // (autocast_mode.cpp), so a norm saves an FP32 copy of its input, its FP32
        // output is cast once for the matmul that reads it, and the attention
        // probabilities are FP32 beside the bmm's BF16 cast.
        s.norm = NormSaves::fp32Input;
        s.projectionCasts = 1;
        s.fp32Softmax = true;
    }
    if (c.compile) {
        s.compiled = true;
        s.norm = s.norm == NormSaves::fp32Residual ? NormSaves::fp32Input : NormSaves::input;
        s.projectionCasts = 1;  // one cast of each norm output, shared by the
                                // projections that read it
        s.unfusedSwiglu = false;
        // transformers' sdpa_attention_forward copies K and V to every query head
        // while compiling (sdpa_attention.py use_gqa_in_sdpa is false under
        // torch.compile): the census saw them at every head.
        if (c.framework == Framework::hfAccelerate) s.expandedKv = true;
    }
    return s;
}

// Bytes of one activation element at the training precision.
inline double activationBytes(const Config& c) { return c.precision == Precision::fp32 ? 4 : 2; }

// The tensors of the attention core: what LayerSpec::attentionCore keeps and
// selective recomputation rebuilds.
constexpr bool isAttentionCore(TensorKind kind) {
    return kind == TensorKind::softmaxLse || kind == TensorKind::flashRngState || kind == TensorKind::attentionProbabilities ||
           kind == TensorKind::attentionDropoutMask || kind == TensorKind::droppedAttentionProbabilities;
}

// What selective recomputation frees of a layer (Dims::recompute; model/recompute_modules.hpp), by Megatron-LM's
// modules as its layer specs build them with Transformer Engine (gpt_layer_specs.py):
// - core_attn: the attention core (TransformerBlock's _checkpointed core_attention);
// - layernorm: the output of a norm that is its own TENorm (CheckpointWithoutOutput in TransformerLayer): a MoE
//   layer's pre-MLP norm, whose output the router and the shared expert save, and MLA's input norm, whose output the
//   down-projections save; a norm fused into its linear (TELayerNormColumnParallelLinear) is an IdentityOp;
// - mla_up_proj: MLA's queries, keys and values after the up-projections and RoPE (freed after core attention),
//   and the latents' norms inside that checkpoint (its inputs, the latents, stay);
// - moe_act: the experts' activation output, the FC2 input (experts.py TEGroupedMLP, CheckpointWithoutOutput);
// - moe: the whole MoE block, router, dispatch, experts, combine and shared expert, from its input
//   (moe_layer.py MoELayer.forward, tensor_parallel.checkpoint(custom_forward, False, hidden_states));
// - shared_experts: the shared expert, from its input (MoELayer.shared_experts_compute);
// - mlp: a dense layer's MLP with its fused norm, from the layer's residual (mlp.py through
//   TransformerLayer._forward_mlp).
// Out of line: every tensor of every walk asks, and inlined at each it would grow the walks (the page's module).
bool droppedBySelective(TensorKind kind, const RecomputeModules& m, bool moeLayer, bool mla);

// The shapes most of a layer's tensors have, as text (only the describing
// visitor asks): the hidden states [b, s, h] and a norm's statistics [b, s],
// sharded by SP; a tensor over the heads, split by TP.
inline TensorText hiddenShape(const Config& c) { return TensorText{"[b, " + seqShape(c, true) + ", h]", spSharding(c)}; }
inline TensorText statsShape(const Config& c) { return TensorText{"[b, " + seqShape(c, true) + "]", spSharding(c)}; }
inline TensorText headsShape(std::string shape) { return TensorText{std::move(shape), "heads split by TP"}; }

// What every group of one layer's saved tensors reads: the element sizes and
// the sizes several groups share.
struct LayerSizes {
    // Transformer Engine saves the FP8 cast of each GEMM input; torchao's
    // Float8Linear saves the BF16 input and casts again in backward (torchao
    // float8_linear.py: ctx.save_for_backward(input_hp, weight_hp_t)).
    bool fp8;
    double act;
    Dtype gemm;
    double gemmBytes;  // per element of a saved GEMM input
    double bsh;
    double statsBytes;  // mean and/or rstd, fp32
    // A frozen linear saves no input (autograd saves mm's `self` only for the
    // weight's gradient; checked with saved_tensors_hooks): with adapters, a
    // projection's input stays only where an adapter (without dropout) reads it.
    bool lora, sharedInputs;
};

inline LayerSizes layerSizes(const Config& c, const Dims& x) {
    LayerSizes q;
    q.fp8 = c.precision == Precision::fp8 && c.fp8Recipe == Fp8Recipe::te;
    q.act = activationBytes(c);
    q.gemm = q.fp8 ? Dtype::fp8 : Dtype::activation;
    q.gemmBytes = q.fp8 ? 1 : q.act;
    q.bsh = x.b * x.sRank * x.h / x.spDivisor;
    q.statsBytes = (x.layernorm ? 8 : 4) * x.b * x.sRank / x.spDivisor;
    q.lora = c.finetune != Finetune::full;
    q.sharedInputs = !q.lora || !c.loraDropout;
    return q;
}

// Decides what torchtitan's op-level selective checkpointing keeps of a block:
// its input and its save list.
// The rows a MoE layer's routed tensors have, as text: the copies this rank's
// experts receive (moeRows), or those its tokens send.
inline std::string sentRowsShape(const Config& c) { return "[b·" + seqShape(c, true) + "·k"; }
inline std::string routedRowsShape(const Config& c, const Dims& x) {
    const double etp = expertTensorParallel(c);
    const std::string rows =
        x.spDivisor > 1 && etp != c.tp ? sentRowsShape(c) + (etp > 1 ? "·ETP" : "") : "[b·" + seqShape(c, false) + "·k";
    return rows + (moeImbalance(c) != 1 ? "·f" : "");
}

// Decides what torchtitan's op-level selective checkpointing keeps of a MoE layer's MLP
// (distributed/activation_checkpoint.py SelectiveAC, _get_default_save_ops, at the snapshot membudget models): the
// router's topk (saved "to keep MoE expert assignments"), its gate forced to recompute and not counted among the
// mms (force_recompute_mm_shapes_by_fqns = ["moe.router.gate"]); the dispatch's and the combine's outputs
// (_c10d_functional.all_to_all_single, or deepep.dispatch and deepep.combine); not torch._grouped_mm, which is on no
// save list, so the routed experts are rebuilt from the saved dispatch; and the shared expert's mms after the
// attention's four, w1 (the fifth) and w2 (the seventh) of w1, w3, w2 (every second mm recomputed).
template <class Visitor>
void opSaveMoeTensors(const Config& c, const Dims& x, const LayerSizes& q, bool oddAttentionMms, Visitor& v) {
    const double act = q.act;
    const MoeRows rows = moeRows(c, x, moeImbalance(c));
    const double k = c.expertsPerToken;
    v.tensor(TensorKind::topkOutputs, Dtype::mixed, (4 + 8) * rows.tokens * k, 1, [&] {
        return TensorText{"2 × [b·" + seqShape(c, true) + ", k]", ""};
    });
    if (c.moeDispatcher == MoeDispatcher::deepep) {
        // DeepEP's recv_x holds a token once per rank it reaches (torchtitan deepep.py _permute_tokens: "one row per
        // unique received token"), with its top-k ids (int64) and scores (FP32): of the EP group's tokens, those that
        // route at least one of their k picks to this rank's E/EP experts, 1 − C(E − E/EP, k) / C(E, k) of them on an
        // even routing, times the busiest rank's share.
        const double unique = rows.tokens * c.ep * (1 - missesExperts(c.experts, c.experts / c.ep, k)) * moeImbalance(c);
        v.tensor(TensorKind::dispatchReceived, Dtype::mixed, unique * (act * x.h + 12 * k), 1, [&] {
            return TensorText{"[U, h] + 2 × [U, k]", "once per rank (DeepEP)"};
        });
        v.tensor(TensorKind::combineOutput, Dtype::activation, act * rows.tokens * x.h, 1, [&] {
            return TensorText{"[b·" + seqShape(c, true) + ", h]", ""};
        });
    } else {
        v.tensor(TensorKind::dispatchReceived, Dtype::activation, act * rows.received * x.h, 1, [&] {
            return TensorText{routedRowsShape(c, x) + ", h]", "tokens routed to this EP rank"};
        });
        v.tensor(TensorKind::combineOutput, Dtype::activation, act * rows.sent * x.h, 1, [&] {
            return TensorText{sentRowsShape(c) + ", h]", "sent by this rank"};
        });
    }
    if (c.sharedExpertFfn > 0) {
        auto shared = [&] { return TensorText{"[b·" + seqShape(c, false) + ", d_shared/TP]", "split by TP"}; };
        const double sharedBytes = act * x.b * x.sRank * c.sharedExpertFfn / x.t;
        if (oddAttentionMms) {  // w1, w3, w2 are the 6th to 8th mms: w3 is kept
            v.tensor(TensorKind::sharedExpertW3, Dtype::activation, sharedBytes, 1, shared);
            return;
        }
        v.tensor(TensorKind::sharedExpertW1, Dtype::activation, sharedBytes, 1, shared);
        v.tensor(TensorKind::sharedExpertW2, Dtype::activation, act * x.b * x.sRank * x.h, 1, [&] {
            return TensorText{"[b·" + seqShape(c, false) + ", h]", x.t > 1 ? "partial sums on every TP rank" : ""};
        });
    }
}

// Decides which of the attention's mm outputs torchtitan's op-level SAC keeps (every other one, counted from 1 in each
// block), and returns how many mms the attention ran: standard attention's wq, wk, wv, wo keep wq and wv; DeepSeek-V3's
// MLA (models/deepseek_v3/model.py Attention.forward) runs wq, wkv_a, wkv_b, wo without a query LoRA and keeps wq and
// wkv_b, or wq_a, wq_b, wkv_a, wkv_b, wo with one and keeps wq_a, wkv_a (both whole on every TP rank: NoParallel)
// and wo (partial sums under TP).
template <class Visitor>
double opSaveAttentionMms(const Config& c, const Dims& x, const LayerSizes& q, Visitor& v) {
    const double act = q.act, tokens = x.b * x.sRank;
    auto local = [&c](std::string width) { return TensorText{"[b·" + seqShape(c, false) + ", " + width + "]", "split by TP"}; };
    if (c.kvLoraRank == 0) {
        v.tensor(TensorKind::queryProjection, Dtype::activation, act * tokens * x.headsRank * x.d, 1, [&] { return local("a/TP·d"); });
        v.tensor(TensorKind::valueProjection, Dtype::activation, act * tokens * x.kvHeadsRank * x.d, 1,
                 [&] { return local("max(1, kv/TP)·d"); });
        return 4;
    }
    const double nope = c.qkNopeDim != 0 ? c.qkNopeDim : x.d, vDim = c.vHeadDim != 0 ? c.vHeadDim : x.d;
    if (c.qLoraRank == 0) {
        v.tensor(TensorKind::queryProjection, Dtype::activation, act * tokens * x.headsRank * (nope + c.qkRopeDim), 1,
                 [&] { return local("a/TP·(d_nope + d_rope)"); });
        v.tensor(TensorKind::valueProjection, Dtype::activation, act * tokens * x.headsRank * (nope + vDim), 1,
                 [&] { return local("a/TP·(d_nope + d_v)"); });
        return 4;
    }
    auto whole = [&c](std::string width) { return TensorText{"[b·" + seqShape(c, false) + ", " + width + "]", "whole on every TP rank"}; };
    v.tensor(TensorKind::queryProjection, Dtype::activation, act * tokens * c.qLoraRank, 1, [&] { return whole("q_lora"); });
    v.tensor(TensorKind::valueProjection, Dtype::activation, act * tokens * (c.kvLoraRank + c.qkRopeDim), 1,
             [&] { return whole("kv_lora + d_rope"); });
    v.tensor(TensorKind::outputProjection, Dtype::activation, act * tokens * x.h, 1, [&] {
        return TensorText{"[b·" + seqShape(c, false) + ", h]", x.t > 1 ? "partial sums on every TP rank" : ""};
    });
    return 5;
}

template <class Visitor>
void opSaveListTensors(const Config& c, const Dims& x, const LayerSizes& q, bool moe, Visitor& v) {
    const double act = q.act, bsh = q.bsh;
    auto hidden = [&c] { return hiddenShape(c); };
    // torchtitan parallelize.py _op_sac_save_list: the outputs of every aten.mm
    // but each second one (the count restarts per block: wq, wk, wv, wo, w1, w3,
    // w2 keeps wq, wv, w1 and w2), of SDPA (output and log-sum-exp) and of each
    // reduce-scatter (sequence parallelism); the checkpoint keeps the block
    // input.
    const double tokens = x.b * x.sRank;
    auto local = [&c](std::string width) { return TensorText{"[b·" + seqShape(c, false) + ", " + width + "]", "split by TP"}; };
    v.tensor(TensorKind::blockInput, Dtype::activation, act * bsh, 1, hidden);
    const bool oddAttentionMms = opSaveAttentionMms(c, x, q, v) == 5;
    const double valueDim = c.kvLoraRank > 0 && c.vHeadDim != 0 ? c.vHeadDim : x.d;
    v.tensor(TensorKind::attentionOutput, Dtype::activation, act * tokens * x.headsRank * valueDim, 1,
             [&] { return headsShape("[b, " + seqShape(c, false) + (c.kvLoraRank > 0 ? ", a/TP, d_v]" : ", a/TP, d]")); });
    v.tensor(TensorKind::softmaxLse, Dtype::fp32, 4 * x.b * x.headsRank * x.sRank, 1,
             [&] { return headsShape("[b, a/TP, " + seqShape(c, false) + "]"); });
    if (x.t > 1) v.tensor(TensorKind::attentionReduceScatter, Dtype::activation, act * bsh, 1, hidden);
    if (moe) {
        opSaveMoeTensors(c, x, q, oddAttentionMms, v);
        v.tensor(TensorKind::flashRngState, Dtype::int64, 24, 1, [] { return TensorText{"[2] + []", ""}; });
        return;
    }
    if (oddAttentionMms) {  // w1, w3, w2 (or w1, w2) are the 6th to 8th mms: w3 (or w2) is kept
        if (x.gated)
            v.tensor(TensorKind::upProjection, Dtype::activation, act * tokens * x.f / x.t, 1, [&] { return local("d_ff/TP"); });
        else
            v.tensor(TensorKind::downProjection, Dtype::activation, act * tokens * x.h, 1, [&] {
                return TensorText{"[b·" + seqShape(c, false) + ", h]", x.t > 1 ? "partial sums on every TP rank" : ""};
            });
    } else {
        v.tensor(TensorKind::gateProjection, Dtype::activation, act * tokens * x.f / x.t, 1, [&] { return local("d_ff/TP"); });
    }
    if (x.gated && !oddAttentionMms)
        v.tensor(TensorKind::downProjection, Dtype::activation, act * tokens * x.h, 1, [&] {
            return TensorText{"[b·" + seqShape(c, false) + ", h]", x.t > 1 ? "partial sums on every TP rank" : ""};
        });
    if (x.t > 1) v.tensor(TensorKind::mlpReduceScatter, Dtype::activation, act * bsh, 1, hidden);
    v.tensor(TensorKind::flashRngState, Dtype::int64, 24, 1, [] { return TensorText{"[2] + []", ""}; });
}

// The tensor kinds of one norm: its input (at the activation dtype, or FP32),
// its FP32 copy, its statistics and its normalised output.
struct NormKinds {
    TensorKind input, inputFp32, statistics, normalised;
};

// Decides what a norm over `elements` values (`statistics` bytes of mean and/or
// rstd) saves, by the framework's style; `copies` norms of the same shape.
template <class Visitor, class Shape, class StatsShape>
void normTensors(const LayerStyle& style, double act, NormKinds k, double elements, double statisticsBytes, double copies,
                 const Shape& shape, const StatsShape& statsShape, Visitor& v) {
    switch (style.norm) {
        case NormSaves::input:
            v.tensor(k.input, Dtype::activation, act * elements, copies, shape);
            v.tensor(k.statistics, Dtype::fp32, statisticsBytes, copies, statsShape);
            break;
        case NormSaves::fp32Copy:
            v.tensor(k.inputFp32, Dtype::fp32, 4 * elements, copies, shape);
            v.tensor(k.statistics, Dtype::fp32, statisticsBytes, copies, statsShape);
            v.tensor(k.normalised, Dtype::activation, act * elements, copies, shape);
            break;
        case NormSaves::fp32Residual:
            v.tensor(k.input, Dtype::fp32, 4 * elements, copies, shape);
            v.tensor(k.statistics, Dtype::fp32, statisticsBytes, copies, statsShape);
            v.tensor(k.normalised, Dtype::fp32, 4 * elements, copies, shape);
            break;
        case NormSaves::fp32Input:
            v.tensor(k.input, Dtype::fp32, 4 * elements, copies, shape);
            v.tensor(k.statistics, Dtype::fp32, statisticsBytes, copies, statsShape);
            break;
    }
}

// Decides what a [b, s, h] norm of the layer saves (the attention's, the
// MLP's).
template <class Visitor>
void layerNormTensors(const Config& c, const LayerStyle& style, const LayerSizes& q, NormKinds k, Visitor& v) {
    normTensors(
        style, q.act, k, q.bsh, q.statsBytes, 1, [&c] { return hiddenShape(c); }, [&c] { return statsShape(c); }, v);
}

// Decides what MLA's inputs save past the down-projections' input (DeepSeek-V2 §2.1; Megatron-LM
// multi_latent_attention.py MLASelfAttention.get_query_key_value_tensors, core_v0.15.0): the compressed query and
// key-value latents, each normed (q_a_layernorm and kv_a_layernorm; Megatron-LM's --qk-layernorm, fused into the
// up-projection as TELayerNormColumnParallelLinear) and read by its up-projection, at the hidden states' sequence
// sharding (scatter_to_sequence_parallel_region under SP); then the queries and keys at d_nope + d_rope per head
// and the values at d_v, which the attention core reads (RoPE saves only its cos and sin).
template <class Visitor>
void mlaInputTensors(const Config& c, const Dims& x, const LayerStyle& style, const LayerSizes& q, Visitor& v) {
    const double act = q.act, tokens = q.bsh / c.hidden;
    const double latents = c.qLoraRank + c.kvLoraRank, norms = c.qLoraRank > 0 ? 2 : 1;
    const std::string width = c.qLoraRank > 0 ? ", q_lora + kv_lora]" : ", kv_lora]";
    auto latentShape = [&c, &width] { return TensorText{"[b, " + seqShape(c, true) + width, spSharding(c)}; };
    auto latentStatsShape = [&c, norms] { return TensorText{(norms > 1 ? "2 × [b, " : "[b, ") + seqShape(c, true) + "]", spSharding(c)}; };
    normTensors(style, act,
                {TensorKind::queryKeyNormInput, TensorKind::queryKeyNormInputFp32, TensorKind::queryKeyNormStatistics,
                 TensorKind::queryKeyNormalised},
                tokens * latents, norms * q.statsBytes, 1, latentShape, latentStatsShape, v);
    v.tensor(TensorKind::latentProjectionInput, q.gemm, q.gemmBytes * tokens * latents, 1, latentShape);
    const double nope = c.qkNopeDim != 0 ? c.qkNopeDim : x.d, vDim = c.vHeadDim != 0 ? c.vHeadDim : x.d;
    v.tensor(TensorKind::queryAfterRope, Dtype::activation, act * x.b * x.sRank * x.headsRank * (nope + c.qkRopeDim), 1,
             [&] { return headsShape("[b, " + seqShape(c, false) + ", a/TP, d_nope + d_rope]"); });
    v.tensor(TensorKind::keyValue, Dtype::activation, act * x.b * x.sRank * x.headsRank * (nope + c.qkRopeDim + vDim), 1,
             [&] { return headsShape("[b, " + seqShape(c, false) + ", a/TP, d_nope + d_rope + d_v]"); });
}

// Decides what attention's inputs save: the norm before it, the projections'
// input, the queries and the keys and values (and their norms).
template <class Visitor>
void attentionInputTensors(const Config& c, const Dims& x, const LayerStyle& style, const LayerSizes& q, Visitor& v) {
    const double act = q.act;
    const LoraTargets& adapted = x.adapted;
    const bool keepQkvInput = !q.lora || (q.sharedInputs && (adapted.q || adapted.k || adapted.v));
    // The norm's output each projection saves: one tensor, or under autocast each
    // linear's own BF16 cast.
    const double qkvCopies = style.projectionCasts != 0 ? style.projectionCasts : 3;
    layerNormTensors(c, style, q,
                     {TensorKind::attentionNormInput, TensorKind::attentionNormInputFp32, TensorKind::attentionNormStatistics,
                      TensorKind::attentionNormalised},
                     v);
    if (keepQkvInput) v.tensor(TensorKind::qkvInput, q.gemm, qkvCopies * q.gemmBytes * q.bsh, 1, [&c] { return hiddenShape(c); });
    if (c.kvLoraRank > 0) {
        mlaInputTensors(c, x, style, q, v);
        return;
    }
    v.tensor(c.posEmb > 0 ? TensorKind::query : TensorKind::queryAfterRope, Dtype::activation, act * x.b * x.sRank * x.headsRank * x.d, 1,
             [&] { return headsShape("[b, " + seqShape(c, false) + ", a/TP, d]"); });
    v.tensor(TensorKind::keyValue, Dtype::activation, 2 * act * x.b * x.sRank * (style.expandedKv ? x.headsRank : x.kvHeadsRank) * x.d, 1,
             [&] {
                 if (style.expandedKv) return TensorText{"2 × [b, " + seqShape(c, false) + ", a/TP, d]", "copied to every query head"};
                 return TensorText{"2 × [b, " + seqShape(c, false) + ", max(1, kv/TP), d]",
                                   c.kvHeads < c.tp ? "KV heads replicated (TP > kv_heads)" : "KV heads split by TP"};
             });
    if (c.qkNorm != QkNorm::none) {
        // The queries and keys of this rank go through their RMSNorm before RoPE
        // (Qwen3Attention: q_norm(q_proj(x) .view(…, head_dim))): one rstd per head
        // and token, or per token over the whole width (OLMo 2).
        const double tokens = x.b * x.sRank, widthRank = (x.headsRank + x.kvHeadsRank) * x.d;
        const double rows = c.qkNorm == QkNorm::perHead ? x.headsRank + x.kvHeadsRank : 2;
        normTensors(
            style, act,
            {TensorKind::queryKeyNormInput, TensorKind::queryKeyNormInputFp32, TensorKind::queryKeyNormStatistics,
             TensorKind::queryKeyNormalised},
            tokens * widthRank, 4 * tokens * rows, 1,
            [&] { return headsShape("[b, " + seqShape(c, false) + ", a/TP + max(1, kv/TP), d]"); },
            [&] {
                return c.qkNorm == QkNorm::perHead ? headsShape("[b, " + seqShape(c, false) + ", a/TP + max(1, kv/TP)]")
                                                   : TensorText{"2 × [b, " + seqShape(c, false) + "]", ""};
            },
            v);
    }
}

// Decides what the attention core keeps (LayerSpec::attentionCore):
// FlashAttention's log-sum-exp, or eager attention's probabilities and dropout.
template <class Visitor>
void attentionCoreTensors(const Config& c, const Dims& x, const LayerStyle& style, const LayerSizes& q, Visitor& v) {
    const double act = q.act;
    if (x.flash) {
        v.tensor(TensorKind::softmaxLse, Dtype::fp32, 4 * x.b * x.headsRank * x.sRank, 1,
                 [&] { return headsShape("[b, a/TP, " + seqShape(c, false) + "]"); });
        if (style.flashRng) v.tensor(TensorKind::flashRngState, Dtype::int64, 24, 1, [] { return TensorText{"[2] + []", ""}; });
    } else {
        const double scores = x.b * x.headsRank * x.sRank * x.s;
        auto shape = [&] { return headsShape("[b, a/TP, " + seqShape(c, false) + ", s]"); };
        v.tensor(TensorKind::attentionProbabilities, style.fp32Softmax ? Dtype::mixed : Dtype::activation,
                 (style.fp32Softmax ? 4 + act : act) * scores, 1, shape);
        if (x.dropout) {
            v.tensor(TensorKind::attentionDropoutMask, Dtype::uint8, scores, 1, shape);
            v.tensor(TensorKind::droppedAttentionProbabilities, Dtype::activation, act * scores, 1, shape);
        }
    }
}

// Decides what attention's output saves: the output projection's input (or,
// under FP8 with FlashAttention, the output its backward reads), a compiled
// block's contiguous copy, and the residual's dropout mask.
template <class Visitor>
void attentionOutputTensors(const Config& c, const Dims& x, const LayerStyle& style, const LayerSizes& q, Visitor& v) {
    const LoraTargets& adapted = x.adapted;
    // FlashAttention's backward reads its own BF16 output, so under FP8 the
    // output projection keeps an FP8 copy beside it (listed last, after the MLP's
    // tensors).
    const double attentionOutput = q.act * x.b * x.sRank * x.headsRank * x.d;
    auto outputShape = [&] { return headsShape("[b, " + seqShape(c, false) + ", a/TP, d]"); };
    const bool outputCopy = q.fp8 && x.flash;
    if (outputCopy)
        v.tensor(TensorKind::attentionOutputForFlash, Dtype::activation, attentionOutput, 1, outputShape);
    else if (!q.lora || x.flash || (q.sharedInputs && adapted.o))  // FlashAttention's backward reads its own output anyway
        v.tensor(TensorKind::attentionOutput, q.gemm, attentionOutput * q.gemmBytes / q.act, 1, outputShape);
    if (style.compiled && style.norm == NormSaves::input)
        v.tensor(TensorKind::attentionOutputCompiledCopy, Dtype::activation, attentionOutput, 1, [&] {
            return TensorText{"[b·" + seqShape(c, false) + ", a/TP·d]", "heads split by TP"};
        });
    if (x.dropout) v.tensor(TensorKind::attentionResidualDropoutMask, Dtype::uint8, q.bsh, 1, [&c] { return hiddenShape(c); });
}

// Decides what a MoE layer's router and routed experts save: the router's
// scores, the tokens dispatched to this EP rank, the experts' activations and
// the routing weights.
template <class Visitor>
void routedExpertTensors(const Config& c, const Dims& x, const LayerStyle& style, const LayerSizes& q, Visitor& v) {
    const double act = q.act, bsh = q.bsh, gemmBytes = q.gemmBytes;
    // Router scores for every expert, then the top-k copies the experts of this
    // EP rank receive (model/rank.hpp moeRows: b·s/TP·k·ETP under SP, times the
    // routing imbalance f), through experts split by ETP.
    const MoeRows rows = moeRows(c, x, moeImbalance(c));
    const double routed = rows.received;
    const double fe = expertFfn(c) / expertTensorParallel(c);
    auto routedShape = [](std::string shape) { return TensorText{std::move(shape), "experts split by EP, ETP"}; };
    // torchtitan's MoE (models/common/moe.py, token_dispatcher.py): the router's
    // gate runs under FP32 autocast, so its linear saves an FP32 copy of the
    // tokens, and the softmax or sigmoid its FP32 scores; the experts' SwiGLU is
    // eager (silu(x w1) * (x w3) through torch._grouped_mm), and the combine
    // multiplies the expert outputs, made FP32, by their scores, which saves the
    // FP32 outputs for the scores' gradient.
    const bool titan = c.framework == Framework::torchtitan;
    if (titan) {
        v.tensor(TensorKind::routerInputFp32, Dtype::fp32, 4 * bsh, 1, [&c] { return hiddenShape(c); });
        v.tensor(TensorKind::routerScores, Dtype::fp32, 4 * x.b * x.sRank * c.experts / x.spDivisor, 1, [&] {
            return TensorText{"[b, " + seqShape(c, true) + ", E]", spSharding(c)};
        });
    } else {
        // Megatron-LM's gate (moe_utils.py RouterGatingLinearFunction) saves its BF16 input, the MLP norm's output,
        // which the shared expert's FC1 reads too.
        if (c.framework == Framework::megatron)
            v.tensor(TensorKind::routerInput, Dtype::activation, act * bsh, 1, [&c] { return hiddenShape(c); });
        v.tensor(TensorKind::routerLogits, Dtype::fp32, 8 * x.b * x.sRank * c.experts / x.spDivisor, 1, [&] {
            return TensorText{"2 × [b, " + seqShape(c, true) + ", E]", spSharding(c)};
        });
    }
    v.tensor(TensorKind::dispatchedTokens, q.gemm, gemmBytes * routed * x.h, 1, [&] {
        return TensorText{routedRowsShape(c, x) + ", h]", "tokens routed to this EP rank"};
    });
    if (x.gated) {
        v.tensor(TensorKind::expertGateUp, Dtype::activation, 2 * act * routed * fe, 1,
                 [&] { return routedShape("2 × " + routedRowsShape(c, x) + ", d_expert/ETP]"); });
        if (titan && style.unfusedSwiglu)
            v.tensor(TensorKind::expertSiluOutput, Dtype::activation, act * routed * fe, 1,
                     [&] { return routedShape(routedRowsShape(c, x) + ", d_expert/ETP]"); });
        v.tensor(TensorKind::expertSwigluOutput, q.gemm, gemmBytes * routed * fe, 1,
                 [&] { return routedShape(routedRowsShape(c, x) + ", d_expert/ETP]"); });
    } else {
        v.tensor(TensorKind::expertFc1Output, Dtype::activation, act * routed * fe, 1,
                 [&] { return routedShape(routedRowsShape(c, x) + ", d_expert/ETP]"); });
        v.tensor(TensorKind::expertActivationOutput, q.gemm, gemmBytes * routed * fe, 1,
                 [&] { return routedShape(routedRowsShape(c, x) + ", d_expert/ETP]"); });
    }
    // The routing weights: on the received copies where the experts apply them
    // (Megatron-LM's permuted probs; torchtitan's DeepEP combine_tokens), on the
    // sent ones where torchtitan's all-to-all combine does.
    const bool weightsSent = titan && c.moeDispatcher == MoeDispatcher::alltoall;
    v.tensor(TensorKind::routingWeights, Dtype::fp32, 4 * (weightsSent ? rows.sent : routed), 1, [&] {
        return TensorText{(weightsSent ? sentRowsShape(c) : routedRowsShape(c, x)) + "]", "tokens routed to this EP rank"};
    });
    // Compiled, the partitioner keeps the BF16 outputs and recomputes the upcast.
    if (titan)
        v.tensor(TensorKind::combinedExpertOutputs, style.compiled ? Dtype::activation : Dtype::fp32,
                 (style.compiled ? act : 4) * rows.sent * x.h, 1, [&] {
                     return TensorText{sentRowsShape(c) + ", h]",
                                       "the token copies this rank's tokens "
                                       "sent out, back from the experts"};
                 });
}

// Decides what a MoE layer's shared expert saves: its input, its gate/up output
// and its gate.
template <class Visitor>
void sharedExpertTensors(const Config& c, const Dims& x, const LayerSizes& q, Visitor& v) {
    const double bss = x.b * x.sRank * c.sharedExpertFfn / x.t;
    // Megatron-LM's shared expert reads the router's input (one tensor, listed there) unless FP8 casts its own copy.
    if (c.framework != Framework::megatron || q.fp8)
        v.tensor(TensorKind::sharedExpertInput, q.gemm, q.gemmBytes * q.bsh, 1, [&c] { return hiddenShape(c); });
    v.tensor(TensorKind::sharedExpertGateUpOutput, Dtype::activation, (x.gated ? 3 : 2) * q.act * bss, 1, [&] {
        return TensorText{"[b, " + seqShape(c, false) + ", 3 × d_shared/TP]", "split by TP"};
    });
    if (c.sharedExpertGate)
        v.tensor(TensorKind::sharedExpertGate, Dtype::activation, q.act * x.b * x.sRank / x.spDivisor, 1, [&] {
            return TensorText{"[b, " + seqShape(c, true) + ", 1]", spSharding(c)};
        });
}

// Decides what a dense layer's MLP saves: its input, its gate/up or fc1 output
// and its activation.
template <class Visitor>
void mlpTensors(const Config& c, const Dims& x, const LayerStyle& style, const LayerSizes& q, Visitor& v) {
    const double act = q.act, gemmBytes = q.gemmBytes;
    const LoraTargets& adapted = x.adapted;
    const bool keepFc1Input = !q.lora || (q.sharedInputs && (adapted.up || (adapted.gate && x.gated)));
    const bool keepFc2Input = !q.lora || (q.sharedInputs && adapted.down);
    const double fcCopies = style.projectionCasts != 0 ? style.projectionCasts : x.gated ? 2 : 1;
    const double bsf = x.b * x.sRank * x.f / x.t;
    auto ffnShape = [&](std::string prefix) { return TensorText{prefix + "[b, " + seqShape(c, false) + ", d_ff/TP]", "split by TP"}; };
    if (keepFc1Input) v.tensor(TensorKind::fc1Input, q.gemm, fcCopies * gemmBytes * q.bsh, 1, [&c] { return hiddenShape(c); });
    if (x.gated) {
        v.tensor(TensorKind::gateUp, Dtype::activation, 2 * act * bsf, 1, [&] { return ffnShape("2 × "); });
        if (style.unfusedSwiglu) v.tensor(TensorKind::siluOutput, Dtype::activation, act * bsf, 1, [&] { return ffnShape(""); });
        if (keepFc2Input) v.tensor(TensorKind::swigluOutput, q.gemm, gemmBytes * bsf, 1, [&] { return ffnShape(""); });
    } else {
        v.tensor(TensorKind::fc1Output, Dtype::activation, act * bsf, 1, [&] { return ffnShape(""); });
        if (keepFc2Input) v.tensor(TensorKind::activationOutput, q.gemm, gemmBytes * bsf, 1, [&] { return ffnShape(""); });
    }
}

// Decides what the adapters of a layer save: per adapted matrix, B's r-wide
// input, and with dropout A's dropped input and its mask.
template <class Visitor>
void adapterTensors(const Config& c, const Dims& x, LayerSpec spec, const LayerSizes& q, Visitor& v) {
    const LoraTargets& adapted = x.adapted;
    // Per adapted matrix of the layer: B's r-wide input (whole on every TP rank:
    // A's output is reduced or replicated), and with dropout A's dropped input
    // and its mask (torchtune LoRALinear, PEFT lora.Linear).
    const double tokens = x.b * x.sRank;
    const double gathered = x.b * x.sRank * x.h;  // a column-parallel projection's input, gathered under SP
    struct Adapted {
        bool on;
        double inputElements;
    };
    const Adapted matrices[] = {{adapted.q, gathered},
                                {adapted.k, gathered},
                                {adapted.v, gathered},
                                {adapted.o, tokens * x.headsRank * x.d},
                                {adapted.gate && x.gated && !spec.moe, gathered},
                                {adapted.up && !spec.moe, gathered},
                                {adapted.down && !spec.moe, tokens * x.f / x.t}};
    double count = 0, dropped = 0;
    for (const Adapted& m : matrices)
        if (m.on) {
            ++count;
            dropped += m.inputElements;
        }
    if (count > 0) {
        v.tensor(TensorKind::loraIntermediate, Dtype::activation, count * q.act * tokens * c.loraRank, 1, [&] {
            return TensorText{formatNumber(count) + " × [b, " + seqShape(c, false) + ", r]", "whole on every TP rank"};
        });
        if (c.loraDropout) {
            v.tensor(TensorKind::loraDropoutMask, Dtype::uint8, dropped, 1, [&] { return TensorText{"one per adapted matrix", ""}; });
            v.tensor(TensorKind::loraDroppedInput, Dtype::activation, q.act * dropped, 1, [&] {
                return TensorText{"one per adapted matrix", ""};
            });
        }
    }
}

// Calls v.tensor(kind, dtype, bytesPerCopy, copies = 1, describe) for each
// saved tensor of one transformer layer, for one micro-batch on one GPU, in the
// order of the ledger's tensor list. `style`: layerStyle(c), which the
// planner's kernel resolves once per configuration rather than once per walk.
template <class Visitor>
void forEachLayerTensorKept(const Config& c, const Dims& x, const LayerStyle& style, LayerSpec spec, Visitor& v) {
    const LayerSizes q = layerSizes(c, x);
    if (spec.opSaveList) {
        opSaveListTensors(c, x, q, spec.moe, v);
        return;
    }
    attentionInputTensors(c, x, style, q, v);
    if (spec.attentionCore) attentionCoreTensors(c, x, style, q, v);
    attentionOutputTensors(c, x, style, q, v);
    if (style.compiled && style.norm == NormSaves::input)  // the graph keeps the norm's output, not its input
        v.tensor(TensorKind::mlpNormStatistics, Dtype::fp32, q.statsBytes, 1, [&c] { return statsShape(c); });
    else
        layerNormTensors(c, style, q,
                         {TensorKind::mlpNormInput, TensorKind::mlpNormInputFp32, TensorKind::mlpNormStatistics, TensorKind::mlpNormalised},
                         v);
    if (spec.moe) {
        routedExpertTensors(c, x, style, q, v);
        if (c.sharedExpertFfn > 0) sharedExpertTensors(c, x, q, v);
    } else {
        mlpTensors(c, x, style, q, v);
    }
    if (x.dropout) v.tensor(TensorKind::mlpResidualDropoutMask, Dtype::uint8, q.bsh, 1, [&c] { return hiddenShape(c); });
    // Gemma 2/3 and GLM-4 norm each block's output before its residual add
    // (post_attention_layernorm, post_feedforward_layernorm), two more norms of
    // [b, s, h].
    if (c.postNorms)
        normTensors(
            style, q.act,
            {TensorKind::postNormInput, TensorKind::postNormInputFp32, TensorKind::postNormStatistics, TensorKind::postNormalised}, q.bsh,
            q.statsBytes, 2,
            [&] {
                return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", spSharding(c)};
            },
            [&] {
                return TensorText{"2 × [b, " + seqShape(c, true) + "]", spSharding(c)};
            },
            v);
    if (q.fp8 && x.flash)
        v.tensor(TensorKind::attentionOutputFp8Copy, Dtype::fp8, q.act * x.b * x.sRank * x.headsRank * x.d / 2, 1,
                 [&] { return headsShape("[b, " + seqShape(c, false) + ", a/TP, d]"); });
    if (q.lora) adapterTensors(c, x, spec, q, v);
}

// Passes on what selective recomputation keeps.
// Every tensor of the layer, whatever LayerSpec::selective says: the summing visitors read LayerBytes::selective, and
// the ledger's describing visitor leaves out what droppedBySelective names.
template <class Visitor>
void forEachLayerTensor(const Config& c, const Dims& x, const LayerStyle& style, LayerSpec spec, Visitor& v) {
    forEachLayerTensorKept(c, x, style, spec, v);
}

template <class Visitor>
void forEachLayerTensor(const Config& c, const Dims& x, LayerSpec spec, Visitor& v) {
    forEachLayerTensor(c, x, layerStyle(c), spec, v);
}

// Sums what it visits: the planner's kernel and the ledger's numbers.
struct SumTensors {
    double total = 0;
    template <class Describe>
    void tensor(TensorKind, Dtype, double bytesPerCopy, double copies, const Describe&) {
        total += bytesPerCopy * copies;
    }
};

inline double layerTensorBytes(const Config& c, const Dims& x, LayerSpec spec) {
    SumTensors sum;
    forEachLayerTensor(c, x, spec, sum);
    return sum.total;
}

// A layer's bytes with its attention core kept and without it, from one walk
// (LayerSpec::attentionCore set): each sum adds the same tensors in the same
// order as its own walk would, so both are those walks' sums exactly.
// `selective` sums what selective recomputation keeps (Dims::recompute), as the ledger lists it.
// The walk adds each tensor under its kind, and the sums are read off after it (one add per tensor in the walk).
struct LayerBytes {
    double withCore = 0, withoutCore = 0, selective = 0;
};
struct LayerBytesByKind {
    double bytes[static_cast<size_t>(TensorKind::compiledOutputWeightCast) + 1] = {};
    template <class Describe>
    void tensor(TensorKind kind, Dtype, double bytesPerCopy, double copies, const Describe&) {
        bytes[static_cast<size_t>(kind)] += bytesPerCopy * copies;
    }
};

// Out of line: the sums of one walk (the planner's kernel calls it twice per configuration).
LayerBytes layerBytesOf(const LayerBytesByKind& walked, const RecomputeModules& modules, bool moe, bool mla);

inline LayerBytes layerBytes(const Config& c, const Dims& x, const LayerStyle& style, bool moe) {
    LayerBytesByKind walked;
    forEachLayerTensorKept(c, x, style, LayerSpec{true, moe}, walked);
    return layerBytesOf(walked, x.recompute, moe, c.kvLoraRank > 0);
}

}  // namespace membudget::detail
