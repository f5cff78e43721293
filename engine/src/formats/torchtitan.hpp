// torchtitan (torchtitan/config/job_config.py; the llama3 and deepseek_v3 flavors; docs/import.md): a TOML job
// config read into membudget's keys, and a configuration written back as one. Internal: import.cpp and export.cpp
// dispatch here.
#pragma once

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// A torchtitan job config onto membudget's keys.
void importTorchtitan(Document& d, Mapping& m);

// `c` as a torchtitan job config (TOML).
ExportResult exportTorchtitan(const Config& c);

}  // namespace membudget::detail
