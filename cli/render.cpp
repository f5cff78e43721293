#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/memory/methods.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/time/steptime.hpp"
#include "render.hpp"

namespace membudget::cli {

namespace {

std::string signedFixed(double value, const char* format) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    std::string text(buffer);
    // "-0.00" and "+0.00" read as a difference that is not there.
    if (text == "-0.00" || text == "+0.00") return "0.00";
    if (text == "-0.0%" || text == "+0.0%") return "0.0%";
    return text;
}

std::string describeTotal(std::string_view id) {
    if (id == "total") return "Total";
    if (id == "total_without_allowances") return "Total less allowances";
    if (id == "peak_allocated") return "peak allocated";
    return "peak reserved";
}

}  // namespace

void printProblems(std::ostream& err, const std::vector<Problem>& problems, std::string_view kind) {
    for (size_t i = 0; i < std::min(problems.size(), kListedEntries); ++i)
        err << "membudget: " << kind << ": " << problems[i].message << "\n";
    if (problems.size() > kListedEntries)
        err << "membudget: " << kind << ": … and " << detail::groupedNumber(static_cast<double>(problems.size() - kListedEntries))
            << " more, not shown\n";
}

std::string percent(double fraction);

// Days to the tenth with thousands separators (2,121.7), as the page writes them.
std::string daysText(double days) {
    const double tenths = std::round(days * 10);
    return detail::groupedNumber(std::floor(tenths / 10)) + "." + std::to_string(static_cast<int>(std::fmod(tenths, 10)));
}

// The run on train_tokens at the estimated step: its days, GPU-hours and, with a price, its cost.
// An estimate's band after its value: " (low–high)", each end as `format` writes it.
template <typename Format>
std::string bandText(double low, double high, Format format) {
    return " (" + format(low) + "–" + format(high) + ")";
}

std::string runText(const StepTime& st, const Config& c) {
    auto whole = [](double x) { return detail::groupedNumber(std::round(x)); };
    auto days = [](double seconds) { return daysText(seconds / 86400); };
    std::string text = "Run (estimate): " + detail::groupedNumber(c.trainTokens) + " tokens in " + detail::groupedNumber(st.runSteps) +
                       " optimizer steps: " + days(st.runSeconds) + bandText(st.runSecondsLow, st.runSecondsHigh, days) + " days on " +
                       detail::groupedNumber(worldSize(c)) + " GPUs, " + whole(st.runGpuHours) +
                       bandText(st.runGpuHoursLow, st.runGpuHoursHigh, whole) + " GPU-hours";
    if (c.gpuHourUsd > 0)
        text += ", $" + whole(st.runCostUsd) + bandText(st.runCostUsdLow, st.runCostUsdHigh, whole) + " at $" +
                detail::formatNumber(c.gpuHourUsd) + " per GPU-hour";
    return text;
}

namespace {

// The heading: the method, the model and its parameters, the layout, the GPU and the accuracy.
void printHeading(std::ostream& out, const Result& result, const Config& c, ByteUnit unit) {
    const auto* model = findModelPreset(c.model);
    const auto* gpu = findGpuPreset(c.gpu);
    // The framework decides what membudget's own method counts in training (docs/frameworks.md).
    const bool framework = c.method == Method::membudget && c.mode == Mode::training;
    out << "membudget · method " << result.method << (framework ? " · framework " + std::string(toString(c.framework)) : std::string())
        << " · "
        << (!c.name.empty() ? std::string_view(c.name)
            : model         ? model->label
                            : std::string_view("custom architecture"))
        << " · Ψ = " << detail::groupedNumber(result.parameterCount) << " parameters"
        << (result.activeParameterCount != result.parameterCount
                ? " (" + detail::groupedNumber(result.activeParameterCount) + " active per token)"
                : "")
        << "\n";
    const auto g = detail::groupedNumber;
    if (c.mode == Mode::inference)
        out << "inference · TP " << g(c.tp) << " · PP " << g(c.pp) << " · " << g(c.mb) << " sequences × " << g(c.seq)
            << " tokens · weights " << c.weightDtype << " · KV cache " << c.kvDtype << "\n";
    else
        out << "TP " << g(c.tp) << " · PP " << g(c.pp) << " · DP " << g(c.dp) << " · CP " << g(c.cp) << " · SP " << (c.sp ? "on" : "off")
            << " · ZeRO " << g(c.zero) << " · b_μ " << g(c.mb) << " · s " << g(c.seq) << " · ckpt " << c.ckpt << " · micro-batches "
            << g(c.microbatches) << "\n";
    out << "GPU " << (gpu ? gpu->label : c.gpu) << " · capacity " << unit.amount(result.capacityBytes) << " " << unit.name << " · headroom "
        << detail::formatNumber(c.headroom * 100) << "%\n";
    out << "Accuracy: " << result.errorBand.text << "\n\n";
}

// The ledger: a line per component with its formula, then the total, the reserve, the capacity and what is usable.
void printLedger(std::ostream& out, const Result& result, const Config& c, ByteUnit unit) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    const auto* gpu = findGpuPreset(c.gpu);
    size_t labelWidth = std::string_view("Component").size(), formulaWidth = std::string_view("Formula").size();
    for (const auto& line : result.lines) {
        labelWidth = std::max(labelWidth, displayWidth(line.label));
        formulaWidth = std::max(formulaWidth, displayWidth(line.formula));
    }
    labelWidth = std::max(labelWidth, std::string_view("Usable").size());
    const std::string valueHeader = "Value (" + std::string(unit.name) + ")";
    const size_t valueWidth = std::max<size_t>(valueHeader.size(), 10);
    const std::string gap = "  ";

