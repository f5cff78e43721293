// Assignments applied to a configuration: presets first, then every key in order, with what could not be read.
#include "membudget/model/assignments.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

namespace membudget {

using detail::quoted;

namespace {

// A notice that `key` was chosen as `text`, and why.
void choose(std::vector<Problem>& notices, std::string_view key, const std::string& text, const std::string& why) {
    notices.push_back({std::string(key), std::string(key) + " = " + text + ": " + why});
}

// Decides what adapters (finetune lora or qlora, given) require: membudget's method in training, and QLoRA's framework
// and precision.
void chooseWhatAdaptersRequire(Config& c, const std::function<bool(std::string_view)>& given, std::vector<Problem>& notices) {
    const std::string finetune(toString(c.finetune));
    if (given("finetune") && c.finetune != Finetune::full) {
        // Adapters are membudget's training model (validate: finetune needs method membudget in training).
        if (c.method != Method::membudget && !given("method")) {
            choose(notices, "method", "membudget", "finetune = " + finetune + " is modelled by membudget's method");
            c.method = Method::membudget;
        }
        if (c.mode != Mode::training && !given("mode")) {
            choose(notices, "mode", "training", "finetune = " + finetune + " trains adapters");
            c.mode = Mode::training;
        }
        // QLoRA is bitsandbytes' NF4 under torchtune or PEFT; Megatron-LM has no QLoRA path.
        if (c.finetune == Finetune::qlora && c.framework == Framework::megatron && !given("framework")) {
            choose(notices, "framework", "torchtune", "Megatron-LM has no QLoRA path; torchtune's qlora recipes are the reference");
            c.framework = Framework::torchtune;
        }
        if (c.finetune == Finetune::qlora && c.precision != Precision::bf16 && c.precision != Precision::fp16 && !given("precision")) {
            choose(notices, "precision", "bf16", "QLoRA computes in BF16 over its NF4 base");
            c.precision = Precision::bf16;
        }
    }
}

// Decides what a mode or a framework given alone brings: the serving engine and the training framework share the
// framework key, and serving sizes one replica of its own concurrency.
void chooseWhatModeRequires(Config& c, const std::function<bool(std::string_view)>& given, std::vector<Problem>& notices) {
    // The serving engine and the training framework share the framework key: a mode change brings one the mode has,
    // and a serving engine named alone brings inference.
    if (given("framework") && servesInference(c.framework) && c.mode == Mode::training && !given("mode")) {
        choose(notices, "mode", "inference", "framework " + std::string(toString(c.framework)) + " serves the model");
        c.mode = Mode::inference;
    }
    if (given("framework") && !servesInference(c.framework) && c.mode == Mode::inference && !given("mode")) {
        choose(notices, "mode", "training", "framework " + std::string(toString(c.framework)) + " trains the model");
        c.mode = Mode::training;
    }
    if (given("mode") && c.mode == Mode::inference && !servesInference(c.framework) && !given("framework")) {
        choose(notices, "framework", "vllm", "inference is served by vllm, sglang or trtllm; vLLM's defaults assumed");
        c.framework = Framework::vllm;
    }
    if (given("mode") && c.mode == Mode::training && servesInference(c.framework) && !given("framework")) {
        choose(notices, "framework", "megatron", "training needs a training framework; Megatron-LM, the default, assumed");
        c.framework = Framework::megatron;
    }
    if (given("mode") && c.mode == Mode::inference && c.finetune != Finetune::full && !given("finetune")) {
        choose(notices, "finetune", "full", "inference serves the model (adapters are a training setting)");
        c.finetune = Finetune::full;
    }
    // Serving: memory per GPU does not depend on how many replicas run, and a training layout's DP 32 is no
    // serving fleet; one replica unless the user says (dp or a GPU count).
    if (given("mode") && c.mode == Mode::inference && c.dp != 1 && c.gpus == 0 && !given("dp")) {
        choose(notices, "dp", "1", "inference sizes one replica (TP × PP GPUs); set dp or the GPU count for more replicas");
        c.dp = 1;
    }
    // Back to training: a serving concurrency (vLLM's max_num_seqs, 256 by default) is no micro-batch.
    if (given("mode") && c.mode == Mode::training && c.mb != Config{}.mb && !given("mb")) {
        choose(notices, "mb", detail::formatNumber(Config{}.mb),
               "training takes a micro-batch, not the " + detail::formatNumber(c.mb) + " concurrent sequences served; set mb");
        c.mb = Config{}.mb;
    }
}

// Decides which of Megatron-LM's, DeepSpeed's and torchtune's own settings leave when another framework is chosen.
void chooseWhatFrameworkAllows(Config& c, const std::function<bool(std::string_view)>& given, std::vector<Problem>& notices) {
    const std::string framework(toString(c.framework));
    if (shardsAllOrNothing(c.framework) && c.zero != 0 && c.zero != 3 && !given("zero")) {
        const bool sharded = c.dp * c.cp > 1;
        choose(notices, "zero", sharded ? "3" : "0",
               "framework " + framework + (sharded ? " shards with FSDP2's fully_shard" : " replicates on one data-parallel rank") +
                   " (ZeRO 1 and 2 have no equivalent there)");
        c.zero = sharded ? 3 : 0;
    }
    if (c.ckpt == Checkpointing::op && c.framework != Framework::torchtitan && !given("ckpt")) {
        choose(notices, "ckpt", "selective", "op-level checkpointing is torchtitan's; framework " + framework + " recomputes selectively");
        c.ckpt = Checkpointing::selective;
    }
    if (c.compile && c.framework == Framework::megatron && !given("compile")) {
        choose(notices, "compile", "false", "Megatron-LM runs Transformer Engine's fused modules, not torch.compile");
        c.compile = false;
    }
    // Megatron-LM's own switches leave with Megatron-LM (validate() refuses them under another framework).
    if (c.framework != Framework::megatron) {
        for (const auto& [member, key] :
             {std::pair{&Config::overlapGradReduce, "overlap_grad_reduce"}, std::pair{&Config::overlapParamGather, "overlap_param_gather"},
              std::pair{&Config::overlapMoeComm, "overlap_moe_comm"}})
            if (c.*member && !given(key)) {
                choose(notices, key, "false", "Megatron-LM's switch");
                c.*member = false;
            }
        if (!c.pipelineLayout.empty() && !given("pipeline_layout")) {
            choose(notices, "pipeline_layout", "", "Megatron-LM's layout");
            c.pipelineLayout.clear();
        }
        if (c.splitAccounts != SplitAccounts::none && !given("split_accounts")) {
            choose(notices, "split_accounts", "none", "Megatron-LM's split");
            c.splitAccounts = SplitAccounts::none;
        }
    }
    // TensorRT-LLM's own switches leave with it; its KV block (tokens_per_block) comes with it.
    if (c.framework != Framework::trtllm) {
        for (const auto& [member, key] :
             {std::pair{&Config::cudaGraphPadding, "cuda_graph_padding"}, std::pair{&Config::chunkedPrefill, "chunked_prefill"}})
            if (c.*member && !given(key)) {
                choose(notices, key, "false", "TensorRT-LLM's switch");
                c.*member = false;
            }
    }
    if (c.framework == Framework::trtllm && given("framework") && !given("kv_block") && c.kvBlock == Config{}.kvBlock) {
        choose(notices, "kv_block", "32", "TensorRT-LLM's KV cache blocks hold 32 tokens (KvCacheConfig.tokens_per_block)");
        c.kvBlock = 32;
    }
    if (c.autocast && c.framework != Framework::deepspeed && !given("autocast")) {
        choose(notices, "autocast", "false", "DeepSpeed's torch_autocast");
        c.autocast = false;
    }
    if (c.activationOffload && c.framework != Framework::torchtune && !given("activation_offload")) {
        choose(notices, "activation_offload", "false", "activation offloading is torchtune's");
        c.activationOffload = false;
    }
}

// What a choice requires, chosen for the user where the same input does not set it, with a notice: one rule for the
// page's form, links, the CLI and the importers (validate() refuses the same combinations when they are given).
void chooseWhatChoicesRequire(Config& c, const std::function<bool(std::string_view)>& given, std::vector<Problem>& notices) {
    chooseWhatAdaptersRequire(c, given, notices);
    chooseWhatModeRequires(c, given, notices);
    const bool frameworkChosen = given("framework") || given("method") || given("finetune");
    if (!frameworkChosen || c.method != Method::membudget) return;
    chooseWhatFrameworkAllows(c, given, notices);
}

}  // namespace

ParsedConfig applyAssignments(std::span<const Assignment> assignments, Config base) {
    ParsedConfig out{std::move(base), {}};
    auto apply = [&out](const Assignment& a) {
        const FieldSpec* field = findField(a.key);
        if (!field) {
            out.problems.push_back({a.key, "unknown key " + quoted(a.key) + " (ignored)"});
            return;
        }
        for (auto& problem : setFieldText(out.config, *field, a.text)) out.problems.push_back(std::move(problem));
    };
    // Presets first, so that explicit architecture and capacity keys override them whatever their order.
    for (const auto& a : assignments) {
        if (a.key != "model") continue;
        apply(a);
        if (const auto* preset = findModelPreset(a.text); preset && out.config.model == a.text) applyModelPreset(out.config, *preset);
    }
    for (const auto& a : assignments) {
        if (a.key != "gpu") continue;
        apply(a);
        if (const auto* preset = findGpuPreset(a.text); preset && out.config.gpu == a.text) applyGpuPreset(out.config, *preset);
    }
    for (const auto& a : assignments)
        if (a.key != "model" && a.key != "gpu") apply(a);
    // The GPU count is a constraint, not a remark: with gpus given, DP follows gpus / (TP × PP × CP) where it divides,
    // unless these assignments set dp themselves (validate() then names a mismatch at dp).
    auto given = [&assignments](std::string_view key) {
        return std::any_of(assignments.begin(), assignments.end(), [key](const Assignment& a) { return a.key == key; });
    };
    Config& c = out.config;
    const double modelParallel = c.tp * c.pp * c.cp;
    if (c.gpus != 0 && !given("dp") && modelParallel > 0 && std::fmod(c.gpus, modelParallel) == 0 && c.dp * modelParallel != c.gpus) {
        out.notices.push_back({"dp", "dp = " + detail::formatNumber(c.gpus / modelParallel) + ": gpus / (TP × PP × CP) = " +
                                         detail::formatNumber(c.gpus) + " / " + detail::formatNumber(modelParallel)});
        c.dp = c.gpus / modelParallel;
    }
    chooseWhatChoicesRequire(c, given, out.notices);
    // Only membudget's method models inference: choosing inference without naming a method selects it.
    if (out.config.mode == Mode::inference && out.config.method != Method::membudget && !given("method")) {
        out.notices.push_back({"method", "mode = inference selects method membudget (the " + std::string(toString(out.config.method)) +
                                             " method models training only)"});
        out.config.method = Method::membudget;
    }
    return out;
}

std::string jsonTypeWords(std::string_view type) {
    if (type == "null") return "null";
    if (type == "array" || type == "object") return "an " + std::string(type);
    return "a " + std::string(type);
}

void assignJsonValue(const JsonValue& value, AssignmentList& out) {
    const FieldSpec* field = findField(value.key);
    if (!field) {
        out.assignments.push_back({value.key, ""});  // applyAssignments reports it as unknown
        return;
    }
    const std::string name(field->key);
    const std::string_view want = field->kind == FieldKind::integer || field->kind == FieldKind::number ? "number"
                                  : field->kind == FieldKind::boolean                                   ? "boolean"
                                                                                                        : "string";
    // A boolean also takes 0/1 and the spelled forms as a string, as links and flags do (setFieldText checks them).
    const bool spelledBoolean = field->kind == FieldKind::boolean && (value.type == "number" || value.type == "string");
    if (value.type != want && !spelledBoolean) {
        out.problems.push_back({name, name + " must be " + describeRange(*field) + "; got " + jsonTypeWords(value.type)});
        return;
    }
    out.assignments.push_back({name, value.text});
}

void resetArchitecture(Config& config) {
    const Config defaults;
    for (const auto& field : fields()) {
        if (field.group != "model" || field.key == "model") continue;
        std::visit(
            [&config, &defaults](auto member) {
                if constexpr (std::is_same_v<decltype(member), ChoiceField>)
                    member.set(config, member.get(defaults));
                else
                    config.*member = defaults.*member;
            },
            field.member);
    }
}

Config presetBaseline(const Config& config) {
    Config baseline;
    if (const auto* preset = findModelPreset(config.model)) applyModelPreset(baseline, *preset);
    if (const auto* preset = findGpuPreset(config.gpu)) applyGpuPreset(baseline, *preset);
    return baseline;
}

// The page's own keys: how it shows a configuration (embed, unit) and the Hub file its model fields came from
// (hf, hf_revision, hf_file: web/src/url-state.ts). The configuration is in the other keys, so a link read here
// gives the same numbers as the page, without fetching anything.
bool isViewKey(std::string_view key) { return key == "embed" || key == "unit" || key == "hf" || key == "hf_revision" || key == "hf_file"; }

std::vector<Problem> duplicateKeys(std::vector<Assignment>& assignments) {
    // Sets rather than scans of what is kept: a hostile link can carry hundreds of thousands of parameters,
    // which made this quadratic (seconds to minutes of a frozen page; found with tests/fuzz/fuzz_query).
    std::vector<Problem> problems;
    std::vector<Assignment> kept;
    std::set<std::string_view> keptKeys, reportedKeys;  // views into `assignments`, unchanged until the end
    for (auto it = assignments.rbegin(); it != assignments.rend(); ++it) {
        if (keptKeys.insert(it->key).second)
            kept.push_back(*it);
        else if (reportedKeys.insert(it->key).second)
            problems.push_back({it->key, it->key + " is given more than once; the last value is used"});
    }
    assignments.assign(kept.rbegin(), kept.rend());
    return problems;
}

}  // namespace membudget
