// The step-time estimate (docs/planner.md, "Step time"). Per micro-batch on each pipeline stage: the GEMMs at the
// GPU's achievable matmul rate, the attention core at FlashAttention's, the memory-bound operations at HBM
// bandwidth, and the tensor-, context- and expert-parallel communication at the link bandwidth of the group;
// the 1F1B schedule then runs m micro-batches plus (PP − 1)/v slots of bubble on the slowest stage, and the
// data-parallel communication and the optimizer step follow, less what the framework overlaps with backward.
#include "membudget/time/steptime.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/model/presets.hpp"
#include "memory/training.hpp"
#include "model/rank.hpp"
#include "time/collectives.hpp"
#include "time/step_constants.hpp"
#include "time/step_layers.hpp"

namespace membudget {

namespace {

// The constants of the model, each stated once with its source (docs/planner.md repeats them); the attention
// kernel's efficiency is in time/step_constants.cpp, one layer's in time/step_layers.cpp.

using detail::LayerTime;
using detail::Recompute;
using detail::StepModel;
using detail::waveEfficiency;

// Bytes the loss moves per logit. Fused (Megatron-LM's vocab-parallel cross entropy, torch.compile): the BF16 logits
// read, the FP32 softmax kept and read back, the BF16 gradient written: 2 + 4 + 4 + 2. Eager (torchtitan's
// cross_entropy(pred.float(), labels)): the upcast (read 2, write 4), log_softmax (read 4, write 4), and backward
// log_softmax's gradient (read 4 + 4, write 4) and the downcast (read 4, write 2): 36.
double lossBytesPerLogit(const Config& c) { return c.compile || c.framework == Framework::megatron ? 12 : 36; }

// FSDP2's copies around each collective, per parameter of the stage and micro-batch (torch.distributed.fsdp
// _fsdp_collectives.py): all-gather copy-in and copy-out of the BF16 parameters (2 + 2 B, forward and again in
// backward), and the trained gradients' reduce-scatter copy-in with its cast to the reduce dtype (read 2, write and
// read 4, 4).
constexpr double kFsdpGatherCopyBytesPerParam = 2 * (2 + 2);
constexpr double kFsdpReduceCopyBytesPerParam = 2 + 4 + 4 + 4;

// Bytes an Adam-family step moves per parameter of the shard: it reads the BF16 parameter, the gradient and the
// FP32 master, m and v, and writes all but the gradient back (Megatron-LM's and PyTorch's fused Adam).
double optimizerBytesPerParam(const Config& c) {
    if (c.optimizer == Optimizer::sgd) return 2 + 4 + 4 + 2 + 4;  // no moments
    if (c.optimizer == Optimizer::adamw8bit) return 2 + 4 + 4 + 2 + 2 + 2 + 4;
    return 2 + 4 + 4 + 4 + 4 + 2 + 4 + 4 + 4;
}

// ZeRO-Offload, assumptions stated as round figures: a PCIe Gen4 x16 link carries about 25 GB/s per direction
// (32 GB/s nominal, Bekman, network/README.md); a two-socket host's memory bandwidth (about 200 GB/s per socket of
// 8 DDR5 channels) shared by 8 GPUs gives CPU Adam about 50 GB/s per GPU.
constexpr double kPcieBytesPerSecond = 25e9;
constexpr double kHostBytesPerSecondPerGpu = 50e9;

// One stage's parts per micro-batch, and its MoE layers.
struct StageTime {
    std::array<double, kStepParts> parts;
    double moeLayers;
};

// Decides one stage's parts per micro-batch: its layers' compute, recomputation and communication, the output layer
// and the loss on the last stage, and the pipeline's sends.
StageTime stageTime(const Config& c, const StepModel& m, const detail::StageSpan& stageSpan) {
    const detail::Dims& x = m.x;
    const LayerTime &dense = m.dense, &moe = m.moe;
    const Recompute &rc = m.rc, &rcMoe = m.rcMoe;
    const double tokens = m.tokens, sms = m.sms;
    const double stages = c.pp;
    const double stage = stageSpan.index, from = stageSpan.firstLayer, layers = stageSpan.layers;
    const double moeLayers = detail::moeLayersIn(c, from, layers), denseLayers = layers - moeLayers;
    const double recomputed = c.ckpt == Checkpointing::full ? detail::checkpointedLayers(c, from, layers) : layers;
    const double recomputedMoe = layers > 0 ? recomputed * moeLayers / layers : 0, recomputedDense = recomputed - recomputedMoe;
    std::array<double, kStepParts> p{};
    auto at = [&p](StepPart part) -> double& { return p[static_cast<size_t>(part)]; };
    at(StepPart::matmuls) = denseLayers * dense.matmul + moeLayers * moe.matmul;
    at(StepPart::attention) = layers * dense.attention;
    at(StepPart::memoryBound) = denseLayers * dense.memory + moeLayers * moe.memory;
    at(StepPart::recomputation) =
        recomputedDense * (rc.matmul * dense.fwdMatmul + rc.attention * dense.fwdAttention + rc.memory * dense.fwdMemory) +
        recomputedMoe * (rcMoe.matmul * moe.fwdMatmul + rcMoe.attention * moe.fwdAttention + rcMoe.memory * moe.fwdMemory);
    const double tpCollectives = 4 + (c.ckpt == Checkpointing::full ? 2 * recomputed / std::max(layers, 1.0) : 0);
    at(StepPart::tensorParallel) = layers * tpCollectives * m.tpAllReduce;
    // Transformer Engine passes K/V chunks around the ring while each chunk's attention runs; torchtitan's default
    // (context_parallel_rotate_method = "allgather") gathers every K/V shard "after the first sub-SDPA
    // computation" (config_manager.py), so only that first of CP sub-attentions hides it.
    const double cpHidden = c.framework == Framework::torchtitan ? dense.attention / c.cp : dense.attention;
    at(StepPart::contextParallel) = layers * std::max(0.0, m.cpExchange - cpHidden);
    // Dispatch and combine in forward and their gradients in backward; full recomputation runs the forward's
    // dispatch and combine again (the checkpointed layer's forward includes them; torchtitan's op-level SAC saves
    // the all-to-all's output, _save_list, so it does not).
    // Megatron-LM's selective moe module checkpoints dispatch and combine with the experts: they run again too.
    const double recomputedMoeForward =
        c.ckpt == Checkpointing::full || (c.ckpt == Checkpointing::selective && x.recompute.moe) ? recomputedMoe : 0;
    // A Megatron-LM MoE layer's forward (and its rerun under full recomputation) waits on the host past its sync.
    at(StepPart::expertParallel) = moeLayers * m.epPerMoeLayer + 2 * recomputedMoeForward * m.epAllToAll +
                                   (moeLayers + (c.ckpt == Checkpointing::full ? recomputedMoe : 0)) * m.moeHostPaced;
    if (stage == stages - 1) {
        // The output layer (BF16 under FP8 recipes) and the loss over the vocabulary shard.
        const double logits = tokens * x.V / x.t;
        const double outputFlops = 2 * tokens * x.h * x.V / x.t;
        at(StepPart::matmuls) +=
            outputFlops / m.bf16Rate *
            (1 / waveEfficiency(tokens, x.V / x.t, sms) + 1 / waveEfficiency(tokens, x.h, sms) + 1 / waveEfficiency(x.h, x.V / x.t, sms));
        at(StepPart::memoryBound) += lossBytesPerLogit(c) * logits / m.hbm;
    }
    // PP: the stage's activation [b, s/CP, h] (split by SP) sent forward and its gradient back, once per model chunk.
    // Each send is one message with its latency (collectives.hpp).
    if (c.pp > 1) {
        const double span = c.tp * c.cp * (c.dp > 1 ? c.dp : 1) * 2;
        at(StepPart::pipelineTransfer) =
            2 * c.vpp * detail::ncclHopSeconds(tokens * x.h * 2 / x.spDivisor, m.links.of(span, m.perNode), span > m.perNode);
    }
    return {p, moeLayers};
}

// The stage that sets the pace: its seconds per micro-batch, its parts and its parameters on one GPU.
struct SlowestStage {
    double seconds = -1;
    std::array<double, kStepParts> parts{};
    double params = 0, expertParams = 0;
};

// Decides which stage is slowest per micro-batch.
SlowestStage slowestStage(const Config& c, const StepModel& m, std::span<const detail::StageSpan> stageSpans) {
    // Each stage per micro-batch; the slowest sets the pace.
    SlowestStage slowest;
    // Stages of the same kind as one already computed take the same time: only those of stepTimeStages.
    for (const detail::StageSpan& stageSpan : stageSpans) {
        const StageTime stage = stageTime(c, m, stageSpan);
        double total = 0;
        for (double v : stage.parts) total += v;
        if (total > slowest.seconds) {
            slowest.seconds = total;
            slowest.parts = stage.parts;
            slowest.params = detail::stageParameterCount(c, stageSpan.index, stageSpan.firstLayer, stageSpan.layers).perGpu;
            slowest.expertParams = stage.moeLayers * m.rank.moeLayerExperts;
        }
    }
    return slowest;
}

// The data-parallel groups of the slowest stage's parameters, and the share of them trained.
struct DataParallelGroups {
    double D, expertD, denseParams, trainedShare, trained;
};

// Decides over which groups the slowest stage's dense and expert parameters are reduced, gathered and sharded.
DataParallelGroups dataParallelGroups(const Config& c, const StepModel& m, const SlowestStage& slowest) {
    DataParallelGroups g;
    // Data parallel over DP × CP ranks (CP ranks hold the same weights). The trained parameters of this GPU's stage:
    // gradients reduced in the framework's reduce dtype (FSDP2's default MixedPrecisionPolicy reduces in FP32 in
    // torchtitan; Megatron-LM, DeepSpeed and torchtune in BF16), parameters gathered in BF16.
    g.D = c.dp * c.cp;
    // The routed experts' own data-parallel group: the GPUs of a stage, TP × CP × DP, over ETP × EP (Megatron-LM's
    // expert data-parallel group, parallel_state.py; torchtitan's dp_shard_mod_ep mesh): their gradients are reduced,
    // and under FSDP their weights gathered, over it, and the distributed optimizer shards them over it.
    g.expertD = c.experts != 0 ? std::max(1.0, c.tp * c.cp * c.dp / (detail::expertTensorParallel(c) * c.ep)) : g.D;
    g.denseParams = slowest.params - slowest.expertParams;
    // LoRA: only the adapters are trained and reduced, a rounding error next to the step; FSDP still gathers the
    // frozen base (QLoRA's in NF4: half a byte per weight).
    g.trainedShare = m.frozenBase ? 0 : 1;
    g.trained = g.trainedShare * slowest.params;
    return g;
}

// Decides the data-parallel communication that shows: the framework's gathers and reductions less what its
// compute hides, and FSDP2's copies around them.
void dataParallelPart(const Config& c, const StepModel& m, const SlowestStage& slowest, const DataParallelGroups& g,
                      double computeOfMicrobatch, StepTime& out) {
    auto part = [&out](StepPart p) -> double& { return out.partSeconds[static_cast<size_t>(p)]; };
    const double D = g.D, expertD = g.expertD, trainedShare = g.trainedShare;
    const double microbatches = c.microbatches;
    const double gatherBytes = c.finetune == Finetune::qlora ? 0.5 : 2;
    const double reduceBytes = c.framework == Framework::torchtitan || (c.framework == Framework::hfAccelerate && c.masterWeights) ? 4 : 2;
    const double dpBandwidth = m.links.of(c.tp * c.cp * D, m.perNode);
    // A ring all-gather or reduce-scatter of bytesPerParam over each group: the dense parameters over DP × CP, the
    // experts over their own group.
    auto ringOfStage = [&](double bytesPerParam, double share) {
        return detail::ringGather(share * g.denseParams * bytesPerParam, D) +
               detail::ringGather(share * slowest.expertParams * bytesPerParam, expertD);
    };
    double dpSeconds = 0, overlappable = 0;
    if ((D > 1 || expertD > 1) && slowest.params > 0) {
        if (m.gathering == detail::Gathering::fsdp2Stage) {
            // torchtitan under PP: reshard_after_forward = not pp_enabled and no gradient sync until the last
            // micro-batch (the ledger's fsdp2Stage): one all-gather and one reduce-scatter per step, prefetched and
            // reduced behind a micro-batch's compute.
            dpSeconds = (ringOfStage(gatherBytes, 1) + ringOfStage(reduceBytes, trainedShare)) / dpBandwidth;
            overlappable = computeOfMicrobatch;
        } else if (c.zero >= 3) {
            // ZeRO-3 / FSDP: every micro-batch gathers the parameters for forward and again for backward and
            // reduce-scatters the gradients (ZeRO §7.2.3: 1.5× the data-parallel volume), prefetched a layer ahead
            // and hidden behind that micro-batch's compute.
            const double perMicrobatch = (ringOfStage(gatherBytes, 1) * 2 + ringOfStage(reduceBytes, trainedShare)) / dpBandwidth;
            dpSeconds = microbatches * perMicrobatch;
            overlappable = microbatches * computeOfMicrobatch;
        } else {
            // DDP all-reduce, or the distributed optimizer's reduce-scatter of gradients and all-gather of parameters
            // (ZeRO §7.1: the same volume), once per step.
            const double gradients = ringOfStage(reduceBytes, trainedShare) * (c.zero >= 1 ? 1 : 2);
            const double gather = c.zero >= 1 ? ringOfStage(2, trainedShare) : 0;
            dpSeconds = (gradients + gather) / dpBandwidth;
            // PyTorch DDP, FSDP and DeepSpeed reduce gradient buckets while backward runs (the last micro-batch's, two
            // thirds of its compute); Megatron-LM does so only with --overlap-grad-reduce, off by default. The
            // parameter all-gather after the step is hidden only by Megatron-LM's --overlap-param-gather, behind the
            // next step's first forward (a third of a micro-batch's compute; distributed_data_parallel.py dispatches
            // each bucket's gather before the forward pre-hook of its first module).
            const bool reduceHidden = c.framework != Framework::megatron || c.overlapGradReduce;
            overlappable = (reduceHidden ? std::min(gradients / dpBandwidth, computeOfMicrobatch * 2 / 3) : 0) +
                           (c.overlapParamGather ? std::min(gather / dpBandwidth, computeOfMicrobatch / 3) : 0);
        }
    }
    part(StepPart::dataParallel) = std::max(0.0, dpSeconds - overlappable);
    // FSDP2's copy-in and copy-out around its collectives move the stage's parameters through HBM every micro-batch
    // (once per step when the stage stays gathered under torchtitan's PP).
    if (D > 1 && (m.gathering == detail::Gathering::fsdp2Layers || m.gathering == detail::Gathering::fsdp2Stage))
        part(StepPart::memoryBound) += (m.gathering == detail::Gathering::fsdp2Stage ? 1 : microbatches) *
                                       (slowest.params * kFsdpGatherCopyBytesPerParam + g.trained * kFsdpReduceCopyBytesPerParam) / m.hbm;
}

// Decides the optimizer step's seconds: on the GPU through HBM, or offloaded over PCIe and host memory.
void optimizerPart(const Config& c, const StepModel& m, const SlowestStage& slowest, const DataParallelGroups& g, StepTime& out) {
    auto part = [&out](StepPart p) -> double& { return out.partSeconds[static_cast<size_t>(p)]; };
    // The optimizer step over this GPU's shard of the trained parameters (LoRA: the adapters, a rounding error).
    const double shard = g.trainedShare * (c.zero >= 1 ? g.denseParams / g.D + slowest.expertParams / g.expertD : slowest.params);
    // ZeRO-Offload steps on the CPU: the FP32 gradients go down and the BF16 parameters come back over PCIe, and CPU
    // Adam streams the states through host memory (docs/planner.md: PCIe and host bandwidth per GPU as stated there).
    part(StepPart::optimizer) = c.offload != Offload::none
                                    ? shard * (4 + 2) / kPcieBytesPerSecond + shard * optimizerBytesPerParam(c) / kHostBytesPerSecondPerGpu
                                    : shard * optimizerBytesPerParam(c) / m.hbm;
    // Parameters offloaded too (ZeRO-Infinity's offload_param, FSDP's CPUOffload): every micro-batch fetches the BF16
    // parameter shard over PCIe for its forward and again for its backward gathers, and sends the BF16 gradient shard
    // back, none of it hidden behind compute here (an upper bound on what prefetching overlaps).
    if (c.offload == Offload::all) part(StepPart::optimizer) += c.microbatches * shard * (2 + 2 + 2) / kPcieBytesPerSecond;
}

// Decides the step's totals from its parts: the step time, the throughput, MFU and the run's steps, hours and cost.
StepTime stepTotals(const Config& c, const detail::StepConstants& constants, StepTime out) {
    const double m = c.microbatches;
    double step = 0;
    for (double v : out.partSeconds) step += v;
    out.stepSeconds = step;
    out.tokensPerStep = c.dp * c.mb * m * c.seq;
    const double gpus = worldSize(c);
    out.tokensPerSecond = step > 0 ? out.tokensPerStep / step : 0;
    out.tokensPerSecondPerGpu = step > 0 ? out.tokensPerStep / step / gpus : 0;
    out.modelFlopsPerToken = constants.modelFlopsPerToken;
    out.mfu = out.tokensPerSecondPerGpu * out.modelFlopsPerToken / (c.peakTflops * 1e12);
    out.estimated = std::isfinite(step) && step > 0;
    if (!out.estimated) return StepTime{};
    if (c.trainTokens > 0) {
        // A run is whole optimizer steps: the last one trains on a full global batch too.
        out.runTokens = c.trainTokens;
        out.runSteps = std::ceil(c.trainTokens / out.tokensPerStep);
        out.runSeconds = out.runSteps * step;
        out.runGpuHours = gpus * out.runSeconds / 3600;
        out.runCostUsd = out.runGpuHours * c.gpuHourUsd;
    }
    return out;
}
}  // namespace

StepTime estimateStepTime(const Config& c) noexcept {
    // The few stages of distinct kinds, on the stack; a pipeline of more kinds than that, one per stage.
    std::array<detail::StageSpan, 16> few;
    const size_t count = detail::stepTimeStages(c, few);
    if (count <= few.size()) return detail::estimateStepBand(c, detail::stepBandConstants(c), std::span(few.data(), count));
    try {
        std::vector<detail::StageSpan> all(count);
        detail::stepTimeStages(c, all);
        return detail::estimateStepBand(c, detail::stepBandConstants(c), all);
    } catch (...) {
        return StepTime{};  // no memory for the stages: no estimate
    }
}

StepTime detail::estimateStepTime(const Config& c, const StepConstants& constants, std::span<const StageSpan> stageSpans) noexcept {
    StepTime out;
    if (c.mode != Mode::training || !(c.peakTflops > 0) || !(c.hbmTbps > 0) || !(c.nvlinkGbps > 0) || !(c.networkGbps > 0) ||
        !(c.matmulEfficiency > 0))
        return out;
    StepModel model;  // every field set by stepModel
    stepModel(c, constants, model);
    const SlowestStage slowest = slowestStage(c, model, stageSpans);
    const std::array<double, kStepParts>& stageParts = slowest.parts;

    // The 1F1B schedule: m micro-batches, plus (PP − 1)/v slots in which the slowest stage waits (Narayanan et al.
    // 2021 §2.2: bubble (p − 1)/(m·v + p − 1) of the step).
    const double m = c.microbatches;
    const double bubbleSlots = (c.pp - 1) / c.vpp;
    out.bubbleFraction = pipelineBubbleFraction(c.pp, m, c.vpp);
    for (size_t i = 0; i < kStepParts; ++i) out.partSeconds[i] = stageParts[i] * m;
    out.partSeconds[static_cast<size_t>(StepPart::pipelineBubble)] = slowest.seconds * bubbleSlots;
    const double computeOfMicrobatch =
        stageParts[static_cast<size_t>(StepPart::matmuls)] + stageParts[static_cast<size_t>(StepPart::attention)] +
        stageParts[static_cast<size_t>(StepPart::memoryBound)] + stageParts[static_cast<size_t>(StepPart::recomputation)];

    const DataParallelGroups groups = dataParallelGroups(c, model, slowest);
    dataParallelPart(c, model, slowest, groups, computeOfMicrobatch, out);
    optimizerPart(c, model, slowest, groups, out);
    return stepTotals(c, constants, out);
}

StepTime detail::estimateStepBand(const Config& c, const StepBandConstants& constants, std::span<const StageSpan> stages) noexcept {
    const StepTime value = estimateStepTime(c, constants.value, stages);
    if (!value.estimated) return value;
    const double fast = estimateStepTime(c, constants.fast, stages).stepSeconds;
    const double slow = estimateStepTime(c, constants.slow, stages).stepSeconds;
    const double low = std::min(fast, value.stepSeconds), high = std::max(slow, value.stepSeconds);
    StepTime out = value;
    const double scale = (low + high) / 2 / value.stepSeconds;
    for (double& part : out.partSeconds) part *= scale;
    out = stepTotals(c, constants.value, out);
    if (!out.estimated) return out;
    const double gpus = worldSize(c);
    out.stepSecondsLow = low;
    out.stepSecondsHigh = high;
    out.tokensPerSecondPerGpuLow = out.tokensPerStep / high / gpus;
    out.tokensPerSecondPerGpuHigh = out.tokensPerStep / low / gpus;
    out.mfuLow = out.mfu * out.stepSeconds / high;
    out.mfuHigh = out.mfu * out.stepSeconds / low;
    out.runSecondsLow = out.runSteps * low;
    out.runSecondsHigh = out.runSteps * high;
    out.runGpuHoursLow = gpus * out.runSecondsLow / 3600;
    out.runGpuHoursHigh = gpus * out.runSecondsHigh / 3600;
    out.runCostUsdLow = out.runGpuHoursLow * c.gpuHourUsd;
    out.runCostUsdHigh = out.runGpuHoursHigh * c.gpuHourUsd;
    return out;
}

}  // namespace membudget
