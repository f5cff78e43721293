#include "membudget/json.hpp"

#include <cmath>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "membudget/detail/text.hpp"
#include "membudget/presets.hpp"

namespace membudget {

namespace {

using nlohmann::ordered_json;

// Integral byte counts print as integers ("17500000000", not "1.75e10"), the rest as shortest doubles.
ordered_json number(double value) {
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < kExactIntegerLimit)
        return static_cast<std::int64_t>(value);
    return value;
}

ordered_json problems(const std::vector<Problem>& list) {
    ordered_json out = ordered_json::array();
    for (const auto& p : list) out.push_back({{"field", p.field}, {"message", p.message}});
    return out;
}

ordered_json linesArray(const std::vector<Line>& lines) {
    ordered_json out = ordered_json::array();
    for (const auto& line : lines)
        out.push_back({{"id", line.id},
                       {"label", line.label},
                       {"formula", line.formula},
                       {"substituted", line.substituted},
                       {"bytes", number(line.bytes)},
                       {"note", line.note},
                       {"origin", line.origin}});
    return out;
}

ordered_json configObject(const Config& config) {
    ordered_json out = ordered_json::object();
    for (const auto& field : fields()) {
        std::visit(
            [&](auto member) {
                const auto& value = config.*member;
                using T = std::decay_t<decltype(value)>;
                if constexpr (std::is_same_v<T, double>) out[std::string(field.key)] = number(value);
                else out[std::string(field.key)] = value;
            },
            field.member);
    }
    return out;
}

std::string jsonTypeName(const ordered_json& value) {
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_null()) return "null";
    if (value.is_array()) return "an array";
    return "an object";
}

}  // namespace

AssignmentList parseJsonConfig(std::string_view text) {
    AssignmentList out;
    std::set<std::string> seen, duplicated;
    // The callback sees every key of the top-level object, including ones the parser would overwrite.
    auto callback = [&](int depth, ordered_json::parse_event_t event, ordered_json& parsed) {
        if (event == ordered_json::parse_event_t::key && depth == 1) {
            const auto key = parsed.get<std::string>();
            if (!seen.insert(key).second) duplicated.insert(key);
        }
        return true;
    };
    ordered_json root;
    try {
        root = ordered_json::parse(text.begin(), text.end(), callback);
    } catch (const ordered_json::exception& e) {
        out.problems.push_back({"", std::string("invalid JSON: ") + e.what()});
        return out;
    }
    if (!root.is_object()) {
        out.problems.push_back({"", "the configuration must be a JSON object of field keys; got " + jsonTypeName(root)});
        return out;
    }
    for (const auto& key : duplicated)
        out.problems.push_back({key, key + " is given more than once; the last value is used"});
    for (const auto& [key, value] : root.items()) {
        const FieldSpec* field = findField(key);
        if (!field) {
            out.assignments.push_back({key, ""});  // applyAssignments reports it as unknown
            continue;
        }
        const std::string name(field->key);
        switch (field->kind) {
            case FieldKind::integer:
            case FieldKind::number:
                if (!value.is_number() || value.is_boolean()) {
                    out.problems.push_back({name, name + " must be " + describeRange(*field) + "; got " + jsonTypeName(value)});
                    continue;
                }
                out.assignments.push_back({name, detail::formatNumber(value.get<double>())});
                break;
            case FieldKind::boolean:
                if (!value.is_boolean()) {
                    out.problems.push_back({name, name + " must be true or false; got " + jsonTypeName(value)});
                    continue;
                }
                out.assignments.push_back({name, value.get<bool>() ? "true" : "false"});
                break;
            case FieldKind::choice:
                if (!value.is_string()) {
                    out.problems.push_back({name, name + " must be " + describeRange(*field) + "; got " + jsonTypeName(value)});
                    continue;
                }
                out.assignments.push_back({name, value.get<std::string>()});
                break;
        }
    }
    return out;
}

