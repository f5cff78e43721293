// TensorRT-LLM as a serving engine (framework=trtllm; docs/inference.md, "TensorRT-LLM"): its KV cache's share of what
// the weights and the profiling run leave, its whole-prompt in-flight batching, its CUDA graphs for decode-only batches
// of captured sizes, and the keys that are its own.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/serving_plan.hpp"
#include "membudget/time/serving.hpp"
#include "time/serving_bench.hpp"

using namespace membudget;

namespace {

Config served(Framework engine, double mb) {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-8b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.gpu = "h100-80gb";
    c.mode = Mode::inference;
    c.framework = engine;
    c.method = Method::membudget;
    c.tp = 1, c.pp = 1, c.dp = 1, c.ep = 1;
    c.weightDtype = WeightDtype::fp8;
    c.mb = mb;
    c.seq = 2000;
    c.inputTokens = 1000;
    c.outputTokens = 1000;
    return c;
}

bool hasError(const Config& c, const std::string& key) {
    for (const auto& e : validate(c))
        if (e.field == key) return true;
    return false;
}

// A pass of one second plus one millisecond per prompt token: a pass's time grows with the prompt tokens it carries.
double promptBoundPass(const void*, double, double, double prompt, double) { return 1 + prompt / 1000; }

}  // namespace

TEST_CASE("trtllm: the KV cache gets (1 - headroom) of what everything else leaves, not of the whole GPU", "[trtllm][inference]") {
    const Config c = served(Framework::trtllm, 64);
    REQUIRE(validate(c).empty());
    const Result r = evaluate(c);
    REQUIRE(r.ok());
    double kv = 0;
    for (const Line& l : r.lines)
        if (l.id == LineId::kvCache) kv += l.bytes;
    REQUIRE(kv > 0);
    // _util.py KvCacheCreator._cal_max_memory: (total − peak + temporary KV) × free_gpu_memory_fraction.
    const double capacity = r.capacityBytes, others = r.totalBytes - kv;
    CHECK(r.usableBytes == std::round(capacity - c.headroom * (capacity - others)));
    // vLLM's headroom is of the whole GPU: the same fraction leaves TensorRT-LLM's cache more room.
    const Result v = evaluate(served(Framework::vllm, 64));
    CHECK(v.usableBytes == std::round(capacity * (1 - c.headroom)));
    CHECK(r.usableBytes > v.usableBytes);
    CHECK(r.maxSequences > v.maxSequences);
    // The most sequences that fit is the largest mb whose KV cache stays under that line.
    Config at = c;
    at.mb = r.maxSequences;
    CHECK(fitOf(at).totalBytes <= fitOf(at).usableBytes);
    at.mb = r.maxSequences + 1;
    CHECK(fitOf(at).totalBytes > fitOf(at).usableBytes);
}

TEST_CASE("trtllm: its own keys are refused elsewhere, and a prompt must fit max_num_tokens unless chunked", "[trtllm][validate]") {
    Config c = served(Framework::trtllm, 8);
    c.inputTokens = 9000;
    c.seq = 10000;
    CHECK(hasError(c, "input_tokens"));  // llm.py _check_arguments: "should not exceed max_num_tokens"
    c.chunkedPrefill = true;
    CHECK_FALSE(hasError(c, "input_tokens"));
    c.workspaceTokens = 9000;
    c.chunkedPrefill = false;
    CHECK(validate(c).empty());

    Config v = served(Framework::vllm, 8);
    v.cudaGraphPadding = true;
    CHECK(hasError(v, "cuda_graph_padding"));
    v.cudaGraphPadding = false;
    v.chunkedPrefill = true;
    CHECK(hasError(v, "chunked_prefill"));

    // enable_attention_dp gives every TP rank its own requests: attention_dp is 1 or tp.
    Config d = served(Framework::trtllm, 64);
    d.tp = 8;
    d.attentionDp = 4;
    CHECK(hasError(d, "attention_dp"));
    d.attentionDp = 8;
    CHECK_FALSE(hasError(d, "attention_dp"));
}

