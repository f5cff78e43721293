// The ledger: the chapter's per-GPU verification checklist for one configuration, and every method side by side.
#pragma once

#include <optional>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/error_band.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/time/serving.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget {

struct Result {
    Method method = Method::chapter;
    Mode mode = Mode::training;       // the configuration's: which speed estimate the result carries
    std::vector<Line> lines;          // the peak stage's ledger, at its peak phase
    double parameterCount = 0;        // Ψ as used (given or derived)
    double activeParameterCount = 0;  // per token, for MoE (= parameterCount for a dense model)
    double totalBytes = 0;
    double capacityBytes = 0;
    double usableBytes = 0;          // capacity less the headroom fraction
    std::optional<Verdict> verdict;  // none when errors is not empty; "tight" when the error band reaches the line
    ErrorBand errorBand;             // how far the method has been from measured runs like this one
    std::vector<Stage> stages;
    double peakStage = 0;
    std::vector<Tensor> tensors;  // the peak stage's activation sub-ledger, where the method has one
    std::vector<Phase> phases;
    std::optional<StepPhase> peakPhase;  // none: one phase (every method but membudget's training ledger)
    double reservedBytes = 0;            // the peak stage's Stage::reservedBytes
    double cpuBytesPerNode = 0;          // host memory the method needs per node (DeepSpeed offload), or 0
    std::vector<Line> cpuLines;          // the same, line by line (ZeRO-Offload: optimizer states, master, gradients)
    // Inference only: the most concurrent sequences of length seq that fit under the headroom line, and the
    // longest context per sequence that fits with mb sequences (0 when none fits).
    double maxSequences = 0;
    double maxContextTokens = 0;
    // Training: the step-time estimate of the configuration (membudget/time/steptime.hpp); not estimated in inference.
    StepTime stepTime;
    ServingTime servingTime;  // mode = inference: TTFT, TPOT, throughput (docs/inference.md, "Serving speed")
    std::vector<Problem> warnings;
    std::vector<Problem> errors;

    bool ok() const { return errors.empty(); }
};
// The eval JSON's columns (less the query and the configuration, which the configuration gives) and the page's Result.
extern const RecordTable kResultRecord;

// Every method's ledger for one configuration, for the side-by-side view.
struct MethodColumn {
    Method method;
    Result result;
    double sourceBytes = 0;  // the lines the source itself computes (origin == method)
};
// What the methods compared show of each: {method, lines, total_bytes, source_bytes, verdict, peak_stage, warnings}.
extern const RecordTable kMethodColumnRecord;
std::vector<MethodColumn> compareMethods(const Config& config) noexcept;

// The peak stage's lines during forward and backward, which is where a measurement (tools/measure) records
// them: Result::lines, except in membudget's training ledger when the optimizer step is the peak, whose
// optimizer line adds the step's FP32 gradient copy and whose activations are freed. Empty on errors.
std::vector<Line> measurableLines(const Config& config) noexcept;

// Pure: no I/O, nothing thrown. A configuration that fails validate() yields its errors and no lines.
Result evaluate(const Config& config) noexcept;

// What a planner needs of a configuration that passed validate(): the peak stage's bytes, the usable bytes and the
// verdict (with the error band), without the ledger's text and without inference's most-sequences searches.
struct Fit {
    double totalBytes = 0, usableBytes = 0;
    Verdict verdict = Verdict::doesNotFit;
};
Fit fitOf(const Config& config) noexcept;

}  // namespace membudget
