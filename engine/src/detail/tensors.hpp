// The saved-tensor model: one description of what a training step keeps for the backward pass, walked by
// two visitors. The summing visitor (the planner's kernel and the ledger's numbers) adds bytes and never
// builds text; the describing visitor (the ledger's tensor list) calls each tensor's describe() for its
// shape and sharding. Tensor kinds are an enum; their names are display text only.
#pragma once

#include <cstdint>
#include <string>

#include "detail/architecture.hpp"

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
    attentionOutputForFlash,  // FP8 with FlashAttention: the BF16 output its backward reads
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
    sharedExpertInput,
    sharedExpertGateUpOutput,
    sharedExpertGate,
    mlpResidualDropoutMask,
    // Stage-level tensors.
    layerInputCheckpoint,
    recomputedLayer,
    recomputedAttentionCore,
    tokenIds,
    embeddingDropoutMask,
    finalNormInput,
    outputLayerInput,
    logits,
    lossLogits,
    mtpNormInputs,
    mtpProjectionInput,
    mtpOutputInputs,
    mtpLogits,
};

// Element types: `activation` is the training precision's (BF16 or FP16: 2 bytes, FP32: 4; BF16 under FP8
// training, whose saved GEMM inputs Transformer Engine stores in FP8).
enum class Dtype : std::uint8_t { activation, fp32, fp8, uint8, int64, mixed };

// The display name of a tensor kind.
std::string_view tensorName(TensorKind kind);

// Text only the describing visitor asks for.
struct TensorText {
    std::string shape;
    std::string sharding;
};

// Which layer a group of layer-copies is of.
enum class LayerGroup : std::uint8_t { dense, moe, mtp };

// What one layer's saved tensors depend on beyond the dimensions.
struct LayerSpec {
    bool attentionCore;  // the attention core's tensors are kept (no recomputation of it)
    bool moe;
};

// Bytes of one activation element at the training precision.
inline double activationBytes(const Config& c) { return c.precision == Precision::fp32 ? 4 : 2; }

// The sequence dimension as it appears in a shape: s, s/CP, s/TP or s/(CP·TP).
std::string seqShape(const Config& c, bool spSharded);
std::string spSharding(const Config& c);

