// The serving benchmark (time/serving_bench.hpp; docs/inference.md, "Under a benchmark"): what one request, a wave
// sent at once and a slow request rate give, and how SGLang's and vLLM's schedulers differ under the same load.
#include <catch2/catch.hpp>
#include <cmath>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/serving_plan.hpp"
#include "membudget/time/serving.hpp"

using namespace membudget;

namespace {

Config benchmark(Framework engine, double mb, double prompts, double input, double output) {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-8b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.gpu = "h100-80gb";
    c.mode = Mode::inference;
    c.framework = engine;
    c.method = Method::membudget;
    c.tp = 1, c.pp = 1, c.dp = 1, c.ep = 1;
    c.mb = mb;
    c.seq = input + output;
    c.inputTokens = input;
    c.outputTokens = output;
    c.numPrompts = prompts;
    return c;
}

}  // namespace

TEST_CASE("benchmark: one request alone is one prefill and its decode steps, P99 its mean", "[serving][benchmark]") {
    for (const Framework engine : {Framework::vllm, Framework::sglang}) {
        const Config c = benchmark(engine, 1, 1, 2048, 256);
        REQUIRE(validate(c).empty());
        const ServingTime sv = estimateServingTimeValue(c);
        REQUIRE(sv.benchmarked);
        // Nothing runs beside the prompt: faster than the steady state's first token, which shares its passes with the
        // running batch.
        CHECK(sv.ttftSeconds < sv.steadyTtftSeconds);
        CHECK(sv.ttftP99Seconds == Approx(sv.ttftSeconds));
        CHECK(sv.tpotP99Seconds == Approx(sv.tpotSeconds));
        CHECK(sv.itlMeanSeconds == Approx(sv.tpotSeconds));
        CHECK(sv.requestSeconds == Approx(sv.ttftSeconds + 255 * sv.tpotSeconds));
        CHECK(sv.benchmarkSeconds == Approx(sv.requestSeconds));
        CHECK(sv.outputTokensPerSecondPerGpu == Approx(256 / sv.requestSeconds));
        double ttft = 0, tpot = 0;
        for (double v : sv.prefillSeconds) ttft += v;
        for (double v : sv.decodeSeconds) tpot += v;
        CHECK(ttft == Approx(sv.ttftSeconds));
        CHECK(tpot == Approx(sv.tpotSeconds));
    }
}

TEST_CASE("benchmark: a wave sent at once queues behind its own prompts, one prefill batch after another", "[serving][benchmark]") {
    // SGLang, 8 requests of 1,024 tokens sent together, 1,024 tokens a prefill batch: the k-th gets its first token after
    // k + 1 batches, so the mean is 4.5 batches and the slowest 8.
    Config c = benchmark(Framework::sglang, 8, 8, 1024, 128);
    c.workspaceTokens = 1024;
    const ServingTime wave = estimateServingTimeValue(c);
    c.numPrompts = 1, c.mb = 1;
    const ServingTime alone = estimateServingTimeValue(c);
    REQUIRE(wave.benchmarked);
    REQUIRE(alone.benchmarked);
    CHECK(wave.ttftSeconds == Approx(4.5 * alone.ttftSeconds).epsilon(0.02));
    CHECK(wave.ttftP99Seconds == Approx(7.93 * alone.ttftSeconds).epsilon(0.02));
    const double queue = wave.prefillSeconds[static_cast<size_t>(PrefillPart::queue)];
    CHECK(queue == Approx(wave.ttftSeconds - wave.steadyTtftSeconds));
}

TEST_CASE("benchmark: SGLang's waves stay together where vLLM's spread out", "[serving][benchmark]") {
    // Ten waves of 16 at fixed lengths. SGLang pauses the running requests while it prefills, so a wave finishes
    // together and the next arrives together and queues again; vLLM decodes beside the prompts, the first wave finishes
    // spread by its prefills, and the later ones arrive spread.
    Config sglang = benchmark(Framework::sglang, 16, 160, 4096, 256);
    Config vllm = benchmark(Framework::vllm, 16, 160, 4096, 256);
    sglang.workspaceTokens = vllm.workspaceTokens = 8192;
    const ServingTime s = estimateServingTimeValue(sglang), v = estimateServingTimeValue(vllm);
    REQUIRE(s.benchmarked);
    REQUIRE(v.benchmarked);
    CHECK(s.ttftSeconds > 2 * v.ttftSeconds);
    // The first wave queues under both: their slowest requests wait alike.
    CHECK(v.ttftP99Seconds > 4 * v.ttftSeconds);
}

