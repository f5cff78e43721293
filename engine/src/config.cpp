#include "membudget/config.hpp"

#include "detail/lora.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "membudget/detail/text.hpp"
#include "membudget/ledger.hpp"
#include "membudget/presets.hpp"

namespace membudget {

namespace {

bool isIntegral(double v) { return std::isfinite(v) && std::floor(v) == v; }

bool inRange(const FieldSpec& field, double v) {
    if (!std::isfinite(v)) return false;
    if (field.kind == FieldKind::integer && !isIntegral(v)) return false;
    if (field.zeroMeansAuto && v == 0) return true;
    if (!field.allowed.empty()) return std::find(field.allowed.begin(), field.allowed.end(), v) != field.allowed.end();
    return v >= field.min && v <= field.max;
}

std::string joinChoices(const std::vector<std::string>& choices) {
    std::string out;
    for (size_t i = 0; i < choices.size(); ++i) {
        if (i) out += i + 1 == choices.size() ? " or " : ", ";
        out += choices[i];
    }
    return out;
}

// One set of spellings for links, flags and JSON (a JSON boolean, 0/1 or one of these strings), in any case.
std::optional<bool> parseBool(std::string_view text) {
    std::string lower(text.substr(0, 6));
    if (text.size() > 5) return std::nullopt;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") return true;
    if (lower == "false" || lower == "0" || lower == "no" || lower == "off") return false;
    return std::nullopt;
}

// Characters of UTF-8 text (bytes that do not continue a character), and whether it holds a C0 or C1 control
// character (U+0000–U+001F, U+007F, U+0080–U+009F, which UTF-8 writes as C2 80–C2 9F) or is not UTF-8.
std::optional<std::string> textProblem(const FieldSpec& field, std::string_view text) {
    const std::string key(field.key);
    size_t characters = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if ((byte & 0xC0) != 0x80) ++characters;
        const bool c1 = byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(text[i + 1]) <= 0x9F;
        if (byte < 0x20 || byte == 0x7F || c1)
            return key + " must be " + describeRange(field) + "; got a control character at byte " +
                   detail::formatNumber(static_cast<double>(i));
    }
    if (static_cast<double>(characters) > field.max)
        return key + " must be " + describeRange(field) + "; got " + detail::formatNumber(static_cast<double>(characters)) + " characters";
    return std::nullopt;
}

std::string quoted(std::string_view text) {
    // Quote what the user gave, cut to a readable length; messages are text, never markup.
    size_t cut = std::min<size_t>(text.size(), 40);
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    std::string shown(text.substr(0, cut));
    if (cut < text.size()) shown += "…";
    return "\"" + shown + "\"";
}

}  // namespace

std::string describeRange(const FieldSpec& field) {
    switch (field.kind) {
        case FieldKind::boolean:
            return "true or false";
        case FieldKind::choice:
            return "one of " + joinChoices(field.choices);
        case FieldKind::text:
            return "text of at most " + detail::formatNumber(field.max) + " characters, without control characters";
        case FieldKind::integer:
        case FieldKind::number:
            break;
    }
    std::string range;
    if (!field.allowed.empty()) {
        std::vector<std::string> values;
        for (double v : field.allowed) values.push_back(detail::formatNumber(v));
        range = "one of " + joinChoices(values);
    } else {
        range = std::string(field.kind == FieldKind::integer ? "an integer" : "a number") + " from " + detail::groupedNumber(field.min) +
                " to " + detail::groupedNumber(field.max);
    }
    if (field.zeroMeansAuto) return "0 (" + std::string(field.autoMeaning) + ") or " + range;
    return range;
}

std::string fieldText(const Config& config, const FieldSpec& field) {
    return std::visit(
        [&config](auto member) -> std::string {
            if constexpr (std::is_same_v<decltype(member), ChoiceField>) {
                return std::string(member.get(config));
            } else {
                const auto& value = config.*member;
                using T = std::decay_t<decltype(value)>;
                if constexpr (std::is_same_v<T, double>)
                    return detail::formatNumber(value);
                else if constexpr (std::is_same_v<T, bool>)
                    return value ? "true" : "false";
                else
                    return value;
            }
        },
        field.member);
}

