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

val toArray(std::span<const std::string_view> ids) {
    val array = val::array();
    for (const std::string_view id : ids) array.call<void>("push", std::string(id));
    return array;
}

// The step-time estimate as the page reads it: null when there is none; parts keyed by their ids (steptime.hpp).
val stepTimeObject(const StepTime& st) {
    if (!st.estimated) return val::null();
    val out = val::object();
    out.set("stepSeconds", st.stepSeconds);
    out.set("tokensPerSecondPerGpu", st.tokensPerSecondPerGpu);
    out.set("mfu", st.mfu);
    out.set("bubbleFraction", st.bubbleFraction);
    out.set("modelFlopsPerToken", st.modelFlopsPerToken);
    out.set("tokensPerStep", st.tokensPerStep);
    out.set("runSteps", st.runSteps);
    out.set("runSeconds", st.runSeconds);
    out.set("runGpuHours", st.runGpuHours);
    out.set("runCostUsd", st.runCostUsd);
    val parts = val::array();
    for (const StepPartText& text : stepPartTexts()) {
        val part = val::object();
        part.set("id", std::string(text.id));
        part.set("label", std::string(text.label));
        part.set("formula", std::string(text.formula));
        part.set("seconds", st.partSeconds[static_cast<size_t>(text.part)]);
        parts.call<void>("push", part);
    }
    out.set("parts", parts);
    out.set("assumptions", std::string(stepTimeAssumptions()));
    return out;
}

// The serving estimate as the page reads it: null when there is none; the parts keyed by their ids (serving.hpp).
val servingTimeObject(const ServingTime& sv) {
    if (!sv.estimated) return val::null();
    val out = val::object();
    out.set("inputTokens", sv.inputTokens);
    out.set("outputTokens", sv.outputTokens);
    out.set("lengthsAssumed", sv.lengthsAssumed);
    out.set("concurrency", sv.concurrency);
    out.set("ttftSeconds", sv.ttftSeconds);
    out.set("tpotSeconds", sv.tpotSeconds);
    out.set("requestSeconds", sv.requestSeconds);
    out.set("outputTokensPerSecondPerReplica", sv.outputTokensPerSecondPerReplica);
    out.set("outputTokensPerSecondPerGpu", sv.outputTokensPerSecondPerGpu);
    out.set("requestsPerSecondPerReplica", sv.requestsPerSecondPerReplica);
    out.set("gpusPerReplica", sv.gpusPerReplica);
    out.set("expertsReadPerLayer", sv.expertsReadPerLayer);
    out.set("computeBound", sv.computeBound);
    out.set("cudaGraphs", sv.cudaGraphs);
    auto parts = [](std::span<const ServingPartText> texts, const auto& seconds) {
        val list = val::array();
        for (size_t i = 0; i < texts.size(); ++i) {
            val part = val::object();
            part.set("id", std::string(texts[i].id));
            part.set("label", std::string(texts[i].label));
            part.set("formula", std::string(texts[i].formula));
            part.set("seconds", seconds[i]);
            list.call<void>("push", part);
        }
        return list;
    };
    out.set("decodeParts", parts(decodePartTexts(), sv.decodeSeconds));
    out.set("prefillParts", parts(prefillPartTexts(), sv.prefillSeconds));
    out.set("rooflineTtftSeconds", sv.rooflineTtftSeconds);
    out.set("rooflineTpotSeconds", sv.rooflineTpotSeconds);
    out.set("rooflineOutputTokensPerSecondPerGpu", sv.rooflineOutputTokensPerSecondPerGpu);
    out.set("assumptions", std::string(servingAssumptions()));
    return out;
}

val errorBandObject(const ErrorBand& band) {
    val out = val::object();
    out.set("validated", band.validated);
    out.set("lowError", band.lowError);
    out.set("highError", band.highError);
    out.set("runs", band.runs);
    out.set("framework", std::string(band.family.framework));
    val features = val::array();
    for (const auto& name : featureNames(band.family.features)) features.call<void>("push", name);
    out.set("features", features);
    out.set("text", band.text);
    return out;
}

WasmResult toWasm(const Result& r) {
    val stages = val::array();
    for (const auto& s : r.stages)
        stages.call<void>("push", val(WasmStage{s.index, s.layers, s.inFlightMicrobatches, s.totalBytes, toArray(s.lineBytes),
                                                s.parametersPerGpu, s.modelParameters, s.reservedBytes}));
    return {std::string(toString(r.method)),
            toArray(r.lines),
            r.parameterCount,
            r.totalBytes,
            r.capacityBytes,
            r.usableBytes,
            std::string(toString(r.verdict)),
            toArray(r.warnings),
            toArray(r.errors),
            stages,
            r.peakStage,
            toArray(r.tensors),
            toArray(r.phases),
            std::string(toString(r.peakPhase)),
            r.cpuBytesPerNode,
            r.maxSequences,
            r.maxContextTokens,
            r.activeParameterCount,
            toArray(r.cpuLines),
            r.reservedBytes,
            stepTimeObject(r.stepTime),
            errorBandObject(r.errorBand),
            servingTimeObject(r.servingTime)};
}

