// One layer of each kind in the step-time estimate: the rates, one layer's seconds and the communication per layer
// (time/step_layers.hpp).
#include "time/step_layers.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <utility>

#include "membudget/base/choices.hpp"
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

namespace membudget::detail {

namespace {

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

// Megatron-LM's fused bias-dropout-add after attention and after the MLP, with dropout: it writes a 1-byte mask and
// reads it in backward, beside the 2-byte input and output it moves anyway: about 14 B per hidden element each.
constexpr double kDropoutBytesPerHidden = 2 * 14;

// Decides the rate each kind of work runs at: the GEMMs at the matmul rate of the precision, the attention core at its
// kernel's, the memory-bound work at HBM's, the communication at the links'.
void stepRates(const Config& c, const StepConstants& constants, StepModel& m) {
    const GpuPreset* gpu = constants.gpu;  // the attention kernel's generation and the SM count
    // A power cap below the rated power lowers the clocks until the draw fits: the tensor-core work slows in
    // proportion (capping an H100 from 700 W to 600 W, a 14% cut, "typically loses 10 to 15% step throughput",
    // factryze.ai Scale Atlas, "Power capping"); the memory-bound work keeps HBM's clock.
    const double clockScale = c.powerLimitW > 0 && c.tdpW > 0 ? std::min(1.0, c.powerLimitW / c.tdpW) : 1.0;
    // The preset's matmul efficiency is its best GEMM shape's (MAMF); the layer's GEMMs reach matmulShapeFraction of it
    // (1 in the estimate, the slowest published large GEMMs' share at the band's slow end; docs/constants.md).
    m.runtime = constants.runtime;
    m.bf16Rate = c.peakTflops * 1e12 * c.matmulEfficiency * m.runtime.matmulShapeFraction * clockScale;
    // FP8 runs the transformer blocks' linear layers at the FP8 rate (the output layer stays BF16 in TE's and torchao's
    // recipes); FP32 runs on TF32 tensor cores at half the BF16 rate.
    const double fp8Efficiency = c.fp8MatmulEfficiency > 0 ? c.fp8MatmulEfficiency : c.matmulEfficiency;
    m.linearRate = c.precision == Precision::fp8 && c.fp8Tflops > 0
                       ? c.fp8Tflops * 1e12 * fp8Efficiency * m.runtime.matmulShapeFraction * clockScale
                   : c.precision == Precision::fp32 ? m.bf16Rate / 2
                                                    : m.bf16Rate;
    // FlashAttention-2's measured share, times how much faster the framework's kernel may be (FlashAttention-3 on Hopper:
    // 1 in the estimate's value, up to 1.8 at the band's fast end; docs/constants.md).
    m.attentionRate = c.peakTflops * 1e12 * constants.attentionEfficiency * m.runtime.attentionKernelSpeedup * clockScale *
                      (c.precision == Precision::fp32 ? 0.5 : 1);
    // The shares of HBM's and the links' rated bandwidths that streamed reads and NCCL reach (docs/constants.md).
    m.hbm = c.hbmTbps * 1e12 * m.runtime.hbmStreamFraction;
    const double link = m.runtime.linkFraction;
    m.links = {c.nvlinkGbps * 1e9 * link, c.networkGbps * 1e9 * link};
    m.perNode = c.gpusPerNode;
    m.sms = gpu != nullptr ? gpu->sms : 0;
}

// The dense layer's GEMM seconds on one rank, forward and backward.
struct DenseGemms {
    double forward, backward;
};

// Decides how long the dense layer's GEMMs take, each at the matmul rate times its wave efficiency.
DenseGemms denseGemmSeconds(const Config& c, const StepModel& m, double denseLinear) {
    const Dims& x = m.x;
    const double tokens = m.tokens, linearRate = m.linearRate, sms = m.sms;
    // The dense layer's GEMMs on one rank, as (K, N) of each weight (Megatron-LM fuses Q, K, V and gate with up;
    // torchtitan's and Hugging Face's Llama keep them apart), each in three GEMMs: forward (tokens × N), the input's
    // gradient (tokens × K) and the weight's (K × N, none for a frozen base), at the matmul rate times their wave
    // efficiency. MLA and MoE layers take the matmul rate as it is.
    double denseForwardSeconds = 2 * tokens * denseLinear / linearRate, denseBackwardSeconds = m.backwardMatmul * denseForwardSeconds;
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
            if (!m.frozenBase) denseBackwardSeconds += flops / (linearRate * waveEfficiency(k, n, sms));
        };
        for (size_t i = 0; i < count; ++i) add(gemms[i].first, gemms[i].second);
        add(f, x.h);  // the down projection
    }
    return {denseForwardSeconds, denseBackwardSeconds};
}

