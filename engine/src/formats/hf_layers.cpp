// What a Hugging Face config.json says beyond its sizes: the language model of a multimodal wrapper, which layers
// attend within a window and the format its weights are stored in (importHfFields, formats/hf.cpp, reads the rest).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "formats/hf.hpp"
#include "membudget/base/text.hpp"

namespace membudget::detail {

// A multimodal wrapper (Llava, Mistral 3, Gemma 3, Llama 4, Qwen2.5-VL) keeps its language model under
// text_config (transformers' get_text_config): that model is read, its values first and the wrapper's for what
// it leaves out (quantization_config, torch_dtype, tie_word_embeddings); the name and class are the wrapper's.
bool textModelOf(std::span<const HfValue> given, std::vector<HfValue>& textModel, HfImport& out) {
    if (std::none_of(given.begin(), given.end(), [](const HfValue& v) { return v.key == "text_config" && v.type == "object"; }))
        return false;
    constexpr std::string_view prefix = "text_config.";
    // The model's name is the wrapper's, the id it was published under, not its language model's origin.
    auto wrapperHas = [&given](std::string_view key) {
        return std::any_of(given.begin(), given.end(), [&key](const HfValue& v) { return v.key == key && v.type != "null"; });
    };
    for (const auto& v : given) {
        if (v.key.rfind(prefix, 0) != 0) continue;
        const std::string key = v.key.substr(prefix.size());
        if ((key == "_name_or_path" || key == "architectures") && wrapperHas(key)) continue;
        textModel.push_back({key, v.type, v.text});
    }
    const size_t inner = textModel.size();
    for (const auto& v : given) {
        // The wrapper's own model_type (llava, gemma3) never stands for its language model's.
        if (v.key == "text_config" || v.key == "model_type" || v.key.rfind(prefix, 0) == 0) continue;
        const std::string top = v.key.substr(0, v.key.find('.'));
        const bool shadowed = std::any_of(textModel.begin(), textModel.begin() + static_cast<std::ptrdiff_t>(inner),
                                          [&top](const HfValue& t) { return t.key == top && t.type != "null"; });
        if (!shadowed) textModel.push_back(v);
    }
    out.notices.push_back({"text_config",
                           "a multimodal wrapper: its language model (text_config) is counted; the vision tower "
                           "(vision_config) and its projector are left out"});
    return true;
}

// The vision tower of Qwen2-VL and Qwen2.5-VL, by their modeling files: a Conv3d patch embedding without bias
// (in_chans × temporal_patch_size × patch_size² × width); `depth` blocks of two norms, qkv and proj with biases and an
// MLP with biases (Qwen2-VL: LayerNorms and fc1/fc2 of mlp_ratio × width; Qwen2.5-VL: RMSNorms and a gated MLP of
// intermediate_size); the patch merger's norm and its two biased linears over spatial_merge_size² patches. Qwen2-VL-7B
// and Qwen2.5-VL-7B come to their published totals with it (8,291,375,616 and 8,292,166,656).
void readVisionTower(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    const bool v25 = type.starts_with("qwen2_5_vl");
    if (!v25 && !type.starts_with("qwen2_vl")) return;
    auto number = [fields](std::string_view key, double fallback) {
        const HfValue* v = findHfValue(fields, std::string("vision_config.") + std::string(key));
        return v && v->type == "number" ? parseNumber(v->text).value_or(fallback) : fallback;
    };
    if (!findHfValue(fields, "vision_config")) return;
    // Qwen2VLVisionConfig's and Qwen2_5_VLVisionConfig's defaults where the file leaves a key out.
    const double width = v25 ? number("hidden_size", 1280) : number("embed_dim", 1280);
    const double output = v25 ? number("out_hidden_size", 3584) : number("hidden_size", 3584);
    const double depth = number("depth", 32), patch = number("patch_size", 14), frames = number("temporal_patch_size", 2);
    const double channels = number("in_chans", number("in_channels", 3)), merge = number("spatial_merge_size", 2);
    const double norm = v25 ? width : 2 * width;  // RMSNorm, or LayerNorm's weight and bias
    // Qwen2.5-VL's gated MLP (gate, up, down, each biased); Qwen2-VL's fc1/fc2 of mlp_ratio × width.
    const double inner = v25 ? number("intermediate_size", 3420) : number("mlp_ratio", 4) * width;
    const double mlp = (v25 ? 3 : 2) * width * inner + (v25 ? 2 : 1) * inner + width;
    const double block = 2 * norm + 3 * width * width + 3 * width + width * width + width + mlp;
    const double merged = width * merge * merge;
    const double merger = norm + merged * merged + merged + merged * output + output;
    const double tower = channels * frames * patch * patch * width + depth * block + merger;
    assignments.push_back({"vision_params", formatNumber(tower)});
    std::erase_if(out.notices, [](const Problem& p) { return p.field == "text_config"; });
    out.notices.push_back({"vision_config", "vision_config: the vision tower's " + formatNumber(tower) +
                                                " parameters are counted (vision_params); the activations of its image tokens are not"});
}

// Which layers attend within a window (sliding_window, full_attention_every): layer_types where the file lists each
// layer's kind, else the model type's rule (transformers: Gemma 2 alternates, full at odd layers; Gemma 3 is full
// every sliding_window_pattern-th layer, 6 by default; Mistral and Phi-3 slide in every layer). A window the keys
// cannot say (Qwen2's first max_window_layers layers full, an irregular layer_types) is named and counted as full
// attention, an over-count of the KV cache.
const HfValue* findHfValue(std::span<const HfValue> fields, std::string_view key) {
    for (const auto& f : fields)
        if (f.key == key && f.type != "null") return &f;
    return nullptr;
}

// The 0-based layers a per-layer list marks (no_rope_layers[i] == 0, moe_layers' entries), in order.
std::vector<double> listed(std::span<const HfValue> fields, std::string_view list, bool zeros) {
    std::vector<double> out;
    size_t index = 0;
    for (const auto& f : fields)
        if (f.key.rfind(std::string(list) + "[", 0) == 0 && f.type == "number") {
            const double value = parseNumber(f.text).value_or(-1);
            if (zeros ? value == 0 : true) out.push_back(zeros ? static_cast<double>(index) : value);
            ++index;
        }
    return out;
}

// Whether the layers are exactly every `every`-th from `first` among `layers` (first, first + every, …).
bool regular(const std::vector<double>& marked, double first, double every, double layers) {
    std::vector<double> want;
    for (double i = first; every > 0 && i < layers; i += every) want.push_back(i);
    return marked == want;
}

// Llama 4's chunked local attention (Llama4TextAttention: RoPE layers attend within attention_chunk_size; the NoPE
// layers, no_rope_layers[i] == 0, every no_rope_layer_interval-th (4) by default, attend to all; vLLM llama4.py
// gives those full-attention KV and the others ChunkedLocalAttentionSpec).
void readChunkedAttention(std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    auto find = [fields](std::string_view key) { return findHfValue(fields, key); };
    const auto* chunk = find("attention_chunk_size");
    const double size = chunk && chunk->type == "number" ? parseNumber(chunk->text).value_or(0) : 0;
    const auto* layersValue = find("num_hidden_layers");
    const double layers = layersValue && layersValue->type == "number" ? parseNumber(layersValue->text).value_or(0) : 0;
    assignments.push_back({"sliding_window", "0"});
    if (size <= 0) {
        assignments.push_back({"attention_chunk", "0"});
        assignments.push_back({"full_attention_every", "0"});
        return;
    }
    const auto* interval = find("no_rope_layer_interval");
    double every = interval && interval->type == "number" ? parseNumber(interval->text).value_or(4) : 4;
    const std::vector<double> nope = listed(fields, "no_rope_layers", true);
    const bool hasList = std::any_of(fields.begin(), fields.end(), [](const HfValue& f) { return f.key.rfind("no_rope_layers[", 0) == 0; });
    if (hasList && !regular(nope, every - 1, every, layers)) {
        // Not one period: find the one it has, else count every layer as full attention (an over-count).
        every = nope.empty() ? 0 : nope.front() + 1;
        if (!regular(nope, every - 1, every, layers)) {
            out.notices.push_back({"no_rope_layers",
                                   "no_rope_layers does not repeat one period of full-attention layers: every "
                                   "layer is counted as full attention, an over-count of the KV cache"});
            assignments.push_back({"attention_chunk", "0"});
            assignments.push_back({"full_attention_every", "0"});
            return;
        }
    }
    assignments.push_back({"attention_chunk", formatNumber(size)});
    assignments.push_back({"full_attention_every", formatNumber(every)});
    out.notices.push_back({"attention_chunk_size", "attention_chunk_size " + formatNumber(size) + " -> attention_chunk " +
                                                       formatNumber(size) + ", full_attention_every " + formatNumber(every) +
                                                       " (the NoPE layers attend to all): vLLM caches at most one chunk in the others"});
}

void readLlama4MoeLayers(std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    auto find = [fields](std::string_view key) { return findHfValue(fields, key); };
    const auto* step = find("interleave_moe_layer_step");
    const double every = step && step->type == "number" ? parseNumber(step->text).value_or(1) : 1;
    const auto* layersValue = find("num_hidden_layers");
    const double layers = layersValue && layersValue->type == "number" ? parseNumber(layersValue->text).value_or(0) : 0;
    // Llama4TextConfig: moe_layers defaults to range(step - 1, layers, step).
    const std::vector<double> moe = listed(fields, "moe_layers", false);
    const bool hasList = std::any_of(fields.begin(), fields.end(), [](const HfValue& f) { return f.key.rfind("moe_layers[", 0) == 0; });
    if (every < 1 || (hasList && !regular(moe, every - 1, every, layers)))
        out.notices.push_back({"moe_layers",
                               "moe_layers is not every interleave_moe_layer_step-th layer: the MoE layers are counted "
                               "as that pattern, which differs from the model's"});
    const double freq = every >= 1 ? every : 1;
    assignments.push_back({"moe_layer_freq", formatNumber(freq)});
    assignments.push_back({"first_dense_layers", formatNumber(freq - 1)});
}

// Qwen3-Next (transformers' Qwen3NextConfig and Qwen3NextDecoderLayer): layer i is full attention when
// (i + 1) % full_attention_interval == 0 (layer_types, where written, says the same), a Gated DeltaNet layer
// otherwise; the full layers' attention has a gated output. Other model types keep the reset architecture's
// linear_value_heads 0 and attn_output_gate false (importHfFields starts from resetArchitecture).
void readLinearAttention(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    auto find = [fields](std::string_view key) { return findHfValue(fields, key); };
    if (type != "qwen3_next") return;
    auto take = [&](const char* key, const char* field, const char* fallback) {
        const auto* v = find(key);
        assignments.push_back({field, v && v->type == "number" ? v->text : fallback});
    };
    // Qwen3NextConfig's defaults where the file leaves a key out.
    take("linear_num_value_heads", "linear_value_heads", "32");
    take("linear_num_key_heads", "linear_key_heads", "16");
    take("linear_key_head_dim", "linear_key_dim", "128");
    take("linear_value_head_dim", "linear_value_dim", "128");
    take("linear_conv_kernel_dim", "linear_conv_kernel", "4");
    take("full_attention_interval", "full_attention_every", "4");
    const auto* gate = find("attn_output_gate");
    assignments.push_back({"attn_output_gate", gate && gate->type == "boolean" ? gate->text : "true"});
    const auto* interval = find("full_attention_interval");
    const double every = interval && interval->type == "number" ? parseNumber(interval->text).value_or(4) : 4;
    size_t i = 0;
    for (const auto& f : fields) {
        if (f.key.rfind("layer_types[", 0) != 0 || f.type != "string") continue;
        const bool full = every > 0 && std::fmod(static_cast<double>(i) + 1, every) == 0;
        if (f.text != (full ? "full_attention" : "linear_attention")) {
            out.notices.push_back({"layer_types",
                                   "layer_types does not repeat full_attention_interval's period: the layers are "
                                   "counted as full_attention_interval says"});
            break;
        }
        ++i;
    }
    const auto* mtp = find("mtp_num_hidden_layers");
    if (mtp && mtp->type == "number" && parseNumber(mtp->text).value_or(0) > 0)
        out.notices.push_back({"mtp_num_hidden_layers",
                               "mtp_num_hidden_layers: the multi-token-prediction layer is not counted "
                               "(vLLM loads it only for speculative decoding)"});
}

void readAttentionPattern(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    auto find = [fields](std::string_view key) { return findHfValue(fields, key); };
    if (type == "llama4_text") return readChunkedAttention(fields, out, assignments);
    if (type == "qwen3_next") {
        // The attention pattern is readLinearAttention's; no sliding window.
        assignments.push_back({"attention_chunk", "0"});
        assignments.push_back({"sliding_window", "0"});
        return;
    }
    auto off = [&assignments] {
        assignments.push_back({"sliding_window", "0"});
        assignments.push_back({"full_attention_every", "0"});
    };
    assignments.push_back({"attention_chunk", "0"});
    const auto* window = find("sliding_window");
    const auto* use = find("use_sliding_window");
    const bool active = window && window->type == "number" && parseNumber(window->text).value_or(0) > 0 &&
                        !(use && use->type == "boolean" && use->text == "false");
    // layer_types[i]: "full_attention", "sliding_attention", or a kind membudget does not model.
    std::vector<std::string> kinds;
    for (const auto& f : fields)
        if (f.key.rfind("layer_types[", 0) == 0 && f.type == "string") kinds.push_back(f.text);
    const size_t full = static_cast<size_t>(std::count(kinds.begin(), kinds.end(), "full_attention"));
    const size_t sliding = static_cast<size_t>(std::count(kinds.begin(), kinds.end(), "sliding_attention"));
    if (full + sliding < kinds.size())
        out.notices.push_back({"layer_types",
                               "layer_types holds layer kinds other than full and sliding attention (linear "
                               "attention, state space, chunked): they are counted as full attention layers"});
    if (!active || (!kinds.empty() && sliding == 0)) return off();
    double every = 0;
    if (!kinds.empty()) {
        // The first full layer gives the period; every layer must then follow it.
        const auto first = std::find(kinds.begin(), kinds.end(), "full_attention");
        every = first == kinds.end() ? 0 : static_cast<double>(first - kinds.begin()) + 1;
        for (size_t i = 0; i < kinds.size(); ++i) {
            const bool isFull = every > 0 && std::fmod(static_cast<double>(i) + 1, every) == 0;
            if ((kinds[i] == "full_attention") != isFull && (kinds[i] == "full_attention" || kinds[i] == "sliding_attention")) {
                out.notices.push_back({"sliding_window",
                                       "layer_types does not repeat one period of full-attention layers: every "
                                       "layer is counted as full attention, an over-count of the KV cache"});
                return off();
            }
        }
    } else if (type == "gemma2") {
        every = 2;
    } else if (type == "gemma3_text") {
        const auto* pattern = find("sliding_window_pattern");
        every = pattern && pattern->type == "number" ? parseNumber(pattern->text).value_or(6) : 6;
    } else if (type == "qwen2" || type == "qwen2_moe" || type == "qwen3" || type == "qwen3_moe") {
        const auto* firstFull = find("max_window_layers");
        const auto* layers = find("num_hidden_layers");
        // max_window_layers at or past the layer count: every layer is full attention.
        if (firstFull && layers && parseNumber(firstFull->text).value_or(0) >= parseNumber(layers->text).value_or(0)) return off();
        out.notices.push_back({"sliding_window",
                               "use_sliding_window with max_window_layers below the layer count (the first "
                               "layers full, the rest sliding) has no key: every layer is counted as full "
                               "attention, an over-count of the KV cache"});
        return off();
    }
    assignments.push_back({"sliding_window", window->text});
    assignments.push_back({"full_attention_every", formatNumber(every)});
    out.notices.push_back({"sliding_window", "sliding_window " + window->text + " -> sliding_window " + window->text +
                                                 (every > 0 ? ", full_attention_every " + formatNumber(every) + " (one layer in " +
                                                                  formatNumber(every) + " attends to all)"
                                                            : " in every layer") +
                                                 ": vLLM caches at most the window in the sliding layers"});
}

namespace {

// What a quantization_config says of the layers' linear weights: their weight_dtype (empty: a format weight_dtype
// cannot hold), quant_group, and what was read, for the notice.
struct WeightFormat {
    std::string dtype, group, read;
};

// The first of `keys` present as a number.
std::optional<double> firstNumber(std::span<const HfValue> fields, std::initializer_list<const char*> keys) {
    for (const char* key : keys)
        if (const auto* v = findHfValue(fields, key); v && v->type == "number") return parseNumber(v->text);
    return std::nullopt;
}

// compressed-tensors' QuantizationScheme per group of targets (config_groups.<name>.weights): num_bits,
// strategy group (with group_size) or channel. Where groups differ, the one with the most bytes: the most
// bits and the smallest group, so that nothing is under-counted.
WeightFormat packedFormat(std::span<const HfValue> fields) {
    WeightFormat f;
    double bits = 0, smallest = 0;
    bool channel = false;
    for (const auto& v : fields) {
        const std::string_view key = v.key;
        if (key.rfind("quantization_config.config_groups.", 0) != 0) continue;
        const double value = v.type == "number" ? parseNumber(v.text).value_or(0) : 0;
        if (key.ends_with(".weights.num_bits")) bits = std::max(bits, value);
        if (key.ends_with(".weights.group_size") && value > 0) smallest = smallest == 0 ? value : std::min(smallest, value);
        if (key.ends_with(".weights.strategy") && v.type == "string" && v.text == "channel") channel = true;
    }
    if (bits == 8) {
        f.dtype = "int8";
        f.read = "8-bit packed weights (config_groups)";
    } else if (bits == 0 || bits == 4) {
        f.dtype = "int4";
        if (smallest >= 8 && smallest <= 8192) {
            f.group = formatNumber(smallest);
            f.read = "4-bit packed weights, groups of " + f.group + " (config_groups)";
        } else if (channel) {
            f.group = "8192";
            f.read = "4-bit packed weights, per channel (config_groups)";
        } else {
            f.group = "128";
            f.read = "4-bit packed weights (config_groups states no group size: 128 assumed)";
        }
    }
    return f;
}

// The weights' format by quant_method (and compressed-tensors' format).
WeightFormat quantizedFormat(std::span<const HfValue> fields, const std::string& method, const std::string& format) {
    WeightFormat f;
    if (method == "fp8" || method == "fbgemm_fp8" || (method == "compressed-tensors" && format == "float-quantized")) {
        f.dtype = "fp8";
        f.read = "FP8 weights";
    } else if (method == "awq" || method == "gptq" || method == "awq_marlin" || method == "gptq_marlin") {
        const auto bits = firstNumber(fields, {"quantization_config.bits", "quantization_config.w_bit"});
        const auto size = firstNumber(fields, {"quantization_config.group_size", "quantization_config.q_group_size"});
        if (bits && *bits == 8) {
            f.dtype = "int8";
            f.read = "8-bit weights";
        } else if (bits && *bits == 4) {
            f.dtype = "int4";
            // group_size -1 is one scale per output channel: the largest group the field holds, as near as it gets.
            f.group = size && *size >= 8 && *size <= 8192 ? formatNumber(*size) : "8192";
            f.read = "4-bit weights, " + (size && *size > 0 ? "groups of " + formatNumber(*size) : std::string("per channel"));
        }
    } else if (method == "compressed-tensors" && format == "pack-quantized") {
        f = packedFormat(fields);
    } else if (method == "compressed-tensors" && format == "int-quantized") {
        f.dtype = "int8";
        f.read = "8-bit weights";
    }
    return f;
}

}  // namespace

// The checkpoint's weight format (quantization_config, transformers' quantizers and vLLM's quantization methods of
// the same names) as weight_dtype and quant_group, with a notice saying what was read; a format weight_dtype cannot
// hold is named and the weights stay at the checkpoint's dtype, an over-count. vLLM keeps the embedding, the
// output layer and the norms unquantized, as membudget's weight_dtype does.
void readWeightFormat(std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments) {
    auto find = [fields](std::string_view key) { return findHfValue(fields, key); };
    auto text = [&find](const char* key) {
        const auto* v = find(key);
        std::string t = v && (v->type == "string" || v->type == "number") ? v->text : "";
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        return t;
    };
    const auto* quantization = find("quantization_config");
    assignments.push_back({"expert_weight_dtype", "same"});
    if (!quantization || quantization->type != "object") {
        // Unquantized: the dtype it was saved in (torch_dtype; dtype since transformers 4.56), as vLLM's dtype auto.
        const std::string dtype = text("torch_dtype").empty() ? text("dtype") : text("torch_dtype");
        assignments.push_back({"weight_dtype", dtype == "float16" ? "fp16" : "bf16"});
        return;
    }
    const std::string method = text("quantization_config.quant_method");
    const std::string format = text("quantization_config.format");
    const auto [dtype, group, read] = quantizedFormat(fields, method, format);
    const std::string name = method.empty() ? std::string("no quant_method") : displayName(method.substr(0, 40));
    const auto* experts = find("num_local_experts");
    if (method == "mxfp4" && experts && experts->type == "number" && parseNumber(experts->text).value_or(0) > 1) {
        // gpt-oss: the routed experts in MXFP4 and everything in modules_to_not_convert (attention, router,
        // embedding, output layer) in BF16, as vLLM's Mxfp4Config loads them.
        assignments.push_back({"weight_dtype", "bf16"});
        assignments.push_back({"expert_weight_dtype", "mxfp4"});
        out.notices.push_back({"quantization_config",
                               "quantization_config (mxfp4): the routed experts in MXFP4 -> expert_weight_dtype mxfp4; "
                               "attention, routers, embedding and output layer BF16 (modules_to_not_convert)"});
        return;
    }
    if (dtype.empty()) {
        assignments.push_back({"weight_dtype", "bf16"});
        out.notices.push_back(
            {"quantization_config", "quantization_config (" + name + (format.empty() ? "" : ", " + displayName(format.substr(0, 40))) +
                                        ") is a weight format weight_dtype cannot hold: the weights are counted in BF16, more "
                                        "than the checkpoint loads"});
        return;
    }
    assignments.push_back({"weight_dtype", dtype});
    if (!group.empty()) assignments.push_back({"quant_group", group});
    const bool exceptions = find("quantization_config.modules_to_not_convert") || find("quantization_config.ignore");
    out.notices.push_back(
        {"quantization_config", "quantization_config (" + name + "): " + read + " -> weight_dtype " + dtype +
                                    (group.empty() ? "" : ", quant_group " + group) +
                                    " for the layers' linear weights; the embedding, output layer and norms stay BF16" +
                                    (exceptions ? " (its list of modules left unquantized is not read module by module)" : "")});
}

}  // namespace membudget::detail
