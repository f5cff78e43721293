// Static memory as one list of terms, as the saved tensors are one walk (forEachStageTensor): a stage's weights,
// gradients, master copy and optimizer states, the gathered blocks and the buffers, each with the line it belongs
// to, how long it is held, its bytes and (on demand, for the ledger) its formula, its substituted text and what it
// adds to the line's note. The planner's kernel sums it (membudgetStage, training.cpp) and the ledger describes it
// (training_ledger.cpp), so a framework's behaviour is one edit here. docs/frameworks.md cites each from its source.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"
#include "memory/training.hpp"
#include "model/lora.hpp"

namespace membudget::detail {

enum class StaticLine : std::uint8_t { parameters, gradients, optimizer };
inline constexpr int kStaticLines = 3;

// How long a term is held, which is also how the caching allocator sees it.
enum class Hold : std::uint8_t {
    stored,    // the shards the rank keeps for the whole step
    gathered,  // unsharded copies of weights, gathered before use (ZeRO-3, FSDP2) or cast (autocast): their own blocks
    buffer,    // buffers of forward and backward: reduce-scatter inputs, gradient buckets, dequantisation
    step,      // the optimizer step's own temporary, counted only when the step is the stage's peak
};

struct TermText {
    std::string symbol, substituted;
};

inline std::string precisionName(const Config& c) {
    return c.precision == Precision::fp32 ? "FP32" : c.precision == Precision::fp16 ? "FP16" : "BF16";
}

// "w × P / N" without a "/ 1": a term of a static line.
inline std::string sharded(double rate, double params, double shard) {
    return shard == 1 ? fill("# × #", {rate, params}) : fill("# × # / #", {rate, params, shard});
}

// "w × P_name / (DP × CP)" or "/ expert DP", without the divisor when nothing is sharded.
inline std::string shardedSymbol(double rate, const char* name, double shard, bool experts = false) {
    return n(rate) + " × " + name + (shard > 1 ? (experts ? " / expert DP" : " / (DP × CP)") : "");
}

// Decides the parameters line's stored terms: the stage's weights at the training precision, its routed experts
// sharded over their own DP group, and Transformer Engine's FP8 weight copies.
template <class Visitor>
void parameterTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, bool first, bool last, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    const double all = s.stageParams + s.expertParams;
    // Parameters: the stage's weights at the training precision, its routed experts sharded over their own DP
    // group, Transformer Engine's FP8 weight copies, and the gathered blocks.
    v.note(L::parameters, Hold::stored, [&] {
        if (t.offloadParameters) return std::string("Parameters offloaded to CPU; only the two gathered layers are on the GPU");
        const std::string weightName = r.weight == 4 && c.precision != Precision::fp32 ? "FP32 (the master)" : precisionName(c);
        return weightName + " weights of " + n(std::round(all)) + " parameters on this GPU (" + n(s.layers) + " layers" +
               (first ? ", the embedding" : "") +
               (last ? (c.tiedEmbeddings && c.pp > 1 ? ", the tied output copy" : (t.outputOnLast ? ", the output layer" : "")) : "") +
               (s.mtpLayers > 0 ? ", " + n(s.mtpLayers) + " multi-token-prediction layer" + (s.mtpLayers > 1 ? "s" : "") +
                                      (s.mtpEmbedding > 0 ? " and its embedding copy" : "")
                                : "") +
               ")" + (s.fp8Copies > 0 ? ", plus FP8 copies of the linear weights (Transformer Engine)" : "");
    });
    if (!t.offloadParameters) {
        v.term(L::parameters, Hold::stored, r.weight * s.stageParams / s.paramShard, [&] {
            return TermText{shardedSymbol(r.weight, "P_stage", s.paramShard), sharded(r.weight, s.stageParams, s.paramShard)};
        });
        v.term(L::parameters, Hold::stored, r.weight * s.expertParams / s.expertParamShard, [&] {
            return TermText{shardedSymbol(r.weight, "P_experts", s.expertParamShard, true),
                            sharded(r.weight, s.expertParams, s.expertParamShard)};
        });
        v.term(L::parameters, Hold::stored, s.fp8Copies, [&] { return TermText{"P_linear (FP8 copies)", exprNumber(s.fp8Copies)}; });
    }
}