TEST_CASE("benchmark: a request rate far below what the replica serves", "[serving][benchmark]") {
    // One request every 20 s on average, each done in about 2 s: few overlap (Poisson gaps under 2 s, about one in ten,
    // each sharing a little), none waits for long, and the throughput is the rate's.
    Config c = benchmark(Framework::vllm, 64, 50, 1024, 256);
    c.requestRate = 0.05;
    const ServingTime slow = estimateServingTimeValue(c);
    c.numPrompts = 1, c.requestRate = 0;
    const ServingTime alone = estimateServingTimeValue(c);
    REQUIRE(slow.benchmarked);
    CHECK(slow.ttftSeconds == Approx(alone.ttftSeconds).epsilon(0.02));
    CHECK(slow.tpotSeconds == Approx(alone.tpotSeconds).epsilon(0.01));
    CHECK(slow.ttftSeconds >= alone.ttftSeconds);
    CHECK(slow.outputTokensPerSecondPerGpu == Approx(50 * 256 / slow.benchmarkSeconds));
    CHECK(slow.benchmarkSeconds > 40 / 0.05 * 0.8);  // the arrivals span about prompts ÷ rate
}

TEST_CASE("benchmark: lengths drawn from ratio × nominal to nominal", "[serving][benchmark]") {
    Config c = benchmark(Framework::sglang, 32, 2000, 1000, 500);
    c.lengthRangeRatio = 0.5;
    const ServingTime sv = estimateServingTimeValue(c);
    REQUIRE(sv.benchmarked);
    // Uniform integers over [500, 1000] and [250, 500]: means 750 and 375, within a few tokens over 2,000 draws.
    CHECK(sv.meanInputTokens == Approx(750).margin(10));
    CHECK(sv.meanOutputTokens == Approx(375).margin(5));
    // The same draws every time: the CLI, the wasm and the page agree.
    CHECK(estimateServingTimeValue(c).ttftSeconds == sv.ttftSeconds);
}

TEST_CASE("benchmark: the band holds the midpoint, and the planner ranks by the steady state", "[serving][benchmark]") {
    Config c = benchmark(Framework::vllm, 32, 320, 1024, 1024);
    const ServingTime sv = estimateServingTime(c);
    REQUIRE(sv.benchmarked);
    CHECK(sv.ttftSecondsLow <= sv.ttftSeconds);
    CHECK(sv.ttftSeconds <= sv.ttftSecondsHigh);
    CHECK(sv.tpotSecondsLow <= sv.tpotSeconds);
    CHECK(sv.tpotSeconds <= sv.tpotSecondsHigh);
    CHECK(sv.outputTokensPerSecondPerGpuLow <= sv.outputTokensPerSecondPerGpu);
    CHECK(sv.outputTokensPerSecondPerGpu <= sv.outputTokensPerSecondPerGpuHigh);
    ServingPlanRequest request;
    request.base = c;
    request.gpus = 8;
    const ServingPlan withBenchmark = planServing(request);
    request.base.numPrompts = 0;
    const ServingPlan steady = planServing(request);
    REQUIRE(withBenchmark.rows.size() == steady.rows.size());
    REQUIRE_FALSE(steady.rows.empty());
    CHECK(withBenchmark.rows.front().ttftSeconds == steady.rows.front().ttftSeconds);
}

TEST_CASE("benchmark: SGLang reads new requests every --scheduler-recv-interval decode passes", "[serving][benchmark]") {
    // Lengths spread so that requests arrive one by one while others decode: each waits for the interval's next read,
    // on average half of it, at most all of it.
    Config c = benchmark(Framework::sglang, 16, 320, 1024, 512);
    c.lengthRangeRatio = 0.5;
    const ServingTime everyPass = estimateServingTimeValue(c);
    c.schedulerRecvInterval = 30;
    const ServingTime every30 = estimateServingTimeValue(c);
    REQUIRE(everyPass.benchmarked);
    REQUIRE(every30.benchmarked);
    const double waited = every30.ttftSeconds - everyPass.ttftSeconds;
    CHECK(waited > 5 * every30.tpotSeconds);
    CHECK(waited < 31 * every30.tpotSeconds);
    // vLLM has no such interval: refused there, naming the key.
    Config vllm = c;
    vllm.framework = Framework::vllm;
    REQUIRE_FALSE(validate(vllm).empty());
    CHECK(validate(vllm).front().field == "scheduler_recv_interval");
}
