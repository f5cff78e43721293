// The plans' requests as tables (membudget/base/record.hpp): inputs the page builds and wasm/bindings.cpp registers
// as value objects, described here for their generated types (`membudget records`); no wasm walks them, so its
// modules leave these tables out.
#include "membudget/base/record.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
namespace membudget {

namespace {

using record::member;

constexpr Column kPlanColumns[] = {
    member<&PlanRequest::base>(
        "base", RECORD_JSON("base"),
        {.kind = CellKind::config,
         .doc = RECORD_DOC("Model, GPU, sequence, precision, optimizer; its parallel fields are what the plan sets.")}),
    member<&PlanRequest::gpus>("gpus", RECORD_JSON("gpus"), {.doc = RECORD_DOC("TP × PP × CP × DP.")}),
    member<&PlanRequest::globalBatch>("globalBatch", RECORD_JSON("global_batch"),
                                      {.doc = RECORD_DOC("Sequences per optimizer step: DP × mb × microbatches.")}),
    member<&PlanRequest::tpAcrossNodes>("tpAcrossNodes", RECORD_JSON("tp_across_nodes")),
    member<&PlanRequest::unevenPipeline>("unevenPipeline", RECORD_JSON("uneven_pipeline")),
    member<&PlanRequest::maxMicroBatch>("maxMicroBatch", RECORD_JSON("max_micro_batch")),
    member<&PlanRequest::maxCp>("maxCp", RECORD_JSON("max_cp")),
    member<&PlanRequest::includeTight>("includeTight", RECORD_JSON("include_tight")),
    member<&PlanRequest::layoutBegin>(
        "layoutBegin", RECORD_JSON("layout_begin"),
        {.doc = RECORD_DOC("The slice of layouts [layoutBegin, layoutEnd) to search; layoutEnd 0 means all.")}),
    member<&PlanRequest::layoutEnd>("layoutEnd", RECORD_JSON("layout_end")),
    member<&PlanRequest::maxRows>("maxRows", RECORD_JSON("max_rows")),
    member<&PlanRequest::maxEvaluations>("maxEvaluations", RECORD_JSON("max_evaluations"),
                                         {.doc = RECORD_DOC("Ledgers the search may evaluate before it stops as too large.")}),
};

constexpr Column kServingColumns[] = {
    member<&ServingPlanRequest::base>(
        "base", RECORD_JSON("base"),
        {.kind = CellKind::config,
         .doc =
             RECORD_DOC("Model, GPU, engine, dtypes, input_tokens, output_tokens and seq; its parallel fields are what the plan sets.")}),
    member<&ServingPlanRequest::gpus>("gpus", RECORD_JSON("gpus")),
    member<&ServingPlanRequest::ttftLimitSeconds>("ttftLimitSeconds", RECORD_JSON("ttft_limit_s"),
                                                  {.doc = RECORD_DOC("0: no target (the CLI's --ttft-ms and --tpot-ms, in seconds).")}),
    member<&ServingPlanRequest::tpotLimitSeconds>("tpotLimitSeconds", RECORD_JSON("tpot_limit_s")),
    member<&ServingPlanRequest::maxConcurrency>(
        "maxConcurrency", RECORD_JSON("max_concurrency"),
        {.doc = RECORD_DOC("The most requests one replica runs at once (vLLM's max_num_seqs, SGLang's max_running_requests).")}),
    member<&ServingPlanRequest::tpAcrossNodes>("tpAcrossNodes", RECORD_JSON("tp_across_nodes")),
};

}  // namespace

constinit const RecordTable kPlanRequestRecord{
    RECORD_NAME("PlanRequest"), kPlanColumns, kAlways, kAlways,
    RECORD_DOC("A search over parallel layouts (the CLI's `plan`; membudget/plan/plan.hpp PlanRequest).")};
constinit const RecordTable kServingPlanRequestRecord{
    RECORD_NAME("ServingPlanRequest"), kServingColumns, kAlways, kAlways,
    RECORD_DOC("A plan for serving: every layout of TP × PP (× EP) replicas on `gpus` GPUs and every concurrency that fits.")};

}  // namespace membudget
#endif
