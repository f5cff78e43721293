// The JSON form of configurations and results: the CLI's `eval` format, the page's JSON export.
// Kept apart from the core so that the engine itself depends on nothing but the standard library.
#pragma once

#include <string>
#include <string_view>

#include "membudget/config.hpp"
#include "membudget/ledger.hpp"

namespace membudget {

// A JSON object of field keys to values of the field's JSON type (numbers for integer and number
// fields, true/false, strings for choices). Invalid JSON, a non-object, a wrong type or a key given
// twice comes back as a Problem.
AssignmentList parseJsonConfig(std::string_view text);

// Every field of the configuration, in canonical order.
std::string configToJson(const Config& config, int indent = 2);

// {method, parameter_count, lines: [{id, label, formula, substituted, bytes, note}], total_bytes,
//  capacity_bytes, usable_bytes, verdict, warnings: [{field, message}], errors: [{field, message}],
//  query, config}; a result with errors has only method, errors and config.
std::string resultToJson(const Result& result, const Config& config, int indent = 2);

// compareMethods() as {query, methods: [{method, lines, total_bytes, source_bytes, verdict, peak_stage,
// warnings} or {method, errors}]}.
std::string compareToJson(const std::vector<MethodColumn>& columns, const Config& config, int indent = 2);

// A Hugging Face config.json as text: parsed here, mapped by importHfFields (config.hpp).
HfImport importHfConfig(std::string_view text, const Config& base = Config{});

// The field table and the presets, for tools that build forms or completions from them.
std::string fieldsToJson(int indent = 2);
std::string presetsToJson(int indent = 2);

}  // namespace membudget
