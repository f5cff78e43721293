// The memory methods: membudget's own and the published sources it sets beside it.
#pragma once

#include <string>

#include "membudget/base/choices.hpp"

namespace membudget {

// One line on what a method's convention for a ledger line is, to explain why it differs from another.
std::string differenceReason(Method method, LineId line);

}  // namespace membudget
