// Megatron-LM (megatron/training/arguments.py): its flags read into membudget's keys over the shared reader. The
// flag tables are in megatron_flags.cpp; a configuration is written back as its flags in megatron_export.cpp.
#include "formats/megatron.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/megatron_flags.hpp"
#include "formats/reader.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "model/pipeline_layout.hpp"
#include "model/recompute_modules.hpp"

namespace membudget::detail {

namespace {

double ceilTo(double value, double multiple) { return std::ceil(value / multiple) * multiple; }

std::optional<double> worldSize(Mapping& m, Words& w) {
    Flag* perNode = w.find({"--nproc_per_node", "--nproc-per-node"});
    Flag* nodes = w.find({"--nnodes"});
    if (!perNode) return std::nullopt;
    const auto g = flagNumber(m, perNode);
    std::optional<double> n = 1.0;
    if (nodes) n = flagNumber(m, nodes);  // "1:4" (elastic) is not one number
    if (!g || !n) return std::nullopt;
    return *g * *n;
}

// Parallelism: Megatron-LM's defaults are 1.
void readParallelism(Words& w, Mapping& m) {
    if (!setFromFlag(m, w, "tp", {"--tensor-model-parallel-size"})) m.setNumber("tp", 1);
    if (!setFromFlag(m, w, "pp", {"--pipeline-model-parallel-size"})) m.setNumber("pp", 1);
    if (!setFromFlag(m, w, "cp", {"--context-parallel-size"})) m.setNumber("cp", 1);
    if (!setFromFlag(m, w, "ep", {"--expert-model-parallel-size"})) m.setNumber("ep", 1);
    if (!setFromFlag(m, w, "etp", {"--expert-tensor-parallel-size"})) m.setNumber("etp", 0);
    m.setBool("sp", w.has({"--sequence-parallel"}));
    double zero = w.has({"--use-distributed-optimizer"}) ? 1 : 0;
    if (w.has({"--use-megatron-fsdp", "--use-torch-fsdp2"})) zero = 3;
    if (Flag* strategy = w.find({"--data-parallel-sharding-strategy"})) {
        const std::map<std::string, double> stages{{"no_shard", 0}, {"optim", 1}, {"optim_grads", 2}, {"optim_grads_params", 3}};
        if (const auto it = stages.find(strategy->value); it != stages.end())
            zero = it->second;
        else
            m.unmapped(strategy->name, strategy->value, "not one of no_shard, optim, optim_grads, optim_grads_params");
    }
    m.setNumber("zero", zero);
}

// The layer's shape: its sizes, MLP, attention heads, norms and biases.
void readLayerShape(Words& w, Mapping& m, std::optional<double> layers, std::optional<double> hidden, std::optional<double> heads) {
    m.set("model", "custom");
    m.set("name", "");  // a script names no model: nothing of an earlier one stays
    m.setNumber("params", 0);
    if (layers) m.setNumber("layers", *layers);
    if (hidden) m.setNumber("hidden", *hidden);
    if (heads) m.setNumber("heads", *heads);
    const bool swiglu = w.has({"--swiglu"});
    m.setBool("gated_ffn", swiglu);
    if (!setFromFlag(m, w, "ffn", {"--ffn-hidden-size"}) && hidden)
        // arguments.py: ffn_hidden_size defaults to 4h, or with SwiGLU to int(4h · 2/3 / 64) × 64.
        m.setNumber("ffn", swiglu ? std::floor(4 * *hidden * 2 / 3 / 64) * 64 : 4 * *hidden);
    if (w.has({"--group-query-attention"})) {
        if (!setFromFlag(m, w, "kv_heads", {"--num-query-groups"})) m.unmapped("--group-query-attention", "", "without --num-query-groups");
    } else if (heads) {
        m.setNumber("kv_heads", *heads);
    }
    if (!setFromFlag(m, w, "head_dim", {"--kv-channels"})) m.setNumber("head_dim", 0);
    const Flag* normFlag = w.find({"--normalization"});
    m.set("norm", normFlag && lower(normFlag->value) == "rmsnorm" ? "rmsnorm" : "layernorm");
    m.setBool("bias", !w.has({"--disable-bias-linear"}));
    m.setBool("qkv_bias", w.has({"--add-qkv-bias"}));
    // Megatron-LM's --qk-layernorm norms the queries and keys over each head (q_layernorm of
    // hidden_size_per_attention_head in SelfAttention); under --multi-latent-attention it is MLA's own norms of
    // the compressed query and key-value (q_layernorm, kv_layernorm in MLASelfAttention), which MLA has anyway.
    m.set("qk_norm", w.has({"--qk-layernorm"}) && !w.has({"--multi-latent-attention"}) ? "per_head" : "none");
    m.setBool("tied_embeddings", !w.has({"--untie-embeddings-and-output-weights"}));
}

// Positions: learned_absolute (the default) keeps a table of max_position_embeddings rows.
void readPositions(Words& w, Mapping& m) {
    const Flag* posFlag = w.find({"--position-embedding-type"});
    const bool learned =
        (!posFlag || posFlag->value == "learned_absolute") && !w.has({"--use-rotary-position-embeddings", "--no-position-embedding"});
    if (!learned) {
        m.setNumber("pos_emb", 0);
    } else if (!setFromFlag(m, w, "pos_emb", {"--max-position-embeddings"})) {
        if (const auto seq = flagNumber(m, w.find({"--seq-length"}))) m.setNumber("pos_emb", *seq);
    }
    // --max-position-embeddings is also the longest sequence the model takes (its rotary cache, the HF
    // conversions' max_position_embeddings): the context window.
    setFromFlag(m, w, "context_window", {"--max-position-embeddings"});
}

// The vocabulary: --vocab-size, or the GPT-2 or Llama-2 tokenizer's, padded as _vocab_size_with_padding
// pads it, to a multiple of make_vocab_size_divisible_by (128) × TP.
void readVocabulary(Words& w, Mapping& m, double tp) {
    double divisible = 128;
    if (const auto d = flagNumber(m, w.find({"--make-vocab-size-divisible-by"}))) {
        // _vocab_size_with_padding divides by it: anything but a positive integer stops Megatron-LM at start-up.
        if (*d >= 1 && std::floor(*d) == *d)
            divisible = *d;
        else
            m.error("--make-vocab-size-divisible-by " + formatNumber(*d) +
                    ": must be a positive integer (_vocab_size_with_padding pads to a multiple of it)");
    }
    const Flag* tokenizer = w.find({"--tokenizer-type"});
    std::optional<double> vocab;
    if (Flag* size = w.find({"--vocab-size"})) {
        vocab = flagNumber(m, size);
        if (vocab && tokenizer && tokenizer->value == "NullTokenizer") *vocab += 1;  // NullTokenizer adds its EOD token
    } else if ((tokenizer && tokenizer->value == "GPT2BPETokenizer") || (!tokenizer && w.has({"--merge-file", "--vocab-file"}))) {
        vocab = 50257;  // GPT-2's BPE (a --vocab-file and --merge-file with no --tokenizer-type: older Megatron-LM's default)
    } else {
        m.unmapped(tokenizer ? "--tokenizer-type" : "vocab", tokenizer ? tokenizer->value : "",
                   "the vocabulary comes from the tokenizer's files; set vocab");
    }
    if (vocab) m.setNumber("vocab", ceilTo(*vocab, divisible * tp));
}

// Mixture of experts.
void readExperts(Words& w, Mapping& m) {
    if (!setFromFlag(m, w, "experts", {"--num-experts"})) {
        m.setNumber("experts", 0);
        return;
    }
    if (!setFromFlag(m, w, "experts_per_token", {"--moe-router-topk"})) m.setNumber("experts_per_token", 2);
    if (!setFromFlag(m, w, "moe_ffn", {"--moe-ffn-hidden-size"})) m.setNumber("moe_ffn", 0);
    if (!setFromFlag(m, w, "shared_expert_ffn", {"--moe-shared-expert-intermediate-size"})) m.setNumber("shared_expert_ffn", 0);
    m.setBool("shared_expert_gate", w.has({"--moe-shared-expert-gate"}));
    m.setNumber("moe_layer_freq", 1);
    if (Flag* freq = w.find({"--moe-layer-freq"})) {
        if (const auto f = parseNumber(freq->value); f && freq->unresolved.empty())
            m.setNumber("moe_layer_freq", *f);
        else {
            m.erase("moe_layer_freq");
            m.unmapped(freq->name, freq->value, "a layer pattern; membudget takes a frequency N (every N-th layer) and first_dense_layers");
        }
    }
    // Dropless unless a capacity factor is given (arguments.py: --moe-expert-capacity-factor defaults to None); the
    // benchmarks' even routing (router.py apply_random_logits under --moe-router-force-load-balancing).
    if (!setFromFlag(m, w, "capacity_factor", {"--moe-expert-capacity-factor"})) m.setNumber("capacity_factor", 0);
    m.setBool("moe_force_balance", w.has({"--moe-router-force-load-balancing"}));
    // The flex dispatcher with DeepEP (--moe-enable-deepep, or --moe-flex-dispatcher-backend deepep) holds
    // DeepEP's Buffer (fused_a2a.py); alltoall does not. allgather's gathered tokens are not modelled.
    const Flag* dispatcher = w.find({"--moe-token-dispatcher-type"});
    const Flag* backend = w.find({"--moe-flex-dispatcher-backend"});
    const bool flex = dispatcher && dispatcher->value == "flex";
    const bool deepep = flex && (w.has({"--moe-enable-deepep"}) || !backend || backend->value == "deepep");
    m.set("moe_dispatcher", deepep ? "deepep" : "alltoall");
    if (dispatcher && dispatcher->value == "allgather")
        m.unmapped(dispatcher->name, dispatcher->value,
                   "the all-gather dispatcher's gathered tokens are not modelled; computed as alltoall");
    if (flex && backend && backend->value != "deepep")
        m.unmapped(backend->name, backend->value, "only DeepEP's buffer is modelled; computed as alltoall");
}

// Multi-latent attention, and the multi-token prediction layers.
void readLatentAttention(Words& w, Mapping& m) {
    if (w.has({"--multi-latent-attention"})) {
        if (!setFromFlag(m, w, "q_lora_rank", {"--q-lora-rank"})) m.setNumber("q_lora_rank", 0);
        setFromFlag(m, w, "kv_lora_rank", {"--kv-lora-rank"});
        setFromFlag(m, w, "qk_nope_dim", {"--qk-head-dim"});
        setFromFlag(m, w, "qk_rope_dim", {"--qk-pos-emb-head-dim"});
        setFromFlag(m, w, "v_head_dim", {"--v-head-dim"});
    } else {
        m.setNumber("kv_lora_rank", 0);
    }
    if (!setFromFlag(m, w, "mtp_layers", {"--mtp-num-layers"})) m.setNumber("mtp_layers", 0);
}

// Pipeline layout.
void readPipelineLayout(Words& w, Mapping& m, std::optional<double> layers, double pp) {
    if (!setFromFlag(m, w, "first_stage_layers", {"--decoder-first-pipeline-num-layers"})) m.setNumber("first_stage_layers", 0);
    if (!setFromFlag(m, w, "last_stage_layers", {"--decoder-last-pipeline-num-layers"})) m.setNumber("last_stage_layers", 0);
    m.setBool("overlap_grad_reduce", w.has({"--overlap-grad-reduce"}));
    m.setBool("overlap_param_gather", w.has({"--overlap-param-gather"}));
    m.setBool("overlap_moe_comm", w.has({"--overlap-moe-expert-parallel-comm"}));
    // The embedding and the loss counted as layers in the split (transformer_config.py account_for_*_in_pipeline_split).
    const bool accountEmbedding = w.has({"--account-for-embedding-in-pipeline-split"}),
               accountLoss = w.has({"--account-for-loss-in-pipeline-split"});
    m.set("split_accounts", accountEmbedding && accountLoss ? "both" : accountEmbedding ? "embedding" : accountLoss ? "loss" : "none");
    const double accounted = (accountEmbedding ? 1 : 0) + (accountLoss ? 1 : 0);
    // A custom layout places every layer itself and gives VPP: its stages ÷ PP (arguments.py sets
    // virtual_pipeline_model_parallel_size from it); validate() names a layout that does not read.
    Flag* layoutFlag = w.find({"--pipeline-model-parallel-layout"});
    m.set("pipeline_layout", layoutFlag ? layoutFlag->value : "");
    if (layoutFlag) {
        const ParsedLayout& layout = parsePipelineLayout(layoutFlag->value);
        const double stages = static_cast<double>(layout.chunks.size());
        if (layout.error.empty() && pp > 0 && std::fmod(stages, pp) == 0) m.setNumber("vpp", stages / pp);
    } else if (const auto perStage = flagNumber(m, w.find({"--num-layers-per-virtual-pipeline-stage"}))) {
        if (layers && *perStage > 0 && std::fmod((*layers + accounted) / pp, *perStage) == 0)
            m.setNumber("vpp", (*layers + accounted) / pp / *perStage);
        else
            m.unmapped("--num-layers-per-virtual-pipeline-stage", formatNumber(*perStage), "needs --num-layers divisible by pp × this");
    } else if (!setFromFlag(m, w, "vpp", {"--num-virtual-stages-per-pipeline-rank", "--virtual-pipeline-model-parallel-size"})) {
        m.setNumber("vpp", 1);
    }
}

// Batch: the world size gives DP, and the global batch the micro-batches.
void readBatch(Words& w, Mapping& m, double modelParallel) {
    setFromFlag(m, w, "seq", {"--seq-length", "--encoder-seq-length"});
    const auto mb = flagNumber(m, w.find({"--micro-batch-size"}));
    if (mb) m.setNumber("mb", *mb);
    std::optional<double> dp;
    if (const auto world = worldSize(m, w)) {
        if (std::fmod(*world, modelParallel) == 0)
            dp = *world / modelParallel;
        else
            m.unmapped("dp", formatNumber(*world) + " GPUs",
                       "the world size is not a multiple of TP × PP × CP = " + formatNumber(modelParallel) + "; set dp");
    } else {
        m.unmapped("dp", "", "the script does not say how many GPUs it runs on (torchrun --nproc-per-node and --nnodes); set dp");
    }
    if (dp) m.setNumber("dp", *dp);
    if (const auto gbs = flagNumber(m, w.find({"--global-batch-size"}))) {
        if (dp && mb && std::fmod(*gbs, *mb * *dp) == 0)
            m.setNumber("microbatches", *gbs / (*mb * *dp));
        else
            m.unmapped("--global-batch-size", formatNumber(*gbs), "micro-batches = global batch / (mb × dp) needs dp and mb");
    } else if (dp && mb) {
        m.setNumber("microbatches", 1);  // the global batch defaults to mb × dp
    }
}

// A value outside a flag's argparse choices stops Megatron-LM before it starts (arguments.py): an error naming
// the flag and what it takes, never a default in its place.
void refuseOutsideChoices(Words& w, Mapping& m) {
    for (const auto& [name, choices] : std::initializer_list<std::pair<const char*, std::vector<std::string>>>{
             {"--recompute-granularity", {"full", "selective"}},
             {"--recompute-method", {"uniform", "block"}},
             {"--fp8-format", {"e4m3", "hybrid"}},
             {"--attention-backend", {"flash", "fused", "unfused", "local", "auto"}}}) {
        const Flag* flag = w.find({name});
        if (flag && std::find(choices.begin(), choices.end(), flag->value) == choices.end()) {
            std::string allowed;
            for (size_t i = 0; i < choices.size(); ++i) allowed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
            m.error(std::string(name) + " " + detail::quoted(flag->value) + ": Megatron-LM's argparse accepts " + allowed +
                    " (arguments.py); it stops at start-up");
        }
    }
}

// --recompute-modules, a list (nargs "*"; transformer_config.py default ["core_attn"]), read under selective
// granularity only, as Megatron-LM reads it; a module membudget does not know is named, the rest kept.
void readRecomputeModules(Words& w, Mapping& m, bool selective) {
    m.set("recompute_modules", "core_attn");
    Flag* modules = w.find({"--recompute-modules"});
    if (!modules) return;
    std::string listed = modules->value;
    for (const std::string& more : modules->more) listed += "," + more;
    if (!selective) {
        m.unmapped(modules->name, listed, "read only under --recompute-granularity selective");
        return;
    }
    std::string bad;
    const RecomputeModules parsed = parseRecomputeModules(listed, &bad);
    m.set("recompute_modules", canonicalRecomputeModules(parsed));
    if (!bad.empty()) m.unmapped(modules->name, bad, "a module membudget does not model; the others are read");
}

// Memory-saving choices. --recompute-activations is the older spelling of selective recomputation
// (arguments.py validate_args: recompute_granularity = 'selective').
void readRecomputation(Words& w, Mapping& m) {
    const Flag* granularity = w.find({"--recompute-granularity"});
    m.set("ckpt", granularity && (granularity->value == "full" || granularity->value == "selective") ? granularity->value
                  : w.has({"--recompute-activations"})                                               ? "selective"
                                                                                                     : "none");
    m.setNumber("recompute_layers", 0);
    if (granularity && granularity->value == "full") {
        const Flag* method = w.find({"--recompute-method"});
        if (method && method->value == "block")
            setFromFlag(m, w, "recompute_layers", {"--recompute-num-layers"});
        else {
            m.setNumber("recompute_layers", 0);
            if (Flag* n = w.find({"--recompute-num-layers"}); n && n->value != "1")
                m.unmapped(n->name, n->value, "uniform recomputation of groups of layers: membudget keeps every layer's input");
        }
    }
    readRecomputeModules(w, m, granularity && granularity->value == "selective");
}

// Precision, the gradients' dtype, attention's kernel, dropout and the optimizer.
void readPrecisionAndOptimizer(Words& w, Mapping& m) {
    const bool bf16 = w.has({"--bf16"}), fp16 = w.has({"--fp16"});
    const Flag* fp8 = w.find({"--fp8-format", "--fp8"});
    m.set("precision", fp8 ? "fp8" : bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
    if (fp8) m.set("fp8_recipe", "te");
    // arguments.py: with --bf16 the gradients accumulate and reduce in FP32 unless --grad-reduce-in-bf16.
    const bool fp32Grads = (bf16 && !w.has({"--grad-reduce-in-bf16"})) || (fp16 && w.has({"--accumulate-allreduce-grads-in-fp32"}));
    m.setNumber("static_bytes", fp32Grads ? 18 : 16);
    const Flag* backend = w.find({"--attention-backend"});
    m.set("attention", backend && backend->value == "unfused" ? "eager" : "flash");
    const auto hiddenDropout = flagNumber(m, w.find({"--hidden-dropout"}));
    const auto attentionDropout = flagNumber(m, w.find({"--attention-dropout"}));
    m.setBool("dropout", !(hiddenDropout == 0.0 && attentionDropout == 0.0));
    if (Flag* optimizer = w.find({"--optimizer"})) {
        const std::map<std::string, std::string> known{{"adam", "adamw"}, {"sgd", "sgd"}, {"muon", "muon"}};
        if (const auto it = known.find(optimizer->value); it != known.end())
            m.set("optimizer", it->second);
        else
            m.unmapped(optimizer->name, optimizer->value, "not adam, sgd or muon");
    } else {
        m.set("optimizer", "adamw");
    }
}

}  // namespace

void importMegatron(Words& w, Mapping& m) {
    m.training(Framework::megatron);
    readParallelism(w, m);

    // The architecture, where the script gives it.
    Flag* layersFlag = w.find({"--num-layers"});
    Flag* hiddenFlag = w.find({"--hidden-size"});
    Flag* headsFlag = w.find({"--num-attention-heads"});
    const auto layers = flagNumber(m, layersFlag);
    const auto hidden = flagNumber(m, hiddenFlag);
    const auto heads = flagNumber(m, headsFlag);
    const auto tp = m.number("tp").value_or(1);
    const auto pp = m.number("pp").value_or(1);
    const auto cp = m.number("cp").value_or(1);
    if (layersFlag || hiddenFlag || headsFlag) {
        readLayerShape(w, m, layers, hidden, heads);
        readPositions(w, m);
        readVocabulary(w, m, tp);
        readExperts(w, m);
        readLatentAttention(w, m);
    }

    readPipelineLayout(w, m, layers, pp);
    readBatch(w, m, tp * pp * cp);
    refuseOutsideChoices(w, m);
    readRecomputation(w, m);
    readPrecisionAndOptimizer(w, m);
    const bool megatron = std::any_of(w.flags().begin(), w.flags().end(), [](const Flag& f) {
        return kMegatronSwitches.count(f.name) > 0 || f.name == "--num-layers" || f.name == "--hidden-size" ||
               f.name == "--micro-batch-size" || f.name == "--tensor-model-parallel-size" || f.name == "--pipeline-model-parallel-size" ||
               f.name == "--seq-length" || f.name == "--global-batch-size" || f.name == "--num-attention-heads" ||
               f.name == "--recompute-granularity";
    });
    if (!megatron) m.error("no Megatron-LM flags (--tensor-model-parallel-size, --num-layers, --micro-batch-size, …) in the text");
    for (const auto& d : w.defaults())
        m.warn("${" + d.substr(0, d.find(' ')) + "} is set nowhere in the script: its default " + d.substr(d.find(' ') + 1) + " was used");
    readAllocatorConf(m, w);
    w.listUnread(m, kMegatronIgnored, "not modelled by membudget");
}

}  // namespace membudget::detail
