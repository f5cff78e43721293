// SGLang (python/sglang/srt/server_args.py ServerArgs; docs/import.md): a `python -m sglang.launch_server` or
// `sglang serve` command read into membudget's keys, and a configuration written back as one. Internal: import.cpp
// and export.cpp dispatch here.
#pragma once

#include <set>
#include <string_view>

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// Flags that take no value, so that the word after one is not read as its value (Words).
extern const std::set<std::string_view> kSglangSwitches;

// SGLang's flags (Words built with kSglangSwitches) onto membudget's keys. Unlike vLLM's parser, SGLang's plain
// argparse takes dashes only: a flag spelled with underscores is reported, not read.
void importSglang(Words& w, Mapping& m);

// `c` as a `python -m sglang.launch_server` command.
ExportResult exportSglang(const Config& c);

}  // namespace membudget::detail
