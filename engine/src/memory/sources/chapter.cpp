// method=chapter: the chapter "Memory Budget Verification", sections 1-5, formula for formula.
#include "memory/sources/chapter.hpp"

#include <algorithm>
#include <cmath>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/memory/chapter.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

std::string n(double value) { return groupedNumber(value); }

namespace {

// One layer's saved activations, split the way the chapter's parallelism table treats them:
// LayerNorm inputs and dropout masks are replicated across TP ranks unless sequence parallelism shards
// them; the Q/K/V inputs, attention output, FFN intermediate and attention scores are split by TP.
struct LayerTerms {
    double replicated;  // 4bsh LayerNorm inputs + 2bsh dropout masks
    double split;       // 6bsh QKV + 2bsh attention output + c_ff·bs·d_ff FFN intermediate
    double attention;   // c_att·b·a·s² scores (dropped by selective checkpointing)
};

LayerTerms layerTerms(const Config& c, double seqPerRank) {
    // table: the per-layer table's 2-byte tensors; worked: the section 2 example's 6·d_ff and 3·a·s².
    const bool worked = c.actFormula == ActFormula::worked;
    const double ffnCoefficient = worked ? 6 : 2;
    const double attentionCoefficient = worked ? 3 : 2;
    const double bsh = c.mb * seqPerRank * c.hidden;
    return {6 * bsh, 8 * bsh + ffnCoefficient * c.mb * seqPerRank * c.ffn, attentionCoefficient * c.mb * c.heads * seqPerRank * c.seq};
}

// The activations line's bytes on stage i (activationsLine adds its formula and note).
double chapterActivationBytes(const Config& c, double stageIndex) {
    const double sPerRank = c.seq / c.cp;
    const double inFlight = std::min(c.pp - stageIndex, c.microbatches);
    double perLayer = 0;
    if (c.ckpt == Checkpointing::full) {
        perLayer = 2 * c.mb * sPerRank * c.hidden / c.tp;
    } else {
        const LayerTerms t = layerTerms(c, sPerRank);
        const double split = t.split + (c.ckpt == Checkpointing::selective ? 0 : t.attention);
        perLayer = c.sp ? (t.replicated + split) / c.tp : t.replicated + split / c.tp;
    }
    return c.layers / c.pp * inFlight * perLayer;
}

// Parameters, gradients and optimizer: the same on every stage.
struct ChapterStatic {
    double parameters, gradients, optimizer;
};

ChapterStatic chapterStatic(const Config& c, double psi) {
    const double tpPp = c.tp * c.pp;
    auto shard = [&](bool byDp) { return tpPp * (byDp ? c.dp : 1); };
    const StaticBytesPerParam perParam = staticBytesPerParam(c.staticBytes);
    return {perParam.parameters * psi / shard(c.zero >= 3), perParam.gradients * psi / shard(c.zero >= 2),
            (perParam.master + perParam.adamM + perParam.adamV) * psi / shard(c.zero >= 1)};
}

Line activationsLine(const Config& c, double stageIndex) {
    const double layersPerStage = c.layers / c.pp;  // the chapter's L/PP, fractional when PP does not divide L
    const double inFlight = std::min(c.pp - stageIndex, c.microbatches);
    const std::string ppMinusI = stageIndex == 0 ? "PP" : "PP − " + n(stageIndex);
    const std::string stage = "(L / PP) × min(" + std::string(stageIndex == 0 ? "PP" : "PP − i") + ", m) × ";
    const std::string stageValues = "(" + n(c.layers) + " / " + n(c.pp) + ") × min(" +
                                    (stageIndex == 0 ? n(c.pp) : n(c.pp) + " − " + n(stageIndex)) + ", " + n(c.microbatches) + ") × ";
    const std::string sCp = "(s/CP)";
    const std::string sCpValues = "(" + n(c.seq) + " / " + n(c.cp) + ")";
    const std::string b = n(c.mb), h = n(c.hidden), tp = n(c.tp);

    Line line{LineId::activations, "Activations", "", "", 0, "", Method::chapter};
    if (c.ckpt == Checkpointing::full) {
        line.formula = stage + "2b" + sCp + "h / TP";
        line.substituted = stageValues + "2 × " + b + " × " + sCpValues + " × " + h + " / " + tp;
        line.note =
            "Full checkpointing: only each layer's input (2bsh) is kept, divided by TP as the chapter's "
            "\"rough TP reduction\" does";
    } else {
        const bool selective = c.ckpt == Checkpointing::selective;
        const bool worked = c.actFormula == ActFormula::worked;
        const std::string ffnC = worked ? "6" : "2";
        const std::string attC = worked ? "3" : "2";
        const std::string splitSym = "8b" + sCp + "h + " + ffnC + "b" + sCp + "·d_ff" + (selective ? "" : " + " + attC + "ba" + sCp + "s");
        const std::string splitVal =
            "8 × " + b + " × " + sCpValues + " × " + h + " + " + ffnC + " × " + b + " × " + sCpValues + " × " + n(c.ffn) +
            (selective ? "" : " + " + attC + " × " + b + " × " + n(c.heads) + " × " + sCpValues + " × " + n(c.seq));
        if (c.sp) {
            line.formula = stage + "(6b" + sCp + "h + " + splitSym + ") / TP";
            line.substituted = stageValues + "(6 × " + b + " × " + sCpValues + " × " + h + " + " + splitVal + ") / " + tp;
        } else {
            line.formula = stage + "(6b" + sCp + "h + (" + splitSym + ") / TP)";
            line.substituted = stageValues + "(6 × " + b + " × " + sCpValues + " × " + h + " + (" + splitVal + ") / " + tp + ")";
        }
        line.note = std::string(selective ? "Selective checkpointing: attention scores are recomputed, the rest kept"
                                          : "No checkpointing: every saved tensor of the chapter's per-layer table") +
                    (worked ? " (the worked 70B example's coefficients)" : " (22bsh + 2bas² when d_ff = 4h)") +
                    "; LayerNorm inputs and dropout masks (6bsh) " + (c.sp ? "sharded by sequence parallelism" : "replicated across TP");
    }
    line.bytes = chapterActivationBytes(c, stageIndex);
    line.note += "; 1F1B keeps min(" + ppMinusI + ", m) = " + n(inFlight) + " micro-batch" + (inFlight == 1 ? "" : "es") +
                 " of L/PP = " + n(layersPerStage) + " layers on stage " + n(stageIndex);
    if (c.cp > 1) line.note += "; CP splits the sequence";
    return line;
}

}  // namespace

