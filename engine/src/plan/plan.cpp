// The planner: every layout of TP, CP, PP, EP over the GPUs, every ZeRO stage, sequence parallelism,
// checkpointing mode and micro-batch, through the ledger's own numbers without its text; and the advice
// for one configuration that does not fit.
#include "membudget/plan/plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
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

namespace membudget {

namespace detail {
namespace {

std::vector<double> divisorsOf(double value) {
    std::vector<double> out;
    for (double d = 1; d * d <= value; ++d)
        if (std::fmod(value, d) == 0) {
            out.push_back(d);
            if (d * d != value) out.push_back(value / d);
        }
    std::sort(out.begin(), out.end());
    return out;
}

// The peak stage, from the method's text-free kernel. `stages`: the layout's peak-candidate stages
// (peakCandidateStages), computed once per layout.
PeakBytes peakOf(const Config& c, double psi, const std::vector<StageSpan>& stages) { return findKernel(c.method).kernel(c, psi, stages); }

struct Layout {
    double tp, cp, pp, dp, ep, firstStageLayers, lastStageLayers;
};

// When PP does not divide the layers, the engine's split (stageLayers) gives the stages after the first one
// layer more; Megatron-LM expresses it with --pipeline-model-parallel-layout.
bool splitLayers(const Config& c, double pp, bool uneven, double& first, double& last) {
    first = last = 0;
    return std::fmod(c.layers, pp) == 0 || uneven;
}

// The configuration a layout stands for before the planner's own knobs (ZeRO, SP, checkpointing, micro-batch).
Config layoutConfig(const PlanRequest& r, const Layout& L) {
    Config c = r.base;
    c.gpus = 0;
    c.vpp = 1;
    c.tp = L.tp;
    c.cp = L.cp;
    c.pp = L.pp;
    c.dp = L.dp;
    c.ep = L.ep;
    c.firstStageLayers = L.firstStageLayers;
    c.lastStageLayers = L.lastStageLayers;
    c.mb = 1;
    c.microbatches = r.globalBatch / L.dp;
    c.sp = false;
    c.zero = 0;
    // Megatron-LM's --overlap-param-gather overlaps the distributed optimizer's gather: a ZeRO-0 row has none.
    c.overlapParamGather = false;
    c.overlapMoeComm = false;
    c.pipelineLayout.clear();  // the layouts are the planner's own even splits
    return c;
}

// Every layout of TP, CP, PP (and EP) over the GPUs that validate() accepts; `limit`: stop past this many (the
// caller refuses a search that large).
std::vector<Layout> layoutsOf(const PlanRequest& r, size_t limit) {
    const Config& c = r.base;
    std::vector<Layout> out;
    auto add = [&](const Layout& layout) {
        if (validate(layoutConfig(r, layout)).empty()) out.push_back(layout);  // a rule the search does not know (ETP with EP)
        return out.size() <= limit;
    };
    for (double tp : divisorsOf(r.gpus)) {
        if (std::fmod(c.heads, tp) != 0) continue;
        if (c.kvLoraRank == 0 && std::fmod(c.kvHeads, tp) != 0 && std::fmod(tp, c.kvHeads) != 0) continue;
        if (!r.tpAcrossNodes && tp > c.gpusPerNode) continue;
        for (double cp : divisorsOf(r.gpus / tp)) {
            if (cp > r.maxCp || std::fmod(c.seq, cp) != 0) continue;
            for (double pp : divisorsOf(r.gpus / (tp * cp))) {
                if (pp > c.layers) continue;
                double first = 0, last = 0;
                if (!splitLayers(c, pp, r.unevenPipeline, first, last)) continue;
                const double dp = r.gpus / (tp * cp * pp);
                if (std::fmod(r.globalBatch, dp) != 0) continue;
                if (c.experts == 0) {
                    if (!add({tp, cp, pp, dp, 1, first, last})) return out;
                    continue;
                }
                const double etp = c.etp != 0 ? c.etp : tp;
                for (double ep : divisorsOf(c.experts))
                    if (std::fmod(tp * cp * dp, etp * ep) == 0 && !add({tp, cp, pp, dp, ep, first, last})) return out;
            }
        }
    }
    return out;
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

void markPareto(std::vector<PlanRow>& rows) noexcept {
    try {
        using Costs = std::array<double, 6>;
        auto costs = [](const PlanRow& r) {
            return Costs{
                r.recomputeOverhead, r.bubble, r.tp * r.cp, r.zero >= 3 ? 1.0 : 0.0, (r.tpCrossesNode || r.cpCrossesNode) ? 1.0 : 0.0,
                r.peakBytes};
        };
        // Sorted by the discrete costs, then bubble and peak: within a run of equal discrete costs the
        // front is a staircase over (bubble, peak); only those candidates are then compared across runs.
        std::vector<size_t> order(rows.size());
        std::vector<Costs> keys(rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            order[i] = i;
            keys[i] = costs(rows[i]);
            rows[i].pareto = false;
        }
        auto sortKey = [&](size_t i) { return std::tie(keys[i][0], keys[i][2], keys[i][3], keys[i][4], keys[i][1], keys[i][5]); };
        std::sort(order.begin(), order.end(),
                  [&](size_t a, size_t b) { return sortKey(a) < sortKey(b) || (sortKey(a) == sortKey(b) && a < b); });
        std::vector<size_t> candidates;
        double bestPeak = INFINITY;
        for (size_t k = 0; k < order.size(); ++k) {
            const size_t i = order[k];
            const bool newGroup =
                k == 0 || std::tie(keys[i][0], keys[i][2], keys[i][3], keys[i][4]) !=
                              std::tie(keys[order[k - 1]][0], keys[order[k - 1]][2], keys[order[k - 1]][3], keys[order[k - 1]][4]);
            if (newGroup) bestPeak = INFINITY;
            const bool tiesPrevious = !newGroup && keys[order[k - 1]] == keys[i] && rows[order[k - 1]].pareto;
            if (keys[i][5] < bestPeak || tiesPrevious) {
                rows[i].pareto = true;
                candidates.push_back(i);
                bestPeak = std::min(bestPeak, keys[i][5]);
            }
        }
        // A candidate is dominated only by a candidate of a group no worse in every discrete cost. Each group's
        // candidates form a staircase (bubble rising, peak falling): the one with the least peak among those of
        // bubble at most this one's is the last of them, found by binary search. This keeps the check near
        // linear in the candidates where comparing every pair was quadratic.
        struct Staircase {
            std::array<double, 4> discrete;
            std::vector<std::pair<double, double>> steps;  // (bubble, peak), bubble ascending, peak descending
        };
        std::map<std::array<double, 4>, size_t> groupIndex;
        std::vector<Staircase> groups;
        for (size_t i : candidates) {
            const std::array<double, 4> discrete{keys[i][0], keys[i][2], keys[i][3], keys[i][4]};
            auto [it, added] = groupIndex.try_emplace(discrete, groups.size());
            if (added) groups.push_back({discrete, {}});
            auto& steps = groups[it->second].steps;
            // Candidates arrive sorted by bubble then peak within a group; equal (bubble, peak) ties count once.
            if (steps.empty() || steps.back() != std::make_pair(keys[i][1], keys[i][5])) steps.emplace_back(keys[i][1], keys[i][5]);
        }
        for (size_t i : candidates) {
            const std::array<double, 4> mine{keys[i][0], keys[i][2], keys[i][3], keys[i][4]};
            const double bubble = keys[i][1], peak = keys[i][5];
            for (const auto& group : groups) {
                bool noWorse = true, strictly = false;
                for (size_t d = 0; d < 4; ++d) {
                    noWorse = noWorse && group.discrete[d] <= mine[d];
                    strictly = strictly || group.discrete[d] < mine[d];
                }
                if (!noWorse) continue;
                // The last step with bubble <= this bubble has the least peak among them.
                const auto after =
                    std::upper_bound(group.steps.begin(), group.steps.end(), std::make_pair(bubble, static_cast<double>(INFINITY)));
                if (after == group.steps.begin()) continue;
                const auto& [b, p] = *std::prev(after);
                if (p <= peak && (strictly || b < bubble || p < peak)) {
                    rows[i].pareto = false;
                    break;
                }
            }
        }
        // Pareto first, then by peak memory; ties by the layout itself, so that a whole plan and joined slices of it
        // list the same rows in the same order (checkpointing by its id: the order plans have always had).
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        auto layout = [&rows](size_t i) {
            const PlanRow& r = rows[i];
            return std::make_tuple(r.tp, r.pp, r.cp, r.dp, r.ep, r.zero, r.sp, toString(r.ckpt), r.mb, r.firstStageLayers,
                                   r.lastStageLayers);
        };
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            if (rows[a].pareto != rows[b].pareto) return rows[a].pareto;
            if (rows[a].peakBytes != rows[b].peakBytes) return rows[a].peakBytes < rows[b].peakBytes;
            if (layout(a) != layout(b)) return layout(a) < layout(b);
            return a < b;
        });
        std::vector<PlanRow> sorted;
        sorted.reserve(rows.size());
        for (size_t i : order) sorted.push_back(std::move(rows[i]));
        rows = std::move(sorted);
    } catch (...) {
        // Allocation failure: the rows keep their order and no Pareto marks.
    }
}

namespace {

// Fits before tight; then the least estimated step time (a row without an estimate last); then the row's order.
bool fasterRow(const PlanRow& a, const PlanRow& b) {
    if (a.verdict != b.verdict) return a.verdict == Verdict::fits;
    const double ta = a.stepSeconds > 0 ? a.stepSeconds : INFINITY, tb = b.stepSeconds > 0 ? b.stepSeconds : INFINITY;
    return ta < tb;
}

size_t fastestRow(const std::vector<PlanRow>& rows) {
    size_t best = rows.size();
    for (size_t i = 0; i < rows.size(); ++i)
        if (best == rows.size() || fasterRow(rows[i], rows[best])) best = i;
    return best;
}

// Cuts the rows to n, the fastest row kept (in the last place kept when it was beyond the cut).
void cutKeepingFastest(std::vector<PlanRow>& rows, size_t n) {
    if (rows.size() <= n || n == 0) return;
    const size_t best = fastestRow(rows);
    if (best >= n) rows[n - 1] = rows[best];
    rows.resize(n);
}

std::string recommendationReason(const std::vector<PlanRow>& rows, size_t best) {
    using detail::formatNumber;
    using detail::percentText;
    const PlanRow& r = rows[best];
    std::string out = r.verdict == Verdict::fits ? "fastest that fits" : "fastest, but tight: none fits under the headroom line";
    if (r.stepSeconds > 0)
        out += ": " + detail::groupedNumber(std::round(r.tokensPerSecondPerGpu)) + " tokens/s per GPU, MFU " + percentText(r.mfu);
    out += r.ckpt == Checkpointing::none ? "; no recomputation"
           : r.recomputeOverhead > 0     ? "; " + std::string(toString(r.ckpt)) + " recomputation +" + percentText(r.recomputeOverhead)
                                         : "; " + std::string(toString(r.ckpt)) + " recomputation";
    out += ", bubble " + percentText(r.bubble);
    if (r.tp > 1) out += ", TP " + formatNumber(r.tp) + (r.tpCrossesNode ? " across nodes" : " inside a node");
    if (r.cp > 1) out += ", CP " + formatNumber(r.cp) + (r.cpCrossesNode ? " across nodes" : " inside a node");
    if (r.ep > 1) out += ", EP " + formatNumber(r.ep);
    out += ", ZeRO-" + formatNumber(r.zero);
    // How far the next best is behind (rows of the same estimate, such as ZeRO-1 and ZeRO-2 of one layout, tie).
    double next = INFINITY, ties = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (i == best || rows[i].verdict != r.verdict || !(rows[i].stepSeconds > 0)) continue;
        if (rows[i].stepSeconds <= r.stepSeconds * (1 + 1e-9))
            ++ties;
        else
            next = std::min(next, rows[i].stepSeconds);
    }
    if (ties > 0) out += "; " + formatNumber(ties) + (ties == 1 ? " other row ties" : " other rows tie");
    if (r.stepSeconds > 0 && std::isfinite(next))
        out += "; the next fastest listed is " + percentText(next / r.stepSeconds - 1) + " slower";
    return out;
}

}  // namespace

Recommendation finishPlanRows(std::vector<PlanRow>& rows, double maxRows) noexcept {
    Recommendation out;
    try {
        markPareto(rows);
        cutKeepingFastest(rows, static_cast<size_t>(std::clamp(maxRows, 1.0, 1e7)));
        const size_t best = fastestRow(rows);
        if (best < rows.size()) {
            out.index = static_cast<double>(best);
            out.reason = recommendationReason(rows, best);
        }
    } catch (...) {
        out = Recommendation{};
    }
    return out;
}

PlanResult plan(const PlanRequest& r) noexcept {
    PlanResult out;
    try {
        const Config& base = r.base;
        if (base.mode != Mode::training)
            out.errors.push_back(
                {"mode", "the planner searches training layouts; mode must be training, got " + std::string(toString(base.mode))});
        if (!(r.gpus >= 1 && r.gpus <= 1048576 && std::floor(r.gpus) == r.gpus))
            out.errors.push_back(
                {"gpus", "gpus must be a whole number from 1 to 1,048,576 for a plan; got " + detail::formatNumber(r.gpus)});
        if (!(r.globalBatch >= 1 && r.globalBatch <= 1e9 && std::floor(r.globalBatch) == r.globalBatch))
            out.errors.push_back({"global_batch", "global_batch must be a whole number of sequences from 1 to 1,000,000,000; got " +
                                                      detail::formatNumber(r.globalBatch)});
        if (!(r.maxMicroBatch >= 1 && r.maxMicroBatch <= 1024))
            out.errors.push_back({"max_mb", "max_mb must be from 1 to 1,024; got " + detail::formatNumber(r.maxMicroBatch)});
        if (!(r.maxCp >= 1 && r.maxCp <= 1024))
            out.errors.push_back({"max_cp", "max_cp must be from 1 to 1,024; got " + detail::formatNumber(r.maxCp)});
        for (auto& problem : validate(base)) out.errors.push_back(problem);
        if (!out.errors.empty()) return out;

        // The search's size is known before it runs: its layouts, and for each its micro-batches (the divisors of
        // the per-replica batch up to max_mb) times the ZeRO stages, SP settings and checkpointing modes. Past
        // these limits it would take more than seconds; it stops and says what to narrow instead.
        constexpr size_t kMaxLayouts = 200000;
        constexpr double kMaxConfigurations = 40e6;
        const std::vector<detail::Layout> layouts = detail::layoutsOf(r, kMaxLayouts);
        const std::string narrow =
            "narrow it: fewer GPUs, a smaller max_mb or max_cp, a larger global batch per replica, or TP within a node";
        if (layouts.size() > kMaxLayouts) {
            out.errors.push_back({"gpus", "the search is too large: more than " + detail::groupedNumber(static_cast<double>(kMaxLayouts)) +
                                              " layouts of TP, CP, PP and EP; " + narrow});
            return out;
        }
        out.layouts = static_cast<double>(layouts.size());
        std::map<double, std::vector<double>> microBatchesOf;  // per DP (the per-replica batch), from few DP values
        auto microBatchesFor = [&](double dp) -> const std::vector<double>& {
            auto [it, added] = microBatchesOf.try_emplace(dp);
            if (added)
                for (double mb : detail::divisorsOf(r.globalBatch / dp))
                    if (mb <= r.maxMicroBatch) it->second.push_back(mb);
            return it->second;
        };
        // The checkpointing modes: full, selective and none, and torchtitan's op-level SAC where validate() takes it.
        std::vector<Checkpointing> modes{Checkpointing::full, Checkpointing::selective, Checkpointing::none};
        {
            Config op = base;
            op.ckpt = Checkpointing::op;
            if (base.framework == Framework::torchtitan && validate(op).empty()) modes.push_back(Checkpointing::op);
        }
        const bool fsdpOnly = shardsAllOrNothing(base.framework);
        const double zeroStages = fsdpOnly ? 2 : 4;
        double configurations = 0;
        for (const auto& L : layouts)
            configurations += static_cast<double>(microBatchesFor(L.dp).size()) * (L.dp * L.cp > 1 ? zeroStages : 1) * (L.tp > 1 ? 2 : 1) *
                              static_cast<double>(modes.size());
        if (configurations > kMaxConfigurations) {
            out.errors.push_back({"gpus", "the search is too large: " + detail::groupedNumber(configurations) + " configurations over " +
                                              detail::groupedNumber(out.layouts) + " layouts (at most " +
                                              detail::groupedNumber(kMaxConfigurations) + "); " + narrow});
            return out;
        }
        const double psi = base.params != 0 ? base.params : derivedParameterCount(base);
        const double capacity = std::round(base.gpuGb * kBytesPerGB);
        const double usable = std::round(capacity * (1 - base.headroom));
        const double limit = r.includeTight ? capacity : usable;
        std::vector<double> overheads(modes.size());
        for (size_t k = 0; k < modes.size(); ++k) {
            Config c = base;
            c.ckpt = modes[k];
            overheads[k] = recomputeOverhead(c);
        }
        const auto begin = static_cast<size_t>(std::clamp(r.layoutBegin, 0.0, out.layouts));
        const auto end = static_cast<size_t>(r.layoutEnd == 0 ? out.layouts : std::clamp(r.layoutEnd, 0.0, out.layouts));
        const bool whole = begin == 0 && end == layouts.size();
        // Rows are kept in a bounded buffer: past a threshold it is cut to its Pareto front and the maxRows best
        // others (a row dominated in the buffer is dominated in the whole search, and maxRows dominated rows with
        // a smaller peak rank before it), so memory stays bounded whatever fits.
        const auto maxRows = static_cast<size_t>(std::clamp(r.maxRows, 1.0, 1e7));
        size_t compactAt = std::max<size_t>(4 * maxRows, 65536);
        auto compact = [&]() {
            markPareto(out.rows);
            const size_t front =
                static_cast<size_t>(std::count_if(out.rows.begin(), out.rows.end(), [](const PlanRow& row) { return row.pareto; }));
            cutKeepingFastest(out.rows, front + maxRows);
            compactAt = std::max(compactAt, 2 * out.rows.size());
        };
        // Every ledger evaluated counts against the budget, the static-bound checks too.
        auto overBudget = [&]() {
            if (out.evaluated < r.maxEvaluations) return false;
            out.errors.push_back({"gpus", "the search is too large: it needs more than " + detail::groupedNumber(r.maxEvaluations) +
                                              " ledgers, which take more than seconds; " + narrow});
            out.rows.clear();
            return true;
        };
        std::map<double, std::vector<detail::StageSpan>> stagesOf;  // the peak-candidate stages of each PP
        for (size_t li = begin; li < end; ++li) {
            const auto& L = layouts[li];
            Config c = detail::layoutConfig(r, L);
            const auto [stagesIt, addedStages] = stagesOf.try_emplace(L.pp);
            if (addedStages) stagesIt->second = detail::peakCandidateStages(c);
            const std::vector<detail::StageSpan>& stages = stagesIt->second;
            const double perReplica = r.globalBatch / L.dp;
            const std::vector<double>& microBatches = microBatchesFor(L.dp);
            const bool sharded = L.dp * L.cp > 1;
            const bool tpCrosses = L.tp > base.gpusPerNode, cpCrosses = L.tp * L.cp > base.gpusPerNode;
            const double perZero = static_cast<double>(microBatches.size()) * (L.tp > 1 ? 2 : 1) * static_cast<double>(modes.size());
            for (double zero = 0; zero <= (sharded ? 3 : 0); ++zero) {
                // FSDP2 frameworks shard all or nothing (validate(): ZeRO 0 or 3).
                if (fsdpOnly && (zero == 1 || zero == 2)) continue;
                c.zero = zero;
                c.overlapParamGather = base.overlapParamGather && zero >= 1;
                // Parameters, gradients and optimizer states do not depend on SP, checkpointing or the
                // micro-batch: when they alone exceed the limit, none of those combinations can fit.
                c.sp = false;
                c.ckpt = Checkpointing::full;
                c.mb = microBatches.empty() ? 1 : microBatches[0];
                c.microbatches = perReplica / c.mb;
                if (overBudget()) return out;
                if (!microBatches.empty() && !(detail::peakOf(c, psi, stages).staticBytes <= limit)) {
                    ++out.evaluated;
                    out.candidates += perZero;
                    out.pruned += perZero - 1;
                    continue;
                }
                for (int sp = 0; sp <= (L.tp > 1 ? 1 : 0); ++sp) {
                    // Sequence parallelism splits each rank's sequence over the TP ranks.
                    if (sp == 1 && std::fmod(base.seq / L.cp, L.tp) != 0) continue;
                    c.sp = sp == 1;
                    for (size_t k = 0; k < modes.size(); ++k) {
                        c.ckpt = modes[k];
                        out.candidates += static_cast<double>(microBatches.size());
                        for (size_t m = 0; m < microBatches.size(); ++m) {
                            c.mb = microBatches[m];
                            c.microbatches = perReplica / c.mb;
                            if (overBudget()) return out;
                            const detail::PeakBytes kernel = detail::peakOf(c, psi, stages);
                            const double peak = kernel.totalBytes;
                            ++out.evaluated;
                            // Memory only grows with the micro-batch: the larger ones cannot fit either.
                            if (!(peak <= limit)) {
                                out.pruned += static_cast<double>(microBatches.size() - m - 1);
                                break;
                            }
                            PlanRow row;
                            row.tp = L.tp;
                            row.pp = L.pp;
                            row.dp = L.dp;
                            row.cp = L.cp;
                            row.ep = L.ep;
                            row.zero = zero;
                            row.mb = c.mb;
                            row.microbatches = c.microbatches;
                            row.sp = c.sp;
                            row.ckpt = modes[k];
                            row.firstStageLayers = L.firstStageLayers;
                            row.lastStageLayers = L.lastStageLayers;
                            row.peakBytes = peak;
                            row.peakStage = kernel.stage;
                            row.headroomBytes = usable - peak;
                            // Inside the error band of the measured runs like it: tight, not a fit (kept only when the
                            // request includes tight rows).
                            row.verdict = peak <= usable && bandPeakBytes(c, peak) <= usable ? Verdict::fits : Verdict::tight;
                            if (row.verdict == Verdict::tight && !r.includeTight) continue;
                            row.recomputeOverhead = overheads[k];
                            row.bubble = pipelineBubbleFraction(L.pp, c.microbatches, c.vpp);
                            row.tpCrossesNode = tpCrosses;
                            row.cpCrossesNode = cpCrosses && L.cp > 1;
                            c.overlapMoeComm = base.overlapMoeComm && moeCommOverlapAllowed(c);
                            const StepTime speed = estimateStepTime(c);
                            row.stepSeconds = speed.stepSeconds;
                            row.tokensPerSecondPerGpu = speed.tokensPerSecondPerGpu;
                            row.mfu = speed.mfu;
                            row.runDays = speed.runSeconds / 86400;
                            row.runGpuHours = speed.runGpuHours;
                            row.runCostUsd = speed.runCostUsd;
                            out.rows.push_back(std::move(row));
                            ++out.fitting;
                            if (out.rows.size() >= compactAt) compact();
                        }
                    }
                }
            }
        }
        // Rows come back Pareto first, then by peak memory: a whole plan's maxRows best; a slice its own Pareto
        // front and maxRows more, so that the caller who joins the slices, marks the front again and keeps maxRows
        // gets exactly the whole plan's rows.
        compact();
        if (whole) out.recommended = finishPlanRows(out.rows, static_cast<double>(maxRows));
        out.dropped = out.fitting - static_cast<double>(out.rows.size());
    } catch (...) {
        out = PlanResult{};
        out.errors = {{"", "internal error: out of memory while planning"}};
    }
    return out;
}

}  // namespace membudget