WasmParsed toWasm(const ParsedConfig& parsed) { return {parsed.config, toArray(parsed.problems), toArray(parsed.notices)}; }

// What the page calls each format, and whether membudget writes it (exportConfig writes no config.json: the Hub's
// own file is the source). A format added to the engine without a line here does not compile (-Wswitch).
struct FormatText {
    std::string_view label;
    bool exports = false;
};

FormatText formatText(ImportFormat format) {
    switch (format) {
        case ImportFormat::megatron:
            return {"Megatron-LM flags", true};
        case ImportFormat::torchtitan:
            return {"torchtitan TOML", true};
        case ImportFormat::torchtune:
            return {"torchtune YAML / tune run", true};
        case ImportFormat::deepspeed:
            return {"DeepSpeed JSON", true};
        case ImportFormat::hf:
            return {"Hugging Face config.json", false};
        case ImportFormat::vllm:
            return {"vllm serve", true};
        case ImportFormat::sglang:
            return {"SGLang launch_server", true};
    }
    return {};
}

}  // namespace

std::string lineId(const Line& line) { return std::string(toString(line.id)); }
void setLineId(Line& line, std::string id) { line.id = parseChoice<LineId>(id).value_or(invalidChoice<LineId>()); }

std::string lineOrigin(const Line& line) { return line.origin ? std::string(toString(*line.origin)) : "allowance"; }
void setLineOrigin(Line& line, std::string id) { line.origin = parseChoice<Method>(id); }

std::string phaseName(const Phase& phase) { return std::string(toString(phase.name)); }
void setPhaseName(Phase& phase, std::string id) { phase.name = parseChoice<StepPhase>(id).value_or(StepPhase::forwardBackward); }

WasmResult evaluateConfig(const Config& config) { return toWasm(evaluate(config)); }

val compareConfig(const Config& config) {
    val out = val::array();
    for (const auto& column : compareMethods(config))
        out.call<void>("push", val(WasmColumn{std::string(toString(column.method)), toWasm(column.result), column.sourceBytes}));
    return out;
}

std::string reasonFor(const std::string& method, const std::string& lineId) {
    const auto id = parseChoice<Method>(method);
    const auto line = parseChoice<LineId>(lineId);
    return id && line ? differenceReason(*id, *line) : std::string();
}

val measurableLinesOf(const Config& config) { return toArray(measurableLines(config)); }

val validTp(const Config& config) { return toArray(validTensorParallel(config)); }

val validateConfig(const Config& config) { return toArray(validate(config)); }

WasmParsed decode(const std::string& query) { return toWasm(decodeQuery(query)); }

WasmParsed applyQueryTo(const Config& base, const std::string& query) { return toWasm(applyQuery(base, query)); }

