// A plan's rows: the Pareto set marked, the rows cut to those kept and the recommended row named, for a whole
// plan (plan()) and for a caller that joins its slices (finishPlanRows from the planner's wasm module).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "membudget/base/text.hpp"
#include "membudget/plan/plan.hpp"
#include "plan/rows.hpp"

namespace membudget {

namespace {

using Costs = std::array<double, 6>;

// Decides which rows lead their own group of equal discrete costs (the candidates of the front): marks them and
// returns them.
std::vector<size_t> frontOfEachGroup(std::vector<PlanRow>& rows, const std::vector<Costs>& keys) {
    // Sorted by the discrete costs, then bubble and peak: within a run of equal discrete costs the
    // front is a staircase over (bubble, peak); only those candidates are then compared across runs.
    std::vector<size_t> order(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) order[i] = i;
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
    return candidates;
}

// Decides which candidates another group dominates, and unmarks them.
void unmarkDominated(std::vector<PlanRow>& rows, const std::vector<Costs>& keys, const std::vector<size_t>& candidates) {
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
}

// Decides the order rows come back in, and moves them into it.
void sortParetoFirst(std::vector<PlanRow>& rows) {
    // Pareto first, then by peak memory; ties by the layout itself, so that a whole plan and joined slices of it
    // list the same rows in the same order (checkpointing by its id: the order plans have always had).
    std::vector<size_t> order(rows.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto layout = [&rows](size_t i) {
        const PlanRow& r = rows[i];
        return std::make_tuple(r.tp, r.pp, r.cp, r.dp, r.ep, r.zero, r.sp, toString(r.ckpt), r.mb, r.firstStageLayers, r.lastStageLayers);
    };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (rows[a].pareto != rows[b].pareto) return rows[a].pareto;
        if (rows[a].peakBytes != rows[b].peakBytes) return rows[a].peakBytes < rows[b].peakBytes;
        if (layout(a) != layout(b)) return layout(a) < layout(b);
        return a < b;
    });
    // Rows moved into that order in place, cycle by cycle (order[k] is the row that goes to k; a placed k is marked
    // order[k] = k): a copy of the rows would be as large as they are, fresh pages the kernel has to fault in.
    for (size_t start = 0; start < order.size(); ++start) {
        if (order[start] == start) continue;
        PlanRow held = std::move(rows[start]);
        size_t k = start;
        while (order[k] != start) {
            rows[k] = std::move(rows[order[k]]);
            const size_t from = order[k];
            order[k] = k;
            k = from;
        }
        rows[k] = std::move(held);
        order[k] = k;
    }
}

}  // namespace

void markPareto(std::vector<PlanRow>& rows) noexcept {
    try {
        auto costs = [](const PlanRow& r) {
            return Costs{
                r.recomputeOverhead, r.bubble, r.tp * r.cp, r.zero >= 3 ? 1.0 : 0.0, (r.tpCrossesNode || r.cpCrossesNode) ? 1.0 : 0.0,
                r.peakBytes};
        };
        std::vector<Costs> keys(rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            keys[i] = costs(rows[i]);
            rows[i].pareto = false;
        }
        unmarkDominated(rows, keys, frontOfEachGroup(rows, keys));
        sortParetoFirst(rows);
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

// Marks the rows of the recommended row's verdict whose band overlaps its band (their fast end at or above its slow
// end): as fast, within the estimate. The bands share their constants, so such a row may still be the slower at every
// setting of them (docs/planner.md, "The band"); what the mark says is that the estimate's published ranges do not
// separate the two. Returns what the reason adds.
std::string markAsFast(std::vector<PlanRow>& rows, size_t best) {
    const PlanRow& r = rows[best];
    if (!(r.tokensPerSecondPerGpuLow > 0)) return "";
    double others = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        PlanRow& row = rows[i];
        row.asFast = row.verdict == r.verdict && row.tokensPerSecondPerGpuHigh >= r.tokensPerSecondPerGpuLow;
        if (row.asFast && i != best) ++others;
    }
    if (others == 0) return "";
    return "; " + detail::formatNumber(others) + (others == 1 ? " other row is" : " other rows are") +
           " as fast within the estimate's band (as_fast)";
}

}  // namespace

namespace detail {

void cutKeepingFastest(std::vector<PlanRow>& rows, size_t n) {
    if (rows.size() <= n || n == 0) return;
    const size_t best = fastestRow(rows);
    if (best >= n) rows[n - 1] = rows[best];
    rows.resize(n);
}

}  // namespace detail

Recommendation finishPlanRows(std::vector<PlanRow>& rows, double maxRows) noexcept {
    Recommendation out;
    try {
        markPareto(rows);
        detail::cutKeepingFastest(rows, static_cast<size_t>(std::clamp(maxRows, 1.0, 1e7)));
        const size_t best = fastestRow(rows);
        if (best < rows.size()) {
            out.index = static_cast<double>(best);
            out.reason = recommendationReason(rows, best) + markAsFast(rows, best);
        }
    } catch (...) {
        out = Recommendation{};
    }
    return out;
}

}  // namespace membudget
