// The engine as the WebAssembly boundary sees it: the functions wasm/bindings.cpp registers, each result a plain JS
// object walked from its record table (arrays, ids for choices: nothing to delete).
// Errors are values (`errors`, `problems`); the TypeScript layer (web/src/engine.ts) turns them into thrown errors.
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "membudget/base/record.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget::wasm {

using emscripten::val;

// A record as the page's object, from its table (membudget/base/record.hpp): the one walk every result takes across
// the boundary. web/src/generated/records.ts declares its type from the same table.
val recordObject(const void* record, const RecordTable& table);
template <class T>
val recordVal(const T& record, const RecordTable& table) {
    return recordObject(&record, table);
}
// A list of records as a JS array: `count` records of `stride` bytes from `first`.
val recordArray(const void* first, std::size_t count, std::size_t stride, const RecordTable& table);
template <class T>
val recordsVal(std::span<const T> records, const RecordTable& table) {
    return recordArray(records.data(), records.size(), sizeof(T), table);
}
template <class T>
val recordsVal(const std::vector<T>& records, const RecordTable& table) {
    return recordsVal(std::span<const T>(records), table);
}

// The page's module (and the planner's, which has everything the page's has).
val evaluateConfig(const Config& config);
// evaluateConfig, fieldTexts and fieldStates of one configuration in one call: {result, texts, states}.
val pageView(const Config& config);
val compareConfig(const Config& config);
std::string reasonFor(const std::string& method, const std::string& lineId);
val measurableLinesOf(const Config& config);
val validTp(const Config& config);
val validateConfig(const Config& config);
val decode(const std::string& query);
// A query over a configuration (an advice's change): decode's reading, the keys it leaves out kept from `base`.
val applyQueryTo(const Config& base, const std::string& query);
// One field from the text a form holds; a preset id also fills the fields its preset sets.
val setField(const Config& config, const std::string& key, const std::string& text);
std::string fieldTexts(const Config& config);  // "key\x1etext" joined by \x1f (engine.ts splits it)
// The fields that do not apply to the configuration, and the number each 0 that means auto stands for.
val fieldStatesOf(const Config& config);
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

val importFields(const Config& base, const std::string& rootType, const val& fields);
std::string detectFormat(const std::string& text);
std::string unrecognised(const std::string& subject);
std::string syntaxOf(const std::string& format, const std::string& text);
val importConfiguration(const Config& base, const std::string& format, const std::string& rootType, const std::string& error,
                        const val& values, const val& lines);
val exportConfiguration(const Config& config, const std::string& format);
val adviseConfig(const Config& config);
val readMeasured(const std::string& rootType, const val& values, const std::string& invalidReason);
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
