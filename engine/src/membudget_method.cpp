// method=membudget: every saved tensor of the actual architecture, every stage, and the phase at which
// memory peaks. Sources for each term are named where it is computed; README "The membudget method".
#include <algorithm>
#include <cmath>

#include "detail/methods.hpp"
#include "membudget/detail/text.hpp"

namespace membudget::detail {

namespace {

struct Dims {
    double b, s, sRank, h, a, kv, d, f, V, t, spDivisor;
    bool gated, layernorm, bias, dropout, flash;
    double headsRank, kvHeadsRank;
};

Dims dimsOf(const Config& c) {
    Dims x{};
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
    x.layernorm = c.norm == "layernorm";
    x.bias = c.bias;
    x.dropout = c.dropout;
    x.flash = c.attention == "flash";
    x.headsRank = c.heads / c.tp;
    // Megatron-LM and vLLM keep max(1, kv/TP) KV heads per rank, replicating them when TP exceeds kv.
    x.kvHeadsRank = std::max(1.0, std::ceil(c.kvHeads / c.tp));
    return x;
}

std::string sShape(const Config& c, bool spSharded) {
    std::string s = c.cp > 1 ? "s/CP" : "s";
    if (spSharded && c.sp && c.tp > 1) s = c.cp > 1 ? "s/(CP·TP)" : "s/TP";
    return s;
}

void storeGemmInputsInFp8(std::vector<Tensor>& tensors, bool flash);

// One transformer layer's saved tensors for one micro-batch, per GPU.
std::vector<Tensor> layerTensors(const Config& c, const Dims& x, bool includeAttentionCore, bool moe = false) {
    std::vector<Tensor> out;
    const std::string seqSp = sShape(c, true), seq = sShape(c, false);
    const std::string spNote = c.sp && c.tp > 1 ? "sharded by SP over TP" : (c.tp > 1 ? "replicated on every TP rank" : "");
    auto add = [&](std::string name, std::string shape, std::string dtype, double bytes, std::string sharding) {
        out.push_back({std::move(name), std::move(shape), std::move(dtype), bytes, 1, bytes, std::move(sharding)});
    };
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    const double statsBytes = (x.layernorm ? 8 : 4) * x.b * x.sRank / x.spDivisor;  // mean and/or rstd, fp32
    add("attention norm input", "[b, " + seqSp + ", h]", "bf16", 2 * bsh, spNote);
    add("attention norm statistics", "[b, " + seqSp + "]", "fp32", statsBytes, spNote);
    add("QKV projection input", "[b, " + seqSp + ", h]", "bf16", 2 * bsh, spNote);
    add("query (after RoPE)", "[b, " + seq + ", a/TP, d]", "bf16", 2 * x.b * x.sRank * x.headsRank * x.d, "heads split by TP");
    add("key and value", "2 × [b, " + seq + ", max(1, kv/TP), d]", "bf16", 4 * x.b * x.sRank * x.kvHeadsRank * x.d,
        c.kvHeads < c.tp ? "KV heads replicated (TP > kv_heads)" : "KV heads split by TP");
    if (includeAttentionCore) {
        if (x.flash) {
            add("softmax log-sum-exp (FlashAttention)", "[b, a/TP, " + seq + "]", "fp32", 4 * x.b * x.headsRank * x.sRank,
                "heads split by TP");
        } else {
            add("attention probabilities (softmax output)", "[b, a/TP, " + seq + ", s]", "bf16",
                2 * x.b * x.headsRank * x.sRank * x.s, "heads split by TP");
            if (x.dropout) {
                add("attention dropout mask", "[b, a/TP, " + seq + ", s]", "uint8", x.b * x.headsRank * x.sRank * x.s,
                    "heads split by TP");
                add("dropped attention probabilities", "[b, a/TP, " + seq + ", s]", "bf16",
                    2 * x.b * x.headsRank * x.sRank * x.s, "heads split by TP");
            }
        }
    }
    add("attention output (output projection input)", "[b, " + seq + ", a/TP, d]", "bf16",
        2 * x.b * x.sRank * x.headsRank * x.d, "heads split by TP");
    if (x.dropout) add("attention residual dropout mask", "[b, " + seqSp + ", h]", "uint8", bsh, spNote);
    add("MLP norm input", "[b, " + seqSp + ", h]", "bf16", 2 * bsh, spNote);
    add("MLP norm statistics", "[b, " + seqSp + "]", "fp32", statsBytes, spNote);
    if (moe) {
        // Router scores for every expert, then the top-k copies of each token dispatched to the experts of
        // this EP rank (on average b·s·k, times the capacity factor), through experts split by ETP.
        const double etp = c.etp != 0 ? c.etp : c.tp;
        const double routed = x.b * x.sRank * c.expertsPerToken * c.capacityFactor;
        const double fe = (c.moeFfn != 0 ? c.moeFfn : c.ffn) / etp;
        add("router logits and probabilities", "2 × [b, " + seqSp + ", E]", "fp32", 8 * x.b * x.sRank * c.experts / x.spDivisor, spNote);
        add("dispatched tokens (expert FC1 input)", "[b·s·k·cf, h]", "bf16", 2 * routed * x.h, "tokens routed to this EP rank");
        if (x.gated) {
            add("expert gate and up projections", "2 × [b·s·k·cf, d_expert/ETP]", "bf16", 4 * routed * fe, "experts split by EP, ETP");
            add("expert SwiGLU output (FC2 input)", "[b·s·k·cf, d_expert/ETP]", "bf16", 2 * routed * fe, "experts split by EP, ETP");
        } else {
            add("expert FC1 output", "[b·s·k·cf, d_expert/ETP]", "bf16", 2 * routed * fe, "experts split by EP, ETP");
            add("expert activation output", "[b·s·k·cf, d_expert/ETP]", "bf16", 2 * routed * fe, "experts split by EP, ETP");
        }
        add("routing weights for the combine", "[b·s·k]", "fp32", 4 * x.b * x.sRank * c.expertsPerToken, "tokens routed to this EP rank");
        if (c.sharedExpertFfn > 0) {
            const double bss = x.b * x.sRank * c.sharedExpertFfn / x.t;
            add("shared expert FC1 input", "[b, " + seqSp + ", h]", "bf16", 2 * bsh, spNote);
            add("shared expert gate/up and output", "[b, " + seq + ", 3 × d_shared/TP]", "bf16", (x.gated ? 6 : 4) * bss, "split by TP");
            if (c.sharedExpertGate)
                add("shared expert gate (sigmoid output)", "[b, " + seqSp + ", 1]", "bf16", 2 * x.b * x.sRank / x.spDivisor, spNote);
        }
        if (x.dropout) add("MLP residual dropout mask", "[b, " + seqSp + ", h]", "uint8", bsh, spNote);
        if (c.precision == "fp8") storeGemmInputsInFp8(out, x.flash);
        return out;
    }
    add("FC1 input", "[b, " + seqSp + ", h]", "bf16", 2 * bsh, spNote);
    const double bsf = x.b * x.sRank * x.f / x.t;
    if (x.gated) {
        add("gate and up projections (SwiGLU input)", "2 × [b, " + seq + ", d_ff/TP]", "bf16", 4 * bsf, "split by TP");
        add("SwiGLU output (FC2 input)", "[b, " + seq + ", d_ff/TP]", "bf16", 2 * bsf, "split by TP");
    } else {
        add("FC1 output (activation input)", "[b, " + seq + ", d_ff/TP]", "bf16", 2 * bsf, "split by TP");
        add("activation output (FC2 input)", "[b, " + seq + ", d_ff/TP]", "bf16", 2 * bsf, "split by TP");
    }
    if (x.dropout) add("MLP residual dropout mask", "[b, " + seqSp + ", h]", "uint8", bsh, spNote);
    if (c.precision == "fp8") storeGemmInputsInFp8(out, x.flash);
    return out;
}

// FP8 training with Transformer Engine (Linear, LayerNormLinear, LayerNormMLP under fp8_autocast) saves the
// FP8 cast of each GEMM input for the weight gradient instead of its BF16 copy; norm inputs, the FC1 output
// the activation's backward reads, and attention's tensors (FP8 attention is off by default) stay in BF16.
// One FP32 scale per tensor is negligible.
// FlashAttention's backward reads its BF16 output, so there the output projection keeps an FP8 copy beside it.
void storeGemmInputsInFp8(std::vector<Tensor>& tensors, bool flash) {
    std::vector<Tensor> copies;
    for (auto& t : tensors) {
        const bool gemmInput = t.name.find("projection input") != std::string::npos || t.name.find("FC1 input") != std::string::npos ||
                               t.name.find("FC2 input") != std::string::npos;
        if (!gemmInput || t.dtype != "bf16") continue;
        if (flash && t.name.find("output projection input") != std::string::npos) {
            copies.push_back({"attention output, FP8 copy (output projection input)", t.shape, "fp8", t.bytesPerCopy / 2, t.copies,
                              t.bytes / 2, t.sharding});
            t.name = "attention output (FlashAttention backward)";
            continue;
        }
        t.dtype = "fp8";
        t.bytesPerCopy /= 2;
        t.bytes /= 2;
    }
    tensors.insert(tensors.end(), copies.begin(), copies.end());
}

double sum(const std::vector<Tensor>& tensors) {
    double total = 0;
    for (const auto& t : tensors) total += t.bytes;
    return total;
}

struct RankParams {
    double moeLayerLinear = 0;   // a MoE layer's attention and shared-expert matrices on one TP rank
    double moeLayerExperts = 0;  // its routed experts on one EP × ETP rank
    double moeLayer = 0;         // a MoE layer without its routed experts (router and norms included)
    double layerLinear;  // the weight matrices of one layer on one TP rank (what weight quantization stores)
    double layer;      // one transformer layer on one TP rank
    double embedding;  // input embedding (vocab-parallel) and learned positions
    double output;     // output layer (or the tied copy that Megatron-LM keeps on the last stage)
    double finalNorm;
};

RankParams rankParams(const Config& c, const Dims& x, bool lastStageHoldsOutput) {
    const double norm = x.layernorm ? 2 * x.h : x.h;
    double q = x.h * x.a * x.d / x.t, o = x.a * x.d * x.h / x.t;
    double kvWeights = 2 * x.h * x.kvHeadsRank * x.d;
    if (c.kvLoraRank != 0) {
        // MLA: the down-projections (and their latent norms) are replicated on TP ranks, the up-projections
        // split by heads (Megatron-LM's MLASelfAttention).
        const double nope = c.qkNopeDim != 0 ? c.qkNopeDim : x.d, v = c.vHeadDim != 0 ? c.vHeadDim : x.d;
        const double qk = nope + c.qkRopeDim;
        q = c.qLoraRank != 0 ? x.h * c.qLoraRank + c.qLoraRank + c.qLoraRank * x.a * qk / x.t : x.h * x.a * qk / x.t;
        kvWeights = x.h * (c.kvLoraRank + c.qkRopeDim) + c.kvLoraRank + c.kvLoraRank * x.a * (nope + v) / x.t;
        o = x.a * v * x.h / x.t;
    }
    const double matrices = x.gated ? 3 : 2;
    const double mlp = matrices * x.h * x.f / x.t;
    // Column-parallel biases are split by TP; the row-parallel ones (attention output, FC2) are whole.
    const double qkvBiases = x.bias || c.qkvBias ? x.a * x.d / x.t + 2 * x.kvHeadsRank * x.d : 0;
    const double biases = qkvBiases + (x.bias ? x.h + (matrices - 1) * x.f / x.t + x.h : 0);
    RankParams p{};
    p.layerLinear = q + o + kvWeights + mlp;
    p.layer = q + o + kvWeights + mlp + biases + 2 * norm;
    if (c.experts != 0) {
        const double etp = c.etp != 0 ? c.etp : c.tp;
        const double shared = matrices * x.h * c.sharedExpertFfn / x.t;
        p.moeLayerLinear = q + o + kvWeights + shared;
        p.moeLayerExperts = c.experts / c.ep * matrices * x.h * (c.moeFfn != 0 ? c.moeFfn : c.ffn) / etp;
        p.moeLayer = p.moeLayerLinear + (biases - (x.bias ? (matrices - 1) * x.f / x.t : 0)) + 2 * norm + x.h * c.experts +
                     (c.routerBias ? c.experts : 0) + (c.sharedExpertGate && c.sharedExpertFfn > 0 ? x.h : 0);
    }
    p.embedding = x.V * x.h / x.t + c.posEmb * x.h;
    p.output = lastStageHoldsOutput ? x.V * x.h / x.t : 0;
    p.finalNorm = norm;
    return p;
}

double bytesOf(const std::string& dtype) {
    if (dtype == "fp8" || dtype == "int8") return 1;
    if (dtype == "int4") return 0.5;
    if (dtype == "fp32") return 4;
    return 2;
}

// Bytes per linear-layer weight in inference: the element, plus its quantization scales. INT8 keeps one FP16
// scale per output channel (≈ 2 / input channels a weight, taken at h); INT4 (AWQ/GPTQ) one FP16 scale and one
// INT4 zero point per group of input channels; FP8 one scale per tensor (negligible).
double weightBytes(const Config& c) {
    if (c.weightDtype == "int4") return 0.5 + 2.5 / c.quantGroup;
    if (c.weightDtype == "int8") return 1 + 2 / c.hidden;
    return bytesOf(c.weightDtype);
}

// Bytes per parameter of the static memory, by precision, gradient convention and optimizer, with the
// optimizer states split by the shape of the parameter (Adafactor factors matrices, Muon updates hidden
// matrices with momentum only and the rest with AdamW).
struct StaticRates {
    double weight, gradient, master;
    double statesHidden;     // per parameter of the layers' weight matrices
    double statesEmbedding;  // embedding and output layer (2-D, but Muon leaves them to AdamW)
    double statesVector;     // norms and biases
    const char* describe;  // a literal: the planner's kernel builds these millions of times
};

StaticRates staticRates(const Config& c) {
    StaticRates r{};
    const bool fp32 = c.precision == "fp32";
    r.weight = fp32 ? 4 : 2;
    r.gradient = fp32 ? 4 : c.staticBytes == 18 ? 4 : c.staticBytes == 20 ? 6 : 2;
    r.master = c.masterWeights && !fp32 ? 4 : 0;
    if (c.optimizer == "adamw_8bit") {
        // bitsandbytes block-wise 8-bit Adam: m and v in 8 bits, one FP32 absmax per 2048-element block each.
        r.statesHidden = r.statesEmbedding = r.statesVector = 2 + 8.0 / 2048;
        r.describe = "8-bit Adam: m and v 1 byte each + FP32 block scales (bitsandbytes, blocks of 2048)";
    } else if (c.optimizer == "adafactor") {
        // Adafactor (Shazeer & Stern 2018) without momentum: a row and a column factor per matrix.
        r.statesHidden = r.statesEmbedding = 4 * (1 / c.hidden + 1 / std::max(c.ffn, c.hidden));
        r.statesVector = 4;
        r.describe = "Adafactor: FP32 row and column factors per matrix, full second moment for vectors, no momentum";
    } else if (c.optimizer == "sgd") {
        r.statesHidden = r.statesEmbedding = r.statesVector = 4;
        r.describe = "SGD with momentum: one FP32 momentum buffer";
    } else if (c.optimizer == "muon") {
        // Muon (Jordan et al. 2024) keeps one momentum buffer for hidden matrices; embeddings, the output layer
        // and vectors are updated by AdamW.
        r.statesHidden = 4;
        r.statesEmbedding = r.statesVector = 8;
        r.describe = "Muon: FP32 momentum for hidden matrices, AdamW (m, v) for embeddings, output layer and vectors";
    } else {
        r.statesHidden = r.statesEmbedding = r.statesVector = 8;
        r.describe = "AdamW: FP32 m and v";
    }
    return r;
}

}  // namespace

// Inference: weights at their type, the KV cache as vLLM sizes it, the activation workspace of one forward
// pass, CUDA graphs; per pipeline stage.
MethodOutput inferenceMethod(const Config& c, double psi) {
    (void)psi;
    MethodOutput out;
    const Dims x = dimsOf(c);
    const std::vector<double> layers = stageLayers(c);
    const RankParams p = rankParams(c, x, !c.tiedEmbeddings || c.pp > 1);
    const double perWeight = weightBytes(c);
    const double kvBytes = bytesOf(c.kvDtype);
    // vLLM ModelConfig.get_num_kv_heads: max(1, total_kv_heads // TP).
    const double kvHeads = std::max(1.0, std::floor(c.kvHeads / c.tp));
    const double blocksPerSequence = std::ceil(c.seq / c.kvBlock);
    const double tokensCached = c.mb * blocksPerSequence * c.kvBlock;
    // One forward pass processes up to workspace_tokens tokens (chunked prefill); the widest moment of a layer
    // holds the hidden state and residual with either attention's Q/K/V and output or the MLP's gate/up and
    // activation; the sampler keeps FP32 logits for the last token of every sequence.
    const double forwardTokens = std::min(c.workspaceTokens, c.mb * c.seq);
    const double attentionWidth = 2 * (x.headsRank * x.d * 2 + 2 * kvHeads * x.d);
    const double mlpWidth = x.gated ? 6 * x.f / x.t : 4 * x.f / x.t;
    const double workspace = forwardTokens * (4 * x.h + std::max(attentionWidth, mlpWidth)) + c.mb * x.V / x.t * 4;
    const std::string dtypeNote = c.weightDtype == "int4" ? "INT4 with an FP16 scale and INT4 zero per " + n(c.quantGroup) + " input channels"
                                  : c.weightDtype == "int8" ? "INT8 with an FP16 scale per output channel"
                                                            : c.weightDtype;
    for (double i = 0; i < c.pp; ++i) {
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        stage.inFlightMicrobatches = c.mb;
        const bool first = i == 0, last = i == c.pp - 1;
        const double linear = stage.layers * p.layerLinear;
        const double rest = stage.layers * (p.layer - p.layerLinear) + (first ? p.embedding : 0) + (last ? p.finalNorm + p.output : 0);
        const double weights = linear * perWeight + rest * 2;
        // MLA caches one latent of kv_lora_rank + qk_rope_dim per token and layer, the same on every TP rank
        // (vLLM MLAAttentionSpec: no factor 2, one head).
        const double kv = c.kvLoraRank != 0 ? stage.layers * (c.kvLoraRank + c.qkRopeDim) * kvBytes * tokensCached
                                            : 2 * stage.layers * kvHeads * x.d * kvBytes * tokensCached;
        stage.lines.push_back({"parameters", "Weights", "P_linear × bytes(weight_dtype) + P_other × 2",
                               n(std::round(linear)) + " × " + detail::formatNumber(perWeight) + " + " + n(std::round(rest)) + " × 2",
                               weights,
                               "Linear layers in " + dtypeNote + "; embeddings, output layer, norms and biases in BF16; " + n(stage.layers) +
                                   " layers on this stage",
                               "membudget"});
        const bool mla = c.kvLoraRank != 0;
        stage.lines.push_back({"kv_cache", "KV cache",
                               mla ? "layers × (kv_lora_rank + qk_rope_dim) × bytes × b × ⌈s/block⌉ × block"
                                   : "2 × layers × max(1, kv/TP) × head_dim × bytes × b × ⌈s/block⌉ × block",
                               (mla ? n(stage.layers) + " × (" + n(c.kvLoraRank) + " + " + n(c.qkRopeDim) + ")"
                                    : "2 × " + n(stage.layers) + " × " + n(kvHeads) + " × " + n(x.d)) +
                                   " × " + n(kvBytes) + " × " + n(c.mb) + " × " + n(blocksPerSequence) + " × " + n(c.kvBlock),
                               kv,
                               mla ? "MLA's compressed latent and RoPE key of " + n(c.mb) + " sequences × " + n(c.seq) + " tokens, " + c.kvDtype +
                                         ", the same on every TP rank (vLLM's MLAAttentionSpec)"
                                   : "K and V of " + n(c.mb) + " sequences × " + n(c.seq) + " tokens, " + c.kvDtype + ", " + n(kvHeads) +
                                         " KV heads per GPU" + (c.kvHeads < c.tp ? " (replicated: TP > kv_heads)" : "") + " (vLLM's formula)",
                               "membudget"});
        stage.lines.push_back({"activations", "Workspace", "T × (4h + widest layer tensor) + b × V/TP × 4",
                               n(forwardTokens) + " tokens per forward pass", workspace,
                               "Activation workspace of one forward pass (an estimate: vLLM profiles it with max_num_batched_tokens) and FP32 sampling logits",
                               "membudget"});
        stage.lines.push_back({"cuda_graphs", "CUDA graphs", "cuda_graphs_gb × 10⁹", n(c.cudaGraphsGb) + " × 10⁹", c.cudaGraphsGb * kBytesPerGB,
                               "Captured CUDA graphs (an allowance; vLLM reports it at start-up)", "allowance"});
        out.stages.push_back(std::move(stage));
    }
    if (c.mtpLayers > 0)
        out.warnings.push_back({"mtp_layers", "the multi-token-prediction layers are not loaded for inference (vLLM loads them "
                                              "only as a speculative-decoding draft); they are left out of the weights"});
    return out;
}

MethodOutput membudgetMethod(const Config& c, double psi) { return membudgetMethod(c, psi, true); }

namespace {

// The numbers behind each line of a layer's tensor sub-ledger, term for term and in the same order as
// layerTensors (which adds the names and shapes), so that the planner's kernel needs no strings.
double layerActivationBytes(const Config& c, const Dims& x, bool includeAttentionCore, bool moe) {
    const bool fp8 = c.precision == "fp8";
    const double gemm = fp8 ? 0.5 : 1;  // a saved GEMM input in FP8 (storeGemmInputsInFp8)
    const double bsh = x.b * x.sRank * x.h / x.spDivisor;
    const double statsBytes = (x.layernorm ? 8 : 4) * x.b * x.sRank / x.spDivisor;
    double total = 2 * bsh + statsBytes + 2 * bsh * gemm + 2 * x.b * x.sRank * x.headsRank * x.d + 4 * x.b * x.sRank * x.kvHeadsRank * x.d;
    if (includeAttentionCore) {
        if (x.flash) {
            total += 4 * x.b * x.headsRank * x.sRank;
        } else {
            total += 2 * x.b * x.headsRank * x.sRank * x.s;
            if (x.dropout) total += x.b * x.headsRank * x.sRank * x.s + 2 * x.b * x.headsRank * x.sRank * x.s;
        }
    }
    const double attentionOutput = 2 * x.b * x.sRank * x.headsRank * x.d;
    // FlashAttention keeps the BF16 output; FP8 adds a copy for the projection (appended last, as there).
    const bool outputCopy = fp8 && x.flash;
    total += outputCopy ? attentionOutput : attentionOutput * gemm;
    if (x.dropout) total += bsh;
    total += 2 * bsh + statsBytes;
    if (moe) {
        const double etp = c.etp != 0 ? c.etp : c.tp;
        const double routed = x.b * x.sRank * c.expertsPerToken * c.capacityFactor;
        const double fe = (c.moeFfn != 0 ? c.moeFfn : c.ffn) / etp;
        total += 8 * x.b * x.sRank * c.experts / x.spDivisor + 2 * routed * x.h * gemm;
        total += x.gated ? 4 * routed * fe + 2 * routed * fe * gemm : 2 * routed * fe + 2 * routed * fe * gemm;
        total += 4 * x.b * x.sRank * c.expertsPerToken;
        if (c.sharedExpertFfn > 0) {
            const double bss = x.b * x.sRank * c.sharedExpertFfn / x.t;
            total += 2 * bsh * gemm + (x.gated ? 6 : 4) * bss;
            if (c.sharedExpertGate) total += 2 * x.b * x.sRank / x.spDivisor;
        }
    } else {
        const double bsf = x.b * x.sRank * x.f / x.t;
        total += 2 * bsh * gemm;
        total += x.gated ? 4 * bsf + 2 * bsf * gemm : 2 * bsf + 2 * bsf * gemm;
    }
    if (x.dropout) total += bsh;
    if (outputCopy) total += attentionOutput * gemm;
    return total;
}

// MoE layers among [from, from + count): first_dense_layers, + f, + 2f, … (isMoeLayer), without a loop.
double moeLayersIn(const Config& c, double from, double count) {
    if (c.experts == 0) return 0;
    auto below = [&c](double x) { return x <= c.firstDenseLayers ? 0 : std::floor((x - c.firstDenseLayers - 1) / c.moeLayerFreq) + 1; };
    return below(from + count) - below(from);
}

// What every stage of a training configuration shares: dimensions, per-rank parameters, bytes per
// parameter, and the saved bytes of one layer of each kind.
struct MembudgetTraining {
    Dims x;
    RankParams p;
    StaticRates rates;
    bool outputOnLast, offloadOptimizer, offloadParameters, mtpMoe;
    double shardGroup, expertShardGroup, fullLayerBytes, denseLayerBytes, moeLayerBytes, coreBytes, mtpLayerBytes;
};

MembudgetTraining membudgetTraining(const Config& c) {
    MembudgetTraining t{};
    t.x = dimsOf(c);
    // Untied: the output layer sits on the last stage. Tied with PP > 1: Megatron-LM keeps a copy of
    // the embedding there to compute the logits (and all-reduces their gradients).
    t.outputOnLast = !c.tiedEmbeddings || c.pp > 1;
    t.p = rankParams(c, t.x, t.outputOnLast);
    t.shardGroup = c.dp * c.cp;  // Megatron's distributed optimizer shards over DP × CP
    t.rates = staticRates(c);
    t.offloadOptimizer = c.offload != "none";
    t.offloadParameters = c.offload == "all" && c.zero >= 3;
    // Routed experts are replicated over the expert data-parallel group, TP × CP × DP / (ETP × EP)
    // (Megatron-LM's expert DP): their gradients and optimizer states shard over it.
    t.expertShardGroup = c.experts != 0 ? c.tp * c.cp * c.dp / ((c.etp != 0 ? c.etp : c.tp) * c.ep) : 1;
    t.mtpMoe = c.experts != 0 && isMoeLayer(c, c.layers - 1);
    t.fullLayerBytes = layerActivationBytes(c, t.x, true, false);
    t.denseLayerBytes = layerActivationBytes(c, t.x, c.ckpt == "none", false);
    t.moeLayerBytes = c.experts != 0 ? layerActivationBytes(c, t.x, c.ckpt == "none", true) : 0;
    // Selective recomputation (Megatron-LM: core attention) rebuilds one layer's attention core.
    t.coreBytes = t.fullLayerBytes - layerActivationBytes(c, t.x, false, false);
    t.mtpLayerBytes = c.ckpt == "full" ? 2 * t.x.b * t.x.sRank * t.x.h / t.x.spDivisor : t.mtpMoe ? t.moeLayerBytes : t.denseLayerBytes;
    return t;
}

MembudgetStage membudgetStage(const Config& c, const MembudgetTraining& t, double i, double stageLayers, double firstLayerOfStage,
                              bool atPeakPhase) {
    const Dims& x = t.x;
    const RankParams& p = t.p;
    const StaticRates& rates = t.rates;
    MembudgetStage s{};
    s.layers = stageLayers;
    const bool first = i == 0, last = i == c.pp - 1;
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

    // Static memory by precision, gradient convention and optimizer (staticRates), sharded by ZeRO stage.
    s.paramShard = c.zero >= 3 ? t.shardGroup : 1;
    s.gradShard = c.zero >= 2 ? t.shardGroup : 1;
    s.optimizerShard = c.zero >= 1 ? t.shardGroup : 1;
    const double expertParamShard = c.zero >= 3 ? t.expertShardGroup : 1, expertGradShard = c.zero >= 2 ? t.expertShardGroup : 1,
                 expertOptimizerShard = c.zero >= 1 ? t.expertShardGroup : 1;
    const double hiddenMatrices = denseLayers * p.layerLinear + s.moeLayers * p.moeLayerLinear + mtpLinear;
    const double embeddingParams = (first ? p.embedding : 0) + (last ? p.output : 0) + s.mtpEmbedding;
    const double vectorParams = s.stageParams - hiddenMatrices - embeddingParams;
    // Transformer Engine caches an FP8 copy of each linear weight for the micro-batches of a step.
    s.fp8Copies = c.precision == "fp8" ? hiddenMatrices + s.expertParams : 0;
    s.parameters = t.offloadParameters ? 0
                                       : rates.weight * s.stageParams / s.paramShard + rates.weight * s.expertParams / expertParamShard +
                                             s.fp8Copies;
    s.gradients = rates.gradient * s.stageParams / s.gradShard + rates.gradient * s.expertParams / expertGradShard;
    s.states = rates.statesHidden * hiddenMatrices + rates.statesEmbedding * embeddingParams + rates.statesVector * vectorParams;
    s.optimizer = t.offloadOptimizer ? 0
                                     : (rates.master * s.stageParams + s.states) / s.optimizerShard +
                                           (rates.master + rates.statesHidden) * s.expertParams / expertOptimizerShard;
    if (c.zero >= 3) {
        // ZeRO-3/FSDP gathers each layer's weights before use and prefetches the next; its gradients are
        // reduce-scattered from a full-size bucket.
        const double largestModule = std::max(p.layer, first ? p.embedding : 0.0);
        s.parameters += 2 * rates.weight * largestModule;
        s.gradients += rates.weight * largestModule;
    }

    // Activations: every saved tensor, times the layer-copies in flight, plus the stage's extras.
    s.copies = inFlightLayerCopies(c, stageLayers, i);
    s.microbatches = inFlightMicrobatches(c, i);
    double activations = 0;
    if (c.ckpt == "full") {
        activations += 2 * x.b * x.sRank * x.h / x.spDivisor * s.copies;
        if (stageLayers > 0) activations += t.fullLayerBytes;
    } else {
        // Layer-copies split between dense and MoE layers in the proportion the stage holds them.
        const double moeCopies = stageLayers > 0 ? s.copies * s.moeLayers / stageLayers : 0;
        const double denseCopies = s.copies - moeCopies;
        if (denseCopies > 0) activations += t.denseLayerBytes * denseCopies;
        if (moeCopies > 0) activations += t.moeLayerBytes * moeCopies;
        if (c.ckpt == "selective" && stageLayers > 0 && t.coreBytes > 0) activations += t.coreBytes;
    }
    if (first) {
        activations += 8 * x.b * x.sRank * s.microbatches;
        if (x.dropout) activations += x.b * x.sRank * x.h / x.spDivisor * s.microbatches;
    }
    if (last) {
        // The last stage runs each micro-batch's forward and backward back to back: one micro-batch of
        // logits. Megatron-LM's vocab-parallel cross-entropy works in FP32.
        const double bsh = x.b * x.sRank * x.h / x.spDivisor;
        const double logits = x.b * x.sRank * x.V / x.t;
        activations += 2 * bsh + 2 * bsh + 2 * logits + 4 * logits;
        if (s.mtpLayers > 0)
            activations += t.mtpLayerBytes * s.mtpLayers + 4 * bsh * s.mtpLayers + 4 * x.b * x.sRank * x.h * s.mtpLayers +
                           4 * bsh * s.mtpLayers + 6 * logits * s.mtpLayers;
    }
    s.activationsDuringBackward = activations;

    // Phases: activations are freed before the optimizer step; with BF16 gradients the step works on an
    // FP32 copy of this rank's optimizer shard of them.
    s.stepTemporary = rates.gradient == 2 && rates.master > 0 && !t.offloadOptimizer ? 4 * s.stageParams / s.optimizerShard : 0;
    s.forwardBackward = s.parameters + s.gradients + s.optimizer + activations;
    s.step = s.parameters + s.gradients + s.optimizer + s.stepTemporary;
    s.stepPeaks = atPeakPhase && s.step > s.forwardBackward;
    s.optimizerAtPeak = s.optimizer + (s.stepPeaks ? s.stepTemporary : 0);
    s.activations = s.stepPeaks ? 0 : activations;
    return s;
}

}  // namespace

PeakBytes membudgetTrainingPeak(const Config& c) {
    const MembudgetTraining t = membudgetTraining(c);
    const double allowances = c.buffersGb * kBytesPerGB + c.contextGb * kBytesPerGB;
    PeakBytes peak{};
    peak.totalBytes = -1;
    double firstLayer = 0, previousLayers = -1, previousMoe = -1;
    for (double i = 0; i < c.pp; ++i) {
        const double layers = stageLayerCount(c, i);
        const double from = firstLayer;
        firstLayer += layers;
        // A middle stage holding the same layers as the one before it has the same static memory and no
        // more micro-batches in flight (min(PP − i, m) falls with i): it cannot be the first peak. Skipping
        // it makes a plan's cost grow with the distinct stages (at most four), not with PP.
        const bool middle = i != 0 && i != c.pp - 1;
        const double moe = moeLayersIn(c, from, layers);
        if (middle && layers == previousLayers && moe == previousMoe) continue;
        previousLayers = middle ? layers : -1;
        previousMoe = middle ? moe : -1;
        const MembudgetStage s = membudgetStage(c, t, i, layers, from, true);
        // The same sum, in the same order, as evaluate() makes of the stage's lines.
        const double total = s.parameters + s.gradients + s.optimizerAtPeak + s.activations + c.buffersGb * kBytesPerGB +
                             c.contextGb * kBytesPerGB;
        const double staticBytes = s.parameters + s.gradients + s.optimizer + allowances;
        if (total > peak.totalBytes) peak = {s.parameters, s.gradients, s.optimizerAtPeak, s.activations, allowances, total, i, peak.staticBytes};
        peak.staticBytes = std::max(peak.staticBytes, staticBytes);
    }
    return peak;
}

MethodOutput membudgetMethod(const Config& c, double psi, bool atPeakPhase) {
    (void)psi;  // membudget counts every tensor of the architecture itself
    MethodOutput out;
    const MembudgetTraining t = membudgetTraining(c);
    const Dims& x = t.x;
    const RankParams& p = t.p;
    const StaticRates& rates = t.rates;
    const std::vector<double> layers = stageLayers(c);
    const double stages = c.pp;
    const bool outputOnLast = t.outputOnLast, offloadOptimizer = t.offloadOptimizer, offloadParameters = t.offloadParameters;
    const double shardGroup = t.shardGroup, expertShardGroup = t.expertShardGroup;
    const std::vector<Tensor> fullLayer = layerTensors(c, x, true);
    const double fullLayerBytes = sum(fullLayer);

    double firstLayerOfStage = 0;
    for (double i = 0; i < stages; ++i) {
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        const bool first = i == 0, last = i == stages - 1;
        const MembudgetStage sn = membudgetStage(c, t, i, stage.layers, firstLayerOfStage, atPeakPhase);
        firstLayerOfStage += stage.layers;
        const double moeLayers = sn.moeLayers, mtpLayers = sn.mtpLayers, mtpEmbedding = sn.mtpEmbedding;
        const bool mtpMoe = t.mtpMoe;
        const double stageParams = sn.stageParams, expertParams = sn.expertParams, fp8Copies = sn.fp8Copies;
        const double paramShard = sn.paramShard, gradShard = sn.gradShard, optimizerShard = sn.optimizerShard;
        std::string parameterNote = std::string(c.precision == "fp32" ? "FP32" : c.precision == "fp16" ? "FP16" : "BF16") + " weights of " +
                                    n(std::round(stageParams)) + " parameters on this GPU (" +
                                    n(stage.layers) + " layers" + (first ? ", the embedding" : "") +
                                    (last ? (c.tiedEmbeddings && c.pp > 1 ? ", the tied output copy" : (outputOnLast ? ", the output layer" : "")) : "") +
                                    (mtpLayers > 0 ? ", " + n(mtpLayers) + " multi-token-prediction layer" + (mtpLayers > 1 ? "s" : "") +
                                                         (mtpEmbedding > 0 ? " and its embedding copy" : "")
                                                   : "") +
                                    ")" + (fp8Copies > 0 ? ", plus FP8 copies of the linear weights (Transformer Engine)" : "");
        std::string gradientNote = std::string(rates.gradient == 2 ? (c.precision == "fp16" ? "FP16" : "BF16")
                                               : rates.gradient == 4 ? "FP32 (main_grad)" : "BF16 + FP32 accumulator") +
                                   " gradients";
        if (c.zero >= 3) {
            parameterNote += "; sharded over DP × CP = " + n(shardGroup) + ", plus two gathered layers (current and prefetched)";
            gradientNote += ", sharded over DP × CP, plus one layer's BF16 reduce-scatter bucket";
        } else if (c.zero >= 2) {
            gradientNote += ", sharded over DP × CP = " + n(shardGroup) + " (ZeRO-2)";
        }
        if (offloadParameters) parameterNote = "Parameters offloaded to CPU; only the gathered layers are on the GPU";
        const std::string optimizerNote =
            offloadOptimizer ? "Offloaded to CPU memory (ZeRO-Offload)"
                             : std::string(rates.master > 0 ? "FP32 master weights (4 B) + " : "No master copy; ") + rates.describe +
                                   std::string(c.zero >= 1 ? ", sharded over DP × CP = " + n(shardGroup) + " (distributed optimizer / ZeRO-1)" : "");

        // The tensor sub-ledger: the same terms as sn.activations, with names, shapes and types.
        const double copies = sn.copies;
        const double microbatches = sn.microbatches;
        stage.inFlightMicrobatches = microbatches;
        std::vector<Tensor> tensors;
        if (c.ckpt == "full") {
            const double input = 2 * x.b * x.sRank * x.h / x.spDivisor;
            tensors.push_back({"layer input (checkpoint)", "[b, " + sShape(c, true) + ", h]", "bf16", input, copies,
                               input * copies, c.sp && c.tp > 1 ? "sharded by SP over TP" : "replicated on every TP rank"});
            if (stage.layers > 0)
                tensors.push_back({"one layer recomputed in backward (transient)", "all of a layer's saved tensors", "mixed",
                                   fullLayerBytes, 1, fullLayerBytes, "as the layer's tensors"});
        } else {
            const double moeCopies = stage.layers > 0 ? copies * moeLayers / stage.layers : 0;
            const double denseCopies = copies - moeCopies;
            if (denseCopies > 0)
                for (auto tensor : layerTensors(c, x, c.ckpt == "none")) {
                    tensor.copies = denseCopies;
                    tensor.bytes = tensor.bytesPerCopy * denseCopies;
                    tensors.push_back(std::move(tensor));
                }
            if (moeCopies > 0)
                for (auto tensor : layerTensors(c, x, c.ckpt == "none", true)) {
                    tensor.name = "MoE layer: " + tensor.name;
                    tensor.copies = moeCopies;
                    tensor.bytes = tensor.bytesPerCopy * moeCopies;
                    tensors.push_back(std::move(tensor));
                }
            if (c.ckpt == "selective" && stage.layers > 0 && t.coreBytes > 0)
                tensors.push_back({"attention core recomputed in backward (transient)", "one layer", "mixed", t.coreBytes, 1, t.coreBytes,
                                   "heads split by TP"});
        }
        if (first) {
            tensors.push_back({"input token ids", "[b, " + sShape(c, false) + "]", "int64", 8 * x.b * x.sRank, microbatches,
                               8 * x.b * x.sRank * microbatches, "replicated on every TP rank"});
            if (x.dropout) {
                const double mask = x.b * x.sRank * x.h / x.spDivisor;
                tensors.push_back({"embedding dropout mask", "[b, " + sShape(c, true) + ", h]", "uint8", mask, microbatches,
                                   mask * microbatches, "sharded by SP over TP"});
            }
        }
        if (last) {
            const double bsh = x.b * x.sRank * x.h / x.spDivisor;
            const double logits = x.b * x.sRank * x.V / x.t;
            tensors.push_back({"final norm input", "[b, " + sShape(c, true) + ", h]", "bf16", 2 * bsh, 1, 2 * bsh, "sharded by SP over TP"});
            tensors.push_back({"output layer input", "[b, " + sShape(c, true) + ", h]", "bf16", 2 * bsh, 1, 2 * bsh, "sharded by SP over TP"});
            tensors.push_back({"logits", "[b, " + sShape(c, false) + ", V/TP]", "bf16", 2 * logits, 1, 2 * logits, "vocabulary split by TP"});
            tensors.push_back({"FP32 logits / softmax for the loss", "[b, " + sShape(c, false) + ", V/TP]", "fp32", 4 * logits, 1,
                               4 * logits, "vocabulary split by TP"});
            if (mtpLayers > 0) {
                // Each MTP depth is one more layer for the one micro-batch of the last stage, its norm and
                // projection inputs and its own logits and loss, all alive until the backward pass.
                const std::vector<Tensor> mtpLayer = c.ckpt == "full" ? std::vector<Tensor>{{"layer input (checkpoint)", "[b, " + sShape(c, true) + ", h]", "bf16", 2 * bsh, 1, 2 * bsh, "sharded by SP over TP"}}
                                                                      : layerTensors(c, x, c.ckpt == "none", mtpMoe);
                for (auto tensor : mtpLayer) {
                    tensor.name = "MTP layer: " + tensor.name;
                    tensor.copies = mtpLayers;
                    tensor.bytes = tensor.bytesPerCopy * mtpLayers;
                    tensors.push_back(std::move(tensor));
                }
                const std::vector<Tensor> extras{
                    {"MTP: hidden and embedding norm inputs", "2 × [b, " + sShape(c, true) + ", h]", "bf16", 4 * bsh, mtpLayers, 4 * bsh * mtpLayers, "sharded by SP over TP"},
                    {"MTP: projection input [h; emb]", "[b, " + sShape(c, false) + ", 2h]", "bf16", 4 * x.b * x.sRank * x.h, mtpLayers,
                     4 * x.b * x.sRank * x.h * mtpLayers, "replicated on every TP rank"},
                    {"MTP: final norm and output layer inputs", "2 × [b, " + sShape(c, true) + ", h]", "bf16", 4 * bsh, mtpLayers, 4 * bsh * mtpLayers, "sharded by SP over TP"},
                    {"MTP: logits, BF16 and FP32", "[b, " + sShape(c, false) + ", V/TP]", "bf16 + fp32", 6 * logits, mtpLayers, 6 * logits * mtpLayers,
                     "vocabulary split by TP"}};
                tensors.insert(tensors.end(), extras.begin(), extras.end());
            }
        }
        const double activations = sn.activationsDuringBackward;
        stage.phases = {{"forward/backward", sn.forwardBackward}, {"optimizer step", sn.step}};
        const bool stepPeaks = sn.stepPeaks;
        stage.peakPhase = sn.step > sn.forwardBackward ? "optimizer step" : "forward/backward";

        const std::string where = "stage " + n(i) + " of " + n(stages);
        if (expertParams > 0)
            parameterNote += "; " + n(std::round(expertParams)) + " routed-expert parameters (" + n(c.experts / c.ep) +
                             " experts per EP rank), their gradients and optimizer sharded over the expert DP group of " + n(expertShardGroup);
        stage.lines.push_back({"parameters", "Parameters", n(rates.weight) + " × P_stage / shard",
                               n(rates.weight) + " × " + n(std::round(stageParams)) + " / " + n(paramShard), sn.parameters, parameterNote,
                               "membudget"});
        stage.lines.push_back({"gradients", "Gradients", n(rates.gradient) + " × P_stage / shard",
                               n(rates.gradient) + " × " + n(std::round(stageParams)) + " / " + n(gradShard), sn.gradients,
                               gradientNote, "membudget"});
        Line optimizerLine{"optimizer", "Optimizer", "(master + states) × P_stage / shard",
                           "(" + n(rates.master) + " × " + n(std::round(stageParams)) + " + " + n(std::round(sn.states)) + ") / " + n(optimizerShard),
                           sn.optimizerAtPeak, optimizerNote, "membudget"};
        Line activationLine{"activations", "Activations", "Σ saved tensors × layer-copies in flight + stage extras",
                            n(copies) + " layer-copies (" + n(stage.layers) + " layers, " + n(microbatches) +
                                " micro-batches in flight) on " + where,
                            sn.activations,
                            std::string(c.ckpt == "full" ? "Full recomputation: layer inputs kept, one layer rebuilt in backward"
                                        : c.ckpt == "selective" ? "Selective recomputation: attention core rebuilt in backward"
                                                                : "No recomputation") +
                                "; " + (x.flash ? "FlashAttention (no s × s scores)" : "eager attention (s × s probabilities kept)") +
                                "; see the tensor sub-ledger",
                            "membudget"};
        if (stepPeaks) {
            optimizerLine.note += "; at its peak, the optimizer step, plus an FP32 copy of the BF16 gradient shard";
            activationLine.note = "Freed before the optimizer step, which is this stage's peak (" + n(std::round(activations)) +
                                  " bytes during forward/backward)";
        }
        stage.lines.push_back(std::move(optimizerLine));
        stage.lines.push_back(std::move(activationLine));
        stage.tensors = std::move(tensors);
        out.stages.push_back(std::move(stage));
    }
    if (offloadOptimizer || offloadParameters) {
        // Host memory per node for what was offloaded: the optimizer (and parameters) of every GPU in it.
        const double shardParams = (layers[0] * (c.experts != 0 ? p.moeLayer + p.moeLayerExperts : p.layer) + p.embedding) /
                                   (c.zero >= 1 ? shardGroup : 1);
        // ZeRO-Offload (Ren et al. 2021 §4) keeps, per GPU's shard, the optimizer states, the FP32 master weights
        // and the FP32 gradients the CPU step reads; ZeRO-Infinity / FSDP offload adds the parameters.
        const double perNode = c.gpusPerNode * shardParams;
        const std::string perNodeText = n(c.gpusPerNode) + " GPUs × " + n(std::round(shardParams)) + " parameters";
        out.cpuLines.push_back({"cpu_optimizer", "Optimizer states", "GPUs per node × P_shard × states", perNodeText,
                                perNode * rates.statesHidden, rates.describe, "membudget"});
        out.cpuLines.push_back({"cpu_master", "FP32 master weights", "GPUs per node × P_shard × 4", perNodeText,
                                perNode * rates.master, "the weights the CPU optimizer updates", "membudget"});
        out.cpuLines.push_back({"cpu_gradients", "FP32 gradients", "GPUs per node × P_shard × 4", perNodeText, perNode * 4,
                                "gradients copied to the CPU for its optimizer step (ZeRO-Offload)", "membudget"});
        if (offloadParameters)
            out.cpuLines.push_back({"cpu_parameters", "Parameters", "GPUs per node × P_shard × weight bytes", perNodeText,
                                    perNode * rates.weight, "parameters offloaded with ZeRO-3 (ZeRO-Infinity, FSDP CPU offload)",
                                    "membudget"});
        for (const auto& line : out.cpuLines) out.cpuBytesPerNode += line.bytes;
    }
    if (c.precision == "fp16" && !c.masterWeights)
        out.warnings.push_back({"master_weights", "FP16 training without FP32 master weights loses small updates; mixed precision keeps them"});
    if (c.mtpLayers > 0 && c.pp > 1)
        out.warnings.push_back({"mtp_layers", "the multi-token-prediction layers all sit on the last stage; Megatron-LM lets you move "
                                              "layers off it (last_stage_layers) to balance"});
    if (c.offload == "all" && c.zero < 3)
        out.warnings.push_back({"offload", "offload = all (parameters too) needs ZeRO-3 (zero = 3); only the optimizer is offloaded"});
    return out;
}

}  // namespace membudget::detail
