// membudget's training model in numbers, shared by its ledger (training_ledger.cpp) and the planner's kernel
// (training.cpp): bytes per parameter, what every stage shares, and the walk over a stage's saved tensors.
#pragma once

#include <string>

#include "detail/architecture.hpp"
#include "detail/methods.hpp"
#include "detail/tensors.hpp"

namespace membudget::detail {

// Bytes per parameter of the static memory, by precision, gradient convention and optimizer, with the
// optimizer states split by the shape of the parameter (Adafactor factors matrices, Muon updates hidden
// matrices with momentum only and the rest with AdamW).
struct StaticRates {
    double weight, gradient, master;
    double statesHidden;     // per parameter of the layers' weight matrices
    double statesEmbedding;  // embedding and output layer (2-D, but Muon leaves them to AdamW)
    double statesVector;     // norms and biases
    const char* describe;    // a literal: the planner's kernel builds these millions of times
};

StaticRates staticRates(const Config& c);

// parameter, and the saved bytes of one layer of each kind.
struct MembudgetTraining {
    Dims x;
    RankParams p;
    StaticRates rates;
    bool outputOnLast, offloadOptimizer, offloadParameters, mtpMoe;
    double shardGroup, expertShardGroup, fullLayerBytes, denseLayerBytes, moeLayerBytes, coreBytes, mtpLayerBytes;
};

MembudgetTraining membudgetTraining(const Config& c);

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
    if (c.ckpt == Checkpointing::full) {
        v.tensor(TensorKind::layerInputCheckpoint, Dtype::activation, act * bsh, st.copies, hidden);
        if (st.layers > 0)
            v.tensor(TensorKind::recomputedLayer, Dtype::mixed, t.fullLayerBytes, 1, [] {
                return TensorText{"all of a layer's saved tensors", "as the layer's tensors"};
            });
    } else {
        // Layer-copies split between dense and MoE layers in the proportion the stage holds them.
        const double moeCopies = st.layers > 0 ? st.copies * st.moeLayers / st.layers : 0;
        const double denseCopies = st.copies - moeCopies;
        const bool keepCore = c.ckpt == Checkpointing::none;
        if (denseCopies > 0) v.layers(LayerGroup::dense, LayerSpec{keepCore, false}, t.denseLayerBytes, denseCopies);
        if (moeCopies > 0) v.layers(LayerGroup::moe, LayerSpec{keepCore, true}, t.moeLayerBytes, moeCopies);
        if (c.ckpt == Checkpointing::selective && st.layers > 0 && t.coreBytes > 0)
            v.tensor(TensorKind::recomputedAttentionCore, Dtype::mixed, t.coreBytes, 1, [] {
                return TensorText{"one layer", "heads split by TP"};
            });
    }
    if (st.first) {
        v.tensor(TensorKind::tokenIds, Dtype::int64, 8 * x.b * x.sRank, st.microbatches, [&c] {
            return TensorText{"[b, " + seqShape(c, false) + "]", "replicated on every TP rank"};
        });
        if (x.dropout)
            v.tensor(TensorKind::embeddingDropoutMask, Dtype::uint8, bsh, st.microbatches, [&c] {
                return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
            });
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
            v.layers(LayerGroup::mtp, LayerSpec{c.ckpt == Checkpointing::none, t.mtpMoe}, t.mtpLayerBytes, st.mtpLayers);
            v.tensor(TensorKind::mtpNormInputs, Dtype::activation, 2 * act * bsh, st.mtpLayers, [&c] {
                return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
            });
            v.tensor(TensorKind::mtpProjectionInput, Dtype::activation, 2 * act * x.b * x.sRank * x.h, st.mtpLayers, [&c] {
                return TensorText{"[b, " + seqShape(c, false) + ", 2h]", "replicated on every TP rank"};
            });
            v.tensor(TensorKind::mtpOutputInputs, Dtype::activation, 2 * act * bsh, st.mtpLayers, [&c] {
                return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
            });
            v.tensor(TensorKind::mtpLogits, Dtype::mixed, (act + 4) * logits, st.mtpLayers, vocab);
        }
    }
}

// The summing visitor for a stage: a group of layer-copies counts its precomputed bytes per layer.
struct SumStage : SumTensors {
    void layers(LayerGroup, LayerSpec, double bytesPerLayer, double copies) { total += bytesPerLayer * copies; }
};

// One stage's numbers: what membudgetTrainingPeak sums and what the ledger's lines show.
MembudgetStage membudgetStage(const Config& c, const MembudgetTraining& t, double i, double stageLayers, double firstLayerOfStage,
                              bool atPeakPhase);

}  // namespace membudget::detail
