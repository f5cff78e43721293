// Architecture arithmetic shared by the training and inference ledgers and the planner's kernel: the
// dimensions one GPU sees, the parameters of each kind of layer on one rank, and which layers are MoE
// layers. Everything here takes a configuration that passed validate().
#pragma once

#include <algorithm>
#include <cmath>
#include <string_view>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/layout.hpp"
#include "model/lora_targets.hpp"
#include "model/recompute_modules.hpp"

namespace membudget::detail {

// The dimensions of one micro-batch on one GPU.
struct Dims {
    double b, s, sRank, h, a, kv, d, f, V, t, spDivisor;
    double at;  // the attention's TP: t, or t / attention_dp under SGLang's data-parallel attention
    bool gated, layernorm, bias, dropout, flash;
    bool attentionBias, mlpBias;  // biases on attention's projections (bias or attention_bias), on the MLP's (bias or mlp_bias)
    double headsRank, kvHeadsRank;
    LoraTargets adapted;  // the matrices with adapters (finetune ≠ full), lora_targets parsed once
    // What selective recomputation rebuilds (ckpt selective; none otherwise): Megatron-LM's recompute_modules parsed
    // once, the attention core alone for the other frameworks.
    RecomputeModules recompute;
};

Dims dimsOf(const Config& c);
// The same into `x`, every field set: the kernel's MembudgetTraining::x is written in place, not copied from a
// returned struct (a copy read back in 16-byte loads across the 8- and 1-byte stores that wrote it stalls).
void fillDims(const Config& c, Dims& x);

// Tensor parallelism inside each expert (etp = 0 means TP) and each expert's FFN width (moe_ffn = 0 means ffn).
inline double expertTensorParallel(const Config& c) { return c.etp != 0 ? c.etp : c.tp; }
inline double expertFfn(const Config& c) { return c.moeFfn != 0 ? c.moeFfn : c.ffn; }

// A MoE layer's token rows on one rank, per micro-batch (docs/frameworks.md, "Mixture of experts"):
// - tokens: those the rank routes, its sequence shard under SP (Megatron-LM's MoELayer takes [s/TP, b, h], and
//   arguments.py requires SP with TP and EP; torchtitan's ReordererSequenceParallel splits them over TP);
// - sent: their top-k copies, which come back through the combine;
// - received: the copies the rank's experts take, the EP group's copies for its experts, gathered over the expert-TP
//   group under SP (Megatron-LM token_dispatcher.py MoEAlltoAllTokenDispatcher.dispatch_postprocess,
//   gather_from_sequence_parallel_region over the ETP group), so tokens × k × ETP on an even split, times
//   `imbalance`, the busiest rank's share over the even one.
// The busiest EP rank's routed tokens over an even split (docs/frameworks.md, "Routing balance"): 1 without expert
// parallelism (the rank takes every copy) or where the run forces balanced routing (Megatron-LM router.py
// apply_random_logits; torchtitan's round-robin _debug_force_load_balance_routing); otherwise moe_imbalance, or
// kDroplessImbalance, and never above a capacity factor, past which an expert drops its tokens (moe_utils.py
// get_capacity). The default is an assumption, not a measurement of the run: no framework bounds dropless routing,
// and no token ratio is published; Megatron-MoE-ModelZoo's Qwen3-235B-A22B runs lose 9 to 24% of their throughput
// to dropless routing against forced balance on H100 (best_practice/qwen3/readme.md: "295 (forced balance) / 237
// (dropless)" TFLOPS at 16k), which a busiest rank of at least 1.09 to 1.25 times the even share accounts for.
inline constexpr double kDroplessImbalance = 1.25;
inline double moeImbalance(const Config& c) {
    if (c.experts == 0 || c.ep <= 1 || c.moeForceBalance) return 1;
    const double f = c.moeImbalance > 0 ? c.moeImbalance : kDroplessImbalance;
    return c.capacityFactor > 0 ? std::min(f, std::max(1.0, c.capacityFactor)) : f;
}

// The chance that a token's k distinct experts, drawn evenly from E, all miss a given `group` of them:
// C(E − group, k) / C(E, k). DeepEP sends a token once to each node (moe_time.cpp) or rank (its received tokens,
// tensors.hpp) that holds one of its experts, 1 − this of the time.
inline double missesExperts(double experts, double group, double k) {
    double none = 1;
    for (double i = 0; i < k; ++i) none *= std::max(0.0, (experts - group - i) / (experts - i));
    return none;
}

struct MoeRows {
    double tokens, sent, received;
};
inline MoeRows moeRows(const Config& c, const Dims& x, double imbalance) {
    MoeRows r;
    r.tokens = x.b * x.sRank / x.spDivisor;
    r.sent = r.tokens * c.expertsPerToken;
    r.received = r.sent * (x.spDivisor > 1 ? expertTensorParallel(c) : 1) * imbalance;
    return r;
}

// Parameters of each kind of layer on one rank (its TP shard, and its EP × ETP shard of the experts).
struct RankParams {
    double moeLayerLinear = 0;          // a MoE layer's attention and shared-expert matrices on one TP rank
    double moeLayerExperts = 0;         // its routed experts on one EP × ETP rank
    double moeLayer = 0;                // a MoE layer without its routed experts (router and norms included)
    double moeLayerExpertBiases = 0;    // of moeLayer, the routed experts' biases on one EP × ETP rank
    double layerLinear = 0;             // the weight matrices of one layer on one TP rank (what weight quantization stores)
    double linearLayerLinearDelta = 0;  // a linear-attention layer's matrices less a full-attention layer's (Qwen3-Next)
    double linearLayerRestDelta = 0;    // and the same for what stays BF16 (convolution, gates, norms)
    double layer = 0;                   // one transformer layer on one TP rank
    double attentionLinear = 0;         // of layerLinear, the attention's matrices (over the attention's TP)
    double embedding = 0;               // input embedding (vocab-parallel) and learned positions
    double output = 0;                  // output layer (or the tied copy that Megatron-LM keeps on the last stage)
    double finalNorm = 0;
};

// The hidden-size norms of a layer: before attention and the MLP (one, shared_norm, in a parallel block) and
// after them (post_norms).
inline double normsPerLayer(const Config& c) { return (c.sharedNorm ? 1 : 2) + (c.postNorms ? 2 : 0); }

// The weights of a layer's query and key norms (qk_norm), whole on every rank.
double queryKeyNormParams(const Config& c);

// DeepSeek-V3.2's sparse-attention indexer in one layer, whole on every rank (vLLM's Indexer: ReplicatedLinear).
struct IndexerParams {
    double query = 0;          // wq_b: q_lora_rank -> index_heads x index_head_dim, a linear layer of the model's format
    double keyAndWeights = 0;  // wk and weights_proj: hidden -> index_head_dim + index_heads (vLLM keeps them BF16)
    double norm = 0;           // k_norm: LayerNorm of index_head_dim, weight and bias
};
IndexerParams indexerParams(const Config& c);

// One Gated DeltaNet layer's attention on a TP rank of `tp` (Qwen3-Next): its projections (a linear layer's
// format), and its convolution, gates and norm (BF16).
struct LinearAttentionParams {
    double linear = 0;
    double rest = 0;
};
LinearAttentionParams linearAttentionParams(const Config& c, double tp);
RankParams rankParams(const Config& c, const Dims& x, bool lastStageHoldsOutput);
// The same into `p`, every field set (as fillDims): the kernel's MembudgetTraining::p, neither zeroed nor copied.
void fillRankParams(const Config& c, const Dims& x, bool lastStageHoldsOutput, RankParams& p);

// The blocks of a hybrid stack (layer_pattern) among layers [from, from + count): Mamba-2 mixers, attention, MLPs.
struct PatternBlocks {
    double mamba = 0;
    double attention = 0;
    double mlp = 0;
};
PatternBlocks patternBlocksIn(const Config& c, double from, double count);

// One block of each kind of a hybrid stack on one TP rank, each with its norm: the weights of its linear layers (a
// linear layer's format) and the rest (norms, the convolution, the SSM's per-head parameters, biases; BF16).
struct HybridBlockParams {
    double mambaLinear = 0, mambaRest = 0;
    double attentionLinear = 0, attentionRest = 0;
    double mlpLinear = 0, mlpRest = 0;
};
HybridBlockParams hybridBlockParams(const Config& c, const Dims& x);

// The groups of B and C a Mamba-2 mixer holds over TP: n_groups, or TP where one group is replicated to every rank
// (vLLM MambaStateShapeCalculator.extra_groups_for_head_shards).
inline double mambaGroupsOverTp(const Config& c) { return std::fmod(c.mambaGroups, c.tp) == 0 ? c.mambaGroups : c.tp; }

// The blocks [from, from + count) of a hybrid stack on one rank: linear-layer weights and the rest.
struct BlockParams {
    double linear = 0;
    double rest = 0;
};
BlockParams hybridStageParams(const Config& c, const Dims& x, double from, double count);

// DeepSpeed ZeRO-3's persistent parameters on one rank: the tensors of at most stage3_param_persistence_threshold
// elements (parameter_offload.py mark_persistent_parameters), which stay gathered after their first use.
double persistentParameters(const Config& c, const Dims& x, double denseLayers, double moeLayers, bool first, bool last, bool outputHere);

// MoE layers among [from, from + count): first_dense_layers, + f, + 2f, … (isMoeLayer), without a loop. Inline, as
// the in-flight counts below: the kernel's stage calls them, and a call spills every live double of the stage.
inline double moeLayersIn(const Config& c, double from, double count) {
    if (c.experts == 0) return 0;
    auto below = [&c](double x) { return x <= c.firstDenseLayers ? 0 : std::floor((x - c.firstDenseLayers - 1) / c.moeLayerFreq) + 1; };
    return below(from + count) - below(from);
}

// Full-attention layers among [from, from + count): all of them without a sliding window; with one, layers
// N, 2N, … counted from 1 (full_attention_every = N, as Gemma 3's (layer + 1) % pattern == 0), none when N = 0.
double fullAttentionLayersIn(const Config& c, double from, double count);

// Whether the multi-token-prediction layers are MoE layers (they are of the last layer's kind).
bool mtpIsMoe(const Config& c);

// A stage's parameters: on one GPU (its TP/EP shard, before any ZeRO sharding, with the copies a stage keeps
// of shared weights) and as a share of the model (each shard counted once, no copies). Summed over the stages,
// `model` is the model's parameter count (without the MTP layers in inference, which does not load them).
struct StageParameterCount {
    double perGpu = 0;
    double model = 0;
};
StageParameterCount stageParameterCount(const Config& c, double stage, double firstLayer, double layers);

// Element sizes.
double bytesOfDtype(WeightDtype dtype);
double bytesOfDtype(KvDtype dtype);

// Layers on stage i, as stageLayers(config)[i] without building the vector.
double stageLayerCount(const Config& config, double stage);

// Micro-batches a 1F1B schedule keeps in flight on a stage (min(PP − i, m)), and the layer-copies of
// activations that makes: with interleaving, Megatron-LM's warm-up of 2(PP − i − 1) + (v − 1)·PP + 1
// model chunks of layers/v layers (on stage 0 this is Korthikanti et al.'s L·(1 + (p − 1)/(p·v))).
inline double inFlightMicrobatches(const Config& c, double stage) { return std::min(c.pp - stage, c.microbatches); }
// With a custom pipeline layout, the layer-copies of the warm-up's `chunks` in-flight model chunks, each its own.
double inFlightLayoutCopies(const Config& c, double chunks, double stage);
// Megatron-LM's EP all-to-all overlap (overlap_moe_comm) schedules one more forward first (schedules.py
// get_pp_rank_microbatches: "we schedule one extra micro-batch forward step before the 1f1b stages", one more model
// chunk in flight), and without a pipeline runs each micro-batch's forward beside the previous one's backward, layer
// by layer (combined_1f1b.py combined_1f1b_schedule_for_no_pipelining): one layer of the next one more.
inline double inFlightLayerCopies(const Config& c, double stageLayerCount, double stage) {
    const bool overlap = c.overlapMoeComm && c.framework == Framework::megatron && moeCommOverlapAllowed(c) && c.microbatches > 1;
    if (c.vpp <= 1) return inFlightMicrobatches(c, stage) * stageLayerCount + (overlap && c.pp == 1 && stageLayerCount > 0 ? 1 : 0);
    const double chunks = std::min(2 * (c.pp - stage - 1) + (c.vpp - 1) * c.pp + 1 + (overlap ? 1 : 0), c.microbatches * c.vpp);
    if (c.pipelineLayout.empty()) return chunks * stageLayerCount / c.vpp;
    return inFlightLayoutCopies(c, chunks, stage);
}

}  // namespace membudget::detail
