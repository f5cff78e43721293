// advise(): the changes that make a configuration fit, each with its step-time cost.
#include "membudget/plan/advice.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/plan/plan.hpp"

namespace membudget {

namespace {

struct Change {
    std::string change;
    std::vector<std::pair<std::string, std::string>> keys;
    int costRank;  // lower is cheaper
    std::string cost;
};

std::vector<Change> singleChanges(const Config& c) {
    using detail::formatNumber;
    std::vector<Change> out;
    const std::string pct = detail::percentText(recomputeOverhead([&] {
        Config s = c;
        s.ckpt = Checkpointing::selective;
        return s;
    }()));
    if (c.tp > 1 && !c.sp && std::fmod(c.seq / c.cp, c.tp) == 0)
        out.push_back(
            {"sp = true", {{"sp", "true"}}, 0, "none: the same TP communication as reduce-scatter + all-gather (Korthikanti §4.2.2)"});
    if (c.zero < 2 && c.dp * c.cp > 1)
        out.push_back({"zero = " + formatNumber(c.zero + 1),
                       {{"zero", formatNumber(c.zero + 1)}},
                       1,
                       "none in volume: reduce-scatter + all-gather replace the all-reduce (ZeRO §7)"});
    if (c.zero < 3 && c.dp * c.cp > 1)
        out.push_back({"zero = 3",
                       {{"zero", "3"}},
                       3,
                       "1.5× the data-parallel communication: parameters all-gathered in forward and backward (ZeRO §7.2)"});
    if (c.ckpt == Checkpointing::none)
        out.push_back({"ckpt = selective", {{"ckpt", "selective"}}, 2, "≈" + pct + " more step compute (attention core recomputed)"});
    if (c.ckpt != Checkpointing::full)
        out.push_back({"ckpt = full", {{"ckpt", "full"}}, 5, "≈33% more step compute: one more forward pass (chapter §2)"});
    if (c.mb > 1 && std::fmod(c.mb, 2) == 0)
        out.push_back({"mb = " + formatNumber(c.mb / 2) + ", microbatches = " + formatNumber(c.microbatches * 2),
                       {{"mb", formatNumber(c.mb / 2)}, {"microbatches", formatNumber(c.microbatches * 2)}},
                       2,
                       "smaller GEMMs (lower efficiency); the global batch is kept"});
    // Halving DP doubles the micro-batches, so that the global batch is kept.
    const std::string m2 = formatNumber(c.microbatches * 2);
    if (std::fmod(c.dp, 2) == 0 && std::fmod(c.heads, c.tp * 2) == 0)
        out.push_back({"tp = " + formatNumber(c.tp * 2) + ", dp = " + formatNumber(c.dp / 2) + ", microbatches = " + m2,
                       {{"tp", formatNumber(c.tp * 2)}, {"dp", formatNumber(c.dp / 2)}, {"microbatches", m2}},
                       c.tp * 2 > c.gpusPerNode ? 6 : 4,
                       c.tp * 2 > c.gpusPerNode ? "TP all-reduces across nodes (slow interconnect)"
                                                : "more TP all-reduces per layer, smaller GEMMs"});
    if (std::fmod(c.dp, 2) == 0 && c.pp * 2 <= c.layers)
        out.push_back({"pp = " + formatNumber(c.pp * 2) + ", dp = " + formatNumber(c.dp / 2) + ", microbatches = " + m2,
                       {{"pp", formatNumber(c.pp * 2)}, {"dp", formatNumber(c.dp / 2)}, {"microbatches", m2}},
                       4,
                       "pipeline bubble " +
                           detail::percentText(pipelineBubbleFraction(c.pp * 2, c.microbatches * 2, c.pipelineLayout.empty() ? c.vpp : 1)) +
                           " (was " + detail::percentText(pipelineBubbleFraction(c.pp, c.microbatches, c.vpp)) + ")"});
    if (std::fmod(c.dp, 2) == 0 && std::fmod(c.seq, c.cp * 2) == 0)
        out.push_back({"cp = " + formatNumber(c.cp * 2) + ", dp = " + formatNumber(c.dp / 2) + ", microbatches = " + m2,
                       {{"cp", formatNumber(c.cp * 2)}, {"dp", formatNumber(c.dp / 2)}, {"microbatches", m2}},
                       4,
                       "ring-attention K/V exchange between CP ranks (overlapped with compute)"});
    // Fine-tuning instead of training every weight (membudget's method): LoRA, then QLoRA.
    if (c.method == Method::membudget && c.finetune == Finetune::full)
        out.push_back({"finetune = lora",
                       {{"finetune", "lora"}},
                       8,
                       "a different task: only low-rank adapters (rank " + formatNumber(c.loraRank) + " on " + c.loraTargets +
                           ") are trained; quality may trail full fine-tuning"});
    if (c.method == Method::membudget && c.finetune != Finetune::qlora &&
        (c.precision == Precision::bf16 || c.precision == Precision::fp16))
        out.push_back({"finetune = qlora",
                       {{"finetune", "qlora"}},
                       9,
                       "adapters on an NF4 base: quality may trail, and each step dequantises every weight (slower step)"});
    if (c.offload == Offload::none && c.zero >= 1)
        out.push_back({"offload = optimizer",
                       {{"offload", "optimizer"}},
                       7,
                       "the optimizer step runs on the CPU: PCIe transfers and CPU Adam bound the step time (ZeRO-Offload)"});
    // Everything sharded to the CPU (ZeRO-Infinity's offload_param, FSDP's CPUOffload): only with ZeRO 3, where
    // the parameters are sharded to begin with.
    if (c.offload != Offload::all && c.zero == 3)
        out.push_back({"offload = all",
                       {{"offload", "all"}},
                       7,
                       "parameters, gradients and optimizer states in CPU memory: every step streams the weights over PCIe "
                       "(ZeRO-Infinity, FSDP CPUOffload)"});
    return out;
}

Advice tryChange(const Config& c, const Result& before, const std::vector<const Change*>& changes) {
    std::vector<std::pair<std::string, std::string>> keys;
    Advice a;
    for (const Change* change : changes) {
        keys.insert(keys.end(), change->keys.begin(), change->keys.end());
        a.change += (a.change.empty() ? "" : "; ") + change->change;
        a.cost += (a.cost.empty() ? "" : "; ") + change->cost;
    }
    // A custom pipeline layout names each stage's layers for its PP: a change of PP leaves it for an even split without
    // interleaving, and says so.
    if (!c.pipelineLayout.empty() && std::any_of(keys.begin(), keys.end(), [](const auto& kv) { return kv.first == "pp"; })) {
        keys.emplace_back("pipeline_layout", "");
        keys.emplace_back("vpp", "1");
        a.change += "; pipeline_layout = (an even split), vpp = 1";
    }
    std::vector<Assignment> assignments;
    for (const auto& [key, value] : keys) {
        assignments.push_back({key, value});
        a.query += (a.query.empty() ? "" : "&") + key + "=" + value;
    }
    ParsedConfig parsed = applyAssignments(assignments, c);
    // Megatron-LM refuses its EP all-to-all overlap under full recomputation or a pipeline without interleaving: a
    // change that brings either turns the overlap off, and says so.
    if (parsed.config.overlapMoeComm && !moeCommOverlapAllowed(parsed.config)) {
        parsed.config.overlapMoeComm = false;
        a.change += "; overlap_moe_comm = false";
        a.query += "&overlap_moe_comm=false";
    }
    const Result after = parsed.problems.empty() ? evaluate(parsed.config) : Result{};
    if (!parsed.problems.empty() || !after.ok()) {
        a.verdict.reset();
        return a;
    }
    a.totalBytes = after.totalBytes;
    a.savedBytes = before.totalBytes - after.totalBytes;
    a.verdict = after.verdict;
    if (before.stepTime.estimated && after.stepTime.estimated) {
        // At the same tokens per step (every change keeps the global batch; the ratio guards any that does not).
        a.stepTimeChange =
            after.stepTime.stepSeconds * (before.stepTime.tokensPerStep / after.stepTime.tokensPerStep) / before.stepTime.stepSeconds - 1;
        a.cost = "estimated step time " + std::string(a.stepTimeChange >= 0 ? "+" : "−") + detail::percentText(std::abs(a.stepTimeChange)) +
                 " (" + detail::groupedNumber(std::round(after.stepTime.tokensPerSecondPerGpu)) + " tokens/s per GPU); " + a.cost;
    }
    return a;
}

}  // namespace

std::vector<Advice> advise(const Config& c) noexcept {
    std::vector<Advice> out;
    try {
        const Result before = evaluate(c);
        if (!before.ok() || c.mode != Mode::training) return out;
        const std::vector<Change> changes = singleChanges(c);
        // LoRA and QLoRA (cost rank 8 and up) train something else; every other change keeps the task.
        auto keeps = [](const Change& change) { return change.costRank < 8; };
        // Under 1% of the peak is not worth a change of configuration.
        const double worthBytes = 0.01 * before.totalBytes;
        struct Ranked {
            Advice advice;
            int costRank;
            size_t knobs;
        };
        std::vector<Ranked> ranked;
        for (const auto& change : changes) {
            Advice a = tryChange(c, before, {&change});
            a.keepsTask = keeps(change);
            if (a.verdict && a.savedBytes >= worthBytes) ranked.push_back({a, change.costRank, 1});
        }
        auto keptFits = [&ranked] {
            return std::any_of(ranked.begin(), ranked.end(),
                               [](const Ranked& r) { return r.advice.keepsTask && r.advice.verdict == Verdict::fits; });
        };
        // No single change that keeps the task fits: the smallest combinations of them that do, two knobs, then
        // three. Two changes of one knob (zero 1 and zero 3; tp and pp both halving dp) do not combine.
        std::vector<const Change*> kept;
        for (const auto& change : changes)
            if (keeps(change)) kept.push_back(&change);
        auto clash = [](const std::vector<const Change*>& set) {
            for (size_t i = 0; i < set.size(); ++i)
                for (size_t j = i + 1; j < set.size(); ++j)
                    for (const auto& [k1, v1] : set[i]->keys)
                        for (const auto& [k2, v2] : set[j]->keys)
                            if (k1 == k2) return true;
            return false;
        };
        for (size_t size = 2; size <= 3 && !keptFits(); ++size) {
            std::vector<size_t> pick(size);
            for (size_t i = 0; i < size; ++i) pick[i] = i;
            while (kept.size() >= size) {
                std::vector<const Change*> set;
                for (size_t i : pick) set.push_back(kept[i]);
                if (!clash(set)) {
                    Advice a = tryChange(c, before, set);
                    int cost = 0;
                    for (const Change* change : set) cost += change->costRank;
                    if (a.verdict == Verdict::fits) ranked.push_back({a, cost, size});
                }
                // The next combination of `size` of the kept changes, in lexicographic order.
                size_t i = size;
                while (i > 0 && pick[i - 1] == kept.size() - size + i - 1) --i;
                if (i == 0) break;
                ++pick[i - 1];
                for (size_t j = i; j < size; ++j) pick[j] = pick[j - 1] + 1;
            }
        }
        auto group = [](const Ranked& r) {
            const bool fits = r.advice.verdict == Verdict::fits;
            if (fits && r.advice.keepsTask) return 0;
            if (fits) return 1;
            return r.advice.verdict == Verdict::tight ? 2 : 3;
        };
        std::stable_sort(ranked.begin(), ranked.end(), [&](const Ranked& a, const Ranked& b) {
            if (group(a) != group(b)) return group(a) < group(b);
            if (a.knobs != b.knobs) return a.knobs < b.knobs;
            if (a.advice.stepTimeChange != b.advice.stepTimeChange) return a.advice.stepTimeChange < b.advice.stepTimeChange;
            if (a.costRank != b.costRank) return a.costRank < b.costRank;
            return a.advice.savedBytes > b.advice.savedBytes;
        });
        // The best three combinations: more of them repeat one another with a knob swapped.
        size_t combinations = 0;
        for (auto& r : ranked)
            if (r.knobs == 1 || ++combinations <= 3) out.push_back(std::move(r.advice));
        if (out.size() > 12) out.resize(12);
    } catch (...) {
        out.clear();
    }
    return out;
}

}  // namespace membudget