    out << pad("Component", labelWidth) << gap << pad("Formula", formulaWidth) << gap << padLeft(valueHeader, valueWidth) << gap
        << "Note\n";
    for (const auto& line : result.lines) {
        out << pad(line.label, labelWidth) << gap << pad(line.formula, formulaWidth) << gap << padLeft(value(line.bytes), valueWidth) << gap
            << line.note << "\n";
        out << std::string(labelWidth, ' ') << gap << "= " << line.substituted << "\n";
    }
    const std::string rule(labelWidth + formulaWidth + valueWidth + 2 * gap.size(), '-');
    out << rule << "\n";
    auto summary = [&](std::string_view label, std::string_view text, double bytes) {
        out << pad(label, labelWidth) << gap << pad(text, formulaWidth) << gap << padLeft(value(bytes), valueWidth) << "\n";
    };
    summary("Total", "sum", result.totalBytes);
    // What the caching allocator reserves at the peak: the figure nvidia-smi shows, less the CUDA context.
    if (result.reservedBytes > 0) {
        // With max_split_size_mb and blocks that large, the reserve is bounded by the GPU only (the warning says why).
        const bool unbounded =
            std::any_of(result.warnings.begin(), result.warnings.end(), [](const auto& w) { return w.field == "max_split_size_mb"; });
        summary("Reserved",
                unbounded ? "caching allocator: up to the GPU less allowances (max_split_size_mb)"
                          : "caching allocator (allocations less allowances, in segments)",
                result.reservedBytes);
    }
    summary("Capacity", gpu ? std::string(gpu->id) : "gpu_gb", result.capacityBytes);
    summary("Usable", "capacity × (1 − " + detail::formatNumber(c.headroom) + ")", result.usableBytes);
}

// The verdict, and how far the total is from the headroom line or the capacity.
void printVerdict(std::ostream& out, const Result& result, ByteUnit unit) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    const std::string verdictText = result.verdict == Verdict::fits ? "fits" : result.verdict == Verdict::tight ? "tight" : "does not fit";
    out << "\nVerdict: " << verdictText << " — total " << value(result.totalBytes) << " " << unit.name << "; ";
    if (result.verdict == Verdict::fits)
        out << value(result.usableBytes - result.totalBytes) << " " << unit.name << " below the headroom line";
    else if (result.verdict == Verdict::tight && result.totalBytes <= result.usableBytes)
        out << value(result.usableBytes - result.totalBytes) << " " << unit.name
            << " below the headroom line, inside the error band (a run "
            << detail::percentText(-result.errorBand.lowError / (1 + result.errorBand.lowError))
            << " over the prediction, as measured runs like it have been, would pass it)";
    else if (result.verdict == Verdict::tight)
        out << value(result.totalBytes - result.usableBytes) << " " << unit.name << " over the headroom line, "
            << value(result.capacityBytes - result.totalBytes) << " " << unit.name << " under capacity";
    else
        out << value(result.totalBytes - result.capacityBytes) << " " << unit.name << " over capacity";
    out << "\n";
}

