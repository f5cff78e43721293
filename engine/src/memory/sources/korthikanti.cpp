// Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models") as a ledger method and a planner kernel.
#include "memory/sources/korthikanti.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledger/training_ledger.hpp"
#include "memory/ledgers.hpp"
#include "memory/sources/published.hpp"
#include "memory/training.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

// Korthikanti et al. 2022: Table 2 per layer, §4.2 pipeline, §4.3 embedding and output terms.
MethodOutput korthikantiMethod(const Config& c, double psi) {
    MethodOutput base = membudgetMethod(c, psi, false);
    MethodOutput out;
    const std::vector<double> layers = stageLayers(c);
    const double s = c.seq / c.cp, b = c.mb, h = c.hidden, a = c.heads, t = c.tp;
    const double perLayer = sources::korthikantiLayerBytes(s, b, h, a, t, c.sp && t > 1, recomputeOf(c));
    const std::string table2 = c.ckpt == Checkpointing::full        ? "sbh·2"
                               : c.ckpt == Checkpointing::selective ? (c.sp ? "sbh(34/t)" : "sbh(10 + 24/t)")
                                                                    : (c.sp ? "sbh(34/t + 5as/(ht))" : "sbh(10 + 24/t + 5as/(ht))");
    for (double i = 0; i < c.pp; ++i) {
        const auto& membudgetStage = base.stages[static_cast<size_t>(i)];
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        stage.inFlightMicrobatches = inFlightMicrobatches(c, i);
        const double copies = inFlightLayerCopies(c, stage.layers, i);
        double bytes = perLayer * copies;
        std::string expression = fill("# × #", {perLayer, copies});
        std::string formula = table2 + " × layer-copies in flight";
        if (i == 0) {
            const double embedding = sources::korthikantiEmbeddingBytes(s, b, h, stage.inFlightMicrobatches, t);
            bytes += embedding;
            expression += fill(" + #", {embedding});
            formula += " + sbhp/t (embedding dropout)";
        }
        if (i == c.pp - 1) {
            const double output = sources::korthikantiOutputBytes(s, b, h, c.vocab, t);
            bytes += output;
            expression += fill(" + #", {output});
            formula += " + 4sbh/t·(1 + v/h) (final norm, output layer, fp32 logits)";
        }
        for (const LineId id : {LineId::parameters, LineId::gradients, LineId::optimizer})
            stage.lines.push_back(filledIn(lineOf(membudgetStage, id), "Korthikanti et al. (activations only)"));
        stage.lines.push_back({LineId::activations, "Activations", formula, expression, bytes,
                               "Korthikanti et al. 2022 Table 2 (GPT layer: 4h FFN, multi-head attention, dropout, eager "
                               "attention): " +
                                   n(perLayer) + " B per layer × " + n(copies) + " layer-copies on stage " + n(i) +
                                   "; §4.2 in-flight micro-batches" + std::string(c.vpp > 1 ? " and interleaving" : "") +
                                   ", §4.3 embedding and output terms",
                               Method::korthikanti});
        out.stages.push_back(std::move(stage));
    }
    if (c.gatedFfn || c.kvHeads != c.heads || c.attention != Attention::eager || !c.dropout)
        out.warnings.push_back({"method",
                                "Korthikanti et al.'s Table 2 is for a GPT layer (4h FFN, no GQA, eager attention, "
                                "dropout): SwiGLU, GQA, FlashAttention and dropout settings are not reflected"});
    if (c.cp > 1) out.warnings.push_back({"cp", "Korthikanti et al. predate context parallelism; s / CP is used for s"});
    return out;
}

PeakBytes korthikantiTrainingPeak(const Config& c, std::span<const StageSpan> stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const double s = c.seq / c.cp, b = c.mb, h = c.hidden, a = c.heads, tp = c.tp;
    const double perLayer = sources::korthikantiLayerBytes(s, b, h, a, tp, c.sp && tp > 1, recomputeOf(c));
    return peakOver(c, stages, [&](const StageSpan& stage) {
        const MembudgetStage sn = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, false);
        double bytes = perLayer * inFlightLayerCopies(c, stage.layers, stage.index);
        if (stage.index == 0) bytes += sources::korthikantiEmbeddingBytes(s, b, h, inFlightMicrobatches(c, stage.index), tp);
        if (stage.index == c.pp - 1) bytes += sources::korthikantiOutputBytes(s, b, h, c.vocab, tp);
        return StaticAndActivations{sn.parameters, sn.gradients, sn.optimizerAtPeak, bytes};
    });
}

std::string korthikantiDifference(LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    return staticLine ? "not in the paper (membudget's estimate)"
                      : "Table 2's GPT layer: a 4h FFN, multi-head attention, eager attention with dropout masks";
}

}  // namespace membudget::detail
