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
        .field("stepTime", &WasmResult::stepTime)
        .field("errorBand", &WasmResult::errorBand)
        .field("servingTime", &WasmResult::servingTime);

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
        .field("defaultText", &WasmField::defaultText)
        .field("essential", &WasmField::essential);

    value_object<WasmModelPreset>("ModelPreset")
        .field("id", &WasmModelPreset::id)
        .field("label", &WasmModelPreset::label)
        .field("family", &WasmModelPreset::family)
        .field("parameterCount", &WasmModelPreset::parameterCount);

    value_object<WasmGpuPreset>("GpuPreset")
        .field("id", &WasmGpuPreset::id)
        .field("label", &WasmGpuPreset::label)
        .field("capacityBytes", &WasmGpuPreset::capacityBytes)
        .field("source", &WasmGpuPreset::source);

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

    value_object<WasmConfigImport>("ConfigImport")
        .field("format", &WasmConfigImport::format)
        .field("config", &WasmConfigImport::config)
        .field("assignments", &WasmConfigImport::assignments)
        .field("unmapped", &WasmConfigImport::unmapped)
        .field("warnings", &WasmConfigImport::warnings)
        .field("errors", &WasmConfigImport::errors)
        .field("assumed", &WasmConfigImport::assumed)
        .field("problems", &WasmConfigImport::problems)
        .field("modelKept", &WasmConfigImport::modelKept);
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
        .field("stepTimeChange", &Advice::stepTimeChange)
        .field("keepsTask", &Advice::keepsTask);

    value_object<WasmMeasuredFile>("MeasuredFile")
        .field("config", &WasmMeasuredFile::config)
        .field("configProblems", &WasmMeasuredFile::configProblems)
        .field("lineIds", &WasmMeasuredFile::lineIds)
        .field("lineBytes", &WasmMeasuredFile::lineBytes)
        .field("peakAllocatedBytes", &WasmMeasuredFile::peakAllocatedBytes)
        .field("deviceName", &WasmMeasuredFile::deviceName)
        .field("errors", &WasmMeasuredFile::errors);

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
    value_object<WasmColumn>("MethodColumn")
        .field("method", &WasmColumn::method)
        .field("result", &WasmColumn::result)
        .field("sourceBytes", &WasmColumn::sourceBytes);
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
    function("fieldStates", &fieldStates);
    function("modelPresets", &modelPresetList);
    function("gpuPresets", &gpuPresetList);
    function("encodeQuery", &encodeQuery);
    function("decodeQuery", &decode);
    function("applyQuery", &applyQueryTo);
    function("measurableLines", &measurableLinesOf);
    function("validTensorParallel", &validTp);
    function("formats", &formatList);
}
