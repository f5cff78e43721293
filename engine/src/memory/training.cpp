// method=membudget in training, in numbers: bytes per parameter, each stage's lines and the peak stage, with
// no text, which the planner evaluates millions of times (its kernel) and the ledger shows
// (training_ledger.cpp). README "The membudget method".
#include "memory/training.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "memory/ledgers.hpp"
#include "memory/static_terms.hpp"
#include "memory/tensors.hpp"
#include "model/lora.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

namespace {

// accelerate / the HF Trainer with master_weights off: the model is loaded in its low-precision dtype
// (from_pretrained(torch_dtype=torch.bfloat16)) and trained as it is, without an FP32 copy: the parameters, their
// gradients and torch.optim.AdamW's m and v (zeros_like(p)) in that dtype, and autocast, where it is on, has no
// copy to make (its cast of a BF16 weight to BF16 returns the weight).
bool pureBf16Accelerate(const Config& c) { return c.framework == Framework::hfAccelerate && !c.masterWeights; }

// Bytes of one optimizer-state element: FP32, unless the states are kept in BF16 (torchtune's pure-BF16 AdamW
// keeps m and v in the parameters' dtype: torch.optim.AdamW initialises them with zeros_like(p)).
double stateElementBytes(const Config& c) {
    if (c.optimizerDtype == OptimizerDtype::bf16) return 2;
    if (c.optimizerDtype == OptimizerDtype::fp32) return 4;
    return (c.framework == Framework::torchtune || pureBf16Accelerate(c)) && c.precision != Precision::fp32 ? 2 : 4;
}

}  // namespace

StaticRates staticRates(const Config& c) {
    StaticRates r{};
    const bool fp32 = c.precision == Precision::fp32;
    r.compute = fp32 ? 4 : 2;
    switch (c.framework) {
        case Framework::torchtitan:
        case Framework::hfAccelerate:
            // torchtitan builds the model in FP32 and FSDP2's MixedPrecisionPolicy(param_dtype=bf16,
            // reduce_dtype=fp32) computes in BF16 (torchtitan parallelize.py apply_fsdp): the sharded FP32
            // parameters are the master, the sharded gradients FP32. accelerate's mixed_precision = bf16 keeps
            // FP32 parameters and gradients and computes under autocast (accelerator.py), or with FSDP2 the same
            // policy as torchtitan (fsdp2_prepare_model).
            r.weight = 4;
            r.gradient = 4;
            r.master = 0;
            r.reduce = 4;
            if (pureBf16Accelerate(c)) r.weight = r.gradient = r.reduce = r.compute;
            break;
        case Framework::torchtune:
            // Pure BF16 (recipes' _setup_model under set_default_dtype(bf16)); FSDP2 with no mixed-precision
            // policy (training/_distributed.py shard_model): gathered weights, gradients and the reduce-scatter
            // in the parameters' dtype.
            r.weight = r.gradient = r.reduce = r.compute;
            r.master = 0;
            break;
        case Framework::megatron:
        case Framework::deepspeed:
        case Framework::vllm:  // refused in training (validate)
        case Framework::sglang:
        case Framework::trtllm:
            r.weight = fp32 ? 4 : 2;
            r.gradient = fp32 ? 4 : c.staticBytes == 18 ? 4 : c.staticBytes == 20 ? 6 : 2;
            r.master = c.masterWeights && !fp32 ? 4 : 0;
            // DeepSpeed keeps a master partition even with bf16_master_weights_and_grads: a BF16 clone of the
            // parameter shard (stage3.py _create_fp32_partitions: the branch that would reuse the shard compares
            // a torch.device with the accelerator's device name, a string, and is never taken; v0.18.3 to
            // v0.19.6). DeepSpeedExamples training/bf16_master_weight measures the 6 B per parameter this leaves
            // between the two configurations (master 4 -> 2, Adam m and v 8 -> 4).
            if (c.framework == Framework::deepspeed && !c.masterWeights && !fp32) r.master = 2;
            r.reduce = r.weight;
            break;
    }
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
    if (stateElementBytes(c) == 2 && c.optimizer != Optimizer::adamw8bit) {
        r.statesHidden /= 2;
        r.statesEmbedding /= 2;
        r.statesVector /= 2;
        r.describe = c.optimizer == Optimizer::adamw ? "AdamW: BF16 m and v (the parameters' dtype)" : "optimizer states in BF16";
    }
    return r;
}