TEST_CASE("trtllm: naming it brings its 32-token KV blocks, and leaving it takes its switches", "[trtllm][assignments]") {
    const std::vector<Assignment> named{{"mode", "inference"}, {"method", "membudget"}, {"framework", "trtllm"}};
    const ParsedConfig a = applyAssignments(named);
    CHECK(a.config.kvBlock == 32);
    const std::vector<Assignment> withBlock{{"mode", "inference"}, {"method", "membudget"}, {"framework", "trtllm"}, {"kv_block", "64"}};
    CHECK(applyAssignments(withBlock).config.kvBlock == 64);
    Config padded = a.config;
    padded.cudaGraphPadding = true;
    const std::vector<Assignment> toVllm{{"framework", "vllm"}};
    CHECK_FALSE(applyAssignments(toVllm, padded).config.cudaGraphPadding);
}

TEST_CASE("trtllm: a decode batch of a size it did not capture runs eagerly unless padded", "[trtllm][serving]") {
    // A small model at 40 short requests: the host's launches outlast the step's work. TensorRT-LLM captures 1-32, 64 and
    // 128 by default (_generate_cuda_graph_batch_sizes); vLLM pads 40 to a captured size.
    Config c = served(Framework::trtllm, 40);
    applyModelPreset(c, *findModelPreset("llama-3.2-1b"));
    c.weightDtype = WeightDtype::fp8;
    c.seq = 200, c.inputTokens = 100, c.outputTokens = 100;
    REQUIRE(validate(c).empty());
    const ServingTime eager = estimateServingTimeValue(c);
    c.cudaGraphPadding = true;
    const ServingTime padded = estimateServingTimeValue(c);
    const auto launch = [](const ServingTime& s) { return s.decodeSeconds[static_cast<size_t>(DecodePart::launch)]; };
    CHECK(launch(eager) > launch(padded));
    c.cudaGraphPadding = false;
    c.mb = 32;
    const ServingTime captured = estimateServingTimeValue(c);
    c.cudaGraphPadding = true;
    CHECK(launch(captured) == Approx(launch(estimateServingTimeValue(c))));
    // Past the largest captured batch even padding cannot help.
    c.mb = 200;
    const ServingTime beyond = estimateServingTimeValue(c);
    c.cudaGraphMaxBatch = 256;
    CHECK(launch(beyond) > launch(estimateServingTimeValue(c)));
}

TEST_CASE("trtllm: a benchmark's prompts go whole into a pass or wait, where vLLM chunks them", "[trtllm][benchmark]") {
    // Three prompts of 3,000 tokens sent at once, 8,192 tokens a pass, a pass taking 1 s + 1 ms a prompt token.
    detail::BenchmarkLoad load;
    load.prompts = 3;
    load.maxConcurrency = 3;
    load.input = 3000;
    load.output = 2;
    load.tokenBudget = 8192;
    const detail::PassSeconds pass{nullptr, &promptBoundPass};
    detail::BenchmarkFigures trtllm, vllm;
    load.engine = Framework::trtllm;
    load.wholePrompts = true;
    REQUIRE(detail::simulateBenchmark(load, pass, trtllm));
    // TensorRT-LLM: two prompts (6,000 tokens) in the first pass, the third waits for the second pass, beside the two
    // decodes: first tokens at 7, 7 and 7 + 1 + 3.
    CHECK(trtllm.ttftMean == Approx((7 + 7 + 11.0) / 3));
    // vLLM: the first pass fills the budget with the third prompt's first 2,192 tokens, the second takes its 808 left:
    // first tokens at 9.192, 9.192 and 9.192 + 1 + 0.808.
    load.engine = Framework::vllm;
    load.wholePrompts = false;
    REQUIRE(detail::simulateBenchmark(load, pass, vllm));
    CHECK(vllm.ttftMean == Approx((9.192 + 9.192 + 11.0) / 3));
    CHECK(trtllm.ttftMean < vllm.ttftMean);
}

