// The planner: every layout of TP, CP, PP, EP over the GPUs, every ZeRO stage, sequence parallelism,
// checkpointing mode and micro-batch, through the ledger's own numbers without its text; and the advice
// for one configuration that does not fit.
#include "membudget/plan/plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/evaluate/error_band.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/time/steptime.hpp"
#include "memory/ledgers.hpp"
#include "memory/training.hpp"
#include "plan/kernels.hpp"
#include "plan/layouts.hpp"
#include "plan/rows.hpp"
#include "time/step_constants.hpp"

namespace membudget {

namespace detail {
namespace {

// The peak stage, from the method's text-free kernel. `stages`: the layout's peak-candidate stages
// (peakCandidateStages), computed once per layout.
PeakBytes peakOf(const Config& c, double psi, std::span<const StageSpan> stages) { return findKernel(c.method).kernel(c, psi, stages); }

// What to narrow, named in every refusal of a search too large.
constexpr const char* kNarrow = "narrow it: fewer GPUs, a smaller max_mb or max_cp, a larger global batch per replica, or TP within a node";

// Decides whether the request can be planned at all: a training base, and its GPUs, batch and limits in range.
void checkRequest(const PlanRequest& r, PlanResult& out) {
    const Config& base = r.base;
    if (base.mode != Mode::training)
        out.errors.push_back(
            {"mode", "the planner searches training layouts; mode must be training, got " + std::string(toString(base.mode))});
    if (!(r.gpus >= 1 && r.gpus <= 1048576 && std::floor(r.gpus) == r.gpus))
        out.errors.push_back({"gpus", "gpus must be a whole number from 1 to 1,048,576 for a plan; got " + formatNumber(r.gpus)});
    if (!(r.globalBatch >= 1 && r.globalBatch <= 1e9 && std::floor(r.globalBatch) == r.globalBatch))
        out.errors.push_back({"global_batch", "global_batch must be a whole number of sequences from 1 to 1,000,000,000; got " +
                                                  formatNumber(r.globalBatch)});
    if (!(r.maxMicroBatch >= 1 && r.maxMicroBatch <= 1024))
        out.errors.push_back({"max_mb", "max_mb must be from 1 to 1,024; got " + formatNumber(r.maxMicroBatch)});
    if (!(r.maxCp >= 1 && r.maxCp <= 1024))
        out.errors.push_back({"max_cp", "max_cp must be from 1 to 1,024; got " + formatNumber(r.maxCp)});
    for (auto& problem : validate(base)) out.errors.push_back(problem);
}

// Decides which checkpointing modes the search tries: full, selective and none, and torchtitan's op-level SAC where
// validate() takes it.
std::vector<Checkpointing> checkpointingModes(const Config& base) {
    // The checkpointing modes: full, selective and none, and torchtitan's op-level SAC where validate() takes it.
    std::vector<Checkpointing> modes{Checkpointing::full, Checkpointing::selective, Checkpointing::none};
    Config op = base;
    op.ckpt = Checkpointing::op;
    if (base.framework == Framework::torchtitan && validate(op).empty()) modes.push_back(Checkpointing::op);
    return modes;
}

// The stages of each PP: the peak's candidates (peakCandidateStages) and those the step time computes
// (stepTimeStages).
struct Stages {
    std::vector<StageSpan> peak, step;
};

// One group: a layout's configuration at a ZeRO stage, SP and checkpointing mode, over its micro-batches.
struct Group {
    size_t layout;
    Config* c;
    const Stages* stages;
    const std::vector<double>* microBatches;
    double perReplica;
    size_t mode;
};

// Where the configurations could exceed the budget: counted first, each group of this slice where a
// micro-batch fits kept with its count.
struct Counted {
    std::uint32_t layout;
    std::uint8_t zero, sp, mode;
    std::uint16_t fits;  // a prefix of at most 1,024 micro-batches
    bool operator==(const Counted&) const = default;
};

Counted key(const Group& g, size_t fits) {
    return Counted{static_cast<std::uint32_t>(g.layout), static_cast<std::uint8_t>(g.c->zero), static_cast<std::uint8_t>(g.c->sp),
                   static_cast<std::uint8_t>(g.mode), static_cast<std::uint16_t>(fits)};
}

// The search's size, known before it runs: its configurations, and the static checks it needs at least (one for
// each layout and ZeRO stage).
struct Size {
    double configurations = 0, staticChecks = 0;
};

// One plan's search over its layouts: what every layout's groups share (the limit, the step time's constants, the
// checkpointing modes), what it has found so far (the rows, the counts) and the caches of micro-batches and stages.
struct Search {
    const PlanRequest& r;
    const std::vector<Layout>& layouts;
    PlanResult& out;
    std::vector<Checkpointing> modes;
    bool fsdpOnly;
    double psi = 0, usable = 0, limit = 0;
    StepBandConstants stepConstants{};
    std::vector<double> overheads;
    size_t end = 0, maxRows = 0, compactAt = 0;
    std::map<double, std::vector<double>> microBatchesOf;  // per DP (the per-replica batch), from few DP values
    std::map<double, Stages> stagesOf;
    double ledgers = 0;  // over the layouts walked