// Decides the gradients line's stored shards: none at the peak when the optimizer steps in backward.
template <class Visitor>
void gradientTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    // Gradients: the shards (none at the peak when the optimizer steps in backward), then what the gathering adds.
    v.note(L::gradients, Hold::stored, [&] {
        if (t.gradientsFreed) return std::string("No gradient shard at the peak: the optimizer steps in backward and frees each gradient");
        return std::string(r.gradient == 2   ? (c.precision == Precision::fp16 ? "FP16" : "BF16")
                           : r.gradient == 4 ? (c.framework == Framework::megatron ? "FP32 (main_grad)" : "FP32")
                                             : "BF16 + FP32 accumulator") +
               " gradients";
    });
    if (!t.gradientsFreed) {
        v.term(L::gradients, Hold::stored, r.gradient * s.stageParams / s.gradShard, [&] {
            return TermText{shardedSymbol(r.gradient, "P_stage", s.gradShard), sharded(r.gradient, s.stageParams, s.gradShard)};
        });
        v.term(L::gradients, Hold::stored, r.gradient * s.expertParams / s.expertGradShard, [&] {
            return TermText{shardedSymbol(r.gradient, "P_experts", s.expertGradShard, true),
                            sharded(r.gradient, s.expertParams, s.expertGradShard)};
        });
    }
}

// The parameters line's note on what is gathered, unless the parameters are offloaded (their note says so).
template <class Visitor, class Text>
void gatheredParameterNote(const MembudgetTraining& t, Visitor& v, const Text& text) {
    if (!t.offloadParameters) v.note(StaticLine::parameters, Hold::gathered, text);
}

// Decides what Megatron-LM's and DeepSpeed's ZeRO-3 hold gathered while a layer computes, and their reduce buckets.
template <class Visitor>
void zero3GatheredTerms(const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    auto group = [&t] { return n(t.shardGroup); };  // text only when a note is asked for: the kernel builds none
    if (t.deepspeedZero3) {
        // DeepSpeed gathers module by module: the one in use (the stage's largest, at its peak) and
        // min(stage3_prefetch_bucket_size, stage3_max_live_parameters) elements ahead of it
        // (partitioned_param_coordinator.py fetch_sub_module); its gradients go through the reduce bucket.
        v.term(L::parameters, Hold::gathered, r.weight * (s.largestModule + t.prefetchElements + s.persistentParams), [&] {
            if (s.persistentParams > 0)
                return TermText{n(r.weight) + " × (P_module + prefetch + P_persistent) (gathered)",
                                fill("# × (# + # + #)", {r.weight, s.largestModule, t.prefetchElements, s.persistentParams})};
            return TermText{n(r.weight) + " × (P_module + prefetch) (gathered)",
                            fill("# × (# + #)", {r.weight, s.largestModule, t.prefetchElements})};
        });
        gatheredParameterNote(t, v, [&] {
            return "; sharded over DP × CP = " + group() +
                   ", plus the largest module gathered and the prefetch bucket (stage3_prefetch_bucket_size, capped by "
                   "stage3_max_live_parameters)" +
                   (s.persistentParams > 0 ? " and the persistent tensors" : "");
        });
        return;
    }
    // The module in use and the prefetched one; one module's gradients in the reduce-scatter bucket.
    v.term(L::parameters, Hold::gathered, 2 * r.weight * s.gatheredLayer, [&] {
        return TermText{"2 × " + n(r.weight) + " × P_layer (gathered)", fill("2 × # × #", {r.weight, s.gatheredLayer})};
    });
    gatheredParameterNote(t, v,
                          [&] { return "; sharded over DP × CP = " + group() + ", plus two gathered layers (current and prefetched)"; });
    v.term(L::gradients, Hold::buffer, r.weight * s.gatheredLayer, [&] {
        return TermText{n(r.weight) + " × P_layer (reduce-scatter bucket)", fill("# × #", {r.weight, s.gatheredLayer})};
    });
    v.note(L::gradients, Hold::buffer,
           [&] { return ", sharded over DP × CP = " + group() + " (ZeRO-3), plus one layer's reduce-scatter bucket"; });
}

