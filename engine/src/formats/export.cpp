// A configuration written in a framework's own form (docs/import.md), the inverse of import.cpp's mapping:
// import(export(config)) gives the configuration back for every key the format can say.
#include "membudget/formats/export.hpp"

#include <cmath>
#include <string>

#include "formats/framework_names.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/config.hpp"
#include "model/lora.hpp"

namespace membudget {

namespace {

using detail::formatNumber;

std::string n(double value) { return formatNumber(value); }

// Text built with <<, without <sstream> (whose locale machinery would add tens of KB to the wasm).
struct Text {
    std::string s;
    Text& operator<<(std::string_view part) {
        s += part;
        return *this;
    }
    std::string str() const { return s; }
};

class Exporter {
public:
    explicit Exporter(const Config& c) : c_(c) {}
    void skip(std::string key, std::string value, std::string reason) {
        out_.notExported.push_back({std::move(key), std::move(value), std::move(reason)});
    }
    // Framework behaviours the format has no setting for, when they are not the default.
    void skipTrainingExtras(ImportFormat format) {
        const Config defaults;
        if (c_.ckptEvery != 1 && format != ImportFormat::torchtitan && format != ImportFormat::torchtune)
            skip("ckpt_every", n(c_.ckptEvery), "no such setting in this format");
        if (c_.lossChunks != 0 && format != ImportFormat::torchtune)
            skip("loss_chunks", n(c_.lossChunks), "no such setting in this format");
        if (c_.compile && format != ImportFormat::torchtitan && format != ImportFormat::torchtune)
            skip("compile", "true", "no such setting in this format");
        if (c_.activationOffload && format != ImportFormat::torchtune) skip("activation_offload", "true", "no such setting in this format");
        // Triton's flash-style kernel (MPT's attn_impl triton) is no framework's setting here; each runs its own flash.
        if (c_.attention == Attention::triton) skip("attention", "triton", "no such setting in this format");
        if (c_.optimizerInBackward && format != ImportFormat::torchtune)
            skip("optimizer_in_backward", "true", "no such setting in this format");
        if (c_.offload != Offload::none && format != ImportFormat::deepspeed && format != ImportFormat::torchtitan)
            skip("offload", std::string(toString(c_.offload)), "no such setting in this format");
        if (c_.optimizerDtype != defaults.optimizerDtype)
            skip("optimizer_dtype", std::string(toString(c_.optimizerDtype)), "no such setting in this format");
    }
    ExportResult& result() { return out_; }
    const Config& config() const { return c_; }

private:
    const Config& c_;
    ExportResult out_;
};

// A model's Hub id, for vLLM: the first framework_names.hpp lists for the preset.
std::string_view hubId(std::string_view preset) {
    for (const auto& h : detail::kHubModels)
        if (h.preset == preset) return h.id;
    return {};
}

// torchtune's spelling of the adapted matrices: lora_attn_modules as a list, the MLP and the output as flags.
struct LoraTargetsText {
    std::string attention;
    bool mlp = false, partialMlp = false, output = false;
};
LoraTargetsText loraTargetsText(std::string_view text) {
    const detail::LoraTargets t = detail::parseLoraTargets(text);
    LoraTargetsText out;
    std::string list;
    const auto adapted = [&t](std::string_view target) { return target == "q" ? t.q : target == "k" ? t.k : target == "v" ? t.v : t.o; };
    for (const auto& m : detail::kTorchtuneLoraModules)
        if (adapted(m.target)) list += std::string(list.empty() ? "" : ",") + std::string(m.module);

    out.attention = "[" + list + "]";
    out.mlp = t.gate || t.up || t.down;
    out.partialMlp = out.mlp && !(t.gate && t.up && t.down);
    out.output = t.output;
    return out;
}

// Lines of a shell command, each continued with a backslash.
std::string command(const std::vector<std::string>& lines) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? "" : "    ") + lines[i] + (i + 1 < lines.size() ? " \\\n" : "\n");
    return out;
}

std::string notes(const ExportResult& r, std::string_view comment) {
    std::string out;
    for (const auto& s : r.notExported)
        out += std::string(comment) + " not exported: " + s.key + (s.value.empty() ? "" : " = " + s.value) + " (" + s.reason + ")\n";
    return out;
}

