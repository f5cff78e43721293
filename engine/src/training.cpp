// method=membudget in training: every parameter and saved tensor of the actual architecture, every pipeline
// stage, and the phase at which memory peaks. The numbers (membudgetStage) are shared by the ledger and the
// planner's kernel; the ledger adds the text. README "The membudget method".
#include <algorithm>
#include <cmath>

#include "detail/architecture.hpp"
#include "detail/expr.hpp"
#include "detail/methods.hpp"
#include "detail/tensors.hpp"
#include "membudget/detail/text.hpp"

namespace membudget::detail {

namespace {

// Bytes per parameter of the static memory, by precision, gradient convention and optimizer, with the
// optimizer states split by the shape of the parameter (Adafactor factors matrices, Muon updates hidden
// matrices with momentum only and the rest with AdamW).
struct StaticRates {
    double weight, gradient, master;
    double statesHidden;     // per parameter of the layers' weight matrices
    double statesEmbedding;  // embedding and output layer (2-D, but Muon leaves them to AdamW)
    double statesVector;     // norms and biases
    const char* describe;  // a literal: the planner's kernel builds these millions of times
};

StaticRates staticRates(const Config& c) {
    StaticRates r{};
    const bool fp32 = c.precision == "fp32";
    r.weight = fp32 ? 4 : 2;
    r.gradient = fp32 ? 4 : c.staticBytes == 18 ? 4 : c.staticBytes == 20 ? 6 : 2;
    r.master = c.masterWeights && !fp32 ? 4 : 0;
    if (c.optimizer == "adamw_8bit") {
        // bitsandbytes block-wise 8-bit Adam: m and v in 8 bits, one FP32 absmax per 2048-element block each.
        r.statesHidden = r.statesEmbedding = r.statesVector = 2 + 8.0 / 2048;
        r.describe = "8-bit Adam: m and v 1 byte each + FP32 block scales (bitsandbytes, blocks of 2048)";
    } else if (c.optimizer == "adafactor") {
        // Adafactor (Shazeer & Stern 2018) without momentum: a row and a column factor per matrix.
        r.statesHidden = r.statesEmbedding = 4 * (1 / c.hidden + 1 / std::max(c.ffn, c.hidden));
        r.statesVector = 4;
        r.describe = "Adafactor: FP32 row and column factors per matrix, full second moment for vectors, no momentum";
    } else if (c.optimizer == "sgd") {
        r.statesHidden = r.statesEmbedding = r.statesVector = 4;
        r.describe = "SGD with momentum: one FP32 momentum buffer";
    } else if (c.optimizer == "muon") {
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

// What every stage of a training configuration shares: dimensions, per-rank parameters, bytes per
// parameter, and the saved bytes of one layer of each kind.
struct MembudgetTraining {
    Dims x;
    RankParams p;
    StaticRates rates;
    bool outputOnLast, offloadOptimizer, offloadParameters, mtpMoe;
    double shardGroup, expertShardGroup, fullLayerBytes, denseLayerBytes, moeLayerBytes, coreBytes, mtpLayerBytes;
};

MembudgetTraining membudgetTraining(const Config& c) {
    MembudgetTraining t{};
    t.x = dimsOf(c);
    // Untied: the output layer sits on the last stage. Tied with PP > 1: Megatron-LM keeps a copy of
    // the embedding there to compute the logits (and all-reduces their gradients).
    t.outputOnLast = !c.tiedEmbeddings || c.pp > 1;
    t.p = rankParams(c, t.x, t.outputOnLast);
    t.shardGroup = c.dp * c.cp;  // Megatron's distributed optimizer shards over DP × CP
    t.rates = staticRates(c);
    t.offloadOptimizer = c.offload != "none";
    t.offloadParameters = c.offload == "all" && c.zero >= 3;
    // Routed experts are replicated over the expert data-parallel group, TP × CP × DP / (ETP × EP)
    // (Megatron-LM's expert DP): their gradients and optimizer states shard over it.
    t.expertShardGroup = c.experts != 0 ? c.tp * c.cp * c.dp / (expertTensorParallel(c) * c.ep) : 1;
    t.mtpMoe = mtpIsMoe(c);
    const bool keepCore = c.ckpt == "none";
    t.fullLayerBytes = layerTensorBytes(c, t.x, {true, false});
    t.denseLayerBytes = layerTensorBytes(c, t.x, {keepCore, false});
    t.moeLayerBytes = c.experts != 0 ? layerTensorBytes(c, t.x, {keepCore, true}) : 0;
    // Selective recomputation (Megatron-LM: core attention) rebuilds one layer's attention core.
    t.coreBytes = t.fullLayerBytes - layerTensorBytes(c, t.x, {false, false});
    t.mtpLayerBytes = c.ckpt == "full" ? activationBytes(c) * t.x.b * t.x.sRank * t.x.h / t.x.spDivisor : t.mtpMoe ? t.moeLayerBytes : t.denseLayerBytes;
    return t;
}

// Where a stage's activations come from: which layers, how many copies of each are in flight.
struct StageActivations {
    double layers, moeLayers, copies, microbatches, mtpLayers;
    bool first, last;
};

// Calls v.layers(group, spec, bytesPerLayer, copies) for each group of layer-copies and v.tensor(...) for each
// other saved tensor of one stage, in the order of the ledger's tensor list (README "The membudget method").
template <class Visitor>
void forEachStageTensor(const Config& c, const MembudgetTraining& t, const StageActivations& st, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    auto hidden = [&c] { return TensorText{"[b, " + seqShape(c, true) + ", h]", spSharding(c)}; };
    if (c.ckpt == "full") {
        v.tensor(TensorKind::layerInputCheckpoint, Dtype::activation, act * bsh, st.copies, hidden);
        if (st.layers > 0)
            v.tensor(TensorKind::recomputedLayer, Dtype::mixed, t.fullLayerBytes, 1,
                     [] { return TensorText{"all of a layer's saved tensors", "as the layer's tensors"}; });
    } else {
        // Layer-copies split between dense and MoE layers in the proportion the stage holds them.
        const double moeCopies = st.layers > 0 ? st.copies * st.moeLayers / st.layers : 0;
        const double denseCopies = st.copies - moeCopies;
        const bool keepCore = c.ckpt == "none";
        if (denseCopies > 0) v.layers(LayerGroup::dense, LayerSpec{keepCore, false}, t.denseLayerBytes, denseCopies);
        if (moeCopies > 0) v.layers(LayerGroup::moe, LayerSpec{keepCore, true}, t.moeLayerBytes, moeCopies);
        if (c.ckpt == "selective" && st.layers > 0 && t.coreBytes > 0)
            v.tensor(TensorKind::recomputedAttentionCore, Dtype::mixed, t.coreBytes, 1, [] { return TensorText{"one layer", "heads split by TP"}; });
    }
    if (st.first) {
        v.tensor(TensorKind::tokenIds, Dtype::int64, 8 * x.b * x.sRank, st.microbatches,
                 [&c] { return TensorText{"[b, " + seqShape(c, false) + "]", "replicated on every TP rank"}; });
        if (x.dropout)
            v.tensor(TensorKind::embeddingDropoutMask, Dtype::uint8, bsh, st.microbatches,
                     [&c] { return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"}; });
    }
    if (st.last) {
        // The last stage runs each micro-batch's forward and backward back to back: one micro-batch of
        // logits. Megatron-LM's vocab-parallel cross-entropy works in FP32.
        const double logits = x.b * x.sRank * x.V / x.t;
        auto spHidden = [&c] { return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"}; };
        auto vocab = [&c] { return TensorText{"[b, " + seqShape(c, false) + ", V/TP]", "vocabulary split by TP"}; };
        v.tensor(TensorKind::finalNormInput, Dtype::activation, act * bsh, 1, spHidden);
        v.tensor(TensorKind::outputLayerInput, Dtype::activation, act * bsh, 1, spHidden);
        v.tensor(TensorKind::logits, Dtype::activation, act * logits, 1, vocab);
        v.tensor(TensorKind::lossLogits, Dtype::fp32, 4 * logits, 1, vocab);
        if (st.mtpLayers > 0) {
            // Each MTP depth is one more layer for the one micro-batch of the last stage, its norm and
            // projection inputs and its own logits and loss, all alive until the backward pass.
            v.layers(LayerGroup::mtp, LayerSpec{c.ckpt == "none", t.mtpMoe}, t.mtpLayerBytes, st.mtpLayers);
            v.tensor(TensorKind::mtpNormInputs, Dtype::activation, 2 * act * bsh, st.mtpLayers,
                     [&c] { return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"}; });
            v.tensor(TensorKind::mtpProjectionInput, Dtype::activation, 2 * act * x.b * x.sRank * x.h, st.mtpLayers,
                     [&c] { return TensorText{"[b, " + seqShape(c, false) + ", 2h]", "replicated on every TP rank"}; });
            v.tensor(TensorKind::mtpOutputInputs, Dtype::activation, 2 * act * bsh, st.mtpLayers,
                     [&c] { return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"}; });
            v.tensor(TensorKind::mtpLogits, Dtype::mixed, (act + 4) * logits, st.mtpLayers, vocab);
        }
    }
}

// The summing visitor for a stage: a group of layer-copies counts its precomputed bytes per layer.
struct SumStage : SumTensors {
    void layers(LayerGroup, LayerSpec, double bytesPerLayer, double copies) { total += bytesPerLayer * copies; }
};

std::string dtypeText(const Config& c, Dtype dtype) {
    switch (dtype) {
        case Dtype::activation: return c.precision == "fp32" ? "fp32" : c.precision == "fp16" ? "fp16" : "bf16";
        case Dtype::fp32: return "fp32";
        case Dtype::fp8: return "fp8";
        case Dtype::uint8: return "uint8";
        case Dtype::int64: return "int64";
        case Dtype::mixed: break;
    }
    return "mixed";
}

// The describing visitor: the ledger's tensor sub-ledger, each layer group expanded into its tensors, and the
// activations line's substituted text: one term per group of layer-copies (and per kept layer input), the
// stage's other tensors summed into one term.
struct DescribeStage {
    const Config& c;
    const Dims& x;
    std::vector<Tensor> tensors;
    std::string prefix;
    double groupCopies = 1;
    bool inGroup = false;
    Terms groups;
    double extras = 0;

    template <class Describe>
    void tensor(TensorKind kind, Dtype dtype, double bytesPerCopy, double copies, const Describe& describe) {
        TensorText text = describe();
        std::string name = prefix + std::string(tensorName(kind));
        std::string type = kind == TensorKind::mtpLogits ? dtypeText(c, Dtype::activation) + " + fp32" : dtypeText(c, dtype);
        const double n = copies * groupCopies;
        tensors.push_back({std::move(name), std::move(text.shape), std::move(type), bytesPerCopy, n, bytesPerCopy * n, std::move(text.sharding)});
        if (inGroup) return;
        if (kind == TensorKind::layerInputCheckpoint) groups.add("", fill("# × #", {copies, bytesPerCopy}), copies * bytesPerCopy);
        else extras += bytesPerCopy * copies;
    }
    void layers(LayerGroup group, LayerSpec spec, double bytesPerLayer, double copies) {
        groups.add("", fill("# × #", {copies, bytesPerLayer}), copies * bytesPerLayer);
        prefix = group == LayerGroup::moe ? "MoE layer: " : group == LayerGroup::mtp ? "MTP layer: " : "";
        groupCopies = copies;
        inGroup = true;
        if (c.ckpt == "full")
            tensor(TensorKind::layerInputCheckpoint, Dtype::activation, activationBytes(c) * x.b * x.sRank * x.h / x.spDivisor, 1,
                   [this] { return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"}; });
        else
            forEachLayerTensor(c, x, spec, *this);
        inGroup = false;
        prefix.clear();
        groupCopies = 1;
    }
    std::string expression() const {
        Terms all = groups;
        all.add("", exprNumber(extras), extras);
        return all.wholeBytes();
    }
};

// "w × P / N" without a "/ 1": a term of a static line.
std::string sharded(double rate, double params, double shard) {
    return shard == 1 ? fill("# × #", {rate, params}) : fill("# × # / #", {rate, params, shard});
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
    s.fp8Copies = c.precision == "fp8" ? hiddenMatrices + s.expertParams : 0;
    // ZeRO-3/FSDP gathers each layer's weights before use and prefetches the next; its gradients are
    // reduce-scattered from a full-size bucket.
    s.gatheredLayer = c.zero >= 3 ? std::max(p.layer, first ? p.embedding : 0.0) : 0;
    // Each line is whole bytes: a shard that does not divide evenly is padded (Megatron-LM's distributed
    // optimizer pads its buffers to a multiple of the DP size; FSDP pads each parameter's first dimension).
    s.parameters = std::ceil((t.offloadParameters ? 0
                                                  : rates.weight * s.stageParams / s.paramShard + rates.weight * s.expertParams / s.expertParamShard +
                                                        s.fp8Copies) +
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

}  // namespace

PeakBytes membudgetTrainingPeak(const Config& c) {
    const MembudgetTraining t = membudgetTraining(c);
    const double allowances = gigabytesToBytes(c.buffersGb) + gigabytesToBytes(c.contextGb);
    PeakBytes peak{};
    peak.totalBytes = -1;
    double firstLayer = 0, previousLayers = -1, previousMoe = -1;
    for (double i = 0; i < c.pp; ++i) {
        const double layers = stageLayerCount(c, i);
        const double from = firstLayer;
        firstLayer += layers;
        // A middle stage holding the same layers as the one before it has the same static memory and no
        // more micro-batches in flight (min(PP − i, m) falls with i): it cannot be the first peak. Skipping
        // it makes a plan's cost grow with the distinct stages (at most four), not with PP.
        const bool middle = i != 0 && i != c.pp - 1;
        const double moe = moeLayersIn(c, from, layers);
        if (middle && layers == previousLayers && moe == previousMoe) continue;
        previousLayers = middle ? layers : -1;
        previousMoe = middle ? moe : -1;
        const MembudgetStage s = membudgetStage(c, t, i, layers, from, true);
        // The same sum, in the same order, as evaluate() makes of the stage's lines.
        const double total = s.parameters + s.gradients + s.optimizerAtPeak + s.activations + gigabytesToBytes(c.buffersGb) +
                             gigabytesToBytes(c.contextGb);
        const double staticBytes = s.parameters + s.gradients + s.optimizer + allowances;
        if (total > peak.totalBytes) peak = {s.parameters, s.gradients, s.optimizerAtPeak, s.activations, allowances, total, i, peak.staticBytes};
        peak.staticBytes = std::max(peak.staticBytes, staticBytes);
    }
    return peak;
}

MethodOutput membudgetMethod(const Config& c, double psi) { return membudgetMethod(c, psi, true); }

MethodOutput membudgetMethod(const Config& c, double psi, bool atPeakPhase) {
    (void)psi;  // membudget counts every tensor of the architecture itself
    MethodOutput out;
    const MembudgetTraining t = membudgetTraining(c);
    const Dims& x = t.x;
    const StaticRates& rates = t.rates;
    const std::vector<double> layers = stageLayers(c);
    const double stages = c.pp;
    const bool outputOnLast = t.outputOnLast, offloadOptimizer = t.offloadOptimizer, offloadParameters = t.offloadParameters;
    const double shardGroup = t.shardGroup, expertShardGroup = t.expertShardGroup;
    const std::string precisionName = c.precision == "fp32" ? "FP32" : c.precision == "fp16" ? "FP16" : "BF16";
    const std::string zeroName = c.zero == 1 ? "distributed optimizer / ZeRO-1" : "ZeRO-" + n(c.zero);
    double cpuShardParams = 0;  // the largest per-GPU optimizer shard, for the host memory of offloading

    double firstLayerOfStage = 0;
    for (double i = 0; i < stages; ++i) {
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        const bool first = i == 0, last = i == stages - 1;
        const MembudgetStage sn = membudgetStage(c, t, i, stage.layers, firstLayerOfStage, atPeakPhase);
        firstLayerOfStage += stage.layers;
        cpuShardParams = std::max(cpuShardParams, sn.stageParams / sn.optimizerShard + sn.expertParams / sn.expertOptimizerShard);
        const double mtpLayers = sn.mtpLayers, mtpEmbedding = sn.mtpEmbedding;
        const double stageParams = sn.stageParams, expertParams = sn.expertParams;

        // Parameters: the stage's weights at the training precision, its routed experts sharded over their own
        // DP group, Transformer Engine's FP8 weight copies, and ZeRO-3's gathered layers.
        Terms parameters;
        if (!offloadParameters) {
            parameters.add(n(rates.weight) + " × P_stage" + (sn.paramShard > 1 ? " / (DP × CP)" : ""), sharded(rates.weight, stageParams, sn.paramShard),
                           rates.weight * stageParams / sn.paramShard);
            parameters.add(n(rates.weight) + " × P_experts" + (sn.expertParamShard > 1 ? " / expert DP" : ""),
                           sharded(rates.weight, expertParams, sn.expertParamShard), rates.weight * expertParams / sn.expertParamShard);
            parameters.add("P_linear (FP8 copies)", exprNumber(sn.fp8Copies), sn.fp8Copies);
        }
        parameters.add("2 × " + n(rates.weight) + " × P_layer (gathered)", fill("2 × # × #", {rates.weight, sn.gatheredLayer}), 2 * rates.weight * sn.gatheredLayer);
        std::string parameterNote = precisionName + " weights of " + n(std::round(stageParams + expertParams)) + " parameters on this GPU (" +
                                    n(stage.layers) + " layers" + (first ? ", the embedding" : "") +
                                    (last ? (c.tiedEmbeddings && c.pp > 1 ? ", the tied output copy" : (outputOnLast ? ", the output layer" : "")) : "") +
                                    (mtpLayers > 0 ? ", " + n(mtpLayers) + " multi-token-prediction layer" + (mtpLayers > 1 ? "s" : "") +
                                                         (mtpEmbedding > 0 ? " and its embedding copy" : "")
                                                   : "") +
                                    ")" + (sn.fp8Copies > 0 ? ", plus FP8 copies of the linear weights (Transformer Engine)" : "");
        if (c.zero >= 3) parameterNote += "; sharded over DP × CP = " + n(shardGroup) + ", plus two gathered layers (current and prefetched)";
        if (offloadParameters) parameterNote = "Parameters offloaded to CPU; only the two gathered layers are on the GPU";
        if (expertParams > 0)
            parameterNote += "; " + n(std::round(expertParams)) + " of them routed-expert parameters (" + n(c.experts / c.ep) +
                             " experts per EP rank), their gradients and optimizer sharded over the expert DP group of " + n(expertShardGroup);

        Terms gradients;
        gradients.add(n(rates.gradient) + " × P_stage" + (sn.gradShard > 1 ? " / (DP × CP)" : ""), sharded(rates.gradient, stageParams, sn.gradShard),
                      rates.gradient * stageParams / sn.gradShard);
        gradients.add(n(rates.gradient) + " × P_experts" + (sn.expertGradShard > 1 ? " / expert DP" : ""),
                      sharded(rates.gradient, expertParams, sn.expertGradShard), rates.gradient * expertParams / sn.expertGradShard);
        gradients.add(n(rates.weight) + " × P_layer (reduce-scatter bucket)", fill("# × #", {rates.weight, sn.gatheredLayer}), rates.weight * sn.gatheredLayer);
        std::string gradientNote = std::string(rates.gradient == 2 ? (c.precision == "fp16" ? "FP16" : "BF16")
                                               : rates.gradient == 4 ? "FP32 (main_grad)" : "BF16 + FP32 accumulator") +
                                   " gradients";
        if (c.zero >= 3) gradientNote += ", sharded over DP × CP = " + n(shardGroup) + " (ZeRO-3), plus one layer's reduce-scatter bucket";
        else if (c.zero >= 2) gradientNote += ", sharded over DP × CP = " + n(shardGroup) + " (ZeRO-2)";

        // Optimizer: master weights and states of the stage, of its experts, and (when the step is the peak)
        // the step's FP32 copy of the BF16 gradient shard.
        Terms optimizer;
        if (!offloadOptimizer) {
            const std::string states = rates.master > 0 ? fill("(# × # + #)", {rates.master, stageParams, sn.states}) : factor(exprNumber(sn.states));
            Terms own;
            own.add("(master × P_stage + states)" + std::string(sn.optimizerShard > 1 ? " / (DP × CP)" : ""),
                    sn.optimizerShard == 1 ? states : states + fill(" / #", {sn.optimizerShard}),
                    (rates.master * stageParams + sn.states) / sn.optimizerShard);
            own.add("(master + states) × P_experts" + std::string(sn.expertOptimizerShard > 1 ? " / expert DP" : ""),
                    sharded(rates.master + rates.statesHidden, expertParams, sn.expertOptimizerShard),
                    (rates.master + rates.statesHidden) * expertParams / sn.expertOptimizerShard);
            optimizer.add(own.formula(), own.wholeBytes(), sn.optimizer);
        }
        if (sn.stepPeaks) optimizer.add("4 × P_stage / (DP × CP) (step)", wholeBytes(sharded(4, stageParams, sn.optimizerShard), 4 * stageParams / sn.optimizerShard),
                                        sn.stepTemporary);
        const std::string optimizerNote =
            offloadOptimizer ? "Offloaded to CPU memory (ZeRO-Offload)"
                             : std::string(rates.master > 0 ? "FP32 master weights (4 B) + " : "No master copy; ") + rates.describe +
                                   std::string(c.zero >= 1 ? ", sharded over DP × CP = " + n(shardGroup) + " (" + zeroName + ")" : "");

        // The tensor sub-ledger and the activations' terms: the same walk as sn.activations.
        const double copies = sn.copies;
        const double microbatches = sn.microbatches;
        stage.inFlightMicrobatches = microbatches;
        const StageActivations walk{stage.layers, sn.moeLayers, copies, microbatches, mtpLayers, first, last};
        DescribeStage describe{c, x};
        forEachStageTensor(c, t, walk, describe);
        const double activations = sn.activationsDuringBackward;
        stage.phases = {{"forward/backward", sn.forwardBackward}, {"optimizer step", sn.step}};
        const bool stepPeaks = sn.stepPeaks;
        stage.peakPhase = sn.step > sn.forwardBackward ? "optimizer step" : "forward/backward";
        const std::string inFlight = n(copies) + " layer-copies (" + n(stage.layers) + " layers, " + n(microbatches) + " micro-batch" +
                                     (microbatches == 1 ? "" : "es") + " in flight) on stage " + n(i) + " of " + n(stages);

        stage.lines.push_back({"parameters", "Parameters", parameters.formula(), parameters.wholeBytes(), sn.parameters, parameterNote, "membudget"});
        stage.lines.push_back({"gradients", "Gradients", gradients.formula(), gradients.wholeBytes(), sn.gradients, gradientNote, "membudget"});
        Line optimizerLine{"optimizer", "Optimizer", optimizer.formula(), optimizer.text(), sn.optimizerAtPeak, optimizerNote, "membudget"};
        Line activationLine{"activations", "Activations", "Σ saved tensors of a layer × layer-copies in flight + stage extras",
                            stepPeaks ? "0" : describe.expression(), sn.activations,
                            std::string(c.ckpt == "full" ? "Full recomputation: layer inputs kept, one layer rebuilt in backward"
                                        : c.ckpt == "selective" ? "Selective recomputation: attention core rebuilt in backward"
                                                                : "No recomputation") +
                                "; " + (x.flash ? "FlashAttention (no s × s scores)" : "eager attention (s × s probabilities kept)") + "; " +
                                inFlight + "; see the tensor sub-ledger",
                            "membudget"};
        if (stepPeaks) {
            optimizerLine.note += "; at its peak, the optimizer step, plus an FP32 copy of the BF16 gradient shard";
            activationLine.formula = "0 (freed before the optimizer step)";
            activationLine.note = "Freed before the optimizer step, which is this stage's peak (" + n(activations) +
                                  " bytes during forward/backward: " + inFlight + ")";
        }
        stage.lines.push_back(std::move(optimizerLine));
        stage.lines.push_back(std::move(activationLine));
        stage.tensors = std::move(describe.tensors);
        out.stages.push_back(std::move(stage));
    }
    if (offloadOptimizer || offloadParameters) {
        // Host memory per node for what was offloaded: the optimizer (and parameters) of every GPU in it, each
        // GPU's shard as large as the largest stage's. ZeRO-Offload (Ren et al. 2021 §4) keeps, per GPU's shard,
        // the optimizer states, the FP32 master weights and the FP32 gradients the CPU step reads;
        // ZeRO-Infinity / FSDP offload adds the parameters.
        auto cpuLine = [&](std::string id, std::string label, std::string rateName, double rate, std::string note) {
            const double raw = c.gpusPerNode * cpuShardParams * rate;
            out.cpuLines.push_back({std::move(id), std::move(label), "GPUs per node × P_shard × " + rateName,
                                    wholeBytes(fill("# × # × #", {c.gpusPerNode, cpuShardParams, rate}), raw), std::ceil(raw),
                                    std::move(note), "membudget"});
        };
        cpuLine("cpu_optimizer", "Optimizer states", "states", rates.statesHidden, rates.describe);
        cpuLine("cpu_master", "FP32 master weights", "4", rates.master, "the weights the CPU optimizer updates");
        cpuLine("cpu_gradients", "FP32 gradients", "4", 4, "gradients copied to the CPU for its optimizer step (ZeRO-Offload)");
        if (offloadParameters)
            cpuLine("cpu_parameters", "Parameters", "weight bytes", rates.weight, "parameters offloaded with ZeRO-3 (ZeRO-Infinity, FSDP CPU offload)");
        for (const auto& line : out.cpuLines) out.cpuBytesPerNode += line.bytes;
    }
    if (c.precision == "fp16" && !c.masterWeights)
        out.warnings.push_back({"master_weights", "FP16 training without FP32 master weights loses small updates; mixed precision keeps them"});
    if (c.mtpLayers > 0 && c.pp > 1)
        out.warnings.push_back({"mtp_layers", "the multi-token-prediction layers all sit on the last stage; Megatron-LM lets you move "
                                              "layers off it (last_stage_layers) to balance"});
    if (c.offload == "all" && c.zero < 3)
        out.warnings.push_back({"offload", "offload = all (parameters too) needs ZeRO-3 (zero = 3); only the optimizer is offloaded"});
    return out;
}

}  // namespace membudget::detail