// Decides what FSDP2 holds beyond the shards while a block computes: two blocks gathered, one block's unsharded
// gradient with its reduce-scatter input, and the tail it keeps gathered.
template <class Visitor>
void fsdp2LayerTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, bool last, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    auto group = [&t] { return n(t.shardGroup); };  // text only when a note is asked for: the kernel builds none
    // Backward holds the current block and the one it prefetches (FSDP2 _backward_prefetch), and the block's
    // unsharded gradient with its reduce-scatter input (_fsdp_collectives.py foreach_reduce). The tail FSDP2
    // does not reshard after forward (torchtitan, accelerate: [norm, output] as one group) stays gathered.
    const bool tailGathered = last && t.outputGathered;
    const double tail = tailGathered ? t.p.finalNorm + t.p.output : 0;
    // With fp8_all_gather the layers' linear weights arrive in FP8: (compute − 1) B less for each.
    const double fp8Saving = 2 * (r.compute - 1) * s.gatheredLayerFp8;
    v.term(L::parameters, Hold::gathered, r.compute * (2 * s.gatheredLayer + tail) - fp8Saving, [&] {
        const std::string fp8 = fp8Saving > 0 ? fill(" − 2 × (# − 1) × #", {r.compute, s.gatheredLayerFp8}) : "";
        const std::string fp8Formula = fp8Saving > 0 ? " − 2 × (" + n(r.compute) + " − 1) × P_linear" : "";
        if (tailGathered)
            return TermText{n(r.compute) + " × (2 × P_layer + P_output) (gathered)" + fp8Formula,
                            fill("# × (2 × # + #)", {r.compute, s.gatheredLayer, tail}) + fp8};
        return TermText{"2 × " + n(r.compute) + " × P_layer (gathered)" + fp8Formula,
                        fill("2 × # × #", {r.compute, s.gatheredLayer}) + fp8};
    });
    gatheredParameterNote(t, v, [&] {
        return "; FSDP2 shards over DP × CP = " + group() + ", plus two blocks gathered in " + precisionName(c) +
               (s.gatheredLayerFp8 > 0 ? " (matrices in FP8)" : "") + " (the one computing and the one prefetched)" +
               (tailGathered ? " and the final norm and output layer, kept gathered from forward to backward" : "");
    });
    v.term(L::gradients, Hold::buffer, (r.compute + r.reduce) * s.gatheredLayer, [&] {
        return TermText{"(" + n(r.compute) + " + " + n(r.reduce) + ") × P_layer (unsharded, reduce-scatter input)",
                        fill("(# + #) × #", {r.compute, r.reduce, s.gatheredLayer})};
    });
    v.note(L::gradients, Hold::buffer, [&] {
        return ", sharded over DP × CP = " + group() + " (FSDP2), plus one block's unsharded " + precisionName(c) + " gradient and its " +
               (r.reduce == 4 ? "FP32" : precisionName(c)) + " reduce-scatter input (foreach_reduce)";
    });
}

