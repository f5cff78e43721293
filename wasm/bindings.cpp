// The engine's WebAssembly surface, registration only: value objects and free functions, nothing to delete. The
// functions and the value objects' types are wasm/glue.hpp's; errors are values (`errors`, `problems`), which the
// TypeScript layer (web/src/engine.ts) turns into thrown errors.
#include <emscripten/bind.h>

#include "glue.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

using namespace emscripten;
using namespace membudget;
using namespace membudget::wasm;

namespace {

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

}  // namespace

EMSCRIPTEN_BINDINGS(membudget) {
    registerConfig();

    function("evaluate", &evaluateConfig);
    function("pageView", &pageView);
    // A plan's request as one object (in both modules: the page builds requests for the planner's worker from the
    // engine's defaults) with the engine's PlanRequest fields (membudget/plan/plan.hpp), not twelve numbers.
    value_object<PlanRequest>("PlanRequest")
        .field("base", &PlanRequest::base)
        .field("gpus", &PlanRequest::gpus)
        .field("globalBatch", &PlanRequest::globalBatch)
        .field("tpAcrossNodes", &PlanRequest::tpAcrossNodes)
        .field("unevenPipeline", &PlanRequest::unevenPipeline)
        .field("maxMicroBatch", &PlanRequest::maxMicroBatch)
        .field("maxCp", &PlanRequest::maxCp)
        .field("includeTight", &PlanRequest::includeTight)
        .field("layoutBegin", &PlanRequest::layoutBegin)
        .field("layoutEnd", &PlanRequest::layoutEnd)
        .field("maxRows", &PlanRequest::maxRows)
        .field("maxEvaluations", &PlanRequest::maxEvaluations);
    function("defaultPlanRequest", &defaultPlanRequest);
#ifdef MEMBUDGET_WASM_PLANNER
    value_object<HfValue>("HfValue").field("key", &HfValue::key).field("type", &HfValue::type).field("text", &HfValue::text);

    // The serving plan's request (membudget/plan/serving_plan.hpp); its rows cross as plain objects (glue.hpp).
    value_object<ServingPlanRequest>("ServingPlanRequest")
        .field("base", &ServingPlanRequest::base)
        .field("gpus", &ServingPlanRequest::gpus)
        .field("ttftLimitSeconds", &ServingPlanRequest::ttftLimitSeconds)
        .field("tpotLimitSeconds", &ServingPlanRequest::tpotLimitSeconds)
        .field("maxConcurrency", &ServingPlanRequest::maxConcurrency)
        .field("tpAcrossNodes", &ServingPlanRequest::tpAcrossNodes);

    // Only in membudget-planner.wasm, loaded on demand: the planner, advice and the importers, and every method
    // side by side (the page's "Compare methods", which loads this module when opened: 1.6 KB gzipped less in the
    // page's module, issue 31).
    function("compare", &compareConfig);
    function("differenceReason", &reasonFor);
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
    function("planEachGpu", &planEachGpuList);
    function("planRowColumns", &planRowColumns);
    function("planRowConfig", &planRowConfigOf);
    function("planServing", &planServingObject);
    function("planServingEachGpu", &planServingEachGpuList);
#endif
    function("validate", &validateConfig);
    function("defaultConfig", &defaultConfig);
    function("setField", &setField);
    function("fieldTexts", &fieldTexts);
    function("fields", &fieldTable);
    function("fieldStates", &fieldStatesOf);
    function("modelPresets", &modelPresetList);
    function("gpuPresets", &gpuPresetList);
    function("encodeQuery", &encodeQuery);
    function("decodeQuery", &decode);
    function("applyQuery", &applyQueryTo);
    function("measurableLines", &measurableLinesOf);
    function("validTensorParallel", &validTp);
    function("formats", &formatList);
}
