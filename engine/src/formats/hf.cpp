// The Hugging Face config.json mapping (docs/import.md): a config.json's top-level values onto the architecture
// fields (importHfFields, for --hf-config and the page), and the same mapping as one of importConfig's formats
// (importHf, over the shared reader). Each family's layer shape is read in hf_families.cpp.
#include "membudget/formats/hf.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "formats/hf.hpp"
#include "formats/reader.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/validate.hpp"

namespace membudget {

namespace detail {

// A name fit for the `name` field: control characters dropped, cut to kMaxTextLength characters (whole UTF-8
// characters), so that no config.json fails to import for its name.
std::string displayName(std::string_view text) {
    std::string out;
    size_t characters = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
            ++i;  // a C1 control character
            continue;
        }
        if (byte < 0x20 || byte == 0x7F) continue;
        if ((byte & 0xC0) != 0x80 && ++characters > kMaxTextLength) break;
        out += text[i];
    }
    return out;
}

}  // namespace detail

namespace {

using detail::displayName;

std::string article(std::string_view noun) {
    return !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos ? "an " : "a ";
}

using detail::HfFamily;
using detail::HfReader;

// A model type's rules: the family whose keys and layer shape read it.
struct HfModelType {
    std::string_view type;
    HfFamily family;
    std::string_view leftOut;  // what the reading does not count, said in a notice (empty: counted exactly)
};

// The architecture rules a config.json's model_type selects. Each family is read with its own keys and layer
// shape (transformers' modeling_<type>.py); a type not listed has no rules here and is refused by name, never read
// as the nearest shape. One model type a line.
// clang-format off
constexpr HfModelType kHfModelTypes[] = {
    {"llama", HfFamily::llama, ""},
    {"llama4_text", HfFamily::llama, ""},
    {"mistral", HfFamily::llama, ""},
    {"mixtral", HfFamily::llama, ""},
    {"qwen2", HfFamily::llama, ""},
    {"qwen2_moe", HfFamily::llama, ""},
    {"qwen2_vl", HfFamily::llama, ""},  // Qwen2-VL and Qwen2.5-VL: Qwen2's text model, the vision tower from vision_config
    {"qwen2_vl_text", HfFamily::llama, ""},
    {"qwen2_5_vl", HfFamily::llama, ""},
    {"qwen2_5_vl_text", HfFamily::llama, ""},
    {"qwen3", HfFamily::llama, ""},
    {"qwen3_moe", HfFamily::llama, ""},
    {"qwen3_next", HfFamily::llama, ""},  // Qwen3-Next: Gated DeltaNet layers, every 4th full attention (inference only)
    {"gemma", HfFamily::llama, ""},
    {"gemma2", HfFamily::llama, ""},
    {"gemma3_text", HfFamily::llama, ""},
    {"glm4", HfFamily::llama, ""},
    {"glm4_moe", HfFamily::llama, ""},
    {"olmo2", HfFamily::llama, ""},
    {"olmo3", HfFamily::llama, ""},
    {"phi3", HfFamily::llama, ""},
    {"gpt_oss", HfFamily::llama, ""},
    {"deepseek_v2", HfFamily::llama, ""},
    {"deepseek_v3", HfFamily::llama, ""},
    {"deepseek_v32", HfFamily::llama, ""},  // DeepSeek-V3.2: DeepSeek-V3 with a sparse-attention indexer in every layer
    {"kimi_k2", HfFamily::llama, ""},  // Kimi K2: DeepseekV3ForCausalLM under its own model_type
    {"gpt2", HfFamily::gpt2, ""},
    {"gpt_neox", HfFamily::neox, ""},
    {"opt", HfFamily::opt, ""},
    {"falcon", HfFamily::falcon, ""},
    {"gptj", HfFamily::gptj, ""},
    {"phi", HfFamily::phi, ""},  // Phi-1, Phi-1.5, Phi-2 (PhiForCausalLM); Phi-3 and Phi-4 are phi3
    {"bloom", HfFamily::bloom, ""},
    {"chatglm", HfFamily::chatglm, ""},  // ChatGLM2/3 and GLM-4-9B (THUDM's modeling_chatglm.py); GLM-4-0414 is glm4
    {"nemotron_h", HfFamily::llama, ""},  // Nemotron-H: Mamba-2, attention and MLP blocks (layer_pattern; inference only)
};
// clang-format on

std::string knownModelTypes() {
    std::string out;
    for (const auto& t : kHfModelTypes) out += (out.empty() ? "" : ", ") + std::string(t.type);
    return out;
}

// What the mapping reads of a document's values by path: the top level, one level down
// (quantization_config.quant_method, text_config.hidden_size) and the elements of the per-layer lists
// (layer_types; Llama 4's no_rope_layers and moe_layers).
std::vector<HfValue> readValues(std::span<const HfValue> values) {
    std::vector<HfValue> given;
    auto perLayer = [](std::string_view key) {
        if (key.rfind("text_config.", 0) == 0) key.remove_prefix(12);
        return key.rfind("layer_types[", 0) == 0 || key.rfind("layers_block_type[", 0) == 0 || key.rfind("no_rope_layers[", 0) == 0 ||
               key.rfind("moe_layers[", 0) == 0 || key == "mlp_only_layers[0]";
    };
    // compressed-tensors states its weights' scheme three levels down (config_groups.<name>.weights.group_size).
    auto quantScheme = [](std::string_view key) {
        if (key.rfind("quantization_config.config_groups.", 0) != 0 || std::count(key.begin(), key.end(), '.') != 4) return false;
        return key.ends_with(".weights.num_bits") || key.ends_with(".weights.group_size") || key.ends_with(".weights.strategy");
    };
    for (const auto& v : values) {
        const std::string_view key = v.key;
        const bool element = key.find('[') != std::string_view::npos;
        if ((std::count(key.begin(), key.end(), '.') <= 1 && (!element || perLayer(key))) || (!element && quantScheme(key)))
            given.push_back(v);
    }
    return given;
}

// The rules of a model type, or nullptr for a type kHfModelTypes does not list.
const HfModelType* rulesOf(const std::string& type) {
    const auto* rules =
        std::find_if(std::begin(kHfModelTypes), std::end(kHfModelTypes), [&type](const HfModelType& t) { return t.type == type; });
    return rules != std::end(kHfModelTypes) ? rules : nullptr;
}

// The family the file is read as: its model type's, else by its keys when it names none; nothing (an error) for a
// model type with no rules here.
std::optional<HfFamily> familyOf(HfReader& r, const std::string& type) {
    if (const HfModelType* rules = rulesOf(type)) {
        if (!rules->leftOut.empty()) r.out.notices.push_back({"model_type", type + ": " + std::string(rules->leftOut)});
        return rules->family;
    }
    if (!type.empty()) {
        r.out.errors.push_back({"hf_config", "model_type \"" + displayName(type.substr(0, 64)) +
                                                 "\" has no architecture rules in membudget, so its layers cannot be counted; it reads " +
                                                 knownModelTypes() + " (docs/import.md). Set the architecture fields by hand instead"});
        return std::nullopt;
    }
    if (r.find("n_embd") && r.find("n_layer")) {
        r.out.notices.push_back(
            {"model_type", "config.json names no model_type: read as GPT-2 (n_embd, n_layer: LayerNorm, biases, GELU MLP)"});
        return HfFamily::gpt2;
    }
    r.out.notices.push_back(
        {"model_type", "config.json names no model_type: read as a Llama-shaped decoder (RMSNorm, gated MLP, rotary positions)"});
    return HfFamily::llama;
}

// The norms beyond a Llama layer's two (transformers' modeling_<type>.py): RMSNorms of head_dim on the queries
// and keys (Qwen3Attention, Gemma3Attention, Glm4MoeAttention when use_qk_norm), over the whole projection in
// OLMo 2 and 3 (Olmo2Attention: RMSNorm(num_heads * head_dim) and RMSNorm(num_key_value_heads * head_dim)), and
// a norm after attention and after the MLP (Gemma2DecoderLayer, Gemma3DecoderLayer, Glm4DecoderLayer). OLMo 2
// has its two norms after the blocks instead of before, the same weights and saved bytes.
void readExtraNorms(HfReader& r, const std::string& type) {
    const bool perHead = type == "qwen3" || type == "qwen3_moe" || type == "qwen3_next" || type == "gemma3_text" ||
                         (type == "glm4_moe" && r.boolean("use_qk_norm", false));
    r.set("qk_norm", perHead ? "per_head" : type == "olmo2" || type == "olmo3" ? "full_width" : "none");
    r.flag("post_norms", type == "gemma2" || type == "gemma3_text" || type == "glm4");
}

// Which layers hold experts: Llama 4's interleaving, Qwen MoE's decoder_sparse_step, else moe_layer_freq and
// first_k_dense_replace (DeepSeek).
void readMoeLayers(HfReader& r, bool llama4) {
    if (llama4) {
        detail::readLlama4MoeLayers(r.fields, r.out, r.assignments);
    } else if (const auto* step = r.find("decoder_sparse_step"); step && step->type == "number" && !r.find("first_k_dense_replace")) {
        // Qwen2/Qwen3-MoE (Qwen2MoeDecoderLayer): layer i is MoE when (i + 1) % decoder_sparse_step == 0, so
        // layers s − 1, 2s − 1, …: the first s − 1 dense, then every s-th. A step the field refuses is named by it.
        const double s = detail::parseNumber(step->text).value_or(0);
        r.set("moe_layer_freq", step->text);
        r.set("first_dense_layers", s >= 1 && s == std::floor(s) ? detail::formatNumber(s - 1) : "0");
        if (const auto* only = r.find("mlp_only_layers"); only && only->type == "array" && r.find("mlp_only_layers[0]"))
            r.out.notices.push_back({"mlp_only_layers",
                                     "mlp_only_layers: the layers it lists have a dense MLP instead of "
                                     "experts, which membudget does not read: they are counted as MoE layers"});
    } else {
        if (!r.number({"moe_layer_freq"}, "moe_layer_freq", false)) r.set("moe_layer_freq", "1");
        if (!r.number({"first_k_dense_replace"}, "first_dense_layers", false)) r.set("first_dense_layers", "0");
    }
}

// Mixture of experts: Mixtral (num_local_experts), Qwen MoE (num_experts, moe_intermediate_size,
// shared_expert_intermediate_size, decoder_sparse_step), DeepSeek (n_routed_experts, n_shared_experts).
void readExperts(HfReader& r, const std::string& type) {
    const auto experts = r.number({"num_local_experts", "num_experts", "n_routed_experts"}, "experts", false);
    if (!experts || *experts <= 1) {
        r.set("experts", "0");  // dense (a count of 1 is a dense FFN too)
        return;
    }
    r.number({"num_experts_per_tok", "moe_topk", "experts_per_token"}, "experts_per_token", false);
    const bool llama4 = type == "llama4_text";
    if (!r.number(
            llama4 ? std::initializer_list<const char*>{"intermediate_size"} : std::initializer_list<const char*>{"moe_intermediate_size"},
            "moe_ffn", false))
        r.set("moe_ffn", "0");
    // Llama4TextMoe always has one shared expert of intermediate_size.
    if (llama4) {
        r.number({"intermediate_size"}, "shared_expert_ffn", false);
    } else if (!r.number({"shared_expert_intermediate_size"}, "shared_expert_ffn", false)) {
        const auto* shared = r.find("n_shared_experts");
        const auto* width = r.find("moe_intermediate_size");
        r.set("shared_expert_ffn", shared && width && shared->type == "number" && width->type == "number"
                                       ? detail::formatNumber(HfReader::numberOf(*shared) * HfReader::numberOf(*width))
                                       : "0");
    }
    readMoeLayers(r, llama4);
    // DeepSeek-V3's e_score_correction_bias; GLM-4.5's router always has one (Glm4MoeTopkRouter).
    r.flag("router_bias", r.text("topk_method", "") == "noaux_tc" || type == "glm4_moe" || type == "gpt_oss");
    r.flag("shared_expert_gate", type == "qwen2_moe" || type == "qwen3_next");  // Qwen2MoeSparseMoeBlock.shared_expert_gate
}

// Multi-head latent attention (DeepSeek-V2/V3), and the multi-token prediction layers.
void readLatentAttention(HfReader& r) {
    if (r.number({"kv_lora_rank"}, "kv_lora_rank", false)) {
        if (!r.number({"q_lora_rank"}, "q_lora_rank", false)) r.set("q_lora_rank", "0");
        r.number({"qk_rope_head_dim"}, "qk_rope_dim", false);
        r.number({"qk_nope_head_dim"}, "qk_nope_dim", false);
        r.number({"v_head_dim"}, "v_head_dim", false);
        // DeepSeek-V3.2's indexer (vLLM's Indexer, built for every layer of a config with index_topk); without one,
        // index_heads keeps the reset architecture's 0.
        if (r.number({"index_n_heads"}, "index_heads", false)) r.number({"index_head_dim"}, "index_head_dim", false);
    } else {
        r.set("kv_lora_rank", "0");
    }
    if (!r.number({"num_nextn_predict_layers"}, "mtp_layers", false)) r.set("mtp_layers", "0");
}

// What the file says that changes memory and membudget does not read: each named, never silently counted as
// the uniform full-attention, BF16 decoder the fields describe (docs/import.md).
void readBeyondTheFields(HfReader& r, const std::string& type) {
    detail::readAttentionPattern(type, r.fields, r.out, r.assignments);
    detail::readLinearAttention(type, r.fields, r.out, r.assignments);
    detail::readWeightFormat(r.fields, r.out, r.assignments);
    detail::readVisionTower(type, r.fields, r.out, r.assignments);
    detail::readHybridStack(type, r.fields, r.out, r.assignments);
    detail::nameUnreadLayouts(type, r.fields, r.out);
    if (type == "deepseek_v32")
        r.out.notices.push_back({"index_topk",
                                 "index_topk: DeepSeek-V3.2's indexer weights and its key cache are counted; in training, what the "
                                 "indexer saves for backward and its top-k selection are not"});
    if (type == "llama4_text" && r.boolean("use_qk_norm", false))
        r.out.notices.push_back({"use_qk_norm",
                                 "use_qk_norm: Llama 4's L2 norm of the queries and keys has no weights; what it "
                                 "saves for backward in training is not counted"});
    if (r.find("parallel_attn") || r.find("use_parallel_residual"))
        r.out.notices.push_back(
            {"use_parallel_residual", "a parallel attention/MLP block saves the same tensors here as a sequential one"});
}

// The assignments applied over `base`, its architecture reset; kept only where nothing the file set is refused.
void applyArchitecture(HfImport& out, const Config& base, const std::vector<Assignment>& assignments) {
    // Everything the file leaves unset comes from the custom model's defaults, never from the model before it.
    Config start = base;
    resetArchitecture(start);
    const ParsedConfig parsed = applyAssignments(assignments, start);
    out.config = parsed.config;
    out.errors.insert(out.errors.end(), parsed.problems.begin(), parsed.problems.end());
    // Only what the config.json set can make the import fail; a TP the new model's heads do not allow is the
    // user's setting, reported at its field by the evaluation that follows.
    if (out.errors.empty())
        for (const auto& problem : validate(out.config))
            if (std::any_of(assignments.begin(), assignments.end(), [&problem](const Assignment& a) { return a.key == problem.field; }))
                out.errors.push_back(problem);
    if (!out.errors.empty()) out.config = base;  // all or nothing: a half-imported model would mislead
}

}  // namespace