WasmParsed setField(const Config& config, const std::string& key, const std::string& text) {
    const std::vector<Assignment> assignment{{key, text}};
    return toWasm(applyAssignments(assignment, config));
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

val fieldStates(const Config& config) {
    // The hidden keys as one string split in JS: a push per key from wasm was a method call each, as long as the
    // rest of this function together.
    std::string hidden;
    val autos = val::object();
    val labels = val::object();
    for (const auto& f : fields()) {
        if (!fieldApplies(f, config)) {
            if (!hidden.empty()) hidden += ' ';
            hidden += f.key;
        }
        if (const auto value = autoValue(f, config)) autos.set(std::string(f.key), *value);
        if (const std::string_view label = fieldLabel(f, config); label != f.label) labels.set(std::string(f.key), std::string(label));
    }
    val out = val::object();
    out.set("hidden", hidden.empty() ? val::array() : val(hidden).call<val>("split", std::string(" ")));
    out.set("auto", autos);
    out.set("labels", labels);
    out.set("launchFormat", std::string(toString(launchFormat(config))));
    return out;
}

// What the page shows for one configuration in one call: the ledger, every field's text and the fields' states.
// Each call takes the configuration's 94 fields across the boundary one by one (embind's value_object), which cost as
// much as computing the texts: one crossing instead of three on every field change.
val pageView(const Config& config) {
    val out = val::object();
    out.set("result", val(evaluateConfig(config)));
    out.set("texts", fieldTexts(config));
    out.set("states", fieldStates(config));
    return out;
}

val fieldTable() {
    static constexpr const char* kinds[] = {"integer", "number", "boolean", "choice", "text"};
    const Config defaults;
    val out = val::array();
    for (const auto& f : fields()) {
        WasmField w{std::string(f.key),
                    std::string(f.label),
                    std::string(f.group),
                    kinds[static_cast<int>(f.kind)],
                    f.min,
                    f.max,
                    f.zeroMeansAuto,
                    std::string(f.autoMeaning),
                    toArray(f.allowed),
                    toArray(f.choices()),
                    std::string(f.unit),
                    std::string(f.help),
                    std::string(f.section),
                    describeRange(f),
                    fieldText(defaults, f),
                    static_cast<double>(f.essential)};
        out.call<void>("push", val(w));
    }
    return out;
}

val modelPresetList() {
    val out = val::array();
    for (const auto& p : modelPresets()) {
        Config config;
        applyModelPreset(config, p);
        out.call<void>("push", val(WasmModelPreset{std::string(p.id), std::string(p.label), std::string(p.family),
                                                   p.params != 0 ? p.params : derivedParameterCount(config)}));
    }
    return out;
}

val gpuPresetList() {
    val out = val::array();
    for (const auto& p : gpuPresets())
        out.call<void>("push", val(WasmGpuPreset{std::string(p.id), std::string(p.label), p.capacityBytes, std::string(p.source)}));
    return out;
}

Config defaultConfig() { return Config{}; }

val formatList() {
    val out = val::array();
    for (size_t i = 0; i < ChoiceNames<ImportFormat>::names.size(); ++i) {
        const auto format = static_cast<ImportFormat>(i);
        const FormatText text = formatText(format);
        val item = val::object();
        item.set("id", std::string(toString(format)));
        item.set("label", std::string(text.label));
        item.set("exports", text.exports);
        out.call<void>("push", item);
    }
    return out;
}

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

val unmappedArray(const std::vector<Unmapped>& list) {
    val out = val::array();
    for (const auto& u : list) {
        val item = val::object();
        item.set("key", u.key);
        item.set("value", u.value);
        item.set("reason", u.reason);
        out.call<void>("push", item);
    }
    return out;
}

// A serving plan row's numbers by the page's names (engine.ts ServingPlanRow), in one table rather than a value
// object per row.
constexpr std::pair<const char*, double ServingPlanRow::*> kServingRowNumbers[] = {
    {"tp", &ServingPlanRow::tp},
    {"pp", &ServingPlanRow::pp},
    {"dp", &ServingPlanRow::dp},
    {"ep", &ServingPlanRow::ep},
    {"concurrency", &ServingPlanRow::concurrency},
    {"maxConcurrency", &ServingPlanRow::maxConcurrency},
    {"peakBytes", &ServingPlanRow::peakBytes},
    {"usableBytes", &ServingPlanRow::usableBytes},
    {"ttftSeconds", &ServingPlanRow::ttftSeconds},
    {"tpotSeconds", &ServingPlanRow::tpotSeconds},
    {"outputTokensPerSecondPerGpu", &ServingPlanRow::outputTokensPerSecondPerGpu},
    {"outputTokensPerSecond", &ServingPlanRow::outputTokensPerSecond},
};

val servingRowObject(const ServingPlanRow& row, const Config& base) {
    val out = val::object();
    for (const auto& [key, member] : kServingRowNumbers) out.set(key, row.*member);
    out.set("meetsTargets", row.meetsTargets);
    out.set("query", encodeQuery(servingRowConfig(base, row)));
    return out;
}

}  // namespace

val planServingObject(const ServingPlanRequest& request) {
    const ServingPlan plan = planServing(request);
    val rows = val::array();
    for (const ServingPlanRow& row : plan.rows) rows.call<void>("push", servingRowObject(row, request.base));
    val out = val::object();
    out.set("rows", rows);
    out.set("recommended", plan.recommended);
    out.set("reason", plan.reason);
    out.set("layouts", plan.layouts);
    out.set("evaluated", plan.evaluated);
    out.set("errors", toArray(plan.errors));
    return out;
}

