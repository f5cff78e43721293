// What a memory method gives: ledger lines, the saved tensors of the activation sub-ledger, pipeline stages, step phases.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/record.hpp"

namespace membudget {

struct Line {
    LineId id = LineId::parameters;
    std::string label;
    std::string formula;      // symbolic, as the source writes it
    std::string substituted;  // the same with this configuration's numbers
    double bytes = 0;
    std::string note;
    // The method whose formula gave this value. A source that does not model a line (the ZeRO paper has
    // no activations) gets membudget's estimate there, marked so; buffers and the CUDA context are the
    // user's allowances, the same for every method (none; "allowance" in JSON and on the page).
    std::optional<Method> origin;
};
extern const RecordTable kLineRecord;

// One saved tensor of the activation sub-ledger (membudget's method): per copy, and how many copies
// (layers × micro-batches in flight) the stage holds.
struct Tensor {
    std::string name;
    std::string shape;  // e.g. "[b, s/CP, h/TP]"
    std::string dtype;  // bf16, fp32, uint8, int64
    double bytesPerCopy = 0;
    double copies = 0;
    double bytes = 0;
    std::string sharding;
};
extern const RecordTable kTensorRecord;

// One pipeline stage's ledger (bytes per line, aligned with Result::lines).
struct Stage {
    double index = 0;
    double layers = 0;
    double inFlightMicrobatches = 0;
    double totalBytes = 0;
    std::vector<double> lineBytes;
    // Parameters held by one GPU of this stage (its TP and EP shard, before ZeRO sharding, with the copies of
    // shared weights a stage keeps) and the stage's share of the model (every shard once, no copies): summed
    // over the stages, modelParameters is the model's count (in inference without the MTP layers).
    double parametersPerGpu = 0;
    double modelParameters = 0;
    // Bytes the caching allocator reserves at the stage's peak (segments, rounding, FSDP2's stream pools):
    // what torch.cuda.max_memory_reserved reports; nvidia-smi adds the CUDA context and NCCL's buffers. 0 where
    // the method does not model it (every method but membudget's in training).
    double reservedBytes = 0;
};
extern const RecordTable kStageRecord;

// A phase of the training step and its total (membudget: forward/backward vs the optimizer step).
struct Phase {
    StepPhase name;
    double totalBytes = 0;
};
extern const RecordTable kPhaseRecord;

}  // namespace membudget