namespace detail {

std::string HfReader::text(const char* name, const std::string& fallback) const {
    const auto* v = find(name);
    return v && v->type == "string" ? v->text : fallback;
}

bool HfReader::boolean(const char* name, bool fallback) const {
    const auto* v = find(name);
    return v && v->type == "boolean" ? v->text == "true" : fallback;
}

double HfReader::numberOf(const HfValue& v) { return parseNumber(v.text).value_or(0); }

std::optional<double> HfReader::number(std::initializer_list<const char*> names, const char* field, bool required) {
    for (const char* name : names) {
        const auto* v = find(name);
        if (!v) continue;
        if (v->type == "string" && (v->text == "Infinity" || v->text == "-Infinity" || v->text == "NaN")) {
            // Python's json writes them bare; the readers turn them into strings (io/json.cpp pythonJsonConstants).
            out.errors.push_back({field, std::string(name) + " must be a finite number to set " + field + "; got " + v->text});
            return std::nullopt;
        }
        if (v->type != "number") {
            out.errors.push_back({field, std::string(name) + " must be a number to set " + field + "; got " + article(v->type) + v->type});
            return std::nullopt;
        }
        // JSON.parse reads 1e400 as Infinity; nothing non-finite may reach a field.
        const auto value = parseNumber(v->text);
        if (!value) {
            out.errors.push_back({field, std::string(name) + " must be a finite number to set " + field + "; got " + v->text});
            return std::nullopt;
        }
        assignments.push_back({field, formatNumber(*value)});
        return *value;
    }
    if (required) out.errors.push_back({field, std::string("config.json has no ") + *names.begin() + " for " + field});
    return std::nullopt;
}

}  // namespace detail

