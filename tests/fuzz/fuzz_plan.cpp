// The planner under any request a user can make within the fields' ranges: it answers or refuses with a
// named problem, within its evaluation budget (libFuzzer's -timeout and -rss_limit_mb in scripts/fuzz.sh are
// the per-input time and memory bounds), and what it answers holds together: rows within the limit, in
// order, counted, each the ledger of its own configuration.
#include <algorithm>
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
