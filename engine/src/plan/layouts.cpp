// The layouts a plan searches: every TP, CP, PP and EP over the GPUs that validate() accepts, and the configuration
// each stands for (plan/layouts.hpp).
#include "plan/layouts.hpp"

#include <algorithm>
#include <cmath>

#include "membudget/model/config.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/plan.hpp"

namespace membudget::detail {

namespace {

// When PP does not divide the layers, the engine's split (stageLayers) gives the stages after the first one
// layer more; Megatron-LM expresses it with --pipeline-model-parallel-layout.
bool splitLayers(const Config& c, double pp, bool uneven, double& first, double& last) {
    first = last = 0;
    return std::fmod(c.layers, pp) == 0 || uneven;
}

}  // namespace

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

}  // namespace membudget::detail
