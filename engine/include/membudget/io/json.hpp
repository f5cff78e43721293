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
struct FlatJson {
    std::string rootType;
    std::string error;
    std::vector<JsonValue> values;
};
FlatJson flattenJson(std::string_view text);

// `membudget compare-measured FILE`: a run measured by tools/measure/measure.py (its text) read and compared
// with the prediction for the configuration it ran (readMeasuredFile, compareMeasured); measuredComparisonToJson
// (json_write.hpp) writes the comparison.
MeasuredComparison compareMeasured(std::string_view text);

}  // namespace membudget
