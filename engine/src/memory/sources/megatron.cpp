// Megatron-LM's megatron/training/theoretical_memory_usage.py as a ledger method and a planner kernel.
#include "memory/sources/megatron.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/layout.hpp"
#include "memory/ledgers.hpp"
#include "memory/sources/published.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

// Megatron-LM's theoretical_memory_usage.py: the most loaded shard (the first stage) only.
// The Config as theoretical_memory_usage.py's args namespace.
namespace {

sources::MegatronArgs megatronArgs(const Config& c) {
    sources::MegatronArgs x;
    x.hiddenSize = c.hidden;
    x.numAttentionHeads = c.heads;
    x.kvChannels = headDimOf(c);
    x.ffnHiddenSize = c.ffn;
    x.numLayers = c.layers;
    x.paddedVocabSize = c.vocab;
    // theoretical_memory_usage.py never reads context_parallel_size: every activation term takes the full
    // --seq-length (tests/fixtures/megatron.json's CP cases ran the file itself).
    x.seqLength = c.seq;
    x.microBatchSize = c.mb;
    x.groupQueryAttention = c.kvHeads != c.heads;
    x.numQueryGroups = c.kvHeads;
    x.swiglu = c.gatedFfn;
    x.rmsNorm = c.norm == Norm::rmsnorm;
    x.untieEmbeddingsAndOutputWeights = !c.tiedEmbeddings;
    x.tensorParallel = c.tp;
    x.pipelineParallel = c.pp;
    if (c.vpp > 1) x.virtualPipeline = c.vpp;
    x.dataParallel = c.dp;
    x.useDistributedOptimizer = c.zero >= 1;
    x.sequenceParallel = c.sp;
    x.recomputeSelective = c.ckpt == Checkpointing::selective;
    x.numMicrobatches = c.microbatches;
    if (c.experts != 0) {
        x.numExperts = c.experts;
        x.moeFfnHiddenSize = c.moeFfn != 0 ? c.moeFfn : c.ffn;
        x.moeLayerFreq = c.moeLayerFreq;
        x.sharedExpertFfn = c.sharedExpertFfn;
        x.expertParallel = c.ep;
        x.expertTensorParallel = c.etp != 0 ? c.etp : c.tp;
        x.worldSize = worldSize(c);
        x.firstDenseLayers = c.firstDenseLayers;
        x.addBiasLinear = c.bias || c.routerBias;
        x.sharedExpertGate = c.sharedExpertGate;
    }
    x.mtpNumLayers = c.mtpLayers;
    if (c.kvLoraRank != 0) {
        const double headDim = headDimOf(c);
        x.multiLatentAttention = true;
        x.groupQueryAttention = false;
        if (c.qLoraRank != 0) x.qLoraRank = c.qLoraRank;
        x.kvLoraRank = c.kvLoraRank;
        x.qkHeadDim = c.qkNopeDim != 0 ? c.qkNopeDim : headDim;
        x.qkPosEmbHeadDim = c.qkRopeDim;
        x.vHeadDim = c.vHeadDim != 0 ? c.vHeadDim : headDim;
    }
    return x;
}

}  // namespace

