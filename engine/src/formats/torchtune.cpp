// torchtune (recipes/configs/*.yaml; recipes/full_finetune_*.py): a recipe config or a `tune run` command read into
// membudget's keys over the shared reader, and a configuration written back as a `tune run` command over the
// shared writer.
#include "formats/torchtune.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/framework_names.hpp"
#include "formats/reader.hpp"
#include "formats/writer.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "model/lora.hpp"

namespace membudget::detail {

namespace {

// torchtune's spelling of the adapted matrices: lora_attn_modules as a list, the MLP and the output as flags.
struct LoraTargetsText {
    std::string attention;
    bool mlp = false, partialMlp = false, output = false;
};
LoraTargetsText loraTargetsText(std::string_view text) {
    const LoraTargets t = parseLoraTargets(text);
    LoraTargetsText out;
    std::string list;
    const auto adapted = [&t](std::string_view target) { return target == "q" ? t.q : target == "k" ? t.k : target == "v" ? t.v : t.o; };
    for (const auto& m : kTorchtuneLoraModules)
        if (adapted(m.target)) list += std::string(list.empty() ? "" : ",") + std::string(m.module);

    out.attention = "[" + list + "]";
    out.mlp = t.gate || t.up || t.down;
    out.partialMlp = out.mlp && !(t.gate && t.up && t.down);
    out.output = t.output;
    return out;
}

}  // namespace

constexpr std::string_view kTorchtuneIgnored[] = {"output_dir",
                                                  "checkpointer",
                                                  "tokenizer._component_",
                                                  "tokenizer.path",
                                                  "tokenizer.max_seq_len",
                                                  "dataset",
                                                  "seed",
                                                  "shuffle",
                                                  "lr_scheduler",
                                                  "epochs",
                                                  "max_steps_per_epoch",
                                                  "log_every_n_steps",
                                                  "log_peak_memory_stats",
                                                  "metric_logger",
                                                  "profiler",
                                                  "device",
                                                  "resume_from_checkpoint",
                                                  "clip_grad_norm",
                                                  "optimizer.lr",
                                                  "optimizer.weight_decay",
                                                  "optimizer.betas",
                                                  "optimizer.eps",
                                                  "optimizer.fused",
                                                  "optimizer.foreach",
                                                  "save_adapter_weights_only",
                                                  "custom_sharded_layers",
                                                  "log_level",
                                                  "run_val_every_n_steps",
                                                  "dataset_val",
                                                  "batch_size_val",
                                                  "tokenizer.prompt_template",
                                                  "tokenizer.merges_file",
                                                  "tokenizer.special_tokens_path",
                                                  "fsdp_reshard_after_forward",
                                                  "model._component_",
                                                  "loss._component_",
                                                  "loss.num_output_chunks",
                                                  "optimizer._component_",
                                                  "cudnn_deterministic_mode",
                                                  "val_every_n_steps",
                                                  "model",
                                                  "gradient_accumulation_steps",
                                                  "batch_size",
                                                  "recipe",
                                                  "config",
                                                  "nproc_per_node",
                                                  "nnodes",
                                                  "ac_mode",
                                                  "ac_option",
                                                  "tensor_parallel_dim",
                                                  "tensor_parallel_plan",
                                                  "data_parallel_shard_dim",
                                                  "data_parallel_replicate_dim",
                                                  "parallelize_plan"};

namespace {

// LoRA and QLoRA builders (lora_llama3_1_8b, qlora_llama3_1_8b) wrap the base builder of the same name: the
// fine-tuning they say, and `component` made the base builder's.
void readFinetune(Document& d, Mapping& m, std::string& component) {
    const size_t dot = component.rfind('.');
    const std::string builder = dot == std::string::npos ? component : component.substr(dot + 1);
    if (!builder.starts_with("lora_") && !builder.starts_with("qlora_")) {
        m.set("finetune", "full");
        return;
    }
    const bool quantized = builder.starts_with("qlora_");
    m.set("finetune", quantized ? "qlora" : "lora");
    component = component.substr(0, dot + 1) + builder.substr(quantized ? 6 : 5);
    if (const auto rank = d.number("model.lora_rank")) m.setNumber("lora_rank", *rank);
    std::string targets;
    for (const auto& module : d.strings("model.lora_attn_modules")) {
        const auto* known = std::find_if(std::begin(kTorchtuneLoraModules), std::end(kTorchtuneLoraModules),
                                         [&module](const TorchtuneLoraModule& t) { return t.module == module; });
        if (known != std::end(kTorchtuneLoraModules))
            targets += (targets.empty() ? "" : ",") + std::string(known->target);
        else
            m.unmapped("model.lora_attn_modules", module, "not q_proj, k_proj, v_proj or output_proj");
    }
    if (d.boolean("model.apply_lora_to_mlp").value_or(false)) targets += (targets.empty() ? "" : ",") + std::string("mlp");
    if (d.boolean("model.apply_lora_to_output").value_or(false)) targets += (targets.empty() ? "" : ",") + std::string("output");
    if (!targets.empty()) m.set("lora_targets", canonicalLoraTargets(parseLoraTargets(targets)));
    const auto dropout = d.number("model.lora_dropout");
    m.setBool("lora_dropout", dropout.value_or(0) > 0);
    m.set("lora_dtype", "auto");
}

// The model a base builder builds: a preset, or an architecture of torchtune's own.
void readBuilder(Mapping& m, const std::string& component) {
    const auto* preset = std::find_if(std::begin(kTorchtuneBuilders), std::end(kTorchtuneBuilders),
                                      [&](const TorchtuneBuilder& b) { return b.component == component; });
    const auto* architecture = std::find_if(std::begin(kTorchtuneArchitectures), std::end(kTorchtuneArchitectures),
                                            [&](const TorchtuneArchitecture& a) { return a.component == component; });
    if (preset != std::end(kTorchtuneBuilders) && !preset->preset.empty()) {
        m.set("model", std::string(preset->preset));
        if (contains(component, "llama3.llama3_") || contains(component, "llama3_3"))
            m.warn(component + " has the architecture of the " + std::string(preset->preset) + " preset (only RoPE scaling differs)");
    } else if (architecture != std::end(kTorchtuneArchitectures)) {
        const TorchtuneArchitecture& a = *architecture;
        m.set("model", "custom");
        m.set("name", std::string(a.name));
        m.setNumber("params", 0);
        m.setNumber("layers", a.layers);
        m.setNumber("hidden", a.hidden);
        m.setNumber("heads", a.heads);
        m.setNumber("kv_heads", a.kvHeads);
        m.setNumber("head_dim", 0);
        m.setNumber("ffn", a.ffn);
        m.setNumber("vocab", a.vocab);
        m.setBool("gated_ffn", true);
        m.setBool("tied_embeddings", true);
        m.set("norm", "rmsnorm");
        m.setBool("bias", false);
        m.setBool("qkv_bias", false);
        m.setNumber("pos_emb", 0);
        m.setNumber("experts", 0);
        m.setNumber("kv_lora_rank", 0);
        m.setNumber("mtp_layers", 0);
    } else {
        m.unmapped("model._component_", component, "no preset for this model builder; import its config.json");
    }
}

// The layout: TP from the config, DP from the GPUs the launch gives, FSDP2 by the recipe.
void readLayout(Document& d, Mapping& m, const TorchtuneLaunch& launch) {
    const std::optional<double>& world = launch.world;
    m.setNumber("tp", d.number("tensor_parallel_dim").value_or(1));
    m.setNumber("pp", 1);
    m.setNumber("cp", 1);
    m.setNumber("ep", 1);
    m.setNumber("vpp", 1);
    const double tp = m.number("tp").value_or(1);
    double dp = 1;
    if (world && std::fmod(*world, tp) == 0) {
        dp = *world / tp;
        m.setNumber("dp", dp);
    } else {
        m.assume("dp", "1", "the recipe does not say how many GPUs it runs on (tune run --nproc_per_node)");
    }
    // The *_distributed recipes wrap the model in FSDP2 (training.shard_model, fully_shard) whatever the rank count;
    // the *_single_device ones never shard. A YAML file alone does not name its recipe: several GPUs mean FSDP2.
    const bool distributed = launch.recipe.ends_with("_distributed");
    const bool singleDevice = launch.recipe.ends_with("_single_device");
    if (singleDevice && dp * tp > 1)
        m.warn(launch.recipe + " runs on one GPU; --nproc_per_node " + formatNumber(dp * tp) + " starts copies of it, not a sharded job");
    m.setNumber("zero", distributed || (!singleDevice && dp > 1) ? 3 : 0);
    m.setBool("sp", tp > 1);
}

// Activation checkpointing.
void readCheckpointing(Document& d, Mapping& m) {
    // full_finetune_distributed.py _setup_model: enable_activation_checkpointing wraps every layer only when
    // ac_mode is unset; ac_mode (selective: every ac_option-th layer) applies only when it is False.
    const bool enabled = d.boolean("enable_activation_checkpointing").value_or(false);
    const auto acMode = d.string("ac_mode");
    const auto acOption = d.string("ac_option");
    m.setNumber("ckpt_every", 1);
    if (enabled && !acMode) {
        m.set("ckpt", "full");
    } else if (!enabled && acMode) {
        if (*acMode == "full") {
            m.set("ckpt", "full");
        } else if (*acMode == "selective" && acOption && *acOption == "op") {
            m.set("ckpt", "op");
        } else if (*acMode == "selective" && acOption && parseNumber(*acOption)) {
            m.set("ckpt", "full");
            m.setNumber("ckpt_every", *parseNumber(*acOption));
        } else {
            m.set("ckpt", "none");
            m.unmapped("ac_mode", *acMode, "not full, or selective with op or a layer interval");
        }
    } else {
        m.set("ckpt", "none");
        if (enabled && acMode)
            m.warn("enable_activation_checkpointing with ac_mode set: the recipe applies neither, so nothing is checkpointed");
    }
}

// Precision and the optimizer, its state's dtype and where it steps.
void readPrecisionAndOptimizer(Document& d, Mapping& m) {
    const auto dtype = d.string("dtype").value_or("bf16");
    if (dtype == "bf16" || dtype == "fp32")
        m.set("precision", dtype);
    else
        m.unmapped("dtype", dtype, "not bf16 or fp32");
    m.setBool("master_weights", false);
    m.set("optimizer_dtype", "auto");  // torch.optim.AdamW: m and v in the parameters' dtype (BF16 here)
    if (const auto optimizer = d.string("optimizer._component_")) {
        if (contains(*optimizer, "8bit")) {
            m.set("optimizer", "adamw_8bit");
        } else if (contains(*optimizer, "AdamW") || contains(*optimizer, "Adam")) {
            m.set("optimizer", "adamw");
            // bitsandbytes' 32-bit optimizers (AdamW, PagedAdamW, AdamW32bit: optim_bits 32) allocate their state
            // in FP32 whatever the parameter's dtype (bitsandbytes/optim/optimizer.py, Optimizer2State.init_state).
            if (contains(*optimizer, "bitsandbytes")) m.set("optimizer_dtype", "fp32");
        } else if (contains(*optimizer, "SGD"))
            m.set("optimizer", "sgd");
        else
            m.unmapped("optimizer._component_", *optimizer, "not AdamW, 8-bit AdamW or SGD");
    }
}

// The loss: chunked over the output, or one cross-entropy.
void readLoss(Document& d, Mapping& m) {
    if (const auto loss = d.string("loss._component_")) {
        if (contains(*loss, "CEWithChunkedOutputLoss"))
            m.setNumber("loss_chunks", d.number("loss.num_output_chunks").value_or(8));
        else if (contains(*loss, "CrossEntropyLoss") && !contains(*loss, "Linear"))
            m.setNumber("loss_chunks", 1);
        else
            m.unmapped("loss._component_", *loss, "a fused linear cross-entropy is not modelled");
    }
}

}  // namespace

void importTorchtune(Document& d, Mapping& m, const TorchtuneLaunch& launch) {
    m.training(Framework::torchtune);
    if (auto component = d.string("model._component_")) {
        readFinetune(d, m, *component);
        readBuilder(m, *component);
    }
    readLayout(d, m, launch);
    if (const auto b = d.number("batch_size")) m.setNumber("mb", *b);
    m.setNumber("microbatches", d.number("gradient_accumulation_steps").value_or(1));
    if (const auto seq = d.number("tokenizer.max_seq_len"))
        m.setNumber("seq", *seq);
    else
        m.unmapped("tokenizer.max_seq_len", "", "samples are padded to the longest in each batch; set seq");
    readCheckpointing(d, m);
    m.setBool("activation_offload", d.boolean("enable_activation_offloading").value_or(false));
    m.setBool("optimizer_in_backward", d.boolean("optimizer_in_bwd").value_or(false));
    m.setBool("compile", d.boolean("compile").value_or(false));
    readPrecisionAndOptimizer(d, m);
    readLoss(d, m);
    if (d.boolean("fsdp_cpu_offload").value_or(false))
        m.unmapped("fsdp_cpu_offload", "true", "FSDP's CPU offload of parameters and gradients is not modelled for torchtune");
    d.listUnread(m, kTorchtuneIgnored, "not modelled by membudget");
}

std::vector<JsonValue> torchtuneOverrides(Words& w, TorchtuneLaunch& launch) {
    std::vector<JsonValue> values;
    for (const std::string& word : w.all()) {
        const size_t eq = word.find('=');
        // The recipe: the one bare word that names one (tune run's positional argument).
        if (eq == std::string::npos && !word.empty() && word[0] != '-' && launch.recipe.empty() &&
            (word.ends_with("_distributed") || word.ends_with("_single_device")) && word.size() <= 64 &&
            std::all_of(word.begin(), word.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
            launch.recipe = word;
        if (word.empty() || word[0] == '-' || eq == std::string::npos || eq == 0) continue;
        const std::string key = word.substr(0, eq), text = word.substr(eq + 1);
        if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
            // A list override (model.lora_attn_modules=[q_proj,v_proj]): the list and its elements.
            std::vector<std::string> items;
            size_t start = 1;
            while (start < text.size() - 1) {
                size_t end = text.find(',', start);
                if (end == std::string::npos || end > text.size() - 1) end = text.size() - 1;
                std::string item = text.substr(start, end - start);
                std::erase_if(item, [](char ch) { return ch == ' ' || ch == '\'' || ch == '"'; });
                if (!item.empty()) items.push_back(item);
                start = end + 1;
            }
            values.push_back({key, "array", items.empty() ? "" : items.front()});
            for (size_t i = 0; i < items.size(); ++i) values.push_back({key + "[" + std::to_string(i) + "]", "string", items[i]});
            continue;
        }
        // OmegaConf.from_dotlist reads each value with its YAML loader: a plain scalar (formats/omegaconf.hpp).
        values.push_back({key, "plain", text});
    }
    Mapping scratch;
    if (Flag* f = w.find({"--nproc_per_node", "--nproc-per-node"})) {
        if (const auto g = flagNumber(scratch, f)) {
            double nodes = 1;
            if (Flag* n = w.find({"--nnodes"}))
                if (const auto v = parseNumber(n->value)) nodes = *v;
            launch.world = *g * nodes;
        }
    }
    w.find({"--config"});
    return values;
}

ExportResult exportTorchtune(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::torchtune);
    // FSDP2 (ZeRO 3) is the distributed recipe, on any number of GPUs.
    const bool distributed = c.dp * c.tp > 1 || c.zero == 3;
    std::string component, config = "llama3_1/8B_full";
    for (const auto& b : kTorchtuneBuilders)
        if (component.empty() && c.model == b.preset && !b.config.empty()) {
            component = b.component;
            config = b.config;
        }
    if (c.model == "custom")
        for (const auto& a : kTorchtuneArchitectures)
            if (c.name == a.name) {
                component = a.component;
                config = a.config;
            }
    if (!distributed) config += "_single_device";
    if (component.empty()) e.skip("model", c.name.empty() ? c.model : c.name, "no torchtune model builder for it here");
    if (c.zero != (distributed ? 3 : 0))
        e.skip("zero", formatNumber(c.zero), "torchtune's distributed recipes shard with FSDP2 and its single-device ones not at all");
    for (const auto& [key, value] : {std::pair<std::string, double>{"pp", c.pp}, {"cp", c.cp}, {"ep", c.ep}, {"vpp", c.vpp}})
        if (value > 1) e.skip(key, formatNumber(value), "torchtune's recipes have no pipeline, context or expert parallelism");
    if (c.sp != (c.tp > 1)) e.skip("sp", c.sp ? "true" : "false", "torchtune's tensor parallelism shards the norms' regions when TP > 1");
    if (c.masterWeights) e.skip("master_weights", "true", "torchtune's recipes train in the parameters' dtype with no FP32 master copy");
    std::vector<std::string> l;
    // LoRA and QLoRA run their own recipes, with the model's _lora / _qlora configs.
    const std::string kind = c.finetune == Finetune::full ? "full" : c.finetune == Finetune::lora ? "lora" : "qlora";
    if (c.finetune != Finetune::full)
        if (const size_t at = config.find("_full"); at != std::string::npos) config.replace(at, 5, "_" + kind);
    l.push_back("tune run" + (distributed ? " --nproc_per_node " + formatNumber(c.dp * c.tp) : std::string()) +
                (c.finetune == Finetune::full ? " full_finetune_" : " lora_finetune_") + (distributed ? "distributed" : "single_device") +
                " --config " + config);
    if (!component.empty() && c.finetune != Finetune::full) {
        // The LoRA/QLoRA builder of the same model, and its adapters (torchtune lora_attn_modules and flags).
        const size_t dot = component.rfind('.');
        component = component.substr(0, dot + 1) + (c.finetune == Finetune::qlora ? "qlora_" : "lora_") + component.substr(dot + 1);
        const LoraTargetsText targets = loraTargetsText(c.loraTargets);
        l.push_back("model._component_=" + component + " model.lora_rank=" + formatNumber(c.loraRank) + " \"model.lora_attn_modules=" +
                    targets.attention + "\"" + " model.apply_lora_to_mlp=" + (targets.mlp ? "True" : "False") +
                    " model.apply_lora_to_output=" + (targets.output ? "True" : "False") +
                    " model.lora_dropout=" + (c.loraDropout ? "0.05" : "0.0"));
        if (targets.partialMlp) e.skip("lora_targets", c.loraTargets, "torchtune adapts the whole MLP (apply_lora_to_mlp) or none of it");
        if (c.loraDtype == LoraDtype::fp32) e.skip("lora_dtype", "fp32", "torchtune's adapters take the model's dtype");
    } else if (!component.empty()) {
        l.push_back("model._component_=" + component);
    }
    if (c.tp > 1) l.push_back("tensor_parallel_dim=" + formatNumber(c.tp));
    l.push_back("batch_size=" + formatNumber(c.mb) + " gradient_accumulation_steps=" + formatNumber(c.microbatches) +
                " tokenizer.max_seq_len=" + formatNumber(c.seq));
    // full_finetune_distributed.py: ac_mode applies only with enable_activation_checkpointing False.
    std::string ac;
    if (c.ckpt == Checkpointing::full && c.ckptEvery > 1)
        ac = "enable_activation_checkpointing=False ac_mode=selective ac_option=" + formatNumber(c.ckptEvery);
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
            // FP32 states under BF16 parameters: bitsandbytes' 32-bit AdamW keeps them (torch's would be BF16).
            l.push_back(c.optimizerDtype == OptimizerDtype::fp32 && c.precision != Precision::fp32
                            ? "optimizer._component_=bitsandbytes.optim.AdamW"
                            : "optimizer._component_=torch.optim.AdamW");
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
        l.push_back("loss._component_=torchtune.modules.loss.CEWithChunkedOutputLoss loss.num_output_chunks=" + formatNumber(c.lossChunks));
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: torchtune overrides (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + command(l);
    return r;
}

}  // namespace membudget::detail
