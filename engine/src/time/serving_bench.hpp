// A serving benchmark as `vllm bench serve` and SGLang's `bench_serving` run it (docs/inference.md, "Under a
// benchmark"): num_prompts requests with lengths drawn as the random dataset draws them, sent at request_rate (Poisson)
// or all at once, at most `mb` in flight, against one replica whose engine schedules them step by step. Each step's
// time comes from the serving model's forward pass (serving.cpp); this file only decides which tokens each step
// carries and when each request gets its first and last token, then reports what the benchmark reports.
#pragma once

#include "membudget/base/choices.hpp"

namespace membudget::detail {

// One forward pass of the replica, in seconds: `decode` requests one token each at mean context `context`, plus `prompt`
// prompt tokens attending `promptContext` tokens each on average. Bound to the serving model at one end of the band.
struct PassSeconds {
    const void* model;
    double (*seconds)(const void* model, double decode, double context, double prompt, double promptContext);
    double operator()(double decode, double context, double prompt, double promptContext) const {
        return seconds(model, decode, context, prompt, promptContext);
    }
};

// The benchmark: what the client sends and how the engine schedules it.
struct BenchmarkLoad {
    Framework engine = Framework::vllm;  // vLLM, TensorRT-LLM: prompts beside decodes; SGLang: prefill batches on their own
    bool wholePrompts = false;           // TensorRT-LLM without chunked prefill: a prompt waits until it fits a pass whole
    double prompts = 0;                  // requests sent to this replica
    double requestRate = 0;              // requests per second to this replica, Poisson arrivals; 0: all at once
    double maxConcurrency = 1;           // sent and not yet answered at once (--max-concurrency)
    double engineLimit = 0;              // the requests the engine runs at once, the rest waiting in its queue; 0: no limit
    double input = 1, output = 1;        // the dataset's nominal lengths
    double rangeRatio = 1;               // lengths drawn uniformly from [ratio × nominal, nominal]; 1: fixed
    double tokenBudget = 8192;           // tokens one forward pass takes (max_num_batched_tokens, chunked_prefill_size)
    double recvInterval = 1;             // SGLang: decode passes between two reads of new requests (--scheduler-recv-interval)
};

// What the benchmark prints, in seconds and per second of the run.
struct BenchmarkFigures {
    double ttftMean = 0, ttftP99 = 0;  // first token after the request was sent
    double tpotMean = 0, tpotP99 = 0;  // per request: (latency − TTFT) / (output − 1)
    double itlMean = 0, itlP99 = 0;    // every gap between two tokens of a request
    double latencyMean = 0;            // the request's end-to-end latency
    double duration = 0;               // from the first request sent to the last token
    double requestsPerSecond = 0, outputTokensPerSecond = 0;
    double meanInput = 0, meanOutput = 0;  // the drawn lengths' means
};

// The largest benchmark simulated (bounded time: each request adds a few events).
inline constexpr double kMaxBenchmarkPrompts = 10000;

// Runs the benchmark on one replica; false where it cannot (no prompts, a pass that takes no time, memory).
bool simulateBenchmark(const BenchmarkLoad& load, const PassSeconds& pass, BenchmarkFigures& out) noexcept;

}  // namespace membudget::detail
