// The methods' kernels (plan/kernels.hpp), in the order of ChoiceNames<Method>, as the ledgers' table.
#include "plan/kernels.hpp"

#include <array>

#include "memory/sources/chapter.hpp"
#include "memory/sources/deepspeed.hpp"
#include "memory/sources/korthikanti.hpp"
#include "memory/sources/megatron.hpp"
#include "memory/sources/zero.hpp"
#include "memory/training.hpp"

namespace membudget::detail {

namespace {

// The kernels' own signatures take what each needs; the table's takes all three.
constexpr std::array<MethodKernel, 6> kKernels{{
    {Method::membudget, [](const Config& c, double, std::span<const StageSpan> stages) { return membudgetTrainingPeak(c, stages); }},
    {Method::chapter, [](const Config& c, double psi, std::span<const StageSpan>) { return chapterTrainingPeak(c, psi); }},
    {Method::korthikanti, [](const Config& c, double, std::span<const StageSpan> stages) { return korthikantiTrainingPeak(c, stages); }},
    {Method::megatron, [](const Config& c, double, std::span<const StageSpan>) { return megatronTrainingPeak(c); }},
    {Method::zero, zeroTrainingPeak},
    {Method::deepspeed, deepspeedTrainingPeak},
}};

}  // namespace

const MethodKernel& findKernel(Method method) {
    for (const MethodKernel& entry : kKernels)
        if (entry.method == method) return entry;
    return kKernels[0];
}

}  // namespace membudget::detail