// The benchmark's load, as the serving line opens under one: how many requests, how they arrive, their lengths.
std::string benchmarkText(const ServingTime& sv, const Config& c) {
    std::string lengths = detail::groupedNumber(sv.inputTokens) + " in / " + detail::groupedNumber(sv.outputTokens) + " out";
    if (sv.lengthRangeRatio < 1)
        lengths += " drawn from " + detail::formatNumber(sv.lengthRangeRatio) + " × to 1 × (means " +
                   detail::groupedNumber(std::round(sv.meanInputTokens)) + " / " + detail::groupedNumber(std::round(sv.meanOutputTokens)) +
                   ")";
    return "Estimated benchmark (" + std::string(toString(c.framework)) + ", " + detail::groupedNumber(sv.prompts) + " prompts of " +
           lengths + ", " + (sv.requestRate > 0 ? detail::formatNumber(sv.requestRate) + " requests/s" : "all sent at once") +
           ", at most " + detail::groupedNumber(sv.concurrency) + " in flight per replica" +
           (sv.admittedSequences > 0 ? " (" + detail::groupedNumber(sv.admittedSequences) + " at once: all the KV cache holds)" : "");
}

// The speed estimates: the training step's or the serving's, each with its parts over 1% of it.
void printSpeed(std::ostream& out, const Result& result, const Config& c) {
    if (result.stepTime.estimated) {
        // The step-time estimate: its total and the parts that take more than 1% of it.
        const StepTime& st = result.stepTime;
        auto secondsText = [](double s) { return detail::formatNumber(std::round(s * 1000) / 1000); };
        auto whole = [](double x) { return detail::groupedNumber(std::round(x)); };
        out << "Estimated step: " << secondsText(st.stepSeconds) << " s" << bandText(st.stepSecondsLow, st.stepSecondsHigh, secondsText)
            << ", " << whole(st.tokensPerSecondPerGpu) << bandText(st.tokensPerSecondPerGpuLow, st.tokensPerSecondPerGpuHigh, whole)
            << " tokens/s per GPU, MFU " << percent(st.mfu) << bandText(st.mfuLow, st.mfuHigh, percent)
            << " (an estimate, its band from the constants' published ranges, docs/planner.md):";
        std::string separator = " ";
        for (const StepPartText& text : stepPartTexts()) {
            const double seconds = st.partSeconds[static_cast<size_t>(text.part)];
            if (!(seconds > 0.01 * st.stepSeconds)) continue;
            out << separator << text.label << " " << percent(seconds / st.stepSeconds);
            separator = ", ";
        }
        out << "\n";
        if (st.runSteps > 0) out << runText(st, c) << "\n";
    }
    if (result.servingTime.estimated) {
        // The serving speed: TTFT, TPOT and throughput, with the decode step's parts over 1% of it.
        const ServingTime& sv = result.servingTime;
        auto ms = [](double seconds) { return detail::formatNumber(std::round(seconds * 1e5) / 100); };
        auto whole = [](double x) { return detail::groupedNumber(std::round(x)); };
        const std::string mean = sv.benchmarked ? "mean " : "";
        out << (sv.benchmarked ? benchmarkText(sv, c)
                               : "Estimated serving (" + std::string(toString(c.framework)) + ", " + detail::groupedNumber(sv.concurrency) +
                                     " requests of " + detail::groupedNumber(sv.inputTokens) + " in / " +
                                     detail::groupedNumber(sv.outputTokens) + " out")
            << (sv.lengthsAssumed ? ", seq split in half: set input_tokens and output_tokens" : "") << "): " << mean << "TTFT "
            << ms(sv.ttftSeconds) << " ms" << bandText(sv.ttftSecondsLow, sv.ttftSecondsHigh, ms)
            << (sv.benchmarked ? ", P99 " + ms(sv.ttftP99Seconds) + " ms" : "") << ", " << mean << "TPOT " << ms(sv.tpotSeconds) << " ms"
            << bandText(sv.tpotSecondsLow, sv.tpotSecondsHigh, ms)
            << (sv.benchmarked ? ", P99 " + ms(sv.tpotP99Seconds) + " ms, mean ITL " + ms(sv.itlMeanSeconds) + " ms, P99 " +
                                     ms(sv.itlP99Seconds) + " ms"
                               : "")
            << ", " << whole(sv.outputTokensPerSecondPerGpu)
            << bandText(sv.outputTokensPerSecondPerGpuLow, sv.outputTokensPerSecondPerGpuHigh, whole) << " output tokens/s per GPU, "
            << detail::groupedNumber(std::round(sv.outputTokensPerSecondPerReplica * c.dp)) << " in all"
            << (sv.benchmarked ? " over " + detail::formatNumber(std::round(sv.benchmarkSeconds * 10) / 10) + " s" : "")
            << " (an estimate, docs/inference.md). TPOT:";
        std::string separator = " ";
        for (size_t i = 0; i < kDecodeParts; ++i) {
            if (!(sv.decodeSeconds[i] > 0.01 * sv.tpotSeconds)) continue;
            out << separator << decodePartTexts()[i].label << " " << percent(sv.decodeSeconds[i] / sv.tpotSeconds);
            separator = ", ";
        }
        out << "\n";
    }
}