namespace {
// torchtitan and torchtune always wrap with FSDP2's fully_shard; accelerate does when it shards fully.
bool shardsWithFsdp2(const Config& c) { return shardsAllOrNothing(c.framework) || (c.framework == Framework::hfAccelerate && c.zero >= 3); }
}  // namespace

Gathering gatheringOf(const Config& c) {
    const bool fsdp2 = shardsWithFsdp2(c);
    // torchtitan's default reshard_after_forward is `not pp_enabled` (parallelize.py apply_fsdp), and the pipeline
    // stage turns off gradient sync for every micro-batch (torch pipelining stage.py backward_maybe_with_nosync):
    // each rank keeps its stage gathered and its gradients unsharded.
    if (fsdp2 && c.zero >= 3) return c.framework == Framework::torchtitan && c.pp > 1 ? Gathering::fsdp2Stage : Gathering::fsdp2Layers;
    if (c.framework == Framework::hfAccelerate && c.precision != Precision::fp32 && c.masterWeights) return Gathering::autocast;
    if (!fsdp2 && c.zero >= 3) return Gathering::zero3Layers;
    return Gathering::none;
}

// flatten: everything this file defines that the kernel calls (the layer walk, the static rates) is inlined here and in
// membudgetStage, as the architecture helpers in model/rank.hpp are: a call spills every live double (the SysV ABI
// saves no XMM register), and those spills and reloads were most of the kernel's time. The ledger calls both too.
[[gnu::flatten]] MembudgetTraining membudgetTraining(const Config& c) {
    MembudgetTraining t;  // every field set below
    fillDims(c, t.x);
    // Untied: the output layer sits on the last stage. Tied with PP > 1: Megatron-LM keeps a copy of
    // the embedding there to compute the logits (and all-reduces their gradients).
    t.outputOnLast = !c.tiedEmbeddings || c.pp > 1;
    fillRankParams(c, t.x, t.outputOnLast, t.p);
    t.shardGroup = c.dp * c.cp;  // Megatron's distributed optimizer shards over DP × CP; FSDP2 over dp_shard × CP
    t.rates = staticRates(c);
    const bool fsdp2 = shardsWithFsdp2(c);
    t.gathering = gatheringOf(c);
    t.outputGathered = fsdp2 && c.zero >= 3 && c.framework != Framework::torchtune;
    t.ddpBuckets = c.framework == Framework::hfAccelerate && c.zero < 3 && c.dp * c.cp > 1;
    // DeepSpeed's gradient reduce bucket: reduce_bucket_size, 5e8 elements by default (zero/config.py), in BF16.
    // reduce_bucket_size (stage3.py _setup_for_real_optimizer: one buffer per communication dtype, which defaults to
    // the model's); 0 is the HF Trainer's auto, hidden² (integrations/deepspeed.py).
    const double reduceElements = c.reduceBucketSize > 0 ? c.reduceBucketSize : c.hidden * c.hidden;
    t.reduceBucket = c.framework == Framework::deepspeed && c.zero >= 1 ? reduceElements * t.rates.weight : 0;
    // partitioned_param_coordinator.py fetch_sub_module: the module in use is always gathered, then
    // min(max_live − available, prefetch bucket) elements ahead of it.
    t.deepspeedZero3 = c.framework == Framework::deepspeed && c.zero >= 3;
    t.prefetchElements = std::min(c.prefetchBucketSize > 0 ? c.prefetchBucketSize : 0.9 * c.hidden * c.hidden, c.maxLiveParameters);
    t.subGroupElements = c.subGroupSize;
    t.gradientsFreed = c.optimizerInBackward;
    // torchtitan (train.py: optimizers.zero_grad() before each step's forward), torchtune (its recipes'
    // optimizer.zero_grad(set_to_none=True) after the step) and accelerate / transformers' Trainer
    // (model.zero_grad(), set_to_none by default since torch 2.0) free the .grad tensors each step; AccumulateGrad
    // allocates each one when its parameter's backward runs. Megatron-LM's grad buffer and DeepSpeed's partitions
    // persist. With gradient accumulation or a pipeline, an earlier micro-batch's backward already made them.
    t.gradientsInBackward =
        !t.gradientsFreed && c.pp == 1 && c.microbatches == 1 &&
        (c.framework == Framework::torchtitan || c.framework == Framework::torchtune || c.framework == Framework::hfAccelerate);
    t.offloadOptimizer = c.offload != Offload::none;
    t.offloadParameters = c.offload == Offload::all && c.zero >= 3;
    // Routed experts are replicated over the expert data-parallel group, TP × CP × DP / (ETP × EP)
    // (Megatron-LM's expert DP): their gradients and optimizer states shard over it.
    t.expertShardGroup = c.experts != 0 ? c.tp * c.cp * c.dp / (expertTensorParallel(c) * c.ep) : 1;
    t.mtpMoe = mtpIsMoe(c);
    t.style = layerStyle(c);
    // One walk per kind of layer gives its bytes with and without the attention core.
    const bool keepCore = c.ckpt == Checkpointing::none;
    const LayerBytes dense = layerBytes(c, t.x, t.style, false);
    t.fullLayerBytes = dense.withCore;
    if (c.ckpt == Checkpointing::op) {
        SumTensors saveList;
        forEachLayerTensor(c, t.x, t.style, {true, false, true}, saveList);
        t.denseLayerBytes = saveList.total;
    } else {
        t.denseLayerBytes = keepCore ? dense.withCore : dense.withoutCore;
    }
    const LayerBytes moe = c.experts != 0 ? layerBytes(c, t.x, t.style, true) : LayerBytes{};
    t.fullMoeLayerBytes = moe.withCore;
    t.moeLayerBytes = keepCore ? moe.withCore : moe.withoutCore;
    if (c.ckpt == Checkpointing::op && c.experts != 0) {
        SumTensors saveList;
        forEachLayerTensor(c, t.x, t.style, {true, true, true}, saveList);
        t.moeLayerBytes = saveList.total;
    }
    // Selective recomputation (the attention core; Megatron-LM's recompute_modules) keeps what it does not rebuild,
    // and rebuilds one layer's worth at a time.
    if (c.ckpt == Checkpointing::selective) {
        t.denseLayerBytes = dense.selective;
        t.moeLayerBytes = moe.selective;
    }
    t.coreBytes = t.fullLayerBytes - (c.ckpt == Checkpointing::selective ? dense.selective : dense.withoutCore);
    t.moeRebuiltBytes = c.ckpt == Checkpointing::selective ? moe.withCore - moe.selective : 0;
    t.mtpLayerBytes = c.ckpt == Checkpointing::full ? activationBytes(c) * t.x.b * t.x.sRank * t.x.h / t.x.spDivisor
                      : t.mtpMoe                    ? t.moeLayerBytes
                                                    : t.denseLayerBytes;
    return t;
}

