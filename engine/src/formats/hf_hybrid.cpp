// Hybrid stacks in a Hugging Face config.json: Nemotron-H's one-mixer blocks (hybrid_override_pattern or
// layers_block_type) as layer_pattern and its Mamba-2 sizes, and the hybrid keys of the types membudget reads as
// uniform layers, named (importHfFields, formats/hf.cpp, reads the rest).
#include <string>
#include <string_view>
#include <vector>

#include "formats/hf.hpp"
#include "membudget/base/text.hpp"

namespace membudget::detail {

namespace {

// NemotronHConfig._pattern_to_list's characters, and the block names of layers_block_type in both of its spellings
// (mamba/attention, and linear_attention/full_attention of remap_legacy_layer_types); E is a MoE block.
char blockCharacter(std::string_view name) {
    if (name == "mamba" || name == "linear_attention") return 'M';
    if (name == "attention" || name == "full_attention") return '*';
    if (name == "mlp") return '-';
    if (name == "moe") return 'E';
    return 0;
}

}  // namespace

// transformers' NemotronHConfig (its defaults where the file leaves a key out, with the legacy mamba_n_groups,
// mamba_d_conv and mamba_conv_bias spellings) and NemotronHBlock: one norm and one mixer a block, the stack as long
// as its pattern (num_hidden_layers is deprecated there); NemotronHMLP's up and down projections, no gate.
void readHybridStack(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    if (type != "nemotron_h") return;
    auto find = [fields](std::string_view key) { return findHfValue(fields, key); };
    std::string pattern;
    if (const auto* given = find("hybrid_override_pattern"); given && given->type == "string") {
        pattern = given->text;
    } else {
        const std::string_view list = find("layers_block_type[0]") ? "layers_block_type[" : "layer_types[";
        for (const auto& f : fields) {
            if (f.key.rfind(list, 0) != 0) continue;
            const char block = f.type == "string" ? blockCharacter(f.text) : 0;
            if (block == 0) {
                out.errors.push_back(
                    {"layer_pattern", f.key + " must be one of mamba, attention, mlp, moe; got " +
                                          (f.type == "string" ? "\"" + displayName(f.text.substr(0, 32)) + "\"" : f.type)});
                return;
            }
            pattern += block;
        }
    }
    if (pattern.empty()) {
        out.errors.push_back({"layer_pattern", "config.json has no hybrid_override_pattern or layers_block_type for layer_pattern"});
        return;
    }
    assignments.push_back({"layer_pattern", pattern});
    const auto size = static_cast<double>(pattern.size());
    if (const auto* layers = find("num_hidden_layers"); layers && layers->type == "number" && parseNumber(layers->text) != size)
        out.notices.push_back({"num_hidden_layers", "num_hidden_layers " + layers->text + " is not the pattern's " + formatNumber(size) +
                                                        " blocks: the pattern's are counted, as transformers counts them"});
    assignments.push_back({"layers", formatNumber(size)});
    auto take = [&](std::initializer_list<const char*> names, const char* field, const char* fallback, const char* kind = "number") {
        for (const char* name : names)
            if (const auto* v = find(name); v && v->type == kind) return assignments.push_back({field, v->text});
        assignments.push_back({field, fallback});
    };
    take({"mamba_num_heads"}, "mamba_heads", "128");
    take({"mamba_head_dim"}, "mamba_head_dim", "64");
    take({"ssm_state_size"}, "mamba_state", "128");
    take({"n_groups", "mamba_n_groups"}, "mamba_groups", "8");
    take({"conv_kernel", "mamba_d_conv"}, "mamba_conv_kernel", "4");
    take({"use_conv_bias", "mamba_conv_bias"}, "mamba_conv_bias", "true", "boolean");
    take({"head_dim", "attention_head_dim"}, "head_dim", "128");
    assignments.push_back({"gated_ffn", "false"});
    assignments.push_back({"experts", "0"});  // n_routed_experts is read into E blocks, which layer_pattern refuses
    const auto* cache = find("mamba_ssm_cache_dtype");
    const std::string dtype = cache && cache->type == "string" ? cache->text : "float32";
    if (dtype == "float32" || dtype == "bfloat16" || dtype == "float16") {
        assignments.push_back({"mamba_state_dtype", dtype == "float32" ? "fp32" : dtype == "bfloat16" ? "bf16" : "fp16"});
    } else {
        out.errors.push_back({"mamba_state_dtype", "mamba_ssm_cache_dtype must be float32, bfloat16 or float16; got \"" +
                                                       displayName(dtype.substr(0, 32)) + "\""});
    }
    if (const auto* bias = find("use_bias"); bias && bias->type == "boolean" && bias->text == "true")
        out.notices.push_back(
            {"use_bias", "use_bias: the Mamba mixers' in_proj and out_proj biases (2 × hidden + I per block) are not counted"});
}

// Hybrid and sparse-attention layouts (Qwen3-Next, DeepSeek-V3.2, Llama 4, Nemotron-H): their keys, where a listed
// model_type that does not read them carries one.
void nameUnreadLayouts(const std::string& type, std::span<const HfValue> fields, HfImport& out) {
    for (const auto& f : fields)
        for (std::string_view prefix : {"full_attention_interval", "linear_", "index_", "interleave_moe_layer_step", "attention_chunk_size",
                                        "hybrid_override_pattern", "mamba_", "ssm_"})
            if (f.type != "null" && f.key.rfind(prefix, 0) == 0 &&
                !(type == "llama4_text" && (prefix == "interleave_moe_layer_step" || prefix == "attention_chunk_size")) &&
                !(type == "deepseek_v32" && prefix == "index_") &&
                !(type == "qwen3_next" && (prefix == "full_attention_interval" || prefix == "linear_")) &&
                !(type == "nemotron_h" && (prefix == "hybrid_override_pattern" || prefix == "mamba_" || prefix == "ssm_"))) {
                out.notices.push_back({f.key, f.key + " changes what a layer is and keeps (hybrid or sparse attention), which "
                                                      "membudget does not read: every layer is counted as the same decoder layer"});
                break;
            }
}

}  // namespace membudget::detail