// What the ledger holds beyond its lines: the stages, the phases, the saved tensors, the sequences that fit, the
// CPU memory offloaded and the warnings.
void printDetails(std::ostream& out, const Result& result, const Config& c, ByteUnit unit, bool showTensors) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    if (result.stages.size() > 1) {
        out << "\nStages (the peak decides the verdict):\n";
        for (const auto& stage : result.stages)
            out << (stage.index == result.peakStage ? "  * " : "    ") << "stage " << detail::groupedNumber(stage.index) << ": "
                << detail::formatNumber(stage.layers) << " layers, " << detail::formatNumber(stage.inFlightMicrobatches)
                << " micro-batches in flight, " << value(stage.totalBytes) << " " << unit.name << "\n";
    }
    if (!result.phases.empty()) {
        out << "\nPhases:";
        for (const auto& phase : result.phases) out << " " << phase.name << " " << value(phase.totalBytes) << " " << unit.name << ";";
        out << " the peak is the " << result.peakPhase << "\n";
    }
    if (showTensors && !result.tensors.empty()) {
        out << "\nActivation tensors on stage " << detail::groupedNumber(result.peakStage) << " (per copy × copies):\n";
        for (const auto& t : result.tensors)
            out << "  " << pad(t.name, 46) << pad(t.shape, 34) << pad(t.dtype, 6) << padLeft(value(t.bytes), 10) << " " << unit.name
                << "  (" << detail::groupedNumber(std::round(t.bytesPerCopy)) << " B × " << detail::formatNumber(t.copies) << ") "
                << t.sharding << "\n";
    }
    if (c.mode == Mode::inference)
        out << "\nFits under the headroom line: up to " << detail::groupedNumber(result.maxSequences) << " concurrent sequences of "
            << detail::groupedNumber(c.seq) << " tokens; with " << detail::groupedNumber(c.mb) << " sequences, up to "
            << detail::groupedNumber(result.maxContextTokens) << " tokens each\n";
    if (result.cpuBytesPerNode > 0) {
        out << "\nCPU memory per node (offloaded): " << value(result.cpuBytesPerNode) << " " << unit.name << "\n";
        for (const auto& line : result.cpuLines)
            out << "  " << pad(line.label, 26) << padLeft(value(line.bytes), 10) << " " << unit.name << "  " << line.note << "\n";
    }
    if (!result.warnings.empty()) {
        out << "\nWarnings:\n";
        for (const auto& w : result.warnings) out << "  - " << (w.field.empty() ? "" : w.field + ": ") << w.message << "\n";
    }
}

}  // namespace

void printTable(std::ostream& out, const Result& result, const Config& c, ByteUnit unit, bool showTensors) {
    printHeading(out, result, c, unit);
    printLedger(out, result, c, unit);
    printVerdict(out, result, unit);
    printSpeed(out, result, c);
    printDetails(out, result, c, unit, showTensors);
    out << "\nLink query: " << encodeQuery(c) << "\n";
}

