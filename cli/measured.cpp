#include "measured.hpp"

#include "columns.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "membudget/detail/text.hpp"
#include "membudget/json.hpp"

namespace membudget {

namespace {

using nlohmann::ordered_json;

std::string typeName(const ordered_json& value) {
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_null()) return "null";
    if (value.is_array()) return "an array";
    return "an object";
}

// A byte count as measure.py writes it: a non-negative whole number (JSON integers and integral doubles).
std::optional<double> byteCount(const ordered_json& value) {
    if (!value.is_number() || value.is_boolean()) return std::nullopt;
    const double bytes = value.get<double>();
    if (!std::isfinite(bytes) || bytes < 0 || std::floor(bytes) != bytes) return std::nullopt;
    return bytes;
}

ordered_json number(double value) {
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < kExactIntegerLimit)
        return static_cast<std::int64_t>(value);
    return value;
}

ordered_json optionalNumber(const std::optional<double>& value) { return value ? number(*value) : ordered_json(nullptr); }

// Percent of the prediction; none where nothing was predicted.
std::optional<double> percentOf(double differenceBytes, double predictedBytes) {
    if (predictedBytes == 0) return std::nullopt;
    return differenceBytes / predictedBytes * 100;
}

std::string fixed2(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

std::string signedFixed(double value, const char* format) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    std::string text(buffer);
    // "-0.00" and "+0.00" read as a difference that is not there.
    if (text == "-0.00" || text == "+0.00") return "0.00";
    if (text == "-0.0%" || text == "+0.0%") return "0.0%";
    return text;
}

using cli::displayWidth;
using cli::pad;
using cli::padLeft;

std::string describeTotal(std::string_view id) {
    if (id == "total") return "Total";
    if (id == "total_without_allowances") return "Total less allowances";
    if (id == "peak_allocated") return "peak allocated";
    return "peak reserved";
}

}  // namespace

