// `membudget compare-measured FILE`: a run measured by tools/measure/measure.py against the engine's
// prediction for the configuration it ran, line by line and in total.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/config.hpp"
#include "membudget/ledger.hpp"

namespace membudget {

inline constexpr std::string_view kMeasuredFormat = "membudget-measured/1";

struct MeasuredLine {
    std::string id;
    std::string label;
    std::optional<double> predictedBytes;  // empty: the engine's ledger has no such line
    std::optional<double> measuredBytes;   // empty: the run did not measure it
    bool allowance = false;                // buffers, CUDA context, CUDA graphs: the allocator never sees them
};

// One total the engine predicts against one peak the allocator reported.
struct MeasuredTotal {
    std::string predicted;  // "total", "total_without_allowances", or a phase: "forward/backward", "optimizer step"
    std::string measured;   // "peak_allocated", "peak_reserved", or the measured phases: "forward+backward", "optimizer"
    double predictedBytes = 0;
    double measuredBytes = 0;
};

struct MeasuredComparison {
    Config config;
    Result result;
    std::string source;      // the file's optional "source" note
    std::string deviceName;  // device.name, when given
    std::vector<MeasuredLine> lines;  // the ledger's lines in order, then lines measured but not predicted
    std::vector<MeasuredTotal> totals;  // only against the peaks the file has
    // Training with phases in the file: each predicted phase (less allowances) against the peak allocated in
    // the matching phases of the last step measured.
    std::vector<MeasuredTotal> phases;
    // The phase the predicted lines are taken at: "forward/backward" where the engine itemises it (method
    // membudget in training; measure.py measures the lines there), else "" (the ledger's own lines).
    std::string linePhase;
    double predictedTotalBytes = 0;
    double predictedWithoutAllowancesBytes = 0;
    std::vector<Problem> errors;  // each names its field ("format", "config.tp", "lines.gradients"); nothing else is set

    bool ok() const { return errors.empty(); }
};

// Reads a measured file and evaluates its `config` with the engine: method membudget unless the config
// names one.
MeasuredComparison compareMeasured(std::string_view text);

std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent = 2);
void printMeasuredComparison(std::ostream& out, const MeasuredComparison& comparison, bool gib);

}  // namespace membudget