// Calls v.tensor(kind, dtype, bytesPerCopy, copies = 1, describe) for each saved tensor of one transformer
// layer, for one micro-batch on one GPU, in the order of the ledger's tensor list.
template <class Visitor>
void forEachLayerTensor(const Config& c, const Dims& x, LayerSpec spec, Visitor& v) {
    const bool fp8 = c.precision == Precision::fp8;
    const double act = activationBytes(c);
    const Dtype gemm = fp8 ? Dtype::fp8 : Dtype::activation;
    const double gemmBytes = fp8 ? 1 : act;  // per element of a saved GEMM input
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    const double statsBytes = (x.layernorm ? 8 : 4) * x.b * x.sRank / x.spDivisor;  // mean and/or rstd, fp32
    auto hidden = [&c] { return TensorText{"[b, " + seqShape(c, true) + ", h]", spSharding(c)}; };
    auto stats = [&c] { return TensorText{"[b, " + seqShape(c, true) + "]", spSharding(c)}; };
    auto heads = [](std::string shape) { return TensorText{std::move(shape), "heads split by TP"}; };
    v.tensor(TensorKind::attentionNormInput, Dtype::activation, act * bsh, 1, hidden);
    v.tensor(TensorKind::attentionNormStatistics, Dtype::fp32, statsBytes, 1, stats);
    v.tensor(TensorKind::qkvInput, gemm, gemmBytes * bsh, 1, hidden);
    v.tensor(c.posEmb > 0 ? TensorKind::query : TensorKind::queryAfterRope, Dtype::activation, act * x.b * x.sRank * x.headsRank * x.d, 1,
             [&] { return heads("[b, " + seqShape(c, false) + ", a/TP, d]"); });
    v.tensor(TensorKind::keyValue, Dtype::activation, 2 * act * x.b * x.sRank * x.kvHeadsRank * x.d, 1, [&] {
        return TensorText{"2 × [b, " + seqShape(c, false) + ", max(1, kv/TP), d]",
                          c.kvHeads < c.tp ? "KV heads replicated (TP > kv_heads)" : "KV heads split by TP"};
    });
    if (spec.attentionCore) {
        if (x.flash) {
            v.tensor(TensorKind::softmaxLse, Dtype::fp32, 4 * x.b * x.headsRank * x.sRank, 1,
                     [&] { return heads("[b, a/TP, " + seqShape(c, false) + "]"); });
        } else {
            const double scores = x.b * x.headsRank * x.sRank * x.s;
            auto shape = [&] { return heads("[b, a/TP, " + seqShape(c, false) + ", s]"); };
            v.tensor(TensorKind::attentionProbabilities, Dtype::activation, act * scores, 1, shape);
            if (x.dropout) {
                v.tensor(TensorKind::attentionDropoutMask, Dtype::uint8, scores, 1, shape);
                v.tensor(TensorKind::droppedAttentionProbabilities, Dtype::activation, act * scores, 1, shape);
            }
        }
    }
    // FlashAttention's backward reads its own BF16 output, so under FP8 the output projection keeps an FP8
    // copy beside it (listed last, after the MLP's tensors).
    const double attentionOutput = act * x.b * x.sRank * x.headsRank * x.d;
    auto outputShape = [&] { return heads("[b, " + seqShape(c, false) + ", a/TP, d]"); };
    const bool outputCopy = fp8 && x.flash;
    if (outputCopy)
        v.tensor(TensorKind::attentionOutputForFlash, Dtype::activation, attentionOutput, 1, outputShape);
    else
        v.tensor(TensorKind::attentionOutput, gemm, attentionOutput * gemmBytes / act, 1, outputShape);
    if (x.dropout) v.tensor(TensorKind::attentionResidualDropoutMask, Dtype::uint8, bsh, 1, hidden);
    v.tensor(TensorKind::mlpNormInput, Dtype::activation, act * bsh, 1, hidden);
    v.tensor(TensorKind::mlpNormStatistics, Dtype::fp32, statsBytes, 1, stats);
    if (spec.moe) {
        // Router scores for every expert, then the top-k copies of each token dispatched to the experts of
        // this EP rank (on average b·s·k, times the capacity factor), through experts split by ETP.
        const double routed = x.b * x.sRank * c.expertsPerToken * c.capacityFactor;
        const double fe = expertFfn(c) / expertTensorParallel(c);
        auto routedShape = [](std::string shape) { return TensorText{std::move(shape), "experts split by EP, ETP"}; };
        v.tensor(TensorKind::routerLogits, Dtype::fp32, 8 * x.b * x.sRank * c.experts / x.spDivisor, 1, [&] {
            return TensorText{"2 × [b, " + seqShape(c, true) + ", E]", spSharding(c)};
        });
        v.tensor(TensorKind::dispatchedTokens, gemm, gemmBytes * routed * x.h, 1, [] {
            return TensorText{"[b·s·k·cf, h]", "tokens routed to this EP rank"};
        });
        if (x.gated) {
            v.tensor(TensorKind::expertGateUp, Dtype::activation, 2 * act * routed * fe, 1,
                     [&] { return routedShape("2 × [b·s·k·cf, d_expert/ETP]"); });
            v.tensor(TensorKind::expertSwigluOutput, gemm, gemmBytes * routed * fe, 1,
                     [&] { return routedShape("[b·s·k·cf, d_expert/ETP]"); });
        } else {
            v.tensor(TensorKind::expertFc1Output, Dtype::activation, act * routed * fe, 1,
                     [&] { return routedShape("[b·s·k·cf, d_expert/ETP]"); });
            v.tensor(TensorKind::expertActivationOutput, gemm, gemmBytes * routed * fe, 1,
                     [&] { return routedShape("[b·s·k·cf, d_expert/ETP]"); });
        }
        v.tensor(TensorKind::routingWeights, Dtype::fp32, 4 * x.b * x.sRank * c.expertsPerToken, 1, [] {
            return TensorText{"[b·s·k]", "tokens routed to this EP rank"};
        });
        if (c.sharedExpertFfn > 0) {
            const double bss = x.b * x.sRank * c.sharedExpertFfn / x.t;
            v.tensor(TensorKind::sharedExpertInput, gemm, gemmBytes * bsh, 1, hidden);
            v.tensor(TensorKind::sharedExpertGateUpOutput, Dtype::activation, (x.gated ? 3 : 2) * act * bss, 1, [&] {
                return TensorText{"[b, " + seqShape(c, false) + ", 3 × d_shared/TP]", "split by TP"};
            });
            if (c.sharedExpertGate)
                v.tensor(TensorKind::sharedExpertGate, Dtype::activation, act * x.b * x.sRank / x.spDivisor, 1, [&] {
                    return TensorText{"[b, " + seqShape(c, true) + ", 1]", spSharding(c)};
                });
        }
    } else {
        const double bsf = x.b * x.sRank * x.f / x.t;
        auto ffnShape = [&](std::string prefix) { return TensorText{prefix + "[b, " + seqShape(c, false) + ", d_ff/TP]", "split by TP"}; };
        v.tensor(TensorKind::fc1Input, gemm, gemmBytes * bsh, 1, hidden);
        if (x.gated) {
            v.tensor(TensorKind::gateUp, Dtype::activation, 2 * act * bsf, 1, [&] { return ffnShape("2 × "); });
            v.tensor(TensorKind::swigluOutput, gemm, gemmBytes * bsf, 1, [&] { return ffnShape(""); });
        } else {
            v.tensor(TensorKind::fc1Output, Dtype::activation, act * bsf, 1, [&] { return ffnShape(""); });
            v.tensor(TensorKind::activationOutput, gemm, gemmBytes * bsf, 1, [&] { return ffnShape(""); });
        }
    }
    if (x.dropout) v.tensor(TensorKind::mlpResidualDropoutMask, Dtype::uint8, bsh, 1, hidden);
    if (outputCopy) v.tensor(TensorKind::attentionOutputFp8Copy, Dtype::fp8, attentionOutput / 2, 1, outputShape);
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

}  // namespace membudget::detail