namespace {

double alignUp(double bytes, double to) { return std::ceil(bytes / to) * to; }

// DeepEP's legacy Buffer as Megatron-LM's flex dispatcher sizes it (megatron/core/transformer/moe/fused_a2a.py
// get_buffer: the larger of the dispatch and combine configs' hints, hidden_bytes = 2h) from DeepEP's recommended
// configs (deep_ep/buffers/legacy.py get_dispatch_config, get_combine_config: NVLink and RDMA chunked receive
// tokens per rank count, 20 SMs) and its size hints (csrc/legacy/config.hpp get_nvl_buffer_size_hint,
// get_rdma_buffer_size_hint): per channel (10) and peer, the received tokens' hidden state, source metadata (8 B),
// 128 top-k indices (int64) and weights and 128 scales.
double legacyDeepepBytes(double ranks, double hidden) {
    struct Recommended {
        double ranks, dispatchRdmaSend, combineRdmaSend, nvlRecv;
    };
    static constexpr Recommended kConfigs[] = {{2, 6, 6, 256},   {4, 6, 6, 256},    {8, 6, 6, 256},    {16, 20, 12, 288},
                                               {24, 8, 8, 288},  {32, 8, 8, 288},   {48, 8, 8, 288},   {64, 8, 8, 288},
                                               {96, 12, 8, 480}, {128, 12, 8, 560}, {144, 12, 8, 720}, {160, 12, 8, 720}};
    // DeepEP asserts on another rank count; the next listed one up sizes it (the last for more).
    const Recommended* config = &kConfigs[std::size(kConfigs) - 1];
    for (const Recommended& candidate : kConfigs)
        if (candidate.ranks >= ranks) {
            config = &candidate;
            break;
        }
    const double channels = 10, hiddenBytes = 2 * hidden, perToken = hiddenBytes + 8 + 128 * 8 + 128 * 4 + 128 * 4;
    const double rdmaRanks = std::max(std::floor(ranks / 8), 1.0), nvlRanks = std::min(ranks, 8.0);
    const double nvl = alignUp(channels * nvlRanks * (2 * rdmaRanks + 3) * 4 + channels * nvlRanks * config->nvlRecv * perToken, 128);
    if (ranks <= 8) return nvl;
    // The RDMA receive queue, 128 tokens rounded up to a multiple of the send chunk, twice (send and receive).
    double rdma = 0;
    for (const double send : {config->dispatchRdmaSend, config->combineRdmaSend}) {
        const double recv = alignUp(128, send);
        rdma = std::max(rdma, alignUp(channels * rdmaRanks * (8 * 2 + 2) * 2 * 4 + channels * rdmaRanks * recv * 2 * (perToken + 16), 128));
    }
    return nvl + rdma;
}

}  // namespace

