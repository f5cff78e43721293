// The measured-file format (membudget-measured/1, written by tools/measure/measure.py): one reader, here in the
// engine, for the CLI's compare-measured and the page's measured column. It works on the document's values as
// (path, JSON type, text), so that each side parses with its own JSON library and both read the same.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

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
    std::string source;                 // the file's optional "source" note
    std::string deviceName;             // device.name, when given
    std::vector<MeasuredLine> lines;    // the ledger's lines in order, then lines measured but not predicted
    std::vector<MeasuredTotal> totals;  // only against the peaks the file has
    // Training with phases in the file: each predicted phase (less allowances) against the peak allocated in
    // the matching phases of the last step measured.
    std::vector<MeasuredTotal> phases;
    // The phase the predicted lines are taken at: forward/backward where the engine itemises it (method
    // membudget in training; measure.py measures the lines there), else none (the ledger's own lines).
    std::optional<StepPhase> linePhase;
    double predictedTotalBytes = 0;
    double predictedWithoutAllowancesBytes = 0;
    std::vector<Problem> errors;  // each names its field ("format", "config.tp", "lines.gradients"); nothing else is set

    bool ok() const { return errors.empty(); }
};
// `membudget compare-measured --json` (format membudget-compare-measured/1): the JSON's columns.
extern const RecordTable kMeasuredComparisonRecord;

// Measured byte counts beyond this (a petabyte on one GPU) are refused, naming the field: no real run measures
// them, and they would print as columns of hundreds of digits.
inline constexpr double kMaxMeasuredBytes = 1e15;

// What a measured file holds, read and checked: every problem names its path (format, config.tp,
// lines.gradients, peak.allocated_bytes, phases[0].step).
struct MeasuredPhase {
    std::string name;
    double step = 0;
    double peakAllocatedBytes = 0;
};
struct MeasuredFile {
    std::vector<Assignment> config;
    bool namesMethod = false;
    std::vector<std::pair<std::string, double>> lines;
    std::optional<double> peakAllocatedBytes, peakReservedBytes, peakActiveBytes;
    std::vector<MeasuredPhase> phases;
    std::string deviceName, source;
    std::vector<Problem> errors;
};

// `values`: every value of the document in document order, containers included (their text empty), each with
// its path: "format", "config.tp", "lines.gradients", "phases[0].phase". rootType: the document's JSON type, or
// "invalid" when it did not parse (the reason in `invalidReason`).
MeasuredFile readMeasuredFile(std::string_view rootType, std::span<const JsonValue> values, std::string_view invalidReason = "");

// What the page reads of a measured file: the file's lines, peaks and device, and its configuration (measuredConfig).
struct MeasuredRead {
    MeasuredFile file;
    ParsedConfig parsed;
};
extern const RecordTable kMeasuredReadRecord;
MeasuredRead readMeasuredRun(std::string_view rootType, std::span<const JsonValue> values, std::string_view invalidReason = "");

// The file's configuration: its keys on the defaults, method membudget unless it names one; problems named
// "config.<key>".
ParsedConfig measuredConfig(const MeasuredFile& file);

// The file's configuration evaluated and compared with what it measured.
MeasuredComparison compareMeasured(const MeasuredFile& file);

// A difference as a percent of the prediction; none where nothing was predicted.
inline std::optional<double> percentOf(double differenceBytes, double predictedBytes) {
    if (predictedBytes == 0) return std::nullopt;
    return differenceBytes / predictedBytes * 100;
}

}  // namespace membudget
