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
#include "memory/tensors.hpp"
#include "memory/training.hpp"
#include "model/rank.hpp"
#include "time/collectives.hpp"
#include "time/moe_time.hpp"
#include "time/rates.hpp"
#include "time/step_constants.hpp"

namespace membudget {

namespace {

// The constants of the model, each stated once with its source (docs/planner.md repeats them); the attention
// kernel's efficiency is in time/step_constants.cpp.

// Bytes the pointwise operations of one layer move through HBM per token, forward and backward, per element of
// each width (h: hidden; qk: the Q and K widths RoPE rotates; f: the FFN width on this rank). Eager PyTorch
// (torchtitan's and torchtune's Llama without torch.compile) runs each op as its own kernel:
//   RMSNorm: x.float(), pow(2), mean, rsqrt, mul, type_as, * weight: about 36 B per element forward and twice that
//     in backward, 108 B, twice per layer; LayerNorm is one fused kernel (torch.native_layer_norm): 10 B;
//   RoPE on the complex view: float(), complex mul, view_as_real, type_as: about 20 B forward, 40 B with backward
//     (none with learned absolute positions);
//   SwiGLU: silu(w1·x) * (w3·x): 10 B forward, 30 B with backward; GeLU, one kernel each way: 4 + 6 B;
//   two residual adds: 6 B forward, 12 B with backward each (24 B in an FP32 residual stream under autocast).
// Fused kernels (torch.compile's inductor, Megatron-LM's fused norm, RoPE and bias-SwiGLU/GeLU, Transformer
// Engine) read each input and write each output once per pass: norm 10 B, RoPE 8 B, activation 16 B (GeLU 10 B),
// residual 6 B.
struct PointwiseBytes {
    double perHidden, perRotated, perFfn;
};
PointwiseBytes pointwiseBytes(const Config& c) {
    const bool fused = c.compile || c.framework == Framework::megatron;
    const bool rope = c.posEmb == 0;
    // Under autocast with FP32 parameters (accelerate and Composer's mixed precision) the residual stream stays FP32:
    // the residual adds move 4-byte elements (24 B), and a LayerNorm casts its FP32 input down and its gradient back
    // up around the fused kernel (22 B).
    const bool autocast = c.framework == Framework::hfAccelerate && c.precision != Precision::fp32 && c.masterWeights && !fused;
    const double norm = fused ? 10 : c.norm == Norm::rmsnorm ? 108 : autocast ? 22 : 10;
    const double residual = fused ? 6 : autocast ? 24 : 12;
    const double activation = c.gatedFfn ? (fused ? 16 : 30) : 10;
    return {2 * norm + 2 * residual, rope ? (fused ? 8.0 : 40.0) : 0.0, activation};
}

using detail::kLinkEfficiency;  // time/rates.hpp

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

// Megatron-LM's fused bias-dropout-add after attention and after the MLP, with dropout: it writes a 1-byte mask and
// reads it in backward, beside the 2-byte input and output it moves anyway: about 14 B per hidden element each.
constexpr double kDropoutBytesPerHidden = 2 * 14;

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

// Tile and wave quantization (NVIDIA, Deep Learning Performance Documentation, "Matrix Multiplication Background
// User's Guide": an m × n output is computed in 256 × 128 tiles, one per SM at a time, so a GEMM takes whole waves
// of tiles over the SMs, the last one partly idle). The maximum achievable matmul rate is its best shape's, which
// fills its waves; a GEMM of another shape reaches that rate times the share of its waves' tile area it uses.
// The SMs are the GPU preset's (GpuPreset::sms; 0 where no count is published: no quantization applied).
double waveEfficiency(double m, double n, double sms) {
    if (sms <= 0 || m <= 0 || n <= 0) return 1;
    constexpr double kTileM = 256, kTileN = 128;
    const double tiles = std::ceil(m / kTileM) * std::ceil(n / kTileN);
    const double waves = std::ceil(tiles / sms);
    return std::min(1.0, m * n / (waves * sms * kTileM * kTileN));
}

// Recomputed forward work of one stage, as a fraction of each forward part. full: every checkpointed layer runs
// its forward again; selective: the attention core only (Korthikanti et al. 2022 §5); op (torchtitan's op-level
// SAC): every other matmul and the pointwise operations between them (torchtitan _save_list keeps the rest).
struct Recompute {
    double matmul = 0, attention = 0, memory = 0;
};

}  // namespace

StepTime estimateStepTime(const Config& c) noexcept {
    // The few stages of distinct kinds, on the stack; a pipeline of more kinds than that, one per stage.
    std::array<detail::StageSpan, 16> few;
    const size_t count = detail::stepTimeStages(c, few);
    if (count <= few.size()) return detail::estimateStepTime(c, detail::stepConstants(c), std::span(few.data(), count));
    try {
        std::vector<detail::StageSpan> all(count);
        detail::stepTimeStages(c, all);
        return detail::estimateStepTime(c, detail::stepConstants(c), all);
    } catch (...) {
        return StepTime{};  // no memory for the stages: no estimate
    }
}

StepTime detail::estimateStepTime(const Config& c, const StepConstants& constants, std::span<const StageSpan> stageSpans) noexcept {
    StepTime out;
    if (c.mode != Mode::training || !(c.peakTflops > 0) || !(c.hbmTbps > 0) || !(c.nvlinkGbps > 0) || !(c.networkGbps > 0) ||
        !(c.matmulEfficiency > 0))
        return out;
    // What the step needs of the static model: the dimensions, the rank's weights and how FSDP gathers them (not the
    // whole of membudgetTraining, whose saved-tensor census the planner has already run for the row's memory).
    const detail::Dims x = detail::dimsOf(c);
    const detail::RankParams rank = detail::rankParams(c, x, !c.tiedEmbeddings || c.pp > 1);
    const detail::Gathering gathering = detail::gatheringOf(c);
    const GpuPreset* gpu = constants.gpu;  // the attention kernel's generation and the SM count
    // A power cap below the rated power lowers the clocks until the draw fits: the tensor-core work slows in
    // proportion (capping an H100 from 700 W to 600 W, a 14% cut, "typically loses 10 to 15% step throughput",
    // factryze.ai Scale Atlas, "Power capping"); the memory-bound work keeps HBM's clock.
    const double clockScale = c.powerLimitW > 0 && c.tdpW > 0 ? std::min(1.0, c.powerLimitW / c.tdpW) : 1.0;
    const double bf16Rate = c.peakTflops * 1e12 * c.matmulEfficiency * clockScale;
    // FP8 runs the transformer blocks' linear layers at the FP8 rate (the output layer stays BF16 in TE's and torchao's
    // recipes); FP32 runs on TF32 tensor cores at half the BF16 rate.
    const double fp8Efficiency = c.fp8MatmulEfficiency > 0 ? c.fp8MatmulEfficiency : c.matmulEfficiency;
    const double linearRate = c.precision == Precision::fp8 && c.fp8Tflops > 0 ? c.fp8Tflops * 1e12 * fp8Efficiency * clockScale
                              : c.precision == Precision::fp32                 ? bf16Rate / 2
                                                                               : bf16Rate;
    const double attentionRate =
        c.peakTflops * 1e12 * constants.attentionEfficiency * clockScale * (c.precision == Precision::fp32 ? 0.5 : 1);
    const double hbm = c.hbmTbps * 1e12;
    const detail::Bandwidths links{c.nvlinkGbps * 1e9 * kLinkEfficiency, c.networkGbps * 1e9 * kLinkEfficiency};
    const double perNode = c.gpusPerNode;

    const double tokens = x.b * x.sRank;  // one micro-batch's tokens on one GPU of the TP group
    // A MoE layer routes the tokens its rank holds: under sequence parallelism the TP group's sequence shard, s/TP
    // (Megatron-LM's MoELayer.forward requires SP with TP in training and takes [s/TP, b, h]; the all-to-all
    // dispatcher sends those tokens, gathering over the expert-TP group only after it; torchtitan's
    // ReordererSequenceParallel splits the tokens over TP the same way).
    const double routedTokens = tokens / x.spDivisor;
    const bool frozenBase = c.finetune != Finetune::full;
    // Backward of a linear: the input gradient and the weight gradient (2× forward); a frozen base computes only the
    // input gradient (1×).
    const double backwardMatmul = frozenBase ? 1 : 2;
    // FlashAttention-2's backward runs five matmuls to the forward's two (Dao 2023 §4.1).
    const double backwardAttention = 2.5;
    const PointwiseBytes pointwise = pointwiseBytes(c);
    const double hiddenBytes = pointwise.perHidden + (c.dropout ? kDropoutBytesPerHidden : 0);

    // One layer of each kind on one GPU, per micro-batch: forward matmul FLOPs (the TP shard's linears; a MoE layer's
    // routed experts are the top-k a token passes through, spread over the expert-parallel group like the TP shard).
    const double matrices = x.gated ? 3 : 2;
    const double denseLinear = rank.layerLinear;
    const double moeLinear =
        c.experts != 0 ? rank.moeLayerLinear + c.expertsPerToken * matrices * x.h * detail::expertFfn(c) / x.t + x.h * c.experts / x.t : 0;
    // QKᵀ and AV: 4·b·s_rank·s·a·d per layer over the TP heads; FlashAttention skips the masked half of a causal
    // attention, eager attention computes all of it.
    const double attentionFlops = 4 * x.b * x.sRank * x.s * x.headsRank * x.d * (x.flash ? 0.5 : 1);
    // Pointwise bytes of one layer per micro-batch: the hidden-width ops (split by SP), RoPE over the TP heads, the
    // activation over the FFN shard (a MoE layer: its top-k experts' and the shared expert's).
    const double rotated = (x.headsRank + x.kvHeadsRank) * x.d;
    // Eager attention's saved score tensors (the ledger's census of the core: softmax output, dropout mask and output)
    // are written, read, and their gradients written and read: 4 passes, counted with the attention core so that
    // recomputing the core (selective checkpointing) runs its 2 forward passes again.
    const detail::LayerBytes layer = x.flash ? detail::LayerBytes{} : detail::layerBytes(c, x, detail::layerStyle(c), false);
    const double coreBytes = layer.withCore - layer.withoutCore;
    const double eagerCoreSeconds = 4 * coreBytes / hbm;
    const double denseBytes = tokens * (hiddenBytes * x.h / x.spDivisor + pointwise.perRotated * rotated + pointwise.perFfn * x.f / x.t);
    const double moeBytes = c.experts != 0
                                ? tokens * (hiddenBytes * x.h / x.spDivisor + pointwise.perRotated * rotated +
                                            pointwise.perFfn * (c.expertsPerToken * detail::expertFfn(c) + c.sharedExpertFfn) / x.t) +
                                      detail::routingBytes(c, routedTokens, x.h)
                                : 0;
    // QLoRA dequantises each NF4 weight to BF16 in forward and in backward: 0.5 B read, 2 B written, 2 B read again.
    const double dequantBytesPerParam = c.finetune == Finetune::qlora ? 2 * 4.5 : 0;
    // FP8 casts each linear's input and weight (read BF16, write FP8) forward, and the gradients in backward:
    // 3 B per element, three times (torchao's Float8Linear; Transformer Engine fuses the input's cast into the norm).
    const bool fp8 = c.precision == Precision::fp8;

    struct LayerTime {
        double matmul, attention, memory, fwdMatmul, fwdAttention, fwdMemory;
    };
    // The dense layer's GEMMs on one rank, as (K, N) of each weight (Megatron-LM fuses Q, K, V and gate with up;
    // torchtitan's and Hugging Face's Llama keep them apart), each in three GEMMs: forward (tokens × N), the input's
    // gradient (tokens × K) and the weight's (K × N, none for a frozen base), at the matmul rate times their wave
    // efficiency. MLA and MoE layers take the matmul rate as it is.
    const double sms = gpu != nullptr ? gpu->sms : 0;
    double denseForwardSeconds = 2 * tokens * denseLinear / linearRate, denseBackwardSeconds = backwardMatmul * denseForwardSeconds;
    if (c.kvLoraRank == 0 && sms > 0) {
        const double q = x.headsRank * x.d, kv = x.kvHeadsRank * x.d, f = x.f / x.t;
        std::array<std::pair<double, double>, 6> gemms{};  // (K, N); N = 0: unused
        size_t count = 0;
        const bool fusedWeights = c.framework == Framework::megatron;
        if (fusedWeights) {
            gemms[count++] = {x.h, q + 2 * kv};
        } else {
            gemms[count++] = {x.h, q};
            gemms[count++] = {x.h, kv};
            gemms[count++] = {x.h, kv};
        }
        gemms[count++] = {q, x.h};
        if (x.gated && fusedWeights) {
            gemms[count++] = {x.h, 2 * f};
        } else {
            gemms[count++] = {x.h, f};
            if (x.gated) gemms[count++] = {x.h, f};
        }
        denseForwardSeconds = denseBackwardSeconds = 0;
        auto add = [&](double k, double n) {
            const double flops = 2 * tokens * k * n;
            denseForwardSeconds += flops / (linearRate * waveEfficiency(tokens, n, sms));
            denseBackwardSeconds += flops / (linearRate * waveEfficiency(tokens, k, sms));
            if (!frozenBase) denseBackwardSeconds += flops / (linearRate * waveEfficiency(k, n, sms));
        };
        for (size_t i = 0; i < count; ++i) add(gemms[i].first, gemms[i].second);
        add(f, x.h);  // the down projection
    }
    auto layerTime = [&](double linear, double bytes, bool denseLayer) {
        LayerTime L{};
        const double fwdMatmul = denseLayer ? denseForwardSeconds : 2 * tokens * linear / linearRate;
        const double bwdMatmul = denseLayer ? denseBackwardSeconds : fwdMatmul * backwardMatmul;
        const double fwdAttention = attentionFlops / attentionRate + eagerCoreSeconds / 2;
        double memory = bytes + dequantBytesPerParam * linear;
        if (fp8) memory += 3 * 3 * (tokens * (2 * x.h + x.headsRank * x.d + x.f / x.t) + linear);
        L.fwdMatmul = fwdMatmul;
        L.fwdAttention = fwdAttention;
        L.fwdMemory = memory / hbm / 2;
        L.matmul = fwdMatmul + bwdMatmul;
        L.attention = attentionFlops / attentionRate * (1 + backwardAttention) + eagerCoreSeconds;
        L.memory = memory / hbm;
        return L;
    };
    const LayerTime dense = layerTime(denseLinear, denseBytes, true);
    const LayerTime moe = c.experts != 0 ? layerTime(moeLinear, moeBytes, false) : dense;

    // Communication per layer per micro-batch (forward and backward), in seconds.
    // TP: two all-reduces of [b, s/CP, h] in forward and two in backward (Megatron-LM's f and g; SP's all-gather and
    // reduce-scatter move the same bytes, Korthikanti §4.2.2); full recomputation repeats the forward's two.
    const double tpBandwidth = links.of(c.tp, perNode);
    // Each all-reduce a ring of 2(t − 1) hops (with SP an all-gather and a reduce-scatter of t − 1 each, two launches).
    const double tpNodes = std::ceil(c.tp / perNode);
    const double tpAllReduce =
        c.tp > 1
            ? (c.sp
                   ? 2 * detail::ncclRingSeconds(detail::ringGather(tokens * x.h * 2, c.tp), tpBandwidth, c.tp - 1, tpNodes - 1)
                   : detail::ncclRingSeconds(detail::ringAllReduce(tokens * x.h * 2, c.tp), tpBandwidth, 2 * (c.tp - 1), 2 * (tpNodes - 1)))
            : 0;
    // CP: each rank's K and V chunk goes to every other rank in forward, and K, V, dK, dV in backward (ring
    // attention's passes or torchtitan's all-gather: the same bytes).
    // Each pass is one message to the next rank of the ring, with its latency (collectives.hpp).
    const double kvChunk = 2 * x.b * x.sRank * x.kvHeadsRank * x.d * 2;
    const double cpExchange =
        c.cp > 1 ? 3 * (c.cp - 1) * detail::ncclHopSeconds(kvChunk, links.of(c.tp * c.cp, perNode), c.tp * c.cp > perNode) : 0;
    // EP: one all-to-all of the top-k copies of each token (time/moe_time.cpp).
    const double epAllToAll = detail::expertAllToAllSeconds(c, routedTokens, links.intraNode, links.interNode);

    // Megatron-LM's EP all-to-all overlap (--overlap-moe-expert-parallel-comm; pipeline_parallel/combined_1f1b.py and
    // the layer's fine-grained schedule plan): one micro-batch's forward runs beside another's backward, layer by
    // layer, each all-to-all on a communication stream beside the other pass's compute: the backward's combine beside
    // the forward's attention, the forward's dispatch beside the backward's MLP, the backward's dispatch beside the
    // forward's MLP, the forward's combine beside the backward's attention. Each shows only past what it sits beside
    // (the attention block: its linears and the core; the MLP: the routed experts and the router; the pointwise work
    // counted on neither side). Only the micro-batches the schedule pairs: not the warm-up forwards of the first stage
    // (2(PP − 1) + (v − 1)·PP, schedules.py) nor the last backward.
    double epPerMoeLayer = 4 * epAllToAll;
    if (c.overlapMoeComm && moeCommOverlapAllowed(c) && epAllToAll > 0) {
        const double mlpShare = moeLinear > 0 ? (moeLinear - rank.moeLayerLinear) / moeLinear : 0;
        const double fwdAttention = moe.fwdMatmul * (1 - mlpShare) + moe.fwdAttention, fwdMlp = moe.fwdMatmul * mlpShare;
        const double bwdMatmul = moe.matmul - moe.fwdMatmul;
        const double bwdAttention = bwdMatmul * (1 - mlpShare) + (moe.attention - moe.fwdAttention), bwdMlp = bwdMatmul * mlpShare;
        double paired = 0;
        for (double beside : {fwdAttention, bwdMlp, fwdMlp, bwdAttention}) paired += std::max(0.0, epAllToAll - beside);
        const double chunks = c.microbatches * c.vpp;
        const double warmup = c.pp > 1 ? std::min(2 * (c.pp - 1) + (c.vpp - 1) * c.pp, chunks) : 0;
        const double pairedShare = std::max(0.0, chunks - warmup - 1) / chunks;
        epPerMoeLayer = pairedShare * paired + (1 - pairedShare) * 4 * epAllToAll;
    }

    // Recomputation.
    Recompute rc;
    if (c.ckpt == Checkpointing::full) rc = {1, 1, 1};
    if (c.ckpt == Checkpointing::selective) rc = {0, 1, 0};
    if (c.ckpt == Checkpointing::op) rc = {0.5, 0, 1};

    // Each stage per micro-batch; the slowest sets the pace.
    double slowest = -1;
    std::array<double, kStepParts> stageParts{};
    double slowestParams = 0, slowestExpertParams = 0;
    const double stages = c.pp;
    // Stages of the same kind as one already computed take the same time: only those of stepTimeStages.
    for (const StageSpan& stageSpan : stageSpans) {
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
            recomputedMoe * (rc.matmul * moe.fwdMatmul + rc.attention * moe.fwdAttention + rc.memory * moe.fwdMemory);
        const double tpCollectives = 4 + (c.ckpt == Checkpointing::full ? 2 * recomputed / std::max(layers, 1.0) : 0);
        at(StepPart::tensorParallel) = layers * tpCollectives * tpAllReduce;
        // Transformer Engine passes K/V chunks around the ring while each chunk's attention runs; torchtitan's default
        // (context_parallel_rotate_method = "allgather") gathers every K/V shard "after the first sub-SDPA
        // computation" (config_manager.py), so only that first of CP sub-attentions hides it.
        const double cpHidden = c.framework == Framework::torchtitan ? dense.attention / c.cp : dense.attention;
        at(StepPart::contextParallel) = layers * std::max(0.0, cpExchange - cpHidden);
        // Dispatch and combine in forward and their gradients in backward; full recomputation runs the forward's
        // dispatch and combine again (the checkpointed layer's forward includes them; torchtitan's op-level SAC saves
        // the all-to-all's output, _save_list, so it does not).
        const double recomputedMoeForward = c.ckpt == Checkpointing::full ? recomputedMoe : 0;
        at(StepPart::expertParallel) = moeLayers * epPerMoeLayer + 2 * recomputedMoeForward * epAllToAll;
        if (stage == stages - 1) {
            // The output layer (BF16 under FP8 recipes) and the loss over the vocabulary shard.
            const double logits = tokens * x.V / x.t;
            const double outputFlops = 2 * tokens * x.h * x.V / x.t;
            at(StepPart::matmuls) += outputFlops / bf16Rate *
                                     (1 / waveEfficiency(tokens, x.V / x.t, sms) + 1 / waveEfficiency(tokens, x.h, sms) +
                                      1 / waveEfficiency(x.h, x.V / x.t, sms));
            at(StepPart::memoryBound) += lossBytesPerLogit(c) * logits / hbm;
        }
        // PP: the stage's activation [b, s/CP, h] (split by SP) sent forward and its gradient back, once per model chunk.
        // Each send is one message with its latency (collectives.hpp).
        if (c.pp > 1) {
            const double span = c.tp * c.cp * (c.dp > 1 ? c.dp : 1) * 2;
            at(StepPart::pipelineTransfer) =
                2 * c.vpp * detail::ncclHopSeconds(tokens * x.h * 2 / x.spDivisor, links.of(span, perNode), span > perNode);
        }
        double total = 0;
        for (double v : p) total += v;
        if (total > slowest) {
            slowest = total;
            stageParts = p;
            slowestParams = detail::stageParameterCount(c, stage, from, layers).perGpu;
            slowestExpertParams = moeLayers * rank.moeLayerExperts;
        }
    }

    // The 1F1B schedule: m micro-batches, plus (PP − 1)/v slots in which the slowest stage waits (Narayanan et al.
    // 2021 §2.2: bubble (p − 1)/(m·v + p − 1) of the step).
    const double m = c.microbatches;
    const double bubbleSlots = (c.pp - 1) / c.vpp;
    out.bubbleFraction = pipelineBubbleFraction(c.pp, m, c.vpp);
    for (size_t i = 0; i < kStepParts; ++i) out.partSeconds[i] = stageParts[i] * m;
    auto part = [&out](StepPart p) -> double& { return out.partSeconds[static_cast<size_t>(p)]; };
    part(StepPart::pipelineBubble) = slowest * bubbleSlots;
    const double computeOfMicrobatch =
        stageParts[static_cast<size_t>(StepPart::matmuls)] + stageParts[static_cast<size_t>(StepPart::attention)] +
        stageParts[static_cast<size_t>(StepPart::memoryBound)] + stageParts[static_cast<size_t>(StepPart::recomputation)];

    // Data parallel over DP × CP ranks (CP ranks hold the same weights). The trained parameters of this GPU's stage:
    // gradients reduced in the framework's reduce dtype (FSDP2's default MixedPrecisionPolicy reduces in FP32 in
    // torchtitan; Megatron-LM, DeepSpeed and torchtune in BF16), parameters gathered in BF16.
    const double D = c.dp * c.cp;
    // The routed experts' own data-parallel group: the GPUs of a stage, TP × CP × DP, over ETP × EP (Megatron-LM's
    // expert data-parallel group, parallel_state.py; torchtitan's dp_shard_mod_ep mesh): their gradients are reduced,
    // and under FSDP their weights gathered, over it, and the distributed optimizer shards them over it.
    const double expertD = c.experts != 0 ? std::max(1.0, c.tp * c.cp * c.dp / (detail::expertTensorParallel(c) * c.ep)) : D;
    const double denseParams = slowestParams - slowestExpertParams;
    // LoRA: only the adapters are trained and reduced, a rounding error next to the step; FSDP still gathers the
    // frozen base (QLoRA's in NF4: half a byte per weight).
    const double trainedShare = frozenBase ? 0 : 1;
    const double trained = trainedShare * slowestParams;
    const double gatherBytes = c.finetune == Finetune::qlora ? 0.5 : 2;
    const double reduceBytes = c.framework == Framework::torchtitan || (c.framework == Framework::hfAccelerate && c.masterWeights) ? 4 : 2;
    const double dpBandwidth = links.of(c.tp * c.cp * D, perNode);
    // A ring all-gather or reduce-scatter of bytesPerParam over each group: the dense parameters over DP × CP, the
    // experts over their own group.
    auto ringOfStage = [&](double bytesPerParam, double share) {
        return detail::ringGather(share * denseParams * bytesPerParam, D) +
               detail::ringGather(share * slowestExpertParams * bytesPerParam, expertD);
    };
    double dpSeconds = 0, overlappable = 0;
    if ((D > 1 || expertD > 1) && slowestParams > 0) {
        if (gathering == detail::Gathering::fsdp2Stage) {
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
            dpSeconds = m * perMicrobatch;
            overlappable = m * computeOfMicrobatch;
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
    if (D > 1 && (gathering == detail::Gathering::fsdp2Layers || gathering == detail::Gathering::fsdp2Stage))
        part(StepPart::memoryBound) += (gathering == detail::Gathering::fsdp2Stage ? 1 : m) *
                                       (slowestParams * kFsdpGatherCopyBytesPerParam + trained * kFsdpReduceCopyBytesPerParam) / hbm;

    // The optimizer step over this GPU's shard of the trained parameters (LoRA: the adapters, a rounding error).
    const double shard = trainedShare * (c.zero >= 1 ? denseParams / D + slowestExpertParams / expertD : slowestParams);
    // ZeRO-Offload steps on the CPU: the FP32 gradients go down and the BF16 parameters come back over PCIe, and CPU
    // Adam streams the states through host memory (docs/planner.md: PCIe and host bandwidth per GPU as stated there).
    part(StepPart::optimizer) = c.offload != Offload::none
                                    ? shard * (4 + 2) / kPcieBytesPerSecond + shard * optimizerBytesPerParam(c) / kHostBytesPerSecondPerGpu
                                    : shard * optimizerBytesPerParam(c) / hbm;
    // Parameters offloaded too (ZeRO-Infinity's offload_param, FSDP's CPUOffload): every micro-batch fetches the BF16
    // parameter shard over PCIe for its forward and again for its backward gathers, and sends the BF16 gradient shard
    // back, none of it hidden behind compute here (an upper bound on what prefetching overlaps).
    if (c.offload == Offload::all) part(StepPart::optimizer) += m * shard * (2 + 2 + 2) / kPcieBytesPerSecond;

    double step = 0;
    for (double v : out.partSeconds) step += v;
    out.stepSeconds = step;
    out.tokensPerStep = c.dp * c.mb * m * c.seq;
    const double gpus = worldSize(c);
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

}  // namespace membudget