void printComparison(std::ostream& out, const std::vector<MethodColumn>& columns, const Config& c, ByteUnit unit) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    const size_t labelWidth = 20, width = 12;
    out << "Per-GPU memory by method (" << unit.name << "; * = the configured method, " << c.method << ")\n\n";
    out << pad("", labelWidth);
    for (const auto& column : columns) out << padLeft(std::string(toString(column.method)) + (column.method == c.method ? "*" : ""), width);
    out << "\n";
    const MethodColumn* base = nullptr;
    for (const auto& column : columns)
        if (column.method == c.method) base = &column;
    if (!base || !base->result.ok()) return;
    // Rows by line id: the configured method's lines, then any a source alone has (membudget's workspaces).
    auto lineOf = [](const MethodColumn& column, LineId id) -> const Line* {
        for (const auto& line : column.result.lines)
            if (line.id == id) return &line;
        return nullptr;
    };
    std::vector<const Line*> rows;
    for (const auto& column : columns)
        for (const auto& line : column.result.lines)
            if (std::none_of(rows.begin(), rows.end(), [&line](const Line* r) { return r->id == line.id; })) rows.push_back(&line);
    std::stable_sort(rows.begin(), rows.end(), [&](const Line* a, const Line* b) { return lineOf(*base, a->id) && !lineOf(*base, b->id); });
    for (const Line* row : rows) {
        out << pad(row->label, labelWidth);
        for (const auto& column : columns) {
            const Line* found = column.result.ok() ? lineOf(column, row->id) : nullptr;
            if (!found) {
                out << padLeft("—", width);
                continue;
            }
            const auto& line = *found;
            // A value the source does not model itself is shown in brackets.
            const std::string text = line.origin == column.method || !line.origin ? value(line.bytes) : "(" + value(line.bytes) + ")";
            out << padLeft(text, width);
        }
        out << "\n";
    }
    auto row = [&](std::string_view label, auto get) {
        out << pad(label, labelWidth);
        for (const auto& column : columns) out << padLeft(column.result.ok() ? get(column) : "—", width);
        out << "\n";
    };
    row("Total", [&](const MethodColumn& m) { return value(m.result.totalBytes); });
    row("Source's own figure", [&](const MethodColumn& m) { return value(m.sourceBytes); });
    row("Verdict", [&](const MethodColumn& m) {
        return m.result.verdict == Verdict::doesNotFit ? std::string("over") : std::string(toString(m.result.verdict));
    });
    out << "\n(values in brackets are membudget's estimate where the source has no formula)\n";
    out << "\nWhy they differ from " << c.method << ":\n";
    for (const auto& column : columns) {
        if (&column == base || !column.result.ok()) continue;
        for (const auto& line : column.result.lines) {
            const Line* baseLine = lineOf(*base, line.id);
            const double baseBytes = baseLine ? baseLine->bytes : 0;
            const double delta = line.bytes - baseBytes;
            if (std::fabs(delta) < 0.005 * std::max(1.0, baseBytes) || !line.origin) continue;
            out << "  " << pad(toString(column.method), 12) << pad(line.label, 13) << padLeft((delta > 0 ? "+" : "") + value(delta), 8)
                << " " << unit.name << "  " << differenceReason(line.origin.value_or(column.method), line.id) << "\n";
        }
    }
}

std::string percent(double fraction) { return detail::percentText(fraction); }

void printGpuPlans(std::ostream& out, const std::vector<GpuPlan>& plans, const PlanRequest& request, ByteUnit unit) {
    const Config& c = request.base;
    const bool run = c.trainTokens > 0;
    out << "membudget plan --which-gpu: " << c.model << " on " << detail::groupedNumber(request.gpus) << " GPUs ("
        << detail::groupedNumber(c.gpusPerNode) << " per node), seq " << detail::groupedNumber(c.seq) << ", global batch "
        << detail::groupedNumber(request.globalBatch) << " sequences"
        << (run ? ", " + detail::groupedNumber(c.trainTokens) + " tokens" : "") << ": each GPU preset's fastest layout that fits\n\n";
    out << pad("GPU", 26) << padLeft("capacity " + std::string(unit.name), 12) << padLeft("fit", 8) << "  " << pad("layout", 34)
        << padLeft("peak " + std::string(unit.name), 9) << padLeft("tokens/s/GPU", 14) << padLeft("MFU", 7);
    if (run) out << padLeft("run days", 10) << padLeft("GPU-hours", 13);
    out << "\n";
    const GpuPlan* fastest = nullptr;
    for (const GpuPlan& gpu : plans) {
        const PlanResult& plan = gpu.plan;
        out << pad(gpu.label.size() > 25 ? gpu.label.substr(0, 24) + "…" : gpu.label, 26) << padLeft(unit.amount(gpu.capacityBytes), 12)
            << padLeft(detail::groupedNumber(plan.fitting), 8) << "  ";
        if (!plan.errors.empty()) {
            out << plan.errors.front().message << "\n";
            continue;
        }
        if (plan.recommended.index < 0) {
            out << "nothing fits\n";
            continue;
        }
        const PlanRow& row = plan.rows[static_cast<std::size_t>(plan.recommended.index)];
        std::string layout = "TP " + detail::groupedNumber(row.tp) + " PP " + detail::groupedNumber(row.pp) + " CP " +
                             detail::groupedNumber(row.cp) + " DP " + detail::groupedNumber(row.dp) +
                             (c.experts != 0 ? " EP " + detail::groupedNumber(row.ep) : "") + " Z" + detail::groupedNumber(row.zero) + " " +
                             std::string(toString(row.ckpt)) + " mb " + detail::groupedNumber(row.mb) +
                             (row.verdict == Verdict::tight ? " (tight)" : "");
        out << pad(layout, 34) << padLeft(unit.amount(row.peakBytes), 9);
        if (row.stepSeconds > 0) {
            out << padLeft(detail::groupedNumber(std::round(row.tokensPerSecondPerGpu)), 14) << padLeft(percent(row.mfu), 7);
            if (run) out << padLeft(daysText(row.runDays), 10) << padLeft(detail::groupedNumber(std::round(row.runGpuHours)), 13);
            if (!fastest || row.tokensPerSecondPerGpu > fastest->plan.rows.front().tokensPerSecondPerGpu) fastest = &gpu;
        } else {
            out << padLeft("–", 14) << padLeft("–", 7);
        }
        out << "\n";
    }
    if (fastest)
        out << "\nFastest per GPU (estimated): " << fastest->label << ". Prices differ by GPU: `membudget plan --gpu ID --gpu_hour_usd P`"
            << " gives one GPU's cost; `--json` gives every row with its link.\n";
}

