// The serving planner (docs/inference.md, "Serving plan"): for each layout of TP × PP with replicas over the rest of
// the GPUs (and, for a MoE model, expert parallelism over TP × replicas as vLLM's --enable-expert-parallel and
// SGLang's --ep-size lay it out), the memory ledger says how many requests of seq tokens fit; the serving estimate
// then times concurrencies up to that, and the rows are ranked by output tokens per second per GPU among those that
// meet the TTFT and TPOT targets.
#include "membudget/plan/serving_plan.hpp"

#include <algorithm>
#include <cmath>
#include <new>

#include "membudget/base/text.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/time/serving.hpp"

namespace membudget {

namespace {

// Concurrencies tried per layout: powers of two up to the most that fit, and that most.
std::vector<double> concurrencies(double most) {
    std::vector<double> out;
    for (double c = 1; c < most; c *= 2) out.push_back(c);
    if (most >= 1) out.push_back(most);
    return out;
}

std::string ms(double seconds) { return detail::formatNumber(std::round(seconds * 1e4) / 10) + " ms"; }

}  // namespace

Config servingRowConfig(const Config& base, const ServingPlanRow& row) {
    Config c = base;
    c.tp = row.tp, c.pp = row.pp, c.dp = row.dp, c.ep = row.ep, c.cp = 1;
    c.attentionDp = row.attentionDp;
    c.etp = row.ep > 1 ? 1 : 0;
    c.gpus = 0;
    c.mb = row.concurrency;
    // The planner ranks layouts by their steady state: a benchmark per row and concurrency would cost a simulation each.
    c.numPrompts = 0;
    return c;
}

namespace {

// Evaluates one layout: whether it fits one request, then each concurrency up to what fits, a row each that fits.
void addLayoutRows(const ServingPlanRequest& request, ServingPlanRow row, ServingPlan& out) {
    row.concurrency = 1;
    Config c = servingRowConfig(request.base, row);
    ++out.layouts;
    if (!validate(c).empty()) return;
    const Result at1 = evaluate(c);
    ++out.evaluated;
    if (!at1.ok() || at1.maxSequences < 1) return;
    row.maxConcurrency = std::min(at1.maxSequences, request.maxConcurrency);
    for (const double n : concurrencies(row.maxConcurrency)) {
        c.mb = n;
        const ServingTime sv = estimateServingTime(c);
        if (!sv.estimated) continue;
        ServingPlanRow r = row;
        r.concurrency = n;
        // Memory grows by the KV cache of each request: the peak at n (the workspace too), its verdict with the error
        // band, without the ledger's text.
        const Fit atN = fitOf(c);
        ++out.evaluated;
        if (atN.verdict != Verdict::fits) continue;
        r.peakBytes = atN.totalBytes;
        r.usableBytes = atN.usableBytes;
        r.ttftSeconds = sv.ttftSeconds;
        r.tpotSeconds = sv.tpotSeconds;
        r.outputTokensPerSecondPerGpu = sv.outputTokensPerSecondPerGpu;
        r.outputTokensPerSecond = sv.outputTokensPerSecondPerReplica * row.dp;
        r.meetsTargets = (request.ttftLimitSeconds == 0 || sv.ttftSeconds <= request.ttftLimitSeconds) &&
                         (request.tpotLimitSeconds == 0 || sv.tpotSeconds <= request.tpotLimitSeconds);
        out.rows.push_back(r);
    }
}

}  // namespace

ServingPlan planServing(const ServingPlanRequest& request) noexcept {
    ServingPlan out;
    try {
        out.base = request.base;
        const Config& base = request.base;
        if (base.mode != Mode::inference) {
            out.errors.push_back({"mode", "mode must be inference for a serving plan; got " + std::string(toString(base.mode))});
            return out;
        }
        if (!(request.gpus >= 1 && request.gpus <= 16384 && std::floor(request.gpus) == request.gpus)) {
            out.errors.push_back({"gpus", "gpus must be an integer from 1 to 16,384; got " + detail::formatNumber(request.gpus)});
            return out;
        }
        if (!(request.maxConcurrency >= 1 && request.maxConcurrency <= 65536 &&
              std::floor(request.maxConcurrency) == request.maxConcurrency)) {
            out.errors.push_back({"max_concurrency", "max_concurrency must be an integer from 1 to 65,536; got " +
                                                         detail::formatNumber(request.maxConcurrency)});
            return out;
        }
        // The latency targets, in seconds here and in ms where a user types them (--ttft-ms, the page's fields).
        for (const auto& [value, key] : {std::pair{request.ttftLimitSeconds, "ttft_ms"}, std::pair{request.tpotLimitSeconds, "tpot_ms"}})
            if (!(value >= 0 && value <= 1e4)) {
                out.errors.push_back(
                    {key, std::string(key) + " must be from 0 (no target) to 10,000,000 ms; got " + detail::formatNumber(value * 1e3)});
                return out;
            }
        const double perNode = base.gpusPerNode;
        for (double tp = 1; tp <= request.gpus; ++tp) {
            if (std::fmod(request.gpus, tp) != 0 || (!request.tpAcrossNodes && tp > perNode)) continue;
            // Attention's KV heads split over TP: vLLM and SGLang need heads divisible by TP.
            if (std::fmod(base.heads, tp) != 0) continue;
            for (double pp = 1; pp * tp <= request.gpus; ++pp) {
                if (std::fmod(request.gpus, tp * pp) != 0 || pp > base.layers) continue;
                const double dp = request.gpus / (tp * pp);
                // SGLang's data-parallel attention: one attention group a GPU of the TP group (--dp-size tp), the way
                // DeepSeek's are served, beside attention over all of TP; TensorRT-LLM's enable_attention_dp is that one.
                const bool withinServer = base.framework == Framework::sglang || base.framework == Framework::trtllm;
                const bool dpAttention = withinServer && tp > 1 && pp == 1;
                for (const double attentionDp : {1.0, dpAttention ? tp : 0.0})
                    for (const bool expertParallel : {false, true}) {
                        if (attentionDp == 0) continue;
                        if (expertParallel && (base.experts == 0 || tp * dp == 1 || std::fmod(base.experts, tp * dp) != 0)) continue;
                        // SGLang's and TensorRT-LLM's experts split within one server's TP group (moe_ep_size divides tp_size;
                        // moe_expert_parallel_size × moe_tensor_parallel_size = tp_size): their replicas do not share them,
                        // unlike vLLM's --enable-expert-parallel over data-parallel ranks.
                        if (expertParallel && withinServer && dp > 1) continue;
                        ServingPlanRow row;
                        row.tp = tp, row.pp = pp, row.dp = dp, row.ep = expertParallel ? tp * dp : 1;
                        row.attentionDp = attentionDp;
                        addLayoutRows(request, row, out);
                    }
            }
        }
        // Those meeting the targets first, fastest per GPU first; then the rest by TPOT, nearest the target first.
        std::stable_sort(out.rows.begin(), out.rows.end(), [](const ServingPlanRow& a, const ServingPlanRow& b) {
            if (a.meetsTargets != b.meetsTargets) return a.meetsTargets;
            if (a.meetsTargets) return a.outputTokensPerSecondPerGpu > b.outputTokensPerSecondPerGpu;
            return a.tpotSeconds < b.tpotSeconds;
        });
        if (out.rows.empty()) {
            out.reason = "no layout fits the model with one request of " + detail::formatNumber(base.seq) + " tokens on " +
                         detail::formatNumber(request.gpus) + " GPUs";
            return out;
        }
        out.recommended = 0;
        const ServingPlanRow& best = out.rows.front();
        const std::string layout = "TP " + detail::formatNumber(best.tp) + (best.pp > 1 ? " × PP " + detail::formatNumber(best.pp) : "") +
                                   (best.ep > 1 ? " with EP " + detail::formatNumber(best.ep) : "") +
                                   (best.attentionDp > 1 ? " with DP attention " + detail::formatNumber(best.attentionDp) : "") + ", " +
                                   detail::formatNumber(best.dp) + (best.dp == 1 ? " replica" : " replicas") + " of " +
                                   detail::formatNumber(best.concurrency) + " requests";
        std::string targets;
        if (request.ttftLimitSeconds > 0) targets += "TTFT ≤ " + ms(request.ttftLimitSeconds);
        if (request.tpotLimitSeconds > 0) targets += std::string(targets.empty() ? "" : " and ") + "TPOT ≤ " + ms(request.tpotLimitSeconds);
        out.reason = best.meetsTargets ? "the most output tokens/s per GPU" + (targets.empty() ? std::string() : " with " + targets) +
                                             ": " + layout + " (TPOT " + ms(best.tpotSeconds) + ", TTFT " + ms(best.ttftSeconds) + ")"
                                       : "no layout meets " + targets + "; the lowest TPOT: " + layout + " (TPOT " + ms(best.tpotSeconds) +
                                             ", TTFT " + ms(best.ttftSeconds) + ")";
    } catch (const std::bad_alloc&) {
        out = ServingPlan{};
        out.errors.push_back({"", "internal error: out of memory while planning"});
    }
    return out;
}

std::vector<GpuServingPlan> planServingEachGpu(const ServingPlanRequest& request) noexcept {
    std::vector<GpuServingPlan> out;
    try {
        for (const auto& preset : gpuPresets()) {
            if (preset.id == "generic-80gb") continue;
            ServingPlanRequest r = request;
            applyGpuPreset(r.base, preset);
            r.base.gpu = std::string(preset.id);
            r.base.gpuHourUsd = 0;
            GpuServingPlan g{std::string(preset.id), std::string(preset.label), planServing(r)};
            // Each GPU keeps its recommended row only.
            if (g.plan.recommended >= 0) g.plan.rows = {g.plan.rows[static_cast<size_t>(g.plan.recommended)]}, g.plan.recommended = 0;
            out.push_back(std::move(g));
        }
    } catch (const std::bad_alloc&) {
        out.clear();
    }
    return out;
}

}  // namespace membudget
