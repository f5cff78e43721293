// The JSON form of configurations and results, as membudget writes it: the CLI's `eval`, `compare`, `plan`,
// `advise`, `import`, `export --json` and `compare-measured` output, the page's JSON export, the field table and
// the presets. Reading JSON is json.hpp's. Kept apart from the core so that the engine itself depends on nothing
// but the standard library.
#pragma once

#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/config.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget {

// Every field of the configuration, in canonical order.
std::string configToJson(const Config& config, int indent = 2);

// {method, parameter_count, lines: [{id, label, formula, substituted, bytes, note}], total_bytes,
//  capacity_bytes, usable_bytes, verdict, warnings: [{field, message}], errors: [{field, message}],
//  query, config}; a result with errors has only method, errors and config.
std::string resultToJson(const Result& result, const Config& config, int indent = 2);

// compareMethods() as {query, methods: [{method, lines, total_bytes, source_bytes, verdict, peak_stage,
// warnings} or {method, errors}]}.
std::string compareToJson(const std::vector<MethodColumn>& columns, const Config& config, int indent = 2);

// plan() as {gpus, global_batch, layouts, candidates, evaluated, pruned, fitting, dropped, rows: [{tp, pp, dp,
// cp, ep, zero, sp, ckpt, mb, microbatches, first_stage_layers, last_stage_layers, peak_bytes, headroom_bytes,
// peak_stage, verdict, recompute_overhead, bubble, tp_crosses_node, cp_crosses_node, pareto, query}], errors}.
std::string planToJson(const PlanResult& plan, const PlanRequest& request, int indent = 2);
// `membudget plan --which-gpu --json`: {gpus, global_batch, which_gpu: [{gpu, label, capacity_bytes, fitting,
// recommended: a plan row as planToJson writes it (with its query) or null, reason, errors}]}.
std::string gpuPlansToJson(const std::vector<GpuPlan>& plans, const PlanRequest& request, int indent = 2);

// planServing() as {mode: "inference", gpus, ttft_limit_s, tpot_limit_s, layouts, evaluated, rows: [{tp, pp, dp, ep,
// concurrency, max_concurrency, peak_bytes, ttft_s, tpot_s, output_tokens_per_second_per_gpu, output_tokens_per_second,
// meets_targets, query}], recommended: {index, reason} or null, errors}; with --which-gpu {which_gpu: [{gpu, label,
// recommended: a row or null, reason, errors}]}.
std::string servingPlanToJson(const ServingPlan& plan, const ServingPlanRequest& request, int indent = 2);
std::string gpuServingPlansToJson(const std::vector<GpuServingPlan>& plans, const ServingPlanRequest& request, int indent = 2);

// advise() as [{change, query, total_bytes, saved_bytes, verdict, cost}].
std::string adviceToJson(const std::vector<Advice>& advice, int indent = 2);

// `membudget import`: {format, config: {key: value of the field's JSON type}, unmapped: [{key, value, reason}],
// warnings: [text]}; with errors {format, errors: [{field, message}]}.
std::string importToJson(const ImportResult& result, int indent = 2);

// `membudget export --json`: {format, text, not_exported: [{key, value, reason}]}.
std::string exportToJson(const ExportResult& result, int indent = 2);

// The field table and the presets, for tools that build forms or completions from them.
std::string fieldsToJson(int indent = 2);
std::string presetsToJson(int indent = 2);
// The step-time estimate's parts and assumptions: {parts: [{id, label, formula}], assumptions}, which the page reads
// from web/src/generated/step-text.ts (scripts/field-table.mjs) rather than from its module.
std::string stepPartsToJson(int indent = 2);

// Every record table that leaves the engine, the choices and the configuration's key types (`membudget records`):
// what scripts/record-types.mjs writes the page's types from.
std::string recordTablesToJson(int indent = 2);

// A measured run's comparison with its prediction (compareMeasured, json.hpp) as JSON (format
// membudget-compare-measured/1), for `membudget compare-measured FILE`.
std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent = 2);

}  // namespace membudget
