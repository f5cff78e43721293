// Reading the JSON form of configurations: the CLI's `eval` format, a Hugging Face config.json, a measured run,
// and any JSON document as the engine's readers take it. The JSON written back (results, plans, comparisons) is
// json_write.hpp's. Kept apart from the core so that the engine itself depends on nothing but the standard library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "membudget/formats/hf.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// A JSON object of field keys to values of the field's JSON type (numbers for integer and number
// fields, true/false, strings for choices). Invalid JSON, a non-object, a wrong type or a key given
// twice comes back as a Problem.
AssignmentList parseJsonConfig(std::string_view text);

// A Hugging Face config.json as text: parsed here, mapped by importHfFields (formats/hf.hpp).
HfImport importHfConfig(std::string_view text, const Config& base = Config{});

// A JSON document as the engine's readers take it (measured.hpp): every value with its path ("config.tp",
// "phases[0].step"), in document order. false when the text is not JSON (rootType "invalid", the parser's reason
// in `error`) or nests deeper than 32 levels.
// A flattened document is bounded by its output, not its input: a long key repeated under many values makes
// every path copy it (issue 29's 140 KB JSON that ran out of memory). Past either limit the reader stops with an
// error naming it; the CLI's TOML and YAML readers keep the same limits.
inline constexpr size_t kMaxFlatValues = 200000;
inline constexpr size_t kMaxFlatBytes = 64ull << 20;  // 64 MiB of paths and values
struct FlatJson {
    std::string rootType;
    std::string error;
    std::vector<JsonValue> values;
    size_t bytes = 0;  // the paths' and texts' bytes so far
};
FlatJson flattenJson(std::string_view text);

// `membudget compare-measured FILE`: a run measured by tools/measure/measure.py (its text) read and compared
// with the prediction for the configuration it ran (readMeasuredFile, compareMeasured); measuredComparisonToJson
// (json_write.hpp) writes the comparison.
MeasuredComparison compareMeasured(std::string_view text);

}  // namespace membudget