// The share of the matmul rate a MoE layer's grouped GEMMs reach: each local expert multiplies only its own rows, the
// busiest EP rank's routed rows over its experts (model/rank.hpp moeRows), and a GEMM of few rows fills few tiles and
// waves. DeepGEMM's published GEMMs on H800 reach M / (M + M½) of their large-M rate, M½ about 180 rows
// (groupedGemmHalfRateRows, docs/constants.md): 0.59 at 256 rows per expert, a Qwen3 or DeepSeek-V3 layer at 4,096
// tokens per micro-batch.
double groupedGemmShare(const Config& c, const StepModel& m, double imbalance) {
    const double localExperts = c.experts / std::max(1.0, c.ep);
    const double rows = moeRows(c, m.x, imbalance).received / localExperts;
    return rows > 0 ? rows / (rows + m.runtime.groupedGemmHalfRateRows) : 1;
}

// What one layer of each kind computes and moves per micro-batch on one GPU, before it is turned into seconds.
struct LayerWork {
    double denseLinear, attentionFlops, eagerCoreSeconds, denseBytes, moeBytes, dequantBytesPerParam;
    bool fp8;
    DenseGemms denseGemms;
};

// Decides one layer's work of each kind: its matmul FLOPs, its attention FLOPs and the bytes its pointwise work moves.
LayerWork layerWork(const Config& c, StepModel& m) {
    const Dims& x = m.x;
    const double tokens = m.tokens;
    LayerWork w;
    const PointwiseBytes pointwise = pointwiseBytes(c);
    const double hiddenBytes = pointwise.perHidden + (c.dropout ? kDropoutBytesPerHidden : 0);

    // One layer of each kind on one GPU, per micro-batch: forward matmul FLOPs (the TP shard's linears; a MoE layer's
    // routed experts are the top-k a token passes through, spread over the expert-parallel group like the TP shard).
    const double matrices = x.gated ? 3 : 2;
    w.denseLinear = m.rank.layerLinear;
    // The step waits for the busiest EP rank, whose experts take moeImbalance times the even share of the copies
    // (model/rank.hpp: 1 where the run forces balanced routing).
    // The routed experts' GEMMs are counted at the rate they run at (groupedGemmShare): m.moeLinear is the large-GEMM
    // FLOPs that take as long as the layer's matmuls.
    const double imbalance = moeImbalance(c);
    const double routedLinear = c.expertsPerToken * imbalance * matrices * x.h * expertFfn(c) / x.t;
    m.moeLinear = c.experts != 0 ? m.rank.moeLayerLinear + routedLinear / groupedGemmShare(c, m, imbalance) + x.h * c.experts / x.t : 0;
    // QKᵀ and AV: 4·b·s_rank·s·a·d per layer over the TP heads; FlashAttention skips the masked half of a causal
    // attention, eager attention computes all of it.
    w.attentionFlops = 4 * x.b * x.sRank * x.s * x.headsRank * x.d * (x.flash ? 0.5 : 1);
    // Pointwise bytes of one layer per micro-batch: the hidden-width ops (split by SP), RoPE over the TP heads, the
    // activation over the FFN shard (a MoE layer: its top-k experts' and the shared expert's).
    const double rotated = (x.headsRank + x.kvHeadsRank) * x.d;
    // Eager attention's saved score tensors (the ledger's census of the core: softmax output, dropout mask and output)
    // are written, read, and their gradients written and read: 4 passes, counted with the attention core so that
    // recomputing the core (selective checkpointing) runs its 2 forward passes again.
    const LayerBytes layer = x.flash ? LayerBytes{} : layerBytes(c, x, layerStyle(c), false);
    const double coreBytes = layer.withCore - layer.withoutCore;
    w.eagerCoreSeconds = 4 * coreBytes / m.hbm;
    w.denseBytes = tokens * (hiddenBytes * x.h / x.spDivisor + pointwise.perRotated * rotated + pointwise.perFfn * x.f / x.t);
    w.moeBytes = c.experts != 0 ? tokens * (hiddenBytes * x.h / x.spDivisor + pointwise.perRotated * rotated +
                                            pointwise.perFfn * (c.expertsPerToken * expertFfn(c) + c.sharedExpertFfn) / x.t) +
                                      routingBytes(c, m.routedTokens, x.h)
                                : 0;
    // QLoRA dequantises each NF4 weight to BF16 in forward and in backward: 0.5 B read, 2 B written, 2 B read again.
    w.dequantBytesPerParam = c.finetune == Finetune::qlora ? 2 * 4.5 : 0;
    // FP8 casts each linear's input and weight (read BF16, write FP8) forward, and the gradients in backward:
    // 3 B per element, three times (torchao's Float8Linear; Transformer Engine fuses the input's cast into the norm).
    w.fp8 = c.precision == Precision::fp8;
    w.denseGemms = denseGemmSeconds(c, m, w.denseLinear);
    return w;
}