PeakBytes chapterTrainingPeak(const Config& c, double psi) {
    const ChapterStatic bytes = chapterStatic(c, psi);
    const double allowances = gigabytesToBytes(c.buffersGb) + gigabytesToBytes(c.contextGb);
    PeakBytes peak{};
    peak.totalBytes = -1;
    // Activations fall with the stage index (min(PP − i, m)), so stage 0 is the peak; the loop keeps the
    // rule the same as evaluate()'s.
    for (double i = 0; i < c.pp; ++i) {
        const double activations = chapterActivationBytes(c, i);
        const double total = bytes.parameters + bytes.gradients + bytes.optimizer + activations + gigabytesToBytes(c.buffersGb) +
                             gigabytesToBytes(c.contextGb);
        if (total > peak.totalBytes)
            peak = {bytes.parameters, bytes.gradients, bytes.optimizer, activations, allowances, total, i, 0};
        else
            break;
    }
    peak.staticBytes = bytes.parameters + bytes.gradients + bytes.optimizer + allowances;
    return peak;
}

MethodOutput chapterMethod(const Config& c, double psi) {
    MethodOutput out;
    std::vector<Line> staticLines;
    const double tpPp = c.tp * c.pp;
    const bool optimizerSharded = c.zero >= 1, gradientsSharded = c.zero >= 2, parametersSharded = c.zero >= 3;
    const std::string psiText = n(psi);
    const std::string tpPpText = n(c.tp) + " × " + n(c.pp);
    auto shard = [&](bool byDp) { return tpPp * (byDp ? c.dp : 1); };
    auto shardSym = [&](bool byDp) { return std::string(byDp ? "(TP × PP × DP)" : "(TP × PP)"); };
    auto shardVal = [&](bool byDp) { return "(" + tpPpText + (byDp ? " × " + n(c.dp) : "") + ")"; };
    const StaticBytesPerParam perParam = staticBytesPerParam(c.staticBytes);
    const ChapterStatic bytes = chapterStatic(c, psi);
    const std::string zeroName = c.zero == 3 ? "ZeRO-3/FSDP" : "ZeRO-" + n(c.zero);

    staticLines.push_back({LineId::parameters, "Parameters", "2Ψ / " + shardSym(parametersSharded),
                           "2 × " + psiText + " / " + shardVal(parametersSharded), bytes.parameters,
                           parametersSharded ? "BF16 working copy, sharded over DP by " + zeroName + " (gathered layer by layer on demand)"
                                             : "BF16 working copy",
                           Method::chapter});

    const std::string g = n(perParam.gradients);
    const std::string gradientKind = c.staticBytes == 16   ? "BF16"
                                     : c.staticBytes == 18 ? "FP32 (the 18Ψ convention)"
                                                           : "BF16 + an FP32 accumulator (the 20Ψ convention)";
    staticLines.push_back({LineId::gradients, "Gradients", g + "Ψ / " + shardSym(gradientsSharded),
                           g + " × " + psiText + " / " + shardVal(gradientsSharded), bytes.gradients,
                           gradientKind + (gradientsSharded ? ", sharded over DP by " + zeroName : "; sharded further with ZeRO-2 or FSDP"),
                           Method::chapter});

    const double optimizerPerParam = perParam.master + perParam.adamM + perParam.adamV;
    staticLines.push_back(
        {LineId::optimizer, "Optimizer", "12Ψ / " + shardSym(optimizerSharded), "12 × " + psiText + " / " + shardVal(optimizerSharded),
         bytes.optimizer,
         std::string("FP32 master weights + Adam m + Adam v = 4 + 4 + 4 bytes per parameter; ") +
             (optimizerSharded ? "sharded across DP (ZeRO-1 and up, the distributed optimizer)" : "not sharded across DP (zero = 0)"),
         Method::chapter});

    // The chapter spreads Ψ evenly, so stages differ only in the micro-batches they keep in flight.
    for (double stage = 0; stage < c.pp; ++stage) {
        StageOutput output;
        output.index = stage;
        output.layers = c.layers / c.pp;
        output.inFlightMicrobatches = std::min(c.pp - stage, c.microbatches);
        output.lines = staticLines;
        output.lines.push_back(activationsLine(c, stage));
        out.stages.push_back(std::move(output));
    }

    if (c.pp > 1) {
        // Pitfall "PP stage imbalance": the chapter divides Ψ evenly, but the embedding sits on stage 0.
        const double embedding = (c.vocab + c.posEmb) * c.hidden;
        const double embeddingBytes = embedding *
                                      (perParam.parameters / shard(parametersSharded) + perParam.gradients / shard(gradientsSharded) +
                                       optimizerPerParam / shard(optimizerSharded)) *
                                      (c.pp - 1);  // its own share of Ψ/(TP × PP) is already counted
        out.warnings.push_back({"pp", "PP stage imbalance: stage 0 also holds the input embedding (V × h = " + n(embedding) +
                                          " parameters, about " + formatNumber(std::round(embeddingBytes / 1e7) / 100) +
                                          " GB more static memory than Ψ / (TP × PP) assigns it)" +
                                          (c.tiedEmbeddings ? "" : " and the last stage the output layer") +
                                          "; the chapter's formula spreads them evenly over stages"});
    }
    return out;
}

std::string chapterDifference(LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    return staticLine ? "Ψ / (TP × PP): the embedding and output layer spread evenly over the stages"
                      : "the chapter's per-layer table: one d_ff tensor, no GQA, no FlashAttention, no embedding or logits";
}

}  // namespace membudget::detail

namespace membudget {

// The chapter's conventions (membudget/memory/chapter.hpp).
StaticBytesPerParam staticBytesPerParam(double staticBytes) {
    // 16: BF16 params and grads, FP32 master, m, v. 18: gradients kept in FP32 (as Megatron-LM's main_grad).
    // 20: BF16 gradients plus an FP32 accumulator, "extra 4Ψ" (section 1).
    const double gradients = staticBytes == 18 ? 4 : staticBytes == 20 ? 6 : 2;
    return {2, gradients, 4, 4, 4};
}

double tableActivationBytesPerLayer(double b, double s, double h, double a, double ffn) {
    return 14 * b * s * h + 2 * b * s * ffn + 2 * b * a * s * s;
}

double workedActivationBytesPerLayer(double b, double s, double h, double a, double ffn) {
    return (14 * h + 6 * ffn) * b * s + 3 * a * s * s * b;
}

}  // namespace membudget
