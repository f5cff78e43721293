// mode=inference (method membudget): weights at their type, the KV cache as vLLM sizes it, the activation
// workspace of one forward pass and CUDA graphs, per pipeline stage.
#include "memory/ledger/inference.hpp"

#include <algorithm>
#include <cmath>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

namespace {

// Bytes per linear-layer weight in inference: the element, plus its quantization scales. INT8 keeps one FP16
// scale per output channel (≈ 2 / input channels a weight, taken at h); INT4 (AWQ/GPTQ) one FP16 scale and one
// INT4 zero point per group of input channels; FP8 one FP32 scale per 128 x 128 block, as block-quantized
// checkpoints keep them (vLLM fp8.py Fp8LinearMethod, weight_scale_inv for weight_block_size [128, 128];
// DeepSeek-V3's quantization_config): a per-tensor FP8 checkpoint keeps one scale, 0.02% less, so this never
// under-counts either.
constexpr double kFp8BlockWeights = 128.0 * 128.0;

}  // namespace

double inferenceWeightBytes(const Config& c) {
    if (c.weightDtype == WeightDtype::int4) return 0.5 + 2.5 / c.quantGroup;
    if (c.weightDtype == WeightDtype::int8) return 1 + 2 / c.hidden;
    if (c.weightDtype == WeightDtype::fp8) return 1 + 4 / kFp8BlockWeights;
    return bytesOfDtype(c.weightDtype);
}

double expertWeightBytes(const Config& c) {
    return c.experts != 0 && c.expertWeightDtype == ExpertWeights::mxfp4 ? 0.5 + 1.0 / 32 : inferenceWeightBytes(c);
}

double recurrentStateBytes(const Config& c) {
    if (c.linearValueHeads > 0)
        return ((2 * c.linearKeyHeads * c.linearKeyDim + c.linearValueHeads * c.linearValueDim) / c.tp * (c.linearConvKernel - 1) +
                c.linearValueHeads / c.tp * c.linearKeyDim * c.linearValueDim) *
               2;
    if (c.layerPattern.find('M') == std::string::npos) return 0;
    const double channels = c.mambaHeads * c.mambaHeadDim, bc = 2 * mambaGroupsOverTp(c) * c.mambaState;
    return (channels + bc) / c.tp * (c.mambaConvKernel - 1) * 2 +
           c.mambaHeads / c.tp * c.mambaHeadDim * c.mambaState * (c.mambaStateDtype == StateDtype::fp32 ? 4 : 2);
}

