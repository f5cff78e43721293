#include "membudget/model/architecture.hpp"

#include <cmath>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "model/pipeline_layout.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

namespace {

// torchtitan's split (torchtitan/distributed/pipeline_parallel.py, generate_llm_fqn_per_model_part): the layers
// plus one "effective layer" each for the embedding and the output (pipeline_parallel_first/last_stage_less_layers,
// default 1) are cut into S = pp × vpp virtual stages, the first E mod S stages taking one more; the first and the
// last virtual stage give their effective layer back to the embedding and the output. Rank r holds the virtual
// stages r, r + pp, … ("loop" placement of the multi-stage schedules), so a rank's layers need not divide by vpp.
double torchtitanStageLayers(const Config& c, double stage) {
    const double stages = c.pp * c.vpp, effective = c.layers + 2;
    const double per = std::floor(effective / stages), extra = effective - per * stages;
    double layers = 0;
    for (double v = stage; v < stages; v += c.pp) layers += per + (v < extra ? 1 : 0) - (v == 0 ? 1 : 0) - (v == stages - 1 ? 1 : 0);
    return layers;
}

}  // namespace

double stageLayerCount(const Config& c, double stage) {
    // Megatron-LM's custom layout: pipeline rank r builds the virtual stages r, r + PP, … (PipelineParallelLayerLayout
    // turns the flat list into layout[pp_rank][vpp_rank] = list[vpp_rank · PP + pp_rank]). An unreadable layout holds
    // nothing (validate() names it).
    if (!c.pipelineLayout.empty()) {
        const ParsedLayout& layout = parsePipelineLayout(c.pipelineLayout);
        double layers = 0;
        for (size_t v = static_cast<size_t>(stage); v < layout.chunks.size(); v += static_cast<size_t>(c.pp))
            layers += layout.chunks[v].decoder;
        return layers;
    }
    if (c.pp == 1) return c.layers;
    const bool firstSet = c.firstStageLayers != 0, lastSet = c.lastStageLayers != 0;
    if (c.framework == Framework::torchtitan && !firstSet && !lastSet) return torchtitanStageLayers(c, stage);
    if (c.splitAccounts != SplitAccounts::none && !firstSet && !lastSet) {
        // Megatron-LM get_num_layers_to_build: (layers + the accounted embedding and loss) / pp a stage, less the
        // embedding on the first and the loss on the last.
        const bool embedding = c.splitAccounts == SplitAccounts::embedding || c.splitAccounts == SplitAccounts::both;
        const bool loss = c.splitAccounts == SplitAccounts::loss || c.splitAccounts == SplitAccounts::both;
        const double perStage = (c.layers + (embedding ? 1 : 0) + (loss ? 1 : 0)) / c.pp;
        return perStage - (stage == 0 && embedding ? 1 : 0) - (stage == c.pp - 1 && loss ? 1 : 0);
    }
    if (stage == 0 && firstSet) return c.firstStageLayers;
    if (stage == c.pp - 1 && lastSet) return c.lastStageLayers;
    // The stages [from, to) share what remains evenly.
    const double remaining = c.layers - c.firstStageLayers - c.lastStageLayers;
    const double from = firstSet ? 1 : 0, to = lastSet ? c.pp - 1 : c.pp;
    const double count = to - from;
    if (count <= 0) return 0;
    const double base = std::floor(remaining / count);
    const double extra = remaining - base * count;
    // The remainder goes to the stages after the first, which does not also hold the embedding.
    const double firstExtra = std::max(from, 1.0);
    return base + (stage >= firstExtra && stage < firstExtra + extra ? 1 : 0);
}

}  // namespace membudget::detail

namespace membudget {

std::vector<double> stageLayers(const Config& c) {
    std::vector<double> layers(static_cast<size_t>(c.pp), 0);
    for (size_t i = 0; i < layers.size(); ++i) layers[i] = detail::stageLayerCount(c, static_cast<double>(i));
    return layers;
}

}  // namespace membudget