// No exceptions on this path: the wasm build cannot catch them (Emscripten's default), so the parse
// reports failure as a discarded value and every read checks the type first.
HfImport importHfConfig(std::string_view text, const Config& base) {
    HfImport out{base, {}, {}};
    const ordered_json cfg = ordered_json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (cfg.is_discarded()) {
        out.errors.push_back({"hf_config", "invalid JSON: the text is not a config.json"});
        return out;
    }
    if (!cfg.is_object()) {
        out.errors.push_back({"hf_config", "a config.json is a JSON object; got " + jsonTypeName(cfg)});
        return out;
    }
    auto find = [&cfg](const char* name) -> const ordered_json* {
        const auto it = cfg.find(name);
        return it == cfg.end() || it->is_null() ? nullptr : &*it;
    };
    auto text_ = [&find](const char* name, const std::string& fallback) {
        const auto* v = find(name);
        return v && v->is_string() ? v->get<std::string>() : fallback;
    };
    auto boolean = [&find](const char* name, bool fallback) {
        const auto* v = find(name);
        return v && v->is_boolean() ? v->get<bool>() : fallback;
    };
    const std::string type = text_("model_type", "");
    std::vector<Assignment> assignments{{"model", "custom"}, {"params", "0"}, {"method", "membudget"}};
    // One field from the first of its spellings present; a required size that is missing is an error.
    auto number = [&](std::initializer_list<const char*> names, const char* field, bool required) -> std::optional<double> {
        for (const char* name : names) {
            const auto* v = find(name);
            if (!v) continue;
            if (!v->is_number()) {
                out.errors.push_back({field, std::string(name) + " must be a number to set " + field + "; got " + jsonTypeName(*v)});
                return std::nullopt;
            }
            const double value = v->get<double>();
            assignments.push_back({field, detail::formatNumber(value)});
            return value;
        }
        if (required) out.errors.push_back({field, std::string("config.json has no ") + *names.begin() + " for " + field});
        return std::nullopt;
    };
    auto flag = [&](const char* field, bool value) { assignments.push_back({field, value ? "true" : "false"}); };
    const bool gpt2 = type == "gpt2" || (find("n_embd") && find("n_layer"));
    const bool neox = type == "gpt_neox";
    if (gpt2) {
        const auto hidden = number({"n_embd"}, "hidden", true);
        number({"n_layer"}, "layers", true);
        const auto heads = number({"n_head"}, "heads", true);
        if (heads) assignments.push_back({"kv_heads", detail::formatNumber(*heads)});
        if (!number({"n_inner"}, "ffn", false) && hidden) assignments.push_back({"ffn", detail::formatNumber(4 * *hidden)});
        number({"vocab_size"}, "vocab", true);
        number({"n_positions", "n_ctx"}, "pos_emb", false);
        flag("gated_ffn", false);
        flag("tied_embeddings", boolean("tie_word_embeddings", true));
        assignments.push_back({"norm", "layernorm"});
        flag("bias", true);
        flag("qkv_bias", false);
    } else {
        number({"hidden_size", "d_model"}, "hidden", true);
        number({"num_hidden_layers", "num_layers", "n_layers"}, "layers", true);
        const auto heads = number({"num_attention_heads", "n_heads"}, "heads", true);
        if (!number({"num_key_value_heads", "num_kv_heads"}, "kv_heads", false) && heads)
            assignments.push_back({"kv_heads", boolean("multi_query", false) ? "1" : detail::formatNumber(*heads)});
        if (!number({"head_dim"}, "head_dim", false)) assignments.push_back({"head_dim", "0"});
        number({"intermediate_size", "ffn_dim"}, "ffn", true);
        number({"vocab_size"}, "vocab", true);
        assignments.push_back({"pos_emb", "0"});  // rotary embeddings: no parameters
        const std::string act = text_("hidden_act", text_("hidden_activation", "silu"));
        flag("gated_ffn", !neox && (act == "silu" || act == "swiglu" || act.rfind("gelu_pytorch_tanh", 0) == 0 || type == "gemma"));
        flag("tied_embeddings", boolean("tie_word_embeddings", !neox));
        assignments.push_back({"norm", neox ? "layernorm" : "rmsnorm"});
        const bool attentionBias = boolean("attention_bias", false), mlpBias = boolean("mlp_bias", false);
        flag("bias", neox || (attentionBias && mlpBias));
        flag("qkv_bias", type == "qwen2" || type == "qwen2_moe" || (attentionBias && !mlpBias));
    }
    // What changes memory but is not modelled yet: say so, by name.
    for (const char* experts : {"num_local_experts", "n_routed_experts", "num_experts"}) {
        const auto* v = find(experts);
        if (v && v->is_number() && v->get<double>() > 1)
            out.notices.push_back({experts, std::string(experts) + " = " + detail::formatNumber(v->get<double>()) +
                                                ": mixture-of-experts layers are not modelled yet; the dense intermediate_size is used for every layer"});
    }
    if (find("kv_lora_rank"))
        out.notices.push_back({"kv_lora_rank", "kv_lora_rank: multi-head latent attention (MLA) is not modelled yet; standard attention is assumed"});
    if (find("q_lora_rank")) out.notices.push_back({"q_lora_rank", "q_lora_rank: MLA's low-rank query is not modelled yet"});
    if (find("parallel_attn") || find("use_parallel_residual"))
        out.notices.push_back({"use_parallel_residual", "a parallel attention/MLP block saves the same tensors here as a sequential one"});
    const ParsedConfig parsed = applyAssignments(assignments, base);
    out.config = parsed.config;
    out.errors.insert(out.errors.end(), parsed.problems.begin(), parsed.problems.end());
    if (out.errors.empty())
        for (const auto& problem : validate(out.config)) out.errors.push_back(problem);
    if (!out.errors.empty()) out.config = base;  // all or nothing: a half-imported model would mislead
    return out;
}