ExportResult exportMegatron(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::megatron);
    const double world = c.tp * c.pp * c.cp * c.dp;
    const double perNode = std::fmod(world, c.gpusPerNode) == 0 ? c.gpusPerNode : world;
    std::vector<std::string> l{"torchrun --nproc-per-node " + n(perNode) + " --nnodes " + n(world / perNode) + " pretrain_gpt.py"};
    auto flag = [&l](std::string text) { l.push_back(std::move(text)); };
    flag("--tensor-model-parallel-size " + n(c.tp));
    flag("--pipeline-model-parallel-size " + n(c.pp));
    if (c.cp > 1) flag("--context-parallel-size " + n(c.cp));
    if (c.ep > 1) flag("--expert-model-parallel-size " + n(c.ep));
    if (c.etp > 0) flag("--expert-tensor-parallel-size " + n(c.etp));
    if (c.sp) flag("--sequence-parallel");
    if (c.zero == 1) flag("--use-distributed-optimizer");
    if (c.zero >= 2)
        flag("--use-megatron-fsdp --data-parallel-sharding-strategy " + std::string(c.zero == 2 ? "optim_grads" : "optim_grads_params"));
    if (c.vpp > 1) flag("--num-virtual-stages-per-pipeline-rank " + n(c.vpp));
    if (c.firstStageLayers > 0) flag("--decoder-first-pipeline-num-layers " + n(c.firstStageLayers));
    if (c.lastStageLayers > 0) flag("--decoder-last-pipeline-num-layers " + n(c.lastStageLayers));
    flag("--num-layers " + n(c.layers));
    flag("--hidden-size " + n(c.hidden));
    flag("--ffn-hidden-size " + n(c.ffn));
    flag("--num-attention-heads " + n(c.heads));
    if (c.kvHeads != c.heads) flag("--group-query-attention --num-query-groups " + n(c.kvHeads));
    if (c.headDim > 0) flag("--kv-channels " + n(c.headDim));
    if (c.gatedFfn) flag("--swiglu");
    if (c.norm == Norm::rmsnorm) flag("--normalization RMSNorm");
    if (!c.bias) flag("--disable-bias-linear");
    if (c.qkvBias) flag("--add-qkv-bias");
    if (!c.tiedEmbeddings) flag("--untie-embeddings-and-output-weights");
    flag(c.posEmb > 0 ? "--position-embedding-type learned_absolute --max-position-embeddings " + n(c.posEmb)
                      : "--position-embedding-type rope");
    // NullTokenizer adds its EOD token to --vocab-size; divisible-by 1 keeps the padding to a multiple of TP.
    flag("--tokenizer-type NullTokenizer --vocab-size " + n(c.vocab - 1) + " --make-vocab-size-divisible-by 1");
    if (std::fmod(c.vocab, c.tp) != 0) e.skip("vocab", n(c.vocab), "Megatron-LM pads the vocabulary to a multiple of TP");
    if (c.experts > 0) {
        flag("--num-experts " + n(c.experts) + " --moe-router-topk " + n(c.expertsPerToken));
        if (c.moeFfn > 0) flag("--moe-ffn-hidden-size " + n(c.moeFfn));
        if (c.sharedExpertFfn > 0) flag("--moe-shared-expert-intermediate-size " + n(c.sharedExpertFfn));
        if (c.sharedExpertGate) flag("--moe-shared-expert-gate");
        if (c.moeLayerFreq != 1) flag("--moe-layer-freq " + n(c.moeLayerFreq));
        if (c.capacityFactor != 1) flag("--moe-expert-capacity-factor " + n(c.capacityFactor));
        if (c.firstDenseLayers > 0) e.skip("first_dense_layers", n(c.firstDenseLayers), "write it in --moe-layer-freq's pattern form");
        if (c.routerBias) e.skip("router_bias", "true", "--moe-router-enable-expert-bias has no memory model here");
    }
    if (c.kvLoraRank > 0) {
        flag("--multi-latent-attention --q-lora-rank " + n(c.qLoraRank) + " --kv-lora-rank " + n(c.kvLoraRank));
        flag("--qk-head-dim " + n(c.qkNopeDim) + " --qk-pos-emb-head-dim " + n(c.qkRopeDim) + " --v-head-dim " + n(c.vHeadDim));
    }
    if (c.mtpLayers > 0) flag("--mtp-num-layers " + n(c.mtpLayers));
    flag("--seq-length " + n(c.seq));
    flag("--micro-batch-size " + n(c.mb) + " --global-batch-size " + n(c.mb * c.microbatches * c.dp));
    if (c.ckpt == Checkpointing::full)
        flag(c.recomputeLayers > 0 ? "--recompute-granularity full --recompute-method block --recompute-num-layers " + n(c.recomputeLayers)
                                   : "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
    else if (c.ckpt == Checkpointing::selective)
        flag("--recompute-granularity selective");
    else if (c.ckpt == Checkpointing::op)
        e.skip("ckpt", "op", "torchtitan's op-level checkpointing; Megatron-LM has selective or full");
    if (c.ckptEvery != 1) e.skip("ckpt_every", n(c.ckptEvery), "Megatron-LM checkpoints consecutive layers (--recompute-num-layers)");
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
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: Megatron-LM (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + command(l);
    return r;
}

ExportResult exportTorchtitan(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::torchtitan);
    Text t;
    t << "[model]\n";
    bool named = false;
    for (const auto& f : detail::kTorchtitanFlavors)
        if (!named && c.model == f.preset) {
            t << "name = \"" << f.name << "\"\nflavor = \"" << f.flavor << "\"\n";
            named = true;
        }
    if (!named)
        e.skip("model", c.name.empty() ? c.model : c.name, "torchtitan names its models by flavor: llama3 8B/70B/405B, deepseek_v3 671B");
    if (c.precision == Precision::fp8) t << "converters = [\"float8\"]\n";
    if (c.precision == Precision::fp8 && c.fp8Recipe != Fp8Recipe::torchao) e.skip("fp8_recipe", "te", "torchtitan's Float8 is torchao's");
    const bool pipelined = c.pp > 1;
    const double local = pipelined ? c.mb * c.microbatches : c.mb;
    t << "\n[training]\nlocal_batch_size = " << n(local)
      << "\nglobal_batch_size = " << n(pipelined ? local * c.dp : local * c.dp * c.microbatches) << "\nseq_len = " << n(c.seq) << "\n";
    if (c.precision == Precision::fp32) t << "mixed_precision_param = \"float32\"\n";
    if (c.precision == Precision::fp16) e.skip("precision", "fp16", "torchtitan trains in bfloat16 or float32");
    if (c.offload == Offload::all) t << "enable_cpu_offload = true\n";
    if (c.offload == Offload::optimizer) e.skip("offload", "optimizer", "torchtitan offloads everything (enable_cpu_offload) or nothing");
    if (c.zero == 1 || c.zero == 2)
        e.skip("zero", n(c.zero), "torchtitan shards everything (FSDP2, zero 3) or nothing (DDP, zero 0); written as FSDP2");
    t << "\n[parallelism]\ndata_parallel_replicate_degree = " << n(c.zero == 0 ? c.dp : 1)
      << "\ndata_parallel_shard_degree = " << n(c.zero == 0 ? 1 : c.dp) << "\ntensor_parallel_degree = " << n(c.tp)
      << "\npipeline_parallel_degree = " << n(c.pp) << "\ncontext_parallel_degree = " << n(c.cp) << "\nexpert_parallel_degree = " << n(c.ep)
      << "\n";
    if (pipelined) {
        t << "pipeline_parallel_microbatch_size = " << n(c.mb) << "\npipeline_parallel_schedule = \""
          << (c.vpp > 1 ? "Interleaved1F1B" : "1F1B") << "\"\n";
        if (c.vpp > 2) e.skip("vpp", n(c.vpp), "torchtitan makes two stages per rank unless pipeline_parallel_layers_per_stage is set");
    }
    if (!c.sp && c.tp > 1) e.skip("sp", "false", "torchtitan's tensor parallelism always shards the norms' regions (sequence parallel)");
    t << "\n[activation_checkpoint]\n";
    switch (c.ckpt) {
        case Checkpointing::none:
            t << "mode = \"none\"\n";
            break;
        case Checkpointing::op:
            t << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
            break;
        case Checkpointing::full:
            t << (c.ckptEvery > 1 ? "mode = \"selective\"\nselective_ac_option = \"" + n(c.ckptEvery) + "\"\n"
                                  : std::string("mode = \"full\"\n"));
            if (c.recomputeLayers > 0)
                e.skip("recompute_layers", n(c.recomputeLayers), "torchtitan checkpoints every N-th layer, not the first N");
            break;
        case Checkpointing::selective:
            t << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
            e.skip("ckpt", "selective", "Megatron-LM's core-attention recomputation; written as torchtitan's op-level selective");
            break;
    }
    if (c.compile) t << "\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n";
    if (c.optimizer != Optimizer::adamw) e.skip("optimizer", std::string(toString(c.optimizer)), "torchtitan's optimizers here: AdamW");
    t << "\n[optimizer]\nname = \"AdamW\"\n";
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: torchtitan job config (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + t.str();
    return r;
}

ExportResult exportTorchtune(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::torchtune);
    const bool distributed = c.dp * c.tp > 1;
    std::string component, config = "llama3_1/8B_full";
    for (const auto& b : detail::kTorchtuneBuilders)
        if (component.empty() && c.model == b.preset && !b.config.empty()) {
            component = b.component;
            config = b.config;
        }
    if (c.model == "custom")
        for (const auto& a : detail::kTorchtuneArchitectures)
            if (c.name == a.name) {
                component = a.component;
                config = a.config;
            }
    if (!distributed) config += "_single_device";
    if (component.empty()) e.skip("model", c.name.empty() ? c.model : c.name, "no torchtune model builder for it here");
    if (c.zero != (distributed ? 3 : 0)) e.skip("zero", n(c.zero), "torchtune shards with FSDP2 on several GPUs and not on one");
    for (const auto& [key, value] : {std::pair<std::string, double>{"pp", c.pp}, {"cp", c.cp}, {"ep", c.ep}, {"vpp", c.vpp}})
        if (value > 1) e.skip(key, n(value), "torchtune's recipes have no pipeline, context or expert parallelism");
    if (c.sp != (c.tp > 1)) e.skip("sp", c.sp ? "true" : "false", "torchtune's tensor parallelism shards the norms' regions when TP > 1");
    if (c.masterWeights) e.skip("master_weights", "true", "torchtune's recipes train in the parameters' dtype with no FP32 master copy");
    std::vector<std::string> l;
    // LoRA and QLoRA run their own recipes, with the model's _lora / _qlora configs.
    const std::string kind = c.finetune == Finetune::full ? "full" : c.finetune == Finetune::lora ? "lora" : "qlora";
    if (c.finetune != Finetune::full)
        if (const size_t at = config.find("_full"); at != std::string::npos) config.replace(at, 5, "_" + kind);
    l.push_back("tune run" + (distributed ? " --nproc_per_node " + n(c.dp * c.tp) : std::string()) +
                (c.finetune == Finetune::full ? " full_finetune_" : " lora_finetune_") + (distributed ? "distributed" : "single_device") +
                " --config " + config);
    if (!component.empty() && c.finetune != Finetune::full) {
        // The LoRA/QLoRA builder of the same model, and its adapters (torchtune lora_attn_modules and flags).
        const size_t dot = component.rfind('.');
        component = component.substr(0, dot + 1) + (c.finetune == Finetune::qlora ? "qlora_" : "lora_") + component.substr(dot + 1);
        const LoraTargetsText targets = loraTargetsText(c.loraTargets);
        l.push_back("model._component_=" + component + " model.lora_rank=" + n(c.loraRank) + " \"model.lora_attn_modules=" +
                    targets.attention + "\"" + " model.apply_lora_to_mlp=" + (targets.mlp ? "True" : "False") +
                    " model.apply_lora_to_output=" + (targets.output ? "True" : "False") +
                    " model.lora_dropout=" + (c.loraDropout ? "0.05" : "0.0"));
        if (targets.partialMlp) e.skip("lora_targets", c.loraTargets, "torchtune adapts the whole MLP (apply_lora_to_mlp) or none of it");
        if (c.loraDtype == LoraDtype::fp32) e.skip("lora_dtype", "fp32", "torchtune's adapters take the model's dtype");
    } else if (!component.empty()) {
        l.push_back("model._component_=" + component);
    }
    if (c.tp > 1) l.push_back("tensor_parallel_dim=" + n(c.tp));
    l.push_back("batch_size=" + n(c.mb) + " gradient_accumulation_steps=" + n(c.microbatches) + " tokenizer.max_seq_len=" + n(c.seq));
    // full_finetune_distributed.py: ac_mode applies only with enable_activation_checkpointing False.
    std::string ac;
    if (c.ckpt == Checkpointing::full && c.ckptEvery > 1)
        ac = "enable_activation_checkpointing=False ac_mode=selective ac_option=" + n(c.ckptEvery);
    else if (c.ckpt == Checkpointing::op)
        ac = "enable_activation_checkpointing=False ac_mode=selective ac_option=op";
    else
        ac = "enable_activation_checkpointing=" + std::string(c.ckpt == Checkpointing::none ? "False" : "True");
    if (c.ckpt == Checkpointing::selective) e.skip("ckpt", "selective", "torchtune checkpoints whole layers; written as full");
    l.push_back(ac + " enable_activation_offloading=" + (c.activationOffload ? "True" : "False"));
    l.push_back(std::string("optimizer_in_bwd=") + (c.optimizerInBackward ? "True" : "False") +
                " compile=" + (c.compile ? "True" : "False") + " dtype=" + (c.precision == Precision::fp32 ? "fp32" : "bf16"));
    if (c.precision == Precision::fp16 || c.precision == Precision::fp8)
        e.skip("precision", std::string(toString(c.precision)), "torchtune's recipes train in bf16 or fp32");
    switch (c.optimizer) {
        case Optimizer::adamw:
            l.push_back("optimizer._component_=torch.optim.AdamW");
            break;
        case Optimizer::adamw8bit:
            l.push_back("optimizer._component_=bitsandbytes.optim.PagedAdamW8bit");
            break;
        case Optimizer::sgd:
            l.push_back("optimizer._component_=torch.optim.SGD");
            break;
        default:
            e.skip("optimizer", std::string(toString(c.optimizer)), "no torchtune optimizer component for it here");
    }
    if (c.lossChunks == 1)
        l.push_back("loss._component_=torch.nn.CrossEntropyLoss");
    else if (c.lossChunks > 1)
        l.push_back("loss._component_=torchtune.modules.loss.CEWithChunkedOutputLoss loss.num_output_chunks=" + n(c.lossChunks));
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: torchtune overrides (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + command(l);
    return r;
}

ExportResult exportDeepspeed(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::deepspeed);
    for (const auto& [key, value] : {std::pair<std::string, double>{"pp", c.pp}, {"cp", c.cp}, {"ep", c.ep}, {"vpp", c.vpp}})
        if (value > 1) e.skip(key, n(value), "a DeepSpeed ZeRO config has no pipeline, context or expert parallelism");
    if (c.sp) e.skip("sp", "true", "a DeepSpeed ZeRO config has no sequence parallelism");
    Text j;
    j << "{\n  \"train_batch_size\": " << n(c.mb * c.microbatches * c.dp) << ",\n  \"train_micro_batch_size_per_gpu\": " << n(c.mb)
      << ",\n  \"gradient_accumulation_steps\": " << n(c.microbatches) << ",\n";
    if (c.precision == Precision::bf16 || c.precision == Precision::fp8) j << "  \"bf16\": {\"enabled\": true},\n";
    if (c.precision == Precision::fp16) j << "  \"fp16\": {\"enabled\": true},\n";
    if (c.precision == Precision::fp8) e.skip("precision", "fp8", "DeepSpeed trains in bf16, fp16 or fp32; written as bf16");
    if (c.tp > 1) j << "  \"tensor_parallel\": {\"autotp_size\": " << n(c.tp) << "},\n";
    j << "  \"zero_optimization\": {\"stage\": " << n(c.zero);
    if (c.offload != Offload::none) j << ", \"offload_optimizer\": {\"device\": \"cpu\"}";
    if (c.offload == Offload::all) j << ", \"offload_param\": {\"device\": \"cpu\"}";
    j << "},\n";
    if (c.ckpt != Checkpointing::none)
        j << "  \"activation_checkpointing\": {\"partition_activations\": false, \"contiguous_memory_optimization\": false},\n";
    if (c.ckpt == Checkpointing::selective || c.ckpt == Checkpointing::op)
        e.skip("ckpt", std::string(toString(c.ckpt)), "DeepSpeed checkpoints what the model code wraps; written as full");
    if (c.optimizer != Optimizer::adamw) e.skip("optimizer", std::string(toString(c.optimizer)), "written for AdamW");
    j << "  \"optimizer\": {\"type\": \"AdamW\"}\n}\n";
    ExportResult r = std::move(e.result());
    r.text = j.str();
    return r;
}