MeasuredComparison compareMeasured(std::string_view text) {
    MeasuredComparison out;
    auto fail = [&out](std::string field, std::string message) {
        out.errors.push_back({std::move(field), std::move(message)});
        return out;
    };
    ordered_json root;
    try {
        root = ordered_json::parse(text.begin(), text.end());
    } catch (const ordered_json::exception& e) {
        return fail("", std::string("the measured file is not JSON: ") + e.what());
    }
    if (!root.is_object()) return fail("", "the measured file must be a JSON object; got " + typeName(root));

    const auto format = root.find("format");
    if (format == root.end() || !format->is_string() || format->get<std::string>() != kMeasuredFormat)
        return fail("format", "format must be \"" + std::string(kMeasuredFormat) + "\" (a file written by tools/measure/measure.py); got " +
                                  (format == root.end() ? std::string("nothing") : format->dump()));

    const auto config = root.find("config");
    if (config == root.end() || !config->is_object())
        return fail("config", "config must be the object of membudget keys the run used; got " +
                                  (config == root.end() ? std::string("nothing") : typeName(*config)));

    const auto lines = root.find("lines");
    if (lines == root.end() || !lines->is_object())
        return fail("lines", "lines must be an object of ledger line ids to measured bytes; got " +
                                 (lines == root.end() ? std::string("nothing") : typeName(*lines)));
    std::vector<std::pair<std::string, double>> measured;
    for (const auto& [id, value] : lines->items()) {
        const auto bytes = byteCount(value);
        if (!bytes) out.errors.push_back({"lines." + id, "lines." + id + " must be a whole number of bytes, 0 or more; got " + value.dump()});
        else measured.emplace_back(id, *bytes);
    }

    std::optional<double> peakAllocated, peakReserved;
    if (const auto peak = root.find("peak"); peak != root.end()) {
        if (!peak->is_object()) {
            out.errors.push_back({"peak", "peak must be an object of allocator peaks in bytes; got " + typeName(*peak)});
        } else {
            for (const char* key : {"allocated_bytes", "reserved_bytes", "active_bytes"}) {
                const auto value = peak->find(key);
                if (value == peak->end()) continue;
                const auto bytes = byteCount(*value);
                if (!bytes) {
                    out.errors.push_back({std::string("peak.") + key,
                                          std::string("peak.") + key + " must be a whole number of bytes, 0 or more; got " + value->dump()});
                    continue;
                }
                if (std::string_view(key) == "allocated_bytes") peakAllocated = bytes;
                if (std::string_view(key) == "reserved_bytes") peakReserved = bytes;
            }
        }
    }
    struct MeasuredPhase {
        std::string name;
        double step;
        double peakAllocatedBytes;
    };
    std::vector<MeasuredPhase> measuredPhases;
    if (const auto phases = root.find("phases"); phases != root.end()) {
        if (!phases->is_array()) out.errors.push_back({"phases", "phases must be an array; got " + typeName(*phases)});
        else
            for (size_t i = 0; i < phases->size(); ++i) {
                const auto& entry = (*phases)[i];
                const std::string where = "phases[" + std::to_string(i) + "]";
                if (!entry.is_object() || !entry.contains("phase") || !entry["phase"].is_string()) {
                    out.errors.push_back({where + ".phase", where + " must be an object with a phase name"});
                    continue;
                }
                const auto step = entry.contains("step") ? byteCount(entry["step"]) : std::nullopt;
                const auto peak = entry.contains("peak_allocated_bytes") ? byteCount(entry["peak_allocated_bytes"]) : std::nullopt;
                if (!step) out.errors.push_back({where + ".step", where + ".step must be a whole number, 0 or more"});
                if (!peak) out.errors.push_back({where + ".peak_allocated_bytes", where + ".peak_allocated_bytes must be a whole number of bytes, 0 or more"});
                if (step && peak) measuredPhases.push_back({entry["phase"].get<std::string>(), *step, *peak});
            }
    }
    if (const auto device = root.find("device"); device != root.end()) {
        if (!device->is_object()) out.errors.push_back({"device", "device must be an object; got " + typeName(*device)});
        else if (const auto name = device->find("name"); name != device->end() && name->is_string()) out.deviceName = name->get<std::string>();
    }
    if (const auto source = root.find("source"); source != root.end() && source->is_string()) out.source = source->get<std::string>();

    // The configuration through the same reader as `membudget eval`, so its errors name the same keys.
    AssignmentList list = parseJsonConfig(config->dump());
    for (const auto& p : list.problems) out.errors.push_back({"config." + p.field, "config: " + p.message});
    const bool namesMethod = std::any_of(list.assignments.begin(), list.assignments.end(), [](const Assignment& a) { return a.key == "method"; });
    Config base;
    base.method = "membudget";
    ParsedConfig parsed = applyAssignments(list.assignments, base);
    if (!namesMethod) parsed.config.method = "membudget";  // a model preset's own method does not count as naming one
    for (const auto& p : parsed.problems) out.errors.push_back({"config." + p.field, "config: " + p.message});
    if (!out.errors.empty()) return out;
    out.config = parsed.config;
    out.result = evaluate(out.config);
    for (const auto& p : out.result.errors) out.errors.push_back({"config." + p.field, "config: " + p.message});
    if (!out.errors.empty()) return out;

    double allowanceBytes = 0;
    for (const auto& line : out.result.lines) {
        MeasuredLine row{line.id, line.label, line.bytes, std::nullopt, line.origin == "allowance"};
        for (const auto& [id, bytes] : measured)
            if (id == line.id) row.measuredBytes = bytes;
        if (row.allowance) allowanceBytes += line.bytes;
        out.lines.push_back(std::move(row));
    }
    out.predictedTotalBytes = out.result.totalBytes;
    out.predictedWithoutAllowancesBytes = out.result.totalBytes - allowanceBytes;

    // measure.py measures the lines during forward and backward. Where the ledger's peak is the optimizer
    // step (its optimizer line then holds the step's FP32 gradient copy, its activations line 0), the lines
    // to compare are the same stage's at forward/backward: measurableLines, as the page's measured column.
    const auto phaseTotal = [&](std::string_view name) -> std::optional<double> {
        for (const auto& phase : out.result.phases)
            if (phase.name == name) return phase.totalBytes - allowanceBytes;
        return std::nullopt;
    };
    const auto forwardBackward = phaseTotal("forward/backward");
    if (out.config.mode == "training" && out.result.peakPhase == "optimizer step") {
        for (const auto& line : measurableLines(out.config))
            for (auto& row : out.lines)
                if (row.id == line.id) row.predictedBytes = line.bytes;
        out.linePhase = "forward/backward";
    }
    if (out.config.mode == "training" && !measuredPhases.empty()) {
        double lastStep = 0;
        for (const auto& phase : measuredPhases) lastStep = std::max(lastStep, phase.step);
        auto peakOf = [&](std::initializer_list<std::string_view> names) -> std::optional<double> {
            std::optional<double> peak;
            for (const auto& phase : measuredPhases)
                if (phase.step == lastStep && std::find(names.begin(), names.end(), phase.name) != names.end())
                    peak = std::max(peak.value_or(0), phase.peakAllocatedBytes);
            return peak;
        };
        const auto step = phaseTotal("optimizer step");
        if (const auto measuredPeak = peakOf({"forward", "backward"}); forwardBackward && measuredPeak)
            out.phases.push_back({"forward/backward", "forward+backward", *forwardBackward, *measuredPeak});
        if (const auto measuredPeak = peakOf({"optimizer"}); step && measuredPeak)
            out.phases.push_back({"optimizer step", "optimizer", *step, *measuredPeak});
    }
    for (const auto& [id, bytes] : measured) {
        const bool predicted = std::any_of(out.result.lines.begin(), out.result.lines.end(), [&](const Line& l) { return l.id == id; });
        if (!predicted) out.lines.push_back({id, id, std::nullopt, bytes, false});
    }
    for (const auto& [name, peak] : {std::pair<const char*, std::optional<double>>{"peak_allocated", peakAllocated}, {"peak_reserved", peakReserved}}) {
        if (!peak) continue;
        out.totals.push_back({"total", name, out.predictedTotalBytes, *peak});
        out.totals.push_back({"total_without_allowances", name, out.predictedWithoutAllowancesBytes, *peak});
    }
    return out;
}