MethodOutput megatronMethod(const Config& c, double psi) {
    MethodOutput out;
    const sources::MegatronArgs x = megatronArgs(c);
    const auto weights = sources::megatronWeights(x);
    const double params = weights.tensorParallelParams + weights.replicatedParams + weights.expertParams;
    const double activations = sources::megatronActivationBytes(x);
    const bool withSp = x.sequenceParallel && x.recomputeSelective;
    const std::string shard = n(std::round(params));

    // The substituted expressions, term for term as the Python computes them.
    const double expertBytes = weights.expertParams;
    std::string optimizerText =
        (x.useDistributedOptimizer ? fill("12 / # × #", {c.dp, params - expertBytes}) : fill("12 × #", {params - expertBytes}));
    if (expertBytes > 0) optimizerText += fill(" + # × #", {weights.expertBytesPerParam - 6, expertBytes});
    const double s = x.seqLength, b = x.microBatchSize, h = x.hiddenSize, pp = x.pipelineParallel, t = x.tensorParallel;
    std::string activationText =
        withSp ? fill("# × # × # × (18 + 4 × (# / #)) × # + 8 × # × # × # + # × # × # × #",
                      {s, b, h, x.ffnHiddenSize, h, x.numLayers, s, b, pp, s, b, h, pp})
               : fill("# × # × # × (10 + 24 / #) × # + 8 × # × # × # + # × # × # × #", {s, b, h, t, x.numLayers, s, b, pp, s, b, h, pp});
    if (x.virtualPipeline)
        activationText = "(" + activationText + fill(") × (1 + (# − 1) / (# × #))", {pp, pp, *x.virtualPipeline});
    else if (pp > 1 && x.numMicrobatches)
        activationText = "(" + activationText + fill(") × min(1, # / #)", {*x.numMicrobatches, pp});
    if (pp == 1)
        activationText += withSp ? fill(" + 4 × # × # × # × (1 + # / #)", {s, b, h, x.paddedVocabSize, h})
                                 : fill(" + 2 × (# × # × # / # + # × # × #)", {s, b, x.paddedVocabSize, t, s, b, h});
    activationText = withSp ? "(" + activationText + fill(") / #", {t}) : "1.05 × (" + activationText + ")";

    StageOutput stage;
    stage.index = 0;
    stage.layers = c.layers / c.pp;
    stage.inFlightMicrobatches = inFlightMicrobatches(c, 0);
    stage.lines.push_back({LineId::parameters, "Parameters", "2 × P_shard", fill("2 × #", {params}), 2 * params,
                           "BF16 weights of " + shard +
                               " parameters on the most loaded shard (stage 0: L/PP layers and the embedding; norms not "
                               "split by TP; no biases or position embeddings counted)",
                           Method::megatron});
    stage.lines.push_back({LineId::gradients, "Gradients", "4 × P_shard", fill("4 × #", {params}), 4 * params,
                           "FP32 main gradients: Megatron-LM counts 18 (or 6 + 12/DP) bytes per parameter, 4 of them for gradients",
                           Method::megatron});
    stage.lines.push_back(
        {LineId::optimizer, "Optimizer",
         std::string(c.zero >= 1 ? "(12 / DP) × P_shard" : "12 × P_shard") + (expertBytes > 0 ? " + (12 / EDP) × P_experts" : ""),
         optimizerText,
         (weights.bytesPerParam - 6) * (params - weights.expertParams) + (weights.expertBytesPerParam - 6) * weights.expertParams,
         c.zero >= 1 ? "FP32 params + Adam m, v sharded by the distributed optimizer over DP (6 + 12/DP bytes per parameter in all)"
                     : "FP32 params + Adam m, v, not sharded (18 bytes per parameter in all)",
         Method::megatron});
    stage.lines.push_back(
        {LineId::activations, "Activations",
         withSp ? "[sbh(18 + 4f/h)·L + 8sbp + sbhp]·φ (+ 4sbh(1 + V/h) if PP = 1) / TP"
                : "1.05 × ([sbh(10 + 24/t)·L + 8sbp + sbhp]·φ (+ 2(sbV/t + sbh) if PP = 1))",
         activationText, activations,
         std::string("Megatron-LM's ") +
             (withSp
                  ? "compute_activation_memory (sequence parallel and selective recompute)"
                  : "compute_activation_memory_without_sp (its formula for every case but SP + selective, whatever the recompute mode)") +
             "; ignores GQA, SwiGLU's third tensor and FlashAttention; s is the full --seq-length; φ = " +
             (c.vpp > 1 ? "1 + (PP − 1)/(PP·v)" : "min(1, m / PP)"),
         Method::megatron});
    out.stages.push_back(std::move(stage));
    out.warnings.push_back(
        {"method", "Megatron-LM estimates the most loaded shard only (the first stage); its report prints MiB as \"MB\""});
    if (c.cp > 1)
        out.warnings.push_back({"cp",
                                "Megatron-LM's estimator does not read context_parallel_size: its activations are for the whole sequence "
                                "(" +
                                    n(c.seq) + " tokens), not the " + n(c.seq / c.cp) + " each CP rank holds"});
    (void)psi;
    return out;
}

PeakBytes megatronTrainingPeak(const Config& c) {
    const sources::MegatronArgs x = megatronArgs(c);
    const auto weights = sources::megatronWeights(x);
    const double params = weights.tensorParallelParams + weights.replicatedParams + weights.expertParams;
    const double optimizer =
        (weights.bytesPerParam - 6) * (params - weights.expertParams) + (weights.expertBytesPerParam - 6) * weights.expertParams;
    // Megatron-LM estimates its most loaded shard only: one stage.
    const StageSpan firstStage[] = {{0, 0, c.layers / c.pp}};
    return peakOver(c, firstStage, [&](const StageSpan&) {
        return StaticAndActivations{2 * params, 4 * params, optimizer, sources::megatronActivationBytes(x)};
    });
}

std::string megatronDifference(LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    if (line == LineId::gradients) return "FP32 main gradients: 18 vs 16 bytes per parameter (6 + 12/DP with the distributed optimizer)";
    if (staticLine) return "the first stage only; no biases; norms not split by TP; an untied output layer is not counted when PP > 1";
    return "sbh(18 + 4f/h) per layer with SP and selective recompute, else sbh(10 + 24/t) × 1.05: ignores GQA and SwiGLU's third "
           "tensor";
}

}  // namespace membudget::detail