// Decides what FSDP2 under pipeline parallelism holds: the whole stage gathered, and its gradients accumulated
// unsharded.
template <class Visitor>
void fsdp2StageTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    const double all = s.stageParams + s.expertParams;
    auto group = [&t] { return n(t.shardGroup); };  // text only when a note is asked for: the kernel builds none
    // The whole stage gathered, and its gradients accumulated unsharded in reduce_dtype across the
    // micro-batches (_fsdp_param.py to_accumulated_grad_if_needed); each micro-batch adds one block's.
    v.term(L::parameters, Hold::gathered, r.compute * all - (r.compute - 1) * s.stageLinearFp8, [&] {
        if (s.stageLinearFp8 > 0)
            return TermText{n(r.compute) + " × P_stage − (" + n(r.compute) + " − 1) × P_linear (gathered)",
                            fill("# × # − (# − 1) × #", {r.compute, all, r.compute, s.stageLinearFp8})};
        return TermText{n(r.compute) + " × P_stage (gathered)", fill("# × #", {r.compute, all})};
    });
    gatheredParameterNote(t, v, [&] {
        return "; FSDP2 shards over DP × CP = " + group() + ", but under pipeline parallelism the stage stays gathered in " +
               precisionName(c) + (s.stageLinearFp8 > 0 ? " (matrices in FP8)" : "") +
               " for the whole step (torchtitan: reshard_after_forward = not pp_enabled)";
    });
    v.term(L::gradients, Hold::buffer, r.reduce * all + r.compute * s.gatheredLayer, [&] {
        return TermText{n(r.reduce) + " × P_stage (unsharded, accumulated) + " + n(r.compute) + " × P_layer",
                        fill("# × # + # × #", {r.reduce, all, r.compute, s.gatheredLayer})};
    });
    v.note(L::gradients, Hold::buffer, [&] {
        return ", sharded over DP × CP = " + group() +
               " after the step; under pipeline parallelism FSDP2 skips the reduce-scatter until the last "
               "micro-batch, so the stage's gradients accumulate unsharded in " +
               (r.reduce == 4 ? "FP32" : precisionName(c)) + " (to_accumulated_grad_if_needed)";
    });
}

// Decides autocast's cast cache: a BF16 copy of every weight outside the checkpointed layers, and of the one layer
// backward rebuilds.
template <class Visitor>
void autocastTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    const double all = s.stageParams + s.expertParams;
    // autocast's cast cache (autocast_mode.cpp cached_cast): a BF16 copy of every weight, which the linear
    // layers save for backward. The cache is cleared when the forward's autocast region exits
    // (clear_cache), so a checkpointed layer keeps none: backward casts its weights again when it rebuilds
    // it, one layer at a time.
    const double uncast = s.checkpointed > 0 ? (s.checkpointed - 1) * t.p.layer : 0;
    v.term(L::parameters, Hold::gathered, r.compute * (all - uncast), [&] {
        if (uncast > 0)
            return TermText{n(r.compute) + " × (P_stage − (checkpointed layers − 1) × P_layer) (autocast copies)",
                            fill("# × (# − # × #)", {r.compute, all, s.checkpointed - 1, t.p.layer})};
        return TermText{n(r.compute) + " × P_stage (autocast copies)", fill("# × #", {r.compute, all})};
    });
    gatheredParameterNote(t, v, [&] {
        return "; plus autocast's " + precisionName(c) +
               (uncast > 0 ? " copy of each weight outside the checkpointed layers and of the one layer backward rebuilds"
                           : " copy of every weight, cached for the forward and saved by the linear layers for backward");
    });
}

// Decides the buffers beside the gradient shards: the routed experts' note, DDP's bucket copy and DeepSpeed's reduce
// bucket.
template <class Visitor>
void gradientBufferTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    const double all = s.stageParams + s.expertParams;
    if (s.expertParams > 0)
        v.note(L::parameters, Hold::stored, [&] {
            return "; " + n(std::round(s.expertParams)) + " of them routed-expert parameters (" + n(c.experts / c.ep) +
                   " experts per EP rank), their gradients and optimizer sharded over the expert DP group of " + n(t.expertShardGroup);
        });
    // DDP's reducer copies each gradient into its bucket (gradient_as_bucket_view = False by default).
    if (t.ddpBuckets) {
        v.term(L::gradients, Hold::buffer, r.gradient * all, [&] {
            return TermText{n(r.gradient) + " × P_stage (DDP buckets)", fill("# × #", {r.gradient, all})};
        });
        v.note(L::gradients, Hold::buffer, [] { return std::string(", and DDP's bucket copy of them (gradient_as_bucket_view = False)"); });
    }
    if (t.reduceBucket > 0) {
        v.term(L::gradients, Hold::buffer, t.reduceBucket, [&] { return TermText{"reduce bucket", exprNumber(t.reduceBucket)}; });
        v.note(L::gradients, Hold::buffer,
               [&] { return ", and DeepSpeed's reduce bucket (reduce_bucket_size, " + n(t.reduceBucket / r.weight) + " elements)"; });
    }
}

