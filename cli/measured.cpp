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
#include "terminal.hpp"

namespace membudget {

namespace {

using nlohmann::ordered_json;

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
    const FlatJson flat = flattenJson(text);
    return compareMeasured(readMeasuredFile(flat.rootType, flat.values, flat.error));
}

std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent) {
    ordered_json out;
    out["format"] = "membudget-compare-measured/1";
    out["method"] = std::string(toString(comparison.result.method));
    out["mode"] = std::string(toString(comparison.config.mode));
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
    out["line_phase"] = comparison.linePhase ? ordered_json(std::string(toString(*comparison.linePhase))) : ordered_json(nullptr);
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