double deepepBufferBytes(const Config& c) {
    if (c.method != Method::membudget || c.mode != Mode::training || c.experts == 0 || c.moeDispatcher != MoeDispatcher::deepep ||
        c.ep * expertTensorParallel(c) <= 1)
        return 0;
    if (c.framework == Framework::megatron) return legacyDeepepBytes(c.ep * expertTensorParallel(c), c.hidden);
    // torchtitan's DeepEP v2 ElasticBuffer (torchtitan/distributed/deepep/deepep.py get_buffer), sized by
    // ElasticBuffer.get_buffer_size_hint (DeepEP csrc/elastic/buffer.hpp calculate_buffer_size) for
    // num_max_tokens_per_rank = a micro-batch's tokens on a rank (token_dispatcher.py
    // update_ep_token_dispatcher_config: per DP rank, divided by CP and TP). A token slot holds its BF16 hidden
    // state and its top-k indices (int64) and weights (FP32). Within one NVLink domain the receive side holds a slot
    // per token of every EP rank (dispatch) or of min(EP, k) (combine); across nodes a scale-up receive buffer of
    // every node's tokens, a scale-out send and receive buffer. The larger layout, 2 MiB aligned.
    const double tokens = std::ceil(c.mb * c.seq / (c.cp * c.tp)), k = c.expertsPerToken;
    const double dispatchToken = 2 * c.hidden + alignUp(8 * k + 4 * (1 + k), 16), combineToken = 2 * c.hidden + 8 * k;
    const double scaleUp = std::min(c.ep, c.gpusPerNode), scaleOut = std::ceil(c.ep / scaleUp);
    const double dispatch = scaleOut == 1 ? c.ep * tokens * dispatchToken : dispatchToken * tokens * (scaleUp * scaleOut + 1 + scaleOut);
    const double combine = scaleOut == 1 ? std::min(c.ep, k) * tokens * combineToken
                                         : combineToken * tokens * (std::min(scaleUp, k) * scaleOut + std::min(scaleOut, k) + scaleOut);
    return alignUp(std::max(dispatch, combine), 2 * kBytesPerMiB);
}