// Decides the optimizer line's stored terms: master weights and states of the stage and of its experts.
template <class Visitor>
void optimizerTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    auto group = [&t] { return n(t.shardGroup); };  // text only when a note is asked for: the kernel builds none
    // Optimizer: master weights and states of the stage and of its experts; with BF16 gradients the step works on
    // an FP32 copy of this rank's optimizer shard of them.
    v.note(L::optimizer, Hold::stored, [&] {
        if (t.offloadOptimizer) return std::string("Offloaded to CPU memory (ZeRO-Offload)");
        const std::string zeroName = c.zero == 1 ? "distributed optimizer / ZeRO-1" : "ZeRO-" + n(c.zero);
        return std::string(r.master == 4   ? "FP32 master weights (4 B) + "
                           : r.master == 2 ? "BF16 master weights (2 B, DeepSpeed's bf16_master_weights_and_grads) + "
                           : r.weight == 4 && c.precision != Precision::fp32 ? "The FP32 parameters are the master; "
                                                                             : "No master copy; ") +
               r.describe + (c.zero >= 1 ? ", sharded over DP × CP = " + group() + " (" + zeroName + ")" : "");
    });
    if (!t.offloadOptimizer) {
        v.term(L::optimizer, Hold::stored, (r.master * s.stageParams + s.states) / s.optimizerShard, [&] {
            const std::string states =
                r.master > 0 ? fill("(# × # + #)", {r.master, s.stageParams, s.states}) : factor(exprNumber(s.states));
            return TermText{"(master × P_stage + states)" + std::string(s.optimizerShard > 1 ? " / (DP × CP)" : ""),
                            s.optimizerShard == 1 ? states : states + fill(" / #", {s.optimizerShard})};
        });
        v.term(L::optimizer, Hold::stored, (r.master + r.statesHidden) * s.expertParams / s.expertOptimizerShard, [&] {
            return TermText{"(master + states) × P_experts" + std::string(s.expertOptimizerShard > 1 ? " / expert DP" : ""),
                            sharded(r.master + r.statesHidden, s.expertParams, s.expertOptimizerShard)};
        });
    }
}

// Decides the optimizer step's own temporary, counted only when the step is the stage's peak: DeepSpeed ZeRO-3's
// sub group, or an FP32 copy of the BF16 gradient shard.
template <class Visitor>
void optimizerStepTerms(const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const StaticRates& r = t.rates;
    if (r.gradient == 2 && r.master > 0 && !t.offloadOptimizer && !t.gradientsFreed && t.deepspeedZero3) {
        // DeepSpeed ZeRO-3 steps one sub group at a time: its gradient flattened (2 B) and made the master's dtype
        // (4 B for an FP32 master; a BF16 master's .to() copies nothing), freed before the next (stage3.py
        // _prepare_fp32_grad_for_sub_group, _release_sub_group).
        const double subGroup = std::min(t.subGroupElements, s.stageParams / s.optimizerShard);
        const bool fp32Master = r.master == 4;
        v.term(L::optimizer, Hold::step, (fp32Master ? 6 : 2) * subGroup, [&] {
            return TermText{std::string(fp32Master ? "(2 + 4)" : "2") + " × min(sub_group_size, P_stage / (DP × CP)) (step)",
                            fill(fp32Master ? "6 × #" : "2 × #", {subGroup})};
        });
        v.note(L::optimizer, Hold::step, [fp32Master] {
            return std::string(fp32Master ? "; at its peak, the optimizer step, plus one sub group's gradient flattened and made FP32 "
                                            "(sub_group_size)"
                                          : "; at its peak, the optimizer step, plus one sub group's gradient flattened (sub_group_size)");
        });
    } else if (r.gradient == 2 && r.master == 4 && !t.offloadOptimizer && !t.gradientsFreed) {
        v.term(L::optimizer, Hold::step, 4 * s.stageParams / s.optimizerShard, [&] {
            return TermText{"4 × P_stage / (DP × CP) (step)", sharded(4, s.stageParams, s.optimizerShard)};
        });
        v.note(L::optimizer, Hold::step,
               [] { return std::string("; at its peak, the optimizer step, plus an FP32 copy of the BF16 gradient shard"); });
    }
}

