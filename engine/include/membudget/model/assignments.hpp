// Assignments: key = text pairs from any source (a query, a JSON object, an import) applied to a configuration
// in one order, with what could not be read reported by key.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/problem.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// Resets every architecture field (group model) but `model` to the custom model's defaults: what an import
// starts from, so that what one config.json leaves unset never comes from the model before it.
void resetArchitecture(Config& config);

struct Assignment {
    std::string key;
    std::string text;
};

// Assignments read from one source (a query, a JSON object), with what could not be read from it:
// malformed parameters and keys given twice (the last one wins).
struct AssignmentList {
    std::vector<Assignment> assignments;
    std::vector<Problem> problems;
};

struct ParsedConfig {
    Config config;
    std::vector<Problem> problems;  // unknown keys and malformed values, which were skipped
    std::vector<Problem> notices;   // what the engine chose for the user (mode = inference selects method membudget)
};
extern const RecordTable kParsedConfigRecord;

// Reports every key given more than once and keeps only its last assignment.
std::vector<Problem> duplicateKeys(std::vector<Assignment>& assignments);

// Applies key=text assignments in order on top of `base`: the model and GPU presets first (so that
// explicit architecture or capacity keys override them whatever their order), then every other key,
// a later assignment of a key overriding an earlier one.
ParsedConfig applyAssignments(std::span<const Assignment> assignments, Config base = Config{});

// The configuration a preset choice implies: the defaults with config.model's and config.gpu's presets
// applied. The query codec writes only the fields that differ from it.
Config presetBaseline(const Config& config);

// One value of a JSON document as the engine reads it, whatever parsed it (nlohmann/json in the CLI, JSON.parse
// on the page): its key or path, its JSON type (number, string, boolean, null, array, object) and its text
// (numbers as shortest decimals; an array's first string element; objects empty).
struct JsonValue {
    std::string key;
    std::string type;
    std::string text;
};
// An input (the page's HfValue), as PlanRequest's table.
extern const RecordTable kJsonValueRecord;

// One configuration key's JSON value, type-checked as the field's kind wants it (numbers for integer and number
// fields, true/false for booleans, strings for choices and text): an assignment, or a problem naming the key.
// An unknown key becomes an assignment that applyAssignments reports.
void assignJsonValue(const JsonValue& value, AssignmentList& out);

// "a number", "an object", "null": a JSON type as messages name it.
std::string jsonTypeWords(std::string_view type);

}  // namespace membudget