namespace {

// What every stage of the served model shares, derived once: the KV cache's geometry, the profiling run's
// workspace, the weight type and its text, MXFP4 experts and the hybrid allocator's pages.
struct Served {
    Dims x;
    RankParams p;
    double perWeight, kvBytes, kvHeads, blocksPerSequence, tokensCached, slidingBlocks, sequences;
    bool local;
    double forwardTokens, attentionWidth, mlpWidth, moeWidth, mambaWidth, forwardRaw, samplerRequests, samplerRaw, receivedRaw;
    bool mamba;
    std::string forwardText, samplerText, perWeightText, dtypeNote;
    bool mxfp4;
    double paddedExpertFfn, mxfp4Experts, mxfp4Biases;
    bool stateful;
    double stateBytes, attentionTokenPage, hybridBlock, hybridPage, hybridBlocks;
};

// Decides the KV cache's pages per sequence: full layers keep the sequence, local layers at most their window or
// chunk and the scheduled tokens.
void cacheGeometry(const Config& c, Served& s) {
    s.kvBytes = bytesOfDtype(c.kvDtype);
    // vLLM ModelConfig.get_num_kv_heads: max(1, total_kv_heads // TP), TP the attention's (SGLang's attn_tp_size under
    // data-parallel attention).
    s.kvHeads = std::max(1.0, std::floor(c.kvHeads / s.x.at));
    s.blocksPerSequence = std::ceil(c.seq / c.kvBlock);
    // Under data-parallel attention each attention group caches its own requests: the busiest holds ⌈mb / D⌉.
    s.sequences = std::ceil(c.mb / c.attentionDp);
    s.tokensCached = s.sequences * s.blocksPerSequence * c.kvBlock;
    // A sliding-window layer keeps the last W − 1 tokens and the T newly scheduled ones of chunked prefill, never
    // more than the sequence, plus one block because the window may start inside one (vLLM kv_cache_interface.py
    // SlidingWindowSpec.max_memory_usage_bytes, with max_model_len = s and T = max_num_batched_tokens).
    // A chunked local layer keeps at most its chunk and the T scheduled tokens, never more than the sequence (vLLM's
    // ChunkedLocalAttentionSpec.max_admission_blocks_per_request: cdiv(min(C + T, max_model_len), block)).
    // TensorRT-LLM reserves each request's blocks to completion, a windowed layer's at most its window
    // (kvCacheManager.cpp getRemainingBlocksToCompletion: ⌈min(prompt + max new tokens, window) / tokens_per_block⌉).
    const bool trtllm = c.framework == Framework::trtllm;
    const double window = c.slidingWindow > 0 ? c.slidingWindow : c.attentionChunk;
    s.slidingBlocks = trtllm && window > 0   ? std::ceil(std::min(window, c.seq) / c.kvBlock)
                      : c.slidingWindow > 0  ? std::ceil(std::min(c.slidingWindow - 1 + c.workspaceTokens, c.seq) / c.kvBlock) + 1
                      : c.attentionChunk > 0 ? std::ceil(std::min(c.attentionChunk + c.workspaceTokens, c.seq) / c.kvBlock)
                                             : 0;
    s.local = c.slidingWindow > 0 || c.attentionChunk > 0;
}

// Decides the profiling run's workspace: the widest moment of one layer's forward, and the sampler's pass.
void profilingWorkspace(const Config& c, Served& s) {
    const Dims& x = s.x;
    // vLLM's profiling run (gpu_worker.determine_available_memory → gpu_model_runner.profile_run) is what sizes
    // the KV cache: a dummy forward of T = max_num_batched_tokens tokens, then on the last pipeline stage a dummy
    // sampler pass over min(max_num_seqs, T) requests. The forward's widest moment of a layer holds the hidden
    // state and residual with either attention's Q/K/V and output or the MLP's gate/up and activation.
    s.forwardTokens = std::min(c.workspaceTokens, c.mb * c.seq);
    s.attentionWidth = 2 * (x.headsRank * x.d * 2 + 2 * s.kvHeads * x.d);
    s.mlpWidth = x.gated ? 6 * x.f / x.t : 4 * x.f / x.t;
    // A MoE layer's fused experts hold, per token and each of its top-k experts, the gate/up output (2·d_expert),
    // the activation (d_expert) and the down projection's output (h), BF16 (vLLM fused_moe.py,
    // fused_experts_impl: intermediate_cache1/2/3 of M × top_k × N, N/2 and K), with d_expert split by ETP.
    s.moeWidth = c.experts != 0 ? 2 * c.expertsPerToken * (3 * expertFfn(c) / expertTensorParallel(c) + x.h) : 0;
    // A Mamba-2 mixer holds in_proj's output, the convolved x, B and C, and the scan's output, BF16 (vLLM
    // MambaMixer2.forward: projected_states, hidden_states_B_C, preallocated_ssm_out).
    s.mamba = c.layerPattern.find('M') != std::string::npos;
    const double mambaChannels = c.mambaHeads * c.mambaHeadDim, mambaBc = 2 * mambaGroupsOverTp(c) * c.mambaState;
    s.mambaWidth =
        s.mamba ? 2 * ((2 * mambaChannels + mambaBc + c.mambaHeads) / x.t + (mambaChannels + mambaBc) / x.t + mambaChannels / x.t) : 0;
    const double widest = std::max({s.attentionWidth, s.mlpWidth, s.moeWidth, s.mambaWidth});
    s.forwardRaw = s.forwardTokens * (4 * x.h + widest);
    // The sampler's pass, per element of requests × vocabulary: compute_logits' BF16 logits, gathered to the
    // full vocabulary on every TP rank (LogitsProcessor._gather_logits, all-gather on CUDA) and held by
    // _dummy_sampler_run (2 B); Sampler.forward's FP32 copy (4 B); top-k/top-p masked in place
    // (apply_top_k_top_p), then TopKTopPSampler.forward_native's FP32 softmax (4 B) and random_sample's FP32
    // exponential noise (4 B): 14 B. The forward's output hidden states (T × h) stay alive through it, with the
    // requests' last-token rows and their random stand-in (2 × requests × h).
    s.samplerRequests = std::min(c.mb, s.forwardTokens);
    s.samplerRaw = s.forwardTokens * x.h * 2 + 2 * s.samplerRequests * x.h * 2 + s.samplerRequests * x.V * 14;
    // A stage after the first receives the hidden state and residual of T tokens: _dummy_run allocates
    // intermediate_tensors (make_empty_intermediate_tensors at max_num_tokens, BF16) during the profile and
    // keeps them.
    s.receivedRaw = 2 * s.forwardTokens * x.h * 2;
    const double thirdWidth = s.moeWidth > 0 ? s.moeWidth : s.mambaWidth;
    s.forwardText = thirdWidth > 0 ? fill("# × (4 × # + max(#, #, #))", {s.forwardTokens, x.h, s.attentionWidth, s.mlpWidth, thirdWidth})
                                   : fill("# × (4 × # + max(#, #))", {s.forwardTokens, x.h, s.attentionWidth, s.mlpWidth});
    s.samplerText = fill("# × # × 2 + 2 × # × # × 2 + # × # × 14", {s.forwardTokens, x.h, s.samplerRequests, x.h, s.samplerRequests, x.V});
}

// Decides how a weight is stored and says so: the weight type's bytes and their text, and MXFP4 experts.
void weightFormat(const Config& c, Served& s) {
    const Dims& x = s.x;
    s.perWeight = inferenceWeightBytes(c);
    s.perWeightText = c.weightDtype == WeightDtype::int4   ? fill("(0.5 + 2.5 / #)", {c.quantGroup})
                      : c.weightDtype == WeightDtype::int8 ? fill("(1 + 2 / #)", {c.hidden})
                      : c.weightDtype == WeightDtype::fp8  ? fill("(1 + 4 / #)", {kFp8BlockWeights})
                                                           : exprNumber(s.perWeight);
    s.dtypeNote = c.weightDtype == WeightDtype::int4   ? "INT4 with an FP16 scale and INT4 zero per " + n(c.quantGroup) + " input channels"
                  : c.weightDtype == WeightDtype::int8 ? "INT8 with an FP16 scale per output channel"
                  : c.weightDtype == WeightDtype::fp8  ? "FP8 with an FP32 scale per 128 × 128 block"
                                                       : std::string(toString(c.weightDtype));
    s.mxfp4 = c.experts != 0 && c.expertWeightDtype == ExpertWeights::mxfp4;
    const double matrices = x.gated ? 3 : 2;
    s.paddedExpertFfn = std::ceil(expertFfn(c) / expertTensorParallel(c) / 64) * 64;
    s.mxfp4Experts = c.experts / c.ep * matrices * x.h * s.paddedExpertFfn;
    s.mxfp4Biases = x.mlpBias ? c.experts / c.ep * ((matrices - 1) * s.paddedExpertFfn + x.h) : 0;
}

// Decides the hybrid allocator's page, where layers keep a recurrent state rather than tokens.
void hybridPages(const Config& c, Served& s) {
    const Dims& x = s.x;
    // Gated DeltaNet layers (Qwen3-Next) keep a state per sequence, not tokens: a convolution state of
    // (2·key + value)/TP channels × (kernel − 1) and a delta-rule state of value heads/TP × key dim × value dim, in the
    // model's dtype (vLLM MambaStateShapeCalculator.gated_delta_net_state_shape, mamba_cache_dtype auto). vLLM's
    // hybrid allocator gives every layer pages of one size: the attention block grows to the smallest multiple of 16
    // tokens whose page holds a state (HybridAttentionMambaModelConfig.verify_and_update_config), the state's page is
    // padded to it, and a sequence takes one page in each linear layer (prefix caching off) and ⌈s/block⌉ in each
    // full one.
    // (recurrentStateBytes)
    // A Mamba-2 layer's state (vLLM MambaStateShapeCalculator.mamba2_state_shape): a convolution state of
    // (I + 2·groups·state)/TP channels × (kernel − 1) in the model's dtype, and an SSM state of heads/TP × head_dim ×
    // state in mamba_ssm_cache_dtype, which NemotronH's hook takes from the config (float32 by default;
    // NemotronHForCausalLMConfig, MambaStateDtypeCalculator.mamba2_state_dtype). Paged as the linear layers' are.
    // (recurrentStateBytes)
    s.stateful = c.linearValueHeads > 0 || s.mamba;
    s.stateBytes = recurrentStateBytes(c);
    s.attentionTokenPage = 2 * s.kvHeads * x.d * s.kvBytes;
    s.hybridBlock = s.stateful ? std::max(c.kvBlock, 16 * std::ceil(s.stateBytes / (16 * s.attentionTokenPage))) : 0;
    // Without attention layers a page is the state alone (vLLM MambaSpec.page_size_bytes).
    const bool attentionFree = s.stateful && fullAttentionLayersIn(c, 0, c.layers) == 0;
    s.hybridPage = attentionFree ? s.stateBytes : s.stateful ? s.hybridBlock * s.attentionTokenPage : 0;
    s.hybridBlocks = s.stateful ? std::ceil(c.seq / s.hybridBlock) : 0;
}

// The layers of one stage by kind, and where the stage sits in the pipeline.
struct StageKinds {
    bool first, last;
    double moeLayers, denseLayers, fullLayers, linearLayers, slidingLayers, stateLayers;
    PatternBlocks blocks;
    BlockParams hybrid;
};

// Decides what kind each layer of the stage is: MoE or dense, full, local or linear attention, hybrid blocks.
StageKinds stageKinds(const Config& c, const Served& s, double i, double from, double layers) {
    StageKinds k;
    k.first = i == 0;
    k.last = i == c.pp - 1;
    // Every layer of the stage at its own kind: a MoE layer holds its attention, shared expert, router and
    // norms, and its routed experts split over EP (and within each expert over ETP; vLLM's
    // --enable-expert-parallel is ep = TP × DP with etp = 1, without it the experts are split by TP).
    k.moeLayers = moeLayersIn(c, from, layers);
    k.denseLayers = layers - k.moeLayers;
    k.fullLayers = fullAttentionLayersIn(c, from, layers);
    k.linearLayers = c.linearValueHeads > 0 ? layers - k.fullLayers : 0;
    // A hybrid stack's blocks, each at its own kind (layer_pattern).
    k.blocks = patternBlocksIn(c, from, layers);
    k.hybrid = c.layerPattern.empty() ? BlockParams{} : hybridStageParams(c, s.x, from, layers);
    k.stateLayers = c.linearValueHeads > 0 ? k.linearLayers : k.blocks.mamba;
    k.slidingLayers = s.local ? layers - k.fullLayers : 0;
    return k;
}

// Decides the stage's weights: linear layers at the weight type, the rest in BF16, MXFP4 experts at their own.
Line weightsLine(const Config& c, const Served& s, const StageKinds& k, double layers) {
    const RankParams& p = s.p;
    // Linear layers are stored at the weight type; routers (vLLM's ReplicatedLinear gate without a quant
    // config), norms, biases, embeddings and the output layer stay BF16.
    // MXFP4 experts (vLLM quantization/mxfp4.py, Mxfp4MoEMethod.create_weights): w13 and w2 as uint8 pairs of
    // E2M1 values (0.5 B) with one uint8 E8M0 scale per 32, d_expert per rank padded to a multiple of 64
    // (round_up(intermediate_size_per_partition, 64) on CUDA), and the biases made FP32 after loading.
    const double expertsMxfp4 = s.mxfp4 ? k.moeLayers * s.mxfp4Experts : 0, expertBiasesFp32 = s.mxfp4 ? k.moeLayers * s.mxfp4Biases : 0;
    const double linear = c.layerPattern.empty()
                              ? k.denseLayers * p.layerLinear + k.moeLayers * (p.moeLayerLinear + (s.mxfp4 ? 0 : p.moeLayerExperts)) +
                                    k.linearLayers * p.linearLayerLinearDelta
                              : k.hybrid.linear;
    const double rest = (c.layerPattern.empty() ? k.denseLayers * (p.layer - p.layerLinear) + k.linearLayers * p.linearLayerRestDelta +
                                                      k.moeLayers * (p.moeLayer - p.moeLayerLinear - (s.mxfp4 ? p.moeLayerExpertBiases : 0))
                                                : k.hybrid.rest) +
                        (k.first ? p.embedding : 0) + (k.last ? p.finalNorm + p.output : 0);
    const double weightsRaw = linear * s.perWeight + rest * 2 + expertsMxfp4 * (0.5 + 1.0 / 32) + expertBiasesFp32 * 4;
    const double weights = std::ceil(weightsRaw);
    const std::string weightsText =
        wholeBytes(exprNumber(linear) + " × " + s.perWeightText + fill(" + # × 2", {rest}) +
                       (s.mxfp4 ? fill(" + # × (0.5 + 1/32) + # × 4", {expertsMxfp4, expertBiasesFp32}) : std::string()),
                   weightsRaw);
    return {
        LineId::parameters,
        "Weights",
        "P_linear × bytes(weight_dtype) + P_other × 2",
        weightsText,
        weights,
        "Linear layers in " + s.dtypeNote + "; embeddings, output layer, norms" + (c.experts != 0 ? ", routers" : "") +
            " and biases in BF16; " + n(layers) + " layers on this stage" +
            (c.layerPattern.empty()
                 ? ""
                 : " (" + n(k.blocks.mamba) + " Mamba-2, " + n(k.blocks.attention) + " attention and " + n(k.blocks.mlp) + " MLP blocks)") +
            (k.moeLayers > 0 ? " (" + n(k.moeLayers) + " MoE layers, " + n(c.experts / c.ep) + " routed experts each on this GPU" +
                                   (expertTensorParallel(c) > 1 ? ", each split over " + n(expertTensorParallel(c)) + " ranks" : "") + ")"
                             : "") +
            (s.mxfp4 ? "; the routed experts in MXFP4 (0.5 B and a 1-byte scale per 32 weights, d_expert padded to " +
                           n(s.paddedExpertFfn) + "), their biases FP32 (vLLM's Mxfp4MoEMethod)"
                     : ""),
        Method::membudget};
}

// Decides the KV cache line of a hybrid stack: full layers' pages and one state page per stateful layer.
Line hybridCacheLine(const Config& c, const Served& s, const StageKinds& k, double kv) {
    const std::string stateName = c.linearValueHeads > 0 ? "linear" : "Mamba";
    const std::string stateText = c.linearValueHeads > 0
                                      ? "the Gated DeltaNet state of " + n(s.stateBytes) + " B per sequence in each of " +
                                            n(k.stateLayers) + " linear-attention layers"
                                      : "the Mamba-2 state of " + n(s.stateBytes) + " B per sequence (convolution BF16, SSM " +
                                            std::string(toString(c.mambaStateDtype)) + ") in each of " + n(k.stateLayers) + " Mamba layers";
    return {
        LineId::kvCache,
        "KV cache and states",
        "b × page × (full layers × ⌈s/block⌉ + " + stateName + " layers), block = max(kv_block, 16 × ⌈state / (16 × token page)⌉)",
        n(s.sequences) + " × " + n(s.hybridPage) + " × (" + n(k.fullLayers) + " × " + n(s.hybridBlocks) + " + " + n(k.stateLayers) + ")",
        kv,
        "K and V of " + n(s.sequences) + " sequences × " + n(c.seq) + " tokens in " + n(k.fullLayers) + " full-attention layers (" +
            n(s.attentionTokenPage) + " B per token, blocks of " + n(s.hybridBlock) + " tokens), and " + stateText +
            ", padded to a page of " + n(s.hybridPage) +
            " B (vLLM's hybrid allocator: MambaSpec beside FullAttentionSpec, one page size; prefix caching off)",
        Method::membudget};
}

// Decides the stage's KV cache: MLA's latent, K and V by layer kind, or the hybrid allocator's pages.
Line kvCacheLine(const Config& c, const Served& s, const StageKinds& k, double layers) {
    const Dims& x = s.x;
    // MLA caches one latent of kv_lora_rank + qk_rope_dim per token and layer, the same on every TP rank
    // (vLLM MLAAttentionSpec: no factor 2, one head).
    // DeepSeek-V3.2's indexer keeps one key per token and layer beside it, FP8 with an FP32 scale per 128
    // (vLLM's Indexer: DeepseekV32IndexerCache of head_dim + head_dim // 128 × 4 bytes, uint8, in the KV cache's
    // pages), whatever kv_dtype is.
    const double indexerKeyBytes = c.indexHeads > 0 ? c.indexHeadDim + std::floor(c.indexHeadDim / 128) * 4 : 0;
    double kv = c.kvLoraRank != 0 ? layers * ((c.kvLoraRank + c.qkRopeDim) * s.kvBytes + indexerKeyBytes) * s.tokensCached
                                  : 2 * s.kvHeads * x.d * s.kvBytes * s.sequences * c.kvBlock *
                                        (k.fullLayers * s.blocksPerSequence + k.slidingLayers * s.slidingBlocks);
    if (s.stateful) kv = s.sequences * s.hybridPage * (k.fullLayers * s.hybridBlocks + k.stateLayers);
    const bool mla = c.kvLoraRank != 0;
    std::string kvNote =
        mla ? "MLA's compressed latent and RoPE key of " + n(s.sequences) + " sequences × " + n(c.seq) + " tokens, " +
                  std::string(toString(c.kvDtype)) + ", the same on every TP rank (vLLM's MLAAttentionSpec)" +
                  (indexerKeyBytes > 0 ? "; with the indexer's key of " + n(indexerKeyBytes) +
                                             " B per token and layer (FP8 and its scales; vLLM's DeepseekV32IndexerCache)"
                                       : std::string())
            : "K and V of " + n(s.sequences) + " sequences × " + n(c.seq) + " tokens, " + std::string(toString(c.kvDtype)) + ", " +
                  n(s.kvHeads) + " KV heads per GPU" + (c.kvHeads < c.tp ? " (replicated: TP > kv_heads)" : "") +
                  (c.framework == Framework::trtllm && s.local
                       ? "; " + n(k.slidingLayers) + " of the " + n(layers) + " layers attend within " +
                             n(c.slidingWindow > 0 ? c.slidingWindow : c.attentionChunk) + " tokens"
                   : c.slidingWindow > 0 ? "; " + n(k.slidingLayers) + " of the " + n(layers) + " layers slide over " + n(c.slidingWindow) +
                                               " tokens and keep at most the window, the chunk of " + n(c.workspaceTokens) +
                                               " prefill tokens and one block (vLLM's SlidingWindowSpec)"
                   : c.attentionChunk > 0 ? "; " + n(k.slidingLayers) + " of the " + n(layers) + " layers attend within chunks of " +
                                                n(c.attentionChunk) + " tokens and keep at most one chunk and " + n(c.workspaceTokens) +
                                                " prefill tokens (vLLM's ChunkedLocalAttentionSpec)"
                   : c.framework == Framework::trtllm ? std::string()
                                                      : " (vLLM's formula)");
    if (c.framework == Framework::trtllm && !mla)
        kvNote += "; TensorRT-LLM reserves each request's blocks of " + n(c.kvBlock) +
                  " tokens for its whole length before admitting it (GUARANTEED_NO_EVICT, kvCacheManager.cpp "
                  "getRemainingBlocksToCompletion" +
                  (s.local ? "; a windowed layer at most its window" : std::string()) + ")";
    if (c.attentionDp > 1)
        kvNote += "; data-parallel attention: this GPU's group of " + n(s.x.at) + " caches ⌈" + n(c.mb) + " / " + n(c.attentionDp) +
                  "⌉ of the " + n(c.mb) + " requests (" +
                  (c.framework == Framework::trtllm ? "TensorRT-LLM enable_attention_dp" : "SGLang --enable-dp-attention") +
                  ", a scheduler and KV pool a group)";
    if (s.stateful) return hybridCacheLine(c, s, k, kv);
    if (!mla && s.local)
        return {LineId::kvCache,
                "KV cache",
                c.framework == Framework::trtllm ? "2 × max(1, kv/TP) × head_dim × bytes × b × block × (full layers × ⌈s/block⌉ + "
                                                   "windowed layers × ⌈min(W, s)/block⌉)"
                : c.slidingWindow > 0 ? "2 × max(1, kv/TP) × head_dim × bytes × b × block × (full layers × ⌈s/block⌉ + "
                                        "sliding layers × (⌈min(W − 1 + T, s)/block⌉ + 1))"
                                      : "2 × max(1, kv/TP) × head_dim × bytes × b × block × (full layers × ⌈s/block⌉ + "
                                        "chunked layers × ⌈min(C + T, s)/block⌉)",
                "2 × " + n(s.kvHeads) + " × " + n(x.d) + " × " + n(s.kvBytes) + " × " + n(s.sequences) + " × " + n(c.kvBlock) + " × (" +
                    n(k.fullLayers) + " × " + n(s.blocksPerSequence) + " + " + n(k.slidingLayers) + " × " + n(s.slidingBlocks) + ")",
                kv,
                kvNote,
                Method::membudget};
    return {LineId::kvCache,
            "KV cache",
            mla ? (indexerKeyBytes > 0 ? "layers × ((kv_lora_rank + qk_rope_dim) × bytes + indexer key) × b × ⌈s/block⌉ × block"
                                       : "layers × (kv_lora_rank + qk_rope_dim) × bytes × b × ⌈s/block⌉ × block")
                : "2 × layers × max(1, kv/TP) × head_dim × bytes × b × ⌈s/block⌉ × block",
            (mla ? (indexerKeyBytes > 0 ? n(layers) + " × ((" + n(c.kvLoraRank) + " + " + n(c.qkRopeDim) + ") × " + n(s.kvBytes) + " + " +
                                              n(indexerKeyBytes) + ")"
                                        : n(layers) + " × (" + n(c.kvLoraRank) + " + " + n(c.qkRopeDim) + ") × " + n(s.kvBytes))
                 : "2 × " + n(layers) + " × " + n(s.kvHeads) + " × " + n(x.d) + " × " + n(s.kvBytes)) +
                " × " + n(s.sequences) + " × " + n(s.blocksPerSequence) + " × " + n(c.kvBlock),
            kv,
            kvNote,
            Method::membudget};
}

// Decides the stage's workspace: the profiling forward, the sampler on the last stage, the received tensors after
// the first.
Line workspaceLine(const Config& c, const Served& s, bool first, bool last) {
    const Dims& x = s.x;
    // TensorRT-LLM's profiling run (_util.py KvCacheCreator.configure_kv_cache_capacity) prefills dummy requests of
    // max_num_tokens tokens that each sample one token from their last position: its sampler holds a few requests'
    // logits, not vLLM's dummy sampler pass over max_num_seqs.
    const bool sampler = last && c.framework != Framework::trtllm;
    const double workspaceRaw = (first ? 0 : s.receivedRaw) + (sampler ? std::max(s.forwardRaw, s.samplerRaw) : s.forwardRaw);
    const double workspace = std::ceil(workspaceRaw);
    const std::string workspaceText = wholeBytes((first ? std::string() : fill("2 × # × # × 2 + ", {s.forwardTokens, x.h})) +
                                                     (sampler ? "max(" + s.forwardText + ", " + s.samplerText + ")" : s.forwardText),
                                                 workspaceRaw);
    const std::string widths = " tokens (attention " + n(s.attentionWidth) + " B, MLP " + n(s.mlpWidth) + " B" +
                               (s.moeWidth > 0 ? ", fused MoE " + n(s.moeWidth) + " B" : "") +
                               (s.mambaWidth > 0 ? ", Mamba-2 mixer " + n(s.mambaWidth) + " B" : "") + " per token)";
    const std::string workspaceNote =
        (c.framework == Framework::trtllm
             ? "TensorRT-LLM's profiling run (KvCacheCreator.configure_kv_cache_capacity): dummy prefills of " + n(s.forwardTokens) +
                   widths + ", the widths of vLLM's kernels taken for TensorRT-LLM's (not read from its fused kernels)"
             : "vLLM's profiling run: a forward of " + n(s.forwardTokens) + widths +
                   (last ? ", then the sampler over " + n(s.samplerRequests) + " requests × " + n(x.V) + " logits at 14 B" : "")) +
        (first ? "" : "; the previous stage's hidden state and residual") + "; compiled graphs' buffers not modelled";
    return {LineId::activations,
            "Workspace",
            std::string(first ? "" : "2·T·h·2 + ") +
                (sampler ? "max(T × (4h + max(attention, MLP, MoE or Mamba width)), T·h·2 + 4·r·h + r × V × 14)"
                         : "T × (4h + max(attention, MLP, MoE or Mamba width))"),
            workspaceText,
            workspace,
            workspaceNote,
            Method::membudget};
}

}  // namespace

