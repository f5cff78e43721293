// The functions wasm/bindings.cpp registers: the engine's calls with their results turned into the value objects
// and JS arrays of wasm/glue.hpp. No registration here, and no logic of the engine's own.
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "glue.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/evaluate/field_states.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/formats/launch.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/memory/methods.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget::wasm {

namespace {

template <typename Range>
val toArray(const Range& items) {
    val array = val::array();
    for (const auto& item : items) array.call<void>("push", val(item));
    return array;
}

}  // namespace

val evaluateConfig(const Config& config) { return recordVal(evaluate(config), kResultRecord); }

val compareConfig(const Config& config) { return recordsVal(compareMethods(config), kMethodColumnRecord); }

std::string reasonFor(const std::string& method, const std::string& lineId) {
    const auto id = parseChoice<Method>(method);
    const auto line = parseChoice<LineId>(lineId);
    return id && line ? differenceReason(*id, *line) : std::string();
}

val measurableLinesOf(const Config& config) { return recordsVal(measurableLines(config), kLineRecord); }

val validTp(const Config& config) { return toArray(validTensorParallel(config)); }

val validateConfig(const Config& config) { return recordsVal(validate(config), kProblemRecord); }

val decode(const std::string& query) { return recordVal(decodeQuery(query), kParsedConfigRecord); }

val applyQueryTo(const Config& base, const std::string& query) { return recordVal(applyQuery(base, query), kParsedConfigRecord); }

val setField(const Config& config, const std::string& key, const std::string& text) {
    const std::vector<Assignment> assignment{{key, text}};
    return recordVal(applyAssignments(assignment, config), kParsedConfigRecord);
}

// One string, not an object of 94 properties: each property set from wasm costs two strings through embind, which
// made this call a tenth of a field change. Key and text are separated by U+001E and fields by U+001F, characters
// no field's text can hold (fieldTextProblem refuses control characters); web/src/engine.ts splits it.
std::string fieldTexts(const Config& config) {
    std::string out;
    out.reserve(2048);
    for (const auto& field : fields()) {
        if (!out.empty()) out += '\x1f';
        out += field.key;
        out += '\x1e';
        out += fieldText(config, field);
    }
    return out;
}

val fieldStatesOf(const Config& config) { return recordVal(membudget::fieldStates(config), kFieldStatesRecord); }

// What the page shows for one configuration in one call: the ledger, every field's text and the fields' states.
// Each call takes the configuration's 94 fields across the boundary one by one (embind's value_object), which cost as
// much as computing the texts: one crossing instead of three on every field change.
val pageView(const Config& config) {
    val out = val::object();
    out.set("result", evaluateConfig(config));
    out.set("texts", fieldTexts(config));
    out.set("states", fieldStatesOf(config));
    return out;
}

val fieldTable() { return recordsVal(fields(), kFieldRecord); }

val modelPresetList() { return recordsVal(modelPresets(), kModelPresetRecord); }

val gpuPresetList() { return recordsVal(gpuPresets(), kGpuPresetRecord); }

Config defaultConfig() { return Config{}; }

val formatList() { return recordsVal(formatInfos(), kFormatInfoRecord); }

PlanRequest defaultPlanRequest() { return PlanRequest{}; }

#ifdef MEMBUDGET_WASM_PLANNER
namespace {

// Plan rows cross as one Float64Array of planColumns().size() numbers each, in the columns' order (the page
// decodes them with planRowColumns()): a value_object of 21 fields and its vector would cost the wasm more than
// the whole planner.
std::vector<PlanRow> rowsFromArray(const val& array) {
    const auto columns = planColumns();
    const std::vector<double> flat = emscripten::convertJSArrayToNumberVector<double>(array);
    std::vector<PlanRow> rows(flat.size() / columns.size());
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t k = 0; k < columns.size(); ++k) columns[k].set(rows[i], flat[i * columns.size() + k]);
    return rows;
}

val rowsToArray(const std::vector<PlanRow>& rows) {
    const auto columns = planColumns();
    std::vector<double> flat;
    flat.reserve(rows.size() * columns.size());
    for (const auto& row : rows)
        for (const PlanColumn& column : columns) flat.push_back(column.get(row));
    return val::global("Float64Array").new_(val(emscripten::typed_memory_view(flat.size(), flat.data())));
}

}  // namespace

val planServingObject(const ServingPlanRequest& request) { return recordVal(planServing(request), kServingPlanRecord); }

val planServingEachGpuList(const ServingPlanRequest& request) { return recordsVal(planServingEachGpu(request), kGpuServingPlanRecord); }

Config planRowConfigOf(const Config& base, const val& row) {
    const std::vector<PlanRow> rows = rowsFromArray(row);
    return rows.empty() ? base : planRowConfig(base, rows.front());
}