// The mapping works on the config's top-level values as text, so that it needs no JSON parser: the CLI
// parses with nlohmann/json, the page with JSON.parse, and both hand the same values here.
HfImport importHfFields(std::string_view rootType, std::span<const HfValue> values, const Config& base) {
    HfImport out{base, {}, {}};
    const std::vector<HfValue> given = readValues(values);
    std::span<const HfValue> fields = given;
    // A multimodal wrapper's language model (text_config), read in its place.
    std::vector<HfValue> textModel;
    if (detail::textModelOf(given, textModel, out)) fields = textModel;
    if (rootType == "invalid") {
        out.errors.push_back({"hf_config", "invalid JSON: the text is not a config.json"});
        return out;
    }
    if (rootType != "object") {
        out.errors.push_back({"hf_config", "a config.json is a JSON object; got " + article(rootType) + std::string(rootType)});
        return out;
    }
    std::vector<Assignment> assignments{{"model", "custom"}, {"params", "0"}, {"method", "membudget"}};
    HfReader r{fields, out, assignments};
    const std::string type = r.text("model_type", "");
    const std::optional<HfFamily> family = familyOf(r, type);
    if (!family) return out;
    detail::readFamilyShape(r, *family, type, rulesOf(type) != nullptr);
    r.flag("attention_sinks", type == "gpt_oss");
    readExtraNorms(r, type);
    readExperts(r, type);
    readLatentAttention(r);
    readBeyondTheFields(r, type);
    // The model's own name: the id it was published under, else its class.
    const auto* architectures = r.find("architectures");  // an array, its first class name as the text
    r.set("name", displayName(r.text("_name_or_path", architectures && architectures->type == "array" ? architectures->text : "")));
    applyArchitecture(out, base, assignments);
    return out;
}

namespace detail {

// Hugging Face config.json as an import: the mapping above (importHfFields), as assignments of the architecture.
void importHf(const ImportInput& input, Mapping& m) {
    const HfImport imported = importHfFields(input.rootType, input.values, Config{});
    for (const auto& e : imported.errors) m.error(e.message);
    for (const auto& n : imported.notices) m.warn(n.message);
    if (!imported.errors.empty()) return;
    for (const FieldSpec& field : fields())
        if (field.group == "model" || field.key == "method" || field.key == "weight_dtype" || field.key == "expert_weight_dtype" ||
            field.key == "quant_group")
            m.set(field.key, fieldText(imported.config, field));
}

}  // namespace detail

}  // namespace membudget
