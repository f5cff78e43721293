// The serving-speed estimate (docs/inference.md, "Serving speed"). A replica decodes its `mb` requests one token each
// per step: every step reads the rank's weights (a MoE layer only the experts the batch routes to) and the requests'
// KV cache from HBM, runs their arithmetic at the tensor-core rate, the larger of the two setting the pace, then pays
// its all-reduces, all-to-alls and pipeline sends at NCCL's latency and bandwidth, and its kernel launches. Prefill
// runs the prompt's matmuls and causal attention at the achievable rates. In steady state every request's prompt is
// prefilled once per output_tokens decode steps: vLLM's scheduler puts those prompt chunks into the decode steps
// (chunked prefill, on by default in V1), SGLang runs them as their own prefill batches between decode batches.
#include "membudget/time/serving.hpp"

#include <algorithm>
#include <cmath>

#include "membudget/base/choices.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/presets.hpp"
#include "memory/ledger/inference.hpp"
#include "model/rank.hpp"
#include "time/collectives.hpp"
#include "time/cuda_graphs.hpp"
#include "time/moe_time.hpp"
#include "time/rates.hpp"
#include "time/runtime_constants.hpp"
#include "time/serving_bench.hpp"

namespace membudget {

namespace {

using detail::cudaGraphMaxBatch;
using detail::runtimeConstant;
using detail::RuntimeConstant;

// Kernel launches (docs/inference.md). Without CUDA graphs every kernel is launched from Python through PyTorch's
// dispatcher (eagerLaunchSeconds of host time each), and the GPU waits wherever its kernels are shorter than their
// launches. With graphs the host launches the whole step at once and graphNodeSeconds is left between kernels, and a
// small kernel still takes smallKernelSeconds on the GPU however little it does; decode's weight reads reach
// decodeHbmFraction of HBM's rated bandwidth, the attention kernels' KV-cache reads kvReadHbmFraction. Each constant is a published
// measurement, per vendor (docs/constants.md, time/runtime_constants.hpp). The small kernels of a decode step, as vLLM's models run them:
// per layer the two fused residual-add RMSNorms, rotary, the KV-cache write and SiLU-and-mul (5); MLA's latent norms, its Q/K split and the
// absorbed up-projections add 3; a fused-MoE layer adds the router's top-k, the align-and-sort of token ids, the expert
// activation and the weighted sum (4); per step the embedding, the final norm and about a dozen sampler kernels (15).
// The GEMMs and attention (4 and 1 per layer, 2 more per MoE layer) take their own time, counted above.
constexpr double kSmallKernelsPerLayer = 5, kSmallKernelsPerMlaLayer = 3, kSmallKernelsPerMoeLayer = 4, kSmallKernelsPerStep = 15;
constexpr double kWorkKernelsPerLayer = 5, kWorkKernelsPerMoeLayer = 2;

// The expected number of distinct experts n tokens route to, each choosing k of E without repeats and the choices
// spread evenly (the balanced routing serving benchmarks see on random data): E · (1 − (1 − k/E)^n).
double expectedExpertsTouched(double experts, double perToken, double tokens) {
    if (experts <= 0 || tokens <= 0) return 0;
    return experts * (1 - std::pow(std::max(0.0, 1 - perToken / experts), tokens));
}

// One pipeline stage's work for a batch of `decode` requests each one token forward at mean context `context`, plus
// `prompt` prompt tokens (attending `promptContext` tokens each on average) in the same forward pass.
struct StageWork {
    double weightBytes = 0, kvBytes = 0;  // read from HBM
    double matmulSeconds = 0, attentionSeconds = 0;
    double tensorParallel = 0, expertParallel = 0, pipeline = 0;
    double kernels = 0, smallKernels = 0;
};

struct Rates {
    double linear, attention, hbm, kvHbm;  // kvHbm: the attention kernels' reads of the KV cache
    detail::Bandwidths links;
};

// What every forward pass of the estimate reads, derived once per configuration: the dimensions, the rank's weights,
// the rates, the bytes of a weight and of a cached token, and the experts.
struct ServingModel {
    detail::Dims x;
    detail::RankParams rank;
    Rates rates;
    double perWeight, perExpertWeight, kvTokenBytes, pairFlops, stateBytes;
    double expertParamsOnRank, expertsOnRank, replicasPerExpertGroup, nodes;
    double eagerLaunchSeconds, graphNodeSeconds, smallKernelSeconds;  // the GPU's (docs/constants.md)
    bool graphs;
};

// One forward pass's tokens: `decode` requests each one token forward at mean context `context`, plus `prompt` prompt
// tokens attending `promptContext` tokens each on average.
struct Batch {
    double decode, context, prompt, promptContext;
};

// One forward pass of the whole replica, stage after stage (a decode token and a prompt chunk pass every stage).
struct Pass {
    double memory = 0, weights = 0, kv = 0, compute = 0, tp = 0, ep = 0, pp = 0, launch = 0, total = 0;
};

// Decides the request's lengths; false where either is under one token.
bool requestLengths(const Config& c, ServingTime& out) {
    // The request: input_tokens in and output_tokens out; where neither is given, seq split in half (stated).
    out.lengthsAssumed = c.inputTokens == 0 && c.outputTokens == 0;
    const double input = out.lengthsAssumed ? std::ceil(c.seq / 2) : c.inputTokens != 0 ? c.inputTokens : c.seq - c.outputTokens;
    const double output = out.lengthsAssumed ? c.seq - input : c.outputTokens != 0 ? c.outputTokens : c.seq - c.inputTokens;
    if (!(input >= 1) || !(output >= 1)) return false;
    out.inputTokens = input;
    out.outputTokens = output;
    return true;
}

// Decides what a served step of this configuration runs at and moves: the rates, a weight's and a cached token's
// bytes, the attention FLOPs of a (query, key) pair, the experts on the rank, and whether CUDA graphs replay it.
// `end`: the runtime constants' values, or the ends of their published ranges that make serving fastest or slowest.
void servingModel(const Config& c, ServingModel& m, detail::EstimateEnd end) {
    m.x = detail::dimsOf(c);
    const detail::Dims& x = m.x;
    m.rank = detail::rankParams(c, x, !c.tiedEmbeddings || c.pp > 1);
    const GpuPreset* gpu = findGpuPreset(c.gpu);
    // FP8 weights run FP8 GEMMs (vLLM's W8A8 FP8 on tensor cores that have it); INT4 and INT8 weight-only kernels
    // (Marlin, Machete) dequantize into BF16 GEMMs, MXFP4 experts likewise on GPUs without FP4 tensor cores.
    const double fp8Efficiency = c.fp8MatmulEfficiency > 0 ? c.fp8MatmulEfficiency : c.matmulEfficiency;
    auto latency = [&](RuntimeConstant id) { return runtimeConstant(id, c).at(end, false); };
    auto share = [&](RuntimeConstant id) { return runtimeConstant(id, c).at(end, true); };
    const double shape = share(RuntimeConstant::matmulShapeFraction);
    const double bf16Rate = c.peakTflops * 1e12 * c.matmulEfficiency * shape;
    const double link = share(RuntimeConstant::linkFraction);
    m.rates = {c.weightDtype == WeightDtype::fp8 && c.fp8Tflops > 0 ? c.fp8Tflops * 1e12 * fp8Efficiency * shape : bf16Rate,
               c.peakTflops * 1e12 * detail::flashAttentionShare(gpu) * share(RuntimeConstant::attentionKernelSpeedup),
               c.hbmTbps * 1e12 * share(RuntimeConstant::decodeHbmFraction),
               c.hbmTbps * 1e12 * share(RuntimeConstant::kvReadHbmFraction),
               {c.nvlinkGbps * 1e9 * link, c.networkGbps * 1e9 * link}};
    m.eagerLaunchSeconds = latency(RuntimeConstant::eagerLaunchSeconds);
    m.graphNodeSeconds = latency(RuntimeConstant::graphNodeSeconds);
    m.smallKernelSeconds = latency(RuntimeConstant::smallKernelSeconds);
    m.perWeight = detail::inferenceWeightBytes(c);
    m.perExpertWeight = detail::expertWeightBytes(c);
    const double kvBytes = detail::bytesOfDtype(c.kvDtype);
    // Per token and layer in the cache: K and V of the rank's KV heads (at least one, vLLM get_num_kv_heads), or MLA's
    // latent, whole on every rank, and DeepSeek-V3.2's indexer key.
    const double kvHeads = std::max(1.0, std::floor(c.kvHeads / m.x.at));
    const double indexerKey = c.indexHeads > 0 ? c.indexHeadDim + std::floor(c.indexHeadDim / 128) * 4 : 0;
    m.kvTokenBytes = c.kvLoraRank != 0 ? (c.kvLoraRank + c.qkRopeDim) * kvBytes + indexerKey : 2 * kvHeads * x.d * kvBytes;
    // Attention FLOPs per (query, key) pair and layer on the rank: QKᵀ over the query-key width and AV over the value
    // width, 2 FLOPs a multiply-add.
    const double qkWidth = c.kvLoraRank != 0 ? (c.qkNopeDim != 0 ? c.qkNopeDim : x.d) + c.qkRopeDim : x.d;
    const double vWidth = c.kvLoraRank != 0 && c.vHeadDim != 0 ? c.vHeadDim : x.d;
    m.pairFlops = 2 * x.headsRank * (qkWidth + vWidth);
    m.stateBytes = detail::recurrentStateBytes(c);
    const double matrices = x.gated ? 3 : 2;
    m.expertParamsOnRank = c.experts != 0 ? matrices * x.h * detail::expertFfn(c) / detail::expertTensorParallel(c) : 0;
    m.expertsOnRank = c.experts != 0 ? c.experts / c.ep : 0;
    // The tokens that reach one EP group's experts: each replica's own, and with EP across data-parallel replicas (vLLM's
    // --enable-expert-parallel: EP = TP × DP) every replica's of the group.
    m.replicasPerExpertGroup = std::max(1.0, c.ep / (c.tp * c.cp));
    m.nodes = std::ceil(c.tp / c.gpusPerNode);
    // Under data-parallel attention each group replays its own batch's graph (cuda_graph_runner.py can_run: the largest
    // group's tokens against cuda_graph_max_bs, which dp_size does not divide).
    m.graphs = !c.enforceEager && std::ceil(c.mb / c.attentionDp) <= cudaGraphMaxBatch(c);
}

// Decides what the stage's routed experts add to its work: the experts the tokens touch, read and multiplied, their
// all-to-alls and their kernels.
void expertWork(const Config& c, const ServingModel& m, double moeLayers, double tokens, StageWork& w, double& matmulFlops) {
    const double routed = tokens * m.replicasPerExpertGroup;
    const double touched = expectedExpertsTouched(m.expertsOnRank, c.expertsPerToken * m.expertsOnRank / c.experts, routed);
    // Each token picks k of E; on this rank's E/EP experts it lands k/EP times on average.
    w.weightBytes += moeLayers * touched * m.expertParamsOnRank * m.perExpertWeight;
    matmulFlops += moeLayers * 2 * routed * c.expertsPerToken / c.ep * m.expertParamsOnRank;
    // Dispatch and combine: one all-to-all each way of the tokens' top-k copies (moe_time.cpp), or under TP alone
    // the experts' partial sums join the layer's all-reduce.
    w.expertParallel = moeLayers * 2 * detail::expertAllToAllSeconds(c, tokens, m.rates.links.intraNode, m.rates.links.interNode);
    w.kernels += moeLayers * (kSmallKernelsPerMoeLayer + kWorkKernelsPerMoeLayer);
    w.smallKernels += moeLayers * kSmallKernelsPerMoeLayer;
}

// Decides one pipeline stage's work for a batch: the weights and cache it reads, its matmuls and attention, its
// communication and its kernels.
StageWork stageWork(const Config& c, const ServingModel& m, double stage, double from, double layers, const Batch& batch) {
    const detail::Dims& x = m.x;
    const double decode = batch.decode, context = batch.context, prompt = batch.prompt, promptContext = batch.promptContext;
    StageWork w;
    const double moeLayers = detail::moeLayersIn(c, from, layers);
    const bool last = stage == c.pp - 1;
    const double tokens = decode + prompt;
    // Weights: the stage's parameters on this GPU less the input embedding (a step reads only its tokens' rows) and the
    // routed experts, which are read as the tokens route (below); the output layer on the last stage.
    const detail::StageParameterCount params = detail::stageParameterCount(c, stage, from, layers);
    const double experts = moeLayers * m.rank.moeLayerExperts;
    const double embedding = stage == 0 ? m.rank.embedding : 0, outputLayer = last ? m.rank.output : 0;
    const double denseParams = std::max(0.0, params.perGpu - experts - embedding - outputLayer);
    w.weightBytes = denseParams * m.perWeight + outputLayer * 2;
    // Under data-parallel attention the GPU's attention takes its group's share of the tokens (1 / attention_dp), its
    // MLP and experts every group's.
    const double attention = std::min(denseParams, layers * m.rank.attentionLinear), share = 1 / c.attentionDp;
    double matmulFlops = 2 * tokens * (denseParams - attention * (1 - share) + outputLayer * (prompt > 0 ? decode / tokens : 1));
    if (moeLayers > 0) expertWork(c, m, moeLayers, tokens, w, matmulFlops);
    // Only the output layer's rows for the requests that sample: a prompt chunk's other tokens skip it.
    w.matmulSeconds = matmulFlops / m.rates.linear;
    // Attention: each decode token reads its sequence's cache in every full layer, the window in a sliding one, and
    // a linear-attention or Mamba layer's state is read and written back.
    const double fullLayers = detail::fullAttentionLayersIn(c, from, layers);
    const bool recurrent = m.stateBytes > 0;
    const double attentionLayers =
        c.layerPattern.empty() ? (recurrent ? fullLayers : layers) : detail::patternBlocksIn(c, from, layers).attention;
    const double localLayers = recurrent ? 0 : layers - fullLayers;
    const double window = c.slidingWindow > 0 ? c.slidingWindow : c.attentionChunk;
    const double stateLayers = recurrent ? layers - attentionLayers : 0;
    const double fullReads = c.layerPattern.empty() && !recurrent ? fullLayers : attentionLayers;
    const double tokensRead = fullReads * context + localLayers * std::min(context, window);
    w.kvBytes = decode * share * (tokensRead * m.kvTokenBytes + stateLayers * 2 * m.stateBytes);
    const double promptPairs = prompt * (fullReads * promptContext + localLayers * std::min(promptContext, window));
    w.attentionSeconds = (decode * tokensRead + promptPairs) * share * m.pairFlops / m.rates.attention;
    // TP: an all-reduce of the tokens' hidden states after attention and after the MLP (vLLM's custom all-reduce or
    // NCCL; NCCL's model here, collectives.hpp). Under data-parallel attention (SGLang's communicator.py) the attention's
    // all-reduce spans its group, on the group's tokens; every group's tokens are gathered before the MLP and
    // reduce-scattered after it (dp_gather_partial, dp_reduce_scatter_tensor): an all-gather and a reduce-scatter over TP,
    // one all-reduce's traffic.
    auto allReduce = [&](double bytes, double ranks) {
        const double nodes = std::ceil(ranks / c.gpusPerNode);
        return ranks > 1 ? detail::ncclRingSeconds(detail::ringAllReduce(bytes, ranks), m.rates.links.of(ranks, c.gpusPerNode),
                                                   2 * (ranks - 1), 2 * (nodes - 1))
                         : 0;
    };
    w.tensorParallel = c.attentionDp > 1 ? layers * (allReduce(tokens * share * x.h * 2, x.at) + allReduce(tokens * x.h * 2, c.tp))
                                         : 2 * layers * allReduce(tokens * x.h * 2, c.tp);
    if (c.pp > 1 && !last)
        w.pipeline =
            detail::ncclHopSeconds(2 * tokens * x.h * 2, m.rates.links.of(c.tp * c.pp, c.gpusPerNode), c.tp * c.pp > c.gpusPerNode);
    const double small =
        layers * (kSmallKernelsPerLayer + (c.kvLoraRank != 0 ? kSmallKernelsPerMlaLayer : 0)) + (last ? kSmallKernelsPerStep : 0);
    w.smallKernels += small;
    w.kernels += small + layers * kWorkKernelsPerLayer;
    return w;
}

// Decides one forward pass's time over every stage: each stage's reads or compute, whichever is longer, its
// communication and its kernel launches.
Pass pass(const Config& c, const ServingModel& m, const Batch& batch) {
    Pass p;
    // Graphs per attention group's batch; TensorRT-LLM runs passes with prompts and batches it did not capture eagerly.
    const double groupBatch = std::ceil(batch.decode / c.attentionDp);
    const bool graphs = c.framework == Framework::trtllm
                            ? !c.enforceEager && batch.prompt == 0 && detail::trtllmGraphCaptured(c, groupBatch)
                            : !c.enforceEager && groupBatch <= cudaGraphMaxBatch(c);
    double from = 0;
    for (double stage = 0; stage < c.pp; ++stage) {
        const double layers = detail::stageLayerCount(c, stage);
        const StageWork w = stageWork(c, m, stage, from, layers, batch);
        from += layers;
        const double weights = w.weightBytes / m.rates.hbm, kv = w.kvBytes / m.rates.kvHbm;
        const double compute = w.matmulSeconds + w.attentionSeconds;
        p.weights += weights;
        p.kv += kv;
        p.compute += std::max(0.0, compute - weights - kv);
        p.tp += w.tensorParallel;
        p.ep += w.expertParallel;
        p.pp += w.pipeline;
        // With graphs the launches are replayed back to back (a gap per node); eager launches stall the GPU only where
        // the host's launches outlast the stage's work.
        const double work = std::max(weights + kv, compute) + w.tensorParallel + w.expertParallel;
        const double onGpu = w.smallKernels * m.smallKernelSeconds + w.kernels * m.graphNodeSeconds;
        p.launch += onGpu + (graphs ? 0 : std::max(0.0, w.kernels * m.eagerLaunchSeconds - work - onGpu));
    }
    p.memory = p.weights + p.kv;
    p.total = p.weights + p.kv + p.compute + p.tp + p.ep + p.pp + p.launch;
    return p;
}

// Decides the time per output token: a decode step of the running batch, and the share of the prompts' prefill each
// step carries. Returns the decode step alone, which the time to first token waits for.
Pass decodeParts(const Config& c, const ServingModel& m, double input, double output, ServingTime& out) {
    // Pipeline parallelism: vLLM and SGLang keep PP micro-batches of the running requests in flight, one per stage, so
    // a request's token passes every stage while the other micro-batches use the rest.
    const double batch = c.mb / c.pp;
    const double meanContext = input + output / 2;
    const Pass decodeOnly = pass(c, m, {batch, meanContext, 0, 0});
    // The prompts: per decode step, the running requests bring mb × input / output prompt tokens in steady state.
    const double promptPerStep = c.mb * input / output;
    double prefillShare = 0;
    if (c.framework == Framework::trtllm && !c.chunkedPrefill) {
        // TensorRT-LLM's in-flight batching puts a whole prompt into a decode step (no chunking by default,
        // MicroBatchScheduler): mb / output prompts join the running batch per step, each pass with one run eagerly.
        const Pass withPrompt = pass(c, m, {batch, meanContext, input, input / 2});
        prefillShare = std::max(0.0, withPrompt.total - decodeOnly.total) * c.mb / output;
    } else if (c.framework == Framework::sglang) {
        // SGLang runs prefill batches on their own (enable_mixed_chunk off by default): the decode batch waits for them.
        // A prefill batch takes the waiting prompts up to chunked_prefill_size tokens.
        const double batchTokens = std::min(c.workspaceTokens, c.mb * input);
        const Pass prompt = pass(c, m, {0, 0, batchTokens, input / 2});
        prefillShare = prompt.total * promptPerStep / batchTokens;
    } else {
        // vLLM V1 schedules prompt chunks into the decode step, up to max_num_batched_tokens: their arithmetic fills what
        // the memory-bound step leaves idle, their communication adds.
        const Pass mixed = pass(c, m, {batch, meanContext, promptPerStep / c.pp, input / 2});
        prefillShare = std::max(0.0, mixed.total - decodeOnly.total);
    }
    if (c.experts != 0)
        out.expertsReadPerLayer =
            expectedExpertsTouched(m.expertsOnRank, c.expertsPerToken * m.expertsOnRank / c.experts, batch * m.replicasPerExpertGroup);
    auto at = [&out](DecodePart part) -> double& { return out.decodeSeconds[static_cast<size_t>(part)]; };
    at(DecodePart::weights) = decodeOnly.weights;
    at(DecodePart::kvCache) = decodeOnly.kv;
    at(DecodePart::compute) = decodeOnly.compute;
    at(DecodePart::tensorParallel) = decodeOnly.tp;
    at(DecodePart::expertParallel) = decodeOnly.ep;
    at(DecodePart::pipeline) = decodeOnly.pp;
    at(DecodePart::launch) = decodeOnly.launch;
    at(DecodePart::prefill) = prefillShare;
    out.computeBound = decodeOnly.compute > 0;
    for (double v : out.decodeSeconds) out.tpotSeconds += v;
    return decodeOnly;
}

// Decides the time to first token and its parts.
void prefillParts(const Config& c, const ServingModel& m, double input, const Pass& decodeOnly, ServingTime& out) {
    // TensorRT-LLM without chunked prefill runs the whole prompt in one pass (validate: it fits max_num_tokens).
    const double chunk = c.framework == Framework::trtllm && !c.chunkedPrefill ? input : std::max(1.0, c.workspaceTokens - c.mb);
    // Time to first token: the prompt's chunks, each in a step beside the running batch (vLLM), or a prefill batch of its
    // own after the decode step under way (SGLang).
    const double chunks = std::ceil(input / chunk);
    const Pass first = pass(c, m, {0, 0, std::min(input, chunk), input / 2});
    auto pre = [&out](PrefillPart part) -> double& { return out.prefillSeconds[static_cast<size_t>(part)]; };
    // The chunk's attention apart from its matmuls: the same pass without attention context.
    const Pass noAttention = pass(c, m, {0, 0, std::min(input, chunk), 0});
    const double attention = std::max(0.0, first.total - noAttention.total);
    pre(PrefillPart::matmuls) = chunks * noAttention.compute;
    pre(PrefillPart::attention) = chunks * attention;
    pre(PrefillPart::weights) = chunks * noAttention.weights;
    pre(PrefillPart::tensorParallel) = chunks * first.tp;
    pre(PrefillPart::expertParallel) = chunks * first.ep;
    pre(PrefillPart::pipeline) = chunks * (first.pp + first.launch);
    pre(PrefillPart::decodeBatch) = chunks * decodeOnly.total;
    for (double v : out.prefillSeconds) out.ttftSeconds += v;
}

// Decides the plain roofline beside the estimate.
void roofline(const Config& c, const ServingModel& m, double input, double output, ServingTime& out) {
    const double meanContext = input + output / 2;
    // The plain roofline beside it: every weight and the mean context's KV at the rated bandwidth, the prompt's FLOPs at the
    // dense peak.
    double allWeights = 0;
    for (double stage = 0, from = 0; stage < c.pp; ++stage) {
        const double layers = detail::stageLayerCount(c, stage);
        allWeights = std::max(allWeights, detail::stageParameterCount(c, stage, from, layers).perGpu * m.perWeight);
        from += layers;
    }
    const double kvPerGpu = c.mb * meanContext * c.layers / c.pp * m.kvTokenBytes;
    out.rooflineTpotSeconds = c.pp * (allWeights + kvPerGpu / c.pp) / (c.hbmTbps * 1e12);
    out.rooflineTtftSeconds = 2 * input * activeParameterCount(c) / out.gpusPerReplica / (c.peakTflops * 1e12);
    out.rooflineOutputTokensPerSecondPerGpu = c.mb / out.rooflineTpotSeconds / out.gpusPerReplica;
}

// A request's time and the throughput from TTFT and TPOT: mb requests in flight, each taking TTFT + (output − 1) × TPOT
// from its arrival to its last token (Little's law, as a benchmark at that concurrency counts it).
void throughput(const Config& c, ServingTime& out) {
    out.requestSeconds = out.ttftSeconds + (out.outputTokens - 1) * out.tpotSeconds;
    out.requestsPerSecondPerReplica = c.mb / out.requestSeconds;
    out.outputTokensPerSecondPerReplica = out.requestsPerSecondPerReplica * out.outputTokens;
    out.outputTokensPerSecondPerGpu = out.outputTokensPerSecondPerReplica / out.gpusPerReplica;
    out.outputTokensPerSecond = out.outputTokensPerSecondPerReplica * c.dp;
}

// The serving model bound for the benchmark: a pass of `decode` requests (spread over the PP micro-batches in flight, as
// decodeParts has them) and `prompt` prompt tokens.
// Under data-parallel attention one group is run, the others alike: the replica's pass carries every group's tokens.
struct BoundModel {
    const Config* c;
    const ServingModel* m;
    double groups;
};
double boundPassSeconds(const void* bound, double decode, double context, double prompt, double promptContext) {
    const auto& b = *static_cast<const BoundModel*>(bound);
    return pass(*b.c, *b.m, {decode * b.groups / b.c->pp, context, prompt * b.groups, promptContext}).total;
}

// Under a benchmark: TTFT, TPOT and the throughput become the benchmark's means; the steady state's parts are kept in
// proportion, the TTFT's excess over the steady state is the queue, and TPOT's is the other prompts run in between.
bool benchmark(const Config& c, const ServingModel& m, double admitted, ServingTime& out) {
    // An attention group schedules its own requests in its own budget: a TensorRT-LLM rank max_num_tokens, an SGLang
    // group chunked_prefill_size // dp_size (server_args.py _handle_data_parallelism).
    const double groups = c.attentionDp;
    const BoundModel bound{&c, &m, groups};
    detail::BenchmarkLoad load;
    load.engine = c.framework;
    load.wholePrompts = c.framework == Framework::trtllm && !c.chunkedPrefill;
    // Requests shared by replicas and groups; mb sent a replica, run as far as its KV cache holds them, the rest queued.
    load.prompts = std::ceil(c.numPrompts / c.dp / groups);
    load.requestRate = c.requestRate / c.dp / groups;
    const double inFlight = admitted >= 1 ? std::min(c.mb, admitted) : c.mb;
    load.maxConcurrency = std::ceil(c.mb / groups);
    if (inFlight < c.mb) load.engineLimit = std::ceil(inFlight / groups);
    load.input = out.inputTokens, load.output = out.outputTokens, load.rangeRatio = c.lengthRangeRatio;
    load.recvInterval = c.framework == Framework::sglang ? c.schedulerRecvInterval : 1;
    load.tokenBudget = c.framework == Framework::trtllm ? c.workspaceTokens : std::max(1.0, std::floor(c.workspaceTokens / groups));
    detail::BenchmarkFigures run;
    if (!detail::simulateBenchmark(load, {&bound, &boundPassSeconds}, run)) return false;
    out.benchmarked = true;
    out.admittedSequences = inFlight < c.mb ? inFlight : 0;
    out.prompts = c.numPrompts;
    out.requestRate = c.requestRate;
    out.lengthRangeRatio = c.lengthRangeRatio;
    out.steadyTtftSeconds = out.ttftSeconds;
    out.steadyTpotSeconds = out.tpotSeconds;
    auto pre = [&out](PrefillPart part) -> double& { return out.prefillSeconds[static_cast<size_t>(part)]; };
    if (run.ttftMean >= out.ttftSeconds) {
        pre(PrefillPart::queue) = run.ttftMean - out.ttftSeconds;
    } else {
        for (double& part : out.prefillSeconds) part *= run.ttftMean / out.ttftSeconds;
    }
    if (run.tpotMean >= out.tpotSeconds) {
        out.decodeSeconds[static_cast<size_t>(DecodePart::prefill)] += run.tpotMean - out.tpotSeconds;
    } else {
        for (double& part : out.decodeSeconds) part *= run.tpotMean / out.tpotSeconds;
    }
    out.ttftSeconds = run.ttftMean;
    out.tpotSeconds = run.tpotMean;
    out.ttftP99Seconds = run.ttftP99;
    out.tpotP99Seconds = run.tpotP99;
    out.itlMeanSeconds = run.itlMean;
    out.itlP99Seconds = run.itlP99;
    out.benchmarkSeconds = run.duration;
    out.meanInputTokens = run.meanInput;
    out.meanOutputTokens = run.meanOutput;
    out.requestSeconds = run.latencyMean;
    out.requestsPerSecondPerReplica = run.requestsPerSecond * groups;
    out.outputTokensPerSecondPerReplica = run.outputTokensPerSecond * groups;
    out.outputTokensPerSecondPerGpu = out.outputTokensPerSecondPerReplica / out.gpusPerReplica;
    out.outputTokensPerSecond = out.outputTokensPerSecondPerReplica * c.dp;
    return true;
}

// One estimate of the serving speed, with the constants at `end`.
ServingTime servingAt(const Config& c, detail::EstimateEnd end, double admitted) noexcept {
    ServingTime out;
    if (!requestLengths(c, out)) return ServingTime{};
    const double input = out.inputTokens, output = out.outputTokens;
    out.concurrency = c.mb;
    out.gpusPerReplica = c.tp * c.pp * c.cp;
    ServingModel m;  // every field set by servingModel
    servingModel(c, m, end);
    out.cudaGraphs = m.graphs;
    const Pass decodeOnly = decodeParts(c, m, input, output, out);
    prefillParts(c, m, input, decodeOnly, out);
    throughput(c, out);
    out.framework = c.framework;
    out.replicas = c.dp;
    if (c.numPrompts > 0 && !benchmark(c, m, admitted, out)) return ServingTime{};
    roofline(c, m, input, output, out);
    out.estimated = std::isfinite(out.tpotSeconds) && out.tpotSeconds > 0 && std::isfinite(out.ttftSeconds);
    if (!out.estimated) return ServingTime{};
    return out;
}
}  // namespace

ServingTime estimateServingTimeValue(const Config& c, double admitted) noexcept {
    if (c.mode != Mode::inference || !(c.peakTflops > 0) || !(c.hbmTbps > 0) || !(c.nvlinkGbps > 0) || !(c.networkGbps > 0) ||
        !(c.matmulEfficiency > 0) || !(c.seq > 0) || !(c.mb > 0))
        return ServingTime{};
    return servingAt(c, detail::EstimateEnd::value, admitted);
}

ServingTime estimateServingTime(const Config& c, double admitted) noexcept {
    ServingTime out = estimateServingTimeValue(c, admitted);
    if (!out.estimated) return out;
    // The band: the same configuration with every constant at its range's fast and slow ends, each bounding the value.
    // TTFT and TPOT are reported at their bands' midpoints, their parts in proportion; the throughput follows from them.
    const ServingTime fast = servingAt(c, detail::EstimateEnd::fast, admitted), slow = servingAt(c, detail::EstimateEnd::slow, admitted);
    if (!fast.estimated || !slow.estimated) return ServingTime{};
    out.ttftSecondsLow = std::min(fast.ttftSeconds, out.ttftSeconds);
    out.ttftSecondsHigh = std::max(slow.ttftSeconds, out.ttftSeconds);
    out.tpotSecondsLow = std::min(fast.tpotSeconds, out.tpotSeconds);
    out.tpotSecondsHigh = std::max(slow.tpotSeconds, out.tpotSeconds);
    const double ttft = (out.ttftSecondsLow + out.ttftSecondsHigh) / 2, tpot = (out.tpotSecondsLow + out.tpotSecondsHigh) / 2;
    for (double& part : out.prefillSeconds) part *= ttft / out.ttftSeconds;
    for (double& part : out.decodeSeconds) part *= tpot / out.tpotSeconds;
    if (out.benchmarked) {
        // The benchmark's figures at the band's midpoints: its P99s and ITL in proportion, the throughput the middle of
        // its own band.
        // The throughput follows the midpoints as a request's time does (TTFT + (output − 1) × TPOT at the mean output),
        // as the steady state's follows them through Little's law.
        const double perRequest = out.ttftSeconds + (out.meanOutputTokens - 1) * out.tpotSeconds;
        const double scale = perRequest / (ttft + (out.meanOutputTokens - 1) * tpot);
        out.ttftP99Seconds *= ttft / out.ttftSeconds;
        out.tpotP99Seconds *= tpot / out.tpotSeconds;
        out.itlMeanSeconds *= tpot / out.tpotSeconds;
        out.itlP99Seconds *= tpot / out.tpotSeconds;
        out.ttftSeconds = ttft;
        out.tpotSeconds = tpot;
        const double low = std::min(slow.outputTokensPerSecondPerGpu, out.outputTokensPerSecondPerGpu);
        const double high = std::max(fast.outputTokensPerSecondPerGpu, out.outputTokensPerSecondPerGpu);
        for (double* v : {&out.outputTokensPerSecondPerGpu, &out.outputTokensPerSecondPerReplica, &out.outputTokensPerSecond,
                          &out.requestsPerSecondPerReplica})
            *v *= scale;
        out.requestSeconds /= scale;
        out.benchmarkSeconds /= scale;
        out.outputTokensPerSecondPerGpuLow = low;
        out.outputTokensPerSecondPerGpuHigh = high;
        return out;
    }
    out.ttftSeconds = ttft;
    out.tpotSeconds = tpot;
    throughput(c, out);
    out.outputTokensPerSecondPerGpuLow = std::min(slow.outputTokensPerSecondPerGpu, out.outputTokensPerSecondPerGpu);
    out.outputTokensPerSecondPerGpuHigh = std::max(fast.outputTokensPerSecondPerGpu, out.outputTokensPerSecondPerGpu);
    return out;
}

}  // namespace membudget