// Full training: every parameter has a gradient and optimizer states, sharded by the ZeRO stage; the framework's
// gathering (t.gathering) adds its gathered blocks and gradient buffers.
template <class Visitor>
void fullStaticTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, bool first, bool last, Visitor& v) {
    parameterTerms(c, t, s, first, last, v);
    gradientTerms(c, t, s, v);
    // What each framework holds beyond the shards while a layer computes.
    switch (t.gathering) {
        case Gathering::zero3Layers:
            zero3GatheredTerms(t, s, v);
            break;
        case Gathering::fsdp2Layers:
            fsdp2LayerTerms(c, t, s, last, v);
            break;
        case Gathering::fsdp2Stage:
            fsdp2StageTerms(c, t, s, v);
            break;
        case Gathering::autocast:
            autocastTerms(c, t, s, v);
            [[fallthrough]];
        case Gathering::none:
            if (c.zero >= 2)
                v.note(StaticLine::gradients, Hold::stored, [&] { return ", sharded over DP × CP = " + n(t.shardGroup) + " (ZeRO-2)"; });
            break;
    }
    gradientBufferTerms(c, t, s, v);
    optimizerTerms(c, t, s, v);
    optimizerStepTerms(t, s, v);
}

// LoRA / QLoRA: the base is frozen (no gradient, no optimizer state) in the compute dtype, or for QLoRA its blocks'
// linear weights in NF4 (dequantised one matrix at a time into a BF16 buffer); only the adapters have gradients and
// optimizer states, in their own dtype (torch's optimizers keep states like the parameter: zeros_like), no master.
template <class Visitor>
void adapterStaticTerms(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, Visitor& v) {
    using L = StaticLine;
    const double frozen = s.stageParams + s.expertParams, quantized = s.quantizedParams;
    const double fb = s.frozenBytesPerParam, ab = s.adapterBytesPerParam;
    const std::string shard = s.paramShard > 1 ? " / (DP × CP)" : "";
    const std::string adapterDtype = ab == 4 ? "FP32" : precisionName(c);

    v.note(L::parameters, Hold::stored, [&] {
        return (quantized > 0 ? "Frozen base: the blocks' " + n(std::round(quantized)) +
                                    " linear weights in NF4 (4 bits + double-quantised block constants, 4.127 bits; "
                                    "bitsandbytes), the other " +
                                    n(std::round(frozen - quantized)) + " parameters in " + precisionName(c) +
                                    ", one matrix at a time dequantised to BF16 for its GEMM"
                              : "Frozen base: " + n(std::round(frozen)) + " parameters in " + precisionName(c)) +
               "; LoRA adapters (rank " + n(c.loraRank) + " on " + c.loraTargets + "): " + n(std::round(s.adapterParams)) +
               " parameters in " + adapterDtype + (s.paramShard > 1 ? "; sharded over DP × CP = " + n(t.shardGroup) : "");
    });
    v.term(L::parameters, Hold::stored, (kNf4BytesPerParam * quantized + fb * (frozen - quantized)) / s.paramShard, [&] {
        if (quantized > 0)
            return TermText{"(NF4 × P_linear + " + n(fb) + " × P_rest)" + shard + " (frozen)",
                            factor(fill("# × # + # × #", {kNf4BytesPerParam, quantized, fb, frozen - quantized})) +
                                (s.paramShard > 1 ? fill(" / #", {s.paramShard}) : "")};
        return TermText{n(fb) + " × P_frozen" + shard, sharded(fb, frozen, s.paramShard)};
    });
    v.term(L::parameters, Hold::stored, ab * s.adapterParams / s.paramShard, [&] {
        return TermText{n(ab) + " × P_adapters" + shard, sharded(ab, s.adapterParams, s.paramShard)};
    });
    // ZeRO-3 / FSDP gathers the frozen layer in use and the prefetched one, in the frozen dtype.
    const double gatheredRate = quantized > 0 ? kNf4BytesPerParam : fb;
    if (c.zero >= 3)
        v.term(L::parameters, Hold::gathered, 2 * gatheredRate * s.gatheredLayer, [&] {
            return TermText{"2 × P_layer (gathered, frozen dtype)", fill("2 × # × #", {gatheredRate, s.gatheredLayer})};
        });
    v.term(L::parameters, Hold::buffer, s.dequantized, [&] {
        return TermText{"2 × W_largest (dequantised)", fill("2 × #", {s.dequantized / 2})};
    });

    v.note(L::gradients, Hold::stored, [&] { return "Gradients of the adapters only (" + adapterDtype + "); the frozen base has none"; });
    if (!t.gradientsFreed)
        v.term(L::gradients, Hold::stored, ab * s.adapterParams / s.gradShard, [&] {
            return TermText{shardedSymbol(ab, "P_adapters", s.gradShard), sharded(ab, s.adapterParams, s.gradShard)};
        });
    if (t.ddpBuckets)
        v.term(L::gradients, Hold::buffer, ab * s.adapterParams, [&] {
            return TermText{n(ab) + " × P_adapters (DDP buckets)", fill("# × #", {ab, s.adapterParams})};
        });

    v.note(L::optimizer, Hold::stored, [&] {
        return "Optimizer states of the adapters only (" + n(s.adapterStatesPerParam) +
               " B per adapter parameter: the states take the adapters' dtype, zeros_like; no master copy)";
    });
    if (!t.offloadOptimizer)
        v.term(L::optimizer, Hold::stored, s.states / s.optimizerShard, [&] {
            return TermText{"states × P_adapters" + std::string(s.optimizerShard > 1 ? " / (DP × CP)" : ""),
                            sharded(s.adapterStatesPerParam, s.adapterParams, s.optimizerShard)};
        });
}

