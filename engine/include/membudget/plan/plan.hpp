// What fits: every parallel layout of a model on N GPUs, and what to change when one does not fit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// The search. `base` gives the model, GPU, sequence length, precision and optimizer; its parallel fields
// (tp, pp, dp, cp, ep, sp, zero, mb, ckpt, microbatches, first/last_stage_layers) are what the planner sets.
struct PlanRequest {
    Config base;
    double gpus = 0;             // TP × PP × CP × DP
    double globalBatch = 0;      // sequences per optimizer step: DP × mb × microbatches
    bool tpAcrossNodes = false;  // allow TP groups larger than a node (gpus_per_node)
    bool unevenPipeline = true;  // PP that does not divide the layers (stages differ by one layer)
    double maxMicroBatch = 16;
    double maxCp = 16;
    bool includeTight = false;  // rows over the headroom line but under the capacity
    // A slice of the layouts (TP, CP, PP, EP) for a caller that reports progress: [layoutBegin, layoutEnd).
    // layoutEnd = 0: all of them.
    double layoutBegin = 0, layoutEnd = 0;
    // Rows kept: a whole plan keeps maxRows (Pareto first, then by peak); a slice its Pareto front and maxRows more,
    // so that joined slices, marked again and cut to maxRows, are the whole plan's rows. The rest are `dropped`.
    double maxRows = 20000;
    // Ledgers the search may evaluate (configurations that a smaller micro-batch did not already rule out): a
    // deterministic bound on its time (about 1.3 µs each on a 2-core machine, 3 s in all); past it the search
    // stops with an error saying what to narrow. A caller running slices passes what is left of it.
    double maxEvaluations = 2e6;
};
// The page's PlanRequest (an input: wasm/bindings.cpp registers it; the table gives its generated type).
extern const RecordTable kPlanRequestRecord;

struct PlanRow {
    double tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, zero = 0, mb = 1, microbatches = 1;
    bool sp = false;
    Checkpointing ckpt = Checkpointing::full;
    double firstStageLayers = 0, lastStageLayers = 0;  // 0: an even split
    double peakBytes = 0, headroomBytes = 0;           // headroom: usable bytes (capacity less headroom) − peak
    double peakStage = 0;
    Verdict verdict = Verdict::fits;  // fits or tight
    double recomputeOverhead = 0;     // extra compute of the step, as a fraction (full ≈ 1/3)
    double bubble = 0;                // (PP − 1) / (m + PP − 1)
    bool tpCrossesNode = false, cpCrossesNode = false;
    bool pareto = false;
    // The step-time estimate of the row's configuration (membudget/time/steptime.hpp): computed for rows that fit.
    double stepSeconds = 0, tokensPerSecondPerGpu = 0, mfu = 0;
    // Its band (the runtime constants' published ranges), and whether it reaches the recommended row's: as fast, within
    // the estimate.
    double tokensPerSecondPerGpuLow = 0, tokensPerSecondPerGpuHigh = 0;
    bool asFast = false;
    // The run on the base's train_tokens at that step time (0 where it is not set; the cost 0 without a price).
    double runDays = 0, runGpuHours = 0, runCostUsd = 0;
};

// A plan row's columns, declared once (engine/src/plan/plan_row.cpp): the CLI's JSON keys and order, the planner
// module's flat Float64Array (one number per column, in this order) and the page's PlanRow keys.
// A count or byte total (integral: JSON writes it as an integer); a fraction (JSON keeps it a double, 0.0);
// a flag; a choice (its ids in `choices`, the number its index).
enum class PlanColumnKind : std::uint8_t { number, fraction, boolean, choice };
struct PlanColumn {
    std::string_view key;      // the JSON's (snake_case); the Config field's key where setsField
    std::string_view pageKey;  // the page's PlanRow key (camelCase)
    PlanColumnKind kind;
    bool setsField;  // the row's value is the Config field `key` of its configuration (planRowConfig)
    double (*get)(const PlanRow&);
    void (*set)(PlanRow&, double);
    std::span<const std::string_view> choices;  // kind choice: the ids, indexed by the number
};
std::span<const PlanColumn> planColumns();

// The configuration a plan row stands for: the base with the row's parallel fields (those that setsField).
Config planRowConfig(const Config& base, const PlanRow& row);

// The row to run: the fastest (least estimated step time) of those that fit under the headroom line, or of the
// tight ones when none does; index -1 when there are no rows.
struct Recommendation {
    double index = -1;
    std::string reason;  // one line: why this one, e.g. "fastest: no recomputation, bubble 3%, TP 8 inside a node"
};

struct PlanResult {
    std::vector<PlanRow> rows;  // Pareto rows first, then by peak memory; the recommended row is always kept
    Recommendation recommended;
    double layouts = 0;     // (TP, CP, PP, EP) combinations that divide the GPUs
    double candidates = 0;  // every combination of the knobs over those layouts
    double evaluated = 0;   // ledgers computed
    double pruned = 0;      // combinations skipped because a smaller micro-batch already did not fit
    double fitting = 0;
    double dropped = 0;  // fitting rows beyond maxRows
    std::vector<Problem> errors;
};

PlanResult plan(const PlanRequest& request) noexcept;

// "Which GPU": the same job planned on every GPU preset. Each preset's capacity and speed figures replace the base's
// (applyGpuPreset); the model, the GPU count, the global batch and every other field stay, except gpu_hour_usd,
// dropped since a price is one GPU type's. Each plan keeps only its
// recommended row (rows empty and recommended.index -1 where nothing fits), with its counts and errors.
struct GpuPlan {
    std::string gpu;    // the preset's id
    std::string label;  // its name
    double capacityBytes = 0;
    PlanResult plan;
};
std::vector<GpuPlan> planEachGpu(const PlanRequest& request) noexcept;

// Marks the Pareto set over (recomputation overhead, pipeline bubble, TP × CP, ZeRO-3, crossing nodes, peak
// memory), all minimised, and orders the rows: Pareto first, then by peak memory.
void markPareto(std::vector<PlanRow>& rows) noexcept;

// Marks the Pareto set, cuts the rows to maxRows keeping the fastest fitting row (in the last place kept when the
// cut would drop it) and names the recommended row: what plan() does with its rows, and what a caller that joins
// slices of a plan does with theirs.
Recommendation finishPlanRows(std::vector<PlanRow>& rows, double maxRows) noexcept;

// The step compute a checkpointing mode adds: full recomputes every layer's forward (one forward on top of
// forward + backward ≈ 3 forwards: 1/3, the chapter's "33% extra"); selective recomputes the attention core,
// 4·b·s²·a·d of a layer's 2·b·s·P_layer + 4·b·s²·a·d forward FLOPs (Korthikanti et al. 2022 §5); op (torchtitan's
// op-level SAC) every other matmul, half the 2·b·s·P_layer.
double recomputeOverhead(const Config& config) noexcept;

}  // namespace membudget
