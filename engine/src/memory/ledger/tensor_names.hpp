// The display text of the saved-tensor model (memory/tensors.hpp): each tensor kind's name and the sequence
// dimension as a shape shows it. Only the describing visitor asks for them; built for size (docs/build.md).
#pragma once

#include <string>
#include <string_view>

#include "membudget/model/config.hpp"

namespace membudget::detail {

enum class TensorKind : std::uint8_t;

// The display name of a tensor kind.
std::string_view tensorName(TensorKind kind);

// The sequence dimension as it appears in a shape: s, s/CP, s/TP or s/(CP·TP).
std::string seqShape(const Config& c, bool spSharded);
std::string spSharding(const Config& c);

}  // namespace membudget::detail
