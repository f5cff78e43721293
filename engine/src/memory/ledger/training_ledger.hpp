// membudget's own training ledger: every line with its formula, its numbers and its note, per stage and phase.
#pragma once

#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput membudgetMethod(const Config& config, double parameterCount);
// atPeakPhase = false: the forward/backward composition, which the sources that lack a line borrow.
MethodOutput membudgetMethod(const Config& config, double parameterCount, bool atPeakPhase);

// The workspace line of membudget's training ledger (workspaceBytes, memory/training.hpp, in words).
Line workspaceLine(const Config& config);

// One line on membudget's convention for a ledger line, to explain why it differs from another method.
std::string membudgetDifference(LineId line);

}  // namespace membudget::detail
