// A plan row's columns, declared once: the CLI's JSON, the planner module's flat Float64Array, the page's
// PlanRow objects and the configuration a row stands for are all read from this table.
#include <array>
#include <type_traits>
#include <variant>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/plan/plan.hpp"

namespace membudget {

namespace {

template <auto Member>
PlanColumn column(std::string_view key, std::string_view pageKey, bool setsField, bool fraction = false) {
    using T = std::remove_reference_t<decltype(std::declval<PlanRow&>().*Member)>;
    PlanColumn out{key, pageKey, fraction ? PlanColumnKind::fraction : PlanColumnKind::number, setsField, nullptr, nullptr, {}};
    out.get = [](const PlanRow& row) { return static_cast<double>(row.*Member); };
    if constexpr (std::is_same_v<T, double>) {
        out.set = [](PlanRow& row, double value) { row.*Member = value; };
    } else if constexpr (std::is_same_v<T, bool>) {
        out.kind = PlanColumnKind::boolean;
        out.set = [](PlanRow& row, double value) { row.*Member = value != 0; };
    } else {
        // A choice: its enumerator's value; a number outside them becomes the first (the flat array is ours).
        out.kind = PlanColumnKind::choice;
        out.choices = ChoiceNames<T>::names;
        out.set = [](PlanRow& row, double value) {
            const auto index = static_cast<std::size_t>(value);
            row.*Member = static_cast<T>(value >= 0 && index < ChoiceNames<T>::names.size() ? index : 0);
        };
    }
    return out;
}

}  // namespace

std::span<const PlanColumn> planColumns() {
    static const std::array<PlanColumn, 30> columns{
        column<&PlanRow::tp>("tp", "tp", true),
        column<&PlanRow::pp>("pp", "pp", true),
        column<&PlanRow::dp>("dp", "dp", true),
        column<&PlanRow::cp>("cp", "cp", true),
        column<&PlanRow::ep>("ep", "ep", true),
        column<&PlanRow::zero>("zero", "zero", true),
        column<&PlanRow::sp>("sp", "sp", true),
        column<&PlanRow::ckpt>("ckpt", "ckpt", true),
        column<&PlanRow::mb>("mb", "mb", true),
        column<&PlanRow::microbatches>("microbatches", "microbatches", true),
        column<&PlanRow::firstStageLayers>("first_stage_layers", "firstStageLayers", true),
        column<&PlanRow::lastStageLayers>("last_stage_layers", "lastStageLayers", true),
        column<&PlanRow::peakBytes>("peak_bytes", "peakBytes", false),
        column<&PlanRow::headroomBytes>("headroom_bytes", "headroomBytes", false),
        column<&PlanRow::peakStage>("peak_stage", "peakStage", false),
        column<&PlanRow::verdict>("verdict", "verdict", false),
        column<&PlanRow::recomputeOverhead>("recompute_overhead", "recomputeOverhead", false, true),
        column<&PlanRow::bubble>("bubble", "bubble", false, true),
        column<&PlanRow::tpCrossesNode>("tp_crosses_node", "tpCrossesNode", false),
        column<&PlanRow::cpCrossesNode>("cp_crosses_node", "cpCrossesNode", false),
        column<&PlanRow::pareto>("pareto", "pareto", false),
        column<&PlanRow::stepSeconds>("step_time_s", "stepTimeSeconds", false, true),
        column<&PlanRow::tokensPerSecondPerGpu>("tokens_per_second_per_gpu", "tokensPerSecondPerGpu", false, true),
        column<&PlanRow::mfu>("mfu", "mfu", false, true),
        column<&PlanRow::tokensPerSecondPerGpuLow>("tokens_per_second_per_gpu_low", "tokensPerSecondPerGpuLow", false, true),
        column<&PlanRow::tokensPerSecondPerGpuHigh>("tokens_per_second_per_gpu_high", "tokensPerSecondPerGpuHigh", false, true),
        column<&PlanRow::asFast>("as_fast", "asFast", false),
        column<&PlanRow::runDays>("run_days", "runDays", false, true),
        column<&PlanRow::runGpuHours>("gpu_hours", "runGpuHours", false, true),
        column<&PlanRow::runCostUsd>("cost_usd", "runCostUsd", false, true),
    };
    return columns;
}

Config planRowConfig(const Config& base, const PlanRow& row) {
    Config c = base;
    for (const PlanColumn& column : planColumns()) {
        if (!column.setsField) continue;
        const double value = column.get(row);
        std::visit(
            [&](auto member) {
                using M = decltype(member);
                if constexpr (std::is_same_v<M, double Config::*>)
                    c.*member = value;
                else if constexpr (std::is_same_v<M, bool Config::*>)
                    c.*member = value != 0;
                else if constexpr (std::is_same_v<M, ChoiceField>)
                    member.set(c, column.choices[static_cast<std::size_t>(value)]);
            },
            findField(column.key)->member);
    }
    // The planner's layouts name DP themselves (gpus = 0 derives nothing) and have no interleaving.
    c.gpus = 0;
    c.vpp = 1;
    c.pipelineLayout.clear();
    // --overlap-param-gather belongs to the distributed optimizer: the user's switch holds on the rows that have one.
    c.overlapParamGather = base.overlapParamGather && c.zero >= 1;
    c.overlapMoeComm = base.overlapMoeComm && moeCommOverlapAllowed(c);
    return c;
}

}  // namespace membudget
