#include "membudget/io/measured.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"

namespace membudget {

namespace {

// A byte count as measure.py writes it: a whole number from 0 to kMaxMeasuredBytes.
std::optional<double> byteCount(const JsonValue& value) {
    if (value.type != "number") return std::nullopt;
    const auto bytes = detail::parseNumber(value.text);
    if (!bytes || *bytes < 0 || std::floor(*bytes) != *bytes || *bytes > kMaxMeasuredBytes) return std::nullopt;
    return bytes;
}

std::string shown(const JsonValue& value) {
    if (value.type == "string") {
        std::string text = value.text.substr(0, 40);
        return "\"" + text + (value.text.size() > 40 ? "…" : "") + "\"";
    }
    if (value.type == "number" || value.type == "boolean") return value.text;
    return jsonTypeWords(value.type);
}

std::string bytesRange() { return "a whole number of bytes from 0 to " + detail::groupedNumber(kMaxMeasuredBytes); }

void problem(MeasuredFile& out, std::string field, std::string message) { out.errors.push_back({std::move(field), std::move(message)}); }

// The document's values by path, in a map: a hostile file of many keys costs N log N, never N² (a later duplicate
// wins, as in JSON.parse).
class MeasuredValues {
public:
    explicit MeasuredValues(std::span<const JsonValue> values) : values_(values) {
        for (const auto& v : values) byPath_[v.key] = &v;
    }
    const JsonValue* find(const std::string& path) const {
        const auto it = byPath_.find(path);
        return it == byPath_.end() ? nullptr : it->second;
    }
    // The items of an array: "phases[3]" under "phases".
    std::vector<const JsonValue*> arrayItems(std::string_view parent) const {
        std::vector<const JsonValue*> items;
        for (const auto& v : values_) {
            if (v.key.size() < parent.size() + 3 || v.key.compare(0, parent.size(), parent) != 0 || v.key[parent.size()] != '[' ||
                v.key.back() != ']')
                continue;
            const std::string_view index = std::string_view(v.key).substr(parent.size() + 1, v.key.size() - parent.size() - 2);
            if (!index.empty() && std::all_of(index.begin(), index.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
                items.push_back(&v);
        }
        return items;
    }

private:
    std::span<const JsonValue> values_;
    std::map<std::string_view, const JsonValue*> byPath_;
};

// Whether the file has what every measured file has: its format, the config and the lines, each of its type.
bool readShape(const MeasuredValues& v, MeasuredFile& out) {
    const JsonValue* format = v.find("format");
    if (!format || format->type != "string" || format->text != kMeasuredFormat) {
        problem(out, "format",
                "format must be \"" + std::string(kMeasuredFormat) + "\" (a file written by tools/measure/measure.py); got " +
                    (format ? shown(*format) : std::string("nothing")));
        return false;
    }
    const JsonValue* config = v.find("config");
    if (!config || config->type != "object") {
        problem(out, "config",
                "config must be the object of membudget keys the run used; got " + (config ? jsonTypeWords(config->type) : "nothing"));
        return false;
    }
    const JsonValue* lines = v.find("lines");
    if (!lines || lines->type != "object") {
        problem(out, "lines",
                "lines must be an object of ledger line ids to measured bytes; got " + (lines ? jsonTypeWords(lines->type) : "nothing"));
        return false;
    }
    return true;
}

// Keys of the config and the lines are whatever follows "config." / "lines." (a key may hold a dot itself);
// only the values directly under them count, so nested ones are reported through their parent's type.
void readConfigAndLines(std::span<const JsonValue> values, MeasuredFile& out) {
    AssignmentList assignments;
    for (const auto& v : values) {
        if (v.key.rfind("config.", 0) != 0) continue;
        const std::string key = v.key.substr(7);
        if (findField(key) || key.find_first_of(".[") == std::string::npos) {
            assignJsonValue({key, v.type, v.text}, assignments);
            out.namesMethod = out.namesMethod || key == "method";
        }
    }
    for (const auto& p : assignments.problems) problem(out, "config." + p.field, "config: " + p.message);
    out.config = std::move(assignments.assignments);
    std::string nested;  // a container inside lines: reported once, its own values skipped
    for (const auto& v : values) {
        if (v.key.rfind("lines.", 0) != 0) continue;
        if (!nested.empty() && v.key.size() > nested.size() && v.key.compare(0, nested.size(), nested) == 0 &&
            (v.key[nested.size()] == '.' || v.key[nested.size()] == '['))
            continue;
        if (v.type == "object" || v.type == "array") nested = v.key;
        const std::string id = v.key.substr(6);
        const auto bytes = byteCount(v);
        if (!bytes)
            problem(out, v.key, v.key + " must be " + bytesRange() + "; got " + shown(v));
        else
            out.lines.emplace_back(id, *bytes);
    }
}

// The allocator's peaks, where the file has them.
void readPeak(const MeasuredValues& v, MeasuredFile& out) {
    const JsonValue* peak = v.find("peak");
    if (!peak) return;
    if (peak->type != "object") {
        problem(out, "peak", "peak must be an object of allocator peaks in bytes; got " + jsonTypeWords(peak->type));
        return;
    }
    for (const char* key : {"allocated_bytes", "reserved_bytes", "active_bytes"}) {
        const std::string path = std::string("peak.") + key;
        const JsonValue* value = v.find(path);
        if (!value) continue;
        const auto bytes = byteCount(*value);
        if (!bytes) {
            problem(out, path, path + " must be " + bytesRange() + "; got " + shown(*value));
            continue;
        }
        (std::string_view(key) == "allocated_bytes"  ? out.peakAllocatedBytes
         : std::string_view(key) == "reserved_bytes" ? out.peakReservedBytes
                                                     : out.peakActiveBytes) = bytes;
    }
}

// The peak of each phase of the step, where the file has them.
void readPhases(const MeasuredValues& v, MeasuredFile& out) {
    const JsonValue* phases = v.find("phases");
    if (!phases) return;
    if (phases->type != "array") {
        problem(out, "phases", "phases must be an array; got " + jsonTypeWords(phases->type));
        return;
    }
    for (const JsonValue* entry : v.arrayItems("phases")) {
        const std::string& where = entry->key;
        const JsonValue* name = v.find(where + ".phase");
        if (entry->type != "object" || !name || name->type != "string") {
            problem(out, where + ".phase", where + " must be an object with a phase name");
            continue;
        }
        const JsonValue* stepValue = v.find(where + ".step");
        const JsonValue* peakValue = v.find(where + ".peak_allocated_bytes");
        const auto step = stepValue ? byteCount(*stepValue) : std::nullopt;
        const auto peak = peakValue ? byteCount(*peakValue) : std::nullopt;
        if (!step) problem(out, where + ".step", where + ".step must be a whole number, 0 or more");
        if (!peak) problem(out, where + ".peak_allocated_bytes", where + ".peak_allocated_bytes must be " + bytesRange());
        if (step && peak) out.phases.push_back({name->text, *step, *peak});
    }
}

}  // namespace

MeasuredFile readMeasuredFile(std::string_view rootType, std::span<const JsonValue> values, std::string_view invalidReason) {
    MeasuredFile out;
    if (rootType == "invalid") {
        problem(out, "", "the measured file is not JSON: " + std::string(invalidReason));
        return out;
    }
    if (rootType != "object") {
        problem(out, "", "the measured file must be a JSON object; got " + jsonTypeWords(rootType));
        return out;
    }
    const MeasuredValues v(values);
    if (!readShape(v, out)) return out;
    readConfigAndLines(values, out);
    readPeak(v, out);
    readPhases(v, out);
    if (const JsonValue* device = v.find("device")) {
        if (device->type != "object")
            problem(out, "device", "device must be an object; got " + jsonTypeWords(device->type));
        else if (const JsonValue* name = v.find("device.name"); name && name->type == "string")
            out.deviceName = name->text;
    }
    if (const JsonValue* source = v.find("source"); source && source->type == "string") out.source = source->text;
    return out;
}

ParsedConfig measuredConfig(const MeasuredFile& file) {
    // The configuration through the same assignments as `membudget eval`, so its errors name the same keys.
    Config base;
    base.method = Method::membudget;
    ParsedConfig parsed = applyAssignments(file.config, base);
    if (!file.namesMethod) parsed.config.method = Method::membudget;  // a model preset's own method does not count as naming one
    for (auto& p : parsed.problems) p = {"config." + p.field, "config: " + p.message};
    return parsed;
}

MeasuredComparison compareMeasured(const MeasuredFile& file) {
    MeasuredComparison out;
    out.errors = file.errors;
    out.source = file.source;
    out.deviceName = file.deviceName;
    if (!out.errors.empty()) return out;
    const ParsedConfig parsed = measuredConfig(file);
    out.errors = parsed.problems;
    if (!out.errors.empty()) return out;
    out.config = parsed.config;
    out.result = evaluate(out.config);
    for (const auto& p : out.result.errors) out.errors.push_back({"config." + p.field, "config: " + p.message});
    if (!out.errors.empty()) return out;

    double allowanceBytes = 0;
    for (const auto& line : out.result.lines) {
        MeasuredLine row{std::string(toString(line.id)), line.label, line.bytes, std::nullopt, !line.origin.has_value()};
        for (const auto& [id, bytes] : file.lines)
            if (id == toString(line.id)) row.measuredBytes = bytes;
        if (row.allowance) allowanceBytes += line.bytes;
        out.lines.push_back(std::move(row));
    }
    out.predictedTotalBytes = out.result.totalBytes;
    out.predictedWithoutAllowancesBytes = out.result.totalBytes - allowanceBytes;

    // measure.py measures the lines during forward and backward. Where the ledger's peak is the optimizer
    // step (its optimizer line then holds the step's FP32 gradient copy, its activations line 0), the lines
    // to compare are the same stage's at forward/backward: measurableLines, as the page's measured column.
    const auto phaseTotal = [&](StepPhase name) -> std::optional<double> {
        for (const auto& phase : out.result.phases)
            if (phase.name == name) return phase.totalBytes - allowanceBytes;
        return std::nullopt;
    };
    const auto forwardBackward = phaseTotal(StepPhase::forwardBackward);
    if (out.config.mode == Mode::training && out.result.peakPhase == StepPhase::optimizerStep) {
        for (const auto& line : measurableLines(out.config))
            for (auto& row : out.lines)
                if (row.id == toString(line.id)) row.predictedBytes = line.bytes;
        out.linePhase = StepPhase::forwardBackward;
    }
    if (out.config.mode == Mode::training && !file.phases.empty()) {
        double lastStep = 0;
        for (const auto& phase : file.phases) lastStep = std::max(lastStep, phase.step);
        auto peakOf = [&](std::initializer_list<std::string_view> names) -> std::optional<double> {
            std::optional<double> peak;
            for (const auto& phase : file.phases)
                if (phase.step == lastStep && std::find(names.begin(), names.end(), phase.name) != names.end())
                    peak = std::max(peak.value_or(0), phase.peakAllocatedBytes);
            return peak;
        };
        const auto step = phaseTotal(StepPhase::optimizerStep);
        if (const auto measuredPeak = peakOf({"forward", "backward"}); forwardBackward && measuredPeak)
            out.phases.push_back({"forward/backward", "forward+backward", *forwardBackward, *measuredPeak});
        if (const auto measuredPeak = peakOf({"optimizer"}); step && measuredPeak)
            out.phases.push_back({"optimizer step", "optimizer", *step, *measuredPeak});
    }
    for (const auto& [id, bytes] : file.lines) {
        const std::string& lineId = id;  // a structured binding cannot be captured before C++20's clang 16
        const bool predicted =
            std::any_of(out.result.lines.begin(), out.result.lines.end(), [&lineId](const Line& l) { return toString(l.id) == lineId; });
        if (!predicted) out.lines.push_back({id, id, std::nullopt, bytes, false});
    }
    for (const auto& [name, peak] : {std::pair<const char*, std::optional<double>>{"peak_allocated", file.peakAllocatedBytes},
                                     {"peak_reserved", file.peakReservedBytes}}) {
        if (!peak) continue;
        out.totals.push_back({"total", name, out.predictedTotalBytes, *peak});
        out.totals.push_back({"total_without_allowances", name, out.predictedWithoutAllowancesBytes, *peak});
    }
    return out;
}

}  // namespace membudget