double asyncTpWorkspaceBytes(const Config& c) {
    if (c.method != Method::membudget || c.mode != Mode::training || !c.asyncTp || c.tp <= 1 || c.framework != Framework::torchtitan)
        return 0;
    // torch/distributed/_symmetric_memory get_symm_mem_workspace(group, min_size): one buffer per TP group, grown to
    // the largest request and kept, from CUDASymmetricMemoryAllocator (cuMemCreate, outside the caching allocator).
    // The fused matmul + reduce-scatter (_pipelined_produce_and_all2all) asks for two output chunks of the rank's
    // sequence shard, BF16 [b·s/TP, h] each (wo and w2 write h); the fused all-gather + matmul only its input shard.
    return 2 * 2 * std::ceil(c.mb * c.seq / (c.cp * c.tp)) * c.hidden;
}

double cublasWorkspaceBytes(const Config& c) {
    if (c.method != Method::membudget || c.mode != Mode::training) return 0;
    // PyTorch's cuBLAS workspace (aten/src/ATen/cuda/CublasHandlePool.cpp, getChosenWorkspaceSize): 32 MiB on
    // Hopper and newer, else :4096:2:16:8 = 8,519,680 bytes, allocated through the caching allocator; handles are
    // per thread, so the forward and autograd's backward thread each hold one.
    const GpuPreset* gpu = findGpuPreset(c.gpu);
    return (gpu ? gpu->computeCapability : 9.0) >= 9.0 ? 32 * kBytesPerMiB : 8519680;
}

double teWorkspaceBytes(const Config& c) {
    if (c.method != Method::membudget || c.mode != Mode::training || c.framework != Framework::megatron) return 0;
    // Transformer Engine's GEMM workspace (transformer_engine/pytorch/cpp_extensions/gemm.py
    // get_cublas_workspace_size_bytes): 32 MiB + 1 KiB on sm 9.0 and newer, else 4 MiB.
    const GpuPreset* gpu = findGpuPreset(c.gpu);
    return (gpu ? gpu->computeCapability : 9.0) >= 9.0 ? 32 * kBytesPerMiB + 1024 : 4 * kBytesPerMiB;
}

double teGroupedGemmWorkspaces(const Config& c) {
    // Megatron-LM's MoE layers with Transformer Engine run the experts as TE's GroupedLinear (TEGroupedMLP under
    // --moe-grouped-gemm, which its MoE recipes set). general_grouped_gemm takes get_cublas_workspace(device,
    // ub=False, grouped_gemm=True), cached for the process: one more TE workspace per compute stream,
    // tex.get_num_cublas_streams() = 4 (common/util/multi_stream.cpp, num_compute_streams; TransformerEngine d0067d0).
    return teWorkspaceBytes(c) > 0 && c.experts > 0 ? 4 : 0;
}

double workspaceBytes(const Config& c) {
    if (c.method != Method::membudget || c.mode != Mode::training) return 0;
    return 2 * cublasWorkspaceBytes(c) + (1 + teGroupedGemmWorkspaces(c)) * teWorkspaceBytes(c) + deepepBufferBytes(c) +
           asyncTpWorkspaceBytes(c);
}

double checkpointedLayers(const Config& c, double firstLayerOfStage, double stageLayers) {
    if (c.ckpt != Checkpointing::full) return 0;
    if (c.ckptEvery > 1) return std::floor((firstLayerOfStage + stageLayers) / c.ckptEvery) - std::floor(firstLayerOfStage / c.ckptEvery);
    if (c.recomputeLayers > 0) return std::min(stageLayers, c.vpp * c.recomputeLayers);
    return stageLayers;
}

