// The Hugging Face config.json mapping (docs/import.md): a config.json's top-level values onto the architecture
// fields (importHfFields, for --hf-config and the page), and the same mapping as one of importConfig's formats
// (importHf, over the shared reader).
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
#include "membudget/formats/import.hpp"
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

// The architecture rules a config.json's model_type selects. Each family is read with its own keys and layer
// shape (transformers' modeling_<type>.py); a type not listed has no rules here and is refused by name, never read
// as the nearest shape.
enum class HfFamily : std::uint8_t { llama, gpt2, neox, opt, falcon, gptj, phi, bloom, chatglm };

struct HfModelType {
    std::string_view type;
    HfFamily family;
    std::string_view leftOut;  // what the reading does not count, said in a notice (empty: counted exactly)
};

// One model type a line.
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

}  // namespace

// The mapping works on the config's top-level values as text, so that it needs no JSON parser: the CLI
// parses with nlohmann/json, the page with JSON.parse, and both hand the same values here.
HfImport importHfFields(std::string_view rootType, std::span<const HfValue> values, const Config& base) {
    HfImport out{base, {}, {}};
    // What the mapping reads of a document's values by path: the top level, one level down
    // (quantization_config.quant_method, text_config.hidden_size) and the elements of the per-layer lists
    // (layer_types; Llama 4's no_rope_layers and moe_layers).
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
    auto find = [&fields](const char* name) { return detail::findHfValue(fields, name); };
    auto text_ = [&find](const char* name, const std::string& fallback) {
        const auto* v = find(name);
        return v && v->type == "string" ? v->text : fallback;
    };
    auto boolean = [&find](const char* name, bool fallback) {
        const auto* v = find(name);
        return v && v->type == "boolean" ? v->text == "true" : fallback;
    };
    auto numberOf = [](const HfValue& v) { return detail::parseNumber(v.text).value_or(0); };
    const std::string type = text_("model_type", "");
    const auto* rules =
        std::find_if(std::begin(kHfModelTypes), std::end(kHfModelTypes), [&type](const HfModelType& t) { return t.type == type; });
    HfFamily family = HfFamily::llama;
    if (rules != std::end(kHfModelTypes)) {
        family = rules->family;
        if (!rules->leftOut.empty()) out.notices.push_back({"model_type", type + ": " + std::string(rules->leftOut)});
    } else if (!type.empty()) {
        out.errors.push_back({"hf_config", "model_type \"" + displayName(type.substr(0, 64)) +
                                               "\" has no architecture rules in membudget, so its layers cannot be counted; it reads " +
                                               knownModelTypes() + " (docs/import.md). Set the architecture fields by hand instead"});
        return out;
    } else if (find("n_embd") && find("n_layer")) {
        family = HfFamily::gpt2;
        out.notices.push_back(
            {"model_type", "config.json names no model_type: read as GPT-2 (n_embd, n_layer: LayerNorm, biases, GELU MLP)"});
    } else {
        out.notices.push_back(
            {"model_type", "config.json names no model_type: read as a Llama-shaped decoder (RMSNorm, gated MLP, rotary positions)"});
    }
    std::vector<Assignment> assignments{{"model", "custom"}, {"params", "0"}, {"method", "membudget"}};
    // One field from the first of its spellings present; a required size that is missing is an error.
    auto number = [&](std::initializer_list<const char*> names, const char* field, bool required) -> std::optional<double> {
        for (const char* name : names) {
            const auto* v = find(name);
            if (!v) continue;
            if (v->type == "string" && (v->text == "Infinity" || v->text == "-Infinity" || v->text == "NaN")) {
                // Python's json writes them bare; the readers turn them into strings (io/json.cpp pythonJsonConstants).
                out.errors.push_back({field, std::string(name) + " must be a finite number to set " + field + "; got " + v->text});
                return std::nullopt;
            }
            if (v->type != "number") {
                out.errors.push_back(
                    {field, std::string(name) + " must be a number to set " + field + "; got " + article(v->type) + v->type});
                return std::nullopt;
            }
            // JSON.parse reads 1e400 as Infinity; nothing non-finite may reach a field.
            const auto value = detail::parseNumber(v->text);
            if (!value) {
                out.errors.push_back({field, std::string(name) + " must be a finite number to set " + field + "; got " + v->text});
                return std::nullopt;
            }
            assignments.push_back({field, detail::formatNumber(*value)});
            return *value;
        }
        if (required) out.errors.push_back({field, std::string("config.json has no ") + *names.begin() + " for " + field});
        return std::nullopt;
    };
    auto flag = [&](const char* field, bool value) { assignments.push_back({field, value ? "true" : "false"}); };
    const bool neox = family == HfFamily::neox;
    using Names = std::initializer_list<const char*>;
    // What the LayerNorm decoders with a plain MLP (OPT, Falcon, GPT-2, GPT-J, Phi-1/2, BLOOM) share: their sizes by
    // their own spellings, every head of hidden / heads (whatever the previous model's head_dim was), no gate, no
    // Q/K/V-only biases; the MLP 4h wide where the file leaves its width out.
    auto classic = [&](Names hiddenNames, Names layerNames, Names headNames, Names ffnNames, bool everyHead) {
        const auto hidden = number(hiddenNames, "hidden", true);
        number(layerNames, "layers", true);
        const auto heads = number(headNames, "heads", true);
        if (everyHead && heads) assignments.push_back({"kv_heads", detail::formatNumber(*heads)});
        assignments.push_back({"head_dim", "0"});
        if (!number(ffnNames, "ffn", false) && hidden) assignments.push_back({"ffn", detail::formatNumber(4 * *hidden)});
        number({"vocab_size"}, "vocab", true);
        flag("gated_ffn", false);
        assignments.push_back({"norm", "layernorm"});
        flag("qkv_bias", false);
        return heads;
    };
    // Rotary or ALiBi positions (no parameters) and the window the file states, else `fallback` (its config class's).
    auto unlearnedPositions = [&](Names windowNames, const char* fallback) {
        assignments.push_back({"pos_emb", "0"});
        if (!number(windowNames, "context_window", false)) assignments.push_back({"context_window", fallback});
    };
    if (family == HfFamily::opt) {
        // modeling_opt.py: OPTLearnedPositionalEmbedding holds max_position_embeddings + 2 rows (its offset of 2);
        // q/k/v/out_proj and fc1/fc2 carry biases (enable_bias); LayerNorms; a ReLU fc1 → fc2 MLP; lm_head tied.
        classic({"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"}, {"ffn_dim"}, true);
        if (const auto window = number({"max_position_embeddings"}, "context_window", false))
            assignments.push_back({"pos_emb", detail::formatNumber(*window + 2)});
        else
            out.errors.push_back({"pos_emb", "config.json has no max_position_embeddings for OPT's learned positions"});
        flag("tied_embeddings", boolean("tie_word_embeddings", true));
        flag("bias", boolean("enable_bias", true));
        const auto* projection = find("word_embed_proj_dim");
        const auto* hiddenSize = find("hidden_size");
        if (projection && hiddenSize && projection->text != hiddenSize->text)
            out.notices.push_back(
                {"word_embed_proj_dim", "word_embed_proj_dim " + projection->text +
                                            " is not hidden_size: the embedding is counted at hidden_size "
                                            "and project_in/project_out are left out (an over-count where the projection is narrower)"});
    } else if (family == HfFamily::falcon) {
        // modeling_falcon.py (FalconConfig's defaults where the file leaves a key out): fused query_key_value of
        // num_kv_heads (new_decoder_architecture), one (multi_query) or every head; dense_h_to_4h and dense_4h_to_h
        // of ffn_hidden_size (4h) with GELU, no gate; biases only with `bias`; LayerNorms; lm_head tied.
        const auto heads = classic({"hidden_size", "n_embed"}, {"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"},
                                   {"ffn_hidden_size"}, false);
        const bool newArchitecture = boolean("new_decoder_architecture", false);
        if (!(newArchitecture && number({"num_kv_heads"}, "kv_heads", false)) && heads)
            assignments.push_back({"kv_heads", boolean("multi_query", true) && !newArchitecture ? "1" : detail::formatNumber(*heads)});
        unlearnedPositions({"max_position_embeddings"}, "2048");
        flag("tied_embeddings", boolean("tie_word_embeddings", true));
        flag("bias", boolean("bias", false));
        // FalconDecoderLayer: the parallel block of the first Falcons (parallel_attn) has one input_layernorm;
        // new_decoder_architecture has ln_attn and ln_mlp unless num_ln_in_parallel_attn is 1.
        const auto* lnCount = find("num_ln_in_parallel_attn");
        const double parallelNorms = lnCount && lnCount->type == "number" ? numberOf(*lnCount) : 2;
        flag("shared_norm", newArchitecture ? parallelNorms == 1 : boolean("parallel_attn", true));
    } else if (family == HfFamily::gptj || family == HfFamily::phi) {
        // modeling_gptj.py and modeling_phi.py (their configs' defaults): one input norm (ln_1, input_layernorm) that
        // attention and the MLP read in parallel; an untied lm_head with a bias; rotary positions (rotary_dim,
        // partial_rotary_factor). GPT-J's q/k/v/out_proj have no biases and its fc_in/fc_out do; Phi's all do.
        const bool phi = family == HfFamily::phi;
        const auto heads = classic({"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"},
                                   {"n_inner", "intermediate_size"}, false);
        if (!number({"num_key_value_heads"}, "kv_heads", false) && heads) assignments.push_back({"kv_heads", detail::formatNumber(*heads)});
        unlearnedPositions({"n_positions", "max_position_embeddings"}, "2048");
        flag("tied_embeddings", boolean("tie_word_embeddings", false));
        flag("bias", phi);
        flag("mlp_bias", !phi);
        flag("output_bias", true);
        flag("shared_norm", true);
        if (phi && boolean("qk_layernorm", false))
            out.notices.push_back({"qk_layernorm",
                                   "qk_layernorm: Phi's query and key LayerNorms are counted as RMSNorms, their 2 × head_dim "
                                   "biases per layer left out"});
    } else if (family == HfFamily::bloom) {
        // modeling_bloom.py (BloomConfig's attribute_map: n_embed, n_layer, n_head): word_embeddings and their
        // LayerNorm, fused query_key_value and dense with biases, dense_h_to_4h/dense_4h_to_h (4h, GELU) with biases,
        // two LayerNorms a layer, ln_f, lm_head tied; ALiBi with no fixed window, the training length where stated.
        classic({"hidden_size", "n_embed"}, {"n_layer", "num_hidden_layers"}, {"num_attention_heads", "n_head"}, {}, true);
        unlearnedPositions({"seq_length"}, "0");
        flag("tied_embeddings", boolean("tie_word_embeddings", true));
        flag("bias", true);
        flag("embedding_norm", true);
    } else if (family == HfFamily::chatglm) {
        // THUDM's modeling_chatglm.py (ChatGLMConfig): word_embeddings of padded_vocab_size; a fused query_key_value
        // of every head plus 2 × multi_query_group_num key/value heads of kv_channels, biased when add_bias_linear or
        // add_qkv_bias; dense, dense_h_to_4h (2 × ffn_hidden_size, SwiGLU) and dense_4h_to_h biased only with
        // add_bias_linear; RMSNorm (rmsnorm) or LayerNorm, two a layer; final_layernorm; an untied output_layer.
        number({"hidden_size"}, "hidden", true);
        number({"num_layers", "num_hidden_layers"}, "layers", true);
        const auto heads = number({"num_attention_heads"}, "heads", true);
        if (!(boolean("multi_query_attention", false) && number({"multi_query_group_num"}, "kv_heads", false)) && heads)
            assignments.push_back({"kv_heads", detail::formatNumber(*heads)});
        if (!number({"kv_channels"}, "head_dim", false)) assignments.push_back({"head_dim", "0"});
        number({"ffn_hidden_size"}, "ffn", true);
        number({"padded_vocab_size", "vocab_size"}, "vocab", true);
        unlearnedPositions({"seq_length"}, "0");
        flag("gated_ffn", true);
        flag("tied_embeddings", boolean("tie_word_embeddings", false));
        assignments.push_back({"norm", boolean("rmsnorm", true) ? "rmsnorm" : "layernorm"});
        const bool linearBias = boolean("add_bias_linear", false);
        flag("bias", linearBias);
        flag("qkv_bias", !linearBias && boolean("add_qkv_bias", false));
        if (!boolean("post_layer_norm", true))
            out.notices.push_back({"post_layer_norm", "post_layer_norm false: the model has no final norm; membudget counts one"});
        if (const auto* bits = find("quantization_bit"); bits && bits->type == "number" && numberOf(*bits) != 0)
            out.notices.push_back({"quantization_bit", "quantization_bit: ChatGLM's own INT" + bits->text +
                                                           " quantization is not read; the weights are counted at the checkpoint's dtype"});
    } else if (family == HfFamily::gpt2) {
        classic({"n_embd"}, {"n_layer"}, {"n_head"}, {"n_inner"}, true);
        if (number({"n_positions", "n_ctx"}, "pos_emb", false))
            number({"n_positions", "n_ctx"}, "context_window", false);
        else
            assignments.push_back({"context_window", "0"});
        flag("tied_embeddings", boolean("tie_word_embeddings", true));
        flag("bias", true);
    } else {
        number({"hidden_size", "d_model"}, "hidden", true);
        number({"num_hidden_layers", "num_layers", "n_layers"}, "layers", type != "nemotron_h");  // Nemotron-H: its pattern's length
        const auto heads = number({"num_attention_heads", "n_heads"}, "heads", true);
        if (!number({"num_key_value_heads", "num_kv_heads"}, "kv_heads", false) && heads)
            assignments.push_back({"kv_heads", boolean("multi_query", false) ? "1" : detail::formatNumber(*heads)});
        if (!number({"head_dim"}, "head_dim", false)) assignments.push_back({"head_dim", "0"});
        // Llama 4: the dense layers' MLP is intermediate_size_mlp; intermediate_size is each expert's.
        number(type == "llama4_text" ? std::initializer_list<const char*>{"intermediate_size_mlp", "intermediate_size"}
                                     : std::initializer_list<const char*>{"intermediate_size", "ffn_dim"},
               "ffn", true);
        number({"vocab_size"}, "vocab", true);
        assignments.push_back({"pos_emb", "0"});  // rotary embeddings: no parameters
        // The window vLLM serves up to (max_model_len defaults to it); never the previous model's.
        if (!number({"max_position_embeddings", "max_sequence_length", "seq_length"}, "context_window", false))
            assignments.push_back({"context_window", "0"});
        const std::string act = text_("hidden_act", text_("hidden_activation", "silu"));
        // Every Llama-family type listed gates its MLP (gate_proj, or Phi-3's fused gate_up_proj); without a
        // model_type the activation tells.
        const bool listed = rules != std::end(kHfModelTypes);
        flag("gated_ffn", !neox && (listed || act == "silu" || act == "swiglu" || act.rfind("gelu_pytorch_tanh", 0) == 0));
        flag("tied_embeddings", boolean("tie_word_embeddings", !neox));
        assignments.push_back({"norm", neox ? "layernorm" : "rmsnorm"});
        // attention_bias puts biases on q/k/v and o_proj (LlamaAttention, Qwen3, Gemma, OLMo 2); GLM-4's o_proj has
        // none (Glm4Attention: bias=False), so there it is the Q/K/V biases alone. mlp_bias: gate/up/down_proj.
        const bool attentionBias = boolean("attention_bias", false), mlpBias = boolean("mlp_bias", false);
        const bool glm = type == "glm4" || type == "glm4_moe";
        flag("bias", neox || (attentionBias && mlpBias && !glm));
        flag("qkv_bias", type.starts_with("qwen2") || (glm && attentionBias));
        flag("attention_bias", attentionBias && !mlpBias && !glm);
        flag("mlp_bias", mlpBias && (!attentionBias || glm));
        if (type == "gpt_oss") {
            // modeling_gpt_oss.py: q/k/v/o biases (attention_bias), biases on every expert (gate_up_proj_bias,
            // down_proj_bias) and the router (nn.Linear with bias), and a learned sink logit per head.
            flag("bias", attentionBias);
            flag("qkv_bias", false);
            flag("attention_bias", false);
            flag("mlp_bias", false);
        }
    }
    flag("attention_sinks", type == "gpt_oss");
    // The norms beyond a Llama layer's two (transformers' modeling_<type>.py): RMSNorms of head_dim on the queries
    // and keys (Qwen3Attention, Gemma3Attention, Glm4MoeAttention when use_qk_norm), over the whole projection in
    // OLMo 2 and 3 (Olmo2Attention: RMSNorm(num_heads * head_dim) and RMSNorm(num_key_value_heads * head_dim)), and
    // a norm after attention and after the MLP (Gemma2DecoderLayer, Gemma3DecoderLayer, Glm4DecoderLayer). OLMo 2
    // has its two norms after the blocks instead of before, the same weights and saved bytes.
    const bool perHead = type == "qwen3" || type == "qwen3_moe" || type == "qwen3_next" || type == "gemma3_text" ||
                         (type == "glm4_moe" && boolean("use_qk_norm", false));
    assignments.push_back({"qk_norm", perHead ? "per_head" : type == "olmo2" || type == "olmo3" ? "full_width" : "none"});
    flag("post_norms", type == "gemma2" || type == "gemma3_text" || type == "glm4");
    // Mixture of experts: Mixtral (num_local_experts), Qwen MoE (num_experts, moe_intermediate_size,
    // shared_expert_intermediate_size, decoder_sparse_step), DeepSeek (n_routed_experts, n_shared_experts).
    if (const auto experts = number({"num_local_experts", "num_experts", "n_routed_experts"}, "experts", false); experts && *experts > 1) {
        number({"num_experts_per_tok", "moe_topk", "experts_per_token"}, "experts_per_token", false);
        const bool llama4 = type == "llama4_text";
        if (!number(llama4 ? std::initializer_list<const char*>{"intermediate_size"}
                           : std::initializer_list<const char*>{"moe_intermediate_size"},
                    "moe_ffn", false))
            assignments.push_back({"moe_ffn", "0"});
        // Llama4TextMoe always has one shared expert of intermediate_size.
        if (llama4) {
            number({"intermediate_size"}, "shared_expert_ffn", false);
        } else if (!number({"shared_expert_intermediate_size"}, "shared_expert_ffn", false)) {
            const auto* shared = find("n_shared_experts");
            const auto* width = find("moe_intermediate_size");
            assignments.push_back({"shared_expert_ffn", shared && width && shared->type == "number" && width->type == "number"
                                                            ? detail::formatNumber(numberOf(*shared) * numberOf(*width))
                                                            : "0"});
        }
        if (llama4) {
            detail::readLlama4MoeLayers(fields, out, assignments);
        } else if (const auto* step = find("decoder_sparse_step"); step && step->type == "number" && !find("first_k_dense_replace")) {
            // Qwen2/Qwen3-MoE (Qwen2MoeDecoderLayer): layer i is MoE when (i + 1) % decoder_sparse_step == 0, so
            // layers s − 1, 2s − 1, …: the first s − 1 dense, then every s-th. A step the field refuses is named by it.
            const double s = detail::parseNumber(step->text).value_or(0);
            assignments.push_back({"moe_layer_freq", step->text});
            assignments.push_back({"first_dense_layers", s >= 1 && s == std::floor(s) ? detail::formatNumber(s - 1) : "0"});
            if (const auto* only = find("mlp_only_layers"); only && only->type == "array" && find("mlp_only_layers[0]"))
                out.notices.push_back({"mlp_only_layers",
                                       "mlp_only_layers: the layers it lists have a dense MLP instead of "
                                       "experts, which membudget does not read: they are counted as MoE layers"});
        } else {
            if (!number({"moe_layer_freq"}, "moe_layer_freq", false)) assignments.push_back({"moe_layer_freq", "1"});
            if (!number({"first_k_dense_replace"}, "first_dense_layers", false)) assignments.push_back({"first_dense_layers", "0"});
        }
        // DeepSeek-V3's e_score_correction_bias; GLM-4.5's router always has one (Glm4MoeTopkRouter).
        flag("router_bias", text_("topk_method", "") == "noaux_tc" || type == "glm4_moe" || type == "gpt_oss");
        flag("shared_expert_gate", type == "qwen2_moe" || type == "qwen3_next");  // Qwen2MoeSparseMoeBlock.shared_expert_gate
    } else {
        assignments.push_back({"experts", "0"});  // dense (a count of 1 is a dense FFN too)
    }
    // Multi-head latent attention (DeepSeek-V2/V3).
    if (number({"kv_lora_rank"}, "kv_lora_rank", false)) {
        if (!number({"q_lora_rank"}, "q_lora_rank", false)) assignments.push_back({"q_lora_rank", "0"});
        number({"qk_rope_head_dim"}, "qk_rope_dim", false);
        number({"qk_nope_head_dim"}, "qk_nope_dim", false);
        number({"v_head_dim"}, "v_head_dim", false);
        // DeepSeek-V3.2's indexer (vLLM's Indexer, built for every layer of a config with index_topk); without one,
        // index_heads keeps the reset architecture's 0.
        if (number({"index_n_heads"}, "index_heads", false)) number({"index_head_dim"}, "index_head_dim", false);
    } else {
        assignments.push_back({"kv_lora_rank", "0"});
    }
    if (!number({"num_nextn_predict_layers"}, "mtp_layers", false)) assignments.push_back({"mtp_layers", "0"});
    // What the file says that changes memory and membudget does not read: each named, never silently counted as
    // the uniform full-attention, BF16 decoder the fields describe (docs/import.md).
    detail::readAttentionPattern(type, fields, out, assignments);
    detail::readLinearAttention(type, fields, out, assignments);
    detail::readWeightFormat(fields, out, assignments);
    detail::readVisionTower(type, fields, out, assignments);
    detail::readHybridStack(type, fields, out, assignments);
    detail::nameUnreadLayouts(type, fields, out);
    if (type == "deepseek_v32")
        out.notices.push_back({"index_topk",
                               "index_topk: DeepSeek-V3.2's indexer weights and its key cache are counted; in training, what the "
                               "indexer saves for backward and its top-k selection are not"});
    if (type == "llama4_text" && boolean("use_qk_norm", false))
        out.notices.push_back({"use_qk_norm",
                               "use_qk_norm: Llama 4's L2 norm of the queries and keys has no weights; what it "
                               "saves for backward in training is not counted"});
    if (find("parallel_attn") || find("use_parallel_residual"))
        out.notices.push_back({"use_parallel_residual", "a parallel attention/MLP block saves the same tensors here as a sequential one"});
    // The model's own name: the id it was published under, else its class.
    const auto* architectures = find("architectures");  // an array, its first class name as the text
    assignments.push_back(
        {"name", displayName(text_("_name_or_path", architectures && architectures->type == "array" ? architectures->text : ""))});
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
