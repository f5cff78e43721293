// Megatron-LM's flag tables (megatron/training/arguments.py): the switches and the flags its mapping
// (megatron.cpp) passes over. Data, one flag a line. Internal.
#pragma once

#include <set>
#include <string_view>

namespace membudget::detail {

// Flags that take no value, so that the word after one is not read as its value (Words).
extern const std::set<std::string_view> kMegatronSwitches;

// Flags that change nothing membudget models, passed over silently (see megatron_flags.cpp).
extern const std::set<std::string_view> kMegatronIgnored;

}  // namespace membudget::detail
