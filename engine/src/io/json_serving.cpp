// The serving plan's JSON (`plan --json` in inference, docs/inference.md, "Serving plan"): the request's envelope around
// the plan's rows, each from its record table.
#include <string>

#include "io/json_parts.hpp"
#include "io/json_record.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget {

using detail::number;
using nlohmann::ordered_json;

std::string servingPlanToJson(const ServingPlan& plan, const ServingPlanRequest& request, int indent) {
    ordered_json rows = detail::recordsJson(plan.rows, kServingPlanRowRecord, &plan.base);
    return detail::shortestNumbers(
        ordered_json{{"mode", "inference"},
                     {"gpus", number(request.gpus)},
                     {"ttft_limit_s", request.ttftLimitSeconds > 0 ? number(request.ttftLimitSeconds) : ordered_json(nullptr)},
                     {"tpot_limit_s", request.tpotLimitSeconds > 0 ? number(request.tpotLimitSeconds) : ordered_json(nullptr)},
                     {"layouts", number(plan.layouts)},
                     {"evaluated", number(plan.evaluated)},
                     {"rows", std::move(rows)},
                     {"recommended", plan.recommended >= 0 ? ordered_json{{"index", number(plan.recommended)}, {"reason", plan.reason}}
                                                           : ordered_json(nullptr)},
                     {"reason", plan.reason},
                     {"errors", detail::recordsJson(plan.errors, kProblemRecord)}}
            .dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

std::string gpuServingPlansToJson(const std::vector<GpuServingPlan>& plans, const ServingPlanRequest& request, int indent) {
    return detail::shortestNumbers(ordered_json{
        {"mode", "inference"}, {"gpus", number(request.gpus)}, {"which_gpu", detail::recordsJson(plans, kGpuServingPlanRecord)}}
                                       .dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

}  // namespace membudget