// Inference: weights at their type, the KV cache as vLLM sizes it, the activation workspace of one forward
// pass, CUDA graphs; per pipeline stage.
MethodOutput inferenceMethod(const Config& c, double psi) {
    (void)psi;
    MethodOutput out;
    Served s;
    s.x = dimsOf(c);
    const std::vector<double> layers = stageLayers(c);
    s.p = rankParams(c, s.x, !c.tiedEmbeddings || c.pp > 1);
    cacheGeometry(c, s);
    profilingWorkspace(c, s);
    weightFormat(c, s);
    hybridPages(c, s);
    double firstLayer = 0;
    for (double i = 0; i < c.pp; ++i) {
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        stage.inFlightMicrobatches = c.mb;
        const StageKinds kinds = stageKinds(c, s, i, firstLayer, stage.layers);
        firstLayer += stage.layers;
        stage.lines.push_back(weightsLine(c, s, kinds, stage.layers));
        stage.lines.push_back(kvCacheLine(c, s, kinds, stage.layers));
        stage.lines.push_back(workspaceLine(c, s, kinds.first, kinds.last));
        stage.lines.push_back(
            {LineId::cudaGraphs, "CUDA graphs", "cuda_graphs_gb × 10⁹", gigabytesText(c.cudaGraphsGb), gigabytesToBytes(c.cudaGraphsGb),
             c.framework == Framework::trtllm ? "Captured CUDA graphs (an allowance; TensorRT-LLM captures decode batches up to "
                                                "cuda_graph_max_batch, each \"up to 200 MB\", CudaGraphConfig)"
                                              : "Captured CUDA graphs (an allowance; vLLM reports it at start-up)",
             std::nullopt});
        out.stages.push_back(std::move(stage));
    }
    if (c.mtpLayers > 0)
        out.warnings.push_back({"mtp_layers",
                                "the multi-token-prediction layers are not loaded for inference (vLLM loads them "
                                "only as a speculative-decoding draft); they are left out of the weights"});
    return out;
}

}  // namespace membudget::detail