std::string_view choiceText(const Config& config, const FieldSpec& field) {
    if (const auto* choice = std::get_if<ChoiceField>(&field.member)) return choice->get(config);
    if (const auto* member = std::get_if<std::string Config::*>(&field.member)) return config.**member;
    return {};
}

bool setChoiceText(Config& config, const FieldSpec& field, std::string_view id) {
    if (std::find(field.choices.begin(), field.choices.end(), id) == field.choices.end()) return false;
    if (const auto* choice = std::get_if<ChoiceField>(&field.member)) return choice->set(config, id);
    if (const auto* member = std::get_if<std::string Config::*>(&field.member)) config.** member = std::string(id);
    return true;
}

std::vector<Problem> setFieldText(Config& config, const FieldSpec& field, std::string_view text) {
    const std::string key(field.key);
    switch (field.kind) {
        case FieldKind::integer:
        case FieldKind::number: {
            const auto value = detail::parseNumber(text);
            if (!value) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text) + ", not a finite number"}};
            // Beyond 2^53 a double no longer holds the number typed: quote the text, never its rounding (every
            // field's range ends far below).
            if (std::fabs(*value) >= kExactIntegerLimit) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text)}};
            if (field.kind == FieldKind::integer && !isIntegral(*value))
                return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text) + ", not an integer"}};
            config.*std::get<double Config::*>(field.member) = *value;
            return {};
        }
        case FieldKind::boolean: {
            const auto value = parseBool(text);
            if (!value) return {{key, key + " must be true or false; got " + quoted(text)}};
            config.*std::get<bool Config::*>(field.member) = *value;
            return {};
        }
        case FieldKind::choice: {
            if (!setChoiceText(config, field, text)) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text)}};
            return {};
        }
        case FieldKind::text: {
            if (const auto problem = textProblem(field, text)) return {{key, *problem}};
            config.*std::get<std::string Config::*>(field.member) = std::string(text);
            return {};
        }
    }
    return {};
}

