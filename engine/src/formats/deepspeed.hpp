// DeepSpeed (deepspeed/runtime/config.py, zero/config.py; docs/import.md): a DeepSpeed JSON config read into
// membudget's keys, and a configuration written back as one. Internal: import.cpp and export.cpp dispatch here.
#pragma once

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// A DeepSpeed config onto membudget's keys.
void importDeepspeed(Document& d, Mapping& m);

// `c` as a DeepSpeed JSON config.
ExportResult exportDeepspeed(const Config& c);

}  // namespace membudget::detail
