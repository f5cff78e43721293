// The columns of what the model topic gives the page and `membudget fields` / `presets` (membudget/base/record.hpp):
// a parsed configuration, a field of the table, a model preset and a GPU preset.
#include "membudget/base/record.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"

namespace membudget {

namespace {

using record::as;
using record::computed;
using record::member;

constexpr Column kParsedColumns[] = {
    member<&ParsedConfig::config>("config", RECORD_JSON("config"), {.kind = CellKind::config}),
    member<&ParsedConfig::problems>(
        "problems", RECORD_JSON("problems"),
        {.child = &kProblemRecord, .doc = RECORD_DOC("Unknown keys and malformed values, which were skipped.")}),
    member<&ParsedConfig::notices>(
        "notices", RECORD_JSON("notices"),
        {.child = &kProblemRecord, .doc = RECORD_DOC("What the engine chose for the user (mode = inference selects method membudget).")}),
};

// A number's bounds only for the number kinds; the allowed values and the choices only where a field has them.
// `applies` only the JSON writes: the wasm's table leaves it out, and the columns after it move up one.
#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
constexpr std::uint8_t kFieldApplies = 1;
#else
constexpr std::uint8_t kFieldApplies = 0;
#endif
constexpr std::uint8_t kFieldNumeric = 10 + kFieldApplies, kFieldAllowed = 15 + kFieldApplies, kFieldChoices = 16 + kFieldApplies;
constexpr Column kFieldColumns[] = {
    member<&FieldSpec::key>("key", RECORD_JSON("key"), {.flags = kFieldKey}),
    member<&FieldSpec::label>("label", RECORD_JSON("label")),
    member<&FieldSpec::group>("group", RECORD_JSON("group")),
    member<&FieldSpec::kind>("kind", RECORD_JSON("kind")),
    computed("defaultText", RECORD_JSON("default"), CellKind::text,
             [](const void* r, Cell& c) { c.text = c.owned = fieldText(Config{}, as<FieldSpec>(r)); }),
    computed("range", RECORD_JSON("range"), CellKind::text,
             [](const void* r, Cell& c) { c.text = c.owned = describeRange(as<FieldSpec>(r)); }),
    member<&FieldSpec::unit>("unit", RECORD_JSON("unit")),
    member<&FieldSpec::help>(
        "help", RECORD_JSON("help"),
        {.doc = RECORD_DOC("Empty in the page's module, which leaves the text out: web/src/generated/field-text.ts holds it.")}),
    member<&FieldSpec::section>("section", RECORD_JSON("section")),
#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
    computed("applies", RECORD_JSON("applies"), CellKind::text,
             [](const void* r, Cell& c) { c.text = c.owned = appliesText(as<FieldSpec>(r).applies); }, {.flags = kJsonOnly}),
#endif
    member<&FieldSpec::essential>(
        "essential", RECORD_JSON("essential"),
        {.doc = RECORD_DOC("The field's place among the essentials the form shows first (1: first); 0: not one.")}),
    computed("numeric", RECORD_JSON(""), CellKind::flag,
             [](const void* r, Cell& c) {
                 const FieldKind kind = as<FieldSpec>(r).kind;
                 c.number = kind == FieldKind::integer || kind == FieldKind::number;
             },
             {.flags = kHidden}),
    member<&FieldSpec::min>("min", RECORD_JSON("min"), {.flags = kOmitIfAbsent, .presentIf = kFieldNumeric}),
    member<&FieldSpec::max>("max", RECORD_JSON("max"), {.flags = kOmitIfAbsent, .presentIf = kFieldNumeric}),
    member<&FieldSpec::zeroMeansAuto>("zeroMeansAuto", RECORD_JSON("zero_means_auto"),
                                      {.flags = kOmitIfAbsent, .presentIf = kFieldNumeric}),
    member<&FieldSpec::autoMeaning>("autoMeaning", RECORD_JSON(""), {.flags = kPageOnly}),
    member<&FieldSpec::allowed>("allowed", RECORD_JSON("allowed"), {.flags = kOmitIfAbsent, .presentIf = kFieldAllowed}),
    computed("choices", RECORD_JSON("choices"), CellKind::texts,
             [](const void* r, Cell& c) {
                 const auto ids = as<FieldSpec>(r).choices();
                 c.texts.assign(ids.begin(), ids.end());
             },
             {.flags = kOmitIfAbsent, .presentIf = kFieldChoices}),
};
static_assert(record::at(kFieldColumns, "numeric") == kFieldNumeric && record::at(kFieldColumns, "allowed") == kFieldAllowed &&
              record::at(kFieldColumns, "choices") == kFieldChoices);

// The columns only `membudget presets` writes come last, and the wasm's tables leave them out (no column's index moves).
constexpr Column kModelPresetColumns[] = {
    member<&ModelPreset::id>("id", RECORD_JSON("id")),
    member<&ModelPreset::label>("label", RECORD_JSON("label")),
    member<&ModelPreset::family>("family", RECORD_JSON("family"),
                                 {.doc = RECORD_DOC("The picker's group: Llama, Qwen, DeepSeek, Kimi, Mistral, Gemma, gpt-oss, Phi, OLMo, "
                                                    "early open models, the chapter and papers.")}),
    computed("parameterCount", RECORD_JSON("parameter_count"), CellKind::number,
             [](const void* r, Cell& c) {
                 const ModelPreset& p = as<ModelPreset>(r);
                 Config config;
                 applyModelPreset(config, p);
                 c.number = p.params != 0 ? p.params : derivedParameterCount(config);
             }),
#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
    member<&ModelPreset::contextWindow>("contextWindow", RECORD_JSON("context_window"), {.flags = kJsonOnly}),
    member<&ModelPreset::weightDtype>("weightDtype", RECORD_JSON("weight_dtype"), {.flags = kJsonOnly}),
    member<&ModelPreset::expertWeightDtype>("expertWeightDtype", RECORD_JSON("expert_weight_dtype"), {.flags = kJsonOnly}),
    member<&ModelPreset::source>("source", RECORD_JSON("source"), {.flags = kJsonOnly}),
#endif
};

constexpr Column kGpuPresetColumns[] = {
    member<&GpuPreset::id>("id", RECORD_JSON("id")),
    member<&GpuPreset::label>("label", RECORD_JSON("label")),
    member<&GpuPreset::capacityBytes>("capacityBytes", RECORD_JSON("capacity_bytes"),
                                      {.doc = RECORD_DOC("What the device reports as total memory, not the marketing figure.")}),
    member<&GpuPreset::source>("source", RECORD_JSON("source")),
#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
    member<&GpuPreset::peakTflops>("peakTflops", RECORD_JSON("peak_tflops"), {.flags = kJsonOnly}),
    member<&GpuPreset::fp8Tflops>("fp8Tflops", RECORD_JSON("fp8_tflops"), {.flags = kJsonOnly}),
    member<&GpuPreset::matmulEfficiency>("matmulEfficiency", RECORD_JSON("matmul_efficiency"), {.flags = kJsonOnly}),
    member<&GpuPreset::hbmTbps>("hbmTbps", RECORD_JSON("hbm_tbps"), {.flags = kJsonOnly}),
    member<&GpuPreset::nvlinkGbps>("nvlinkGbps", RECORD_JSON("nvlink_gbps"), {.flags = kJsonOnly}),
    member<&GpuPreset::networkGbps>("networkGbps", RECORD_JSON("network_gbps"), {.flags = kJsonOnly}),
    member<&GpuPreset::speedSource>("speedSource", RECORD_JSON("speed_source"), {.flags = kJsonOnly}),
#endif
};

#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
// An input the page hands the importers and the measured-file reader; no wasm walks it (engine/src/plan/request_records.cpp's note).
constexpr Column kJsonValueColumns[] = {
    member<&JsonValue::key>("key", RECORD_JSON("key")),
    member<&JsonValue::type>("type", RECORD_JSON("type"),
                             {.doc = RECORD_DOC("Its JSON type: number, string, boolean, null, array, object.")}),
    member<&JsonValue::text>("text", RECORD_JSON("text")),
};
#endif

}  // namespace

#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
constinit const RecordTable kJsonValueRecord{RECORD_NAME("HfValue"), kJsonValueColumns, kAlways, kAlways,
                                             RECORD_DOC("One value of a JSON document by its path: key, JSON type and text.")};
#endif
constinit const RecordTable kParsedConfigRecord{RECORD_NAME("ParsedConfig"), kParsedColumns, kAlways, kAlways,
                                                RECORD_DOC("A configuration read from text, with what was skipped and what was chosen.")};
constinit const RecordTable kFieldRecord{RECORD_NAME("Field"), kFieldColumns, kAlways, kAlways,
                                         RECORD_DOC("One key of the configuration: its kind, range, meaning of 0, help and source.")};
constinit const RecordTable kModelPresetRecord{RECORD_NAME("ModelPreset"), kModelPresetColumns};
constinit const RecordTable kGpuPresetRecord{RECORD_NAME("GpuPreset"), kGpuPresetColumns};

}  // namespace membudget