val planServingEachGpuList(const ServingPlanRequest& request) {
    val out = val::array();
    for (const GpuServingPlan& gpu : planServingEachGpu(request)) {
        // The row's configuration on its own GPU, without a price (one GPU type's), as the plan and the CLI's JSON.
        Config base = request.base;
        if (const GpuPreset* preset = findGpuPreset(gpu.gpu)) applyGpuPreset(base, *preset);
        base.gpu = gpu.gpu;
        base.gpuHourUsd = 0;
        const ServingPlan& plan = gpu.plan;
        val item = val::object();
        item.set("gpu", gpu.gpu);
        item.set("label", gpu.label);
        item.set("recommended",
                 plan.recommended >= 0 ? servingRowObject(plan.rows[static_cast<size_t>(plan.recommended)], base) : val::null());
        item.set("reason", plan.reason);
        item.set("errors", toArray(plan.errors));
        out.call<void>("push", item);
    }
    return out;
}

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
WasmImport importFields(const Config& base, const std::string& rootType, const val& fields) {
    const std::vector<HfValue> values = emscripten::vecFromJSArray<HfValue>(fields);
    const HfImport imported = importHfFields(rootType, values, base);
    return {imported.config, toArray(imported.errors), toArray(imported.notices)};
}

std::string detectFormat(const std::string& text) { return std::string(toString(detectImportFormat(text))); }

std::string unrecognised(const std::string& subject) { return unrecognisedImport(subject); }

std::string syntaxOf(const std::string& format, const std::string& text) {
    const auto f = parseChoice<ImportFormat>(format);
    return f ? std::string(toString(importSyntax(*f, text))) : std::string();
}

// A framework's configuration, parsed on the page (JSON.parse, smol-toml, yaml, shell-quote: web/src/import-parse.ts)
// and mapped here by the CLI's mapping, then applied over `base` (a DeepSpeed config keeps the model).
WasmConfigImport importConfiguration(const Config& base, const std::string& format, const std::string& rootType, const std::string& error,
                                     const val& values, const val& lines) {
    WasmConfigImport out;
    out.format = format;
    const auto f = parseChoice<ImportFormat>(format);
    if (!f) {
        out.errors = toArray(std::vector<Problem>{
            {"format", "format must be one of megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang; got \"" + format + "\""}});
        out.config = base;
        return out;
    }
    ImportInput input;
    input.format = *f;
    input.rootType = rootType;
    input.error = error;
    input.values = emscripten::vecFromJSArray<JsonValue>(values);
    const size_t lineCount = lines["length"].as<size_t>();
    for (size_t i = 0; i < lineCount; ++i) input.lines.push_back(emscripten::vecFromJSArray<std::string>(lines[i]));
    const ImportResult result = importConfig(input);
    out.errors = toArray(result.errors);
    out.unmapped = unmappedArray(result.unmapped);
    out.warnings = toArray(result.warnings);
    out.assumed = toArray(result.assumed);
    for (const auto& a : result.assignments) {
        val item = val::object();
        item.set("key", a.key);
        item.set("text", a.text);
        out.assignments.call<void>("push", item);
    }
    // The file's keys over the defaults, keeping only the GPU, the method and (when the file names none) the model.
    const ImportBase start = importBase(base, result);
    const ParsedConfig parsed = applyAssignments(result.assignments, start.config);
    if (start.modelKept && result.ok()) out.modelKept = base.name.empty() ? base.model : base.name;
    // All or nothing, as `membudget import` refuses it: a key the configuration cannot take applies none of them.
    const std::vector<Problem> problems = importProblems(result, base);
    out.config = result.ok() && problems.empty() ? parsed.config : base;
    out.problems = toArray(problems);
    return out;
}

WasmExport exportConfiguration(const Config& config, const std::string& format) {
    WasmExport out;
    const auto f = parseChoice<ImportFormat>(format);
    if (!f) return out;
    const ExportResult exported = exportConfig(*f, config);
    out.text = exported.text;
    out.notExported = unmappedArray(exported.notExported);
    return out;
}

val adviseConfig(const Config& config) { return toArray(advise(config)); }

WasmMeasuredFile readMeasured(const std::string& rootType, const val& values, const std::string& invalidReason) {
    const MeasuredFile file = readMeasuredFile(rootType, emscripten::vecFromJSArray<JsonValue>(values), invalidReason);
    WasmMeasuredFile out;
    out.errors = toArray(file.errors);
    if (!file.errors.empty()) return out;
    const ParsedConfig parsed = measuredConfig(file);
    out.config = parsed.config;
    out.configProblems = toArray(parsed.problems);
    for (const auto& [id, bytes] : file.lines) {
        out.lineIds.call<void>("push", val(id));
        out.lineBytes.call<void>("push", val(bytes));
    }
    out.peakAllocatedBytes = file.peakAllocatedBytes.value_or(-1);
    out.deviceName = file.deviceName;
    return out;
}

std::string adviceVerdict(const Advice& advice) { return std::string(toString(advice.verdict)); }
void setAdviceVerdict(Advice& advice, std::string id) { advice.verdict = parseChoice<Verdict>(id); }

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
    out.set("errors", toArray(r.errors));
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
        item.set("errors", toArray(r.errors));
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
