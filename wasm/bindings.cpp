// The engine's WebAssembly surface: plain value objects and free functions, nothing to delete.
// The only file that includes Embind. Errors are values (`errors`, `problems`); the TypeScript layer
// (web/src/engine.ts) turns them into thrown errors.
#include <emscripten/bind.h>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/formats/import.hpp"
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
#include "membudget/time/steptime.hpp"

using namespace emscripten;
using namespace membudget;

namespace {

template <typename T>
val toArray(const std::vector<T>& items) {
    val array = val::array();
    for (const auto& item : items) array.call<void>("push", val(item));
    return array;
}

// Vectors cross as JS arrays (val), so that no wrapper object needs deleting.
struct WasmResult {
    std::string method;
    val lines = val::array();
    double parameterCount = 0;
    double totalBytes = 0;
    double capacityBytes = 0;
    double usableBytes = 0;
    std::string verdict;
    val warnings = val::array();
    val errors = val::array();
    val stages = val::array();
    double peakStage = 0;
    val tensors = val::array();
    val phases = val::array();
    std::string peakPhase;
    double cpuBytesPerNode = 0;
    double maxSequences = 0;
    double maxContextTokens = 0;
    double activeParameterCount = 0;
    val cpuLines = val::array();
    double reservedBytes = 0;
    val stepTime = val::null();  // null, or {stepSeconds, tokensPerSecondPerGpu, mfu, bubbleFraction, modelFlopsPerToken, parts}
};

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

struct WasmStage {
    double index = 0, layers = 0, inFlightMicrobatches = 0, totalBytes = 0;
    val lineBytes = val::array();
    double parametersPerGpu = 0, modelParameters = 0, reservedBytes = 0;
};

struct WasmColumn {
    std::string method;
    WasmResult result;
    double sourceBytes = 0;
};

struct WasmImport {
    Config config;
    val errors = val::array();
    val notices = val::array();
};

struct WasmParsed {
    Config config;
    val problems = val::array();
    val notices = val::array();
};

struct WasmField {
    std::string key, label, group, kind;
    double min = 0, max = 0;
    bool zeroMeansAuto = false;
    std::string autoMeaning;
    val allowed = val::array();
    val choices = val::array();
    std::string unit, help, section, range, defaultText;
};

struct WasmModelPreset {
    std::string id, label;
    double parameterCount = 0;
    std::string source;
};

struct WasmGpuPreset {
    std::string id, label;
    double capacityBytes = 0;
    std::string source;
};

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
            stepTimeObject(r.stepTime)};
}

WasmResult evaluateConfig(const Config& config) { return toWasm(evaluate(config)); }

val compareConfig(const Config& config) {
    val out = val::array();
    for (const auto& column : compareMethods(config))
        out.call<void>("push", val(WasmColumn{std::string(toString(column.method)), toWasm(column.result), column.sourceBytes}));
    return out;
}

std::string lineId(const Line& line) { return std::string(toString(line.id)); }
void setLineId(Line& line, std::string id) { line.id = parseChoice<LineId>(id).value_or(invalidChoice<LineId>()); }

std::string lineOrigin(const Line& line) { return line.origin ? std::string(toString(*line.origin)) : "allowance"; }
void setLineOrigin(Line& line, std::string id) { line.origin = parseChoice<Method>(id); }

std::string phaseName(const Phase& phase) { return std::string(toString(phase.name)); }
void setPhaseName(Phase& phase, std::string id) { phase.name = parseChoice<StepPhase>(id).value_or(StepPhase::forwardBackward); }

std::string reasonFor(const std::string& method, const std::string& lineId) {
    const auto id = parseChoice<Method>(method);
    const auto line = parseChoice<LineId>(lineId);
    return id && line ? differenceReason(*id, *line) : std::string();
}

// Config crosses as a plain object whose keys are the field table's: registered from it, so that no field
// can be missing or misspelt here. Choices cross as their ids; an unknown id stores a value validate()
// refuses by the field's name.
void registerConfig() {
    value_object<Config> config("Config");
    for (const FieldSpec& field : fields()) {
        const std::string name(field.key);
        std::visit(
            [&](auto member) {
                if constexpr (std::is_same_v<decltype(member), ChoiceField>)
                    config.field(name.c_str(), std::function<std::string(const Config&)>([member](const Config& c) {
                                     return std::string(member.get(c));
                                 }),
                                 std::function<void(Config&, std::string)>([member](Config& c, std::string id) { member.set(c, id); }));
                else
                    config.field(name.c_str(), member);
            },
            field.member);
    }
}

val measurableLinesOf(const Config& config) { return toArray(measurableLines(config)); }

val validTp(const Config& config) { return toArray(validTensorParallel(config)); }

val validateConfig(const Config& config) { return toArray(validate(config)); }

