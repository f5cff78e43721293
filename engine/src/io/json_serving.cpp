// The serving speed in the eval JSON (docs/inference.md, "Serving speed").
#include <cmath>
#include <string>

#include "io/json_parts.hpp"
#include "membudget/base/choices.hpp"

namespace membudget::detail {

using nlohmann::ordered_json;

void writeServing(ordered_json& out, const Config& config, const ServingTime& sv) {
    // The serving speed (docs/inference.md, "Serving speed"); null where the GPU's speed is not known. Seconds to the
    // microsecond, the parts in ms.

    auto rounded = [](double value, double perOne) { return number(std::round(value * perOne) / perOne); };
    out["ttft_s"] = sv.estimated ? rounded(sv.ttftSeconds, 1e6) : ordered_json(nullptr);
    out["tpot_s"] = sv.estimated ? rounded(sv.tpotSeconds, 1e6) : ordered_json(nullptr);
    out["output_tokens_per_second_per_gpu"] = sv.estimated ? rounded(sv.outputTokensPerSecondPerGpu, 1e3) : ordered_json(nullptr);
    if (sv.estimated) {
        ordered_json decode = ordered_json::object(), prefill = ordered_json::object();
        for (size_t i = 0; i < kDecodeParts; ++i) decode[std::string(decodePartTexts()[i].id)] = rounded(sv.decodeSeconds[i] * 1e3, 1e3);
        for (size_t i = 0; i < kPrefillParts; ++i)
            prefill[std::string(prefillPartTexts()[i].id)] = rounded(sv.prefillSeconds[i] * 1e3, 1e3);
        out["serving"] = {{"framework", std::string(toString(config.framework))},
                          {"input_tokens", number(sv.inputTokens)},
                          {"output_tokens", number(sv.outputTokens)},
                          {"lengths_assumed", sv.lengthsAssumed},
                          {"concurrency", number(sv.concurrency)},
                          {"gpus_per_replica", number(sv.gpusPerReplica)},
                          {"replicas", number(config.dp)},
                          {"output_tokens_per_second_per_replica", rounded(sv.outputTokensPerSecondPerReplica, 1e3)},
                          {"output_tokens_per_second", rounded(sv.outputTokensPerSecondPerReplica * config.dp, 1e3)},
                          {"requests_per_second_per_replica", rounded(sv.requestsPerSecondPerReplica, 1e6)},
                          {"request_latency_s", rounded(sv.requestSeconds, 1e6)},
                          {"tpot_parts_ms", std::move(decode)},
                          {"ttft_parts_ms", std::move(prefill)},
                          {"experts_read_per_layer", rounded(sv.expertsReadPerLayer, 1e3)},
                          {"compute_bound", sv.computeBound},
                          {"cuda_graphs", sv.cudaGraphs},
                          {"roofline",
                           {{"ttft_s", rounded(sv.rooflineTtftSeconds, 1e6)},
                            {"tpot_s", rounded(sv.rooflineTpotSeconds, 1e6)},
                            {"output_tokens_per_second_per_gpu", rounded(sv.rooflineOutputTokensPerSecondPerGpu, 1e3)}}},
                          {"assumptions", std::string(servingAssumptions())}};
    } else {
        out["serving"] = nullptr;
    }
}

}  // namespace membudget::detail
