// The columns of a result (membudget/base/record.hpp): the eval JSON's keys in its order, the page's Result, the
// error band, and what the methods compared show of each method.
#include "membudget/base/record.hpp"
#include "membudget/evaluate/error_band.hpp"
#include "membudget/evaluate/evaluate.hpp"

namespace membudget {

namespace {

using record::as;
using record::computed;
using record::member;

// low and high only where runs give them (a band, or the nearest family's); already to the millionth, as the
// generated table holds them.
constexpr std::uint8_t kBandRuns = 3;
constexpr Column kErrorBandColumns[] = {
    member<&ErrorBand::validated>("validated", RECORD_JSON("validated"), {.doc = RECORD_DOC("Runs like this one were measured.")}),
    member<&ErrorBand::lowError>(
        "lowError", RECORD_JSON("low"),
        {.flags = kOmitIfAbsent,
         .presentIf = kBandRuns,
         .doc = RECORD_DOC("The most under-predicted run like it, (predicted − measured) / measured; 0 when no run gives a band.")}),
    member<&ErrorBand::highError>("highError", RECORD_JSON("high"), {.flags = kOmitIfAbsent, .presentIf = kBandRuns}),
    member<&ErrorBand::runs>("runs", RECORD_JSON("runs"),
                             {.doc = RECORD_DOC("The runs the band comes from (the nearest family's when not validated).")}),
    computed("framework", RECORD_JSON("framework"), CellKind::text,
             [](const void* r, Cell& c) { c.text = as<ErrorBand>(r).family.framework; }),
    computed("features", RECORD_JSON("features"), CellKind::texts,
             [](const void* r, Cell& c) {
                 c.ownedTexts = featureNames(as<ErrorBand>(r).family.features);
                 c.texts.assign(c.ownedTexts.begin(), c.ownedTexts.end());
             }),
    member<&ErrorBand::text>("text", RECORD_JSON("text")),
};
static_assert(record::at(kErrorBandColumns, "runs") == kBandRuns);

// In inference the result carries the serving speed and the most sequences and longest context that fit; in training
// the step time. Each is spliced into the JSON at its keys, and left out of the other mode's.
constexpr std::uint8_t kResultMode = 1;
constexpr Column kResultColumns[] = {
    member<&Result::method>("method", RECORD_JSON("method"), {.flags = kKeepOnError}),
    member<&Result::mode>("mode", RECORD_JSON(""), {.flags = kPageOnly}),
    member<&Result::parameterCount>("parameterCount", RECORD_JSON("parameter_count"), {.doc = RECORD_DOC("Ψ as used (given or derived).")}),
    member<&Result::activeParameterCount>(
        "activeParameterCount", RECORD_JSON("active_parameter_count"),
        {.doc = RECORD_DOC("Parameters one token passes through (top-k experts); equal to parameterCount for a dense model.")}),
    member<&Result::lines>("lines", RECORD_JSON("lines"),
                           {.child = &kLineRecord, .doc = RECORD_DOC("The peak stage's ledger, at its peak phase.")}),
    member<&Result::totalBytes>("totalBytes", RECORD_JSON("total_bytes")),
    member<&Result::reservedBytes>(
        "reservedBytes", RECORD_JSON("reserved_bytes"),
        {.flags = kNullIfFalsy,
         .doc = RECORD_DOC(
             "What the caching allocator reserves (torch.cuda.max_memory_reserved) at the peak; 0 (null in JSON) where not modelled.")}),
    member<&Result::capacityBytes>("capacityBytes", RECORD_JSON("capacity_bytes")),
    member<&Result::usableBytes>("usableBytes", RECORD_JSON("usable_bytes"), {.doc = RECORD_DOC("Capacity less the headroom fraction.")}),
    member<&Result::verdict>(
        "verdict", RECORD_JSON("verdict"),
        {.none = "", .doc = RECORD_DOC("\"\" when errors is not empty; \"tight\" when the error band reaches the headroom line.")}),
    member<&Result::errorBand>("errorBand", RECORD_JSON("error_band"), {.child = &kErrorBandRecord}),
    member<&Result::peakStage>("peakStage", RECORD_JSON("peak_stage")),
    member<&Result::stepTime>("stepTime", RECORD_JSON(""),
                              {.flags = kOmitIfAbsent | kPresentIfNot,
                               .child = &kStepTimeRecord,
                               .presentIf = kResultMode,
                               .doc = RECORD_DOC("Training: the step-time estimate; null in inference or without a GPU speed.")}),
    member<&Result::servingTime>("servingTime", RECORD_JSON(""),
                                 {.flags = kOmitIfAbsent,
                                  .child = &kServingTimeRecord,
                                  .presentIf = kResultMode,
                                  .doc = RECORD_DOC("Inference: the serving speed.")}),
    member<&Result::stages>("stages", RECORD_JSON("stages"), {.child = &kStageRecord}),
    member<&Result::phases>("phases", RECORD_JSON("phases"), {.child = &kPhaseRecord}),
    member<&Result::peakPhase>(
        "peakPhase", RECORD_JSON("peak_phase"),
        {.none = "", .doc = RECORD_DOC("\"\" where the step has one phase (every method but membudget's training ledger).")}),
    member<&Result::tensors>("tensors", RECORD_JSON("tensors"), {.child = &kTensorRecord}),
    member<&Result::cpuBytesPerNode>("cpuBytesPerNode", RECORD_JSON("cpu_bytes_per_node")),
    member<&Result::cpuLines>(
        "cpuLines", RECORD_JSON("cpu_lines"),
        {.child = &kLineRecord, .doc = RECORD_DOC("Host memory per node, line by line (offload); sums to cpuBytesPerNode.")}),
    member<&Result::maxSequences>("maxSequences", RECORD_JSON("max_sequences"),
                                  {.flags = kOmitIfAbsent,
                                   .presentIf = kResultMode,
                                   .doc = RECORD_DOC("Inference: the most concurrent sequences of length seq that fit.")}),
    member<&Result::maxContextTokens>("maxContextTokens", RECORD_JSON("max_context_tokens"),
                                      {.flags = kOmitIfAbsent,
                                       .presentIf = kResultMode,
                                       .doc = RECORD_DOC("Inference: the longest context per sequence that fits with mb sequences.")}),
    member<&Result::warnings>("warnings", RECORD_JSON("warnings"), {.child = &kProblemRecord}),
    member<&Result::errors>("errors", RECORD_JSON("errors"), {.child = &kProblemRecord}),
};
static_assert(record::at(kResultColumns, "mode") == kResultMode);
constexpr std::uint8_t kResultErrors = record::at(kResultColumns, "errors");

constexpr std::uint8_t kColumnErrors = 7;
constexpr Column kMethodColumnColumns[] = {
    member<&MethodColumn::method>("method", RECORD_JSON("method"), {.flags = kKeepOnError}),
    computed("lines", RECORD_JSON("lines"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MethodColumn>(r).result.lines, c); }, {.child = &kLineRecord}),
    computed("totalBytes", RECORD_JSON("total_bytes"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<MethodColumn>(r).result.totalBytes; }),
    member<&MethodColumn::sourceBytes>("sourceBytes", RECORD_JSON("source_bytes"),
                                       {.doc = RECORD_DOC("The bytes the source itself computes (lines whose origin is the method).")}),
    computed(
        "verdict", RECORD_JSON("verdict"), CellKind::choice,
        [](const void* r, Cell& c) { record::readValue(as<MethodColumn>(r).result.verdict, c); }, {.flags = kOptional, .none = ""},
        ChoiceNames<Verdict>::names),
    computed("peakStage", RECORD_JSON("peak_stage"), CellKind::number,
             [](const void* r, Cell& c) { c.number = as<MethodColumn>(r).result.peakStage; }),
    computed("warnings", RECORD_JSON("warnings"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MethodColumn>(r).result.warnings, c); }, {.child = &kProblemRecord}),
    computed("errors", RECORD_JSON("errors"), CellKind::records,
             [](const void* r, Cell& c) { record::readValue(as<MethodColumn>(r).result.errors, c); },
             {.flags = kOmitIfAbsent, .child = &kProblemRecord, .presentIf = kColumnErrors}),
};
static_assert(record::at(kMethodColumnColumns, "errors") == kColumnErrors);

}  // namespace

constinit const RecordTable kErrorBandRecord{
    RECORD_NAME("ErrorBand"), kErrorBandColumns, kAlways, kAlways,
    RECORD_DOC("How far membudget's method has been from measured runs like this one (membudget/evaluate/error_band.hpp).")};
constinit const RecordTable kResultRecord{
    RECORD_NAME("Result"), kResultColumns, kAlways, kResultErrors,
    RECORD_DOC("A configuration's ledger, its verdict and its speed (membudget/evaluate/evaluate.hpp).")};
constinit const RecordTable kMethodColumnRecord{RECORD_NAME("MethodColumn"), kMethodColumnColumns, kAlways, kColumnErrors,
                                                RECORD_DOC("One method's ledger of the configuration, for the methods compared.")};

}  // namespace membudget
