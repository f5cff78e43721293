// The planner under any request a user can make within the fields' ranges: it answers or refuses with a
// named problem, within its evaluation budget (libFuzzer's -timeout and -rss_limit_mb in scripts/fuzz.sh are
// the per-input time and memory bounds), and what it answers holds together: rows within the limit, in
// order, counted, each the ledger of its own configuration.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

using namespace membudget;

namespace {

struct Reader {
    const std::uint8_t* data;
    std::size_t size, at = 0;
    std::uint8_t byte() { return at < size ? data[at++] : 0; }
    double pick(std::initializer_list<double> values) { return values.begin()[byte() % values.size()]; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Reader in{data, size};
    PlanRequest request;
    const auto models = modelPresets();
    if (const std::uint8_t m = in.byte(); m % 4 != 0) {
        applyModelPreset(request.base, models[m % models.size()]);
    } else {
        // A custom model from a few wide choices, extremes included.
        Config& c = request.base;
        c.model = "custom";
        c.params = 0;
        c.heads = in.pick({1, 8, 12, 64, 720, 55440});
        c.kvHeads = in.byte() % 2 ? c.heads : 1;
        c.hidden = c.heads * in.pick({1, 8, 64, 128});
        c.layers = in.pick({1, 2, 7, 96, 1000, 10000});
        c.ffn = in.pick({1, 64, 4096, 221760});
        c.vocab = in.pick({1, 64, 128256});
        c.experts = in.pick({0, 0, 2, 8, 2520});
        c.expertsPerToken = 1;
        c.headDim = 0;
        c.kvLoraRank = c.qLoraRank = c.qkNopeDim = c.vHeadDim = 0;
        c.mtpLayers = c.firstDenseLayers = 0;
        c.sharedExpertFfn = 0;
        c.sharedExpertGate = false;
    }
    const auto gpus = gpuPresets();
    applyGpuPreset(request.base, gpus[in.byte() % gpus.size()]);
    request.base.tp = request.base.pp = request.base.dp = request.base.cp = request.base.ep = 1;
    request.base.etp = 0;
    request.base.vpp = 1;
    request.base.firstStageLayers = request.base.lastStageLayers = 0;
    request.base.seq = in.pick({1, 16, 2048, 8192, 131072});
    request.base.method = static_cast<Method>(in.byte() % ChoiceNames<Method>::names.size());
    request.base.precision = static_cast<Precision>(in.byte() % ChoiceNames<Precision>::names.size());
    request.gpus = in.pick({1, 7, 64, 720, 16384, 720720, 1048576});
    request.globalBatch = in.pick({1, 7, 256, 2048, 720720, 1e9});
    request.maxMicroBatch = in.pick({1, 4, 16, 1024});
    request.maxCp = in.pick({1, 16, 1024});
    request.tpAcrossNodes = in.byte() % 2;
    request.includeTight = in.byte() % 2;
    request.unevenPipeline = in.byte() % 2;
    request.maxRows = in.pick({1, 50, 20000});
    // A smaller evaluation budget than the CLI's 2 M: the same code path, and each input stays well inside
    // libFuzzer's per-input timeout under the sanitizers (which slow the kernel several times).
    request.maxEvaluations = in.pick({1000, 200000});
    // A quarter of the inputs plan serving instead (docs/inference.md, "Serving plan").
    if (in.byte() % 4 == 0) {
        ServingPlanRequest serving;
        serving.base = request.base;
        Config& c = serving.base;
        c.mode = Mode::inference;
        c.method = Method::membudget;
        c.framework = in.byte() % 2 ? Framework::vllm : Framework::sglang;
        c.inputTokens = std::min(c.seq - 1, in.pick({0, 1, 128, 4096}));
        c.outputTokens = c.inputTokens == 0 ? 0 : std::min(c.seq - c.inputTokens, in.pick({1, 64, 2048}));
        if (c.seq < 2) c.inputTokens = c.outputTokens = 0;
        serving.gpus = request.gpus;
        serving.ttftLimitSeconds = in.pick({0, 1e-6, 0.5});
        serving.tpotLimitSeconds = in.pick({0, 1e-6, 0.05});
        serving.maxConcurrency = in.pick({1, 256, 65536});
        serving.tpAcrossNodes = request.tpAcrossNodes;
        if (!validate(c).empty()) return 0;
        const ServingPlan plan = planServing(serving);
        const std::string where = encodeQuery(c) + " gpus " + std::to_string(serving.gpus);
        if (!plan.errors.empty()) {
            fuzz::check(plan.rows.empty() && !plan.errors[0].message.empty(), "a refused serving plan kept rows", where);
            return 0;
        }
        fuzz::check(plan.recommended == (plan.rows.empty() ? -1 : 0), "the recommended row is not the first", where);
        bool meeting = true;
        for (const ServingPlanRow& row : plan.rows) {
            fuzz::check(row.tp * row.pp * row.dp == serving.gpus, "a serving row that does not use the GPUs", where);
            fuzz::check(row.peakBytes <= row.usableBytes, "a serving row over the headroom line", where);
            fuzz::check(row.concurrency >= 1 && row.concurrency <= serving.maxConcurrency, "a concurrency out of range", where);
            fuzz::check(std::isfinite(row.tpotSeconds) && row.tpotSeconds > 0 && std::isfinite(row.ttftSeconds) && row.ttftSeconds > 0,
                        "a serving time that is not finite and positive", where);
            fuzz::check(meeting || !row.meetsTargets, "a row meeting the targets after one that misses them", where);
            meeting = row.meetsTargets;
        }
        return 0;
    }
    if (!validate(request.base).empty()) return 0;

    const PlanResult plan = membudget::plan(request);
    if (!plan.errors.empty()) {
        for (const auto& e : plan.errors) fuzz::check(!e.message.empty(), "a plan error without a message");
        fuzz::check(plan.rows.empty() || plan.errors[0].message.find("too large") == std::string::npos, "a refused search kept rows");
        return 0;
    }
    const std::string where = encodeQuery(request.base) + " gpus " + std::to_string(request.gpus);
    fuzz::check(plan.evaluated <= request.maxEvaluations, "the search evaluated past its budget", where);
    fuzz::check(plan.evaluated + plan.pruned == plan.candidates, "evaluated + pruned is not the candidates", where);
    fuzz::check(static_cast<double>(plan.rows.size()) <= request.maxRows, "more rows than maxRows", where);
    fuzz::check(plan.dropped == plan.fitting - static_cast<double>(plan.rows.size()), "dropped is not fitting less the rows kept", where);
    const double capacity = std::round(request.base.gpuGb * kBytesPerGB);
    const double limit = request.includeTight ? capacity : std::round(capacity * (1 - request.base.headroom));
    bool paretoPart = true;
    for (std::size_t i = 0; i < plan.rows.size(); ++i) {
        const PlanRow& row = plan.rows[i];
        fuzz::check(row.peakBytes <= limit, "a row over the limit", where);
        fuzz::check(row.tp * row.pp * row.cp * row.dp == request.gpus, "a row that does not use the GPUs", where);
        if (!row.pareto) paretoPart = false;
        fuzz::check(row.pareto == paretoPart || !row.pareto, "a Pareto row after a non-Pareto one", where);
        if (i > 0 && row.pareto == plan.rows[i - 1].pareto)
            fuzz::check(row.peakBytes >= plan.rows[i - 1].peakBytes, "rows out of peak order", where);
    }
    // The first rows are their configurations' own ledgers.
    for (std::size_t i = 0; i < std::min<std::size_t>(plan.rows.size(), 3); ++i) {
        const Result r = evaluate(planRowConfig(request.base, plan.rows[i]));
        fuzz::check(r.ok() && r.totalBytes == plan.rows[i].peakBytes, "a row's peak is not its configuration's ledger", where);
    }
    return 0;
}