std::vector<Problem> validate(const Config& config) {
    std::vector<Problem> errors;
    for (const auto& field : fields()) {
        const std::string key(field.key);
        if (field.kind == FieldKind::integer || field.kind == FieldKind::number) {
            const double v = config.*std::get<double Config::*>(field.member);
            if (!inRange(field, v))
                errors.push_back({key, key + " must be " + describeRange(field) + "; got " +
                                           (std::isfinite(v) ? detail::formatNumber(v) : std::string("a non-finite value"))});
        } else if (field.kind == FieldKind::choice) {
            // An enum holds only its own values, except one set directly from JavaScript with an unknown id.
            const std::string_view v = choiceText(config, field);
            if (std::find(field.choices.begin(), field.choices.end(), v) == field.choices.end())
                errors.push_back(
                    {key, key + " must be " + describeRange(field) + "; got " + (v.empty() ? std::string("an unknown value") : quoted(v))});
        } else if (field.kind == FieldKind::text) {
            if (const auto problem = textProblem(field, config.*std::get<std::string Config::*>(field.member)))
                errors.push_back({key, *problem});
        }
    }
    if (!errors.empty()) return errors;  // the consistency checks below assume every field is in range

    const auto n = detail::groupedNumber;
    if (config.kvHeads > config.heads)
        errors.push_back({"kv_heads", "kv_heads must be at most heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    else if (std::fmod(config.heads, config.kvHeads) != 0)
        errors.push_back({"kv_heads", "kv_heads must divide heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    if (config.headDim == 0 && std::fmod(config.hidden, config.heads) != 0)
        errors.push_back({"head_dim", "head_dim must be set (1 to 65,536) when hidden (" + n(config.hidden) +
                                          ") is not divisible by heads (" + n(config.heads) + ")"});
    // The TP sizes this model allows, named in every TP error so that a user (and the page) can pick one.
    const auto validTp = [&config, &n] {
        std::string list;
        for (double tp : validTensorParallel(config)) list += (list.empty() ? "" : ", ") + n(tp);
        return "; this model allows tp = " + list;
    };
    if (config.tp > config.heads)
        errors.push_back({"tp", "tp must be at most heads (" + n(config.heads) + "); got " + n(config.tp) + validTp()});
    // Megatron-LM and vLLM both refuse a TP group that would split an attention head: every rank holds whole heads.
    else if (std::fmod(config.heads, config.tp) != 0)
        errors.push_back({"tp", "tp must divide heads (" + n(config.heads) + "), so that each TP rank holds whole attention heads; got " +
                                    n(config.tp) + validTp()});
    // KV heads are split over TP ranks, or each replicated on tp / kv_heads ranks (vLLM); anything else cannot be laid out.
    else if (config.kvLoraRank == 0 && std::fmod(config.kvHeads, config.tp) != 0 && std::fmod(config.tp, config.kvHeads) != 0)
        errors.push_back({"tp", "tp must divide kv_heads (" + n(config.kvHeads) +
                                    ") or be a multiple of it, so that KV heads are "
                                    "split or replicated evenly; got " +
                                    n(config.tp) + validTp()});
    if (config.pp > config.layers) errors.push_back({"pp", "pp must be at most layers (" + n(config.layers) + "); got " + n(config.pp)});
    if (config.cp > config.seq) errors.push_back({"cp", "cp must be at most seq (" + n(config.seq) + "); got " + n(config.cp)});
    if (config.pp == 1 && (config.firstStageLayers != 0 || config.lastStageLayers != 0)) {
        const std::string key = config.firstStageLayers != 0 ? "first_stage_layers" : "last_stage_layers";
        errors.push_back({key, key + " needs pp > 1 (it sets an uneven pipeline split); got " + key + " = " +
                                   n(config.firstStageLayers != 0 ? config.firstStageLayers : config.lastStageLayers) + " with pp = 1"});
    } else if (config.firstStageLayers + config.lastStageLayers > config.layers)
        errors.push_back({"first_stage_layers", "first_stage_layers + last_stage_layers must be at most layers (" + n(config.layers) +
                                                    "); got " + n(config.firstStageLayers) + " + " + n(config.lastStageLayers)});
    else if (config.pp == 2 && config.firstStageLayers != 0 && config.lastStageLayers != 0 &&
             config.firstStageLayers + config.lastStageLayers != config.layers)
        errors.push_back(
            {"last_stage_layers", "with pp = 2, first_stage_layers + last_stage_layers must equal layers (" + n(config.layers) + ")"});
    else if (config.pp >= 2 && config.layers - config.firstStageLayers - config.lastStageLayers <
                                   config.pp - 2 + (config.firstStageLayers == 0) + (config.lastStageLayers == 0)) {
        const std::string key = config.firstStageLayers != 0 ? "first_stage_layers" : "last_stage_layers";
        const double otherStages = config.pp - (config.firstStageLayers != 0) - (config.lastStageLayers != 0);
        errors.push_back({key, "first_stage_layers + last_stage_layers must be at most " + n(config.layers - otherStages) + " (layers " +
                                   n(config.layers) + ", and a layer for each other pipeline stage); got " + n(config.firstStageLayers) +
                                   " + " + n(config.lastStageLayers)});
    }
    if (config.experts != 0) {
        const double etp = config.etp != 0 ? config.etp : config.tp;
        if (std::fmod(config.experts, config.ep) != 0)
            errors.push_back({"ep", "ep must divide experts (" + n(config.experts) + "); got " + n(config.ep)});
        else if (std::fmod(config.tp * config.cp * config.dp, etp * config.ep) != 0)
            errors.push_back({"ep", "EP × ETP (" + n(config.ep * etp) + ") must divide TP × CP × DP (" +
                                        n(config.tp * config.cp * config.dp) + "), the ranks that share a pipeline stage"});
        if (config.expertsPerToken > config.experts)
            errors.push_back({"experts_per_token",
                              "experts_per_token must be at most experts (" + n(config.experts) + "); got " + n(config.expertsPerToken)});
        // A MoE model has at least one MoE layer: the first after the leading dense ones.
        if (config.firstDenseLayers >= config.layers)
            errors.push_back({"first_dense_layers", "first_dense_layers must be less than layers (" + n(config.layers) +
                                                        ") when experts > 0, or no layer is a MoE layer; got " +
                                                        n(config.firstDenseLayers)});
        if (config.sharedExpertGate && config.sharedExpertFfn == 0)
            errors.push_back(
                {"shared_expert_gate", "shared_expert_gate needs a shared expert (shared_expert_ffn > 0); got shared_expert_ffn = 0"});
    }
    if (config.vpp > 1 && config.pp == 1)
        errors.push_back({"vpp", "vpp (virtual pipeline stages) needs pp > 1; got vpp = " + n(config.vpp) + " with pp = 1"});
    else if (config.vpp > 1 && std::none_of(errors.begin(), errors.end(), [](const Problem& p) {
                 return p.field == "pp" || p.field == "first_stage_layers" || p.field == "last_stage_layers";
             })) {
        // Megatron-LM splits each stage's layers into vpp equal model chunks (the split above is valid); torchtitan
        // cuts pp × vpp virtual stages of its own and a rank's layers need not divide (architecture.cpp).
        const auto perStage = stageLayers(config);
        const bool ownSplit = config.framework == Framework::torchtitan && config.firstStageLayers == 0 && config.lastStageLayers == 0;
        if (const auto odd =
                ownSplit ? perStage.end()
                         : std::find_if(perStage.begin(), perStage.end(), [&config](double l) { return std::fmod(l, config.vpp) != 0; });
            odd != perStage.end())
            errors.push_back({"vpp", "vpp must divide the layers of every pipeline stage (stage " +
                                         n(static_cast<double>(odd - perStage.begin())) + " has " + n(*odd) + "); got " + n(config.vpp)});
        // Megatron-LM's interleaved schedule runs the micro-batches in groups of pp.
        if (config.mode == Mode::training && std::fmod(config.microbatches, config.pp) != 0)
            errors.push_back({"microbatches", "microbatches must be a multiple of pp (" + n(config.pp) +
                                                  ") with interleaving (vpp > 1); got " + n(config.microbatches)});
    }
    // Framework behaviours, each where the framework has it (docs/frameworks.md).
    const std::string frameworkName(toString(config.framework));
    const bool fsdpFramework = shardsAllOrNothing(config.framework);
    if (fsdpFramework && config.zero != 0 && config.zero != 3)
        errors.push_back(
            {"zero", "zero must be 0 (replicated) or 3 (FSDP2's fully_shard) with framework " + frameworkName + "; got " + n(config.zero)});
    if (config.ckpt == Checkpointing::op) {
        if (config.framework != Framework::torchtitan)
            errors.push_back({"ckpt", "ckpt = op is torchtitan's op-level selective checkpointing: it needs framework torchtitan; got " +
                                          frameworkName});
        else if (config.experts != 0 || config.mtpLayers != 0 || config.bias || config.attention != Attention::flash)
            errors.push_back({"ckpt",
                              "ckpt = op is modelled for dense models without biases or MTP layers, with flash attention "
                              "(torchtitan's Llama); use full or none here"});
    }
    if (config.ckptEvery > 1 && config.ckpt != Checkpointing::full)
        errors.push_back({"ckpt_every",
                          "ckpt_every (every Nth layer checkpointed) needs ckpt = full; got ckpt = " + std::string(toString(config.ckpt))});
    if (config.recomputeLayers > 0 && config.ckpt != Checkpointing::full)
        errors.push_back({"recompute_layers", "recompute_layers (Megatron-LM's block recomputation) needs ckpt = full; got ckpt = " +
                                                  std::string(toString(config.ckpt))});
    if (config.recomputeLayers > 0 && config.ckptEvery > 1)
        errors.push_back({"recompute_layers",
                          "give recompute_layers (the first N layers of each stage) or ckpt_every (every Nth "
                          "layer), not both"});
    if (config.optimizerInBackward && config.mode == Mode::training && (config.microbatches != 1 || config.pp != 1))
        errors.push_back({"optimizer_in_backward",
                          "optimizer_in_backward applies each gradient as soon as it is computed, so it needs one micro-batch per "
                          "step and no pipeline (microbatches = 1, pp = 1); got microbatches = " +
                              n(config.microbatches) + ", pp = " + n(config.pp)});
    if (config.activationOffload && (config.framework != Framework::torchtune || config.ckpt != Checkpointing::full))
        errors.push_back({"activation_offload",
                          "activation_offload is torchtune's offloading of the checkpointed layers' inputs: it "
                          "needs framework torchtune and ckpt = full"});
    if (config.compile && config.framework == Framework::megatron)
        errors.push_back({"compile",
                          "compile (torch.compile of each block) applies to the PyTorch frameworks; Megatron-LM runs "
                          "Transformer Engine's fused modules: choose another framework or compile = false"});
    // LoRA and QLoRA (detail/lora.hpp): what the base can be and which matrices it has.
    if (config.finetune != Finetune::full) {
        const std::string mode(toString(config.finetune));
        if (config.method != Method::membudget || config.mode != Mode::training)
            errors.push_back({"finetune", "finetune = " + mode + " is modelled by method membudget in training; got method " +
                                              std::string(toString(config.method)) + ", mode " + std::string(toString(config.mode))});
        if (config.finetune == Finetune::qlora && config.precision != Precision::bf16 && config.precision != Precision::fp16)
            errors.push_back({"finetune",
                              "finetune = qlora stores the base in NF4 and computes in BF16 or FP16: it needs precision bf16 "
                              "or fp16; got " +
                                  std::string(toString(config.precision))});
        std::string bad;
        const detail::LoraTargets targets = detail::parseLoraTargets(config.loraTargets, &bad);
        const bool any = targets.attention() || targets.mlp() || targets.output;
        if (!bad.empty() || !any)
            errors.push_back({"lora_targets",
                              "lora_targets must list q, k, v, o, gate, up, down, output, attention, mlp or all_linear, "
                              "comma-separated; got " +
                                  quoted(config.loraTargets)});
        else if (targets.gate && !config.gatedFfn && std::string_view(config.loraTargets).find("gate") != std::string_view::npos)
            errors.push_back({"lora_targets", "lora_targets lists gate, but the model's MLP has no gate (gated_ffn = false)"});
        else if (targets.attention() && config.kvLoraRank > 0)
            errors.push_back({"lora_targets", "adapters on MLA's attention (kv_lora_rank > 0) are not modelled; target mlp or output"});
        // The rank cannot exceed the smaller side of a matrix it adapts.
        const double headDim = config.headDim > 0 ? config.headDim : config.hidden / config.heads;
        double smallest = 1e300;
        if (targets.q || targets.o) smallest = std::min({smallest, config.hidden, config.heads * headDim});
        if (targets.k || targets.v) smallest = std::min({smallest, config.hidden, config.kvHeads * headDim});
        if (targets.mlp())
            smallest = std::min({smallest, config.hidden, config.experts > 0 && config.moeFfn > 0 ? config.moeFfn : config.ffn});
        if (targets.output) smallest = std::min({smallest, config.hidden, config.vocab});
        if (any && bad.empty() && config.loraRank > smallest)
            errors.push_back({"lora_rank", "lora_rank must be at most " + n(smallest) +
                                               ", the smaller side of the smallest matrix it adapts; got " + n(config.loraRank)});
    }
    if (config.experts == 0 && config.firstDenseLayers != 0)
        errors.push_back({"first_dense_layers", "first_dense_layers needs a mixture-of-experts model (experts > 0); got " +
                                                    n(config.firstDenseLayers) + " with experts = 0"});
    if (config.mode == Mode::inference && config.method != Method::membudget)
        errors.push_back({"method", "method must be membudget in inference mode (the other sources model training); got " +
                                        quoted(toString(config.method))});
    const double modelParallel = config.tp * config.pp * config.cp;
    if (config.gpus != 0 && std::fmod(config.gpus, modelParallel) != 0)
        errors.push_back({"gpus", "gpus must be a multiple of TP × PP × CP = " + n(modelParallel) + "; got " + n(config.gpus)});
    return errors;
}

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
    // Only membudget's method models inference: choosing inference without naming a method selects it.
    const bool methodGiven = std::any_of(assignments.begin(), assignments.end(), [](const Assignment& a) { return a.key == "method"; });
    if (out.config.mode == Mode::inference && out.config.method != Method::membudget && !methodGiven) {
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

std::vector<double> validTensorParallel(const Config& config) {
    std::vector<double> out;
    const double limit = std::min(config.heads, findField("tp")->max);
    for (double tp = 1; tp <= limit; ++tp)
        if (std::fmod(config.heads, tp) == 0 &&
            (config.kvLoraRank != 0 || std::fmod(config.kvHeads, tp) == 0 || std::fmod(tp, config.kvHeads) == 0))
            out.push_back(tp);
    return out;
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

bool isViewKey(std::string_view key) { return key == "embed" || key == "unit"; }

std::string encodeQuery(const Config& config) {
    // A preset id is compared with the default id; the fields a preset fills, with the preset's values.
    const Config defaults, baseline = presetBaseline(config);
    std::string query;
    for (const auto& field : fields()) {
        const bool presetKey = field.key == "model" || field.key == "gpu";
        const std::string value = fieldText(config, field);
        // mode = inference without a method selects membudget on decoding: any other method is written out, so
        // that the link decodes to this configuration.
        const bool keepMethod = field.key == "method" && config.mode == Mode::inference && config.method != Method::membudget;
        if (value == fieldText(presetKey ? defaults : baseline, field) && !keepMethod) continue;
        if (!query.empty()) query += '&';
        query += detail::percentEncode(field.key);
        query += '=';
        query += detail::percentEncode(value);
    }
    return query;
}

AssignmentList parseQuery(std::string_view query) {
    if (const size_t hash = query.find('#'); hash != std::string_view::npos) query = query.substr(0, hash);
    if (const size_t mark = query.find('?'); mark != std::string_view::npos) query.remove_prefix(mark + 1);
    AssignmentList out;
    size_t start = 0;
    while (start <= query.size()) {
        size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        const std::string_view part = query.substr(start, end - start);
        start = end + 1;
        if (part.empty()) continue;
        const size_t eq = part.find('=');
        const auto key = detail::percentDecode(part.substr(0, eq));
        const auto value = eq == std::string_view::npos ? std::optional<std::string>{} : detail::percentDecode(part.substr(eq + 1));
        if (key && isViewKey(*key)) continue;
        if (!key || !value) {
            out.problems.push_back({key ? *key : std::string(), "malformed parameter " + quoted(part) + " (ignored)"});
            continue;
        }
        out.assignments.push_back({*key, *value});
    }
    auto duplicates = duplicateKeys(out.assignments);
    out.problems.insert(out.problems.end(), duplicates.begin(), duplicates.end());
    return out;
}

ParsedConfig decodeQuery(std::string_view query) {
    AssignmentList list = parseQuery(query);
    ParsedConfig out = applyAssignments(list.assignments);
    out.problems.insert(out.problems.begin(), list.problems.begin(), list.problems.end());
    return out;
}

// Reports every key given more than once and keeps only its last assignment.
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