// Decides one layer's seconds from its work: the matmuls (the dense layer's GEMMs by their waves), the attention core
// and the memory-bound bytes, forward and backward.
LayerTime layerTime(const StepModel& m, const LayerWork& w, double linear, double bytes, bool denseLayer) {
    const Dims& x = m.x;
    const double tokens = m.tokens, hbm = m.hbm, attentionRate = m.attentionRate;
    // FlashAttention-2's backward runs five matmuls to the forward's two (Dao 2023 §4.1).
    const double backwardAttention = 2.5;
    LayerTime L{};
    const double fwdMatmul = denseLayer ? w.denseGemms.forward : 2 * tokens * linear / m.linearRate;
    const double bwdMatmul = denseLayer ? w.denseGemms.backward : fwdMatmul * m.backwardMatmul;
    const double fwdAttention = w.attentionFlops / attentionRate + w.eagerCoreSeconds / 2;
    double memory = bytes + w.dequantBytesPerParam * linear;
    if (w.fp8) memory += 3 * 3 * (tokens * (2 * x.h + x.headsRank * x.d + x.f / x.t) + linear);
    L.fwdMatmul = fwdMatmul;
    L.fwdAttention = fwdAttention;
    L.fwdMemory = memory / hbm / 2;
    L.matmul = fwdMatmul + bwdMatmul;
    L.attention = w.attentionFlops / attentionRate * (1 + backwardAttention) + w.eagerCoreSeconds;
    L.memory = memory / hbm;
    return L;
}