ExportResult exportVllm(const Config& c) {
    Exporter e(c);
    const std::string_view hub = hubId(c.model);
    if (hub.empty()) e.skip("model", c.name.empty() ? c.model : c.name, "no Hugging Face Hub id for it here: put the model's id or path");
    std::vector<std::string> l{"vllm serve " + (hub.empty() ? std::string("MODEL") : std::string(hub))};
    l.push_back("--tensor-parallel-size " + n(c.tp) + " --pipeline-parallel-size " + n(c.pp));
    if (c.dp > 1) l.push_back("--data-parallel-size " + n(c.dp));
    if (c.ep > 1) {
        l.push_back("--enable-expert-parallel");
        if (c.ep != c.tp * c.dp) e.skip("ep", n(c.ep), "vLLM spreads the experts over TP × DP ranks");
    }
    if (c.cp > 1) e.skip("cp", n(c.cp), "vLLM serves without context parallelism");
    l.push_back("--max-model-len " + n(c.seq) + " --max-num-seqs " + n(c.mb) + " --max-num-batched-tokens " + n(c.workspaceTokens));
    // --dtype sets the activations and the KV cache (unless fp8); quantized weights keep it free to follow the cache.
    const bool unquantized = c.weightDtype == WeightDtype::bf16 || c.weightDtype == WeightDtype::fp16;
    const bool halfPrecision = unquantized ? c.weightDtype == WeightDtype::fp16 : c.kvDtype == KvDtype::fp16;
    std::string precision = halfPrecision ? "--dtype float16" : "--dtype bfloat16";
    if (c.weightDtype == WeightDtype::fp8) precision += " --quantization fp8";
    if (c.weightDtype == WeightDtype::int4) precision += " --quantization awq";
    if (c.weightDtype == WeightDtype::int8) e.skip("weight_dtype", "int8", "the quantization method depends on the checkpoint");
    if (c.kvDtype == KvDtype::fp8) precision += " --kv-cache-dtype fp8";
    const KvDtype natural = halfPrecision ? KvDtype::fp16 : KvDtype::bf16;
    if (c.kvDtype != KvDtype::fp8 && c.kvDtype != natural)
        e.skip("kv_dtype", std::string(toString(c.kvDtype)), "vLLM's KV cache takes --dtype unless fp8");
    l.push_back(precision);
    l.push_back("--gpu-memory-utilization " + n(std::round((1 - c.headroom) * 1e6) / 1e6));
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: vLLM (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + command(l);
    return r;
}

}  // namespace

ExportResult exportConfig(ImportFormat format, const Config& config) {
    switch (format) {
        case ImportFormat::megatron:
            return exportMegatron(config);
        case ImportFormat::torchtitan:
            return exportTorchtitan(config);
        case ImportFormat::torchtune:
            return exportTorchtune(config);
        case ImportFormat::deepspeed:
            return exportDeepspeed(config);
        case ImportFormat::vllm:
            return exportVllm(config);
        case ImportFormat::hf:
            break;
    }
    ExportResult r;
    r.notExported.push_back({"format", "hf", "membudget writes no config.json: the Hub's own file is the source"});
    return r;
}

}  // namespace membudget
