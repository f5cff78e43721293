// errorBand(): the validation table's runs like a configuration, and how far the engine was from them.
#include "membudget/evaluate/error_band.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

namespace {

constexpr const char* kFeatureNames[] = {"moe", "pp", "cp", "ep", "lora", "compile", "fp8"};
constexpr const char* kFeatureWords[] = {"MoE", "PP", "CP", "EP", "LoRA/QLoRA", "compile", "FP8"};

std::string signedPercent(double fraction) {
    const std::string magnitude = detail::percentText(std::abs(fraction));
    return std::string(fraction < 0 && magnitude != "0.0%" ? "−" : "+") + magnitude;
}

std::string bandText(double low, double high) { return signedPercent(low) + " to " + signedPercent(high); }

}  // namespace

RunFamily runFamily(const Config& c) {
    RunFamily f;
    f.framework = c.mode == Mode::inference ? "vllm" : std::string(toString(c.framework));
    if (c.experts > 0) f.features |= kRunMoe;
    if (c.pp > 1) f.features |= kRunPipeline;
    if (c.cp > 1) f.features |= kRunContext;
    if (c.ep > 1) f.features |= kRunExperts;
    if (c.mode == Mode::training) {
        if (c.finetune != Finetune::full) f.features |= kRunAdapters;
        if (c.compile) f.features |= kRunCompile;
        if (c.precision == Precision::fp8) f.features |= kRunFp8;
    }
    return f;
}

std::vector<std::string> featureNames(unsigned features) {
    std::vector<std::string> out;
    for (unsigned i = 0; i < std::size(kFeatureNames); ++i)
        if (features & (1u << i)) out.emplace_back(kFeatureNames[i]);
    return out;
}

std::string familyText(const RunFamily& family) {
    std::string out = family.framework + ((family.features & kRunMoe) ? ", MoE" : ", dense");
    for (unsigned i = 1; i < std::size(kFeatureWords); ++i)
        if (family.features & (1u << i)) out += ", " + std::string(kFeatureWords[i]);
    return out;
}

ErrorBand errorBand(const Config& config, std::span<const ValidationRun> runs) {
    ErrorBand band;
    band.family = runFamily(config);
    if (config.method != Method::membudget) {
        band.text = "not validated: the validation table measures membudget's method, not " + std::string(toString(config.method)) + "'s";
        return band;
    }
    auto summarise = [&runs](const RunFamily& family, double& low, double& high) {
        double n = 0;
        for (const auto& r : runs)
            if (r.complete && r.framework == family.framework && r.features == family.features) {
                low = n == 0 ? r.error : std::min(low, r.error);
                high = n == 0 ? r.error : std::max(high, r.error);
                ++n;
            }
        return n;
    };
    band.runs = summarise(band.family, band.lowError, band.highError);
    if (band.runs > 0) {
        band.validated = true;
        band.text = "validated on " + detail::formatNumber(band.runs) + " measured run" + (band.runs == 1 ? "" : "s") + " like it (" +
                    familyText(band.family) + "): " + bandText(band.lowError, band.highError) + " predicted against measured";
        return band;
    }
    // The nearest measured family of the same framework: fewest features apart, then the most runs.
    std::vector<unsigned> seen;
    RunFamily nearest;
    double nearestRuns = 0, nearestLow = 0, nearestHigh = 0;
    int nearestDistance = 1 << 20;
    for (const auto& r : runs) {
        if (!r.complete || r.framework != band.family.framework || std::find(seen.begin(), seen.end(), r.features) != seen.end()) continue;
        seen.push_back(r.features);
        const RunFamily candidate{band.family.framework, r.features};
        double low = 0, high = 0;
        const double n = summarise(candidate, low, high);
        const int distance = std::popcount(r.features ^ band.family.features);
        if (distance < nearestDistance || (distance == nearestDistance && n > nearestRuns)) {
            nearest = candidate;
            nearestRuns = n;
            nearestLow = low;
            nearestHigh = high;
            nearestDistance = distance;
        }
    }
    band.text = "not validated for " + familyText(band.family);
    if (nearestRuns > 0) {
        band.runs = nearestRuns;
        band.lowError = nearestLow;
        band.highError = nearestHigh;
        band.text += " (nearest: " + detail::formatNumber(nearestRuns) + " run" + (nearestRuns == 1 ? "" : "s") + " of " +
                     familyText(nearest) + ", " + bandText(nearestLow, nearestHigh) + ")";
    } else {
        // Measured runs whose configuration membudget cannot state in full make no band; say how far they were.
        double n = 0, low = 0, high = 0;
        for (const auto& r : runs)
            if (r.framework == band.family.framework) {
                low = n == 0 ? r.error : std::min(low, r.error);
                high = n == 0 ? r.error : std::max(high, r.error);
                ++n;
            }
        band.text += n == 0 ? " (no " + band.family.framework + " run has been measured)"
                            : " (no complete " + band.family.framework + " run measured; " + detail::formatNumber(n) +
                                  " incomplete: " + bandText(low, high) + ")";
    }
    return band;
}

ErrorBand errorBand(const Config& config) { return errorBand(config, validationRuns()); }

double bandPeakBytes(const Config& config, double totalBytes) {
    if (config.method != Method::membudget) return totalBytes;
    const RunFamily family = runFamily(config);
    double low = 0;
    bool any = false;
    for (const auto& r : validationRuns())
        if (r.complete && r.framework == family.framework && r.features == family.features) {
            low = any ? std::min(low, r.error) : r.error;
            any = true;
        }
    return any && low < 0 ? totalBytes / std::max(1 + low, 0.01) : totalBytes;
}

std::span<const ValidationRun> validationRuns() {
    // Generated: node scripts/validation-table.mjs --write (the complete rows of docs/accuracy.md's table, as the
    // engine predicted them); the ctest docs_accuracy_table_current fails when it is not what the engine gives now.
    // Data, not code: a constant table the module carries as bytes.
    static constexpr ValidationRun kRuns[] = {
#include "evaluate/validation_runs.inc"
    };
    return kRuns;
}

}  // namespace membudget