// Decides the communication of one layer per micro-batch (forward and backward), in seconds: TP's all-reduces, CP's
// K/V exchange and EP's all-to-all.
void layerCommunication(const Config& c, StepModel& m) {
    const Dims& x = m.x;
    const double tokens = m.tokens, perNode = m.perNode;
    // TP: two all-reduces of [b, s/CP, h] in forward and two in backward (Megatron-LM's f and g; SP's all-gather and
    // reduce-scatter move the same bytes, Korthikanti §4.2.2); full recomputation repeats the forward's two.
    const double tpBandwidth = m.links.of(c.tp, perNode);
    // Each all-reduce a ring of 2(t − 1) hops (with SP an all-gather and a reduce-scatter of t − 1 each, two launches).
    // Training launches NCCL eagerly: each collective takes at least its measured floor (docs/constants.md; 31 µs for an
    // all-reduce, 30 for an all-gather or reduce-scatter among 8 GPUs, scaled by the ring's steps below 8).
    const double tpNodes = std::ceil(c.tp / perNode);
    const double arFloor = floorForRanks(m.runtime.allReduceFloorSeconds, c.tp);
    const double agFloor = floorForRanks(m.runtime.allGatherFloorSeconds, c.tp);
    m.tpAllReduce =
        c.tp > 1 ? (c.sp ? 2 * ncclRingSeconds(ringGather(tokens * x.h * 2, c.tp), tpBandwidth, c.tp - 1, tpNodes - 1, agFloor)
                         : ncclRingSeconds(ringAllReduce(tokens * x.h * 2, c.tp), tpBandwidth, 2 * (c.tp - 1), 2 * (tpNodes - 1), arFloor))
                 : 0;
    // CP: each rank's K and V chunk goes to every other rank in forward, and K, V, dK, dV in backward (ring
    // attention's passes or torchtitan's all-gather: the same bytes).
    // Each pass is one message to the next rank of the ring, with its latency (collectives.hpp).
    const double kvChunk = 2 * x.b * x.sRank * x.kvHeadsRank * x.d * 2;
    m.cpExchange = c.cp > 1 ? 3 * (c.cp - 1) * ncclHopSeconds(kvChunk, m.links.of(c.tp * c.cp, perNode), c.tp * c.cp > perNode) : 0;
    // EP: one all-to-all of the top-k copies of each token (time/moe_time.cpp), as long as the busiest rank takes.
    m.epAllToAll = expertAllToAllSeconds(c, m.routedTokens * moeImbalance(c), m.links.intraNode, m.links.interNode,
                                         {m.runtime.allToAllFloorSeconds, m.runtime.allToAllInterNodeFloorSeconds});
}

// Decides how much of a MoE layer's four all-to-alls shows, where Megatron-LM overlaps them with another
// micro-batch's compute.
double expertParallelPerMoeLayer(const Config& c, const StepModel& m) {
    const double epAllToAll = m.epAllToAll;
    const LayerTime& moe = m.moe;
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
        const double mlpShare = m.moeLinear > 0 ? (m.moeLinear - m.rank.moeLayerLinear) / m.moeLinear : 0;
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
    return epPerMoeLayer;
}

// Decides how long a Megatron-LM MoE layer's forward waits on the host, per micro-batch. The layer blocks the host once
// (token_dispatcher.py _maybe_dtoh_and_synchronize at before_ep_alltoall: the per-expert token counts reach the CPU to
// size the all-to-all and TE GroupedLinear's m_splits), so the GPU's queue is empty and the rest of the layer's
// launches are paced by the CPU. Counted from the code (Megatron-LM d98e8a64, Transformer Engine d0067d0d; docs/planner.md,
// "The MoE launch path"): about 30 fixed launches in forward (router, top-k, aux loss, preprocess, the fused permute and
// unpermute, sort_chunks_by_idxs, the NCCL calls), and per local expert one GEMM each for fc1 and fc2
// (multi_stream_cublas_gemm loops once per expert), with FP8 8 to 16 more quantizing each expert's split (four kernels a
// tensor, Float8CurrentScalingQuantizer): 12. Each at the host's cost of a Python-issued launch (docs/constants.md);
// what shows is what the GPU's work after the sync (the routed experts' forward GEMMs, the dispatch and the combine)
// does not cover. Backward has no sync: its launches run ahead of the GPU.
double moeHostPacedSeconds(const Config& c, const StepModel& m) {
    if (c.framework != Framework::megatron || c.experts == 0 || m.moeLinear <= 0) return 0;
    constexpr double kFixedForwardLaunches = 30, kGemmsPerExpert = 2, kFp8QuantizeLaunchesPerExpert = 12;
    const double localExperts = c.experts / std::max(1.0, c.ep);
    const bool fp8 = c.precision == Precision::fp8;
    const double launches = kFixedForwardLaunches + localExperts * (kGemmsPerExpert + (fp8 ? kFp8QuantizeLaunchesPerExpert : 0));
    const double host = launches * m.runtime.eagerLaunchSeconds;
    const double routedShare = (m.moeLinear - m.rank.moeLayerLinear) / m.moeLinear;
    return std::max(0.0, host - (m.moe.fwdMatmul * routedShare + 2 * m.epAllToAll));
}