void printPlan(std::ostream& out, const PlanResult& plan, const PlanRequest& request, ByteUnit unit, size_t limit, bool paretoOnly,
               const std::string& sortBy) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    const Config& c = request.base;
    out << "membudget plan: " << c.model << " on " << detail::groupedNumber(request.gpus) << " × " << c.gpu << " ("
        << value(std::round(c.gpuGb * kBytesPerGB)) << " " << unit.name << ", " << detail::groupedNumber(c.gpusPerNode)
        << " per node), seq " << detail::groupedNumber(c.seq) << ", global batch " << detail::groupedNumber(request.globalBatch)
        << " sequences, method " << c.method << "\n";
    out << detail::groupedNumber(plan.layouts) << " layouts (TP, CP, PP" << (c.experts != 0 ? ", EP" : "") << "), "
        << detail::groupedNumber(plan.candidates) << " configurations: " << detail::groupedNumber(plan.evaluated) << " evaluated, "
        << detail::groupedNumber(plan.pruned) << " pruned (a smaller micro-batch already did not fit); "
        << detail::groupedNumber(plan.fitting) << " fit";
    size_t front = 0;
    for (const auto& row : plan.rows) front += row.pareto ? 1 : 0;
    out << ", " << front << " on the Pareto front\n\n";
    if (plan.rows.empty()) {
        out << "Nothing fits. Try more GPUs, a larger GPU, a shorter sequence or a smaller global batch.\n";
        return;
    }
    // The recommended row first, then the others in the order asked for.
    std::vector<size_t> order;
    const auto recommended = plan.recommended.index >= 0 ? static_cast<size_t>(plan.recommended.index) : plan.rows.size();
    if (recommended < plan.rows.size()) order.push_back(recommended);
    for (size_t i = 0; i < plan.rows.size(); ++i)
        if (i != recommended && (!paretoOnly || plan.rows[i].pareto)) order.push_back(i);
    if (sortBy != "memory") {
        const bool bySpeed = sortBy == "speed";
        std::stable_sort(order.begin() + (recommended < plan.rows.size() ? 1 : 0), order.end(), [&](size_t a, size_t b) {
            return bySpeed ? plan.rows[a].tokensPerSecondPerGpu > plan.rows[b].tokensPerSecondPerGpu : plan.rows[a].mfu > plan.rows[b].mfu;
        });
    }
    const double bestStep = recommended < plan.rows.size() ? plan.rows[recommended].stepSeconds : 0;
    if (recommended < plan.rows.size()) {
        out << "Recommended (estimated): " << plan.recommended.reason << "\n";
        // The recommended row's run, in the words eval uses for the same configuration.
        if (plan.rows[recommended].runDays > 0) {
            const Config row = planRowConfig(c, plan.rows[recommended]);
            out << runText(estimateStepTime(row), row) << "\n";
        }
        out << "\n";
    }
    out << "  TP  PP  CP     DP" << (c.experts != 0 ? "  EP" : "") << "  ZeRO  SP  ckpt        mb      m  "
        << padLeft("peak " + std::string(unit.name), 9) << "  " << padLeft("headroom", 9)
        << "  recompute  bubble  tokens/s/GPU    MFU  vs best  notes\n";
    size_t shown = 0;
    for (size_t i : order) {
        if (shown >= limit) break;
        const PlanRow& row = plan.rows[i];
        ++shown;
        std::string notes = i == recommended ? "recommended" : "";
        auto note = [&](const std::string& text) { notes += (notes.empty() ? "" : ", ") + text; };
        if (row.pareto) note("Pareto");
        if (row.asFast && i != recommended) note("as fast (band)");
        if (row.tpCrossesNode) note("TP crosses nodes");
        if (row.cpCrossesNode) note("CP crosses nodes");
        if (std::fmod(c.layers, row.pp) != 0) note("uneven stages");
        if (row.verdict == Verdict::tight) note("tight");
        const bool timed = row.stepSeconds > 0 && bestStep > 0;
        out << padLeft(detail::groupedNumber(row.tp), 4) << padLeft(detail::groupedNumber(row.pp), 4)
            << padLeft(detail::groupedNumber(row.cp), 4) << padLeft(detail::groupedNumber(row.dp), 7);
        if (c.experts != 0) out << padLeft(detail::groupedNumber(row.ep), 4);
        out << padLeft(detail::groupedNumber(row.zero), 6) << padLeft(row.sp ? "on" : "off", 4) << "  " << pad(toString(row.ckpt), 10)
            << padLeft(detail::groupedNumber(row.mb), 4) << padLeft(detail::groupedNumber(row.microbatches), 7) << "  "
            << padLeft(value(row.peakBytes), 9) << "  " << padLeft(value(row.headroomBytes), 9) << "  "
            << padLeft(percent(row.recomputeOverhead), 9) << "  " << padLeft(percent(row.bubble), 6) << "  "
            << padLeft(row.stepSeconds > 0 ? detail::groupedNumber(std::round(row.tokensPerSecondPerGpu)) : "-", 12) << "  "
            << padLeft(row.stepSeconds > 0 ? percent(row.mfu) : "-", 5) << "  "
            << padLeft(!timed             ? "-"
                       : i == recommended ? "best"
                                          : "+" + percent(row.stepSeconds / bestStep - 1),
                       7)
            << "  " << notes << "\n";
    }
    if (shown < order.size()) out << "\n(" << shown << " of " << order.size() << " rows; --limit N for more, --json for all)\n";
    out << "\nrecompute: extra step compute of the checkpointing mode; bubble: (PP − 1) / (m + PP − 1); headroom: what is left "
           "under the "
        << detail::formatNumber(std::round((1 - c.headroom) * 100))
        << "% line; tokens/s/GPU, MFU and vs best (step time against the recommended row's): the step-time estimate "
           "(docs/planner.md), not a measurement\n";
}

