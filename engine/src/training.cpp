// method=membudget in training, in numbers: bytes per parameter, each stage's lines and the peak stage, with
// no text, which the planner evaluates millions of times (its kernel) and the ledger shows
// (training_ledger.cpp). README "The membudget method".
#include <algorithm>
#include <cmath>

#include "detail/training.hpp"

namespace membudget::detail {

StaticRates staticRates(const Config& c) {
    StaticRates r{};
    const bool fp32 = c.precision == Precision::fp32;
    r.weight = fp32 ? 4 : 2;
    r.gradient = fp32 ? 4 : c.staticBytes == 18 ? 4 : c.staticBytes == 20 ? 6 : 2;
    r.master = c.masterWeights && !fp32 ? 4 : 0;
    if (c.optimizer == Optimizer::adamw8bit) {
        // bitsandbytes block-wise 8-bit Adam: m and v in 8 bits, one FP32 absmax per 2048-element block each.
        r.statesHidden = r.statesEmbedding = r.statesVector = 2 + 8.0 / 2048;
        r.describe = "8-bit Adam: m and v 1 byte each + FP32 block scales (bitsandbytes, blocks of 2048)";
    } else if (c.optimizer == Optimizer::adafactor) {
        // Adafactor (Shazeer & Stern 2018) without momentum: a row and a column factor per matrix.
        r.statesHidden = r.statesEmbedding = 4 * (1 / c.hidden + 1 / std::max(c.ffn, c.hidden));
        r.statesVector = 4;
        r.describe = "Adafactor: FP32 row and column factors per matrix, full second moment for vectors, no momentum";
    } else if (c.optimizer == Optimizer::sgd) {
        r.statesHidden = r.statesEmbedding = r.statesVector = 4;
        r.describe = "SGD with momentum: one FP32 momentum buffer";
    } else if (c.optimizer == Optimizer::muon) {
        // Muon (Jordan et al. 2024) keeps one momentum buffer for hidden matrices; embeddings, the output layer
        // and vectors are updated by AdamW.
        r.statesHidden = 4;
        r.statesEmbedding = r.statesVector = 8;
        r.describe = "Muon: FP32 momentum for hidden matrices, AdamW (m, v) for embeddings, output layer and vectors";
    } else {
        r.statesHidden = r.statesEmbedding = r.statesVector = 8;
        r.describe = "AdamW: FP32 m and v";
    }
    return r;
}

MembudgetTraining membudgetTraining(const Config& c) {
    MembudgetTraining t{};
    t.x = dimsOf(c);
    // Untied: the output layer sits on the last stage. Tied with PP > 1: Megatron-LM keeps a copy of
    // the embedding there to compute the logits (and all-reduces their gradients).
    t.outputOnLast = !c.tiedEmbeddings || c.pp > 1;
    t.p = rankParams(c, t.x, t.outputOnLast);
    t.shardGroup = c.dp * c.cp;  // Megatron's distributed optimizer shards over DP × CP
    t.rates = staticRates(c);
    t.offloadOptimizer = c.offload != Offload::none;
    t.offloadParameters = c.offload == Offload::all && c.zero >= 3;
    // Routed experts are replicated over the expert data-parallel group, TP × CP × DP / (ETP × EP)
    // (Megatron-LM's expert DP): their gradients and optimizer states shard over it.
    t.expertShardGroup = c.experts != 0 ? c.tp * c.cp * c.dp / (expertTensorParallel(c) * c.ep) : 1;
    t.mtpMoe = mtpIsMoe(c);
    const bool keepCore = c.ckpt == Checkpointing::none;
    t.fullLayerBytes = layerTensorBytes(c, t.x, {true, false});
    t.denseLayerBytes = layerTensorBytes(c, t.x, {keepCore, false});
    t.moeLayerBytes = c.experts != 0 ? layerTensorBytes(c, t.x, {keepCore, true}) : 0;
    // Selective recomputation (Megatron-LM: core attention) rebuilds one layer's attention core.
    t.coreBytes = t.fullLayerBytes - layerTensorBytes(c, t.x, {false, false});
    t.mtpLayerBytes = c.ckpt == Checkpointing::full ? activationBytes(c) * t.x.b * t.x.sRank * t.x.h / t.x.spDivisor
                      : t.mtpMoe                    ? t.moeLayerBytes
                                                    : t.denseLayerBytes;
    return t;
}

MembudgetStage membudgetStage(const Config& c, const MembudgetTraining& t, double i, double stageLayers, double firstLayerOfStage,
                              bool atPeakPhase) {
    const Dims& x = t.x;
    const RankParams& p = t.p;
    const StaticRates& rates = t.rates;
    MembudgetStage s{};
    s.layers = stageLayers;
    const bool first = i == 0, last = i == c.pp - 1;
    s.moeLayers = moeLayersIn(c, firstLayerOfStage, stageLayers);
    const double denseLayers = stageLayers - s.moeLayers;
    // Multi-token prediction (DeepSeek-V3 §2.2) runs after the main model on the last stage: layers of the
    // last layer's kind, two input norms, the column-parallel 2h -> h projection and a final norm. With
    // PP > 1 Megatron-LM builds an embedding copy there too (GPTModel: pre_process or mtp_process).
    s.mtpLayers = last ? c.mtpLayers : 0;
    const double mtpProjection = 2 * x.h * x.h / x.t;
    const double mtpLinear = s.mtpLayers * ((t.mtpMoe ? p.moeLayerLinear : p.layerLinear) + mtpProjection);
    const double mtpParams = s.mtpLayers * ((t.mtpMoe ? p.moeLayer : p.layer) + mtpProjection + 3 * p.finalNorm);
    s.mtpEmbedding = s.mtpLayers > 0 && c.pp > 1 ? x.V * x.h / x.t : 0;
    s.stageParams = denseLayers * p.layer + s.moeLayers * p.moeLayer + (first ? p.embedding : 0) + (last ? p.finalNorm + p.output : 0) +
                    mtpParams + s.mtpEmbedding;
    s.expertParams = (s.moeLayers + (t.mtpMoe ? s.mtpLayers : 0)) * p.moeLayerExperts;

    // Static memory by precision, gradient convention and optimizer (staticRates), sharded by ZeRO stage.
    s.paramShard = c.zero >= 3 ? t.shardGroup : 1;
    s.gradShard = c.zero >= 2 ? t.shardGroup : 1;
    s.optimizerShard = c.zero >= 1 ? t.shardGroup : 1;
    s.expertParamShard = c.zero >= 3 ? t.expertShardGroup : 1;
    s.expertGradShard = c.zero >= 2 ? t.expertShardGroup : 1;
    s.expertOptimizerShard = c.zero >= 1 ? t.expertShardGroup : 1;
    const double hiddenMatrices = denseLayers * p.layerLinear + s.moeLayers * p.moeLayerLinear + mtpLinear;
    const double embeddingParams = (first ? p.embedding : 0) + (last ? p.output : 0) + s.mtpEmbedding;
    const double vectorParams = s.stageParams - hiddenMatrices - embeddingParams;
    // Transformer Engine caches an FP8 copy of each linear weight for the micro-batches of a step.
    s.fp8Copies = c.precision == Precision::fp8 ? hiddenMatrices + s.expertParams : 0;
    // ZeRO-3/FSDP gathers each layer's weights before use and prefetches the next; its gradients are
    // reduce-scattered from a full-size bucket.
    s.gatheredLayer = c.zero >= 3 ? std::max(p.layer, first ? p.embedding : 0.0) : 0;
    // Each line is whole bytes: a shard that does not divide evenly is padded (Megatron-LM's distributed
    // optimizer pads its buffers to a multiple of the DP size; FSDP pads each parameter's first dimension).
    s.parameters = std::ceil((t.offloadParameters ? 0
                                                  : rates.weight * s.stageParams / s.paramShard +
                                                        rates.weight * s.expertParams / s.expertParamShard + s.fp8Copies) +
                             2 * rates.weight * s.gatheredLayer);
    s.gradients = std::ceil(rates.gradient * s.stageParams / s.gradShard + rates.gradient * s.expertParams / s.expertGradShard +
                            rates.weight * s.gatheredLayer);
    s.states = rates.statesHidden * hiddenMatrices + rates.statesEmbedding * embeddingParams + rates.statesVector * vectorParams;
    s.optimizer = t.offloadOptimizer ? 0
                                     : std::ceil((rates.master * s.stageParams + s.states) / s.optimizerShard +
                                                 (rates.master + rates.statesHidden) * s.expertParams / s.expertOptimizerShard);

    // Activations: every saved tensor, times the layer-copies in flight, plus the stage's extras.
    s.copies = inFlightLayerCopies(c, stageLayers, i);
    s.microbatches = inFlightMicrobatches(c, i);
    SumStage sum;
    forEachStageTensor(c, t, {stageLayers, s.moeLayers, s.copies, s.microbatches, s.mtpLayers, first, last}, sum);
    const double activations = std::ceil(sum.total);
    s.activationsDuringBackward = activations;

    // Phases: activations are freed before the optimizer step; with BF16 gradients the step works on an
    // FP32 copy of this rank's optimizer shard of them.
    s.stepTemporary = rates.gradient == 2 && rates.master > 0 && !t.offloadOptimizer ? std::ceil(4 * s.stageParams / s.optimizerShard) : 0;
    s.forwardBackward = s.parameters + s.gradients + s.optimizer + activations;
    s.step = s.parameters + s.gradients + s.optimizer + s.stepTemporary;
    s.stepPeaks = atPeakPhase && s.step > s.forwardBackward;
    s.optimizerAtPeak = s.optimizer + (s.stepPeaks ? s.stepTemporary : 0);
    s.activations = s.stepPeaks ? 0 : activations;
    return s;
}

std::vector<StageSpan> peakCandidateStages(const Config& c) {
    std::vector<StageSpan> out;
    std::vector<std::pair<double, double>> kinds;  // (layers, MoE layers) of the middle stages seen: a handful
    double firstLayer = 0;
    for (double i = 0; i < c.pp; ++i) {
        const double layers = stageLayerCount(c, i);
        const double from = firstLayer;
        firstLayer += layers;
        const bool middle = i != 0 && i != c.pp - 1;
        if (middle) {
            const std::pair<double, double> kind{layers, moeLayersIn(c, from, layers)};
            if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) continue;
            kinds.push_back(kind);
        }
        out.push_back({i, from, layers});
    }
    return out;
}

PeakBytes membudgetTrainingPeak(const Config& c) { return membudgetTrainingPeak(c, peakCandidateStages(c)); }

PeakBytes membudgetTrainingPeak(const Config& c, const std::vector<StageSpan>& stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const double allowances = gigabytesToBytes(c.buffersGb) + gigabytesToBytes(c.contextGb);
    PeakBytes peak{};
    peak.totalBytes = -1;
    for (const StageSpan& stage : stages) {
        const MembudgetStage s = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, true);
        // The same sum, in the same order, as evaluate() makes of the stage's lines.
        const double total =
            s.parameters + s.gradients + s.optimizerAtPeak + s.activations + gigabytesToBytes(c.buffersGb) + gigabytesToBytes(c.contextGb);
        const double staticBytes = s.parameters + s.gradients + s.optimizer + allowances;
        if (total > peak.totalBytes)
            peak = {s.parameters, s.gradients, s.optimizerAtPeak, s.activations, allowances, total, stage.index, peak.staticBytes};
        peak.staticBytes = std::max(peak.staticBytes, staticBytes);
    }
    return peak;
}

}  // namespace membudget::detail
