// The field table: every key of the configuration with its kind, range, meaning of 0, help and source.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

enum class FieldKind { integer, number, boolean, choice, text };
template <>
struct ChoiceNames<FieldKind> {
    static constexpr std::array<std::string_view, 5> names{"integer", "number", "boolean", "choice", "text"};
};

// Longest text of a text field (characters).
inline constexpr size_t kMaxTextLength = 100;

// A choice field held as an enum: read and written by its id. Every choice enum is a std::uint8_t, so the
// per-enum code is a byte's load and store; the ids are looked up once, here, for all of them (issue 31: the 21
// enums' own lookups were 0.3 KB gzipped of the page's module).
struct ChoiceField {
    std::uint8_t (*index)(const Config&);         // the enumerator's index
    void (*store)(Config&, std::uint8_t index);   // stores the enumerator of that index
    std::span<const std::string_view> names;      // ChoiceNames<E>::names: the ids by index
    std::string_view get(const Config& c) const;  // "" for a value outside the enum
    // An id the enum does not have stores a value no id names (validate() refuses it by the field's name) and
    // returns false: what the wasm boundary does with an unknown id from JavaScript.
    bool set(Config& c, std::string_view id) const;
};

// When a field means something: every flag of FieldSpec::applies must hold (none: always). The page hides a field
// that does not apply; docs/cli.md's key table says when each applies.
enum class Applies : std::uint8_t {
    always = 0,
    moe = 1,               // a MoE model (experts > 0)
    mla = 2,               // multi-head latent attention (kv_lora_rank > 0)
    adapters = 4,          // LoRA or QLoRA (finetune ≠ full)
    training = 8,          // mode = training
    inference = 16,        // mode = inference
    membudgetMethod = 32,  // method = membudget (the framework-aware model)
    mamba = 64,            // a hybrid stack with Mamba-2 blocks (layer_pattern holds an M)
};
constexpr Applies operator|(Applies a, Applies b) { return static_cast<Applies>(static_cast<unsigned>(a) | static_cast<unsigned>(b)); }

using FieldMember = std::variant<double Config::*, bool Config::*, std::string Config::*, ChoiceField>;

struct FieldSpec {
    std::string_view key;    // the one name used in JSON, `--key` and `?key=`
    std::string_view label;  // for tables and forms
    std::string_view group;  // model, parallelism, training, hardware, method
    FieldKind kind;
    FieldMember member;
    double min = 0;  // inclusive range for integer and number fields
    double max = 0;
    bool zeroMeansAuto = false;       // 0 is allowed outside [min, max] and means autoMeaning
    std::string_view autoMeaning;     // what 0 stands for
    std::span<const double> allowed;  // a fixed set of values for an integer field (empty: any in range)
    // The ids of a choice field, behind a function so that the table stays constant data (the presets' ids are
    // another translation unit's); read them with choices().
    std::span<const std::string_view> (*choiceIds)() = nullptr;
    std::string_view unit;
    std::string_view help;
    std::string_view section;  // where the field's meaning comes from
    Applies applies = Applies::always;
    // The label where the field means something else in inference (mb: the sequences decoded together); empty: label.
    std::string_view inferenceLabel;
    // The field's place among the essentials, what most people set before anything else (1: first); 0: not one.
    // The page's form shows them first, in this order, and the other fields by group in table order.
    std::uint8_t essential = 0;

    // The ids of a choice field (none for the other kinds).
    std::span<const std::string_view> choices() const { return choiceIds ? choiceIds() : std::span<const std::string_view>(); }
};

// A field as `membudget fields` writes it and the page's form reads it (Field).
extern const RecordTable kFieldRecord;

// The field table, in canonical order (the order of URL queries, CLI help and the form).
std::span<const FieldSpec> fields();
const FieldSpec* findField(std::string_view key);

// The allowed values of a field in words, as every error message states them.
std::string describeRange(const FieldSpec& field);

// Whether a field means something for this configuration (FieldSpec::applies), and when it does, in words
// ("" for always).
bool fieldApplies(const FieldSpec& field, const Config& config);
std::string appliesText(Applies applies);

// The field's label in this configuration (FieldSpec::inferenceLabel in inference mode).
std::string_view fieldLabel(const FieldSpec& field, const Config& config);

// The number a 0 stands for in this configuration, where the field derives one (head_dim: hidden / heads, gpus:
// the world size, first_stage_layers: the even split's); nothing where 0 names a mode (experts: a dense model) or
// the configuration cannot say (a value out of range).
std::optional<double> autoValue(const FieldSpec& field, const Config& config);

// The value of one field as canonical text: shortest round-trip decimal for numbers, true/false, ids.
std::string fieldText(const Config& config, const FieldSpec& field);

// A choice field (enum or preset id) by its id: read, and written (false when the id is not one of its choices).
std::string_view choiceText(const Config& config, const FieldSpec& field);
bool setChoiceText(Config& config, const FieldSpec& field, std::string_view id);

// Whether a number is in a field's range (integral for an integer field, 0 where it means auto, one of the
// allowed values where the field lists them).
bool inFieldRange(const FieldSpec& field, double value);

// What is wrong with a text field's value (a control character, or too long), or nothing.
std::optional<std::string> fieldTextProblem(const FieldSpec& field, std::string_view text);

// Sets one field from text (a query value, a CLI flag). Type errors ("abc" for an integer, NaN,
// Infinity, an unknown choice) come back as a Problem and leave the field unchanged; range and
// consistency are checked by validate().
std::vector<Problem> setFieldText(Config& config, const FieldSpec& field, std::string_view text);

}  // namespace membudget
