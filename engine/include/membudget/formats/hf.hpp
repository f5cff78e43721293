// A Hugging Face config.json read onto the architecture fields.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// A Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2, DeepSeek-V3, GPT-2, GPT-NeoX styles) mapped onto
// the architecture fields of `base`, with model = custom, params = 0 (derived) and method = membudget.
// `errors`: not a config (invalid JSON, not an object, a size missing or not a number); `notices`: fields
// that change memory but that membudget cannot model yet (experts, MLA), each named. With errors, config
// is `base`.
struct HfImport {
    Config config;
    std::vector<Problem> errors;
    std::vector<Problem> notices;
};
extern const RecordTable kHfImportRecord;

using HfValue = JsonValue;  // a config.json's values by path (flattenJson's)

// rootType: "object", another JSON type name, or "invalid" when the text did not parse. fields: the document's
// values by path; the mapping reads the top level, one level down and layer_types' elements.
HfImport importHfFields(std::string_view rootType, std::span<const HfValue> fields, const Config& base = Config{});

}  // namespace membudget
