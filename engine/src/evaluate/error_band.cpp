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

// How many runs, and the most under- and over-predicted of them.
struct Range {
    double runs = 0, low = 0, high = 0;
};

template <class Alike>
Range rangeOf(std::span<const ValidationRun> runs, Alike alike) {
    Range out;
    for (const auto& r : runs)
        if (alike(r)) {
            out.low = out.runs == 0 ? r.error : std::min(out.low, r.error);
            out.high = out.runs == 0 ? r.error : std::max(out.high, r.error);
            ++out.runs;
        }
    return out;
}

// The complete runs of one family: the only ones that make a band.
Range familyRange(std::span<const ValidationRun> runs, const RunFamily& family) {
    return rangeOf(
        runs, [&family](const ValidationRun& r) { return r.complete && r.framework == family.framework && r.features == family.features; });
}

}  // namespace

RunFamily runFamily(const Config& c) {
    RunFamily f;
    f.framework = toString(c.framework);
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
    std::string out = std::string(family.framework) + ((family.features & kRunMoe) ? ", MoE" : ", dense");
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
    const Range own = familyRange(runs, band.family);
    if (own.runs > 0) {
        band.validated = true;
        band.runs = own.runs;
        band.lowError = own.low;
        band.highError = own.high;
        band.text = "validated on " + detail::formatNumber(band.runs) + " measured run" + (band.runs == 1 ? "" : "s") + " like it (" +
                    familyText(band.family) + "): " + bandText(band.lowError, band.highError) + " predicted against measured";
        return band;
    }
    // The nearest measured family of the same framework: fewest features apart, then the most runs.
    std::vector<unsigned> seen;
    RunFamily nearest;
    Range near;
    int nearestDistance = 1 << 20;
    for (const auto& r : runs) {
        if (!r.complete || r.framework != band.family.framework || std::find(seen.begin(), seen.end(), r.features) != seen.end()) continue;
        seen.push_back(r.features);
        const RunFamily candidate{band.family.framework, r.features};
        const Range range = familyRange(runs, candidate);
        const int distance = std::popcount(r.features ^ band.family.features);
        if (distance < nearestDistance || (distance == nearestDistance && range.runs > near.runs)) {
            nearest = candidate;
            near = range;
            nearestDistance = distance;
        }
    }
    band.text = "not validated for " + familyText(band.family);
    const std::string framework(band.family.framework);
    if (near.runs > 0) {
        band.runs = near.runs;
        band.lowError = near.low;
        band.highError = near.high;
        band.text += " (nearest: " + detail::formatNumber(near.runs) + " run" + (near.runs == 1 ? "" : "s") + " of " + familyText(nearest) +
                     ", " + bandText(near.low, near.high) + ")";
    } else {
        // Measured runs whose configuration membudget cannot state in full make no band; say how far they were.
        const Range all = rangeOf(runs, [&band](const ValidationRun& r) { return r.framework == band.family.framework; });
        band.text += all.runs == 0 ? " (no " + framework + " run has been measured)"
                                   : " (no complete " + framework + " run measured; " + detail::formatNumber(all.runs) +
                                         " incomplete: " + bandText(all.low, all.high) + ")";
    }
    return band;
}

ErrorBand errorBand(const Config& config) { return errorBand(config, validationRuns()); }

double bandPeakBytes(const ErrorBand& band, double totalBytes) {
    return band.validated && band.lowError < 0 ? totalBytes / std::max(1 + band.lowError, 0.01) : totalBytes;
}

double bandPeakBytes(const Config& config, double totalBytes) {
    if (config.method != Method::membudget) return totalBytes;
    const Range own = familyRange(validationRuns(), runFamily(config));
    ErrorBand band;
    band.validated = own.runs > 0;
    band.lowError = own.low;
    return bandPeakBytes(band, totalBytes);
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
