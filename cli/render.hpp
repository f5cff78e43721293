// The CLI's text output: the checklist, the methods side by side, the plan, the advice and a measured run,
// each in the byte unit of the run (format.hpp). JSON output is the engine's (membudget/io/json_write.hpp).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string_view>
#include <vector>

#include "format.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/config.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget::cli {

// "membudget: error: …" per problem (`kind` "notice": a notice), the first kListedEntries, then how many more.
void printProblems(std::ostream& err, const std::vector<Problem>& problems, std::string_view kind = "error");
void printTable(std::ostream& out, const Result& result, const Config& c, ByteUnit unit, bool showTensors);
void printComparison(std::ostream& out, const std::vector<MethodColumn>& columns, const Config& c, ByteUnit unit);
// sortBy: "memory" (the plan's order: Pareto first, then peak), "speed" (tokens/s per GPU, fastest first) or "mfu".
// The recommended row comes first whatever the order.
// `membudget plan --which-gpu`: one line per GPU preset with its recommended layout, speed and run.
void printServingPlan(std::ostream& out, const ServingPlan& plan, const ServingPlanRequest& request, ByteUnit unit, size_t limit);
void printGpuServingPlans(std::ostream& out, const std::vector<GpuServingPlan>& plans, const ServingPlanRequest& request);
void printGpuPlans(std::ostream& out, const std::vector<GpuPlan>& plans, const PlanRequest& request, ByteUnit unit);
void printPlan(std::ostream& out, const PlanResult& plan, const PlanRequest& request, ByteUnit unit, size_t limit, bool paretoOnly,
               const std::string& sortBy = "memory");
void printAdvice(std::ostream& out, const std::vector<Advice>& advice, const Result& before, ByteUnit unit);
void printMeasuredComparison(std::ostream& out, const MeasuredComparison& comparison, ByteUnit unit);

}  // namespace membudget::cli