std::string configToJson(const Config& config, int indent) { return configObject(config).dump(indent, ' ', false, ordered_json::error_handler_t::replace); }

std::string resultToJson(const Result& result, const Config& config, int indent) {
    ordered_json out;
    out["method"] = result.method;
    if (!result.ok()) {
        out["errors"] = problems(result.errors);
        out["config"] = configObject(config);
        return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
    }
    out["parameter_count"] = number(result.parameterCount);
    out["lines"] = linesArray(result.lines);
    out["total_bytes"] = number(result.totalBytes);
    out["capacity_bytes"] = number(result.capacityBytes);
    out["usable_bytes"] = number(result.usableBytes);
    out["verdict"] = result.verdict;
    out["peak_stage"] = number(result.peakStage);
    ordered_json stages = ordered_json::array();
    for (const auto& stage : result.stages) {
        ordered_json bytes = ordered_json::object();
        for (size_t i = 0; i < stage.lineBytes.size() && i < result.lines.size(); ++i)
            bytes[result.lines[i].id] = number(stage.lineBytes[i]);
        stages.push_back({{"stage", number(stage.index)},
                          {"layers", number(stage.layers)},
                          {"in_flight_microbatches", number(stage.inFlightMicrobatches)},
                          {"total_bytes", number(stage.totalBytes)},
                          {"lines", std::move(bytes)}});
    }
    out["stages"] = std::move(stages);
    ordered_json phases = ordered_json::array();
    for (const auto& phase : result.phases) phases.push_back({{"name", phase.name}, {"total_bytes", number(phase.totalBytes)}});
    out["phases"] = std::move(phases);
    out["peak_phase"] = result.peakPhase;
    ordered_json tensors = ordered_json::array();
    for (const auto& t : result.tensors)
        tensors.push_back({{"name", t.name},
                           {"shape", t.shape},
                           {"dtype", t.dtype},
                           {"bytes_per_copy", number(t.bytesPerCopy)},
                           {"copies", number(t.copies)},
                           {"bytes", number(t.bytes)},
                           {"sharding", t.sharding}});
    out["tensors"] = std::move(tensors);
    out["cpu_bytes_per_node"] = number(result.cpuBytesPerNode);
    out["warnings"] = problems(result.warnings);
    out["errors"] = problems(result.errors);
    out["query"] = encodeQuery(config);
    out["config"] = configObject(config);
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string compareToJson(const std::vector<MethodColumn>& columns, const Config& config, int indent) {
    ordered_json out;
    out["query"] = encodeQuery(config);
    ordered_json methods = ordered_json::array();
    for (const auto& column : columns) {
        ordered_json m{{"method", column.method}};
        if (!column.result.ok()) {
            m["errors"] = problems(column.result.errors);
        } else {
            m["lines"] = linesArray(column.result.lines);
            m["total_bytes"] = number(column.result.totalBytes);
            m["source_bytes"] = number(column.sourceBytes);
            m["verdict"] = column.result.verdict;
            m["peak_stage"] = number(column.result.peakStage);
            m["warnings"] = problems(column.result.warnings);
        }
        methods.push_back(std::move(m));
    }
    out["methods"] = std::move(methods);
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string fieldsToJson(int indent) {
    const Config defaults;
    ordered_json out = ordered_json::array();
    for (const auto& field : fields()) {
        static constexpr const char* kinds[] = {"integer", "number", "boolean", "choice"};
        ordered_json f{{"key", field.key},     {"label", field.label},
                       {"group", field.group}, {"kind", kinds[static_cast<int>(field.kind)]},
                       {"default", fieldText(defaults, field)}, {"range", describeRange(field)},
                       {"unit", field.unit},   {"help", field.help},
                       {"section", field.section}};
        if (field.kind == FieldKind::integer || field.kind == FieldKind::number) {
            f["min"] = number(field.min);
            f["max"] = number(field.max);
            f["zero_means_auto"] = field.zeroMeansAuto;
        }
        if (!field.allowed.empty()) f["allowed"] = field.allowed;
        if (!field.choices.empty()) f["choices"] = field.choices;
        out.push_back(std::move(f));
    }
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string presetsToJson(int indent) {
    ordered_json models = ordered_json::array();
    for (const auto& preset : modelPresets()) {
        Config config;
        applyModelPreset(config, preset);
        models.push_back({{"id", preset.id},
                          {"label", preset.label},
                          {"parameter_count", number(preset.params != 0 ? preset.params : derivedParameterCount(config))},
                          {"source", preset.source}});
    }
    ordered_json gpus = ordered_json::array();
    for (const auto& preset : gpuPresets())
        gpus.push_back({{"id", preset.id},
                        {"label", preset.label},
                        {"capacity_bytes", number(preset.capacityBytes)},
                        {"source", preset.source}});
    return ordered_json{{"models", models}, {"gpus", gpus}}.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace membudget
