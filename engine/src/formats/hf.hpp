// The Hugging Face config.json mapping (importHfFields, membudget/formats/hf.hpp) as one of importConfig's
// formats: its architecture fields as assignments. Internal: import.cpp dispatches here.
#pragma once

#include "formats/reader.hpp"
#include "membudget/formats/import.hpp"

namespace membudget::detail {

// A config.json's top-level values through importHfFields, its architecture fields (and method) as assignments.
void importHf(const ImportInput& input, Mapping& m);

}  // namespace membudget::detail