// The columns as the page reads them: its PlanRow key, the kind, and a choice's ids by number.
val planRowColumns() {
    val out = val::array();
    for (const PlanColumn& column : planColumns()) {
        val item = val::object();
        item.set("key", std::string(column.pageKey));
        item.set("kind", std::string(column.kind == PlanColumnKind::boolean  ? "boolean"
                                     : column.kind == PlanColumnKind::choice ? "choice"
                                                                             : "number"));
        val choices = val::array();
        for (const std::string_view id : column.choices) choices.call<void>("push", std::string(id));
        item.set("choices", choices);
        out.call<void>("push", item);
    }
    return out;
}

// The page parses the config.json with JSON.parse and hands over its top-level values: no JSON parser
// in the wasm (it would cost 14 KB gzipped), the same mapping as the CLI's.
val importFields(const Config& base, const std::string& rootType, const val& fields) {
    const std::vector<HfValue> values = emscripten::vecFromJSArray<HfValue>(fields);
    return recordVal(importHfFields(rootType, values, base), kHfImportRecord);
}

std::string detectFormat(const std::string& text) { return std::string(toString(detectImportFormat(text))); }

std::string unrecognised(const std::string& subject) { return unrecognisedImport(subject); }

std::string syntaxOf(const std::string& format, const std::string& text) {
    const auto f = parseChoice<ImportFormat>(format);
    return f ? std::string(toString(importSyntax(*f, text))) : std::string();
}

// A framework's configuration, parsed on the page (JSON.parse, smol-toml, yaml, shell-quote: web/src/import-parse.ts)
// and mapped here by the CLI's mapping, then applied over `base` (a DeepSpeed config keeps the model).
val importConfiguration(const Config& base, const std::string& format, const std::string& rootType, const std::string& error,
                        const val& values, const val& lines) {
    const auto f = parseChoice<ImportFormat>(format);
    if (!f) {
        ImportResult refused;
        refused.errors = {{"format", "format must be one of megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang, trtllm; got \"" +
                                         format + "\""}};
        return recordVal(AppliedImport{refused, base, {}, {}}, kAppliedImportRecord);
    }
    ImportInput input;
    input.format = *f;
    input.rootType = rootType;
    input.error = error;
    input.values = emscripten::vecFromJSArray<JsonValue>(values);
    const size_t lineCount = lines["length"].as<size_t>();
    for (size_t i = 0; i < lineCount; ++i) input.lines.push_back(emscripten::vecFromJSArray<std::string>(lines[i]));
    return recordVal(applyImport(base, importConfig(input)), kAppliedImportRecord);
}

val exportConfiguration(const Config& config, const std::string& format) {
    const auto f = parseChoice<ImportFormat>(format);
    return recordVal(f ? exportConfig(*f, config) : ExportResult{}, kExportResultRecord);
}

val adviseConfig(const Config& config) { return recordsVal(advise(config), kAdviceRecord); }

val readMeasured(const std::string& rootType, const val& values, const std::string& invalidReason) {
    return recordVal(readMeasuredRun(rootType, emscripten::vecFromJSArray<JsonValue>(values), invalidReason), kMeasuredReadRecord);
}

val planSlice(const PlanRequest& request) {
    const PlanResult r = plan(request);
    val out = val::object();
    out.set("rows", rowsToArray(r.rows));
    out.set("layouts", r.layouts);
    out.set("candidates", r.candidates);
    out.set("evaluated", r.evaluated);
    out.set("pruned", r.pruned);
    out.set("fitting", r.fitting);
    out.set("dropped", r.dropped);
    out.set("recommendedIndex", r.recommended.index);
    out.set("recommendedReason", r.recommended.reason);
    out.set("errors", recordsVal(r.errors, kProblemRecord));
    return out;
}

// The same job on every GPU preset (planEachGpu): per GPU its id, name, capacity, counts, the recommended row (a
// flat row, empty where nothing fits), why, and its errors.
val planEachGpuList(const PlanRequest& request) {
    val out = val::array();
    for (const GpuPlan& gpu : planEachGpu(request)) {
        const PlanResult& r = gpu.plan;
        val item = val::object();
        item.set("gpu", gpu.gpu);
        item.set("label", gpu.label);
        item.set("capacityBytes", gpu.capacityBytes);
        item.set("fitting", r.fitting);
        item.set("evaluated", r.evaluated);
        item.set("rows", rowsToArray(r.rows));
        item.set("recommendedReason", r.recommended.reason);
        item.set("errors", recordsVal(r.errors, kProblemRecord));
        out.call<void>("push", item);
    }
    return out;
}

// Joins a plan's slices: the Pareto front marked again, cut to maxRows with the fastest row kept, and the
// recommended row named (finishPlanRows).
val finishPlan(const val& rows, double maxRows) {
    std::vector<PlanRow> list = rowsFromArray(rows);
    const Recommendation recommended = finishPlanRows(list, maxRows);
    val out = val::object();
    out.set("rows", rowsToArray(list));
    out.set("recommendedIndex", recommended.index);
    out.set("recommendedReason", recommended.reason);
    return out;
}

#endif

}  // namespace membudget::wasm
