// membudget's training model in numbers, shared by its ledger (training_ledger.cpp) and the planner's kernel
// (training.cpp): bytes per parameter, what every stage shares, and the walk over a stage's saved tensors.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledger/tensor_names.hpp"
#include "memory/ledgers.hpp"
#include "memory/tensors.hpp"
#include "model/rank.hpp"

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
    // Bytes per element of a weight as the layers compute with it (the gathered, unsharded copy under ZeRO-3 and
    // FSDP; autocast's copy), and of an unsharded gradient's reduce-scatter input (FSDP2's reduce_dtype).
    double compute, reduce;
};

// How the framework holds the static memory beyond the stored shards (docs/frameworks.md, each from its source).
enum class Gathering : std::uint8_t {
    zero3Layers,  // Megatron-LM / DeepSpeed ZeRO-3: the largest module gathered and prefetched, one reduce bucket
    fsdp2Layers,  // FSDP2 (torchtitan, torchtune, accelerate): two blocks gathered, one block's gradient reduce-scattered
    fsdp2Stage,   // FSDP2 under pipeline parallelism (torchtitan): the stage stays gathered, its gradients unsharded
    autocast,     // accelerate without FSDP: autocast's BF16 copy of every weight, saved for backward
    none,
};

StaticRates staticRates(const Config& c);

// parameter, and the saved bytes of one layer of each kind. membudgetTraining() sets every field, so the struct is not
// zeroed first (a `rep stos` of its size, as for MembudgetStage).
struct MembudgetTraining {
    Dims x;
    RankParams p;
    StaticRates rates;
    LayerStyle style;  // how the framework's layers save their tensors (layerStyle), resolved once per configuration
    Gathering gathering;
    bool outputGathered;  // FSDP2's [norm, output] group is not resharded after forward (torchtitan, accelerate)
    bool ddpBuckets;      // DDP's bucket copy of the gradients (gradient_as_bucket_view = False)
    double reduceBucket;  // DeepSpeed's reduce bucket, bytes (reduce_bucket_size elements in the model dtype)
    // DeepSpeed ZeRO-3 (framework deepspeed): the prefetch it gathers ahead of the module in use, elements
    // (stage3_prefetch_bucket_size capped by stage3_max_live_parameters), and the sub group its step converts.
    bool deepspeedZero3;
    double prefetchElements;
    double subGroupElements;
    bool gradientsFreed;  // the optimizer steps in backward: no gradient shard held at the peak
    // The gradient shards are allocated during backward and freed after the step (zero_grad(set_to_none=True)), and
    // the step runs one backward: at the backward's start (the loss's backward) none is allocated yet.
    bool gradientsInBackward;
    bool outputOnLast, offloadOptimizer, offloadParameters, mtpMoe;
    double shardGroup, expertShardGroup, fullLayerBytes, fullMoeLayerBytes, denseLayerBytes, moeLayerBytes, coreBytes, mtpLayerBytes;
    double moeRebuiltBytes;  // selective: what one MoE layer rebuilds (coreBytes: one dense layer)
};

MembudgetTraining membudgetTraining(const Config& c);

// How the configuration's framework gathers sharded parameters (MembudgetTraining::gathering): what the step-time
// estimate needs of the static model without building all of it.
Gathering gatheringOf(const Config& c);

// Where a stage's activations come from: which layers, how many copies of each are in flight.
struct StageActivations {
    double layers, moeLayers, copies, microbatches, mtpLayers;
    bool first, last;
    double checkpointedLayers;  // with full checkpointing, the stage's layers that are checkpointed (the rest keep all)
};

// With full checkpointing, how many of a stage's layers are checkpointed: all of them; every Nth (torchtitan
// selective_ac_option = N: a global counter, layers N, 2N, … counted from 1, activation_checkpoint.py
// _apply_layer_sac); or the first N of each model chunk (Megatron-LM --recompute-method block,
// transformer_block.py _checkpointed_forward).
double checkpointedLayers(const Config& c, double firstLayerOfStage, double stageLayers);

