// The published sources as ledger methods: Korthikanti et al., Megatron-LM, the ZeRO paper and
// DeepSpeed. Each maps a Config onto its source's inputs (membudget/sources.hpp) and fills the lines
// its source does not model from membudget's method, marked so.
#include <algorithm>
#include <cmath>
#include <optional>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/memory/methods.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"
#include "memory/training.hpp"
#include "model/rank.hpp"

namespace membudget {

std::string differenceReason(Method method, LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    if (line == LineId::buffers || line == LineId::cudaContext) return "an allowance, the same for every method";
    if (line == LineId::workspace) return "cuBLAS and Transformer Engine workspaces, which only membudget's own method counts";
    if (method == Method::membudget)
        return staticLine ? "every parameter tensor of the stage: the embedding on the first stage, the output layer on the last, "
                            "KV heads replicated when TP > kv_heads, norms not split"
                          : "every saved tensor of the actual layer: GQA's smaller K and V, SwiGLU's three FFN tensors, "
                            "FlashAttention or eager scores, and the logits on the last stage";
    if (method == Method::chapter)
        return staticLine ? "Ψ / (TP × PP): the embedding and output layer spread evenly over the stages"
                          : "the chapter's per-layer table: one d_ff tensor, no GQA, no FlashAttention, no embedding or logits";
    if (method == Method::korthikanti)
        return staticLine ? "not in the paper (membudget's estimate)"
                          : "Table 2's GPT layer: a 4h FFN, multi-head attention, eager attention with dropout masks";
    if (method == Method::megatron) {
        if (line == LineId::gradients)
            return "FP32 main gradients: 18 vs 16 bytes per parameter (6 + 12/DP with the distributed optimizer)";
        if (staticLine) return "the first stage only; no biases; norms not split by TP; an untied output layer is not counted when PP > 1";
        return "sbh(18 + 4f/h) per layer with SP and selective recompute, else sbh(10 + 24/t) × 1.05: ignores GQA and SwiGLU's third "
               "tensor";
    }
    if (method == Method::zero)
        return staticLine ? "the ZeRO paper's (2 + 2 + K)Ψ per device with Ψ split evenly by TP × PP and K = 12"
                          : "not in the paper (membudget's estimate)";
    if (method == Method::deepspeed) {
        if (line == LineId::parameters)
            return "fp16 parameters kept whole under ZeRO-2; ZeRO-3 gathers the largest layer (4L with its gradients)";
        if (line == LineId::gradients) return "6 bytes of gradients per parameter (fp16 + fp32), partitioned over the DP group";
        if (line == LineId::optimizer) return "fp32 parameters and Adam states (12 bytes) partitioned, the total truncated to whole bytes";
        return "not in DeepSpeed's estimator (membudget's estimate)";
    }
    return "";
}

namespace detail {

Line filledIn(Line line, std::string_view source) {
    line.note = "Not modelled by " + std::string(source) + "; membudget's estimate: " + line.note;
    line.origin = Method::membudget;
    return line;
}

namespace {

sources::Recompute recomputeOf(const Config& c) {
    return c.ckpt == Checkpointing::full        ? sources::Recompute::full
           : c.ckpt == Checkpointing::selective ? sources::Recompute::selective
                                                : sources::Recompute::none;
}

const Line& lineOf(const StageOutput& stage, LineId id) {
    return *std::find_if(stage.lines.begin(), stage.lines.end(), [id](const Line& l) { return l.id == id; });
}

}  // namespace

// Korthikanti et al. 2022: Table 2 per layer, §4.2 pipeline, §4.3 embedding and output terms.
MethodOutput korthikantiMethod(const Config& c, double psi) {
    MethodOutput base = membudgetMethod(c, psi, false);
    MethodOutput out;
    const std::vector<double> layers = stageLayers(c);
    const double s = c.seq / c.cp, b = c.mb, h = c.hidden, a = c.heads, t = c.tp;
    const double perLayer = sources::korthikantiLayerBytes(s, b, h, a, t, c.sp && t > 1, recomputeOf(c));
    const std::string table2 = c.ckpt == Checkpointing::full        ? "sbh·2"
                               : c.ckpt == Checkpointing::selective ? (c.sp ? "sbh(34/t)" : "sbh(10 + 24/t)")
                                                                    : (c.sp ? "sbh(34/t + 5as/(ht))" : "sbh(10 + 24/t + 5as/(ht))");
    for (double i = 0; i < c.pp; ++i) {
        const auto& membudgetStage = base.stages[static_cast<size_t>(i)];
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        stage.inFlightMicrobatches = inFlightMicrobatches(c, i);
        const double copies = inFlightLayerCopies(c, stage.layers, i);
        double bytes = perLayer * copies;
        std::string expression = fill("# × #", {perLayer, copies});
        std::string formula = table2 + " × layer-copies in flight";
        if (i == 0) {
            const double embedding = sources::korthikantiEmbeddingBytes(s, b, h, stage.inFlightMicrobatches, t);
            bytes += embedding;
            expression += fill(" + #", {embedding});
            formula += " + sbhp/t (embedding dropout)";
        }
        if (i == c.pp - 1) {
            const double output = sources::korthikantiOutputBytes(s, b, h, c.vocab, t);
            bytes += output;
            expression += fill(" + #", {output});
            formula += " + 4sbh/t·(1 + v/h) (final norm, output layer, fp32 logits)";
        }
        for (const LineId id : {LineId::parameters, LineId::gradients, LineId::optimizer})
            stage.lines.push_back(filledIn(lineOf(membudgetStage, id), "Korthikanti et al. (activations only)"));
        stage.lines.push_back({LineId::activations, "Activations", formula, expression, bytes,
                               "Korthikanti et al. 2022 Table 2 (GPT layer: 4h FFN, multi-head attention, dropout, eager "
                               "attention): " +
                                   n(perLayer) + " B per layer × " + n(copies) + " layer-copies on stage " + n(i) +
                                   "; §4.2 in-flight micro-batches" + std::string(c.vpp > 1 ? " and interleaving" : "") +
                                   ", §4.3 embedding and output terms",
                               Method::korthikanti});
        out.stages.push_back(std::move(stage));
    }
    if (c.gatedFfn || c.kvHeads != c.heads || c.attention != Attention::eager || !c.dropout)
        out.warnings.push_back({"method",
                                "Korthikanti et al.'s Table 2 is for a GPT layer (4h FFN, no GQA, eager attention, "
                                "dropout): SwiGLU, GQA, FlashAttention and dropout settings are not reflected"});
    if (c.cp > 1) out.warnings.push_back({"cp", "Korthikanti et al. predate context parallelism; s / CP is used for s"});
    return out;
}

// Megatron-LM's theoretical_memory_usage.py: the most loaded shard (the first stage) only.
// The Config as theoretical_memory_usage.py's args namespace.
sources::MegatronArgs megatronArgs(const Config& c) {
    sources::MegatronArgs x;
    x.hiddenSize = c.hidden;
    x.numAttentionHeads = c.heads;
    x.kvChannels = headDimOf(c);
    x.ffnHiddenSize = c.ffn;
    x.numLayers = c.layers;
    x.paddedVocabSize = c.vocab;
    // theoretical_memory_usage.py never reads context_parallel_size: every activation term takes the full
    // --seq-length (tests/fixtures/megatron.json's CP cases ran the file itself).
    x.seqLength = c.seq;
    x.microBatchSize = c.mb;
    x.groupQueryAttention = c.kvHeads != c.heads;
    x.numQueryGroups = c.kvHeads;
    x.swiglu = c.gatedFfn;
    x.rmsNorm = c.norm == Norm::rmsnorm;
    x.untieEmbeddingsAndOutputWeights = !c.tiedEmbeddings;
    x.tensorParallel = c.tp;
    x.pipelineParallel = c.pp;
    if (c.vpp > 1) x.virtualPipeline = c.vpp;
    x.dataParallel = c.dp;
    x.useDistributedOptimizer = c.zero >= 1;
    x.sequenceParallel = c.sp;
    x.recomputeSelective = c.ckpt == Checkpointing::selective;
    x.numMicrobatches = c.microbatches;
    if (c.experts != 0) {
        x.numExperts = c.experts;
        x.moeFfnHiddenSize = c.moeFfn != 0 ? c.moeFfn : c.ffn;
        x.moeLayerFreq = c.moeLayerFreq;
        x.sharedExpertFfn = c.sharedExpertFfn;
        x.expertParallel = c.ep;
        x.expertTensorParallel = c.etp != 0 ? c.etp : c.tp;
        x.worldSize = c.tp * c.pp * c.cp * c.dp;
        x.firstDenseLayers = c.firstDenseLayers;
        x.addBiasLinear = c.bias || c.routerBias;
        x.sharedExpertGate = c.sharedExpertGate;
    }
    x.mtpNumLayers = c.mtpLayers;
    if (c.kvLoraRank != 0) {
        const double headDim = headDimOf(c);
        x.multiLatentAttention = true;
        x.groupQueryAttention = false;
        if (c.qLoraRank != 0) x.qLoraRank = c.qLoraRank;
        x.kvLoraRank = c.kvLoraRank;
        x.qkHeadDim = c.qkNopeDim != 0 ? c.qkNopeDim : headDim;
        x.qkPosEmbHeadDim = c.qkRopeDim;
        x.vHeadDim = c.vHeadDim != 0 ? c.vHeadDim : headDim;
    }
    return x;
}

MethodOutput megatronMethod(const Config& c, double psi) {
    MethodOutput out;
    const sources::MegatronArgs x = megatronArgs(c);
    const auto weights = sources::megatronWeights(x);
    const double params = weights.tensorParallelParams + weights.replicatedParams + weights.expertParams;
    const double activations = sources::megatronActivationBytes(x);
    const bool withSp = x.sequenceParallel && x.recomputeSelective;
    const std::string shard = n(std::round(params));

    // The substituted expressions, term for term as the Python computes them.
    const double expertBytes = weights.expertParams;
    std::string optimizerText =
        (x.useDistributedOptimizer ? fill("12 / # × #", {c.dp, params - expertBytes}) : fill("12 × #", {params - expertBytes}));
    if (expertBytes > 0) optimizerText += fill(" + # × #", {weights.expertBytesPerParam - 6, expertBytes});
    const double s = x.seqLength, b = x.microBatchSize, h = x.hiddenSize, pp = x.pipelineParallel, t = x.tensorParallel;
    std::string activationText =
        withSp ? fill("# × # × # × (18 + 4 × (# / #)) × # + 8 × # × # × # + # × # × # × #",
                      {s, b, h, x.ffnHiddenSize, h, x.numLayers, s, b, pp, s, b, h, pp})
               : fill("# × # × # × (10 + 24 / #) × # + 8 × # × # × # + # × # × # × #", {s, b, h, t, x.numLayers, s, b, pp, s, b, h, pp});
    if (x.virtualPipeline)
        activationText = "(" + activationText + fill(") × (1 + (# − 1) / (# × #))", {pp, pp, *x.virtualPipeline});
    else if (pp > 1 && x.numMicrobatches)
        activationText = "(" + activationText + fill(") × min(1, # / #)", {*x.numMicrobatches, pp});
    if (pp == 1)
        activationText += withSp ? fill(" + 4 × # × # × # × (1 + # / #)", {s, b, h, x.paddedVocabSize, h})
                                 : fill(" + 2 × (# × # × # / # + # × # × #)", {s, b, x.paddedVocabSize, t, s, b, h});
    activationText = withSp ? "(" + activationText + fill(") / #", {t}) : "1.05 × (" + activationText + ")";

    StageOutput stage;
    stage.index = 0;
    stage.layers = c.layers / c.pp;
    stage.inFlightMicrobatches = inFlightMicrobatches(c, 0);
    stage.lines.push_back({LineId::parameters, "Parameters", "2 × P_shard", fill("2 × #", {params}), 2 * params,
                           "BF16 weights of " + shard +
                               " parameters on the most loaded shard (stage 0: L/PP layers and the embedding; norms not "
                               "split by TP; no biases or position embeddings counted)",
                           Method::megatron});
    stage.lines.push_back({LineId::gradients, "Gradients", "4 × P_shard", fill("4 × #", {params}), 4 * params,
                           "FP32 main gradients: Megatron-LM counts 18 (or 6 + 12/DP) bytes per parameter, 4 of them for gradients",
                           Method::megatron});
    stage.lines.push_back(
        {LineId::optimizer, "Optimizer",
         std::string(c.zero >= 1 ? "(12 / DP) × P_shard" : "12 × P_shard") + (expertBytes > 0 ? " + (12 / EDP) × P_experts" : ""),
         optimizerText,
         (weights.bytesPerParam - 6) * (params - weights.expertParams) + (weights.expertBytesPerParam - 6) * weights.expertParams,
         c.zero >= 1 ? "FP32 params + Adam m, v sharded by the distributed optimizer over DP (6 + 12/DP bytes per parameter in all)"
                     : "FP32 params + Adam m, v, not sharded (18 bytes per parameter in all)",
         Method::megatron});
    stage.lines.push_back(
        {LineId::activations, "Activations",
         withSp ? "[sbh(18 + 4f/h)·L + 8sbp + sbhp]·φ (+ 4sbh(1 + V/h) if PP = 1) / TP"
                : "1.05 × ([sbh(10 + 24/t)·L + 8sbp + sbhp]·φ (+ 2(sbV/t + sbh) if PP = 1))",
         activationText, activations,
         std::string("Megatron-LM's ") +
             (withSp
                  ? "compute_activation_memory (sequence parallel and selective recompute)"
                  : "compute_activation_memory_without_sp (its formula for every case but SP + selective, whatever the recompute mode)") +
             "; ignores GQA, SwiGLU's third tensor and FlashAttention; s is the full --seq-length; φ = " +
             (c.vpp > 1 ? "1 + (PP − 1)/(PP·v)" : "min(1, m / PP)"),
         Method::megatron});
    out.stages.push_back(std::move(stage));
    out.warnings.push_back(
        {"method", "Megatron-LM estimates the most loaded shard only (the first stage); its report prints MiB as \"MB\""});
    if (c.cp > 1)
        out.warnings.push_back({"cp",
                                "Megatron-LM's estimator does not read context_parallel_size: its activations are for the whole sequence "
                                "(" +
                                    n(c.seq) + " tokens), not the " + n(c.seq / c.cp) + " each CP rank holds"});
    (void)psi;
    return out;
}

// The ZeRO paper's model states per device (§5), with Ψ per model-parallel shard.
MethodOutput zeroMethod(const Config& c, double psi) {
    MethodOutput base = membudgetMethod(c, psi, false);
    MethodOutput out;
    const double shardPsi = psi / (c.tp * c.pp);
    const int stageNumber = static_cast<int>(c.zero);
    const auto states = sources::zeroPaperModelStates(stageNumber, shardPsi, c.dp);
    static const char* names[] = {"baseline (2 + 2 + K)Ψ", "P_os: 4Ψ + KΨ/N_d", "P_os+g: 2Ψ + (2 + K)Ψ/N_d", "P_os+g+p: (4 + K)Ψ/N_d"};
    const std::string psiText = n(std::round(shardPsi)), nd = n(c.dp);
    for (const auto& membudgetStage : base.stages) {
        StageOutput stage;
        stage.index = membudgetStage.index;
        stage.layers = membudgetStage.layers;
        stage.inFlightMicrobatches = membudgetStage.inFlightMicrobatches;
        const std::string note = std::string("ZeRO paper §5, ") + names[stageNumber] + ", K = 12, Ψ = parameters per model-parallel shard";
        stage.lines.push_back({LineId::parameters, "Parameters", stageNumber >= 3 ? "2Ψ / N_d" : "2Ψ",
                               stageNumber >= 3 ? "2 × " + psiText + " / " + nd : "2 × " + psiText, states.parameters, note, Method::zero});
        stage.lines.push_back({LineId::gradients, "Gradients", stageNumber >= 2 ? "2Ψ / N_d" : "2Ψ",
                               stageNumber >= 2 ? "2 × " + psiText + " / " + nd : "2 × " + psiText, states.gradients, note, Method::zero});
        stage.lines.push_back({LineId::optimizer, "Optimizer", stageNumber >= 1 ? "KΨ / N_d" : "KΨ",
                               stageNumber >= 1 ? "12 × " + psiText + " / " + nd : "12 × " + psiText, states.optimizer, note,
                               Method::zero});
        stage.lines.push_back(filledIn(lineOf(membudgetStage, LineId::activations), "the ZeRO paper (model states only)"));
        out.stages.push_back(std::move(stage));
    }
    return out;
}

// DeepSpeed's estimate_zero2/zero3_model_states_mem_needs, for one model-parallel shard.
MethodOutput deepspeedMethod(const Config& c, double psi) {
    MethodOutput base = membudgetMethod(c, psi, false);
    MethodOutput out;
    const double P = psi / (c.tp * c.pp);
    // DeepSpeed's largest layer is the largest module's own parameters: the embedding or output layer
    // (V × h), an MLP matrix (h × d_ff) or the query projection.
    const double headDim = headDimOf(c);
    const double largest = std::max({c.vocab * c.hidden, c.hidden * c.ffn, c.hidden * c.heads * headDim}) / c.tp;
    double gpusPerNode = c.gpusPerNode, nodes = c.dp / c.gpusPerNode;
    if (c.dp < c.gpusPerNode) {
        gpusPerNode = c.dp;
        nodes = 1;
    } else if (std::fmod(c.dp, c.gpusPerNode) != 0) {
        out.warnings.push_back({"gpus_per_node", "dp (" + n(c.dp) + ") is not a multiple of gpus_per_node (" + n(c.gpusPerNode) +
                                                     "): DeepSpeed's node count is fractional here"});
    }
    const double G = gpusPerNode * nodes;
    const bool offloadOptimizer = c.offload != Offload::none, offloadParams = c.offload == Offload::all;
    const bool zero3 = c.zero >= 3;
    const auto estimate = zero3 ? sources::deepspeedZero3(P, largest, gpusPerNode, nodes, offloadOptimizer, offloadParams, c.zeroInit)
                                : sources::deepspeedZero2(P, gpusPerNode, nodes, offloadOptimizer);
    out.cpuBytesPerNode = estimate.cpuBytesPerNode;
    {
        // The CPU column, term for term as the estimator computes it (additional_buffer_factor 1.5).
        std::string cpu;
        if (zero3) {
            const double states = offloadParams ? 18 : 16;
            if (!offloadOptimizer)
                cpu = c.zeroInit ? fill("# × 4 × # × 1.5", {largest, gpusPerNode}) : fill("# × 4 × # × 1.5", {P, gpusPerNode});
            else
                cpu = c.zeroInit ? fill("# × # × (1 / #) × 1.5", {P, states, nodes})
                                 : fill("# × max(4 × #, # × (1 / #)) × 1.5", {P, gpusPerNode, states, nodes});
        } else {
            cpu = offloadOptimizer ? fill("# × max(4 × #, 16) × 1.5", {P, G}) : fill("# × 4 × # × 1.5", {P, gpusPerNode});
        }
        out.cpuLines.push_back({LineId::cpuModelStates, "Model states (DeepSpeed)",
                                zero3 ? "estimate_zero3 CPU column" : "estimate_zero2 CPU column", "⌊" + cpu + "⌋",
                                estimate.cpuBytesPerNode,
                                "DeepSpeed's CPU memory per node for " + n(gpusPerNode) + " GPUs per node and " + n(nodes) +
                                    " nodes, additional_buffer_factor 1.5 (it prints bytes / 2^30 as \"GB\")",
                                Method::deepspeed});
    }
    // Split DeepSpeed's one GPU figure into lines whose sum is exactly that figure, each with its expression.
    double parameters = 0, gradients = 0, optimizer = 0;
    std::string formula, parametersFormula = "0", gradientsFormula = "0", optimizerFormula = "0";
    std::string parametersText = "0", gradientsText = "0", optimizerText = "0";
    const std::string partitionedText = fill("⌊18 × # / #⌋ − 6 × # / #", {P, G, P, G});
    if (zero3) {
        const double gathered = 2 * largest;  // fp16 params and fp16 grads of the largest layer: 4L in all
        if (offloadOptimizer && offloadParams) {
            parameters = gradients = gathered;
            parametersText = gradientsText = fill("2 × #", {largest});
            parametersFormula = gradientsFormula = "2L";
            formula = "4L";
        } else if (offloadOptimizer) {
            parameters = gathered + std::trunc(2 * P / G);
            gradients = gathered;
            parametersText = fill("2 × # + ⌊2 × # / #⌋", {largest, P, G});
            gradientsText = fill("2 × #", {largest});
            parametersFormula = "2L + int(2P / G)";
            gradientsFormula = "2L";
            formula = "4L + int(2P / G)";
        } else {
            parameters = gathered + 2 * P / G;
            gradients = gathered + 4 * P / G;
            optimizer = std::trunc(18 * P / G) - 6 * P / G;
            parametersText = fill("2 × # + 2 × # / #", {largest, P, G});
            gradientsText = fill("2 × # + 4 × # / #", {largest, P, G});
            optimizerText = partitionedText;
            parametersFormula = "2L + 2P / G";
            gradientsFormula = "2L + 4P / G";
            optimizerFormula = "int(18P / G) − 6P / G";
            formula = "4L + int(18P / G)";
        }
    } else {
        parameters = 2 * P;
        parametersText = fill("2 × #", {P});
        parametersFormula = "2P";
        formula = "2P";
        if (!offloadOptimizer) {
            gradients = 6 * P / G;
            optimizer = std::trunc(18 * P / G) - 6 * P / G;
            gradientsText = fill("6 × # / #", {P, G});
            optimizerText = partitionedText;
            gradientsFormula = "6P / G";
            optimizerFormula = "int(18P / G) − 6P / G";
            formula = "2P + int(18P / G)";
        }
    }
    const std::string values = "P = " + n(std::round(P)) + ", G = " + n(G) + (zero3 ? ", L = " + n(std::round(largest)) : "");
    const std::string estimator = zero3 ? "estimate_zero3_model_states_mem_needs" : "estimate_zero2_model_states_mem_needs";
    for (const auto& membudgetStage : base.stages) {
        StageOutput stage;
        stage.index = membudgetStage.index;
        stage.layers = membudgetStage.layers;
        stage.inFlightMicrobatches = membudgetStage.inFlightMicrobatches;
        const std::string note = "DeepSpeed " + estimator + ": GPU bytes " + formula + " (" + values + "), split into lines";
        stage.lines.push_back({LineId::parameters, "Parameters", parametersFormula, parametersText, parameters, note + "; fp16 parameters",
                               Method::deepspeed});
        stage.lines.push_back({LineId::gradients, "Gradients", gradientsFormula, gradientsText, gradients,
                               note + "; fp16 and fp32 gradients", Method::deepspeed});
        stage.lines.push_back({LineId::optimizer, "Optimizer", optimizerFormula, optimizerText, optimizer,
                               offloadOptimizer ? note + "; optimizer states in CPU memory" : note + "; fp32 params and Adam states",
                               Method::deepspeed});
        stage.lines.push_back(filledIn(lineOf(membudgetStage, LineId::activations), "DeepSpeed's estimator (model states only)"));
        out.stages.push_back(std::move(stage));
    }
    if (c.zero < 2)
        out.warnings.push_back({"zero", "DeepSpeed has estimators for ZeRO-2 and ZeRO-3 only; ZeRO-2's is used for zero = " + n(c.zero)});
    if (c.tp * c.pp > 1)
        out.warnings.push_back(
            {"method", "DeepSpeed's estimators assume pure data parallelism; P is taken per model-parallel shard, Ψ / (TP × PP)"});
    out.warnings.push_back({"method",
                            "DeepSpeed prints bytes / 2^30 as \"GB\"; users measured far more than its offload estimates "
                            "(DeepSpeed issue #4527: 0.49 \"GB\" estimated, 14.3 GiB measured), since it leaves out activations, "
                            "buffers and the allocator"});
    return out;
}

}  // namespace detail
}  // namespace membudget