// Calls v.term(line, hold, bytes, describe) for each static term of one stage, in each line's order, and
// v.note(line, hold, text) for what each adds to its line's note; describe() and text() only when the ledger asks.
template <class Visitor>
void forEachStaticTerm(const Config& c, const MembudgetTraining& t, const MembudgetStage& s, bool first, bool last, Visitor& v) {
    if (c.finetune == Finetune::full)
        fullStaticTerms(c, t, s, first, last, v);
    else
        adapterStaticTerms(c, t, s, v);
}

// The summing visitor: each line's bytes in the order the ledger adds them, and what was gathered (its own blocks
// in the caching allocator) and what only the optimizer step holds.
struct SumStatic {
    double lines[kStaticLines] = {0, 0, 0};
    double gathered = 0, step = 0, storedGradients = 0;
    template <class Describe>
    void term(StaticLine line, Hold hold, double bytes, const Describe&) {
        if (hold == Hold::step) {
            step += bytes;
            return;
        }
        lines[static_cast<int>(line)] += bytes;
        if (hold == Hold::gathered) gathered += bytes;
        if (hold == Hold::stored && line == StaticLine::gradients) storedGradients += bytes;
    }
    template <class Text>
    void note(StaticLine, Hold, const Text&) {}
};

}  // namespace membudget::detail
