// The engine as the WebAssembly boundary sees it: the value objects that cross it (vectors as JS arrays, val, so
// that no wrapper object needs deleting; choices as their ids) and the functions wasm/bindings.cpp registers.
// Errors are values (`errors`, `problems`); the TypeScript layer (web/src/engine.ts) turns them into thrown errors.
#pragma once

#include <emscripten/val.h>
#include <string>

#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget::wasm {

using emscripten::val;

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
    val stepTime = val::null();     // null, or {stepSeconds, tokensPerSecondPerGpu, mfu, bubbleFraction, modelFlopsPerToken, parts}
    val errorBand = val::null();    // {validated, lowError, highError, runs, framework, features, text}
    val servingTime = val::null();  // null, or {ttftSeconds, tpotSeconds, outputTokensPerSecondPerGpu, …, decodeParts, prefillParts}
};

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
    double essential = 0;  // FieldSpec::essential: the place among the essentials the form shows first; 0: not one
};

struct WasmModelPreset {
    std::string id, label, family;
    double parameterCount = 0;  // no source: the modules leave them out (docs/presets.md and the CLI's `presets` have them)
};

struct WasmGpuPreset {
    std::string id, label;
    double capacityBytes = 0;
    std::string source;
};

// Accessors of value-object fields that hold a choice: its id across the boundary.
std::string lineId(const Line& line);
void setLineId(Line& line, std::string id);
std::string lineOrigin(const Line& line);
void setLineOrigin(Line& line, std::string id);
std::string phaseName(const Phase& phase);
void setPhaseName(Phase& phase, std::string id);

// The page's module (and the planner's, which has everything the page's has).
WasmResult evaluateConfig(const Config& config);
// evaluateConfig, fieldTexts and fieldStates of one configuration in one call: {result, texts, states}.
val pageView(const Config& config);
val compareConfig(const Config& config);
std::string reasonFor(const std::string& method, const std::string& lineId);
val measurableLinesOf(const Config& config);
val validTp(const Config& config);
val validateConfig(const Config& config);
WasmParsed decode(const std::string& query);
// A query over a configuration (an advice's change): decode's reading, the keys it leaves out kept from `base`.
WasmParsed applyQueryTo(const Config& base, const std::string& query);
// One field from the text a form holds; a preset id also fills the fields its preset sets.
WasmParsed setField(const Config& config, const std::string& key, const std::string& text);
std::string fieldTexts(const Config& config);  // "key\x1etext" joined by \x1f (engine.ts splits it)
// The fields that do not apply to the configuration, and the number each 0 that means auto stands for.
val fieldStates(const Config& config);
val fieldTable();
val modelPresetList();
val gpuPresetList();
Config defaultConfig();
// The formats membudget imports, in the engine's order, with what the page calls each and whether membudget also
// writes it (the CLI's export): [{id, label, exports}].
val formatList();

// The search's defaults (PlanRequest's, which the CLI's `plan` flags start from) over the default configuration.
PlanRequest defaultPlanRequest();

#ifdef MEMBUDGET_WASM_PLANNER
// The on-demand module's own: the planner, advice, the importers and the measured-file reader.

// A framework's configuration, parsed on the page (web/src/import-parse.ts) and mapped by the CLI's mapping.
struct WasmConfigImport {
    std::string format;
    Config config;
    val assignments = val::array();  // [{key, text}]
    val unmapped = val::array();     // [{key, value, reason}]
    val warnings = val::array();
    val errors = val::array();
    val problems = val::array();  // assignments the configuration refused
    std::string modelKept;        // the model the import kept because the file names none ("" when it names one)
    val assumed = val::array();   // [{field, message}]: what the file does not say, computed with the field's value
};

struct WasmExport {
    std::string text;
    val notExported = val::array();
};

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

std::string adviceVerdict(const Advice& advice);
void setAdviceVerdict(Advice& advice, std::string id);

WasmImport importFields(const Config& base, const std::string& rootType, const val& fields);
std::string detectFormat(const std::string& text);
std::string unrecognised(const std::string& subject);
std::string syntaxOf(const std::string& format, const std::string& text);
WasmConfigImport importConfiguration(const Config& base, const std::string& format, const std::string& rootType, const std::string& error,
                                     const val& values, const val& lines);
WasmExport exportConfiguration(const Config& config, const std::string& format);
val adviseConfig(const Config& config);
WasmMeasuredFile readMeasured(const std::string& rootType, const val& values, const std::string& invalidReason);
// One slice of a plan: the page's worker calls this per slice of layouts (for progress and cancelling), then joins
// the slices with finishPlan.
val planSlice(const PlanRequest& request);
val finishPlan(const val& rows, double maxRows);
val planEachGpuList(const PlanRequest& request);
val planRowColumns();
// The configuration one plan row (a flat row, as planSlice writes it) stands for.
Config planRowConfigOf(const Config& base, const val& row);
// The serving plan (planServing) as the page reads it: {rows, recommended, reason, layouts, evaluated, errors}, each row
// its numbers by name, meetsTargets and the link query of the configuration it stands for (the CLI's --json row).
val planServingObject(const ServingPlanRequest& request);
// Each GPU preset's recommended serving row (planServingEachGpu): [{gpu, label, recommended (a row or null), reason,
// errors}], each row's query on its own GPU.
val planServingEachGpuList(const ServingPlanRequest& request);
#endif

}  // namespace membudget::wasm