namespace {

// A stage's weights by kind: what the optimizer states and the gathers are counted over.
struct StageMatrices {
    double denseLayers, hiddenMatrices, embeddingParams, vectorParams;
};

// Decides the stage's parameters on this GPU: its layers of each kind, the embedding on the first stage, the output
// layer and the MTP layers on the last; and of them, the weight matrices, the embeddings and the vectors.
StageMatrices stageParameters(const Config& c, const MembudgetTraining& t, double stageLayers, double firstLayerOfStage, bool first,
                              bool last, MembudgetStage& s) {
    const Dims& x = t.x;
    const RankParams& p = t.p;
    s.layers = stageLayers;
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
    const double hiddenMatrices = denseLayers * p.layerLinear + s.moeLayers * p.moeLayerLinear + mtpLinear;
    const double embeddingParams = (first ? p.embedding : 0) + (last ? p.output : 0) + s.mtpEmbedding;
    const double vectorParams = s.stageParams - hiddenMatrices - embeddingParams;
    return {denseLayers, hiddenMatrices, embeddingParams, vectorParams};
}

// Decides how the ZeRO stage shards the stage's parameters, gradients and optimizer states, and its experts' over
// their own group.
void stageShards(const Config& c, const MembudgetTraining& t, MembudgetStage& s) {
    // Static memory by precision, gradient convention and optimizer (staticRates), sharded by ZeRO stage.
    s.paramShard = c.zero >= 3 ? t.shardGroup : 1;
    s.gradShard = c.zero >= 2 ? t.shardGroup : 1;
    s.optimizerShard = c.zero >= 1 ? t.shardGroup : 1;
    s.expertParamShard = c.zero >= 3 ? t.expertShardGroup : 1;
    s.expertGradShard = c.zero >= 2 ? t.expertShardGroup : 1;
    s.expertOptimizerShard = c.zero >= 1 ? t.expertShardGroup : 1;
}

// Decides which copies of weights beyond the shards the stage holds: Transformer Engine's FP8 copies, and what ZeRO-3,
// FSDP2 (in FP8 with fp8_all_gather) and DeepSpeed gather.
void stageCopies(const Config& c, const MembudgetTraining& t, const StageMatrices& m, bool first, bool last, MembudgetStage& s) {
    const Dims& x = t.x;
    const RankParams& p = t.p;
    // Transformer Engine caches an FP8 copy of each linear weight for the micro-batches of a step.
    s.fp8Copies = c.precision == Precision::fp8 && c.fp8Recipe == Fp8Recipe::te ? m.hiddenMatrices + s.expertParams : 0;
    // ZeRO-3/FSDP gathers each layer's weights before use and prefetches the next: the largest module.
    s.gatheredLayer = c.zero >= 3 ? std::max(p.layer, first ? p.embedding : 0.0) : 0;
    // torchao's FP8 all-gather (float8/fsdp_utils.py WeightWithDynamicFloat8CastTensor.fsdp_pre_all_gather casts
    // each Float8Linear weight's shard to FP8 and fsdp_post_all_gather keeps the gathered FP8 data): a layer's
    // linear weights are gathered at 1 B; the embedding and norms stay at the compute dtype.
    s.gatheredLayerFp8 = c.fp8AllGather && s.gatheredLayer == p.layer ? p.layerLinear : 0;
    s.stageLinearFp8 = c.fp8AllGather ? m.denseLayers * p.layerLinear + s.moeLayers * p.moeLayerLinear : 0;
    // DeepSpeed gathers module by module (a Linear, the embedding, the output layer): the largest one of the stage.
    const double tpRank = x.t;
    const double expertMatrix = c.experts != 0 ? x.h * expertFfn(c) / expertTensorParallel(c) : 0;
    s.largestModule =
        c.zero >= 3 ? std::max({x.h * x.f / tpRank, x.h * x.h / tpRank, expertMatrix, first ? p.embedding : 0.0, last ? p.output : 0.0})
                    : 0;
    s.persistentParams = t.deepspeedZero3 ? persistentParameters(c, x, m.denseLayers, s.moeLayers, first, last, p.output > 0) : 0;
}

// Decides the optimizer states' bytes: by the shape of each parameter, or for adapters their own sizes and dtypes.
void stageStates(const Config& c, const MembudgetTraining& t, const StageMatrices& m, bool last, MembudgetStage& s) {
    const StaticRates& rates = t.rates;
    if (c.finetune == Finetune::full) {
        s.states = rates.statesHidden * m.hiddenMatrices + rates.statesEmbedding * m.embeddingParams + rates.statesVector * m.vectorParams;
        return;
    }
    // The adapters' sizes and dtypes (adapterStaticTerms says what each line holds of them).
    const LoraShape lora = loraShape(c, t.x);
    s.adapterParams = m.denseLayers * lora.denseLayer + s.moeLayers * lora.moeLayer + (last ? lora.output : 0);
    s.frozenBytesPerParam = rates.compute;
    s.quantizedParams = c.finetune == Finetune::qlora ? m.hiddenMatrices + s.expertParams : 0;
    s.adapterBytesPerParam = loraBytes(c);
    s.adapterStatesPerParam = c.optimizer == Optimizer::adamw       ? 2 * s.adapterBytesPerParam
                              : c.optimizer == Optimizer::sgd       ? s.adapterBytesPerParam
                              : c.optimizer == Optimizer::adamw8bit ? 2 + 8.0 / 2048
                                                                    : rates.statesHidden;
    s.dequantized = c.finetune == Finetune::qlora ? 2 * lora.largestMatrix : 0;
    s.states = s.adapterStatesPerParam * s.adapterParams;
}

// Decides where the stage peaks: in forward and backward (at the backward's start or end, where gradients are
// allocated during backward) or in the optimizer step, and what each line holds there.
void stagePhases(const Config& c, const MembudgetTraining& t, double stageLayers, bool atPeakPhase, double activations, MembudgetStage& s) {
    const Dims& x = t.x;
    // Phases: activations are freed before the optimizer step; with BF16 gradients the step works on an
    // FP32 copy of this rank's optimizer shard of them.
    s.forwardBackward = s.parameters + s.gradients + s.optimizer + activations;
    double backwardActivations = activations;
    s.gradientsAtPeak = s.gradients;
    if (atPeakPhase && t.gradientsInBackward && s.storedGradients > 0) {
        // Gradients made in backward: the phase peaks at the backward's start (the loss's backward, every saved
        // tensor, no gradient shard yet) or at its end (every shard, and the tensors of the first layer, whose
        // backward runs last: its input under full checkpointing and the layer rebuilt). Between the two the
        // memory moves linearly, layer by layer (each layer's tensors freed, its gradients allocated).
        const double layer = std::max(stageLayers > s.moeLayers ? t.fullLayerBytes : 0.0, s.moeLayers > 0 ? t.fullMoeLayerBytes : 0.0);
        s.backwardEndActivations = std::min(
            activations, ceilBytes(layer + (c.ckpt == Checkpointing::full ? activationBytes(c) * x.b * x.sRank * x.h / x.spDivisor : 0)));
        const double start = s.forwardBackward - s.storedGradients;
        const double end = s.parameters + s.gradients + s.optimizer + s.backwardEndActivations;
        s.backwardEndPeaks = end > start;
        s.gradientsPending = !s.backwardEndPeaks;
        s.forwardBackward = std::max(start, end);
        if (s.backwardEndPeaks)
            backwardActivations = s.backwardEndActivations;
        else
            s.gradientsAtPeak = s.gradients - s.storedGradients;
    }
    s.step = s.parameters + s.gradients + s.optimizer + s.stepTemporary;
    s.stepPeaks = atPeakPhase && s.step > s.forwardBackward;
    if (s.stepPeaks) {
        s.gradientsAtPeak = s.gradients;
        s.gradientsPending = s.backwardEndPeaks = false;
    }
    s.optimizerAtPeak = s.optimizer + (s.stepPeaks ? s.stepTemporary : 0);
    s.activations = s.stepPeaks ? 0 : backwardActivations;
}

}  // namespace

