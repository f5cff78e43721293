// The serving speed in the eval JSON (docs/inference.md, "Serving speed").
#include <cmath>
#include <string>

#include "io/json_parts.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"

namespace membudget::detail {

using nlohmann::ordered_json;

namespace {

ordered_json rowJson(const ServingPlanRow& r, const Config& base) {
    auto rounded = [](double value, double perOne) { return number(std::round(value * perOne) / perOne); };
    return {{"tp", number(r.tp)},
            {"pp", number(r.pp)},
            {"dp", number(r.dp)},
            {"ep", number(r.ep)},
            {"concurrency", number(r.concurrency)},
            {"max_concurrency", number(r.maxConcurrency)},
            {"peak_bytes", number(r.peakBytes)},
            {"ttft_s", rounded(r.ttftSeconds, 1e6)},
            {"tpot_s", rounded(r.tpotSeconds, 1e6)},
            {"output_tokens_per_second_per_gpu", rounded(r.outputTokensPerSecondPerGpu, 1e3)},
            {"output_tokens_per_second", rounded(r.outputTokensPerSecond, 1e3)},
            {"meets_targets", r.meetsTargets},
            {"query", encodeQuery(servingRowConfig(base, r))}};
}

}  // namespace

}  // namespace membudget::detail

namespace membudget {

using detail::number;
using nlohmann::ordered_json;

std::string servingPlanToJson(const ServingPlan& plan, const ServingPlanRequest& request, int indent) {
    ordered_json rows = ordered_json::array();
    for (const auto& r : plan.rows) rows.push_back(detail::rowJson(r, request.base));
    return ordered_json{{"mode", "inference"},
                        {"gpus", number(request.gpus)},
                        {"ttft_limit_s", request.ttftLimitSeconds > 0 ? number(request.ttftLimitSeconds) : ordered_json(nullptr)},
                        {"tpot_limit_s", request.tpotLimitSeconds > 0 ? number(request.tpotLimitSeconds) : ordered_json(nullptr)},
                        {"layouts", number(plan.layouts)},
                        {"evaluated", number(plan.evaluated)},
                        {"rows", std::move(rows)},
                        {"recommended", plan.recommended >= 0 ? ordered_json{{"index", number(plan.recommended)}, {"reason", plan.reason}}
                                                              : ordered_json(nullptr)},
                        {"reason", plan.reason},
                        {"errors", detail::problemsJson(plan.errors)}}
        .dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string gpuServingPlansToJson(const std::vector<GpuServingPlan>& plans, const ServingPlanRequest& request, int indent) {
    ordered_json list = ordered_json::array();
    for (const auto& g : plans) {
        Config base = request.base;
        if (const GpuPreset* preset = findGpuPreset(g.gpu)) applyGpuPreset(base, *preset);
        base.gpu = g.gpu;
        base.gpuHourUsd = 0;
        const bool found = g.plan.recommended >= 0;
        list.push_back(
            {{"gpu", g.gpu},
             {"label", g.label},
             {"recommended", found ? detail::rowJson(g.plan.rows[static_cast<size_t>(g.plan.recommended)], base) : ordered_json(nullptr)},
             {"reason", g.plan.reason},
             {"errors", detail::problemsJson(g.plan.errors)}});
    }
    return ordered_json{{"mode", "inference"}, {"gpus", number(request.gpus)}, {"which_gpu", std::move(list)}}.dump(
        indent, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace membudget