namespace membudget::detail {

double inFlightLayoutCopies(const Config& c, double chunks, double stage) {
    // Uneven model chunks: the k-th forward of the warm-up runs model chunk (k mod PP·v) ÷ PP (schedules.py
    // get_model_chunk_id, micro-batches in groups of PP), so each in-flight chunk counts its own layers.
    const ParsedLayout& layout = parsePipelineLayout(c.pipelineLayout);
    double copies = 0;
    for (double k = 0; k < chunks; ++k) {
        const double chunk = std::floor(std::fmod(k, c.pp * c.vpp) / c.pp);
        const double v = chunk * c.pp + stage;
        if (v < static_cast<double>(layout.chunks.size())) copies += layout.chunks[static_cast<size_t>(v)].decoder;
    }
    return copies;
}

Dims dimsOf(const Config& c) {
    Dims x;  // every field set by fillDims
    fillDims(c, x);
    return x;
}

void fillDims(const Config& c, Dims& x) {
    x.b = c.mb;
    x.s = c.seq;
    x.sRank = c.seq / c.cp;
    x.h = c.hidden;
    x.a = c.heads;
    x.kv = c.kvHeads;
    x.d = headDimOf(c);
    x.f = c.ffn;
    x.V = c.vocab;
    x.t = c.tp;
    // Sequence parallelism shards the LayerNorm/dropout regions and the saved inputs of the column-parallel
    // linears over the TP group (Korthikanti et al. 2022 §4.2.2; Megatron-LM re-gathers them in backward).
    x.spDivisor = c.sp ? c.tp : 1;
    x.gated = c.gatedFfn;
    x.layernorm = c.norm == Norm::layernorm;
    x.bias = c.bias;
    x.attentionBias = c.bias || c.attentionBias;
    x.mlpBias = c.bias || c.mlpBias;
    x.dropout = c.dropout;
    x.flash = c.attention != Attention::eager;  // Triton's flash-style kernel saves what FlashAttention saves
    // SGLang's data-parallel attention splits the attention over tp / attention_dp GPUs (dp_attention.py
    // compute_dp_attention_world_info: attn_tp_size = tp_size // dp_size), the rest over all of TP.
    x.at = c.attentionDp > 1 ? c.tp / c.attentionDp : c.tp;
    x.headsRank = c.heads / x.at;
    // Megatron-LM and vLLM keep max(1, kv/TP) KV heads per rank, replicating them when TP exceeds kv.
    x.kvHeadsRank = std::max(1.0, std::ceil(c.kvHeads / x.at));
    // The adapters' set, read from its text here once for every layer walk of this configuration.
    x.adapted = c.finetune != Finetune::full ? parseLoraTargets(c.loraTargets) : LoraTargets{};
    x.recompute = {};
    if (c.ckpt == Checkpointing::selective) {
        if (c.framework == Framework::megatron)
            x.recompute = parseRecomputeModules(c.recomputeModules);
        else
            x.recompute.coreAttn = true;
    }
}

LinearAttentionParams linearAttentionParams(const Config& c, double tp) {
    if (c.linearValueHeads == 0) return {};
    // transformers' Qwen3NextGatedDeltaNet and vLLM's: in_proj_qkvz (h -> 2·key + 2·value), in_proj_ba
    // (h -> 2·value heads) and out_proj (value -> h), column- and row-parallel; conv1d (depthwise over
    // 2·key + value channels), dt_bias and A_log per value head, split by TP; the gated RMSNorm of a value head whole.
    const double keys = c.linearKeyHeads * c.linearKeyDim, values = c.linearValueHeads * c.linearValueDim;
    const double conv = 2 * keys + values;
    return {.linear = (c.hidden * (2 * keys + 2 * values) + c.hidden * 2 * c.linearValueHeads + values * c.hidden) / tp,
            .rest = (conv * c.linearConvKernel + 2 * c.linearValueHeads) / tp + c.linearValueDim};
}

IndexerParams indexerParams(const Config& c) {
    if (c.indexHeads == 0) return {};
    // vLLM's Indexer: wq_b (q_lora_rank -> heads x head_dim, quantized with the model), wk and weights_proj fused
    // (hidden -> head_dim + heads, never quantized) and k_norm, a LayerNorm of head_dim; all ReplicatedLinear.
    return {.query = c.qLoraRank * c.indexHeads * c.indexHeadDim,
            .keyAndWeights = c.hidden * (c.indexHeadDim + c.indexHeads),
            .norm = 2 * c.indexHeadDim};
}

double queryKeyNormParams(const Config& c) {
    switch (c.qkNorm) {
        case QkNorm::perHead:
            return 2 * headDimOf(c);  // q_norm and k_norm of head_dim, shared by the heads
        case QkNorm::fullWidth:
            return (c.heads + c.kvHeads) * headDimOf(c);
        default:
            return 0;
    }
}

RankParams rankParams(const Config& c, const Dims& x, bool lastStageHoldsOutput) {
    RankParams p;
    fillRankParams(c, x, lastStageHoldsOutput, p);
    return p;
}

void fillRankParams(const Config& c, const Dims& x, bool lastStageHoldsOutput, RankParams& p) {
    const double norm = x.layernorm ? 2 * x.h : x.h;
    // Every norm of a layer: the two before attention and the MLP, the post-norms after them, and the query/key
    // norms, which vLLM and Megatron-LM replicate on every TP rank (OLMo 2's full-width ones are gathered whole).
    const double layerNorms = normsPerLayer(c) * norm + queryKeyNormParams(c);
    // A gated output doubles the query projection: it gives the queries and their gate (Qwen3NextAttention).
    // The attention's matrices split over its TP (x.at: all of TP, or tp / attention_dp under data-parallel attention).
    double q = x.h * x.a * x.d / x.at * (c.attnOutputGate ? 2 : 1), o = x.a * x.d * x.h / x.at;
    double kvWeights = 2 * x.h * x.kvHeadsRank * x.d;
    if (c.kvLoraRank != 0) {
        // MLA: the down-projections (and their latent norms) are replicated on TP ranks, the up-projections
        // split by heads (Megatron-LM's MLASelfAttention).
        const double nope = c.qkNopeDim != 0 ? c.qkNopeDim : x.d, v = c.vHeadDim != 0 ? c.vHeadDim : x.d;
        const double qk = nope + c.qkRopeDim;
        q = c.qLoraRank != 0 ? x.h * c.qLoraRank + c.qLoraRank + c.qLoraRank * x.a * qk / x.at : x.h * x.a * qk / x.at;
        kvWeights = x.h * (c.kvLoraRank + c.qkRopeDim) + c.kvLoraRank + c.kvLoraRank * x.a * (nope + v) / x.at;
        o = x.a * v * x.h / x.at;
    }
    const double matrices = x.gated ? 3 : 2;
    const double mlp = matrices * x.h * x.f / x.t;
    // Column-parallel biases are split by TP; the row-parallel ones (attention output, FC2) are whole.
    const double qkvBiases = x.attentionBias || c.qkvBias ? x.a * x.d / x.at + 2 * x.kvHeadsRank * x.d : 0;
    const double attentionBiases = qkvBiases + (x.attentionBias ? x.h : 0);
    const double mlpBiases = x.mlpBias ? (matrices - 1) * x.f / x.t + x.h : 0;
    const double sinks = c.attentionSinks ? x.headsRank : 0;  // one logit per head, split by TP with the heads
    // DeepSeek-V3.2's indexer, whole on every TP rank: its query projection is a linear layer of the model's format,
    // its key/weight projection and norm stay BF16.
    const IndexerParams indexer = indexerParams(c);
    q += indexer.query;
    const double indexerRest = indexer.keyAndWeights + indexer.norm;
    // Every field is set, the zeros too: `p` is the caller's (the kernel's MembudgetTraining::p), not zeroed first.
    // A linear-attention layer (Gated DeltaNet) in place of a full-attention one: its projections for the
    // attention's matrices, its convolution, gates and norm for the attention's biases, sinks and QK norms.
    p.linearLayerLinearDelta = p.linearLayerRestDelta = 0;
    if (c.linearValueHeads > 0) {
        const LinearAttentionParams linear = linearAttentionParams(c, x.t);
        p.linearLayerLinearDelta = linear.linear - (q + o + kvWeights);
        p.linearLayerRestDelta = linear.rest - (attentionBiases + sinks + queryKeyNormParams(c) + indexerRest);
    }
    p.attentionLinear = q + o + kvWeights;
    p.layerLinear = q + o + kvWeights + mlp;
    p.layer = q + o + kvWeights + mlp + attentionBiases + mlpBiases + sinks + layerNorms + indexerRest;
    p.moeLayerLinear = p.moeLayerExperts = p.moeLayerExpertBiases = p.moeLayer = 0;
    if (c.experts != 0) {
        const double shared = matrices * x.h * c.sharedExpertFfn / x.t;
        p.moeLayerLinear = q + o + kvWeights + shared;
        p.moeLayerExperts = c.experts / c.ep * matrices * x.h * expertFfn(c) / expertTensorParallel(c);
        // With biases, each routed expert has its gate/up biases (split by ETP) and its down bias (gpt-oss's
        // gate_up_proj_bias and down_proj_bias).
        p.moeLayerExpertBiases = x.mlpBias ? c.experts / c.ep * ((matrices - 1) * expertFfn(c) / expertTensorParallel(c) + x.h) : 0;
        p.moeLayer = p.moeLayerLinear + attentionBiases + sinks + layerNorms + indexerRest + x.h * c.experts +
                     (c.routerBias ? c.experts : 0) + (c.sharedExpertGate && c.sharedExpertFfn > 0 ? x.h : 0) + p.moeLayerExpertBiases;
    }
    // Under SGLang's data-parallel attention the input embedding is split over the attention's TP group
    // (deepseek_v2.py: VocabParallelEmbedding(..., use_attn_tp_group=is_dp_attention_enabled())), the output layer over
    // all of TP (ParallelLMHead without --enable-dp-lm-head).
    p.embedding = x.V * x.h / x.at + c.posEmb * x.h + (c.embeddingNorm ? norm : 0) + c.visionParams;
    // The output layer's bias is split by TP with its rows; a tied output keeps its own bias.
    p.output = (lastStageHoldsOutput ? x.V * x.h / x.t : 0) + (c.outputBias ? x.V / x.t : 0);
    p.finalNorm = norm;
}

PatternBlocks patternBlocksIn(const Config& c, double from, double count) {
    PatternBlocks blocks;
    const auto size = static_cast<double>(c.layerPattern.size());
    for (double i = std::max(0.0, from); i < std::min(from + count, size); ++i) {
        const char kind = c.layerPattern[static_cast<size_t>(i)];
        (kind == 'M' ? blocks.mamba : kind == '*' ? blocks.attention : blocks.mlp) += 1;
    }
    return blocks;
}

HybridBlockParams hybridBlockParams(const Config& c, const Dims& x) {
    const double norm = x.layernorm ? 2 * x.h : x.h;
    // NemotronHMamba2Mixer and vLLM's MambaMixer2: in_proj (h -> z and x of I = heads × head_dim, B and C of
    // groups × state, dt per head) column-parallel, out_proj (I -> h) row-parallel; the depthwise conv1d over x, B
    // and C (with its bias), dt_bias, A_log and D per head and the gated RMSNorm of I split with the heads. One group
    // is replicated to every TP rank.
    const double width = c.mambaHeads * c.mambaHeadDim, bc = 2 * mambaGroupsOverTp(c) * c.mambaState;
    const double conv = (width + bc) / x.t;
    HybridBlockParams p;
    p.mambaLinear = x.h * (2 * width + bc + c.mambaHeads) / x.t + width * x.h / x.t;
    p.mambaRest = conv * c.mambaConvKernel + (c.mambaConvBias ? conv : 0) + 3 * c.mambaHeads / x.t + width / x.t + norm;
    // NemotronHAttention (Jamba's): q, k, v and o, their biases with attention_bias; NemotronHMLP: up and down (or a
    // gated MLP's three matrices), biased with mlp_bias.
    p.attentionLinear = 2 * x.h * x.a * x.d / x.t + 2 * x.h * x.kvHeadsRank * x.d;
    p.attentionRest = norm + (x.attentionBias ? x.a * x.d / x.t + 2 * x.kvHeadsRank * x.d + x.h : 0) + queryKeyNormParams(c);
    const double matrices = x.gated ? 3 : 2;
    p.mlpLinear = matrices * x.h * x.f / x.t;
    p.mlpRest = norm + (x.mlpBias ? (matrices - 1) * x.f / x.t + x.h : 0);
    return p;
}

BlockParams hybridStageParams(const Config& c, const Dims& x, double from, double count) {
    const PatternBlocks blocks = patternBlocksIn(c, from, count);
    const HybridBlockParams p = hybridBlockParams(c, x);
    return {.linear = blocks.mamba * p.mambaLinear + blocks.attention * p.attentionLinear + blocks.mlp * p.mlpLinear,
            .rest = blocks.mamba * p.mambaRest + blocks.attention * p.attentionRest + blocks.mlp * p.mlpRest};
}

double persistentParameters(const Config& c, const Dims& x, double denseLayers, double moeLayers, bool first, bool last, bool outputHere) {
    const double limit = c.persistenceThreshold;
    auto keep = [limit](double numel, double count = 1) { return numel <= limit ? numel * count : 0; };
    // Each tensor as the Hugging Face modules hold it on a rank (q, k, v and o; gate, up and down; each norm's
    // weight and bias; each bias), split by TP as rankParams splits them. MLA's projections are counted whole.
    const double matrices = x.gated ? 3 : 2;
    const bool biased = x.attentionBias || c.qkvBias;
    const double attention = keep(x.h * x.a * x.d / x.t * (c.attnOutputGate ? 2 : 1)) + keep(x.h * x.kvHeadsRank * x.d, 2) +
                             keep(x.a * x.d * x.h / x.t) + (biased ? keep(x.a * x.d / x.t) + keep(x.kvHeadsRank * x.d, 2) : 0) +
                             (x.attentionBias ? keep(x.h) : 0) + (c.attentionSinks ? keep(x.headsRank) : 0) +
                             (c.indexHeads > 0 ? keep(c.qLoraRank * c.indexHeads * c.indexHeadDim) +
                                                     keep(x.h * (c.indexHeadDim + c.indexHeads)) + keep(c.indexHeadDim, 2)
                                               : 0);
    double norms = keep(x.h, (x.layernorm ? 2 : 1) * normsPerLayer(c));
    if (c.qkNorm == QkNorm::perHead) norms += keep(x.d, 2);
    if (c.qkNorm == QkNorm::fullWidth) norms += keep(c.heads * x.d) + keep(c.kvHeads * x.d);
    const double dense = attention + norms + keep(x.h * x.f / x.t, matrices) + (x.mlpBias ? keep(x.f / x.t, matrices - 1) + keep(x.h) : 0);
    double moe = 0;
    if (c.experts != 0)
        moe =
            attention + norms + keep(x.h * c.experts) + (c.routerBias ? keep(c.experts) : 0) +
            keep(x.h * expertFfn(c) / expertTensorParallel(c), matrices * c.experts / c.ep) +
            (c.sharedExpertFfn > 0 ? keep(x.h * c.sharedExpertFfn / x.t, matrices) + (c.sharedExpertGate ? keep(x.h) : 0) : 0) +
            (x.mlpBias ? keep((matrices - 1) * expertFfn(c) / expertTensorParallel(c), c.experts / c.ep) + keep(x.h, c.experts / c.ep) : 0);
    const double norm = keep(x.h, x.layernorm ? 2 : 1);
    return denseLayers * dense + moeLayers * moe +
           (first ? keep(x.V * x.h / x.t) + keep(c.posEmb * x.h) + (c.embeddingNorm ? norm : 0) : 0) +
           (last ? norm + (outputHere ? keep(x.V * x.h / x.t) : 0) + (c.outputBias ? keep(x.V / x.t) : 0) : 0);
}

double fullAttentionLayersIn(const Config& c, double from, double count) {
    if (!c.layerPattern.empty()) return patternBlocksIn(c, from, count).attention;
    if (c.slidingWindow == 0 && c.attentionChunk == 0 && c.linearValueHeads == 0) return count;
    if (c.fullAttentionEvery == 0) return 0;
    return std::floor((from + count) / c.fullAttentionEvery) - std::floor(from / c.fullAttentionEvery);
}

bool mtpIsMoe(const Config& c) { return c.experts != 0 && isMoeLayer(c, c.layers - 1); }

StageParameterCount stageParameterCount(const Config& c, double stage, double firstLayer, double layers) {
    const bool first = stage == 0, last = stage == c.pp - 1, inference = c.mode == Mode::inference;
    const double moe = moeLayersIn(c, firstLayer, layers), dense = layers - moe;
    // Untied: the output layer sits on the last stage. Tied with PP > 1: Megatron-LM (and vLLM) keep a copy of
    // the embedding there to compute the logits.
    const bool outputOnLast = !c.tiedEmbeddings || c.pp > 1;
    const double mtp = last && !inference ? c.mtpLayers : 0;
    const bool mtpMoe = mtpIsMoe(c);
    auto count = [&](const RankParams& p, const Dims& x, const Config& on, bool copies) {
        const BlockParams blocks = on.layerPattern.empty() ? BlockParams{} : hybridStageParams(on, x, firstLayer, layers);
        double total = (on.layerPattern.empty() ? dense * p.layer + moe * (p.moeLayer + p.moeLayerExperts) : blocks.linear + blocks.rest) +
                       (first ? p.embedding : 0) + (last ? p.finalNorm + p.output : 0);
        // Multi-token prediction (DeepSeek-V3 §2.2): layers of the last layer's kind, two input norms, the
        // 2h -> h projection and a final norm; with PP > 1 an embedding copy on the last stage.
        if (mtp > 0)
            total += mtp * ((mtpMoe ? p.moeLayer + p.moeLayerExperts : p.layer) + 2 * x.h * x.h / x.t + 3 * p.finalNorm) +
                     (copies && c.pp > 1 ? x.V * x.h / x.t : 0);
        return total;
    };
    const Dims x = dimsOf(c);
    Config whole = c;  // one rank holding every shard
    whole.tp = whole.ep = 1;
    whole.etp = 1;
    const Dims wholeDims = dimsOf(whole);
    return {count(rankParams(c, x, outputOnLast), x, c, true),
            count(rankParams(whole, wholeDims, !c.tiedEmbeddings), wholeDims, whole, false)};
}

double bytesOfDtype(WeightDtype dtype) {
    switch (dtype) {
        case WeightDtype::fp8:
        case WeightDtype::int8:
            return 1;
        case WeightDtype::int4:
            return 0.5;
        default:
            return 2;
    }
}

double bytesOfDtype(KvDtype dtype) { return dtype == KvDtype::fp8 ? 1 : 2; }

}  // namespace membudget::detail