// flatten: as membudgetTraining, the stage's tensor walk and static terms inlined, not called.
[[gnu::flatten]] MembudgetStage membudgetStage(const Config& c, const MembudgetTraining& t, double i, double stageLayers,
                                               double firstLayerOfStage, bool atPeakPhase) {
    MembudgetStage s;  // every field without a default set below
    const bool first = i == 0, last = i == c.pp - 1;
    const StageMatrices matrices = stageParameters(c, t, stageLayers, firstLayerOfStage, first, last, s);
    stageShards(c, t, s);
    stageCopies(c, t, matrices, first, last, s);
    stageStates(c, t, matrices, last, s);
    // Each line is whole bytes: a shard that does not divide evenly is padded (Megatron-LM's distributed
    // optimizer pads its buffers to a multiple of the DP size; FSDP pads each parameter's first dimension).
    s.checkpointed = checkpointedLayers(c, firstLayerOfStage, stageLayers);
    SumStatic terms;
    forEachStaticTerm(c, t, s, first, last, terms);
    s.parameters = ceilBytes(terms.lines[static_cast<int>(StaticLine::parameters)]);
    s.gatheredParams = terms.gathered;
    s.gradients = ceilBytes(terms.lines[static_cast<int>(StaticLine::gradients)]);
    s.optimizer = ceilBytes(terms.lines[static_cast<int>(StaticLine::optimizer)]);
    s.stepTemporary = ceilBytes(terms.step);
    // Activations: every saved tensor, times the layer-copies in flight, plus the stage's extras.
    s.copies = inFlightLayerCopies(c, stageLayers, i);
    s.microbatches = inFlightMicrobatches(c, i);
    s.storedGradients = ceilBytes(terms.storedGradients);
    SumStage sum;
    forEachStageTensor(c, t, {stageLayers, s.moeLayers, s.copies, s.microbatches, s.mtpLayers, first, last, s.checkpointed}, sum);
    const double activations = ceilBytes(sum.total);
    s.activationsDuringBackward = activations;
    stagePhases(c, t, stageLayers, atPeakPhase, activations, s);
    return s;
}

