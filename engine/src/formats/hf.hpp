// The Hugging Face config.json mapping (importHfFields, membudget/formats/hf.hpp) as one of importConfig's
// formats: its architecture fields as assignments. Internal: import.cpp dispatches here.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget::detail {

// A config.json value by its flattened key (nullptr where absent or null).
const HfValue* findHfValue(std::span<const HfValue> fields, std::string_view key);

// The architecture rules a config.json's model_type selects (kHfModelTypes, formats/hf.cpp). Each family is read
// with its own keys and layer shape (transformers' modeling_<type>.py).
enum class HfFamily : std::uint8_t { llama, gpt2, neox, opt, falcon, gptj, phi, bloom, chatglm };

// What importHfFields reads a config.json with: its values by key, the notices and errors it gives, and the
// assignments it makes, in the order it makes them.
struct HfReader {
    std::span<const HfValue> fields;
    HfImport& out;
    std::vector<Assignment>& assignments;

    const HfValue* find(const char* name) const { return findHfValue(fields, name); }
    std::string text(const char* name, const std::string& fallback) const;
    bool boolean(const char* name, bool fallback) const;
    static double numberOf(const HfValue& v);
    // One field from the first of its spellings present; a required size that is missing is an error.
    std::optional<double> number(std::initializer_list<const char*> names, const char* field, bool required);
    void set(const char* field, std::string text) { assignments.push_back({field, std::move(text)}); }
    void flag(const char* field, bool value) { set(field, value ? "true" : "false"); }
};

// The layer shape of `family`: its sizes, heads, MLP, positions, norms and biases by the family's own spellings
// (formats/hf_families.cpp). listed: the model type has rules of its own in kHfModelTypes.
void readFamilyShape(HfReader& r, HfFamily family, const std::string& type, bool listed);

// A name fit for the `name` field or a notice: control characters dropped, cut to whole UTF-8 characters.
std::string displayName(std::string_view text);

// A multimodal wrapper's language model (text_config) into textModel, with the wrapper's values it leaves out and a
// notice; false (textModel untouched) for a file with no text_config object (formats/hf_layers.cpp).
bool textModelOf(std::span<const HfValue> given, std::vector<HfValue>& textModel, HfImport& out);
// sliding_window, full_attention_every from the model type's attention pattern (formats/hf_layers.cpp).
void readAttentionPattern(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments);
void readLinearAttention(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments);
// Llama 4's interleaved MoE layers (interleave_moe_layer_step, moe_layers) as moe_layer_freq and first_dense_layers.
void readLlama4MoeLayers(std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments);
// vision_params from a Qwen2-VL or Qwen2.5-VL vision_config (0 for every other model: the tower is named, not counted).
void readVisionTower(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments);
// Nemotron-H's blocks as layer_pattern and its Mamba-2 sizes; other types keep the reset architecture's empty pattern
// (formats/hf_hybrid.cpp).
void readHybridStack(const std::string& type, std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments);
// A notice for each hybrid or sparse-attention key that the model type's rules do not read.
void nameUnreadLayouts(const std::string& type, std::span<const HfValue> fields, HfImport& out);
// weight_dtype, quant_group from quantization_config or the dtype the checkpoint was saved in.
void readWeightFormat(std::span<const HfValue> fields, HfImport& out, std::vector<Assignment>& assignments);

// A config.json's top-level values through importHfFields, its architecture fields (and method) as assignments.
void importHf(const ImportInput& input, Mapping& m);

}  // namespace membudget::detail