namespace membudget {

// The model's parameter counts (membudget/model/architecture.hpp).
double derivedParameterCount(const Config& c) {
    const double h = c.hidden;
    const double headDim = headDimOf(c);
    const double qWidth = c.heads * headDim, kvWidth = c.kvHeads * headDim;
    const double norm = c.norm == Norm::layernorm ? 2 * h : h;  // weight (+ bias)
    const bool attentionBias = c.bias || c.attentionBias, mlpBias = c.bias || c.mlpBias;
    const double qkvBiases = attentionBias || c.qkvBias ? qWidth + 2 * kvWidth : 0;
    const detail::IndexerParams indexer = detail::indexerParams(c);
    const double attention =
        (c.kvLoraRank != 0 ? mlaAttentionParams(c)
                           : h * qWidth * (c.attnOutputGate ? 2 : 1) + 2 * h * kvWidth + qWidth * h + qkvBiases + (attentionBias ? h : 0)) +
        (c.attentionSinks ? c.heads : 0) + indexer.query + indexer.keyAndWeights + indexer.norm;
    const double ffnMatrices = c.gatedFfn ? 3 : 2;
    const double ffn = ffnMatrices * h * c.ffn + (mlpBias ? (ffnMatrices - 1) * c.ffn + h : 0);
    const double embeddings = c.vocab * h * (c.tiedEmbeddings ? 1 : 2) + c.posEmb * h + (c.embeddingNorm ? norm : 0) +
                              (c.outputBias ? c.vocab : 0) + c.visionParams;
    if (!c.layerPattern.empty()) {
        // A hybrid stack: each block its norm and one mixer, counted whole (one rank holding every shard).
        Config whole = c;
        whole.tp = 1;
        const detail::BlockParams blocks = detail::hybridStageParams(whole, detail::dimsOf(whole), 0, c.layers);
        return embeddings + blocks.linear + blocks.rest + norm;
    }
    const double moeLayers = moeLayerCount(c);
    // A MoE layer replaces the dense FFN with a router, the routed experts and any shared expert.
    const double expertWidth = c.moeFfn != 0 ? c.moeFfn : c.ffn;
    const double moeFfn = h * c.experts + (c.routerBias ? c.experts : 0) + c.experts * ffnMatrices * h * expertWidth +
                          (mlpBias ? c.experts * ((ffnMatrices - 1) * expertWidth + h) : 0) + ffnMatrices * h * c.sharedExpertFfn +
                          (c.sharedExpertGate && c.sharedExpertFfn > 0 ? h : 0);
    // A multi-token-prediction module (DeepSeek-V3 §2.2) is one more layer of the last layer's kind, two input
    // norms, the projection of [hidden; next-token embedding] (2h -> h) and its own final norm; it shares the
    // embedding and the output head with the main model.
    const double layerNorms = detail::normsPerLayer(c) * norm + detail::queryKeyNormParams(c);
    const double mtp = c.mtpLayers * (attention + layerNorms + (isMoeLayer(c, c.layers - 1) ? moeFfn : ffn) + 2 * h * h + 3 * norm);
    // Linear-attention layers (Gated DeltaNet) in place of the full-attention ones, without QK norms.
    const double linearLayers = c.linearValueHeads > 0 ? c.layers - detail::fullAttentionLayersIn(c, 0, c.layers) : 0;
    const detail::LinearAttentionParams linear = detail::linearAttentionParams(c, 1);
    const double linearDelta = linearLayers * (linear.linear + linear.rest - attention - detail::queryKeyNormParams(c));
    return embeddings + c.layers * (attention + layerNorms) + linearDelta + (c.layers - moeLayers) * ffn + moeLayers * moeFfn + norm + mtp;
}

bool isMoeLayer(const Config& c, double layer) {
    return c.experts != 0 && layer >= c.firstDenseLayers && std::fmod(layer - c.firstDenseLayers, c.moeLayerFreq) == 0;
}

double moeLayerCount(const Config& c) {
    if (c.experts == 0 || c.layers <= c.firstDenseLayers) return 0;
    return std::floor((c.layers - c.firstDenseLayers - 1) / c.moeLayerFreq) + 1;  // first_dense, + f, + 2f, … below L
}

double mlaAttentionParams(const Config& c) {
    const double h = c.hidden, a = c.heads, headDim = headDimOf(c);
    const double nope = c.qkNopeDim != 0 ? c.qkNopeDim : headDim, v = c.vHeadDim != 0 ? c.vHeadDim : headDim;
    const double qk = nope + c.qkRopeDim;
    const double query = c.qLoraRank != 0 ? h * c.qLoraRank + c.qLoraRank + c.qLoraRank * a * qk : h * a * qk;
    const double keyValue = h * (c.kvLoraRank + c.qkRopeDim) + c.kvLoraRank + c.kvLoraRank * a * (nope + v);
    return query + keyValue + a * v * h;
}

// Per text token: the vision tower works on image tokens only.
double activeParameterCount(const Config& c) {
    if (c.experts == 0) return derivedParameterCount(c) - c.visionParams;
    Config active = c;
    active.experts = c.expertsPerToken;  // each token passes through top-k experts (and the router of all E)
    const double moeLayers = moeLayerCount(c) + (isMoeLayer(c, c.layers - 1) ? c.mtpLayers : 0);
    const double routerDifference = moeLayers * c.hidden * (c.experts - c.expertsPerToken);
    return derivedParameterCount(active) + routerDifference - c.visionParams;
}

}  // namespace membudget
