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
constinit const RecordTable kLine{"MeasuredLine", kLineColumns};

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
constinit const RecordTable kTotal{"MeasuredTotal", kTotalColumns};

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

}  // namespace

constinit const RecordTable kMeasuredComparisonRecord{
    "MeasuredComparison", kColumns, kAlways, kAlways,
    RECORD_DOC("A measured run against its prediction, line by line and total by total.")};

}  // namespace membudget