void printAdvice(std::ostream& out, const std::vector<Advice>& advice, const Result& before, ByteUnit unit) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    if (advice.empty()) {
        out << "No change or combination of zero, ckpt, sp, mb, tp, pp, cp, offload or fine-tuning lowers the peak by 1% or more.\n";
        return;
    }
    out << "What to change (now " << value(before.totalBytes) << " " << unit.name << ", " << before.verdict << "):\n";
    for (const auto& a : advice)
        out << "  " << pad(a.change, 34) << padLeft(value(a.totalBytes), 8) << " " << unit.name << "  saves "
            << padLeft(value(a.savedBytes), 7) << " " << unit.name << "  " << pad(toString(a.verdict), 12) << "  "
            << (a.keepsTask ? "" : "(changes what is trained) ") << a.cost << "\n";
}

void printMeasuredComparison(std::ostream& out, const MeasuredComparison& comparison, ByteUnit unit) {
    auto value = [unit](double bytes) { return unit.amount(bytes); };
    const auto& c = comparison.config;
    out << "membudget compare-measured · method " << comparison.result.method << " · " << c.mode
        << " · Ψ = " << detail::groupedNumber(comparison.result.parameterCount) << " parameters · b " << detail::groupedNumber(c.mb)
        << " · s " << detail::groupedNumber(c.seq) << "\n";
    if (!comparison.deviceName.empty()) out << "measured on " << comparison.deviceName << "\n";
    if (!comparison.source.empty()) out << "source: " << comparison.source << "\n";
    if (comparison.linePhase)
        out << "lines at the " << comparison.linePhase << " phase, where they are measured"
            << (comparison.result.peakPhase != comparison.linePhase
                    ? " (the prediction peaks in the " + std::string(toString(comparison.result.peakPhase)) +
                          ", which adds an FP32 gradient copy and frees the activations)"
                    : "")
            << "\n";
    out << "\n";

    size_t labelWidth = displayWidth("Total less allowances");
    for (const auto& line : comparison.lines) labelWidth = std::max(labelWidth, displayWidth(line.label));
    const std::string gap = "  ";
    const std::string predictedHeader = "Predicted (" + std::string(unit.name) + ")",
                      measuredHeader = "Measured (" + std::string(unit.name) + ")",
                      differenceHeader = "Difference (" + std::string(unit.name) + ")";
    const size_t w1 = predictedHeader.size(), w2 = std::max<size_t>(measuredHeader.size(), 22), w3 = differenceHeader.size(), w4 = 9;
    out << pad("Line", labelWidth) << gap << padLeft(predictedHeader, w1) << gap << padLeft(measuredHeader, w2) << gap
        << padLeft(differenceHeader, w3) << gap << padLeft("%", w4) << "\n";
    for (const auto& line : comparison.lines) {
        out << pad(line.label, labelWidth) << gap << padLeft(line.predictedBytes ? value(*line.predictedBytes) : "—", w1) << gap
            << padLeft(line.measuredBytes ? value(*line.measuredBytes) : "—", w2) << gap;
        if (line.predictedBytes && line.measuredBytes) {
            const double difference = *line.measuredBytes - *line.predictedBytes;
            const auto percent = percentOf(difference, *line.predictedBytes);
            out << padLeft(signedFixed(difference / unit.bytes, "%+.2f"), w3) << gap
                << padLeft(percent ? signedFixed(*percent, "%+.1f%%") : "—", w4);
        } else if (!line.measuredBytes) {
            out << (line.allowance ? "not measured (an allowance the allocator does not see)" : "not measured");
        } else {
            out << "not predicted by method " << comparison.result.method;
        }
        out << "\n";
    }
    out << std::string(labelWidth + w1 + w2 + w3 + w4 + 4 * gap.size(), '-') << "\n";
    if (comparison.totals.empty()) {
        out << pad("Total", labelWidth) << gap << padLeft(value(comparison.predictedTotalBytes), w1) << gap
            << padLeft("— (no peak in the file)", w2) << "\n";
    }
    for (const auto& total : comparison.totals) {
        const double difference = total.measuredBytes - total.predictedBytes;
        const auto percent = percentOf(difference, total.predictedBytes);
        out << pad(describeTotal(total.predicted), labelWidth) << gap << padLeft(value(total.predictedBytes), w1) << gap
            << padLeft(value(total.measuredBytes) + " " + describeTotal(total.measured), w2) << gap
            << padLeft(signedFixed(difference / unit.bytes, "%+.2f"), w3) << gap
            << padLeft(percent ? signedFixed(*percent, "%+.1f%%") : "—", w4) << "\n";
    }
    if (!comparison.phases.empty()) {
        out << "\nPhases, less allowances (measured: peak allocated in the last step)\n";
        for (const auto& phase : comparison.phases) {
            const double difference = phase.measuredBytes - phase.predictedBytes;
            const auto percent = percentOf(difference, phase.predictedBytes);
            out << pad(phase.predicted, labelWidth) << gap << padLeft(value(phase.predictedBytes), w1) << gap
                << padLeft(value(phase.measuredBytes) + " " + phase.measured, w2) << gap
                << padLeft(signedFixed(difference / unit.bytes, "%+.2f"), w3) << gap
                << padLeft(percent ? signedFixed(*percent, "%+.1f%%") : "—", w4) << "\n";
        }
    }
    std::vector<std::string> notMeasured, notPredicted;
    for (const auto& line : comparison.lines) {
        if (!line.measuredBytes) notMeasured.push_back(line.id);
        if (!line.predictedBytes) notPredicted.push_back(line.id);
    }
    auto list = [&out](std::string_view title, const std::vector<std::string>& ids) {
        if (ids.empty()) return;
        out << title;
        for (size_t i = 0; i < ids.size(); ++i) out << (i ? ", " : " ") << ids[i];
        out << "\n";
    };
    out << "\n";
    list("Predicted, not measured:", notMeasured);
    list("Measured, not predicted:", notPredicted);
    out << "Differences are measured − predicted; % of the prediction. The allocator's peak excludes the CUDA context "
           "and NCCL buffers, which the allowances stand for.\n";
}

}  // namespace membudget::cli
