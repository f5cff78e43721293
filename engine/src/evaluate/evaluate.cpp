#include "membudget/evaluate/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/time/steptime.hpp"
#include "memory/ledger/inference.hpp"
#include "memory/ledger/training_ledger.hpp"
#include "memory/ledgers.hpp"
#include "memory/method_table.hpp"
#include "model/rank.hpp"

namespace membudget {

namespace {

using detail::n;

// Warnings that hold whatever the method: the layout checks that Megatron-LM enforces and that the
// chapter's formulas silently assume.
std::vector<Problem> layoutWarnings(const Config& c, double perLayerActivationBytes) {
    std::vector<Problem> w;
    // heads and kv_heads that TP cannot split evenly are errors (validate); replication is allowed and costs memory.
    if (c.tp > c.kvHeads && c.kvLoraRank == 0)  // MLA caches one latent, not KV heads
        w.push_back(
            {"tp", "tp (" + n(c.tp) + ") exceeds kv_heads (" + n(c.kvHeads) + "): each KV head is replicated on tp / kv_heads ranks"});
    if (std::fmod(c.ffn, c.tp) != 0) w.push_back({"tp", "ffn (" + n(c.ffn) + ") is not divisible by tp (" + n(c.tp) + ")"});
    // An uneven split set by first_stage_layers / last_stage_layers is the user's choice, not a remainder.
    // torchtitan's own split is uneven by design (the embedding and the output count as layers).
    if (std::fmod(c.layers, c.pp) != 0 && c.firstStageLayers == 0 && c.lastStageLayers == 0 &&
        !(c.framework == Framework::torchtitan && c.method == Method::membudget)) {
        const double even = c.layers / c.pp, first = std::ceil(even);
        w.push_back({"pp", "layers (" + n(c.layers) + ") is not divisible by pp (" + n(c.pp) + "): " +
                               (c.method == Method::chapter
                                    ? "the chapter's L / PP is " + detail::formatNumber(even) +
                                          " layers per stage, but stages hold whole layers; a stage of " + n(first) + " needs " +
                                          n(std::round((first - even) * perLayerActivationBytes)) + " bytes more activations"
                                    : "stages hold " + n(std::floor(even)) + " or " + n(first) +
                                          " layers (set first_stage_layers / last_stage_layers to choose)")});
    }
    const bool training = c.mode == Mode::training;
    if (training && c.microbatches < c.pp) {
        const double bubble = pipelineBubbleFraction(c.pp, c.microbatches, c.vpp);
        w.push_back({"microbatches", "microbatches (" + n(c.microbatches) + ") < pp (" + n(c.pp) + "): the pipeline bubble (PP − 1) / (" +
                                         (c.vpp > 1 ? "m·v" : "m") + " + PP − 1) is " + n(std::round(bubble * 100)) + "% of the step"});
    }
    if (training && c.sp && c.tp == 1) w.push_back({"sp", "sequence parallelism has no effect with tp = 1"});
    // The engine shards ZeRO (and Megatron's distributed optimizer) over DP × CP.
    if (training && c.zero >= 1 && c.dp * c.cp == 1)
        w.push_back({"zero", "ZeRO stage " + n(c.zero) + " shards over DP × CP, and dp × cp = 1: nothing is sharded"});
    if (std::fmod(c.seq, c.cp) != 0) w.push_back({"cp", "seq (" + n(c.seq) + ") is not divisible by cp (" + n(c.cp) + ")"});
    if (c.params != 0) {
        const double derived = derivedParameterCount(c);
        const double off = std::fabs(c.params - derived) / derived;
        if (off > 0.05)
            w.push_back({"params", "params (" + n(c.params) + ") differs by " + n(std::round(off * 100)) +
                                       "% from the architecture's count (" + n(derived) + ")"});
    }
    return w;
}

}  // namespace

namespace {

detail::MethodOutput runMethod(const Config& c, double psi) {
    if (c.mode == Mode::inference) return detail::inferenceMethod(c, psi);
    const detail::MethodEntry* method = detail::findMethod(c.method);
    return (method ? method : detail::findMethod(Method::membudget))->ledger(c, psi);
}

// The user's allowances, the same for every method: the chapter's ~2 GB of NCCL buffers and ~1 GB of
// CUDA context (§4 checklist).
std::vector<Line> allowanceLines(const Config& c) {
    using detail::n;
    return {{LineId::buffers, "Comm buffers", "M_buffers (~2 GB)", detail::gigabytesText(c.buffersGb), gigabytesToBytes(c.buffersGb),
             "NCCL communication buffers (an allowance, chapter §4)", std::nullopt},
            {LineId::cudaContext, "CUDA context", "M_context (~1 GB)", detail::gigabytesText(c.contextGb), gigabytesToBytes(c.contextGb),
             "Per-GPU fixed overhead (an allowance, chapter §4)", std::nullopt}};
}

// The peak stage's total and its KV cache for a configuration (no validation: callers pass a validated one).
struct Peak {
    double totalBytes = 0, kvBytes = 0;
};
Peak peakOf(const Config& c) {
    const double psi = c.params != 0 ? c.params : derivedParameterCount(c);
    const auto output = runMethod(c, psi);
    const auto allowances = allowanceLines(c);
    Peak peak;
    for (const auto& stage : output.stages) {
        double total = allowances[0].bytes + allowances[1].bytes, kv = 0;
        for (const auto& line : stage.lines) {
            total += line.bytes;
            if (line.id == LineId::kvCache) kv += line.bytes;
        }
        if (total > peak.totalBytes) peak = {total, kv};
    }
    return peak;
}

// The headroom line. vLLM and SGLang keep `headroom` of the GPU free (1 − gpu_memory_utilization, 1 −
// mem_fraction_static); TensorRT-LLM gives the KV cache free_gpu_memory_fraction of what the weights and its profiling
// run leave (_util.py KvCacheCreator._cal_max_memory: (total − peak + temporary KV) × fraction), so there `headroom`
// (1 − that fraction) is kept of the memory left after everything but the KV cache.
double usableOf(const Config& c, const Peak& peak) {
    const double capacity = std::round(c.gpuGb * kBytesPerGB);
    if (c.mode == Mode::inference && c.framework == Framework::trtllm)
        return std::round(capacity - c.headroom * std::max(0.0, capacity - (peak.totalBytes - peak.kvBytes)));
    return std::round(capacity * (1 - c.headroom));
}

// The largest value of one field (mb or seq) for which the peak stays under the headroom line: memory grows with
// both, so a binary search over whole numbers finds it. 0 when even 1 does not fit.
bool fitsUnderLine(const Config& c) {
    const Peak peak = peakOf(c);
    return peak.totalBytes <= usableOf(c, peak);
}
double largestFitting(Config c, double Config::*field, double upper) {
    c.*field = 1;
    if (!fitsUnderLine(c)) return 0;
    double low = 1, high = upper;
    c.*field = high;
    if (fitsUnderLine(c)) return high;
    while (high - low > 1) {
        const double mid = std::floor((low + high) / 2);
        c.*field = mid;
        (fitsUnderLine(c) ? low : high) = mid;
    }
    return low;
}

}  // namespace

Result evaluate(const Config& config) noexcept {
    Result result;
    try {
        result.method = config.method;
        result.mode = config.mode;
        result.errors = validate(config);
        if (!result.errors.empty()) return result;

        // Inference does not load the multi-token-prediction layers (vLLM uses them only as a draft model).
        Config loaded = config;
        if (config.mode == Mode::inference) loaded.mtpLayers = 0;
        result.parameterCount = config.params != 0 ? config.params : derivedParameterCount(loaded);
        result.activeParameterCount = config.experts != 0 ? activeParameterCount(loaded) : result.parameterCount;
        detail::MethodOutput output = runMethod(config, result.parameterCount);
        const std::vector<Line> allowances = allowanceLines(config);
        // membudget's training ledger holds the fixed workspaces beside the method's lines (the published sources
        // have no such line).
        const bool training = config.mode == Mode::training && config.method == Method::membudget;
        const Line workspace = training ? detail::workspaceLine(config) : Line{};

        size_t peak = 0;
        double peakBytes = -1, firstLayer = 0;
        for (size_t i = 0; i < output.stages.size(); ++i) {
            auto& stage = output.stages[i];
            if (training) stage.lines.push_back(workspace);
            stage.lines.insert(stage.lines.end(), allowances.begin(), allowances.end());
            Stage summary{stage.index, stage.layers, stage.inFlightMicrobatches, 0, {}, 0, 0};
            // The architecture's layers on this stage, whatever the method's own split (the chapter's L / PP).
            const double stageLayerCount = detail::stageLayerCount(config, stage.index);
            if (i == 0)
                for (double s = 0; s < stage.index; ++s) firstLayer += detail::stageLayerCount(config, s);
            const auto counted = detail::stageParameterCount(config, stage.index, firstLayer, stageLayerCount);
            firstLayer += stageLayerCount;
            summary.reservedBytes = stage.reservedBytes;
            summary.parametersPerGpu = counted.perGpu;
            summary.modelParameters = counted.model;
            for (const auto& line : stage.lines) {
                summary.totalBytes += line.bytes;
                summary.lineBytes.push_back(line.bytes);
            }
            if (summary.totalBytes > peakBytes) {
                peakBytes = summary.totalBytes;
                peak = i;
            }
            result.stages.push_back(std::move(summary));
        }
        auto& peakStage = output.stages[peak];
        result.peakStage = peakStage.index;
        result.lines = std::move(peakStage.lines);
        result.tensors = std::move(peakStage.tensors);
        result.reservedBytes = peakStage.reservedBytes;
        const double allowanceBytes = workspace.bytes + allowances[0].bytes + allowances[1].bytes;
        for (auto phase : peakStage.phases) {
            phase.totalBytes += allowanceBytes;
            result.phases.push_back(std::move(phase));
        }
        result.peakPhase = peakStage.peakPhase;
        result.cpuBytesPerNode = output.cpuBytesPerNode;
        if (result.cpuBytesPerNode > 0) result.cpuLines = std::move(output.cpuLines);

        const auto activations =
            std::find_if(result.lines.begin(), result.lines.end(), [](const Line& l) { return l.id == LineId::activations; });
        const double perLayerStage = activations == result.lines.end() || peakStage.layers == 0 ? 0 : activations->bytes / peakStage.layers;
        result.warnings = layoutWarnings(config, perLayerStage);
        result.warnings.insert(result.warnings.end(), output.warnings.begin(), output.warnings.end());

        result.totalBytes = peakBytes;
        result.stepTime = estimateStepTime(config);
        result.capacityBytes = std::round(config.gpuGb * kBytesPerGB);
        double kvBytes = 0;
        for (const Line& line : result.lines)
            if (line.id == LineId::kvCache) kvBytes += line.bytes;
        result.usableBytes = usableOf(config, {peakBytes, kvBytes});
        // A margin inside the error band of the measured runs like this one is not a fit: were the run as far under
        // the prediction as the worst of them, it would pass the headroom line (docs/accuracy.md, "Error band").
        result.errorBand = errorBand(config);
        const double worstBytes = bandPeakBytes(result.errorBand, result.totalBytes);
        result.verdict = result.totalBytes <= result.usableBytes && worstBytes <= result.usableBytes ? Verdict::fits
                         : result.totalBytes <= result.capacityBytes                                 ? Verdict::tight
                                                                                                     : Verdict::doesNotFit;
        if (config.mode == Mode::inference) {
            result.maxSequences = largestFitting(config, &Config::mb, findField("mb")->max);
            // The longest context that fits, but never beyond the model's window (what vLLM would serve).
            const double longest = config.contextWindow > 0 ? config.contextWindow : findField("seq")->max;
            result.maxContextTokens = largestFitting(config, &Config::seq, longest);
        }
        // Under a benchmark no more requests run than the KV cache holds: the engine queues the rest.
        result.servingTime = estimateServingTime(config, config.numPrompts > 0 ? result.maxSequences : 0);
        if (result.totalBytes >= kExactIntegerLimit)
            result.warnings.push_back({"", "the total exceeds 2^53 bytes (9 PB): byte counts are no longer exact"});
    } catch (...) {
        // Only allocation can throw here; report it rather than let it cross a C or JS boundary.
        result = Result{};
        result.method = config.method;
        result.mode = config.mode;
        result.errors = {{"", "internal error: out of memory while evaluating"}};
    }
    return result;
}

Fit fitOf(const Config& config) noexcept {
    Fit fit;
    try {
        const Peak peak = peakOf(config);
        fit.totalBytes = peak.totalBytes;
        const double capacity = std::round(config.gpuGb * kBytesPerGB);
        fit.usableBytes = usableOf(config, peak);
        const double worst = bandPeakBytes(config, fit.totalBytes);
        fit.verdict = fit.totalBytes <= fit.usableBytes && worst <= fit.usableBytes ? Verdict::fits
                      : fit.totalBytes <= capacity                                  ? Verdict::tight
                                                                                    : Verdict::doesNotFit;
    } catch (...) {
        fit = Fit{};
    }
    return fit;
}

std::vector<MethodColumn> compareMethods(const Config& config) noexcept {
    std::vector<MethodColumn> columns;
    try {
        for (const std::string_view id : ChoiceNames<Method>::names) {
            Config c = config;
            c.method = *parseChoice<Method>(id);
            MethodColumn column{c.method, evaluate(c), 0};
            for (const auto& line : column.result.lines)
                if (line.origin == c.method) column.sourceBytes += line.bytes;
            columns.push_back(std::move(column));
        }
    } catch (...) {
        columns.clear();
    }
    return columns;
}

std::vector<Line> measurableLines(const Config& config) noexcept {
    std::vector<Line> lines;
    try {
        Result result = evaluate(config);
        if (!result.ok()) return lines;
        if (config.mode != Mode::training || config.method != Method::membudget || result.peakPhase != StepPhase::optimizerStep)
            return std::move(result.lines);
        // The same stage, composed at forward/backward (the ledger the other methods borrow from).
        const detail::MethodOutput output = detail::membudgetMethod(config, result.parameterCount, false);
        for (const auto& stage : output.stages)
            if (stage.index == result.peakStage) lines = stage.lines;
        lines.push_back(detail::workspaceLine(config));
        const std::vector<Line> allowances = allowanceLines(config);
        lines.insert(lines.end(), allowances.begin(), allowances.end());
    } catch (...) {
        lines.clear();  // allocation only, as in evaluate()
    }
    return lines;
}

}  // namespace membudget
