// Megatron-LM (megatron/training/arguments.py; docs/import.md): a launch script's flags read into membudget's
// keys, and a configuration written back as a torchrun command of pretrain_gpt.py. Internal: import.cpp and
// export.cpp dispatch here.
#pragma once

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// Megatron-LM's flags (Words built with kMegatronSwitches) onto membudget's keys.
void importMegatron(Words& w, Mapping& m);

// `c` as a torchrun command of pretrain_gpt.py with Megatron-LM's flags.
ExportResult exportMegatron(const Config& c);

}  // namespace membudget::detail
