// The stages a membudget training configuration's peak can be on (peakCandidateStages, memory/training.hpp), and the
// kernel over them for a caller that has not found them (membudgetTrainingPeak(config)).
#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"
#include "memory/training.hpp"

namespace membudget::detail {

size_t peakCandidateStages(const Config& c, std::span<StageSpan> out) {
    size_t count = 0;
    double firstLayer = 0;
    for (double i = 0; i < c.pp; ++i) {
        const double layers = stageLayerCount(c, i);
        const double from = firstLayer;
        firstLayer += layers;
        if (i != 0 && i != c.pp - 1) {
            // A middle stage of a (layers, MoE layers) kind already listed is left out: the kinds are read back from
            // the stages listed, so that no other list is kept.
            const double moeLayers = moeLayersIn(c, from, layers);
            const auto sameKind = [&](const StageSpan& listed) {
                return listed.index != 0 && listed.layers == layers && moeLayersIn(c, listed.firstLayer, listed.layers) == moeLayers;
            };
            if (std::any_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min(count, out.size())), sameKind)) continue;
        }
        if (count < out.size()) out[count] = {i, from, layers};
        ++count;
    }
    return count;
}

std::vector<StageSpan> peakCandidateStages(const Config& c) {
    std::vector<StageSpan> out(static_cast<size_t>(c.pp));  // room for every stage: the count is exact
    out.resize(peakCandidateStages(c, out));
    return out;
}

PeakBytes membudgetTrainingPeak(const Config& c) {
    // Without pipeline parallelism the one stage is the candidate (stageLayerCount: all the layers), not walked for.
    if (c.pp == 1 && c.pipelineLayout.empty()) {
        const StageSpan only{0, 0, c.layers};
        return membudgetTrainingPeak(c, std::span<const StageSpan>(&only, 1));
    }
    // A layout's candidates are a few stages: kept on the stack, so that the kernel allocates nothing.
    std::array<StageSpan, 16> stages;
    const size_t count = peakCandidateStages(c, stages);
    if (count > stages.size()) return membudgetTrainingPeak(c, peakCandidateStages(c));
    return membudgetTrainingPeak(c, std::span<const StageSpan>(stages.data(), count));
}

}  // namespace membudget::detail