std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent) {
    ordered_json out;
    out["format"] = "membudget-compare-measured/1";
    out["method"] = comparison.result.method;
    out["mode"] = comparison.config.mode;
    out["parameter_count"] = number(comparison.result.parameterCount);
    out["device"] = comparison.deviceName.empty() ? ordered_json(nullptr) : ordered_json(comparison.deviceName);
    out["source"] = comparison.source.empty() ? ordered_json(nullptr) : ordered_json(comparison.source);
    ordered_json lines = ordered_json::array(), notMeasured = ordered_json::array(), notPredicted = ordered_json::array();
    for (const auto& line : comparison.lines) {
        ordered_json row{{"id", line.id},
                         {"label", line.label},
                         {"predicted_bytes", optionalNumber(line.predictedBytes)},
                         {"measured_bytes", optionalNumber(line.measuredBytes)}};
        if (line.predictedBytes && line.measuredBytes) {
            const double difference = *line.measuredBytes - *line.predictedBytes;
            row["difference_bytes"] = number(difference);
            row["difference_percent"] = optionalNumber(percentOf(difference, *line.predictedBytes));
        } else {
            row["difference_bytes"] = nullptr;
            row["difference_percent"] = nullptr;
        }
        row["allowance"] = line.allowance;
        if (!line.measuredBytes) notMeasured.push_back(line.id);
        if (!line.predictedBytes) notPredicted.push_back(line.id);
        lines.push_back(std::move(row));
    }
    out["lines"] = std::move(lines);
    out["not_measured"] = std::move(notMeasured);
    out["not_predicted"] = std::move(notPredicted);
    out["predicted_total_bytes"] = number(comparison.predictedTotalBytes);
    out["predicted_without_allowances_bytes"] = number(comparison.predictedWithoutAllowancesBytes);
    ordered_json totals = ordered_json::array();
    for (const auto& total : comparison.totals) {
        const double difference = total.measuredBytes - total.predictedBytes;
        totals.push_back({{"predicted", total.predicted},
                          {"measured", total.measured},
                          {"predicted_bytes", number(total.predictedBytes)},
                          {"measured_bytes", number(total.measuredBytes)},
                          {"difference_bytes", number(difference)},
                          {"difference_percent", optionalNumber(percentOf(difference, total.predictedBytes))}});
    }
    out["totals"] = std::move(totals);
    out["line_phase"] = comparison.linePhase.empty() ? ordered_json(nullptr) : ordered_json(comparison.linePhase);
    ordered_json phases = ordered_json::array();
    for (const auto& phase : comparison.phases) {
        const double difference = phase.measuredBytes - phase.predictedBytes;
        phases.push_back({{"predicted", phase.predicted},
                          {"measured", phase.measured},
                          {"predicted_bytes", number(phase.predictedBytes)},
                          {"measured_bytes", number(phase.measuredBytes)},
                          {"difference_bytes", number(difference)},
                          {"difference_percent", optionalNumber(percentOf(difference, phase.predictedBytes))}});
    }
    out["phases"] = std::move(phases);
    out["config"] = ordered_json::parse(configToJson(comparison.config));
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

void printMeasuredComparison(std::ostream& out, const MeasuredComparison& comparison, bool gib) {
    const double unitBytes = gib ? kBytesPerGiB : kBytesPerGB;
    const std::string unit = gib ? "GiB" : "GB";
    auto value = [&](double bytes) { return fixed2(bytes / unitBytes); };
    const auto& c = comparison.config;
    out << "membudget compare-measured · method " << comparison.result.method << " · " << c.mode << " · Ψ = "
        << detail::groupedNumber(comparison.result.parameterCount) << " parameters · b " << detail::groupedNumber(c.mb) << " · s "
        << detail::groupedNumber(c.seq) << "\n";
    if (!comparison.deviceName.empty()) out << "measured on " << comparison.deviceName << "\n";
    if (!comparison.source.empty()) out << "source: " << comparison.source << "\n";
    if (!comparison.linePhase.empty())
        out << "lines at the " << comparison.linePhase << " phase, where they are measured"
            << (comparison.result.peakPhase != comparison.linePhase
                    ? " (the prediction peaks in the " + comparison.result.peakPhase + ", which adds an FP32 gradient copy and frees the activations)"
                    : "")
            << "\n";
    out << "\n";

    size_t labelWidth = displayWidth("Total less allowances");
    for (const auto& line : comparison.lines) labelWidth = std::max(labelWidth, displayWidth(line.label));
    const std::string gap = "  ";
    const std::string predictedHeader = "Predicted (" + unit + ")", measuredHeader = "Measured (" + unit + ")",
                      differenceHeader = "Difference (" + unit + ")";
    const size_t w1 = predictedHeader.size(), w2 = std::max<size_t>(measuredHeader.size(), 22), w3 = differenceHeader.size(), w4 = 9;
    out << pad("Line", labelWidth) << gap << padLeft(predictedHeader, w1) << gap << padLeft(measuredHeader, w2) << gap
        << padLeft(differenceHeader, w3) << gap << padLeft("%", w4) << "\n";
    for (const auto& line : comparison.lines) {
        out << pad(line.label, labelWidth) << gap << padLeft(line.predictedBytes ? value(*line.predictedBytes) : "—", w1) << gap
            << padLeft(line.measuredBytes ? value(*line.measuredBytes) : "—", w2) << gap;
        if (line.predictedBytes && line.measuredBytes) {
            const double difference = *line.measuredBytes - *line.predictedBytes;
            const auto percent = percentOf(difference, *line.predictedBytes);
            out << padLeft(signedFixed(difference / unitBytes, "%+.2f"), w3) << gap
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
            << padLeft(signedFixed(difference / unitBytes, "%+.2f"), w3) << gap
            << padLeft(percent ? signedFixed(*percent, "%+.1f%%") : "—", w4) << "\n";
    }
    if (!comparison.phases.empty()) {
        out << "\nPhases, less allowances (measured: peak allocated in the last step)\n";
        for (const auto& phase : comparison.phases) {
            const double difference = phase.measuredBytes - phase.predictedBytes;
            const auto percent = percentOf(difference, phase.predictedBytes);
            out << pad(phase.predicted, labelWidth) << gap << padLeft(value(phase.predictedBytes), w1) << gap
                << padLeft(value(phase.measuredBytes) + " " + phase.measured, w2) << gap
                << padLeft(signedFixed(difference / unitBytes, "%+.2f"), w3) << gap
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

}  // namespace membudget