WasmParsed toWasm(const ParsedConfig& parsed) { return {parsed.config, toArray(parsed.problems), toArray(parsed.notices)}; }

WasmParsed decode(const std::string& query) { return toWasm(decodeQuery(query)); }

// One field from the text a form holds; a preset id also fills the fields its preset sets.
WasmParsed setField(const Config& config, const std::string& key, const std::string& text) {
    const std::vector<Assignment> assignment{{key, text}};
    return toWasm(applyAssignments(assignment, config));
}

val fieldTexts(const Config& config) {
    val texts = val::object();
    for (const auto& field : fields()) texts.set(std::string(field.key), fieldText(config, field));
    return texts;
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
                    toArray(f.choices),
                    std::string(f.unit),
                    std::string(f.help),
                    std::string(f.section),
                    describeRange(f),
                    fieldText(defaults, f)};
        out.call<void>("push", val(w));
    }
    return out;
}

val modelPresetList() {
    val out = val::array();
    for (const auto& p : modelPresets()) {
        Config config;
        applyModelPreset(config, p);
        out.call<void>("push", val(WasmModelPreset{std::string(p.id), std::string(p.label),
                                                   p.params != 0 ? p.params : derivedParameterCount(config), std::string(p.source)}));
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

// Plan rows cross as one Float64Array of planColumns().size() numbers each, in the columns' order (the page
// decodes them with planRowColumns()): a value_object of 21 fields and its vector would cost the wasm more than
// the whole planner.
#ifdef MEMBUDGET_WASM_PLANNER
std::vector<PlanRow> rowsFromArray(const val& array) {
    const auto columns = planColumns();
    const std::vector<double> flat = convertJSArrayToNumberVector<double>(array);
    std::vector<PlanRow> rows(flat.size() / columns.size());
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t k = 0; k < columns.size(); ++k) columns[k].set(rows[i], flat[i * columns.size() + k]);
    return rows;
}

// The configuration one plan row (a flat row, as rowsToArray writes it) stands for.
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

val rowsToArray(const std::vector<PlanRow>& rows) {
    const auto columns = planColumns();
    std::vector<double> flat;
    flat.reserve(rows.size() * columns.size());
    for (const auto& row : rows)
        for (const PlanColumn& column : columns) flat.push_back(column.get(row));
    return val::global("Float64Array").new_(val(typed_memory_view(flat.size(), flat.data())));
}

// The on-demand module's own functions: the planner, advice and the config importers, which the page loads
// only when used so that its own module stays within its budget.
// The page parses the config.json with JSON.parse and hands over its top-level values: no JSON parser
// in the wasm (it would cost 14 KB gzipped), the same mapping as the CLI's.
WasmImport importFields(const Config& base, const std::string& rootType, const val& fields) {
    const std::vector<HfValue> values = vecFromJSArray<HfValue>(fields);
    const HfImport imported = importHfFields(rootType, values, base);
    return {imported.config, toArray(imported.errors), toArray(imported.notices)};
}

// A framework's configuration, parsed on the page (JSON.parse, smol-toml, yaml, shell-quote: web/src/import-parse.ts)
// and mapped here by the CLI's mapping, then applied over `base` (a DeepSpeed config keeps the model).
struct WasmConfigImport {
    std::string format;
    Config config;
    val assignments = val::array();  // [{key, text}]
    val unmapped = val::array();     // [{key, value, reason}]
    val warnings = val::array();
    val errors = val::array();
    val problems = val::array();  // assignments the configuration refused
};

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

std::string detectFormat(const std::string& text) { return std::string(toString(detectImportFormat(text))); }

std::string unrecognised(const std::string& subject) { return unrecognisedImport(subject); }

std::string syntaxOf(const std::string& format, const std::string& text) {
    const auto f = parseChoice<ImportFormat>(format);
    return f ? std::string(toString(importSyntax(*f, text))) : std::string();
}

WasmConfigImport importConfiguration(const Config& base, const std::string& format, const std::string& rootType, const std::string& error,
                                     const val& values, const val& lines) {
    WasmConfigImport out;
    out.format = format;
    const auto f = parseChoice<ImportFormat>(format);
    if (!f) {
        out.errors = toArray(std::vector<Problem>{
            {"format", "format must be one of megatron, torchtitan, torchtune, deepspeed, hf, vllm; got \"" + format + "\""}});
        out.config = base;
        return out;
    }
    ImportInput input;
    input.format = *f;
    input.rootType = rootType;
    input.error = error;
    input.values = vecFromJSArray<JsonValue>(values);
    const size_t lineCount = lines["length"].as<size_t>();
    for (size_t i = 0; i < lineCount; ++i) input.lines.push_back(vecFromJSArray<std::string>(lines[i]));
    const ImportResult result = importConfig(input);
    out.errors = toArray(result.errors);
    out.unmapped = unmappedArray(result.unmapped);
    out.warnings = toArray(result.warnings);
    for (const auto& a : result.assignments) {
        val item = val::object();
        item.set("key", a.key);
        item.set("text", a.text);
        out.assignments.call<void>("push", item);
    }
    const ParsedConfig parsed = applyAssignments(result.assignments, base);
    out.config = result.ok() ? parsed.config : base;
    out.problems = toArray(parsed.problems);
    return out;
}

struct WasmExport {
    std::string text;
    val notExported = val::array();
};

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

// A measured file (membudget-measured/1) read by the engine's reader, as the CLI's compare-measured reads it.
struct WasmMeasuredFile {
    Config config;
    val configProblems = val::array();
    val lineIds = val::array();
    val lineBytes = val::array();
    double peakAllocatedBytes = -1;  // -1: not in the file
    std::string deviceName;
    val errors = val::array();
};

WasmMeasuredFile readMeasured(const std::string& rootType, const val& values, const std::string& invalidReason) {
    const MeasuredFile file = readMeasuredFile(rootType, vecFromJSArray<JsonValue>(values), invalidReason);
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

// One slice of a plan: the page's worker calls this per slice of layouts (for progress and cancelling),
// then joins the slices with finishPlan.
val planSlice(const Config& base, double gpus, double globalBatch, bool tpAcrossNodes, bool unevenPipeline, double maxMicroBatch,
              double maxCp, bool includeTight, double layoutBegin, double layoutEnd, double maxRows, double maxEvaluations) {
    PlanRequest request;
    request.base = base;
    request.gpus = gpus;
    request.globalBatch = globalBatch;
    request.tpAcrossNodes = tpAcrossNodes;
    request.unevenPipeline = unevenPipeline;
    request.maxMicroBatch = maxMicroBatch;
    request.maxCp = maxCp;
    request.includeTight = includeTight;
    request.layoutBegin = layoutBegin;
    request.layoutEnd = layoutEnd;
    request.maxRows = maxRows;
    request.maxEvaluations = maxEvaluations;
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

}  // namespace

EMSCRIPTEN_BINDINGS(membudget) {
    registerConfig();

    value_object<Problem>("Problem").field("field", &Problem::field).field("message", &Problem::message);

    value_object<Line>("Line")
        .field("id", &lineId, &setLineId)
        .field("label", &Line::label)
        .field("formula", &Line::formula)
        .field("substituted", &Line::substituted)
        .field("bytes", &Line::bytes)
        .field("note", &Line::note)
        .field("origin", &lineOrigin, &setLineOrigin);

    value_object<Tensor>("Tensor")
        .field("name", &Tensor::name)
        .field("shape", &Tensor::shape)
        .field("dtype", &Tensor::dtype)
        .field("bytesPerCopy", &Tensor::bytesPerCopy)
        .field("copies", &Tensor::copies)
        .field("bytes", &Tensor::bytes)
        .field("sharding", &Tensor::sharding);

    value_object<Phase>("Phase").field("name", &phaseName, &setPhaseName).field("totalBytes", &Phase::totalBytes);

    value_object<WasmStage>("Stage")
        .field("index", &WasmStage::index)
        .field("layers", &WasmStage::layers)
        .field("inFlightMicrobatches", &WasmStage::inFlightMicrobatches)
        .field("totalBytes", &WasmStage::totalBytes)
        .field("lineBytes", &WasmStage::lineBytes)
        .field("parametersPerGpu", &WasmStage::parametersPerGpu)
        .field("modelParameters", &WasmStage::modelParameters)
        .field("reservedBytes", &WasmStage::reservedBytes);

    value_object<WasmResult>("Result")
        .field("method", &WasmResult::method)
        .field("lines", &WasmResult::lines)
        .field("parameterCount", &WasmResult::parameterCount)
        .field("totalBytes", &WasmResult::totalBytes)
        .field("capacityBytes", &WasmResult::capacityBytes)
        .field("usableBytes", &WasmResult::usableBytes)
        .field("verdict", &WasmResult::verdict)
        .field("warnings", &WasmResult::warnings)
        .field("errors", &WasmResult::errors)
        .field("stages", &WasmResult::stages)
        .field("peakStage", &WasmResult::peakStage)
        .field("tensors", &WasmResult::tensors)
        .field("phases", &WasmResult::phases)
        .field("peakPhase", &WasmResult::peakPhase)
        .field("cpuBytesPerNode", &WasmResult::cpuBytesPerNode)
        .field("maxSequences", &WasmResult::maxSequences)
        .field("maxContextTokens", &WasmResult::maxContextTokens)
        .field("activeParameterCount", &WasmResult::activeParameterCount)
        .field("cpuLines", &WasmResult::cpuLines)
        .field("reservedBytes", &WasmResult::reservedBytes)
        .field("stepTime", &WasmResult::stepTime);

    value_object<WasmColumn>("MethodColumn")
        .field("method", &WasmColumn::method)
        .field("result", &WasmColumn::result)
        .field("sourceBytes", &WasmColumn::sourceBytes);

    value_object<WasmParsed>("ParsedConfig")
        .field("config", &WasmParsed::config)
        .field("problems", &WasmParsed::problems)
        .field("notices", &WasmParsed::notices);

    value_object<WasmField>("Field")
        .field("key", &WasmField::key)
        .field("label", &WasmField::label)
        .field("group", &WasmField::group)
        .field("kind", &WasmField::kind)
        .field("min", &WasmField::min)
        .field("max", &WasmField::max)
        .field("zeroMeansAuto", &WasmField::zeroMeansAuto)
        .field("autoMeaning", &WasmField::autoMeaning)
        .field("allowed", &WasmField::allowed)
        .field("choices", &WasmField::choices)
        .field("unit", &WasmField::unit)
        .field("help", &WasmField::help)
        .field("section", &WasmField::section)
        .field("range", &WasmField::range)
        .field("defaultText", &WasmField::defaultText);

    value_object<WasmModelPreset>("ModelPreset")
        .field("id", &WasmModelPreset::id)
        .field("label", &WasmModelPreset::label)
        .field("parameterCount", &WasmModelPreset::parameterCount)
        .field("source", &WasmModelPreset::source);

    value_object<WasmGpuPreset>("GpuPreset")
        .field("id", &WasmGpuPreset::id)
        .field("label", &WasmGpuPreset::label)
        .field("capacityBytes", &WasmGpuPreset::capacityBytes)
        .field("source", &WasmGpuPreset::source);

    function("evaluate", &evaluateConfig);
#ifdef MEMBUDGET_WASM_PLANNER
    value_object<HfValue>("HfValue").field("key", &HfValue::key).field("type", &HfValue::type).field("text", &HfValue::text);

    value_object<WasmConfigImport>("ConfigImport")
        .field("format", &WasmConfigImport::format)
        .field("config", &WasmConfigImport::config)
        .field("assignments", &WasmConfigImport::assignments)
        .field("unmapped", &WasmConfigImport::unmapped)
        .field("warnings", &WasmConfigImport::warnings)
        .field("errors", &WasmConfigImport::errors)
        .field("problems", &WasmConfigImport::problems);
    value_object<WasmExport>("ConfigExport").field("text", &WasmExport::text).field("notExported", &WasmExport::notExported);

    value_object<WasmImport>("HfImport")
        .field("config", &WasmImport::config)
        .field("errors", &WasmImport::errors)
        .field("notices", &WasmImport::notices);

    value_object<Advice>("Advice")
        .field("change", &Advice::change)
        .field("query", &Advice::query)
        .field("savedBytes", &Advice::savedBytes)
        .field("totalBytes", &Advice::totalBytes)
        .field("verdict", &adviceVerdict, &setAdviceVerdict)
        .field("cost", &Advice::cost)
        .field("stepTimeChange", &Advice::stepTimeChange);

    value_object<WasmMeasuredFile>("MeasuredFile")
        .field("config", &WasmMeasuredFile::config)
        .field("configProblems", &WasmMeasuredFile::configProblems)
        .field("lineIds", &WasmMeasuredFile::lineIds)
        .field("lineBytes", &WasmMeasuredFile::lineBytes)
        .field("peakAllocatedBytes", &WasmMeasuredFile::peakAllocatedBytes)
        .field("deviceName", &WasmMeasuredFile::deviceName)
        .field("errors", &WasmMeasuredFile::errors);

    // Only in membudget-planner.wasm, loaded on demand: the planner, advice and the importers.
    function("advise", &adviseConfig);
    function("readMeasuredFile", &readMeasured);
    function("importHfFields", &importFields);
    function("detectImportFormat", &detectFormat);
    function("unrecognisedImport", &unrecognised);
    function("importSyntax", &syntaxOf);
    function("importConfig", &importConfiguration);
    function("exportConfig", &exportConfiguration);
    function("plan", &planSlice);
    function("finishPlan", &finishPlan);
    function("planRowColumns", &planRowColumns);
    function("planRowConfig", &planRowConfigOf);
#endif
    function("validate", &validateConfig);
    function("defaultConfig", &defaultConfig);
    function("setField", &setField);
    function("fieldTexts", &fieldTexts);
    function("fields", &fieldTable);
    function("modelPresets", &modelPresetList);
    function("gpuPresets", &gpuPresetList);
    function("encodeQuery", &encodeQuery);
    function("decodeQuery", &decode);
    function("compare", &compareConfig);
    function("differenceReason", &reasonFor);
    function("measurableLines", &measurableLinesOf);
    function("validTensorParallel", &validTp);
}