TEST_CASE("trtllm: the serving planner tries enable_attention_dp and keeps the experts inside one server", "[trtllm][plan]") {
    ServingPlanRequest request;
    request.base = served(Framework::trtllm, 64);
    applyModelPreset(request.base, *findModelPreset("qwen3-30b-a3b"));
    applyGpuPreset(request.base, *findGpuPreset("h100-80gb"));
    request.base.seq = 2000, request.base.inputTokens = 1000, request.base.outputTokens = 1000;
    request.gpus = 8;
    const ServingPlan plan = planServing(request);
    REQUIRE(plan.errors.empty());
    bool attentionDp = false;
    for (const ServingPlanRow& row : plan.rows) {
        const Config c = servingRowConfig(request.base, row);
        INFO("tp " << row.tp << " dp " << row.dp << " ep " << row.ep << " attention_dp " << row.attentionDp);
        REQUIRE(validate(c).empty());
        // enable_attention_dp is all of TP or nothing; EP within the server (moe_expert_parallel_size divides tp).
        CHECK((row.attentionDp == 1 || row.attentionDp == row.tp));
        if (row.ep > 1) CHECK(row.dp == 1);
        attentionDp = attentionDp || row.attentionDp > 1;
    }
    CHECK(attentionDp);
}

TEST_CASE("trtllm: under enable_attention_dp each rank prefills within its own max_num_tokens", "[trtllm][benchmark]") {
    // DeepSeek-V3 on 8 H200s, 64 prompts of 1,024 tokens sent at once, max_num_tokens 1,151 (NVIDIA's DeepSeek-R1 blog's
    // setting): one prompt a pass fits a budget. Each of 8 ranks takes its own 8 requests, one prompt a pass; with one
    // budget for the server the 64 would queue one pass each.
    Config c = served(Framework::trtllm, 64);
    applyModelPreset(c, *findModelPreset("deepseek-v3"));
    applyGpuPreset(c, *findGpuPreset("h200"));
    c.gpu = "h200";
    c.tp = 8, c.ep = 8, c.etp = 1;
    c.seq = 1088, c.inputTokens = 1024, c.outputTokens = 64;
    c.workspaceTokens = 1151;
    c.numPrompts = 64;
    c.attentionDp = 8;
    REQUIRE(validate(c).empty());
    const ServingTime ranks = estimateServingTimeValue(c);
    c.attentionDp = 1;
    REQUIRE(validate(c).empty());
    const ServingTime server = estimateServingTimeValue(c);
    REQUIRE(ranks.benchmarked);
    REQUIRE(server.benchmarked);
    // The last first token: after 8 passes that each carry every rank's prompt through the shared experts, against 64
    // passes of one prompt each in the server's one budget (about 1.75 times as long here).
    CHECK(server.ttftP99Seconds > 1.5 * ranks.ttftP99Seconds);
    CHECK(ranks.outputTokensPerSecondPerGpu > server.outputTokensPerSecondPerGpu);
}

TEST_CASE("a benchmark runs no more requests at once than the KV cache holds", "[trtllm][benchmark]") {
    // trtllm-serve's max_batch_size 2048 on one H100 for Llama 3.1 8B at 2,000 tokens a request: the KV cache holds a
    // few hundred, and GUARANTEED_NO_EVICT queues the rest. The engine runs as it would with that many sent at once; the
    // requests sent beyond them wait in its queue, which their first token counts.
    Config c = served(Framework::trtllm, 2048);
    c.numPrompts = 3000;
    REQUIRE(validate(c).empty());
    const Result r = evaluate(c);
    REQUIRE(r.ok());
    REQUIRE(r.maxSequences > 0);
    REQUIRE(r.maxSequences < c.mb);
    CHECK(r.servingTime.admittedSequences == r.maxSequences);
    Config admitted = c;
    admitted.mb = r.maxSequences;
    const ServingTime same = estimateServingTime(admitted);
    CHECK(same.admittedSequences == 0);
    // The same passes within 1% (a queued request is taken in at the pass a slot frees, a sent one a pass later).
    CHECK(r.servingTime.outputTokensPerSecondPerGpu == Approx(same.outputTokensPerSecondPerGpu).epsilon(0.01));
    CHECK(r.servingTime.tpotSeconds == Approx(same.tpotSeconds).epsilon(0.01));
    CHECK(r.servingTime.ttftSeconds > 2 * same.ttftSeconds);
    // Without a benchmark the steady state stays that of mb in flight (the verdict says it does not fit).
    c.numPrompts = 0;
    CHECK(evaluate(c).servingTime.admittedSequences == 0);
}
