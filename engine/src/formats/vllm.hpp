// vLLM (vllm/engine/arg_utils.py EngineArgs; docs/import.md): a `vllm serve` command read into membudget's keys,
// and a configuration written back as one. Internal: import.cpp and export.cpp dispatch here.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// Flags that take no value, so that the word after one is not read as its value (Words).
extern const std::set<std::string_view> kVllmSwitches;

// vLLM's flags (Words built with kVllmSwitches) onto membudget's keys.
void importVllm(Words& w, Mapping& m);
// A command's words with each long flag spelled as vLLM reads it (underscores in its name are dashes).
std::vector<std::vector<std::string>> vllmFlagSpelling(const std::vector<std::vector<std::string>>& lines);

// `c` as a `vllm serve` command.
ExportResult exportVllm(const Config& c);

}  // namespace membudget::detail