// flatten: membudgetTraining and membudgetStage inlined here as well, so that the struct each returns stays in registers.
[[gnu::flatten]] PeakBytes membudgetTrainingPeak(const Config& c, std::span<const StageSpan> stages) {
    const MembudgetTraining t = membudgetTraining(c);
    // Rounded once, not on every stage: the loop's calls leave the compiler unable to reuse them.
    const double buffers = gigabytesToBytes(c.buffersGb), context = gigabytesToBytes(c.contextGb);
    const double allowances = buffers + context;
    const double workspace = workspaceBytes(c);
    PeakBytes peak{};
    peak.totalBytes = -1;
    for (const StageSpan& stage : stages) {
        const MembudgetStage s = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, true);
        // The same sum, in the same order, as evaluate() makes of the stage's lines.
        const double total = s.parameters + s.gradientsAtPeak + s.optimizerAtPeak + s.activations + workspace + buffers + context;
        const double staticBytes = s.parameters + s.gradients + s.optimizer + workspace + allowances;
        if (total > peak.totalBytes)
            peak = {s.parameters, s.gradientsAtPeak, s.optimizerAtPeak, s.activations, allowances,
                    total,        stage.index,       peak.staticBytes,  workspace};
        peak.staticBytes = std::max(peak.staticBytes, staticBytes);
    }
    return peak;
}

}  // namespace membudget::detail