// ---- The methods' numeric kernels, for the planner: each stage's lines as evaluate() sums them (parameters,
// gradients, optimizer, activations, then the allowances), with no text. Tested equal to the ledgers
// (tests/cpp/test_plan.cpp), so that every method plans as fast as membudget's own.
namespace membudget::detail {

namespace {

// The lines every source but Megatron-LM's leaves to membudget's forward/backward composition.
struct StaticAndActivations {
    double parameters, gradients, optimizer, activations;
};

template <class Lines>
PeakBytes peakOver(const Config& c, const std::vector<StageSpan>& stages, Lines lines) {
    const double buffers = gigabytesToBytes(c.buffersGb), context = gigabytesToBytes(c.contextGb), allowances = buffers + context;
    PeakBytes peak{};
    peak.totalBytes = -1;
    for (const StageSpan& stage : stages) {
        const StaticAndActivations l = lines(stage);
        const double total = l.parameters + l.gradients + l.optimizer + l.activations + buffers + context;
        const double staticBytes = l.parameters + l.gradients + l.optimizer + allowances;
        if (total > peak.totalBytes)
            peak = {l.parameters, l.gradients, l.optimizer, l.activations, allowances, total, stage.index, peak.staticBytes};
        peak.staticBytes = std::max(peak.staticBytes, staticBytes);
    }
    return peak;
}

}  // namespace

PeakBytes korthikantiTrainingPeak(const Config& c, const std::vector<StageSpan>& stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const double s = c.seq / c.cp, b = c.mb, h = c.hidden, a = c.heads, tp = c.tp;
    const double perLayer = sources::korthikantiLayerBytes(s, b, h, a, tp, c.sp && tp > 1, recomputeOf(c));
    return peakOver(c, stages, [&](const StageSpan& stage) {
        const MembudgetStage sn = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, false);
        double bytes = perLayer * inFlightLayerCopies(c, stage.layers, stage.index);
        if (stage.index == 0) bytes += sources::korthikantiEmbeddingBytes(s, b, h, inFlightMicrobatches(c, stage.index), tp);
        if (stage.index == c.pp - 1) bytes += sources::korthikantiOutputBytes(s, b, h, c.vocab, tp);
        return StaticAndActivations{sn.parameters, sn.gradients, sn.optimizerAtPeak, bytes};
    });
}

