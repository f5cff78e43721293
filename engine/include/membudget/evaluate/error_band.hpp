// How far membudget's method has been from measurement on published runs like this configuration (the
// validation table, docs/accuracy.md): the band its verdict is read against, or "not validated" where no run like it
// was measured.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// What makes runs alike for accuracy: the framework (vLLM for inference) and the features that change what is kept.
enum RunFeature : unsigned {
    kRunMoe = 1u << 0,       // experts > 0
    kRunPipeline = 1u << 1,  // PP > 1
    kRunContext = 1u << 2,   // CP > 1
    kRunExperts = 1u << 3,   // EP > 1
    kRunAdapters = 1u << 4,  // LoRA or QLoRA
    kRunCompile = 1u << 5,   // torch.compile
    kRunFp8 = 1u << 6,       // FP8 matmuls
};

struct RunFamily {
    std::string_view framework;  // megatron, torchtitan, torchtune, deepspeed, hf_accelerate, vllm (static names)
    unsigned features = 0;
    bool operator==(const RunFamily&) const = default;
};
RunFamily runFamily(const Config& config);
// "torchtitan, dense, PP, compile"
std::string familyText(const RunFamily& family);
// The features' names as the validation table writes them ("moe", "pp", …).
std::vector<std::string> featureNames(unsigned features);

// One complete row of the validation table, as the engine predicted it (scripts/validation-table.mjs writes the
// table engine/src/evaluate/validation_runs.inc from the engine's own evaluation of tests/fixtures/measured/).
// In the order of the fixtures' file names.
struct ValidationRun {
    std::string_view framework;
    unsigned features;
    double error;   // (predicted − measured) / measured
    bool complete;  // every setting of the run is one membudget states; only these make a band
};

struct ErrorBand {
    bool validated = false;  // runs like this one were measured
    double lowError = 0;     // the most under-predicted of them, (predicted − measured) / measured
    double highError = 0;    // the most over-predicted
    double runs = 0;         // how many (the nearest family's when not validated)
    RunFamily family;
    std::string text;  // "validated on 7 measured runs like it (megatron, dense, PP): −1.6% to −0.4% …" / "not validated for …"
};
extern const RecordTable kErrorBandRecord;

// The band of the runs like `config` in `runs` (the compiled-in validation table by default).
ErrorBand errorBand(const Config& config);
ErrorBand errorBand(const Config& config, std::span<const ValidationRun> runs);
std::span<const ValidationRun> validationRuns();

// The peak a run like `config` could reach, were it as far under the prediction as the worst validated run like it
// (`totalBytes` itself when none is validated or none was under): what the verdict and the planner read against
// the headroom line. No text, for the planner's inner loop.
double bandPeakBytes(const Config& config, double totalBytes);
double bandPeakBytes(const ErrorBand& band, double totalBytes);  // the same for a band already found

}  // namespace membudget