    const std::vector<double>& microBatchesFor(double dp);
    Size size();
    void compact();
    void refuse(const std::string& why);
    void limits();
    template <class Visit>
    bool walk(size_t from, size_t to, bool account, Visit&& visit);
    bool staticCheckFails(Group& g, bool account, double perZero);
    size_t makeRows(const Group& g, size_t known);
    PlanRow row(const Group& g, const PeakBytes& kernel) const;
    size_t countFits(const Group& g);
    bool countPass(size_t begin, size_t to, std::vector<Counted>& counted);
    void rowPass(size_t begin, bool counting, const std::vector<Counted>& counted);
};

// Decides the micro-batches a DP tries: the divisors of the per-replica batch up to max_mb.
const std::vector<double>& Search::microBatchesFor(double dp) {
    auto [it, added] = microBatchesOf.try_emplace(dp);
    if (added)
        for (double mb : divisorsOf(r.globalBatch / dp))
            if (mb <= r.maxMicroBatch) it->second.push_back(mb);
    return it->second;
}

// Decides how large the search is: for each layout its micro-batches times the ZeRO stages, SP settings and
// checkpointing modes.
Size Search::size() {
    const double zeroStages = fsdpOnly ? 2 : 4;
    Size n;  // each layout and ZeRO stage needs one ledger at least
    for (const auto& L : layouts) {
        const double zeros = L.dp * L.cp > 1 ? zeroStages : 1, microBatches = static_cast<double>(microBatchesFor(L.dp).size());
        n.configurations += microBatches * zeros * (L.tp > 1 ? 2 : 1) * static_cast<double>(modes.size());
        if (microBatches > 0) n.staticChecks += zeros;
    }
    return n;
}

// Decides which rows the buffer keeps when it is full: its Pareto front and the maxRows best others.
void Search::compact() {
    markPareto(out.rows);
    const size_t front =
        static_cast<size_t>(std::count_if(out.rows.begin(), out.rows.end(), [](const PlanRow& row) { return row.pareto; }));
    cutKeepingFastest(out.rows, front + maxRows);
    compactAt = std::max(compactAt, 2 * out.rows.size());
}

// Refuses the search for the ledgers it needs.
void Search::refuse(const std::string& why) {
    out.errors.push_back({"gpus", "the search is too large: it needs more than " + groupedNumber(r.maxEvaluations) + " ledgers (" + why +
                                      "counted before the search runs), which take more than seconds; " + kNarrow});
    out.rows.clear();
}

// Decides the memory a row may take, and what every row's step time and recomputation share.
void Search::limits() {
    const Config& base = r.base;
    psi = base.params != 0 ? base.params : derivedParameterCount(base);
    const double capacity = std::round(base.gpuGb * kBytesPerGB);
    usable = std::round(capacity * (1 - base.headroom));
    limit = r.includeTight ? capacity : usable;
    // The step time's constants (the model's FLOPs per token, the attention kernel's efficiency, the GPU) are the
    // base's for every row: resolved once here.
    stepConstants = detail::stepBandConstants(base);
    overheads.resize(modes.size());
    for (size_t k = 0; k < modes.size(); ++k) {
        Config c = base;
        c.ckpt = modes[k];
        overheads[k] = recomputeOverhead(c);
    }
}

// Decides whether a ZeRO stage's static memory alone exceeds the limit, which rules out the group's every SP setting,
// checkpointing mode and micro-batch; with `account`, counts the one ledger it took for the layouts of this slice.
bool Search::staticCheckFails(Group& g, bool account, double perZero) {
    Config& c = *g.c;
    // Parameters, gradients and optimizer states do not depend on SP, checkpointing or the
    // micro-batch: when they alone exceed the limit, none of those combinations can fit.
    c.sp = false;
    c.ckpt = Checkpointing::full;
    c.mb = (*g.microBatches)[0];
    c.microbatches = g.perReplica / c.mb;
    if (peakOf(c, psi, g.stages->peak).staticBytes <= limit) return false;
    ++ledgers;
    if (account && g.layout < end) {
        ++out.evaluated;
        out.candidates += perZero;
        out.pruned += perZero - 1;
    }
    return true;
}

// Walks the groups of layouts [from, to) whose static check passes, in the order rows are made; with
// `account`, the static checks that fail count for the layouts of this slice. `visit` returns false to stop.
template <class Visit>
bool Search::walk(size_t from, size_t to, bool account, Visit&& visit) {
    const Config& base = r.base;
    for (size_t li = from; li < to; ++li) {
        const auto& L = layouts[li];
        Config c = layoutConfig(r, L);
        const auto [stagesIt, addedStages] = stagesOf.try_emplace(L.pp);
        if (addedStages) {
            stagesIt->second.peak = peakCandidateStages(c);
            stagesIt->second.step.resize(static_cast<size_t>(L.pp));  // room for every stage: the count is exact
            stagesIt->second.step.resize(stepTimeStages(c, stagesIt->second.step));
        }
        const std::vector<double>& microBatches = microBatchesFor(L.dp);
        const double n = static_cast<double>(microBatches.size());
        if (n == 0) continue;
        Group g{li, &c, &stagesIt->second, &microBatches, r.globalBatch / L.dp, 0};
        const double perZero = n * (L.tp > 1 ? 2 : 1) * static_cast<double>(modes.size());
        for (int zero = 0; zero <= (L.dp * L.cp > 1 ? 3 : 0); ++zero) {
            // FSDP2 frameworks shard all or nothing (validate(): ZeRO 0 or 3).
            if (fsdpOnly && (zero == 1 || zero == 2)) continue;
            c.zero = zero;
            c.overlapParamGather = base.overlapParamGather && zero >= 1;
            if (staticCheckFails(g, account, perZero)) continue;
            for (int sp = 0; sp <= (L.tp > 1 ? 1 : 0); ++sp) {
                // Sequence parallelism splits each rank's sequence over the TP ranks.
                if (sp == 1 && std::fmod(base.seq / L.cp, L.tp) != 0) continue;
                c.sp = sp == 1;
                for (g.mode = 0; g.mode < modes.size(); ++g.mode) {
                    c.ckpt = modes[g.mode];
                    if (!visit(g)) return false;
                }
            }
        }
    }
    return true;
}

// Decides a fitting configuration's row: its layout, its peak and verdict, its recomputation, bubble and step time.
PlanRow Search::row(const Group& g, const PeakBytes& kernel) const {
    const Config& base = r.base;
    const auto& L = layouts[g.layout];
    Config& c = *g.c;
    const double peak = kernel.totalBytes;
    PlanRow row;
    row.tp = L.tp;
    row.pp = L.pp;
    row.dp = L.dp;
    row.cp = L.cp;
    row.ep = L.ep;
    row.zero = c.zero;
    row.mb = c.mb;
    row.microbatches = c.microbatches;
    row.sp = c.sp;
    row.ckpt = c.ckpt;
    row.firstStageLayers = L.firstStageLayers;
    row.lastStageLayers = L.lastStageLayers;
    row.peakBytes = peak;
    row.peakStage = kernel.stage;
    row.headroomBytes = usable - peak;
    // Inside the error band of the measured runs like it: tight, not a fit (kept only when the
    // request includes tight rows).
    row.verdict = peak <= usable && bandPeakBytes(c, peak) <= usable ? Verdict::fits : Verdict::tight;
    if (row.verdict == Verdict::tight && !r.includeTight) return row;
    row.recomputeOverhead = overheads[g.mode];
    row.bubble = pipelineBubbleFraction(L.pp, c.microbatches, c.vpp);
    row.tpCrossesNode = L.tp > base.gpusPerNode;
    row.cpCrossesNode = L.tp * L.cp > base.gpusPerNode && L.cp > 1;
    c.overlapMoeComm = base.overlapMoeComm && moeCommOverlapAllowed(c);
    const StepTime speed = estimateStepBand(c, stepConstants, g.stages->step);
    row.stepSeconds = speed.stepSeconds;
    row.tokensPerSecondPerGpu = speed.tokensPerSecondPerGpu;
    row.tokensPerSecondPerGpuLow = speed.tokensPerSecondPerGpuLow;
    row.tokensPerSecondPerGpuHigh = speed.tokensPerSecondPerGpuHigh;
    row.mfu = speed.mfu;
    row.runDays = speed.runSeconds / 86400;
    row.runGpuHours = speed.runGpuHours;
    row.runCostUsd = speed.runCostUsd;
    return row;
}

// The group's rows, one per micro-batch that fits: its ledger and step time. `known`: how many fit, as
// counted; where it was not counted, up to the first that does not fit. Returns how many fit.
size_t Search::makeRows(const Group& g, size_t known) {
    Config& c = *g.c;
    size_t m = 0;
    for (; m < std::min(known, g.microBatches->size()); ++m) {
        c.mb = (*g.microBatches)[m];
        c.microbatches = g.perReplica / c.mb;
        const PeakBytes kernel = peakOf(c, psi, g.stages->peak);
        if (!(kernel.totalBytes <= limit)) break;
        PlanRow made = row(g, kernel);
        if (made.verdict == Verdict::tight && !r.includeTight) continue;
        out.rows.push_back(std::move(made));
        ++out.fitting;
        if (out.rows.size() >= compactAt) compact();
    }
    return m;
}

// Decides how many of the group's micro-batches fit without a row for any: galloped, then bisected (memory only grows
// with the micro-batch). Returns the first that does not fit (the count of those that do); counts its ledgers.
size_t Search::countFits(const Group& g) {
    Config& c = *g.c;
    const size_t n = g.microBatches->size();
    auto fits = [&](size_t m) {
        c.mb = (*g.microBatches)[m];
        c.microbatches = g.perReplica / c.mb;
        return peakOf(c, psi, g.stages->peak).totalBytes <= limit;
    };
    size_t known = 0, fails = n;  // `known` fits; `fails` does not (n: none tried beyond)
    if (!fits(0)) {
        fails = 0;
    } else {
        for (size_t step = 1; known + step < n; step *= 2) {
            if (!fits(known + step)) {
                fails = known + step;
                break;
            }
            known += step;
        }
        while (fails - known > 1) {
            const size_t mid = known + (fails - known) / 2;
            (fits(mid) ? known : fails) = mid;
        }
    }
    ledgers += static_cast<double>(std::min(fails + 1, n));
    return fails;
}

// The counting pass, over layouts [begin, to): each group of this slice where a micro-batch fits kept with its
// count. False where the ledgers it needs pass the budget.
bool Search::countPass(size_t begin, size_t to, std::vector<Counted>& counted) {
    return walk(begin, to, false, [&](const Group& g) {
        const size_t fails = countFits(g);
        if (g.layout < end && fails > 0) counted.push_back(key(g, fails));
        return ledgers <= r.maxEvaluations;
    });
}

// The rows, in one pass: up to the first micro-batch that does not fit, or as many as were counted.
void Search::rowPass(size_t begin, bool counting, const std::vector<Counted>& counted) {
    size_t next = 0;
    walk(begin, end, true, [&](const Group& g) {
        size_t known = g.microBatches->size();
        if (counting) {
            known = next < counted.size() && counted[next] == key(g, counted[next].fits) ? counted[next++].fits : 0;
        }
        const size_t n = g.microBatches->size();
        const double decided = static_cast<double>(std::min(makeRows(g, known) + 1, n));
        out.evaluated += decided;
        out.candidates += static_cast<double>(n);
        out.pruned += static_cast<double>(n) - decided;
        return true;
    });
}

}  // namespace
}  // namespace detail

double recomputeOverhead(const Config& c) noexcept {
    if (c.ckpt == Checkpointing::full) return 1.0 / 3;
    if (c.ckpt != Checkpointing::selective && c.ckpt != Checkpointing::op) return 0;
    const double embeddings = c.vocab * c.hidden * (c.tiedEmbeddings ? 1 : 2);
    const double perLayer = (activeParameterCount(c) - embeddings) / c.layers;  // what a token's GEMMs touch
    const double attentionCore = 4 * c.seq * c.heads * headDimOf(c);            // QKᵀ and AV, per token
    // op (torchtitan's op-level SAC): every other matmul's forward again (_save_list keeps the others and SDPA).
    if (c.ckpt == Checkpointing::op) return perLayer / (3 * (2 * perLayer + attentionCore));
    return attentionCore / (3 * (2 * perLayer + attentionCore));
}

PlanResult plan(const PlanRequest& r) noexcept {
    PlanResult out;
    try {
        const Config& base = r.base;
        detail::checkRequest(r, out);
        if (!out.errors.empty()) return out;

        // The search's size is known before it runs: its layouts, and for each its micro-batches (the divisors of
        // the per-replica batch up to max_mb) times the ZeRO stages, SP settings and checkpointing modes. Past
        // these limits it would take more than seconds; it stops and says what to narrow instead.
        constexpr size_t kMaxLayouts = 200000;
        constexpr double kMaxConfigurations = 40e6;
        const std::vector<detail::Layout> layouts = detail::layoutsOf(r, kMaxLayouts);
        const std::string narrow = detail::kNarrow;
        if (layouts.size() > kMaxLayouts) {
            out.errors.push_back({"gpus", "the search is too large: more than " + detail::groupedNumber(static_cast<double>(kMaxLayouts)) +
                                              " layouts of TP, CP, PP and EP; " + narrow});
            return out;
        }
        out.layouts = static_cast<double>(layouts.size());
        detail::Search search{r, layouts, out, detail::checkpointingModes(base), shardsAllOrNothing(base.framework)};
        const auto [configurations, staticChecks] = search.size();
        if (configurations > kMaxConfigurations) {
            out.errors.push_back({"gpus", "the search is too large: " + detail::groupedNumber(configurations) + " configurations over " +
                                              detail::groupedNumber(out.layouts) + " layouts (at most " +
                                              detail::groupedNumber(kMaxConfigurations) + "); " + narrow});
            return out;
        }
        search.limits();
        const auto begin = static_cast<size_t>(std::clamp(r.layoutBegin, 0.0, out.layouts));
        const auto end = static_cast<size_t>(r.layoutEnd == 0 ? out.layouts : std::clamp(r.layoutEnd, 0.0, out.layouts));
        search.end = end;
        const bool whole = begin == 0 && end == layouts.size();
        // Rows are kept in a bounded buffer: past a threshold it is cut to its Pareto front and the maxRows best
        // others (a row dominated in the buffer is dominated in the whole search, and maxRows dominated rows with
        // a smaller peak rank before it), so memory stays bounded whatever fits.
        search.maxRows = static_cast<size_t>(std::clamp(r.maxRows, 1.0, 1e7));
        search.compactAt = std::max<size_t>(4 * search.maxRows, 65536);
        // Room for every row up to the first cut, once: growing the buffer by doubling copied the rows into fresh
        // pages each time (the page faults were a fifth of a 16,384-GPU plan). Pages reserved and never written cost
        // nothing.
        out.rows.reserve(static_cast<size_t>(std::min(configurations, static_cast<double>(search.compactAt))));
        // A configuration is decided by its own ledger when it fits or is the first micro-batch that does not
        // (`evaluated`); the larger ones are pruned, since memory only grows with the micro-batch. The budget is on
        // those ledgers. Where the configurations could exceed it, the search is counted before it runs (the fitting
        // micro-batches galloped then bisected) and refused from the count, before any row is made; the first
        // slice counts the whole plan's. Otherwise the rows are made in one pass.
        if (staticChecks > r.maxEvaluations) {
            search.refuse("one at least for each of its " + detail::groupedNumber(staticChecks) + " layouts and ZeRO stages, ");
            return out;
        }
        std::vector<detail::Counted> counted;
        const bool counting = configurations > r.maxEvaluations;
        if (counting && !search.countPass(begin, begin == 0 ? layouts.size() : end, counted)) {
            search.refuse("");
            return out;
        }
        search.rowPass(begin, counting, counted);
        // Rows come back Pareto first, then by peak memory: a whole plan's maxRows best; a slice its own Pareto
        // front and maxRows more, so that the caller who joins the slices, marks the front again and keeps maxRows
        // gets exactly the whole plan's rows.
        search.compact();
        if (whole) out.recommended = finishPlanRows(out.rows, static_cast<double>(search.maxRows));
        out.dropped = out.fitting - static_cast<double>(out.rows.size());
    } catch (...) {
        out = PlanResult{};
        out.errors = {{"", "internal error: out of memory while planning"}};
    }
    return out;
}

}  // namespace membudget