PeakBytes zeroTrainingPeak(const Config& c, double psi, const std::vector<StageSpan>& stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const auto states = sources::zeroPaperModelStates(static_cast<int>(c.zero), psi / (c.tp * c.pp), c.dp);
    return peakOver(c, stages, [&](const StageSpan& stage) {
        const MembudgetStage sn = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, false);
        return StaticAndActivations{states.parameters, states.gradients, states.optimizer, sn.activations};
    });
}

PeakBytes deepspeedTrainingPeak(const Config& c, double psi, const std::vector<StageSpan>& stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const double P = psi / (c.tp * c.pp);
    const double largest = std::max({c.vocab * c.hidden, c.hidden * c.ffn, c.hidden * c.heads * headDimOf(c)}) / c.tp;
    const double gpusPerNode = c.dp < c.gpusPerNode ? c.dp : c.gpusPerNode, nodes = c.dp < c.gpusPerNode ? 1 : c.dp / c.gpusPerNode;
    const double G = gpusPerNode * nodes;
    const bool offloadOptimizer = c.offload != Offload::none, offloadParams = c.offload == Offload::all;
    double parameters = 0, gradients = 0, optimizer = 0;
    if (c.zero >= 3) {
        const double gathered = 2 * largest;
        if (offloadOptimizer && offloadParams) {
            parameters = gradients = gathered;
        } else if (offloadOptimizer) {
            parameters = gathered + std::trunc(2 * P / G);
            gradients = gathered;
        } else {
            parameters = gathered + 2 * P / G;
            gradients = gathered + 4 * P / G;
            optimizer = std::trunc(18 * P / G) - 6 * P / G;
        }
    } else {
        parameters = 2 * P;
        if (!offloadOptimizer) {
            gradients = 6 * P / G;
            optimizer = std::trunc(18 * P / G) - 6 * P / G;
        }
    }
    return peakOver(c, stages, [&](const StageSpan& stage) {
        const MembudgetStage sn = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, false);
        return StaticAndActivations{parameters, gradients, optimizer, sn.activations};
    });
}

PeakBytes megatronTrainingPeak(const Config& c) {
    const sources::MegatronArgs x = megatronArgs(c);
    const auto weights = sources::megatronWeights(x);
    const double params = weights.tensorParallelParams + weights.replicatedParams + weights.expertParams;
    const double optimizer =
        (weights.bytesPerParam - 6) * (params - weights.expertParams) + (weights.expertBytesPerParam - 6) * weights.expertParams;
    // Megatron-LM estimates its most loaded shard only: one stage.
    return peakOver(c, {{0, 0, c.layers / c.pp}}, [&](const StageSpan&) {
        return StaticAndActivations{2 * params, 4 * params, optimizer, sources::megatronActivationBytes(x)};
    });
}

}  // namespace membudget::detail
