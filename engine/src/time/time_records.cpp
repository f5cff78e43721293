// The columns of the speed estimates (membudget/base/record.hpp): the training step and the serving speed, spliced
// into the result's JSON at the keys it has always had, each its own object on the page.
#include "membudget/base/record.hpp"
#include "membudget/time/serving.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget {

namespace {

using record::as;
using record::computed;
using record::member;

// Seconds in the JSON to the microsecond, the parts in ms to the microsecond, rates to the thousandth.
constexpr std::uint8_t kMicro = 6, kMilli = 3;

void stepParts(const void* r, Cell& c) {
    c.numbers = as<StepTime>(r).partSeconds;
    // stepPartTexts() is in StepPart order: its i-th text is the i-th part's (tests/cpp/test_steptime.cpp).
    c.partLabel = [](std::size_t i) {
        const StepPartText& t = stepPartTexts()[i];
        return PartLabel{t.id, t.label, t.formula};
    };
}

constexpr Column kStepDetailColumns[] = {
    computed("parts", RECORD_JSON("parts_ms"), CellKind::parts, &stepParts,
             {.round = kMilli, .scale = 3, .doc = RECORD_DOC("Each part of the step, in seconds on the slowest pipeline stage.")}),
    member<&StepTime::bubbleFraction>("bubbleFraction", RECORD_JSON("bubble_fraction"),
                                      {.round = kMicro, .doc = RECORD_DOC("(PP − 1) / (m·v + PP − 1)")}),
    member<&StepTime::modelFlopsPerToken>("modelFlopsPerToken", RECORD_JSON("model_flops_per_token")),
    member<&StepTime::tokensPerStep>("tokensPerStep", RECORD_JSON("tokens_per_step"),
                                     {.doc = RECORD_DOC("The global batch: DP × mb × microbatches × seq.")}),
    member<&StepTime::tokensPerSecond>("tokensPerSecond", RECORD_JSON("tokens_per_second"),
                                       {.round = kMilli, .doc = RECORD_DOC("The whole job's: the global batch over the step time.")}),
    computed("assumptions", RECORD_JSON("assumptions"), CellKind::text, [](const void*, Cell& c) { c.text = stepTimeAssumptions(); }),
};
constinit const RecordTable kStepDetail{RECORD_NAME("StepTimeDetail"), kStepDetailColumns};

// The run on train_tokens: there where it is set (runSteps > 0), null in the JSON otherwise.
constexpr Column kRunColumns[] = {
    member<&StepTime::runTokens>("runTokens", RECORD_JSON("train_tokens"),
                                 {.doc = RECORD_DOC("The run's token budget (train_tokens); 0 where it is not set.")}),
    member<&StepTime::runSteps>("runSteps", RECORD_JSON("optimizer_steps"), {.doc = RECORD_DOC("Whole optimizer steps.")}),
    computed("runDays", RECORD_JSON("wall_clock_days"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<StepTime>(r).runSeconds / 86400; }, {.round = kMicro}),
    member<&StepTime::runSeconds>("runSeconds", RECORD_JSON(""), {.flags = kPageOnly}),
    member<&StepTime::runGpuHours>("runGpuHours", RECORD_JSON("gpu_hours"), {.round = kMilli}),
    member<&StepTime::runCostUsd>("runCostUsd", RECORD_JSON("cost_usd"),
                                  {.round = 2, .flags = kNullIfFalsy, .doc = RECORD_DOC("USD; 0 (null in JSON) without a price.")}),
    computed("runDaysLow", RECORD_JSON("wall_clock_days_low"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<StepTime>(r).runSecondsLow / 86400; }, {.round = kMicro}),
    computed("runDaysHigh", RECORD_JSON("wall_clock_days_high"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<StepTime>(r).runSecondsHigh / 86400; }, {.round = kMicro}),
    member<&StepTime::runGpuHoursLow>("runGpuHoursLow", RECORD_JSON("gpu_hours_low"), {.round = kMilli}),
    member<&StepTime::runGpuHoursHigh>("runGpuHoursHigh", RECORD_JSON("gpu_hours_high"), {.round = kMilli}),
    member<&StepTime::runCostUsdLow>("runCostUsdLow", RECORD_JSON("cost_usd_low"), {.round = 2, .flags = kNullIfFalsy}),
    member<&StepTime::runCostUsdHigh>("runCostUsdHigh", RECORD_JSON("cost_usd_high"), {.round = 2, .flags = kNullIfFalsy}),
};
constinit const RecordTable kRun{RECORD_NAME("StepTimeRun"), kRunColumns, record::at(kRunColumns, "runSteps")};

constexpr Column kStepColumns[] = {
    member<&StepTime::estimated>("estimated", RECORD_JSON(""), {.flags = kHidden}),
    member<&StepTime::stepSeconds>("stepSeconds", RECORD_JSON("step_time_s"), {.round = kMicro}),
    member<&StepTime::tokensPerSecondPerGpu>("tokensPerSecondPerGpu", RECORD_JSON("tokens_per_second_per_gpu"), {.round = kMilli}),
    member<&StepTime::mfu>(
        "mfu", RECORD_JSON("mfu"),
        {.round = kMicro, .doc = RECORD_DOC("(6·N + 12·L·a·d·s) FLOPs per token × tokens/s per GPU ÷ the dense BF16 peak.")}),
    member<&StepTime::stepSecondsLow>("stepSecondsLow", RECORD_JSON("step_time_s_low"),
                                      {.round = kMicro, .doc = RECORD_DOC("The band's ends (docs/constants.md).")}),
    member<&StepTime::stepSecondsHigh>("stepSecondsHigh", RECORD_JSON("step_time_s_high"), {.round = kMicro}),
    member<&StepTime::tokensPerSecondPerGpuLow>("tokensPerSecondPerGpuLow", RECORD_JSON("tokens_per_second_per_gpu_low"),
                                                {.round = kMilli}),
    member<&StepTime::tokensPerSecondPerGpuHigh>("tokensPerSecondPerGpuHigh", RECORD_JSON("tokens_per_second_per_gpu_high"),
                                                 {.round = kMilli}),
    member<&StepTime::mfuLow>("mfuLow", RECORD_JSON("mfu_low"), {.round = kMicro}),
    member<&StepTime::mfuHigh>("mfuHigh", RECORD_JSON("mfu_high"), {.round = kMicro}),
    computed("", RECORD_JSON("step_time"), CellKind::record, &record::readSelf<StepTime>, {.flags = kOmitIfAbsent, .child = &kStepDetail}),
    computed("", RECORD_JSON("run"), CellKind::record, &record::readSelf<StepTime>, {.child = &kRun}),
};

void decodeParts(const void* r, Cell& c) {
    c.numbers = as<ServingTime>(r).decodeSeconds;
    c.partLabel = [](std::size_t i) {
        const ServingPartText& t = decodePartTexts()[i];
        return PartLabel{t.id, t.label, t.formula};
    };
}

void prefillParts(const void* r, Cell& c) {
    c.numbers = as<ServingTime>(r).prefillSeconds;
    c.partLabel = [](std::size_t i) {
        const ServingPartText& t = prefillPartTexts()[i];
        return PartLabel{t.id, t.label, t.formula};
    };
}

// A plain roofline for scale: every weight and the mean context's KV cache at the full HBM bandwidth, the prompt at
// the dense peak.
constexpr Column kRooflineColumns[] = {
    member<&ServingTime::rooflineTtftSeconds>("rooflineTtftSeconds", RECORD_JSON("ttft_s"), {.round = kMicro}),
    member<&ServingTime::rooflineTpotSeconds>("rooflineTpotSeconds", RECORD_JSON("tpot_s"), {.round = kMicro}),
    member<&ServingTime::rooflineOutputTokensPerSecondPerGpu>("rooflineOutputTokensPerSecondPerGpu",
                                                              RECORD_JSON("output_tokens_per_second_per_gpu"), {.round = kMilli}),
};
constinit const RecordTable kRoofline{RECORD_NAME("ServingRoofline"), kRooflineColumns};

// Under a benchmark (num_prompts set): what vllm bench serve and bench_serving print beside the means above.
constexpr Column kBenchmarkColumns[] = {
    member<&ServingTime::benchmarked>("benchmarked", RECORD_JSON(""), {.flags = kHidden}),
    member<&ServingTime::prompts>("prompts", RECORD_JSON("num_prompts")),
    member<&ServingTime::requestRate>("requestRate", RECORD_JSON("request_rate"),
                                      {.doc = RECORD_DOC("Requests per second over the deployment, Poisson; 0: all at once.")}),
    member<&ServingTime::lengthRangeRatio>("lengthRangeRatio", RECORD_JSON("length_range_ratio"), {.kind = CellKind::fraction}),
    member<&ServingTime::ttftP99Seconds>("ttftP99Seconds", RECORD_JSON("ttft_p99_s"), {.round = kMicro}),
    member<&ServingTime::tpotP99Seconds>("tpotP99Seconds", RECORD_JSON("tpot_p99_s"), {.round = kMicro}),
    member<&ServingTime::itlMeanSeconds>("itlMeanSeconds", RECORD_JSON("itl_mean_s"), {.round = kMicro}),
    member<&ServingTime::itlP99Seconds>("itlP99Seconds", RECORD_JSON("itl_p99_s"), {.round = kMicro}),
    member<&ServingTime::benchmarkSeconds>("benchmarkSeconds", RECORD_JSON("duration_s"), {.round = kMilli}),
    member<&ServingTime::meanInputTokens>("meanInputTokens", RECORD_JSON("mean_input_tokens"), {.round = kMilli}),
    member<&ServingTime::meanOutputTokens>("meanOutputTokens", RECORD_JSON("mean_output_tokens"), {.round = kMilli}),
    member<&ServingTime::steadyTtftSeconds>("steadyTtftSeconds", RECORD_JSON("steady_ttft_s"), {.round = kMicro}),
    member<&ServingTime::steadyTpotSeconds>("steadyTpotSeconds", RECORD_JSON("steady_tpot_s"), {.round = kMicro}),
    member<&ServingTime::admittedSequences>(
        "admittedSequences", RECORD_JSON("admitted_sequences"),
        {.doc = RECORD_DOC("The requests in flight where the KV cache admits fewer than mb (max_sequences; the engine queues the "
                           "rest); 0: mb.")}),
};
constinit const RecordTable kBenchmark{RECORD_NAME("ServingBenchmark"), kBenchmarkColumns, record::at(kBenchmarkColumns, "benchmarked"),
                                       kAlways,
                                       RECORD_DOC("The benchmark's figures (num_prompts set; docs/inference.md, \"Under a benchmark\").")};

constexpr Column kServingDetailColumns[] = {
    member<&ServingTime::framework>("framework", RECORD_JSON("framework")),
    member<&ServingTime::inputTokens>("inputTokens", RECORD_JSON("input_tokens")),
    member<&ServingTime::outputTokens>("outputTokens", RECORD_JSON("output_tokens")),
    member<&ServingTime::lengthsAssumed>("lengthsAssumed", RECORD_JSON("lengths_assumed"),
                                         {.doc = RECORD_DOC("input_tokens and output_tokens not given: seq split in half.")}),
    member<&ServingTime::concurrency>("concurrency", RECORD_JSON("concurrency")),
    member<&ServingTime::gpusPerReplica>("gpusPerReplica", RECORD_JSON("gpus_per_replica")),
    member<&ServingTime::replicas>("replicas", RECORD_JSON("replicas")),
    member<&ServingTime::outputTokensPerSecondPerReplica>("outputTokensPerSecondPerReplica",
                                                          RECORD_JSON("output_tokens_per_second_per_replica"), {.round = kMilli}),
    member<&ServingTime::outputTokensPerSecond>("outputTokensPerSecond", RECORD_JSON("output_tokens_per_second"), {.round = kMilli}),
    member<&ServingTime::requestsPerSecondPerReplica>("requestsPerSecondPerReplica", RECORD_JSON("requests_per_second_per_replica"),
                                                      {.round = kMicro}),
    member<&ServingTime::requestSeconds>("requestSeconds", RECORD_JSON("request_latency_s"), {.round = kMicro}),
    computed("decodeParts", RECORD_JSON("tpot_parts_ms"), CellKind::parts, &decodeParts,
             {.round = kMilli, .scale = 3, .doc = RECORD_DOC("TPOT's parts in seconds (time/serving.hpp DecodePart order).")}),
    computed("prefillParts", RECORD_JSON("ttft_parts_ms"), CellKind::parts, &prefillParts,
             {.round = kMilli, .scale = 3, .doc = RECORD_DOC("TTFT's parts in seconds (time/serving.hpp PrefillPart order).")}),
    member<&ServingTime::expertsReadPerLayer>("expertsReadPerLayer", RECORD_JSON("experts_read_per_layer"), {.round = kMilli}),
    member<&ServingTime::computeBound>("computeBound", RECORD_JSON("compute_bound")),
    member<&ServingTime::cudaGraphs>("cudaGraphs", RECORD_JSON("cuda_graphs")),
    computed("benchmark", RECORD_JSON("benchmark"), CellKind::record, &record::readSelf<ServingTime>, {.child = &kBenchmark}),
    computed("", RECORD_JSON("roofline"), CellKind::record, &record::readSelf<ServingTime>, {.child = &kRoofline}),
    computed("assumptions", RECORD_JSON("assumptions"), CellKind::text, [](const void*, Cell& c) { c.text = servingAssumptions(); }),
};
constinit const RecordTable kServingDetail{RECORD_NAME("ServingTimeDetail"), kServingDetailColumns};

constexpr Column kServingColumns[] = {
    member<&ServingTime::estimated>("estimated", RECORD_JSON(""), {.flags = kHidden}),
    member<&ServingTime::ttftSeconds>("ttftSeconds", RECORD_JSON("ttft_s"), {.round = kMicro}),
    member<&ServingTime::tpotSeconds>("tpotSeconds", RECORD_JSON("tpot_s"), {.round = kMicro}),
    member<&ServingTime::outputTokensPerSecondPerGpu>("outputTokensPerSecondPerGpu", RECORD_JSON("output_tokens_per_second_per_gpu"),
                                                      {.round = kMilli}),
    member<&ServingTime::ttftSecondsLow>("ttftSecondsLow", RECORD_JSON("ttft_s_low"), {.round = kMicro}),
    member<&ServingTime::ttftSecondsHigh>("ttftSecondsHigh", RECORD_JSON("ttft_s_high"), {.round = kMicro}),
    member<&ServingTime::tpotSecondsLow>("tpotSecondsLow", RECORD_JSON("tpot_s_low"), {.round = kMicro}),
    member<&ServingTime::tpotSecondsHigh>("tpotSecondsHigh", RECORD_JSON("tpot_s_high"), {.round = kMicro}),
    member<&ServingTime::outputTokensPerSecondPerGpuLow>("outputTokensPerSecondPerGpuLow",
                                                         RECORD_JSON("output_tokens_per_second_per_gpu_low"), {.round = kMilli}),
    member<&ServingTime::outputTokensPerSecondPerGpuHigh>("outputTokensPerSecondPerGpuHigh",
                                                          RECORD_JSON("output_tokens_per_second_per_gpu_high"), {.round = kMilli}),
    computed("", RECORD_JSON("serving"), CellKind::record, &record::readSelf<ServingTime>, {.child = &kServingDetail}),
};

}  // namespace

constinit const RecordTable kStepTimeRecord{
    RECORD_NAME("StepTime"), kStepColumns, record::at(kStepColumns, "estimated"), kAlways,
    RECORD_DOC("The step-time estimate of a training configuration (docs/planner.md, \"Step time\").")};
constinit const RecordTable kServingTimeRecord{
    RECORD_NAME("ServingTime"), kServingColumns, record::at(kServingColumns, "estimated"), kAlways,
    RECORD_DOC("The serving-speed estimate of an inference configuration (docs/inference.md, \"Serving speed\").")};

}  // namespace membudget
