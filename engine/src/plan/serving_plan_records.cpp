// The serving plan's columns (membudget/base/record.hpp): the rows of `plan --json` in inference and the page's
// serving planner, each with the link query of the configuration it stands for, and each GPU's recommended row.
#include "membudget/base/record.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget {

namespace {

using record::as;
using record::computed;
using record::member;

constexpr std::uint8_t kMicro = 6, kMilli = 3;

constexpr Column kRowColumns[] = {
    member<&ServingPlanRow::tp>("tp", RECORD_JSON("tp")),
    member<&ServingPlanRow::pp>("pp", RECORD_JSON("pp")),
    member<&ServingPlanRow::dp>("dp", RECORD_JSON("dp"), {.doc = RECORD_DOC("Replicas.")}),
    member<&ServingPlanRow::ep>("ep", RECORD_JSON("ep")),
    member<&ServingPlanRow::attentionDp>("attentionDp", RECORD_JSON("attention_dp"),
                                         {.doc = RECORD_DOC("SGLang's data-parallel attention groups inside TP; 1: none.")}),
    member<&ServingPlanRow::concurrency>("concurrency", RECORD_JSON("concurrency"), {.doc = RECORD_DOC("Requests per replica.")}),
    member<&ServingPlanRow::maxConcurrency>(
        "maxConcurrency", RECORD_JSON("max_concurrency"),
        {.doc = RECORD_DOC("The most requests of seq tokens that fit per replica (capped at the request's maxConcurrency).")}),
    member<&ServingPlanRow::peakBytes>("peakBytes", RECORD_JSON("peak_bytes")),
    member<&ServingPlanRow::usableBytes>("usableBytes", RECORD_JSON(""), {.flags = kPageOnly}),
    member<&ServingPlanRow::ttftSeconds>("ttftSeconds", RECORD_JSON("ttft_s"), {.round = kMicro}),
    member<&ServingPlanRow::tpotSeconds>("tpotSeconds", RECORD_JSON("tpot_s"), {.round = kMicro}),
    member<&ServingPlanRow::outputTokensPerSecondPerGpu>("outputTokensPerSecondPerGpu", RECORD_JSON("output_tokens_per_second_per_gpu"),
                                                         {.round = kMilli}),
    member<&ServingPlanRow::outputTokensPerSecond>("outputTokensPerSecond", RECORD_JSON("output_tokens_per_second"),
                                                   {.round = kMilli, .doc = RECORD_DOC("The whole deployment's: × replicas.")}),
    member<&ServingPlanRow::meetsTargets>("meetsTargets", RECORD_JSON("meets_targets")),
    computed("query", RECORD_JSON("query"), CellKind::text,
             [](const void* r, Cell& c) {
                 c.text = c.owned = encodeQuery(servingRowConfig(*static_cast<const Config*>(c.context), as<ServingPlanRow>(r)));
             },
             {.doc = RECORD_DOC("The link query of the configuration the row stands for.")}),
};

// The rows stand for changes of the plan's base: their walk's context.
void rowsOf(const void* r, Cell& c) {
    const ServingPlan& plan = as<ServingPlan>(r);
    record::readValue(plan.rows, c);
    c.childContext = &plan.base;
}

constexpr Column kPlanColumns[] = {
    computed("rows", RECORD_JSON("rows"), CellKind::records, &rowsOf, {.child = &kServingPlanRowRecord}),
    member<&ServingPlan::recommended>("recommended", RECORD_JSON("recommended"),
                                      {.doc = RECORD_DOC("Index into rows; -1 when nothing fits.")}),
    member<&ServingPlan::reason>("reason", RECORD_JSON("reason")),
    member<&ServingPlan::layouts>("layouts", RECORD_JSON("layouts")),
    member<&ServingPlan::evaluated>("evaluated", RECORD_JSON("evaluated")),
    member<&ServingPlan::errors>("errors", RECORD_JSON("errors"), {.child = &kProblemRecord}),
};

// A GPU's recommended row, where one fits.
void recommendedOf(const void* r, Cell& c) {
    const ServingPlan& plan = as<GpuServingPlan>(r).plan;
    if (plan.recommended >= 0) c.child = &plan.rows[static_cast<std::size_t>(plan.recommended)];
    c.childContext = &plan.base;
}

constexpr Column kGpuColumns[] = {
    member<&GpuServingPlan::gpu>("gpu", RECORD_JSON("gpu")),
    member<&GpuServingPlan::label>("label", RECORD_JSON("label")),
    computed("recommended", RECORD_JSON("recommended"), CellKind::record, &recommendedOf, {.child = &kServingPlanRowRecord}),
    computed("reason", RECORD_JSON("reason"), CellKind::text, [](const void* r, Cell& c) { c.text = as<GpuServingPlan>(r).plan.reason; }),
    computed("errors", RECORD_JSON("errors"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<GpuServingPlan>(r).plan.errors, c); }, {.child = &kProblemRecord}),
};

}  // namespace

constinit const RecordTable kServingPlanRowRecord{RECORD_NAME("ServingPlanRow"), kRowColumns, kAlways, kAlways,
                                                  RECORD_DOC("One (layout, concurrency) of a serving plan.")};
constinit const RecordTable kServingPlanRecord{
    RECORD_NAME("ServingPlan"), kPlanColumns, kAlways, kAlways,
    RECORD_DOC("A serving plan: every fitting row, those meeting the targets first, fastest per GPU first.")};
constinit const RecordTable kGpuServingPlanRecord{
    RECORD_NAME("GpuServingPlan"), kGpuColumns, kAlways, kAlways,
    RECORD_DOC("One GPU preset's serving plan of the same workload: its recommended row, or null.")};

}  // namespace membudget
