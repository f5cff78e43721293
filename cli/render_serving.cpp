// The serving plan as the CLI prints it (`membudget plan` with mode inference; docs/inference.md, "Serving plan").
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

#include "format.hpp"
#include "membudget/base/text.hpp"
#include "render.hpp"

namespace membudget::cli {

namespace {

std::string ms(double seconds) { return detail::formatNumber(std::round(seconds * 1e4) / 10); }

std::string layoutText(const ServingPlanRow& r) {
    return "TP " + detail::groupedNumber(r.tp) + (r.pp > 1 ? " PP " + detail::groupedNumber(r.pp) : "") +
           (r.ep > 1 ? " EP " + detail::groupedNumber(r.ep) : "") +
           (r.attentionDp > 1 ? " DPA " + detail::groupedNumber(r.attentionDp) : "") + " × " + detail::groupedNumber(r.dp);
}

std::string targetsText(const ServingPlanRequest& request) {
    std::string t;
    if (request.ttftLimitSeconds > 0) t += "TTFT ≤ " + ms(request.ttftLimitSeconds) + " ms";
    if (request.tpotLimitSeconds > 0) t += std::string(t.empty() ? "" : ", ") + "TPOT ≤ " + ms(request.tpotLimitSeconds) + " ms";
    return t.empty() ? "no latency target (--ttft-ms, --tpot-ms)" : t;
}

void header(std::ostream& out, const ServingPlanRequest& request, std::string_view what) {
    const Config& c = request.base;
    out << "membudget plan (serving, " << toString(c.framework) << "): " << c.model << " on " << detail::groupedNumber(request.gpus)
        << " GPUs, requests of " << detail::groupedNumber(c.inputTokens) << " in / " << detail::groupedNumber(c.outputTokens)
        << " out (seq " << detail::groupedNumber(c.seq) << "), " << targetsText(request) << ": " << what << "\n\n";
}

}  // namespace

void printServingPlan(std::ostream& out, const ServingPlan& plan, const ServingPlanRequest& request, ByteUnit unit, size_t limit) {
    header(out, request, "layouts × replicas and the concurrency per replica, the fastest per GPU first");
    if (plan.recommended < 0) {
        out << "Nothing fits: " << plan.reason << "\n";
        return;
    }
    out << "Recommended: " << plan.reason << "\n\n";
    out << pad("layout × replicas", 22) << padLeft("requests", 10) << padLeft("fit", 7) << padLeft("peak " + std::string(unit.name), 10)
        << padLeft("TTFT ms", 10) << padLeft("TPOT ms", 10) << padLeft("out tok/s/GPU", 15) << padLeft("out tok/s", 12) << "  targets\n";
    const size_t shown = std::min(limit, plan.rows.size());
    for (size_t i = 0; i < shown; ++i) {
        const ServingPlanRow& r = plan.rows[i];
        out << pad(layoutText(r), 22) << padLeft(detail::groupedNumber(r.concurrency), 10)
            << padLeft(detail::groupedNumber(r.maxConcurrency), 7) << padLeft(unit.amount(r.peakBytes), 10)
            << padLeft(ms(r.ttftSeconds), 10) << padLeft(ms(r.tpotSeconds), 10)
            << padLeft(detail::groupedNumber(std::round(r.outputTokensPerSecondPerGpu)), 15)
            << padLeft(detail::groupedNumber(std::round(r.outputTokensPerSecond)), 12) << "  " << (r.meetsTargets ? "met" : "missed")
            << "\n";
    }
    if (shown < plan.rows.size())
        out << "… and " << detail::groupedNumber(static_cast<double>(plan.rows.size() - shown)) << " more (--limit, --json)\n";
    out << "\nEstimates (docs/inference.md, \"Serving speed\"); each row's configuration: membudget plan --json, its query.\n";
}

void printGpuServingPlans(std::ostream& out, const std::vector<GpuServingPlan>& plans, const ServingPlanRequest& request) {
    header(out, request, "each GPU preset's recommended layout");
    out << pad("GPU", 26) << pad("layout × replicas", 22) << padLeft("requests", 10) << padLeft("TTFT ms", 10) << padLeft("TPOT ms", 10)
        << padLeft("out tok/s/GPU", 15) << "\n";
    for (const GpuServingPlan& g : plans) {
        out << pad(g.label.size() > 25 ? g.label.substr(0, 24) + "…" : g.label, 26);
        if (!g.plan.errors.empty()) {
            out << g.plan.errors.front().message << "\n";
            continue;
        }
        if (g.plan.recommended < 0) {
            out << "nothing fits\n";
            continue;
        }
        const ServingPlanRow& r = g.plan.rows[static_cast<size_t>(g.plan.recommended)];
        out << pad(layoutText(r), 22) << padLeft(detail::groupedNumber(r.concurrency), 10) << padLeft(ms(r.ttftSeconds), 10)
            << padLeft(ms(r.tpotSeconds), 10) << padLeft(detail::groupedNumber(std::round(r.outputTokensPerSecondPerGpu)), 15)
            << (r.meetsTargets ? "" : "  (misses the targets)") << "\n";
    }
}

}  // namespace membudget::cli
