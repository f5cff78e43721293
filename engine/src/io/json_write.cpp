// Writing JSON with nlohmann/json (json_write.hpp): configurations, results, comparisons, plans, advice, imports,
// exports, measured comparisons, the field table and the presets. Reading is json.cpp's.
#include "membudget/io/json_write.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/json_parts.hpp"
#include "io/json_record.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget {

// A choice written to JSON is its id: without this nlohmann/json would write the enumerator's number.
template <class E>
requires requires { ChoiceNames<E>::names; }
void to_json(nlohmann::ordered_json& out, E value) { out = std::string(toString(value)); }

using detail::number;
using nlohmann::ordered_json;

std::string configToJson(const Config& config, int indent) {
    return detail::shortestNumbers(detail::configJson(config).dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string resultToJson(const Result& result, const Config& config, int indent) {
    ordered_json out = ordered_json::object();
    detail::writeRecord(out, &result, kResultRecord);
    if (result.ok()) out["query"] = encodeQuery(config);
    out["config"] = detail::configJson(config);
    return detail::shortestNumbers(out.dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string compareToJson(const std::vector<MethodColumn>& columns, const Config& config, int indent) {
    ordered_json out;
    out["query"] = encodeQuery(config);
    out["methods"] = detail::recordsJson(columns, kMethodColumnRecord);
    return detail::shortestNumbers(out.dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string fieldsToJson(int indent) {
    return detail::shortestNumbers(
        detail::recordsJson(fields(), kFieldRecord).dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string stepPartsToJson(int indent) {
    ordered_json parts = ordered_json::array();
    for (const StepPartText& text : stepPartTexts())
        parts.push_back({{"id", std::string(text.id)}, {"label", std::string(text.label)}, {"formula", std::string(text.formula)}});
    ordered_json out{{"parts", std::move(parts)}, {"assumptions", std::string(stepTimeAssumptions())}};
    return detail::shortestNumbers(out.dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string presetsToJson(int indent) {
    return detail::shortestNumbers(ordered_json{{"models", detail::recordsJson(modelPresets(), kModelPresetRecord)},
                                                {"gpus", detail::recordsJson(gpuPresets(), kGpuPresetRecord)}}
                                       .dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

namespace {

// A plan row: its columns (planColumns) and the link of the configuration it stands for.
ordered_json planRowJson(const PlanRow& row, const Config& base) {
    ordered_json out = ordered_json::object();
    for (const PlanColumn& column : planColumns()) {
        const double value = column.get(row);
        out[std::string(column.key)] = column.kind == PlanColumnKind::boolean ? ordered_json(value != 0)
                                       : column.kind == PlanColumnKind::choice
                                           ? ordered_json(std::string(column.choices[static_cast<std::size_t>(value)]))
                                       : column.kind == PlanColumnKind::fraction ? ordered_json(value)
                                                                                 : number(value);
    }
    out["query"] = encodeQuery(planRowConfig(base, row));
    return out;
}

}  // namespace

std::string gpuPlansToJson(const std::vector<GpuPlan>& plans, const PlanRequest& request, int indent) {
    ordered_json list = ordered_json::array();
    for (const GpuPlan& gpu : plans) {
        Config base = request.base;
        if (const GpuPreset* preset = findGpuPreset(gpu.gpu)) applyGpuPreset(base, *preset);
        base.gpuHourUsd = 0;  // as planEachGpu plans it: a price is one GPU type's
        const PlanResult& plan = gpu.plan;
        const bool found = plan.recommended.index >= 0;
        list.push_back({{"gpu", gpu.gpu},
                        {"label", gpu.label},
                        {"capacity_bytes", number(gpu.capacityBytes)},
                        {"fitting", number(plan.fitting)},
                        {"recommended",
                         found ? planRowJson(plan.rows[static_cast<std::size_t>(plan.recommended.index)], base) : ordered_json(nullptr)},
                        {"reason", found ? plan.recommended.reason : std::string()},
                        {"errors", detail::recordsJson(plan.errors, kProblemRecord)}});
    }
    return ordered_json{{"gpus", number(request.gpus)}, {"global_batch", number(request.globalBatch)}, {"which_gpu", std::move(list)}}.dump(
        indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string planToJson(const PlanResult& plan, const PlanRequest& request, int indent) {
    ordered_json rows = ordered_json::array();
    for (const auto& row : plan.rows) rows.push_back(planRowJson(row, request.base));
    return detail::shortestNumbers(
        ordered_json{{"gpus", number(request.gpus)},
                     {"global_batch", number(request.globalBatch)},
                     {"layouts", number(plan.layouts)},
                     {"candidates", number(plan.candidates)},
                     {"evaluated", number(plan.evaluated)},
                     {"pruned", number(plan.pruned)},
                     {"fitting", number(plan.fitting)},
                     {"dropped", number(plan.dropped)},
                     {"recommended", plan.recommended.index >= 0
                                         ? ordered_json{{"index", number(plan.recommended.index)}, {"reason", plan.recommended.reason}}
                                         : ordered_json(nullptr)},
                     {"rows", rows},
                     {"errors", detail::recordsJson(plan.errors, kProblemRecord)}}
            .dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string adviceToJson(const std::vector<Advice>& advice, int indent) {
    return detail::shortestNumbers(
        detail::recordsJson(advice, kAdviceRecord).dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent) {
    return detail::shortestNumbers(
        detail::recordJson(comparison, kMeasuredComparisonRecord).dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string importToJson(const ImportResult& result, int indent) {
    return detail::shortestNumbers(
        detail::recordJson(result, kImportResultRecord).dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string exportToJson(const ExportResult& result, int indent) {
    return detail::shortestNumbers(
        detail::recordJson(result, kExportResultRecord).dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

}  // namespace membudget