// Text only the describing visitor asks for: the stage's tensors of [b, s, h] sharded by SP, and of the logits.
inline TensorText spHiddenShape(const Config& c) { return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"}; }
inline TensorText vocabShape(const Config& c) { return TensorText{"[b, " + seqShape(c, false) + ", V/TP]", "vocabulary split by TP"}; }

// Decides how a stage under full checkpointing holds its layers: the checkpointed layers' inputs, the one layer backward
// rebuilds, and every tensor of the layers not checkpointed.
template <class Visitor>
void checkpointedLayerTensors(const Config& c, const MembudgetTraining& t, const StageActivations& st, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    // Layer-copies split between the checkpointed layers (their inputs) and the others (all their tensors), in
    // the proportion the stage holds them.
    const double checkpointedCopies = st.layers > 0 ? st.copies * st.checkpointedLayers / st.layers : st.copies;
    const double keptCopies = st.copies - checkpointedCopies;
    // torchtune's OffloadActivations copies each saved tensor of 1 KiB or more to pinned CPU memory; the
    // layer inputs in its stashes stay on the GPU: the last five packed in forward (two per checkpointed layer,
    // the input and a dummy) and those brought back for the next node in backward, about two layers' inputs
    // (training/_activation_offloading.py max_fwd_stash_size = 5, bwd_tensor_stash).
    const double onGpu = c.activationOffload ? std::min(checkpointedCopies, 2.0) : checkpointedCopies;
    v.tensor(TensorKind::layerInputCheckpoint, Dtype::activation, act * bsh, onGpu, [&c] { return hiddenShape(c); });
    // Backward rebuilds one layer at a time: the largest kind the stage holds (a MoE layer's routed tokens
    // and experts, where it has MoE layers).
    const double recomputedBytes =
        std::max(st.moeLayers < st.layers ? t.fullLayerBytes : 0.0, st.moeLayers > 0 ? t.fullMoeLayerBytes : 0.0);
    if (st.checkpointedLayers > 0)
        v.tensor(TensorKind::recomputedLayer, Dtype::mixed, recomputedBytes, 1, [] {
            return TensorText{"all of a layer's saved tensors", "as the layer's tensors"};
        });
    if (keptCopies > 0) {
        const double moeCopies = st.layers > 0 ? keptCopies * st.moeLayers / st.layers : 0;
        if (keptCopies - moeCopies > 0) v.layers(LayerGroup::dense, LayerSpec{true, false}, t.fullLayerBytes, keptCopies - moeCopies);
        if (moeCopies > 0) v.layers(LayerGroup::moe, LayerSpec{true, true}, t.fullMoeLayerBytes, moeCopies);
    }
}

// Decides how the stage holds its layers by checkpointing mode: full, torchtitan's op-level save list, selective or
// none.
template <class Visitor>
void layerCopyTensors(const Config& c, const MembudgetTraining& t, const StageActivations& st, Visitor& v) {
    if (c.ckpt == Checkpointing::full) {
        checkpointedLayerTensors(c, t, st, v);
    } else if (c.ckpt == Checkpointing::op) {
        // torchtitan's op-level selective checkpointing: each block keeps its input and the outputs of the ops on
        // its save list; backward recomputes the rest of one block at a time (the larger kind the stage holds).
        const double moeCopies = st.layers > 0 ? st.copies * st.moeLayers / st.layers : 0;
        if (st.copies - moeCopies > 0) v.layers(LayerGroup::dense, LayerSpec{true, false, true}, t.denseLayerBytes, st.copies - moeCopies);
        if (moeCopies > 0) v.layers(LayerGroup::moe, LayerSpec{true, true, true}, t.moeLayerBytes, moeCopies);
        const double rebuilt = std::max(st.moeLayers < st.layers ? t.fullLayerBytes - t.denseLayerBytes : 0.0,
                                        st.moeLayers > 0 ? t.fullMoeLayerBytes - t.moeLayerBytes : 0.0);
        if (st.layers > 0)
            v.tensor(TensorKind::recomputedLayer, Dtype::mixed, rebuilt, 1, [] {
                return TensorText{"a layer's tensors off the save list", "as the layer's tensors"};
            });
    } else {
        // Layer-copies split between dense and MoE layers in the proportion the stage holds them.
        const double moeCopies = st.layers > 0 ? st.copies * st.moeLayers / st.layers : 0;
        const double denseCopies = st.copies - moeCopies;
        const bool selective = c.ckpt == Checkpointing::selective;
        if (denseCopies > 0) v.layers(LayerGroup::dense, LayerSpec{true, false, false, false, selective}, t.denseLayerBytes, denseCopies);
        if (moeCopies > 0) v.layers(LayerGroup::moe, LayerSpec{true, true, false, false, selective}, t.moeLayerBytes, moeCopies);
        // Backward rebuilds one layer's recomputed tensors at a time: the larger kind the stage holds.
        const double rebuilt = std::max(st.moeLayers < st.layers ? t.coreBytes : 0.0, st.moeLayers > 0 ? t.moeRebuiltBytes : 0.0);
        const RecomputeModules& r = t.x.recompute;
        const bool coreOnly = !(r.mlp || r.moe || r.sharedExperts || r.moeAct || r.layernorm || r.mlaUpProj);
        if (selective && st.layers > 0 && rebuilt > 0)
            v.tensor(coreOnly ? TensorKind::recomputedAttentionCore : TensorKind::recomputedModules, Dtype::mixed, rebuilt, 1, [coreOnly] {
                return coreOnly ? TensorText{"one layer", "heads split by TP"} : TensorText{"one layer", "as the layer's tensors"};
            });
    }
}

// Decides which gathered weights DeepSpeed ZeRO-3 without zero.Init leaves allocated until each layer's backward.
template <class Visitor>
void zero3SavedWeightTensors(const Config& c, const MembudgetTraining& t, const StageActivations& st, Visitor& v) {
    const Dims& x = t.x;
    // Without zero.Init, F.linear is PyTorch's own: zero.Init swaps in zero3_linear_wrap, whose
    // LinearFunctionForZeroStage3 saves the Parameter itself, only inside its context
    // (partition_parameters.py patch_init_and_builtins). PyTorch's mm/addmm save the weight as the view
    // weight.t(), and DeepSpeed's release (free_param: param.data = torch.empty(0)) drops only the parameter's
    // reference: every gathered matrix a layer multiplied by stays allocated until that layer's backward, the
    // output layer's too (the embedding's when tied). A norm saves its weight itself, a leaf whose data the
    // release empties, and the embedding's backward needs only the token ids (the CPU census:
    // tests/python/test_zero3_saved_weights.py). A checkpointed layer saves nothing in forward.
    const double keptLayers = c.ckpt == Checkpointing::full ? st.layers - st.checkpointedLayers : st.layers;
    const double keptMoe = st.layers > 0 ? keptLayers * st.moeLayers / st.layers : 0;
    const double tiedOutput = t.p.output > 0 ? t.p.output : c.tiedEmbeddings ? x.V * x.h / x.t : 0;
    const double elements = (keptLayers - keptMoe) * t.p.layerLinear +
                            keptMoe * (t.p.moeLayerLinear + t.p.moeLayerExperts + c.experts * x.h) +
                            (st.last ? tiedOutput : 0);  // a MoE layer's router is a matrix too
    if (elements > 0)
        v.tensor(TensorKind::zero3SavedWeights, Dtype::activation, t.rates.weight * elements, 1, [] {
            return TensorText{"every matrix a layer saved (weight.t())", "gathered: whole, on every rank"};
        });
}

// Decides what the final norm saves, as the layers' norms save (layerStyle), and the output layer's input.
template <class Visitor>
void finalNormTensors(const Config& c, const MembudgetTraining& t, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    auto spHidden = [&c] { return spHiddenShape(c); };
    // The final norm as the layers' norms save (layerStyle), the output layer's input.
    const NormSaves norm = t.style.norm;
    const double stats = (x.layernorm ? 8 : 4) * x.b * x.sRank / x.spDivisor;
    auto rows = [&c] { return TensorText{"[b, " + seqShape(c, true) + "]", spSharding(c)}; };
    if (norm == NormSaves::fp32Copy)
        v.tensor(TensorKind::finalNormInputFp32, Dtype::fp32, 4 * bsh, 1, spHidden);
    else
        v.tensor(TensorKind::finalNormInput,
                 norm == NormSaves::fp32Residual || norm == NormSaves::fp32Input ? Dtype::fp32 : Dtype::activation,
                 (norm == NormSaves::fp32Residual || norm == NormSaves::fp32Input ? 4 : act) * bsh, 1, spHidden);
    v.tensor(TensorKind::finalNormStatistics, Dtype::fp32, stats, 1, rows);
    if (norm != NormSaves::input && norm != NormSaves::fp32Input)
        v.tensor(TensorKind::finalNormalised, norm == NormSaves::fp32Residual ? Dtype::fp32 : Dtype::activation,
                 (norm == NormSaves::fp32Residual ? 4 : act) * bsh, 1, spHidden);
    // torchtitan's output layer is ColwiseParallel(input_layouts=Shard(1)): DTensor all-gathers its input
    // to Replicate before F.linear, which saves the gathered tensor (parallelize.py apply_tp); Megatron-LM's
    // linear keeps the sequence-parallel shard and gathers again in backward.
    if (c.framework == Framework::torchtitan && x.t > 1 && c.sp)
        v.tensor(TensorKind::outputLayerGatheredInput, Dtype::activation, act * x.b * x.sRank * x.h, 1, [&c] {
            return TensorText{"[b, " + seqShape(c, false) + ", h]", "replicated on every TP rank"};
        });
    else
        v.tensor(TensorKind::outputLayerInput, Dtype::activation, act * bsh, 1, spHidden);
}

// Decides what an unchunked loss's backward holds beside the logits: a compiled loss's fused kernel, DTensor's
// loss_parallel ops, or eager cross-entropy's FP32 gradients.
template <class Visitor>
void lossBackwardTensors(const Config& c, const MembudgetTraining& t, double logits, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    const NormSaves norm = t.style.norm;
    auto vocab = [&c] { return vocabShape(c); };
    // A compiled loss (torchtune's compile: training.compile_loss, compute_cross_entropy per chunk;
    // torchtitan's compile.components "loss", components/loss.py, the default since d1f62be): inductor's
    // min-cut partitioner keeps the BF16 logits the graph takes in and the rows' log-sum-exp, and its
    // backward is one fused kernel that writes the logits' BF16 gradient from them
    // (torch/_functorch/partitioners.py). Under loss_parallel DTensor's loss ops run as below.
    // torchtune's unchunked output is upcast before the loss (TransformerDecoder.unembed:
    // self.output(h).float()), so that loss takes, keeps and returns the gradient of FP32 logits.
    const bool compiledLoss = compiledLossOf(c);
    const bool fp32Logits = c.framework == Framework::torchtune && lossChunksOf(c) == 1;
    const double compiledBytes = fp32Logits ? 4 : act;
    // transformers' compiled forward keeps the BF16 logits, and its backward hands autograd the
    // gradient of their FP32 upcast (4 B) while the output layer's FP32 weight is cast to BF16 once
    // more (an H200 memory snapshot at the peak: tools/measure/hf_peak.py --snapshot).
    const bool hfCompiled = compiledLoss && c.framework == Framework::hfAccelerate;
    const bool castOutput = hfCompiled && norm == NormSaves::fp32Input;
    if (compiledLoss)
        v.tensor(TensorKind::compiledLossLogits, fp32Logits ? Dtype::fp32 : Dtype::activation, compiledBytes * logits, 1, vocab);
    else
        v.tensor(TensorKind::logProbabilities, Dtype::fp32, 4 * logits, 1, vocab);
    if (compiledLoss) {
        if (castOutput)
            v.tensor(TensorKind::compiledOutputWeightCast, Dtype::activation, act * x.V * x.h / x.t, 1, [] {
                return TensorText{"[V/TP, h]", "vocabulary split by TP"};
            });
        v.tensor(TensorKind::compiledLossBackward, fp32Logits || hfCompiled ? Dtype::fp32 : Dtype::activation,
                 (hfCompiled ? 4 : compiledBytes) * logits / lossChunksOf(c), 1, [&c] {
                     return TensorText{
                         "[b, " + seqShape(c, false) + ", V/TP] / " + n(lossChunksOf(c)) + " chunk" + (lossChunksOf(c) == 1 ? "" : "s"),
                         "one chunk at a time"};
                 });
    } else if (lossParallel(c)) {
        // torchtitan's loss_parallel (TP > 1) runs DTensor's own loss ops (torch/distributed/tensor/parallel/
        // loss.py): _nll_loss_and_log_softmax_backward returns (zeros_like(x) + exp(x)) * grad_output, so
        // beside the saved log-probabilities it holds the zeros, exp(x), their sum and the product, FP32.
        v.tensor(TensorKind::lossParallelBackward, Dtype::fp32, 12 * logits, 1, [&c] {
            return TensorText{"3 × [b, " + seqShape(c, false) + ", V/TP]", "vocabulary split by TP"};
        });
    } else {
        v.tensor(TensorKind::lossBackward, Dtype::fp32, 8 * logits / lossChunksOf(c), 1, [&c] {
            return TensorText{
                "2 × [b, " + seqShape(c, false) + ", V/TP] / " + n(lossChunksOf(c)) + " chunk" + (lossChunksOf(c) == 1 ? "" : "s"),
                "one chunk at a time"};
        });
    }
}

// Decides what the loss of a PyTorch framework saves: the labels and its scalars, the log-probabilities (chunked or
// whole) with their backward, and under PP the logits kept until backward.
template <class Visitor>
void lossTensors(const Config& c, const MembudgetTraining& t, double logits, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    // The labels (int64) and the loss's scalars: NLL's total_weight per chunk and the count of valid tokens
    // (torchtitan: an FP32 total_weight and an FP32 count; torchtune: one FP32 per chunk and an int64 count).
    v.tensor(TensorKind::labels, Dtype::int64, 8 * x.b * x.sRank, 1, [&c] {
        return TensorText{"[b, " + seqShape(c, false) + "]", "replicated on every TP rank"};
    });
    v.tensor(TensorKind::lossScalars, Dtype::fp32, c.framework == Framework::torchtune ? 4 * lossChunksOf(c) + 8 : 8, 1, [] {
        return TensorText{"scalars", ""};
    });
    // F.cross_entropy on logits upcast to FP32 (torchtitan components/loss.py cross_entropy_loss;
    // transformers ForCausalLMLoss; torchtune's chunks, each upcast in CEWithChunkedOutputLoss):
    // log_softmax saves its FP32 output for backward, the logits themselves are freed (del pred). Its
    // backward holds, beside it, the FP32 gradient of the log-probabilities and of the logits: of one
    // chunk at a time when the loss is chunked.
    if (c.framework == Framework::torchtitan && lossChunksOf(c) > 1) {
        // torchtitan's ChunkedLossWrapper (components/loss.py) runs the output layer, the loss and its backward
        // chunk by chunk before the layers' backward: one chunk's BF16 logits, FP32 log-probabilities and
        // their backward (two FP32 copies; under loss_parallel DTensor's four) at a time, and the hidden
        // states' gradient accumulated in FP32 (GradAccumulator), replicated over TP.
        const double chunk = logits / lossChunksOf(c);
        v.tensor(TensorKind::chunkedLoss, Dtype::mixed, (lossParallel(c) ? 18 : 14) * chunk, 1, [&c] {
            return TensorText{"[b, " + seqShape(c, false) + ", V/TP] / " + n(lossChunksOf(c)) + " chunks", "one chunk at a time"};
        });
        v.tensor(TensorKind::lossGradAccumulator, Dtype::fp32, 4 * x.b * x.sRank * x.h, 1, [&c] {
            return TensorText{"[b, " + seqShape(c, false) + ", h]", "replicated on every TP rank"};
        });
    } else {
        lossBackwardTensors(c, t, logits, v);
    }
    // A pipeline stage keeps each micro-batch's output until its backward (torch pipelining stage.py
    // fwd_cache): on the last stage, the logits.
    if (c.pp > 1) v.tensor(TensorKind::pipelineLogits, Dtype::activation, act * logits, 1, [&c] { return vocabShape(c); });
}

// Decides what the multi-token-prediction layers of the last stage save: each depth's layer, its norm and projection
// inputs and its own logits.
template <class Visitor>
void mtpTensors(const Config& c, const MembudgetTraining& t, const StageActivations& st, double logits, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    // Each MTP depth is one more layer for the one micro-batch of the last stage, its norm and
    // projection inputs and its own logits and loss, all alive until the backward pass.
    v.layers(LayerGroup::mtp,
             LayerSpec{c.ckpt != Checkpointing::full, t.mtpMoe, false, c.ckpt == Checkpointing::full, c.ckpt == Checkpointing::selective},
             t.mtpLayerBytes, st.mtpLayers);
    v.tensor(TensorKind::mtpNormInputs, Dtype::activation, 2 * act * bsh, st.mtpLayers, [&c] {
        return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
    });
    v.tensor(TensorKind::mtpProjectionInput, Dtype::activation, 2 * act * x.b * x.sRank * x.h, st.mtpLayers, [&c] {
        return TensorText{"[b, " + seqShape(c, false) + ", 2h]", "replicated on every TP rank"};
    });
    v.tensor(TensorKind::mtpOutputInputs, Dtype::activation, 2 * act * bsh, st.mtpLayers, [&c] {
        return TensorText{"2 × [b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
    });
    v.tensor(TensorKind::mtpLogits, Dtype::mixed, (act + 4) * logits, st.mtpLayers, [&c] { return vocabShape(c); });
}

// Decides what the last stage saves beyond its layers: the final norm, the output layer's input and the loss
// (Megatron-LM's vocab-parallel cross-entropy in FP32, or the PyTorch frameworks'), and the MTP layers.
template <class Visitor>
void lastStageTensors(const Config& c, const MembudgetTraining& t, const StageActivations& st, Visitor& v) {
    const Dims& x = t.x;
    const double act = activationBytes(c);
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    // The last stage runs each micro-batch's forward and backward back to back: one micro-batch of
    // logits. Megatron-LM's vocab-parallel cross-entropy works in FP32.
    const double logits = x.b * x.sRank * x.V / x.t;
    auto spHidden = [&c] { return spHiddenShape(c); };
    auto vocab = [&c] { return vocabShape(c); };
    if (c.framework == Framework::megatron) {
        v.tensor(TensorKind::finalNormInput, Dtype::activation, act * bsh, 1, spHidden);
        v.tensor(TensorKind::outputLayerInput, Dtype::activation, act * bsh, 1, spHidden);
        v.tensor(TensorKind::logits, Dtype::activation, act * logits, 1, vocab);
        v.tensor(TensorKind::lossLogits, Dtype::fp32, 4 * logits, 1, vocab);
    } else {
        finalNormTensors(c, t, v);
        lossTensors(c, t, logits, v);
    }
    if (st.mtpLayers > 0) mtpTensors(c, t, st, logits, v);
}

// Calls v.layers(group, spec, bytesPerLayer, copies) for each group of layer-copies and v.tensor(...) for each
// other saved tensor of one stage, in the order of the ledger's tensor list (README "The membudget method").
template <class Visitor>
void forEachStageTensor(const Config& c, const MembudgetTraining& t, const StageActivations& st, Visitor& v) {
    const Dims& x = t.x;
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    layerCopyTensors(c, t, st, v);
    if (st.moeLayers > 0 && c.framework == Framework::torchtitan) {
        // The backward of one MoE layer's combine (token_dispatcher.py combine: (o.to(float32) * s).to(bf16), then
        // scatter_add): MulBackward0 holds the incoming FP32 gradient of every token copy, the gradient of the FP32
        // outputs and the product for the scores' gradient before its sum, 12 B per element. Compiled, the fused
        // backward writes the BF16 gradients only: the gathered one and the outputs'.
        const double copiesOfTokens = moeRows(c, x, 1).sent * x.h;
        v.tensor(TensorKind::moeCombineBackward, Dtype::mixed, (t.style.compiled ? 4 : 12) * copiesOfTokens, 1, [&c] {
            return TensorText{sentRowsShape(c) + ", h]", "one MoE layer at a time"};
        });
    }
    if (t.deepspeedZero3 && !c.zeroInit) zero3SavedWeightTensors(c, t, st, v);
    if (st.first) {
        v.tensor(TensorKind::tokenIds, Dtype::int64, 8 * x.b * x.sRank, st.microbatches, [&c] {
            return TensorText{"[b, " + seqShape(c, false) + "]", "replicated on every TP rank"};
        });
        if (x.dropout)
            v.tensor(TensorKind::embeddingDropoutMask, Dtype::uint8, bsh, st.microbatches, [&c] {
                return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
            });
    }
    if (st.last) lastStageTensors(c, t, st, v);
}

// The summing visitor for a stage: a group of layer-copies counts its precomputed bytes per layer.
struct SumStage : SumTensors {
    void layers(LayerGroup, LayerSpec, double bytesPerLayer, double copies) { total += bytesPerLayer * copies; }
};

// One stage's numbers: what membudgetTrainingPeak sums and what the ledger's lines show.
MembudgetStage membudgetStage(const Config& c, const MembudgetTraining& t, double i, double stageLayers, double firstLayerOfStage,
                              bool atPeakPhase);

// The candidate stages of the peak (first, last, first middle of each kind), computed once per layout: written into
// `out`, with their count returned; a count above out.size() says they did not fit (a span of PP stages holds them).
size_t peakCandidateStages(const Config& config, std::span<StageSpan> out);
std::vector<StageSpan> peakCandidateStages(const Config& config);
// membudget's kernel: the peak stage of a validated training configuration, over every stage or the candidates.
PeakBytes membudgetTrainingPeak(const Config& config);
PeakBytes membudgetTrainingPeak(const Config& config, std::span<const StageSpan> stages);

// Fixed workspaces inside the caching allocator, which every training step holds (membudget's method; the
// published sources have no such line and show 0): cuBLAS's, one per handle of the forward thread and of
// autograd's backward thread, and Transformer Engine's GEMM workspace under Megatron-LM.
double workspaceBytes(const Config& config);
// Its parts: one cuBLAS workspace (there are two); Transformer Engine's GEMM workspace under Megatron-LM (0
// otherwise), and how many more of those its grouped GEMMs keep, one per compute stream, where MoE layers run.
double cublasWorkspaceBytes(const Config& config);
double teWorkspaceBytes(const Config& config);
double teGroupedGemmWorkspaces(const Config& config);
// DeepEP's communication buffer (moe_dispatcher = deepep), part of the workspaces; allocated outside PyTorch's
// caching allocator, so its counters (and membudget's reserved model) leave it out.
double deepepBufferBytes(const Config& config);
// AsyncTP's symmetric-memory workspace (async_tp), part of the workspaces, also outside the caching allocator.
double asyncTpWorkspaceBytes(const Config& config);

}  // namespace membudget::detail
