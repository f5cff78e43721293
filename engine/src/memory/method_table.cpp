// The training methods' table (memory/method_table.hpp), in the order of ChoiceNames<Method>.
#include "memory/method_table.hpp"

#include <array>

#include "membudget/base/choices.hpp"
#include "membudget/memory/methods.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledger/training_ledger.hpp"
#include "memory/ledgers.hpp"
#include "memory/sources/chapter.hpp"
#include "memory/sources/deepspeed.hpp"
#include "memory/sources/korthikanti.hpp"
#include "memory/sources/megatron.hpp"
#include "memory/sources/zero.hpp"

namespace membudget {

namespace detail {

namespace {

constexpr std::array<MethodEntry, 6> kMethods{{
    {Method::membudget, [](const Config& c, double psi) { return membudgetMethod(c, psi); }, membudgetDifference},
    {Method::chapter, chapterMethod, chapterDifference},
    {Method::korthikanti, korthikantiMethod, korthikantiDifference},
    {Method::megatron, megatronMethod, megatronDifference},
    {Method::zero, zeroMethod, zeroDifference},
    {Method::deepspeed, deepspeedMethod, deepspeedDifference},
}};

}  // namespace

const MethodEntry* findMethod(Method method) {
    for (const MethodEntry& entry : kMethods)
        if (entry.method == method) return &entry;
    return nullptr;
}

}  // namespace detail

std::string differenceReason(Method method, LineId line) {
    if (line == LineId::buffers || line == LineId::cudaContext) return "an allowance, the same for every method";
    if (line == LineId::workspace) return "cuBLAS and Transformer Engine workspaces, which only membudget's own method counts";
    const detail::MethodEntry* entry = detail::findMethod(method);
    return entry ? entry->difference(line) : std::string();
}

}  // namespace membudget
