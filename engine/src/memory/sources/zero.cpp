// The ZeRO paper's model states per device (Rajbhandari et al. 2020, §5) as a ledger method and a planner kernel.
#include "memory/sources/zero.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "membudget/base/choices.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledger/training_ledger.hpp"
#include "memory/ledgers.hpp"
#include "memory/sources/published.hpp"
#include "memory/training.hpp"

namespace membudget::detail {

// The ZeRO paper's model states per device (§5), with Ψ per model-parallel shard.
MethodOutput zeroMethod(const Config& c, double psi) {
    MethodOutput base = membudgetMethod(c, psi, false);
    MethodOutput out;
    const double shardPsi = psi / (c.tp * c.pp);
    const int stageNumber = static_cast<int>(c.zero);
    const auto states = sources::zeroPaperModelStates(stageNumber, shardPsi, c.dp);
    static const char* names[] = {"baseline (2 + 2 + K)Ψ", "P_os: 4Ψ + KΨ/N_d", "P_os+g: 2Ψ + (2 + K)Ψ/N_d", "P_os+g+p: (4 + K)Ψ/N_d"};
    const std::string psiText = n(std::round(shardPsi)), nd = n(c.dp);
    for (const auto& membudgetStage : base.stages) {
        StageOutput stage;
        stage.index = membudgetStage.index;
        stage.layers = membudgetStage.layers;
        stage.inFlightMicrobatches = membudgetStage.inFlightMicrobatches;
        const std::string note = std::string("ZeRO paper §5, ") + names[stageNumber] + ", K = 12, Ψ = parameters per model-parallel shard";
        stage.lines.push_back({LineId::parameters, "Parameters", stageNumber >= 3 ? "2Ψ / N_d" : "2Ψ",
                               stageNumber >= 3 ? "2 × " + psiText + " / " + nd : "2 × " + psiText, states.parameters, note, Method::zero});
        stage.lines.push_back({LineId::gradients, "Gradients", stageNumber >= 2 ? "2Ψ / N_d" : "2Ψ",
                               stageNumber >= 2 ? "2 × " + psiText + " / " + nd : "2 × " + psiText, states.gradients, note, Method::zero});
        stage.lines.push_back({LineId::optimizer, "Optimizer", stageNumber >= 1 ? "KΨ / N_d" : "KΨ",
                               stageNumber >= 1 ? "12 × " + psiText + " / " + nd : "12 × " + psiText, states.optimizer, note,
                               Method::zero});
        stage.lines.push_back(filledIn(lineOf(membudgetStage, LineId::activations), "the ZeRO paper (model states only)"));
        out.stages.push_back(std::move(stage));
    }
    return out;
}

PeakBytes zeroTrainingPeak(const Config& c, double psi, std::span<const StageSpan> stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const auto states = sources::zeroPaperModelStates(static_cast<int>(c.zero), psi / (c.tp * c.pp), c.dp);
    return peakOver(c, stages, [&](const StageSpan& stage) {
        const MembudgetStage sn = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, false);
        return StaticAndActivations{states.parameters, states.gradients, states.optimizer, sn.activations};
    });
}

std::string zeroDifference(LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    return staticLine ? "the ZeRO paper's (2 + 2 + K)Ψ per device with Ψ split evenly by TP × PP and K = 12"
                      : "not in the paper (membudget's estimate)";
}

}  // namespace membudget::detail
