// A measured comparison's columns (membudget/base/record.hpp): `membudget compare-measured --json`, format
// membudget-compare-measured/1. Only the CLI writes it (the page compares in web/src/measured-view.ts).
#include "membudget/base/record.hpp"
#include "membudget/io/measured.hpp"

namespace membudget {

namespace {

using record::as;
using record::computed;
using record::member;

// measured − predicted, where both are there.
std::optional<double> difference(const MeasuredLine& line) {
    if (!line.predictedBytes || !line.measuredBytes) return std::nullopt;
    return *line.measuredBytes - *line.predictedBytes;
}

constexpr Column kLineColumns[] = {
    member<&MeasuredLine::id>("id", RECORD_JSON("id")),
    member<&MeasuredLine::label>("label", RECORD_JSON("label")),
    member<&MeasuredLine::predictedBytes>("predictedBytes", RECORD_JSON("predicted_bytes")),
    member<&MeasuredLine::measuredBytes>("measuredBytes", RECORD_JSON("measured_bytes")),
    computed("differenceBytes", RECORD_JSON("difference_bytes"), CellKind::number,
             [](const void* r, Cell& c) { record::readValue(difference(as<MeasuredLine>(r)), c); }, {.flags = kOptional}),
    computed("differencePercent", RECORD_JSON("difference_percent"), CellKind::number,
             [](const void* r, Cell& c) {
                 const MeasuredLine& line = as<MeasuredLine>(r);
                 const auto d = difference(line);
                 record::readValue(d ? percentOf(*d, *line.predictedBytes) : std::nullopt, c);
             },
             {.flags = kOptional}),
    member<&MeasuredLine::allowance>("allowance", RECORD_JSON("allowance")),
};
constinit const RecordTable kLine{RECORD_NAME("MeasuredLine"), kLineColumns};

constexpr Column kTotalColumns[] = {
    member<&MeasuredTotal::predicted>("predicted", RECORD_JSON("predicted")),
    member<&MeasuredTotal::measured>("measured", RECORD_JSON("measured")),
    member<&MeasuredTotal::predictedBytes>("predictedBytes", RECORD_JSON("predicted_bytes")),
    member<&MeasuredTotal::measuredBytes>("measuredBytes", RECORD_JSON("measured_bytes")),
    computed("differenceBytes", RECORD_JSON("difference_bytes"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<MeasuredTotal>(r).measuredBytes - as<MeasuredTotal>(r).predictedBytes; }),
    computed("differencePercent", RECORD_JSON("difference_percent"), CellKind::number,
             [](const void* r, Cell& c) {
                 const MeasuredTotal& t = as<MeasuredTotal>(r);
                 record::readValue(percentOf(t.measuredBytes - t.predictedBytes, t.predictedBytes), c);
             },
             {.flags = kOptional}),
};
constinit const RecordTable kTotal{RECORD_NAME("MeasuredTotal"), kTotalColumns};

// The ids of the lines the run did not measure (or the engine did not predict).
template <std::optional<double> MeasuredLine::*Side>
void idsWithout(const void* r, Cell& c) {
    for (const MeasuredLine& line : as<MeasuredComparison>(r).lines)
        if (!(line.*Side)) c.texts.push_back(line.id);
}

constexpr Column kColumns[] = {
    computed("format", RECORD_JSON("format"), CellKind::text, [](const void*, Cell& c) { c.text = "membudget-compare-measured/1"; }),
    computed(
        "method", RECORD_JSON("method"), CellKind::choice,
        [](const void* r, Cell& c) { record::readValue(as<MeasuredComparison>(r).result.method, c); }, {}, ChoiceNames<Method>::names),
    computed(
        "mode", RECORD_JSON("mode"), CellKind::choice,
        [](const void* r, Cell& c) { record::readValue(as<MeasuredComparison>(r).config.mode, c); }, {}, ChoiceNames<Mode>::names),
    computed("parameterCount", RECORD_JSON("parameter_count"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<MeasuredComparison>(r).result.parameterCount; }),
    member<&MeasuredComparison::deviceName>("device", RECORD_JSON("device"), {.flags = kNullIfFalsy}),
    member<&MeasuredComparison::source>("source", RECORD_JSON("source"), {.flags = kNullIfFalsy}),
    member<&MeasuredComparison::lines>("lines", RECORD_JSON("lines"), {.child = &kLine}),
    computed("notMeasured", RECORD_JSON("not_measured"), CellKind::texts, &idsWithout<&MeasuredLine::measuredBytes>),
    computed("notPredicted", RECORD_JSON("not_predicted"), CellKind::texts, &idsWithout<&MeasuredLine::predictedBytes>),
    member<&MeasuredComparison::predictedTotalBytes>("predictedTotalBytes", RECORD_JSON("predicted_total_bytes")),
    member<&MeasuredComparison::predictedWithoutAllowancesBytes>("predictedWithoutAllowancesBytes",
                                                                 RECORD_JSON("predicted_without_allowances_bytes")),
    member<&MeasuredComparison::totals>("totals", RECORD_JSON("totals"), {.child = &kTotal}),
    member<&MeasuredComparison::linePhase>("linePhase", RECORD_JSON("line_phase")),
    member<&MeasuredComparison::phases>("phases", RECORD_JSON("phases"), {.child = &kTotal}),
    member<&MeasuredComparison::config>("config", RECORD_JSON("config"), {.kind = CellKind::config}),
};

using MeasuredValue = std::pair<std::string, double>;
constexpr Column kValueColumns[] = {
    member<&MeasuredValue::first>("id", RECORD_JSON("id")),
    member<&MeasuredValue::second>("bytes", RECORD_JSON("bytes")),
};
constinit const RecordTable kValue{RECORD_NAME("MeasuredValue"), kValueColumns};

constexpr Column kPhaseColumns[] = {
    member<&MeasuredPhase::name>("name", RECORD_JSON("name")),
    member<&MeasuredPhase::step>("step", RECORD_JSON("step")),
    member<&MeasuredPhase::peakAllocatedBytes>("peakAllocatedBytes", RECORD_JSON("peak_allocated_bytes")),
};
constinit const RecordTable kPhase{RECORD_NAME("MeasuredPhase"), kPhaseColumns};

// Each problem names its path (format, config.tp, lines.gradients, peak.allocated_bytes, phases[0].step).
constexpr Column kReadColumns[] = {
    computed("lines", RECORD_JSON("lines"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MeasuredRead>(r).file.lines, c); },
             {.child = &kValue, .doc = RECORD_DOC("The bytes measured per ledger line, by the line's id.")}),
    computed("peakAllocatedBytes", RECORD_JSON("peak_allocated_bytes"), CellKind::number,
             [](const void* r, Cell& c) { record::readValue(as<MeasuredRead>(r).file.peakAllocatedBytes, c); }, {.flags = kOptional}),
    computed("peakReservedBytes", RECORD_JSON("peak_reserved_bytes"), CellKind::number,
             [](const void* r, Cell& c) { record::readValue(as<MeasuredRead>(r).file.peakReservedBytes, c); }, {.flags = kOptional}),
    computed("phases", RECORD_JSON("phases"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MeasuredRead>(r).file.phases, c); }, {.child = &kPhase}),
    computed("deviceName", RECORD_JSON("device"), CellKind::text,
             [](const void* r, Cell& c) { c.text = as<MeasuredRead>(r).file.deviceName; }),
    computed("config", RECORD_JSON("config"), CellKind::config,
             [](const void* r, Cell& c) { c.child = &as<MeasuredRead>(r).parsed.config; },
             {.doc = RECORD_DOC("The file's keys on the defaults, method membudget unless it names one.")}),
    computed("configProblems", RECORD_JSON("config_problems"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MeasuredRead>(r).parsed.problems, c); },
             {.child = &kProblemRecord, .doc = RECORD_DOC("Problems of its configuration, each named config.<key>.")}),
    computed("errors", RECORD_JSON("errors"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MeasuredRead>(r).file.errors, c); },
             {.child = &kProblemRecord, .doc = RECORD_DOC("What cannot be read, each named by its path.")}),
};

}  // namespace

MeasuredRead readMeasuredRun(std::string_view rootType, std::span<const JsonValue> values, std::string_view invalidReason) {
    MeasuredRead out;
    out.file = readMeasuredFile(rootType, values, invalidReason);
    if (out.file.errors.empty()) out.parsed = measuredConfig(out.file);
    return out;
}

constinit const RecordTable kMeasuredReadRecord{
    RECORD_NAME("MeasuredFile"), kReadColumns, kAlways, kAlways,
    RECORD_DOC("A measured file (membudget-measured/1) as the engine's reader reads it (the CLI's compare-measured).")};

constinit const RecordTable kMeasuredComparisonRecord{
    RECORD_NAME("MeasuredComparison"), kColumns, kAlways, kAlways,
    RECORD_DOC("A measured run against its prediction, line by line and total by total.")};

}  // namespace membudget