// Decides what selective recomputation runs again (Dims::recompute): the attention core (Korthikanti et al. 2022 §5),
// and Megatron-LM's modules that hold matmuls: mlp a dense layer's MLP, moe a MoE layer's router, experts and shared
// expert (with its dispatch and combine, counted with the EP all-to-alls), shared_experts the shared expert alone, each
// as its share of its layer's linear FLOPs. The output-discarding modules (moe_act, layernorm, mla_up_proj) rebuild
// pointwise work and up-projections the estimate leaves out.
void selectiveRecompute(const Config& c, StepModel& m) {
    const RecomputeModules& r = m.x.recompute;
    const double attention = r.coreAttn ? 1 : 0, matrices = m.x.gated ? 3 : 2;
    const double mlpLinear = matrices * m.x.h * m.x.f / m.x.t;
    m.rc = {r.mlp && m.rank.layerLinear > 0 ? mlpLinear / m.rank.layerLinear : 0, attention, 0};
    m.rcMoe = {0, attention, 0};
    if (c.experts != 0 && m.moeLinear > 0) {
        const double attentionLinear = std::max(0.0, m.rank.layerLinear - mlpLinear);
        const double sharedLinear = matrices * m.x.h * c.sharedExpertFfn / m.x.t;
        m.rcMoe.matmul = r.moe ? (m.moeLinear - attentionLinear) / m.moeLinear : r.sharedExperts ? sharedLinear / m.moeLinear : 0;
    }
}

}  // namespace

void stepModel(const Config& c, const StepConstants& constants, StepModel& m) {
    // What the step needs of the static model: the dimensions, the rank's weights and how FSDP gathers them (not the
    // whole of membudgetTraining, whose saved-tensor census the planner has already run for the row's memory).
    fillDims(c, m.x);
    fillRankParams(c, m.x, !c.tiedEmbeddings || c.pp > 1, m.rank);
    m.gathering = gatheringOf(c);
    stepRates(c, constants, m);
    m.tokens = m.x.b * m.x.sRank;  // one micro-batch's tokens on one GPU of the TP group
    // A MoE layer routes the tokens its rank holds: under sequence parallelism the TP group's sequence shard, s/TP
    // (Megatron-LM's MoELayer.forward requires SP with TP in training and takes [s/TP, b, h]; the all-to-all
    // dispatcher sends those tokens, gathering over the expert-TP group only after it; torchtitan's
    // ReordererSequenceParallel splits the tokens over TP the same way).
    m.routedTokens = m.tokens / m.x.spDivisor;
    m.frozenBase = c.finetune != Finetune::full;
    // Backward of a linear: the input gradient and the weight gradient (2× forward); a frozen base computes only the
    // input gradient (1×).
    m.backwardMatmul = m.frozenBase ? 1 : 2;
    const LayerWork w = layerWork(c, m);
    m.dense = layerTime(m, w, w.denseLinear, w.denseBytes, true);
    m.moe = c.experts != 0 ? layerTime(m, w, m.moeLinear, w.moeBytes, false) : m.dense;
    layerCommunication(c, m);
    m.epPerMoeLayer = expertParallelPerMoeLayer(c, m);
    m.moeHostPaced = moeHostPacedSeconds(c, m);
    // Recomputation.
    m.rc = {};
    if (c.ckpt == Checkpointing::full) m.rc = {1, 1, 1};
    if (c.ckpt == Checkpointing::op) m.rc = {0.5, 0, 1};
    m.rcMoe = m.rc;
    // torchtitan's op-level SAC keeps every other mm of the attention and the shared expert, but no grouped GEMM and
    // not the router's gate (forced to recompute): a MoE block's routed experts and gate run again whole.
    if (c.ckpt == Checkpointing::op && c.experts != 0 && m.moeLinear > 0) {
        const double gate = m.x.h * c.experts / m.x.t, routed = m.moeLinear - m.rank.moeLayerLinear - gate;
        m.rcMoe.matmul = (0.5 * m.rank.moeLayerLinear + routed + gate) / m.moeLinear;
    }
    if (c.ckpt == Checkpointing::selective) selectiveRecompute(c, m);
}

}  // namespace membudget::detail
