// The columns of a ledger's parts (membudget/base/record.hpp): its lines, the saved tensors, the pipeline stages
// and the step's phases, in the order the JSON writes them.
#include "membudget/memory/result.hpp"

namespace membudget {

namespace {

using record::member;

constexpr Column kLineColumns[] = {
    member<&Line::id>("id", RECORD_JSON("id")),
    member<&Line::label>("label", RECORD_JSON("label")),
    member<&Line::formula>("formula", RECORD_JSON("formula"), {.doc = RECORD_DOC("Symbolic, as the source writes it.")}),
    member<&Line::substituted>("substituted", RECORD_JSON("substituted"),
                               {.doc = RECORD_DOC("The formula with this configuration's numbers.")}),
    member<&Line::bytes>("bytes", RECORD_JSON("bytes")),
    member<&Line::note>("note", RECORD_JSON("note")),
    member<&Line::origin>(
        "origin", RECORD_JSON("origin"),
        {.none = "allowance",
         .doc = RECORD_DOC("The method whose formula gave the value; \"membudget\" where a source has none; \"allowance\".")}),
};

constexpr Column kTensorColumns[] = {
    member<&Tensor::name>("name", RECORD_JSON("name")),
    member<&Tensor::shape>("shape", RECORD_JSON("shape"), {.doc = RECORD_DOC("e.g. \"[b, s/CP, h/TP]\".")}),
    member<&Tensor::dtype>("dtype", RECORD_JSON("dtype")),
    member<&Tensor::bytesPerCopy>("bytesPerCopy", RECORD_JSON("bytes_per_copy")),
    member<&Tensor::copies>("copies", RECORD_JSON("copies"), {.doc = RECORD_DOC("Layers × micro-batches in flight that hold one.")}),
    member<&Tensor::bytes>("bytes", RECORD_JSON("bytes")),
    member<&Tensor::sharding>("sharding", RECORD_JSON("sharding")),
};

constexpr Column kStageColumns[] = {
    member<&Stage::index>("index", RECORD_JSON("stage")),
    member<&Stage::layers>("layers", RECORD_JSON("layers")),
    member<&Stage::inFlightMicrobatches>("inFlightMicrobatches", RECORD_JSON("in_flight_microbatches")),
    member<&Stage::totalBytes>("totalBytes", RECORD_JSON("total_bytes")),
    member<&Stage::reservedBytes>(
        "reservedBytes", RECORD_JSON("reserved_bytes"),
        {.flags = kNullIfFalsy,
         .doc = RECORD_DOC("What the caching allocator reserves at the stage's peak; 0 where the method does not model it.")}),
    member<&Stage::parametersPerGpu>(
        "parametersPerGpu", RECORD_JSON("parameters_per_gpu"),
        {.doc = RECORD_DOC("Parameters one GPU of the stage holds (its TP/EP shard, before ZeRO; with copies of shared weights).")}),
    member<&Stage::modelParameters>("modelParameters", RECORD_JSON("model_parameters"),
                                    {.doc = RECORD_DOC("The stage's share of the model's parameters (every shard once, no copies).")}),
    member<&Stage::lineBytes>("lineBytes", RECORD_JSON("lines"),
                              {.kind = CellKind::byLine, .doc = RECORD_DOC("Bytes per line, aligned with the result's lines.")}),
};

constexpr Column kPhaseColumns[] = {
    member<&Phase::name>("name", RECORD_JSON("name")),
    member<&Phase::totalBytes>("totalBytes", RECORD_JSON("total_bytes")),
};

}  // namespace

constinit const RecordTable kLineRecord{RECORD_NAME("Line"), kLineColumns, kAlways, kAlways, RECORD_DOC("One line of the ledger.")};
constinit const RecordTable kTensorRecord{RECORD_NAME("Tensor"), kTensorColumns, kAlways, kAlways,
                                          RECORD_DOC("One saved activation tensor of the membudget method's sub-ledger.")};
constinit const RecordTable kStageRecord{RECORD_NAME("Stage"), kStageColumns, kAlways, kAlways, RECORD_DOC("One pipeline stage's ledger.")};
constinit const RecordTable kPhaseRecord{RECORD_NAME("Phase"), kPhaseColumns, kAlways, kAlways,
                                         RECORD_DOC("A phase of the training step and its total.")};

}  // namespace membudget
