// A plan for serving: every layout of TP × PP (× EP) replicas of a model on N GPUs and every concurrency that fits
// with the KV cache of its requests, ranked by output tokens per second per GPU under the latency targets the user
// sets (docs/inference.md, "Serving plan").
#pragma once

#include <string>
#include <vector>

#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

struct ServingPlanRequest {
    Config base;                   // model, GPU, engine (framework), dtypes, input_tokens and output_tokens, seq
    double gpus = 0;               // all of them: TP × PP × replicas
    double ttftLimitSeconds = 0;   // 0: no target
    double tpotLimitSeconds = 0;   // 0: no target
    double maxConcurrency = 1024;  // the most requests one replica runs at once (vLLM's max_num_seqs, SGLang's max_running_requests)
    bool tpAcrossNodes = false;    // TP groups larger than a node
};
// An input, as PlanRequest's table.
extern const RecordTable kServingPlanRequestRecord;

struct ServingPlanRow {
    double tp = 1, pp = 1, dp = 1, ep = 1;  // dp: replicas
    double attentionDp = 1;                 // SGLang's data-parallel attention groups inside TP (attention_dp)
    double concurrency = 1;                 // requests per replica
    double maxConcurrency = 0;              // the most that fit at seq tokens each (the memory ledger's max_sequences)
    double peakBytes = 0, usableBytes = 0;  // per GPU at this concurrency
    double ttftSeconds = 0, tpotSeconds = 0;
    double outputTokensPerSecondPerGpu = 0, outputTokensPerSecond = 0;  // the whole deployment: × replicas
    bool meetsTargets = true;
};
// A row as `plan --json` writes it and the page reads it, with the link query of the configuration it stands for (the
// plan's base, given as the walk's context).
extern const RecordTable kServingPlanRowRecord;

struct ServingPlan {
    std::vector<ServingPlanRow> rows;  // every fitting (layout, concurrency), fastest per GPU first among those meeting the targets
    double recommended = -1;           // index into rows; -1: nothing fits
    std::string reason;
    double layouts = 0, evaluated = 0;
    std::vector<Problem> errors;
    Config base;  // the request's: what each row changes (its query)
};
extern const RecordTable kServingPlanRecord;

ServingPlan planServing(const ServingPlanRequest& request) noexcept;

// "Which GPU" for serving: the same workload on every GPU preset, each preset's recommended row.
struct GpuServingPlan {
    std::string gpu, label;
    ServingPlan plan;  // its base on this GPU: the preset's capacity and speed, without a price
};
// {gpu, label, recommended: a row or null, reason, errors}.
extern const RecordTable kGpuServingPlanRecord;
std::vector<GpuServingPlan> planServingEachGpu(const ServingPlanRequest& request) noexcept;

// The configuration a row stands for.
Config servingRowConfig(const Config& base, const ServingPlanRow& row);

}  // namespace membudget
