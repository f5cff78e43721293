// Speed of the engine (README "Speed"): one ledger, the planner's text-free kernel, and whole plans.
// Run: build/bench/membudget_bench (Google Benchmark); scripts/bench-wasm.mjs compares the wasm build.
#include <benchmark/benchmark.h>

#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"
#include "membudget/time/serving.hpp"
#include "memory/sources/chapter.hpp"
#include "memory/training.hpp"

using namespace membudget;

namespace {

Config llama405b() {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-405b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.tp = 8;
    c.pp = 16;
    c.dp = 128;
    c.seq = 8192;
    c.ckpt = Checkpointing::selective;
    c.sp = true;
    c.microbatches = 16;
    return c;
}

PlanRequest plan405b(double gpus) {
    PlanRequest r;
    r.base = llama405b();
    r.gpus = gpus;
    r.globalBatch = 2048;
    r.maxRows = 0;  // counts only: what is measured is the search, not copying rows out
    return r;
}

// The chapter's 70B example (the defaults), every line with its formula and note: what the page shows.
void BM_EvaluateChapter70B(benchmark::State& state) {
    const Config c;
    for (auto _ : state) benchmark::DoNotOptimize(evaluate(c).totalBytes);
}
BENCHMARK(BM_EvaluateChapter70B);

// The same ledger's numbers without text: every line's bytes, the total and the peak stage.
void BM_KernelChapter70B(benchmark::State& state) {
    const Config c;
    const double psi = c.params;
    for (auto _ : state) benchmark::DoNotOptimize(detail::chapterTrainingPeak(c, psi).totalBytes);
}
BENCHMARK(BM_KernelChapter70B);

void BM_KernelMembudget70B(benchmark::State& state) {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-70b"));
    for (auto _ : state) benchmark::DoNotOptimize(detail::membudgetTrainingPeak(c).totalBytes);
}
BENCHMARK(BM_KernelMembudget70B);

void BM_EvaluateMembudget405B(benchmark::State& state) {
    const Config c = llama405b();
    for (auto _ : state) benchmark::DoNotOptimize(evaluate(c).totalBytes);
}
BENCHMARK(BM_EvaluateMembudget405B);

void BM_KernelMembudget405B(benchmark::State& state) {
    const Config c = llama405b();
    for (auto _ : state) benchmark::DoNotOptimize(detail::membudgetTrainingPeak(c).totalBytes);
}
BENCHMARK(BM_KernelMembudget405B);

// Serving (issue 30): one serving estimate, pure and allocation-free, and the serving plan of a 70B on 8 GPUs.
Config serving70b() {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-70b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.gpu = "h100-80gb";
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    c.method = Method::membudget;
    c.tp = 8, c.pp = 1, c.dp = 1;
    c.mb = 64;
    c.seq = 2048;
    c.inputTokens = 1024;
    c.outputTokens = 512;
    return c;
}

void BM_ServingTime70B(benchmark::State& state) {
    const Config c = serving70b();
    for (auto _ : state) benchmark::DoNotOptimize(estimateServingTime(c).tpotSeconds);
}
BENCHMARK(BM_ServingTime70B);

void BM_ServingPlan70B(benchmark::State& state) {
    ServingPlanRequest request;
    request.base = serving70b();
    request.gpus = static_cast<double>(state.range(0));
    ServingPlan last;
    for (auto _ : state) {
        last = planServing(request);
        benchmark::DoNotOptimize(last.rows.size());
    }
    state.counters["layouts"] = last.layouts;
    state.counters["evaluated"] = last.evaluated;
    state.counters["rows"] = static_cast<double>(last.rows.size());
}
BENCHMARK(BM_ServingPlan70B)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

// A whole plan: every layout, knob and micro-batch for Llama-3.1-405B, by GPU count.
void BM_Plan405B(benchmark::State& state) {
    const PlanRequest request = plan405b(static_cast<double>(state.range(0)));
    PlanResult last;
    for (auto _ : state) {
        last = plan(request);
        // Not DoNotOptimize(last.fitting): on GCC its "+m,r" constraint may take a double through a general
        // register and write back garbage (the counter read 6.95e-310 where the plan counted 4,004).
        benchmark::DoNotOptimize(last.rows.size());
    }
    state.counters["layouts"] = last.layouts;
    state.counters["candidates"] = last.candidates;
    state.counters["evaluated"] = last.evaluated;
    state.counters["fitting"] = last.fitting;
    state.counters["candidates_per_s"] = benchmark::Counter(last.candidates, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["evaluated_per_s"] = benchmark::Counter(last.evaluated, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Plan405B)->Arg(64)->Arg(512)->Arg(4096)->Arg(16384)->Arg(131072)->Unit(benchmark::kMillisecond);

// The 16,384-GPU plan with each method's kernel (issue 13: within 3x of membudget's own; they went through the
// text-building evaluate(), 1 s where membudget took 8 ms).
void BM_Plan405BByMethod(benchmark::State& state) {
    PlanRequest request = plan405b(16384);
    request.base.method = static_cast<Method>(state.range(0));
    state.SetLabel(std::string(toString(request.base.method)));
    for (auto _ : state) benchmark::DoNotOptimize(plan(request).fitting);
}
BENCHMARK(BM_Plan405BByMethod)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

// A hostile but valid plan (issue 29): a tiny model on 720,720 GPUs with every knob open needs more than the
// 2,000,000 ledgers of the budget. It is refused from the search's count (3.7 s before, when the budget ran out
// while rows were being made).
void BM_PlanRefused(benchmark::State& state) {
    const ParsedConfig tiny = applyAssignments(std::vector<Assignment>{{"model", "custom"},
                                                                       {"params", "0"},
                                                                       {"hidden", "720"},
                                                                       {"heads", "720"},
                                                                       {"kv_heads", "720"},
                                                                       {"head_dim", "1"},
                                                                       {"ffn", "720"},
                                                                       {"vocab", "64"},
                                                                       {"layers", "720"},
                                                                       {"seq", "720"},
                                                                       {"method", "membudget"},
                                                                       {"tp", "1"},
                                                                       {"dp", "1"}});
    PlanRequest request;
    request.base = tiny.config;
    request.gpus = 720720;
    request.globalBatch = 735134400;
    request.maxMicroBatch = 1024;
    request.maxCp = 1024;
    request.tpAcrossNodes = true;
    PlanResult last;
    for (auto _ : state) {
        last = plan(request);
        benchmark::DoNotOptimize(last.errors.size());
    }
    if (last.errors.empty()) state.SkipWithError("the hostile plan was answered, not refused");
}
BENCHMARK(BM_PlanRefused)->Unit(benchmark::kMillisecond);

// Hostile input that once took quadratic time (tests/fuzz/regressions): a link of n parameters and a
// config.json of n keys. Google Benchmark fits the growth (BigO); both must stay O(n).
void BM_DecodeLongLink(benchmark::State& state) {
    std::string query;
    for (int64_t i = 0; i < state.range(0); ++i) query += "k" + std::to_string(i) + "=1&";
    query += "tp=2&pp=2&tp=4";
    for (auto _ : state) benchmark::DoNotOptimize(decodeQuery(query).problems.size());
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_DecodeLongLink)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Complexity()->Unit(benchmark::kMillisecond);

void BM_ImportManyKeys(benchmark::State& state) {
    std::string text = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
                          "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256)";
    for (int64_t i = 0; i < state.range(0); ++i) text += ", \"extra_" + std::to_string(i) + "\": " + std::to_string(i);
    text += "}";
    for (auto _ : state) benchmark::DoNotOptimize(importHfConfig(text).errors.size());
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ImportManyKeys)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Complexity()->Unit(benchmark::kMillisecond);

// eval / --config on a JSON object of N distinct keys (issue 13: 200,000 keys took 20 s through ordered_json's
// linear key search): the reader and applyAssignments, which reports each unknown key.
void BM_EvalManyKeys(benchmark::State& state) {
    std::string text = R"({"tp": 8)";
    for (int64_t i = 0; i < state.range(0); ++i) text += ", \"k" + std::to_string(i) + "\": " + std::to_string(i);
    text += "}";
    for (auto _ : state) {
        const AssignmentList list = parseJsonConfig(text);
        benchmark::DoNotOptimize(applyAssignments(list.assignments).problems.size());
    }
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_EvalManyKeys)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Complexity()->Unit(benchmark::kMillisecond);

// compare-measured on a measured file whose lines object has N keys.
void BM_MeasuredManyLines(benchmark::State& state) {
    std::string text = R"({"format": "membudget-measured/1", "config": {"tp": 8}, "lines": {)";
    for (int64_t i = 0; i < state.range(0); ++i)
        text += (i ? ", " : "") + std::string("\"l") + std::to_string(i) + "\": " + std::to_string(i);
    text += "}}";
    for (auto _ : state) {
        const FlatJson flat = flattenJson(text);
        benchmark::DoNotOptimize(readMeasuredFile(flat.rootType, flat.values, flat.error).lines.size());
    }
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_MeasuredManyLines)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Complexity()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
