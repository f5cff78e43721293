// method=membudget in training, as the ledger shows it: every line's formula, substituted expression and note,
// and the tensor sub-ledger, over the numbers of training.cpp (the same walk, a describing visitor).
#include "memory/ledger/training_ledger.hpp"

#include <algorithm>
#include <cmath>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "memory/ledger/tensor_names.hpp"
#include "memory/ledgers.hpp"
#include "memory/tensors.hpp"
#include "memory/training.hpp"
#include "model/lora.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

namespace {

std::string dtypeText(const Config& c, Dtype dtype) {
    switch (dtype) {
        case Dtype::activation:
            return c.precision == Precision::fp32 ? "fp32" : c.precision == Precision::fp16 ? "fp16" : "bf16";
        case Dtype::fp32:
            return "fp32";
        case Dtype::fp8:
            return "fp8";
        case Dtype::uint8:
            return "uint8";
        case Dtype::int64:
            return "int64";
        case Dtype::mixed:
            break;
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
        tensors.push_back(
            {std::move(name), std::move(text.shape), std::move(type), bytesPerCopy, n, bytesPerCopy * n, std::move(text.sharding)});
        if (inGroup) return;
        if (kind == TensorKind::layerInputCheckpoint)
            groups.add("", fill("# × #", {copies, bytesPerCopy}), copies * bytesPerCopy);
        else
            extras += bytesPerCopy * copies;
    }
    void layers(LayerGroup group, LayerSpec spec, double bytesPerLayer, double copies) {
        groups.add("", fill("# × #", {copies, bytesPerLayer}), copies * bytesPerLayer);
        prefix = group == LayerGroup::moe ? "MoE layer: " : group == LayerGroup::mtp ? "MTP layer: " : "";
        groupCopies = copies;
        inGroup = true;
        if (spec.inputOnly)
            tensor(TensorKind::layerInputCheckpoint, Dtype::activation, activationBytes(c) * x.b * x.sRank * x.h / x.spDivisor, 1, [this] {
                return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
            });
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

// What the caching allocator reserves for a set of live blocks (c10/cuda/CUDACachingAllocator.cpp): each request
// rounds up to 512 B (round_size); requests up to 1 MiB share 2 MiB segments of the small pool, those under 10 MiB
// share 20 MiB segments (kLargeBuffer), larger ones get a segment of their own rounded up to 2 MiB (kRoundLarge).
// With expandable_segments the pools grow in place, in 2 MiB (small) and 20 MiB (large) pages.
struct Reserve {
    static constexpr double MiB = kBytesPerMiB;
    double small = 0, medium = 0, large = 0, allocated = 0;
    void add(double bytes, double count) {
        if (bytes <= 0 || count <= 0) return;
        const double block = std::max(512.0, std::ceil(bytes / 512) * 512);
        allocated += block * count;
        if (block <= MiB)
            small += block * count;
        else if (block < 10 * MiB)
            medium += block * count;
        else
            large += std::ceil(block / (2 * MiB)) * 2 * MiB * count;
    }
    double reserved(bool expandable) const {
        const double smallSegments = std::ceil(small / (2 * MiB)) * 2 * MiB;
        if (expandable) return smallSegments + std::ceil((medium + large) / (20 * MiB)) * 20 * MiB;
        return smallSegments + std::ceil(medium / (20 * MiB)) * 20 * MiB + large;
    }
};

// "w × P / N" without a "/ 1": a term of a static line.
std::string sharded(double rate, double params, double shard) {
    return shard == 1 ? fill("# × #", {rate, params}) : fill("# × # / #", {rate, params, shard});
}

}  // namespace

Line workspaceLine(const Config& c) {
    const double bytes = workspaceBytes(c);
    const bool te = c.framework == Framework::megatron;
    const GpuPreset* gpu = findGpuPreset(c.gpu);
    const double capability = gpu ? gpu->computeCapability : 9.0;
    const double perHandle = capability >= 9.0 ? 32 * kBytesPerMiB : 8519680;
    const double transformerEngine = bytes - 2 * perHandle;
    return {LineId::workspace,
            "Workspaces",
            te ? "2 × cuBLAS workspace + Transformer Engine workspace" : "2 × cuBLAS workspace",
            te ? fill("2 × # + #", {perHandle, transformerEngine}) : fill("2 × #", {perHandle}),
            bytes,
            std::string("PyTorch's cuBLAS workspace, one per handle of the forward and the backward thread (") +
                (capability >= 9.0 ? "32 MiB on Hopper and newer" : "8,519,680 B before Hopper") + ", CublasHandlePool.cpp)" +
                (te ? std::string(", and Transformer Engine's GEMM workspace (") + (capability >= 9.0 ? "32 MiB + 1 KiB" : "4 MiB") + ")"
                    : "") +
                "; inside the caching allocator, so allocator counters see it",
            Method::membudget};
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
    const std::string precisionName = c.precision == Precision::fp32 ? "FP32" : c.precision == Precision::fp16 ? "FP16" : "BF16";
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
            parameters.add(n(rates.weight) + " × P_stage" + (sn.paramShard > 1 ? " / (DP × CP)" : ""),
                           sharded(rates.weight, stageParams, sn.paramShard), rates.weight * stageParams / sn.paramShard);
            parameters.add(n(rates.weight) + " × P_experts" + (sn.expertParamShard > 1 ? " / expert DP" : ""),
                           sharded(rates.weight, expertParams, sn.expertParamShard), rates.weight * expertParams / sn.expertParamShard);
            parameters.add("P_linear (FP8 copies)", exprNumber(sn.fp8Copies), sn.fp8Copies);
        }
        switch (t.gathering) {
            case Gathering::zero3Layers:
                parameters.add("2 × " + n(rates.weight) + " × P_layer (gathered)", fill("2 × # × #", {rates.weight, sn.gatheredLayer}),
                               sn.gatheredParams);
                break;
            case Gathering::fsdp2Layers:
                if (last && t.outputGathered)
                    parameters.add(n(rates.compute) + " × (2 × P_layer + P_output) (gathered)",
                                   fill("# × (2 × # + #)", {rates.compute, sn.gatheredLayer, t.p.finalNorm + t.p.output}),
                                   sn.gatheredParams);
                else
                    parameters.add("2 × " + n(rates.compute) + " × P_layer (gathered)",
                                   fill("2 × # × #", {rates.compute, sn.gatheredLayer}), sn.gatheredParams);
                break;
            case Gathering::fsdp2Stage:
            case Gathering::autocast:
                parameters.add(
                    n(rates.compute) + " × P_stage (" + (t.gathering == Gathering::autocast ? "autocast copies" : "gathered") + ")",
                    fill("# × #", {rates.compute, stageParams + expertParams}), sn.gatheredParams);
                break;
            case Gathering::none:
                break;
        }
        const std::string weightName = rates.weight == 4 && c.precision != Precision::fp32 ? "FP32 (the master)" : precisionName;
        std::string parameterNote =
            weightName + " weights of " + n(std::round(stageParams + expertParams)) + " parameters on this GPU (" + n(stage.layers) +
            " layers" + (first ? ", the embedding" : "") +
            (last ? (c.tiedEmbeddings && c.pp > 1 ? ", the tied output copy" : (outputOnLast ? ", the output layer" : "")) : "") +
            (mtpLayers > 0 ? ", " + n(mtpLayers) + " multi-token-prediction layer" + (mtpLayers > 1 ? "s" : "") +
                                 (mtpEmbedding > 0 ? " and its embedding copy" : "")
                           : "") +
            ")" + (sn.fp8Copies > 0 ? ", plus FP8 copies of the linear weights (Transformer Engine)" : "");
        switch (t.gathering) {
            case Gathering::zero3Layers:
                parameterNote += "; sharded over DP × CP = " + n(shardGroup) + ", plus two gathered layers (current and prefetched)";
                break;
            case Gathering::fsdp2Layers:
                parameterNote +=
                    "; FSDP2 shards over DP × CP = " + n(shardGroup) + ", plus two blocks gathered in " + precisionName +
                    " (the one computing and the one prefetched)" +
                    (last && t.outputGathered ? " and the final norm and output layer, kept gathered from forward to backward" : "");
                break;
            case Gathering::fsdp2Stage:
                parameterNote += "; FSDP2 shards over DP × CP = " + n(shardGroup) +
                                 ", but under pipeline parallelism the stage stays gathered in " + precisionName +
                                 " for the whole step (torchtitan: reshard_after_forward = not pp_enabled)";
                break;
            case Gathering::autocast:
                parameterNote += "; plus autocast's " + precisionName +
                                 " copy of every weight, cached for the forward and saved by the linear layers for backward";
                break;
            case Gathering::none:
                break;
        }
        if (offloadParameters) parameterNote = "Parameters offloaded to CPU; only the two gathered layers are on the GPU";
        if (expertParams > 0)
            parameterNote += "; " + n(std::round(expertParams)) + " of them routed-expert parameters (" + n(c.experts / c.ep) +
                             " experts per EP rank), their gradients and optimizer sharded over the expert DP group of " +
                             n(expertShardGroup);

        Terms gradients;
        gradients.add(n(rates.gradient) + " × P_stage" + (sn.gradShard > 1 ? " / (DP × CP)" : ""),
                      sharded(rates.gradient, stageParams, sn.gradShard), rates.gradient * stageParams / sn.gradShard);
        gradients.add(n(rates.gradient) + " × P_experts" + (sn.expertGradShard > 1 ? " / expert DP" : ""),
                      sharded(rates.gradient, expertParams, sn.expertGradShard), rates.gradient * expertParams / sn.expertGradShard);
        if (t.gradientsFreed) gradients = Terms{};
        switch (t.gathering) {
            case Gathering::zero3Layers:
                gradients.add(n(rates.weight) + " × P_layer (reduce-scatter bucket)", fill("# × #", {rates.weight, sn.gatheredLayer}),
                              rates.weight * sn.gatheredLayer);
                break;
            case Gathering::fsdp2Layers:
                gradients.add("(" + n(rates.compute) + " + " + n(rates.reduce) + ") × P_layer (unsharded, reduce-scatter input)",
                              fill("(# + #) × #", {rates.compute, rates.reduce, sn.gatheredLayer}),
                              (rates.compute + rates.reduce) * sn.gatheredLayer);
                break;
            case Gathering::fsdp2Stage:
                gradients.add(n(rates.reduce) + " × P_stage (unsharded, accumulated) + " + n(rates.compute) + " × P_layer",
                              fill("# × # + # × #", {rates.reduce, stageParams + expertParams, rates.compute, sn.gatheredLayer}),
                              rates.reduce * (stageParams + expertParams) + rates.compute * sn.gatheredLayer);
                break;
            case Gathering::autocast:
            case Gathering::none:
                break;
        }
        if (t.ddpBuckets)
            gradients.add(n(rates.gradient) + " × P_stage (DDP buckets)", fill("# × #", {rates.gradient, stageParams + expertParams}),
                          rates.gradient * (stageParams + expertParams));
        if (t.reduceBucket > 0) gradients.add("reduce bucket", exprNumber(t.reduceBucket), t.reduceBucket);
        std::string gradientNote = std::string(rates.gradient == 2   ? (c.precision == Precision::fp16 ? "FP16" : "BF16")
                                               : rates.gradient == 4 ? (c.framework == Framework::megatron ? "FP32 (main_grad)" : "FP32")
                                                                     : "BF16 + FP32 accumulator") +
                                   " gradients";
        if (t.gradientsFreed) gradientNote = "No gradient shard at the peak: the optimizer steps in backward and frees each gradient";
        switch (t.gathering) {
            case Gathering::zero3Layers:
                gradientNote += ", sharded over DP × CP = " + n(shardGroup) + " (ZeRO-3), plus one layer's reduce-scatter bucket";
                break;
            case Gathering::fsdp2Layers:
                gradientNote += ", sharded over DP × CP = " + n(shardGroup) + " (FSDP2), plus one block's unsharded " + precisionName +
                                " gradient and its " + (rates.reduce == 4 ? "FP32" : precisionName) +
                                " reduce-scatter input (foreach_reduce)";
                break;
            case Gathering::fsdp2Stage:
                gradientNote += ", sharded over DP × CP = " + n(shardGroup) +
                                " after the step; under pipeline parallelism FSDP2 skips the reduce-scatter until the last "
                                "micro-batch, so the stage's gradients accumulate unsharded in " +
                                (rates.reduce == 4 ? "FP32" : precisionName) + " (to_accumulated_grad_if_needed)";
                break;
            default:
                if (c.zero >= 2) gradientNote += ", sharded over DP × CP = " + n(shardGroup) + " (ZeRO-2)";
                break;
        }
        if (t.ddpBuckets) gradientNote += ", and DDP's bucket copy of them (gradient_as_bucket_view = False)";
        if (t.reduceBucket > 0) gradientNote += ", and DeepSpeed's reduce bucket (reduce_bucket_size, 5e8 elements)";

        // Optimizer: master weights and states of the stage, of its experts, and (when the step is the peak)
        // the step's FP32 copy of the BF16 gradient shard.
        Terms optimizer;
        if (!offloadOptimizer) {
            const std::string states =
                rates.master > 0 ? fill("(# × # + #)", {rates.master, stageParams, sn.states}) : factor(exprNumber(sn.states));
            Terms own;
            own.add("(master × P_stage + states)" + std::string(sn.optimizerShard > 1 ? " / (DP × CP)" : ""),
                    sn.optimizerShard == 1 ? states : states + fill(" / #", {sn.optimizerShard}),
                    (rates.master * stageParams + sn.states) / sn.optimizerShard);
            own.add("(master + states) × P_experts" + std::string(sn.expertOptimizerShard > 1 ? " / expert DP" : ""),
                    sharded(rates.master + rates.statesHidden, expertParams, sn.expertOptimizerShard),
                    (rates.master + rates.statesHidden) * expertParams / sn.expertOptimizerShard);
            optimizer.add(own.formula(), own.wholeBytes(), sn.optimizer);
        }
        if (sn.stepPeaks)
            optimizer.add("4 × P_stage / (DP × CP) (step)",
                          wholeBytes(sharded(4, stageParams, sn.optimizerShard), 4 * stageParams / sn.optimizerShard), sn.stepTemporary);
        const std::string optimizerNote =
            offloadOptimizer
                ? "Offloaded to CPU memory (ZeRO-Offload)"
                : std::string(rates.master > 0                                      ? "FP32 master weights (4 B) + "
                              : rates.weight == 4 && c.precision != Precision::fp32 ? "The FP32 parameters are the master; "
                                                                                    : "No master copy; ") +
                      rates.describe + std::string(c.zero >= 1 ? ", sharded over DP × CP = " + n(shardGroup) + " (" + zeroName + ")" : "");

        // The tensor sub-ledger and the activations' terms: the same walk as sn.activations.
        const double copies = sn.copies;
        const double microbatches = sn.microbatches;
        stage.inFlightMicrobatches = microbatches;
        const StageActivations walk{stage.layers, sn.moeLayers, copies, microbatches, mtpLayers, first, last, sn.checkpointed};
        DescribeStage describe{c, x};
        forEachStageTensor(c, t, walk, describe);
        const double activations = sn.activationsDuringBackward;
        stage.phases = {{StepPhase::forwardBackward, sn.forwardBackward}, {StepPhase::optimizerStep, sn.step}};
        const bool stepPeaks = sn.stepPeaks;
        stage.peakPhase = sn.step > sn.forwardBackward ? StepPhase::optimizerStep : StepPhase::forwardBackward;
        const std::string inFlight = n(copies) + " layer-copies (" + n(stage.layers) + " layers, " + n(microbatches) + " micro-batch" +
                                     (microbatches == 1 ? "" : "es") + " in flight) on stage " + n(i) + " of " + n(stages);

        std::string loraGradientNote = gradientNote, loraOptimizerNote = optimizerNote;
        if (c.finetune != Finetune::full) {
            // LoRA / QLoRA: the frozen base and the adapters (membudgetStage), each line over what it holds.
            const double frozen = stageParams + expertParams, quantized = sn.quantizedParams;
            const std::string shard = sn.paramShard > 1 ? " / (DP × CP)" : "";
            parameters = Terms{};
            if (quantized > 0)
                parameters.add("(NF4 × P_linear + " + n(sn.frozenBytesPerParam) + " × P_rest)" + shard + " (frozen)",
                               factor(fill("# × # + # × #", {kNf4BytesPerParam, quantized, sn.frozenBytesPerParam, frozen - quantized})) +
                                   (sn.paramShard > 1 ? fill(" / #", {sn.paramShard}) : ""),
                               sn.frozenWeights);
            else
                parameters.add(n(sn.frozenBytesPerParam) + " × P_frozen" + shard, sharded(sn.frozenBytesPerParam, frozen, sn.paramShard),
                               sn.frozenWeights);
            parameters.add(n(sn.adapterBytesPerParam) + " × P_adapters" + shard,
                           sharded(sn.adapterBytesPerParam, sn.adapterParams, sn.paramShard), sn.adapterWeights);
            if (sn.gatheredParams > 0)
                parameters.add("2 × P_layer (gathered, frozen dtype)",
                               fill("2 × # × #", {quantized > 0 ? kNf4BytesPerParam : sn.frozenBytesPerParam, sn.gatheredLayer}),
                               sn.gatheredParams);
            if (sn.dequantized > 0) parameters.add("2 × W_largest (dequantised)", fill("2 × #", {sn.dequantized / 2}), sn.dequantized);
            const std::string adapterDtype = sn.adapterBytesPerParam == 4 ? "FP32" : precisionName;
            parameterNote = (quantized > 0 ? "Frozen base: the blocks' " + n(std::round(quantized)) +
                                                 " linear weights in NF4 (4 bits + double-quantised block constants, 4.127 bits; "
                                                 "bitsandbytes), the other " +
                                                 n(std::round(frozen - quantized)) + " parameters in " + precisionName +
                                                 ", one matrix at a time dequantised to BF16 for its GEMM"
                                           : "Frozen base: " + n(std::round(frozen)) + " parameters in " + precisionName) +
                            "; LoRA adapters (rank " + n(c.loraRank) + " on " + c.loraTargets + "): " + n(std::round(sn.adapterParams)) +
                            " parameters in " + adapterDtype + (sn.paramShard > 1 ? "; sharded over DP × CP = " + n(shardGroup) : "");
            gradients = Terms{};
            if (!t.gradientsFreed)
                gradients.add(n(sn.adapterBytesPerParam) + " × P_adapters" + (sn.gradShard > 1 ? " / (DP × CP)" : ""),
                              sharded(sn.adapterBytesPerParam, sn.adapterParams, sn.gradShard),
                              sn.adapterBytesPerParam * sn.adapterParams / sn.gradShard);
            if (sn.transientGradients > 0)
                gradients.add(n(sn.adapterBytesPerParam) + " × P_adapters (DDP buckets)",
                              fill("# × #", {sn.adapterBytesPerParam, sn.adapterParams}), sn.transientGradients);
            loraGradientNote = "Gradients of the adapters only (" + adapterDtype + "); the frozen base has none";
            optimizer = Terms{};
            if (!offloadOptimizer)
                optimizer.add("states × P_adapters" + std::string(sn.optimizerShard > 1 ? " / (DP × CP)" : ""),
                              sharded(sn.adapterStatesPerParam, sn.adapterParams, sn.optimizerShard), sn.optimizer);
            loraOptimizerNote = "Optimizer states of the adapters only (" + n(sn.adapterStatesPerParam) +
                                " B per adapter parameter: the states take the adapters' dtype, zeros_like; no master copy)";
        }
        stage.lines.push_back({LineId::parameters, "Parameters", parameters.formula(), parameters.wholeBytes(), sn.parameters,
                               parameterNote, Method::membudget});
        stage.lines.push_back({LineId::gradients, "Gradients", gradients.formula(), gradients.wholeBytes(), sn.gradients, loraGradientNote,
                               Method::membudget});
        Line optimizerLine{LineId::optimizer,  "Optimizer",       optimizer.formula(), optimizer.text(),
                           sn.optimizerAtPeak, loraOptimizerNote, Method::membudget};
        Line activationLine{
            LineId::activations,
            "Activations",
            "Σ saved tensors of a layer × layer-copies in flight + stage extras",
            stepPeaks ? "0" : describe.expression(),
            sn.activations,
            std::string(c.ckpt == Checkpointing::full        ? "Full recomputation: layer inputs kept, one layer rebuilt in backward"
                        : c.ckpt == Checkpointing::selective ? "Selective recomputation: attention core rebuilt in backward"
                                                             : "No recomputation") +
                "; " + (x.flash ? "FlashAttention (no s × s scores)" : "eager attention (s × s probabilities kept)") + "; " + inFlight +
                "; see the tensor sub-ledger",
            Method::membudget};
        if (stepPeaks) {
            optimizerLine.note += "; at its peak, the optimizer step, plus an FP32 copy of the BF16 gradient shard";
            activationLine.formula = "0 (freed before the optimizer step)";
            activationLine.note = "Freed before the optimizer step, which is this stage's peak (" + n(activations) +
                                  " bytes during forward/backward: " + inFlight + ")";
        }
        stage.lines.push_back(std::move(optimizerLine));
        stage.lines.push_back(std::move(activationLine));
        // The allocator at this stage's peak: the static memory as the buffers it is allocated in, every saved
        // tensor of the activations, the workspaces; FSDP2's all-gather outputs are allocated on their own stream,
        // whose pool keeps the segments of the two blocks in flight after they are copied out (FSDP2
        // _fsdp_collectives.py foreach_all_gather: all_gather_copy_in_stream). Fragmentation across the step's
        // phases is not modelled.
        {
            Reserve r;
            r.add(sn.parameters - sn.gatheredParams, 1);
            r.add(sn.gatheredParams, 1);
            r.add(sn.gradients, 1);
            r.add(sn.optimizerAtPeak, 1);
            if (!stepPeaks)
                for (const Tensor& tensor : describe.tensors) r.add(tensor.bytesPerCopy, tensor.copies);
            const double workspace = workspaceBytes(c);
            r.add(workspace / 2, 2);
            const bool fsdp2 = t.gathering == Gathering::fsdp2Layers || t.gathering == Gathering::fsdp2Stage;
            Reserve allGatherPool;
            if (fsdp2) allGatherPool.add(rates.compute * sn.gatheredLayer, 2);
            stage.reservedBytes = r.reserved(c.expandableSegments) + allGatherPool.reserved(c.expandableSegments);
        }
        stage.tensors = std::move(describe.tensors);
        out.stages.push_back(std::move(stage));
    }
    if (offloadOptimizer || offloadParameters) {
        // Host memory per node for what was offloaded: the optimizer (and parameters) of every GPU in it, each
        // GPU's shard as large as the largest stage's. ZeRO-Offload (Ren et al. 2021 §4) keeps, per GPU's shard,
        // the optimizer states, the FP32 master weights and the FP32 gradients the CPU step reads;
        // ZeRO-Infinity / FSDP offload adds the parameters.
        auto cpuLine = [&](LineId id, std::string label, std::string rateName, double rate, std::string note) {
            const double raw = c.gpusPerNode * cpuShardParams * rate;
            out.cpuLines.push_back({id, std::move(label), "GPUs per node × P_shard × " + rateName,
                                    wholeBytes(fill("# × # × #", {c.gpusPerNode, cpuShardParams, rate}), raw), std::ceil(raw),
                                    std::move(note), Method::membudget});
        };
        cpuLine(LineId::cpuOptimizer, "Optimizer states", "states", rates.statesHidden, rates.describe);
        cpuLine(LineId::cpuMaster, "FP32 master weights", "4", rates.master, "the weights the CPU optimizer updates");
        cpuLine(LineId::cpuGradients, "FP32 gradients", "4", 4, "gradients copied to the CPU for its optimizer step (ZeRO-Offload)");
        if (offloadParameters)
            cpuLine(LineId::cpuParameters, "Parameters", "weight bytes", rates.weight,
                    "parameters offloaded with ZeRO-3 (ZeRO-Infinity, FSDP CPU offload)");
        for (const auto& line : out.cpuLines) out.cpuBytesPerNode += line.bytes;
    }
    if (c.precision == Precision::fp16 && !c.masterWeights)
        out.warnings.push_back(
            {"master_weights", "FP16 training without FP32 master weights loses small updates; mixed precision keeps them"});
    if (c.mtpLayers > 0 && c.pp > 1)
        out.warnings.push_back({"mtp_layers",
                                "the multi-token-prediction layers all sit on the last stage; Megatron-LM lets you move "
                                "layers off it (last_stage_layers) to balance"});
    if (c.offload == Offload::all && c.zero < 3)
        out.warnings.push_back({"offload", "offload = all (parameters too) needs ZeRO-3 (zero = 3); only the optimizer is offloaded"});
    return out;
}

std::string membudgetDifference(LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    return staticLine ? "every parameter tensor of the stage: the embedding on the first stage, the output layer on the last, "
                        "KV heads replicated when TP > kv_heads, norms not split"
                      : "every saved tensor of the actual layer: GQA's smaller K and V, SwiGLU's three FFN tensors, "
                        "FlashAttention or eager scores, and the logits on the last stage";
}

}  // namespace membudget::detail
