// Megatron-LM (megatron/training/arguments.py): a configuration written back as its flags, a torchrun command of
// pretrain_gpt.py, over the shared writer (megatron.cpp reads them).
#include "formats/megatron.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "formats/writer.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/layout.hpp"
#include "model/recompute_modules.hpp"

namespace membudget::detail {

namespace {

// The command's lines, one flag or group of flags a line, in the order written.
struct Flags {
    std::vector<std::string> lines;
    void operator()(std::string text) { lines.push_back(std::move(text)); }
};

// The layout: the parallel sizes, ZeRO's sharding, the overlaps and the pipeline's stages.
void writeParallelism(const Config& c, Flags& flag) {
    flag("--tensor-model-parallel-size " + formatNumber(c.tp));
    flag("--pipeline-model-parallel-size " + formatNumber(c.pp));
    if (c.cp > 1) flag("--context-parallel-size " + formatNumber(c.cp));
    if (c.ep > 1) flag("--expert-model-parallel-size " + formatNumber(c.ep));
    if (c.etp > 0) flag("--expert-tensor-parallel-size " + formatNumber(c.etp));
    if (c.sp) flag("--sequence-parallel");
    if (c.zero == 1) flag("--use-distributed-optimizer");
    if (c.zero >= 2)
        flag("--use-megatron-fsdp --data-parallel-sharding-strategy " + std::string(c.zero == 2 ? "optim_grads" : "optim_grads_params"));
    if (c.overlapGradReduce) flag("--overlap-grad-reduce");
    if (c.overlapParamGather) flag("--overlap-param-gather");
    if (c.overlapMoeComm) flag("--overlap-moe-expert-parallel-comm");
    // The layout's characters (E, L, t, m, digits, | ( ) * ,) need the shell's single quotes, and hold none.
    if (!c.pipelineLayout.empty())
        flag("--pipeline-model-parallel-layout '" + c.pipelineLayout + "'");
    else if (c.vpp > 1)
        flag("--num-virtual-stages-per-pipeline-rank " + formatNumber(c.vpp));
    if (c.firstStageLayers > 0) flag("--decoder-first-pipeline-num-layers " + formatNumber(c.firstStageLayers));
    if (c.lastStageLayers > 0) flag("--decoder-last-pipeline-num-layers " + formatNumber(c.lastStageLayers));
    if (c.splitAccounts == SplitAccounts::embedding || c.splitAccounts == SplitAccounts::both)
        flag("--account-for-embedding-in-pipeline-split");
    if (c.splitAccounts == SplitAccounts::loss || c.splitAccounts == SplitAccounts::both) flag("--account-for-loss-in-pipeline-split");
}

// The GPT layer: its sizes, heads, norms, biases and positions, and what of the architecture it cannot say.
void writeLayerShape(Exporter& e, const Config& c, Flags& flag) {
    // Flags carry an architecture, not a name: it comes back as model = custom, its count derived from it.
    if (c.model != "custom") e.skip("model", c.model, "flags name no model (read back as custom)");
    if (c.params != 0 && c.params != derivedParameterCount(c))
        e.skip("params", formatNumber(c.params), "flags give the architecture, of " + formatNumber(derivedParameterCount(c)));
    flag("--num-layers " + formatNumber(c.layers));
    flag("--hidden-size " + formatNumber(c.hidden));
    flag("--ffn-hidden-size " + formatNumber(c.ffn));
    flag("--num-attention-heads " + formatNumber(c.heads));
    if (c.kvHeads != c.heads) flag("--group-query-attention --num-query-groups " + formatNumber(c.kvHeads));
    if (c.headDim > 0) flag("--kv-channels " + formatNumber(c.headDim));
    if (c.gatedFfn) flag("--swiglu");
    if (c.norm == Norm::rmsnorm) flag("--normalization RMSNorm");
    if (!c.bias) flag("--disable-bias-linear");
    if (c.qkvBias) flag("--add-qkv-bias");
    // Megatron-LM's --add-bias-linear is every linear or none, and its GPT layer has two norms and a plain head.
    if (c.attentionBias && !c.bias) e.skip("attention_bias", "true", "Megatron-LM has no biases on attention alone");
    if (c.mlpBias && !c.bias) e.skip("mlp_bias", "true", "Megatron-LM has no biases on the MLP alone");
    if (c.outputBias) e.skip("output_bias", "true", "Megatron-LM's output layer has no bias");
    if (c.sharedNorm) e.skip("shared_norm", "true", "Megatron-LM's GPT layer has a norm before attention and one before the MLP");
    if (c.embeddingNorm) e.skip("embedding_norm", "true", "Megatron-LM has no norm on the embeddings");
    if (!c.layerPattern.empty())
        e.skip("layer_pattern", c.layerPattern.substr(0, 16) + (c.layerPattern.size() > 16 ? "…" : ""),
               "a hybrid stack is Megatron-LM's Mamba model (pretrain_mamba.py, --hybrid-override-pattern), not a GPT layer");
    if (!c.tiedEmbeddings) flag("--untie-embeddings-and-output-weights");
    if (c.qkNorm == QkNorm::perHead) flag("--qk-layernorm");
    if (c.qkNorm == QkNorm::fullWidth) e.skip("qk_norm", "full_width", "--qk-layernorm norms each head");
    // --max-position-embeddings is the learned table's rows and the longest sequence alike (the context window).
    if (c.posEmb > 0) {
        flag("--position-embedding-type learned_absolute --max-position-embeddings " + formatNumber(c.posEmb));
        if (c.contextWindow != c.posEmb)
            e.skip("context_window", formatNumber(c.contextWindow), "--max-position-embeddings is the learned table too");
    } else {
        flag("--position-embedding-type rope" +
             (c.contextWindow > 0 ? " --max-position-embeddings " + formatNumber(c.contextWindow) : std::string()));
    }
    // What a GPT layer of Megatron-LM's flags here does not write.
    for (const auto& [key, value] : {std::pair<const char*, double>{"sliding_window", c.slidingWindow},
                                     {"full_attention_every", c.fullAttentionEvery},
                                     {"attention_chunk", c.attentionChunk},
                                     {"attention_sinks", c.attentionSinks ? 1 : 0},
                                     {"post_norms", c.postNorms ? 1 : 0},
                                     {"index_heads", c.indexHeads}})
        if (value != 0) e.skip(key, fieldText(c, *findField(key)), "not written here");
}

// The vocabulary, the experts, multi-latent attention and the multi-token prediction layers.
void writeVocabularyAndExperts(Exporter& e, const Config& c, Flags& flag) {
    // NullTokenizer adds its EOD token to --vocab-size; divisible-by 1 keeps the padding to a multiple of TP.
    flag("--tokenizer-type NullTokenizer --vocab-size " + formatNumber(c.vocab - 1) + " --make-vocab-size-divisible-by 1");
    if (std::fmod(c.vocab, c.tp) != 0) e.skip("vocab", formatNumber(c.vocab), "Megatron-LM pads the vocabulary to a multiple of TP");
    if (c.experts > 0) {
        // --moe-grouped-gemm: the experts as Transformer Engine's GroupedLinear, whose workspaces the ledger counts.
        flag("--num-experts " + formatNumber(c.experts) + " --moe-router-topk " + formatNumber(c.expertsPerToken) + " --moe-grouped-gemm");
        if (c.moeFfn > 0) flag("--moe-ffn-hidden-size " + formatNumber(c.moeFfn));
        if (c.sharedExpertFfn > 0) flag("--moe-shared-expert-intermediate-size " + formatNumber(c.sharedExpertFfn));
        if (c.sharedExpertGate) flag("--moe-shared-expert-gate");
        if (c.moeLayerFreq != 1) flag("--moe-layer-freq " + formatNumber(c.moeLayerFreq));
        if (c.capacityFactor != 0) flag("--moe-expert-capacity-factor " + formatNumber(c.capacityFactor));
        if (c.moeForceBalance) flag("--moe-router-force-load-balancing");
        if (c.moeDispatcher == MoeDispatcher::deepep) flag("--moe-token-dispatcher-type flex --moe-enable-deepep");
        if (c.firstDenseLayers > 0)
            e.skip("first_dense_layers", formatNumber(c.firstDenseLayers), "write it in --moe-layer-freq's pattern form");
        if (c.routerBias) e.skip("router_bias", "true", "--moe-router-enable-expert-bias has no memory model here");
    }
    if (c.kvLoraRank > 0) {
        // --qk-layernorm: MLA's norms of its latents (DeepSeek's q_a_layernorm, kv_a_layernorm), which the ledger counts.
        flag("--multi-latent-attention --q-lora-rank " + formatNumber(c.qLoraRank) + " --kv-lora-rank " + formatNumber(c.kvLoraRank) +
             " --qk-layernorm");
        flag("--qk-head-dim " + formatNumber(c.qkNopeDim) + " --qk-pos-emb-head-dim " + formatNumber(c.qkRopeDim) + " --v-head-dim " +
             formatNumber(c.vHeadDim));
    }
    if (c.mtpLayers > 0) flag("--mtp-num-layers " + formatNumber(c.mtpLayers));
}

// The batch, recomputation, precision, attention's kernel, dropout and the optimizer.
void writeTraining(Exporter& e, const Config& c, Flags& flag) {
    flag("--seq-length " + formatNumber(c.seq));
    flag("--micro-batch-size " + formatNumber(c.mb) + " --global-batch-size " + formatNumber(c.mb * c.microbatches * c.dp));
    if (c.ckpt == Checkpointing::full)
        flag(c.recomputeLayers > 0
                 ? "--recompute-granularity full --recompute-method block --recompute-num-layers " + formatNumber(c.recomputeLayers)
                 : "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
    else if (c.ckpt == Checkpointing::selective) {
        flag("--recompute-granularity selective");
        std::string modules = canonicalRecomputeModules(parseRecomputeModules(c.recomputeModules));
        std::replace(modules.begin(), modules.end(), ',', ' ');
        if (modules != "core_attn") flag("--recompute-modules" + (modules.empty() ? "" : " " + modules));
    } else if (c.ckpt == Checkpointing::op)
        e.skip("ckpt", "op", "torchtitan's op-level checkpointing; Megatron-LM has selective or full");
    if (c.ckptEvery != 1)
        e.skip("ckpt_every", formatNumber(c.ckptEvery), "Megatron-LM checkpoints consecutive layers (--recompute-num-layers)");
    switch (c.precision) {
        case Precision::bf16:
            flag(c.staticBytes == 18 ? "--bf16" : "--bf16 --grad-reduce-in-bf16");
            break;
        case Precision::fp16:
            flag(c.staticBytes == 18 ? "--fp16 --accumulate-allreduce-grads-in-fp32" : "--fp16");
            break;
        case Precision::fp8:
            flag(c.staticBytes == 18 ? "--bf16 --fp8-format hybrid" : "--bf16 --grad-reduce-in-bf16 --fp8-format hybrid");
            break;
        case Precision::fp32:
            break;
    }
    if (c.attention == Attention::eager) flag("--attention-backend unfused");
    if (!c.dropout) flag("--hidden-dropout 0 --attention-dropout 0");
    switch (c.optimizer) {
        case Optimizer::adamw:
            flag("--optimizer adam");
            break;
        case Optimizer::sgd:
            flag("--optimizer sgd");
            break;
        case Optimizer::muon:
            flag("--optimizer muon");
            break;
        default:
            e.skip("optimizer", std::string(toString(c.optimizer)), "Megatron-LM has adam, sgd and muon");
    }
}

// PyTorch's allocator settings, as the launch script exports them (readAllocatorConf reads them back).
std::string allocatorExport(const Config& c) {
    std::string allocator;
    if (c.expandableSegments) allocator = "expandable_segments:True";
    if (c.maxSplitSizeMb > 0) allocator += (allocator.empty() ? "" : ",") + ("max_split_size_mb:" + formatNumber(c.maxSplitSizeMb));
    if (!allocator.empty()) allocator = "export PYTORCH_CUDA_ALLOC_CONF=" + allocator + "\n";
    return allocator;
}

}  // namespace

ExportResult exportMegatron(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::megatron);
    const double world = worldSize(c);
    const double perNode = std::fmod(world, c.gpusPerNode) == 0 ? c.gpusPerNode : world;
    Flags flag{{"torchrun --nproc-per-node " + formatNumber(perNode) + " --nnodes " + formatNumber(world / perNode) + " pretrain_gpt.py"}};
    writeParallelism(c, flag);
    writeLayerShape(e, c, flag);
    writeVocabularyAndExperts(e, c, flag);
    writeTraining(e, c, flag);
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: Megatron-LM (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + allocatorExport(c) +
             command(flag.lines);
    return r;
}

}  // namespace membudget::detail
