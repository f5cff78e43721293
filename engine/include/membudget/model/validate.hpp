// One validator behind every entry point: each range and consistency error names its field and the allowed range.
#pragma once

#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// torchtitan and torchtune shard with FSDP2's fully_shard or not at all: ZeRO 0 or 3 (validate() refuses 1 and 2,
// the planner tries only those).
inline bool shardsAllOrNothing(Framework framework) { return framework == Framework::torchtitan || framework == Framework::torchtune; }

// Every range and consistency error of a configuration, each naming its field and the allowed range.
std::vector<Problem> validate(const Config& config);
// Only each field against its own range, choices or text rules (validate's first pass), none of the rules between
// fields: what an import's mapped values are checked against before the file says everything they depend on.
std::vector<Problem> validateRanges(const Config& config);

// The tensor-parallel sizes the model's heads allow (TP divides the heads, and divides the KV heads or is a
// multiple of them), up to the field's maximum.
std::vector<double> validTensorParallel(const Config& config);

}  // namespace membudget
