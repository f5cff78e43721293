// The planner: its text-free kernel against the ledger, completeness against a brute-force search,
// the Pareto set, and the advice for a configuration that does not fit.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "memory/ledgers.hpp"
#include "memory/sources/chapter.hpp"
#include "memory/sources/deepspeed.hpp"
#include "memory/sources/korthikanti.hpp"
#include "memory/sources/megatron.hpp"
#include "memory/sources/zero.hpp"
#include "memory/training.hpp"

using namespace membudget;

namespace {

double lineBytes(const Result& r, const std::string& id) {
    for (const auto& l : r.lines)
        if (toString(l.id) == id) return l.bytes;
    return -1;
}

// A valid training configuration of a random preset with random parallelism, precision and optimizer.
Config randomConfig(std::mt19937_64& rng) {
    const auto presets = modelPresets();
    auto pick = [&](auto const& values) { return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)]; };
    for (;;) {
        Config c;
        applyModelPreset(c, presets[std::uniform_int_distribution<size_t>(0, presets.size() - 1)(rng)]);
        c.method = membudget::test::choice<membudget::Method>(pick(std::array<const char*, 2>{"membudget", "chapter"}));
        c.tp = pick(std::array<double, 5>{1, 2, 4, 8, 16});
        c.pp = pick(std::array<double, 6>{1, 2, 3, 4, 8, 16});
        c.dp = pick(std::array<double, 6>{1, 2, 8, 32, 128, 1024});
        c.cp = pick(std::array<double, 3>{1, 2, 4});
        c.zero = pick(std::array<double, 4>{0, 1, 2, 3});
        c.sp = pick(std::array<bool, 2>{false, true});
        c.ckpt = membudget::test::choice<membudget::Checkpointing>(pick(std::array<const char*, 3>{"none", "selective", "full"}));
        c.mb = pick(std::array<double, 4>{1, 2, 3, 8});
        c.seq = pick(std::array<double, 4>{2048, 4096, 8192, 32768});
        c.microbatches = pick(std::array<double, 5>{1, 2, 7, 32, 256});
        c.precision = membudget::test::choice<membudget::Precision>(pick(std::array<const char*, 4>{"bf16", "fp16", "fp8", "fp32"}));
        c.optimizer = membudget::test::choice<membudget::Optimizer>(
            pick(std::array<const char*, 5>{"adamw", "adamw_8bit", "adafactor", "sgd", "muon"}));
        c.staticBytes = pick(std::array<double, 3>{16, 18, 20});
        c.attention = membudget::test::choice<membudget::Attention>(pick(std::array<const char*, 2>{"flash", "eager"}));
        c.dropout = pick(std::array<bool, 2>{false, true});
        c.offload = membudget::test::choice<membudget::Offload>(pick(std::array<const char*, 3>{"none", "none", "optimizer"}));
        c.masterWeights = pick(std::array<bool, 3>{true, true, false});
        if (c.experts != 0) c.ep = pick(std::array<double, 3>{1, 2, 8});
        if (c.pp > 2 && pick(std::array<bool, 3>{false, false, true})) c.firstStageLayers = 1;
        if (validate(c).empty()) return c;
    }
}

}  // namespace

TEST_CASE("the planner's kernel is the ledger's peak stage, line for line", "[plan]") {
    std::mt19937_64 rng(20261130);
    int membudget = 0, chapter = 0;
    for (int i = 0; i < 3000; ++i) {
        const Config c = randomConfig(rng);
        const Result r = evaluate(c);
        REQUIRE(r.ok());
        const detail::PeakBytes k =
            c.method == Method::membudget ? detail::membudgetTrainingPeak(c) : detail::chapterTrainingPeak(c, r.parameterCount);
        INFO(encodeQuery(c));
        CHECK(k.totalBytes == r.totalBytes);
        CHECK(k.stage == r.peakStage);
        CHECK(k.parameters == lineBytes(r, "parameters"));
        CHECK(k.gradients == lineBytes(r, "gradients"));
        CHECK(k.optimizer == lineBytes(r, "optimizer"));
        CHECK(k.activations == lineBytes(r, "activations"));
        (c.method == Method::membudget ? membudget : chapter) += 1;
        // The tensor sub-ledger adds up to the activations line it explains.
        if (c.method == Method::membudget && lineBytes(r, "activations") > 0) {
            double tensors = 0;
            for (const auto& t : r.tensors) tensors += t.bytes;
            CHECK(std::fabs(tensors - lineBytes(r, "activations")) <= 1e-12 * tensors);
        }
    }
    CHECK(membudget > 1000);
    CHECK(chapter > 1000);
}

TEST_CASE("a plan holds every fitting combination, each with the ledger's own total", "[plan]") {
    PlanRequest request;
    applyModelPreset(request.base, *findModelPreset("llama-3.1-8b"));
    applyGpuPreset(request.base, *findGpuPreset("a100-40gb"));
    request.base.seq = 8192;
    request.gpus = 16;
    request.globalBatch = 32;
    request.maxMicroBatch = 4;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.errors.empty());
    REQUIRE(plan.fitting > 0);
    CHECK(plan.evaluated + plan.pruned == plan.candidates);

    std::set<std::tuple<double, double, double, double, double, bool, Checkpointing, double>> planned;
    for (const auto& row : plan.rows) {
        CHECK(row.tp * row.pp * row.cp * row.dp == 16);
        CHECK(row.dp * row.mb * row.microbatches == 32);
        CHECK(row.bubble == (row.pp - 1) / (row.microbatches + row.pp - 1));
        planned.insert({row.tp, row.pp, row.cp, row.dp, row.zero, row.sp, row.ckpt, row.mb});
    }
    // Brute force through evaluate(): every valid combination that fits is a row, with the same total.
    double fitting = 0;
    for (double tp : {1, 2, 4, 8})
        for (double cp : {1, 2, 4, 8, 16})
            for (double pp : {1, 2, 4, 8, 16}) {
                if (tp * cp * pp > 16) continue;
                const double dp = 16 / (tp * cp * pp);
                for (double zero : {0, 1, 2, 3})
                    for (bool sp : {false, true})
                        for (Checkpointing ckpt : {Checkpointing::none, Checkpointing::selective, Checkpointing::full})
                            for (double mb : {1, 2, 4}) {
                                if (std::fmod(32, dp * mb) != 0 || (dp * cp == 1 && zero > 0) || (tp == 1 && sp)) continue;
                                Config c = request.base;
                                c.tp = tp, c.cp = cp, c.pp = pp, c.dp = dp, c.zero = zero, c.sp = sp, c.ckpt = ckpt, c.mb = mb;
                                c.microbatches = 32 / (dp * mb);
                                const Result r = evaluate(c);
                                if (!r.ok() || r.verdict != membudget::Verdict::fits) continue;
                                ++fitting;
                                INFO(encodeQuery(c));
                                CHECK(planned.count({tp, pp, cp, dp, zero, sp, ckpt, mb}) == 1);
                            }
            }
    CHECK(fitting == plan.fitting);
    for (const auto& row : plan.rows) CHECK(evaluate(planRowConfig(request.base, row)).totalBytes == row.peakBytes);
}

TEST_CASE("the Pareto rows are exactly the undominated ones, listed first", "[plan]") {
    PlanRequest request;
    applyModelPreset(request.base, *findModelPreset("llama-3.1-70b"));
    applyGpuPreset(request.base, *findGpuPreset("h100-80gb"));
    request.gpus = 64;
    request.globalBatch = 256;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.rows.size() > 20);
    auto costs = [](const PlanRow& r) {
        return std::array<double, 6>{
            r.recomputeOverhead, r.bubble, r.tp * r.cp, r.zero >= 3 ? 1.0 : 0.0, (r.tpCrossesNode || r.cpCrossesNode) ? 1.0 : 0.0,
            r.peakBytes};
    };
    auto dominates = [](const std::array<double, 6>& a, const std::array<double, 6>& b) {
        bool better = false;
        for (size_t i = 0; i < a.size(); ++i) {
            if (a[i] > b[i]) return false;
            better = better || a[i] < b[i];
        }
        return better;
    };
    bool seenNonPareto = false;
    int front = 0;
    for (const auto& row : plan.rows) {
        bool dominated = false;
        for (const auto& other : plan.rows) dominated = dominated || dominates(costs(other), costs(row));
        CHECK(row.pareto == !dominated);
        if (!row.pareto) seenNonPareto = true;
        CHECK_FALSE((row.pareto && seenNonPareto));  // Pareto rows come first
        front += row.pareto ? 1 : 0;
    }
    CHECK(front > 0);
}

TEST_CASE("a 405B plan on 16,384 GPUs completes and stays within its layouts", "[plan]") {
    PlanRequest request;
    applyModelPreset(request.base, *findModelPreset("llama-3.1-405b"));
    applyGpuPreset(request.base, *findGpuPreset("h100-80gb"));
    request.base.seq = 8192;
    request.gpus = 16384;
    request.globalBatch = 2048;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.errors.empty());
    CHECK(plan.fitting > 0);
    for (const auto& row : plan.rows) {
        CHECK(row.tp <= 8);  // TP stays within a node unless asked
        CHECK(row.tp * row.pp * row.cp * row.dp == 16384);
        CHECK(row.peakBytes <= std::round(std::round(request.base.gpuGb * 1e9) * (1 - request.base.headroom)));
    }
    // Slices of the layouts add up to the whole.
    request.layoutEnd = std::floor(plan.layouts / 2);
    const PlanResult head = membudget::plan(request);
    request.layoutBegin = request.layoutEnd;
    request.layoutEnd = plan.layouts;
    const PlanResult tail = membudget::plan(request);
    CHECK(head.fitting + tail.fitting == plan.fitting);
    CHECK(head.evaluated + tail.evaluated == plan.evaluated);
    // With a row cap the joined slices, marked again and cut, are the whole plan's rows (what the page does).
    for (double maxRows : {5.0, 60.0, 400.0}) {
        INFO("maxRows " << maxRows);
        request.maxRows = maxRows;
        request.layoutBegin = request.layoutEnd = 0;
        const PlanResult capped = membudget::plan(request);
        std::vector<PlanRow> joined;
        for (double begin = 0; begin < plan.layouts; begin += 7) {
            request.layoutBegin = begin;
            request.layoutEnd = std::min(begin + 7, plan.layouts);
            const PlanResult slice = membudget::plan(request);
            joined.insert(joined.end(), slice.rows.begin(), slice.rows.end());
        }
        const Recommendation recommended = finishPlanRows(joined, maxRows);
        REQUIRE(joined.size() == capped.rows.size());
        CHECK(recommended.index == capped.recommended.index);
        CHECK(recommended.reason == capped.recommended.reason);
        for (size_t i = 0; i < joined.size(); ++i) {
            CHECK(joined[i].peakBytes == capped.rows[i].peakBytes);
            CHECK(joined[i].pareto == capped.rows[i].pareto);
            CHECK(std::tie(joined[i].tp, joined[i].pp, joined[i].cp, joined[i].zero, joined[i].mb, joined[i].ckpt, joined[i].sp) ==
                  std::tie(capped.rows[i].tp, capped.rows[i].pp, capped.rows[i].cp, capped.rows[i].zero, capped.rows[i].mb,
                           capped.rows[i].ckpt, capped.rows[i].sp));
        }
        CHECK(capped.dropped == capped.fitting - static_cast<double>(capped.rows.size()));
    }
}

TEST_CASE("plan and advise round percentages alike: to the tenth, half up", "[plan]") {
    CHECK(detail::percentText(1.0 / 51) == "2.0%");
    CHECK(detail::percentText(1.0 / 3) == "33.3%");
    CHECK(detail::percentText(0.00049) == "0.0%");
    CHECK(detail::percentText(0.00051) == "0.1%");
}

TEST_CASE("bad plan requests name the field", "[plan]") {
    PlanRequest request;
    request.gpus = 0;
    request.globalBatch = 8;
    auto plan = membudget::plan(request);
    REQUIRE_FALSE(plan.errors.empty());
    CHECK(plan.errors[0].field == "gpus");
    request.gpus = 8;
    request.globalBatch = 2.5;
    plan = membudget::plan(request);
    REQUIRE_FALSE(plan.errors.empty());
    CHECK(plan.errors[0].field == "global_batch");
    request.globalBatch = 8;
    request.base.mode = Mode::inference;
    request.base.framework = Framework::vllm;
    request.base.method = Method::membudget;
    plan = membudget::plan(request);
    REQUIRE_FALSE(plan.errors.empty());
    CHECK(plan.errors[0].field == "mode");
}

TEST_CASE("advice: the smallest changes that make a configuration fit", "[plan][advice]") {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-70b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.tp = 4;
    c.pp = 1;
    c.dp = 16;
    c.zero = 1;
    c.ckpt = Checkpointing::none;
    c.mb = 2;
    c.microbatches = 8;
    const Result before = evaluate(c);
    REQUIRE(before.ok());
    REQUIRE(before.verdict == membudget::Verdict::doesNotFit);
    const auto advice = advise(c);
    REQUIRE_FALSE(advice.empty());
    CHECK(advice[0].verdict == membudget::Verdict::fits);
    for (const auto& a : advice) {
        INFO(a.change);
        CHECK(a.savedBytes > 0);
        CHECK_FALSE(a.cost.empty());
        // The advice's query, applied to the configuration, gives the total it promises.
        const AssignmentList parsed = parseQuery(a.query);
        REQUIRE(parsed.problems.empty());
        const ParsedConfig changed = applyAssignments(parsed.assignments, c);
        REQUIRE(changed.problems.empty());
        CHECK(evaluate(changed.config).totalBytes == a.totalBytes);
        CHECK(before.totalBytes - a.totalBytes == a.savedBytes);
    }
}

TEST_CASE("advice keeps the user's task first, combines changes when no single one fits, and drops trifles", "[plan][advice]") {
    auto query = [](const std::string& q) { return parseQuery(q).assignments; };
    int checked = 0, combined = 0;
    // Full training of large models on a node or two, in each framework's own layout, at two sequence lengths.
    for (const std::string model : {"llama-3.1-70b", "llama-3.1-405b", "mixtral-8x7b", "llama-3.1-8b"})
        for (const std::string layout : {"tp=8&dp=1", "tp=1&dp=8&zero=3&framework=torchtitan", "tp=1&dp=8&zero=3&framework=deepspeed",
                                         "tp=8&dp=2&zero=1", "tp=2&dp=4&zero=3&framework=torchtitan"})
            for (const std::string seq : {"4096", "16384"}) {
                const ParsedConfig p =
                    applyAssignments(query("model=" + model + "&gpu=h100-80gb&method=membudget&mb=2&seq=" + seq + "&" + layout));
                REQUIRE(p.problems.empty());
                const Result before = evaluate(p.config);
                if (!before.ok() || before.verdict == membudget::Verdict::fits) continue;
                INFO(model << " " << layout << " seq " << seq);
                const auto advice = advise(p.config);
                ++checked;
                auto group = [](const Advice& a) {
                    return a.verdict == membudget::Verdict::fits ? (a.keepsTask ? 0 : 1) : a.verdict == membudget::Verdict::tight ? 2 : 3;
                };
                bool singleKeptFits = false, comboListed = false;
                for (size_t i = 0; i < advice.size(); ++i) {
                    const Advice& a = advice[i];
                    INFO(a.change);
                    CHECK(a.savedBytes >= 0.01 * before.totalBytes);  // no trifles
                    if (i > 0) CHECK(group(advice[i - 1]) <= group(a));
                    const bool combo = a.change.find("; ") != std::string::npos;
                    if (combo) {
                        comboListed = true;
                        CHECK(a.keepsTask);
                        CHECK(a.verdict == membudget::Verdict::fits);
                    } else if (a.keepsTask && a.verdict == membudget::Verdict::fits) {
                        singleKeptFits = true;
                    }
                    // What it promises is what applying it gives.
                    const ParsedConfig changed = applyAssignments(query(a.query), p.config);
                    REQUIRE(changed.problems.empty());
                    const Result after = evaluate(changed.config);
                    CHECK(after.totalBytes == a.totalBytes);
                    CHECK(after.verdict == a.verdict);
                }
                // Combinations only when no single change that keeps the task fits.
                if (comboListed) CHECK_FALSE(singleKeptFits);
                combined += comboListed ? 1 : 0;
            }
    CHECK(checked >= 10);
    CHECK(combined >= 1);
    // The case: Llama-3.1 70B on one node of 8 H100s under FSDP2 is offered a change that keeps full training
    // (all of it offloaded) before LoRA and QLoRA, which change what is trained.
    const ParsedConfig node =
        applyAssignments(query("model=llama-3.1-70b&gpu=h100-80gb&method=membudget&tp=1&dp=8&zero=3&framework=torchtitan"));
    const auto advice = advise(node.config);
    REQUIRE_FALSE(advice.empty());
    CHECK(advice[0].keepsTask);
    CHECK(advice[0].verdict == membudget::Verdict::fits);
}

TEST_CASE("a search keeps only its best rows while it runs, and they are the rows of the full search", "[plan][hostile]") {
    // A small model on many GPUs: every configuration fits, far more rows than the buffer holds.
    PlanRequest request;
    const ParsedConfig tiny = applyAssignments(std::vector<Assignment>{{"model", "custom"},
                                                                       {"params", "0"},
                                                                       {"hidden", "720"},
                                                                       {"heads", "720"},
                                                                       {"kv_heads", "720"},
                                                                       {"layers", "360"},
                                                                       {"ffn", "64"},
                                                                       {"vocab", "64"},
                                                                       {"seq", "16"},
                                                                       {"gpu", "b200"},
                                                                       {"method", "membudget"},
                                                                       {"tp", "1"},
                                                                       {"dp", "1"}});
    REQUIRE(tiny.problems.empty());
    request.base = tiny.config;
    request.gpus = 5040;
    request.globalBatch = 5040;
    request.maxMicroBatch = 64;
    request.maxRows = 1e7;  // everything
    const PlanResult full = membudget::plan(request);
    REQUIRE(full.errors.empty());
    REQUIRE(full.fitting > 2 * 65536);  // the buffer (65,536 rows for these maxRows) is compacted twice or more
    REQUIRE(static_cast<double>(full.rows.size()) == full.fitting);
    for (double maxRows : {1.0, 37.0, 5000.0}) {
        INFO("maxRows " << maxRows);
        request.maxRows = maxRows;
        const PlanResult bounded = membudget::plan(request);
        REQUIRE(bounded.errors.empty());
        CHECK(bounded.fitting == full.fitting);
        CHECK(bounded.evaluated == full.evaluated);
        CHECK(bounded.dropped == full.fitting - maxRows);
        REQUIRE(bounded.rows.size() == static_cast<size_t>(maxRows));
        // The cut keeps the fastest row: in the last place when the whole plan lists it beyond the cut.
        REQUIRE(full.recommended.index >= 0);
        const auto fastest = static_cast<size_t>(full.recommended.index);
        const size_t last = bounded.rows.size() - 1;
        const PlanRow& expectedLast = fastest > last ? full.rows[fastest] : full.rows[last];
        CHECK(bounded.rows[last].stepSeconds == expectedLast.stepSeconds);
        CHECK(bounded.rows[last].peakBytes == expectedLast.peakBytes);
        CHECK(bounded.rows[static_cast<size_t>(bounded.recommended.index)].stepSeconds == full.rows[fastest].stepSeconds);
        for (size_t i = 0; i < last; ++i) {
            CHECK(bounded.rows[i].peakBytes == full.rows[i].peakBytes);
            CHECK(bounded.rows[i].pareto == full.rows[i].pareto);
            CHECK(std::tie(bounded.rows[i].tp, bounded.rows[i].pp, bounded.rows[i].cp, bounded.rows[i].zero, bounded.rows[i].mb,
                           bounded.rows[i].sp, bounded.rows[i].ckpt) == std::tie(full.rows[i].tp, full.rows[i].pp, full.rows[i].cp,
                                                                                 full.rows[i].zero, full.rows[i].mb, full.rows[i].sp,
                                                                                 full.rows[i].ckpt));
        }
    }
}

TEST_CASE("a search too large to answer in seconds stops, saying what to narrow", "[plan][hostile]") {
    // Issue 13's case: 55,440 heads, 10,000 layers, 2,520 experts on 720,720 GPUs, every knob wide open.
    PlanRequest request;
    const ParsedConfig huge = applyAssignments(std::vector<Assignment>{{"model", "custom"},
                                                                       {"params", "0"},
                                                                       {"hidden", "55440"},
                                                                       {"heads", "55440"},
                                                                       {"kv_heads", "55440"},
                                                                       {"layers", "10000"},
                                                                       {"ffn", "128"},
                                                                       {"vocab", "1000"},
                                                                       {"experts", "2520"},
                                                                       {"experts_per_token", "1"},
                                                                       {"moe_ffn", "16"},
                                                                       {"seq", "16"},
                                                                       {"gpu", "b200"},
                                                                       {"method", "membudget"},
                                                                       {"tp", "1"},
                                                                       {"dp", "1"}});
    REQUIRE(huge.problems.empty());
    request.base = huge.config;
    request.gpus = 720720;
    request.globalBatch = 720720;
    request.maxMicroBatch = 1024;
    request.maxCp = 1024;
    request.tpAcrossNodes = true;
    request.includeTight = true;
    PlanResult plan = membudget::plan(request);
    REQUIRE_FALSE(plan.errors.empty());
    CHECK(plan.errors[0].message.find("the search is too large") != std::string::npos);
    CHECK(plan.errors[0].message.find("narrow it") != std::string::npos);
    // With the defaults it is answered, keeping maxRows rows.
    request.maxMicroBatch = 16;
    request.maxCp = 16;
    request.tpAcrossNodes = false;
    request.includeTight = false;
    plan = membudget::plan(request);
    REQUIRE(plan.errors.empty());
    CHECK(plan.fitting > 500000);
    CHECK(plan.rows.size() == 20000);
    // Within the configuration limit, the evaluation budget stops a search, deterministically.
    request.maxEvaluations = 100000;
    plan = membudget::plan(request);
    REQUIRE_FALSE(plan.errors.empty());
    CHECK(plan.errors[0].message.find("more than 100,000 ledgers") != std::string::npos);
    CHECK(plan.rows.empty());
    // It is refused from the count, before a row is made (issue 29: it took seconds to refuse).
    CHECK(plan.errors[0].message.find("counted before the search runs") != std::string::npos);
    CHECK(plan.fitting == 0);
}

TEST_CASE("a search counted before it runs gives the rows of the one-pass search", "[plan][hostile]") {
    // Past the budget on configurations the planner counts the fitting micro-batches first (galloping, then
    // bisecting) and makes the rows from the count; within it, one pass stops at the first that does not fit.
    // Both are the same plan, whole and in slices.
    PlanRequest request;
    applyModelPreset(request.base, *findModelPreset("llama-3.1-8b"));
    request.base.method = Method::membudget;
    request.base.seq = 2048;
    request.gpus = 512;
    request.globalBatch = 4096;
    request.maxMicroBatch = 64;
    const PlanResult onePass = membudget::plan(request);
    REQUIRE(onePass.errors.empty());
    REQUIRE(onePass.evaluated < onePass.candidates - 1);  // some pruned: a budget between the two is counted
    request.maxEvaluations = onePass.candidates - 1;      // the configurations exceed it: counted first
    for (double slice : {0.0, 5.0}) {
        INFO("slice " << slice);
        PlanResult counted;
        if (slice == 0) {
            counted = membudget::plan(request);
        } else {
            std::vector<PlanRow> joined;
            for (double begin = 0; begin < onePass.layouts; begin += slice) {
                request.layoutBegin = begin;
                request.layoutEnd = std::min(onePass.layouts, begin + slice);
                PlanResult part = membudget::plan(request);
                REQUIRE(part.errors.empty());
                request.maxEvaluations -= part.evaluated;  // what the page's slices pass on
                counted.evaluated += part.evaluated;
                counted.candidates += part.candidates;
                counted.fitting += part.fitting;
                joined.insert(joined.end(), part.rows.begin(), part.rows.end());
            }
            finishPlanRows(joined, request.maxRows);
            counted.rows = joined;
            request.layoutBegin = request.layoutEnd = 0;
            request.maxEvaluations = onePass.candidates - 1;
        }
        REQUIRE(counted.errors.empty());
        CHECK(counted.evaluated == onePass.evaluated);
        CHECK(counted.candidates == onePass.candidates);
        CHECK(counted.fitting == onePass.fitting);
        REQUIRE(counted.rows.size() == onePass.rows.size());
        for (size_t i = 0; i < onePass.rows.size(); ++i) {
            const PlanRow &a = counted.rows[i], &b = onePass.rows[i];
            CHECK(std::tie(a.tp, a.pp, a.cp, a.dp, a.zero, a.sp, a.ckpt, a.mb, a.peakBytes, a.stepSeconds, a.pareto) ==
                  std::tie(b.tp, b.pp, b.cp, b.dp, b.zero, b.sp, b.ckpt, b.mb, b.peakBytes, b.stepSeconds, b.pareto));
        }
    }
    // One ledger fewer than the search needs: refused from the count.
    request.maxEvaluations = onePass.evaluated - 1;
    const PlanResult refused = membudget::plan(request);
    REQUIRE_FALSE(refused.errors.empty());
    CHECK(refused.errors[0].message.find("counted before the search runs") != std::string::npos);
    CHECK(refused.fitting == 0);
    request.maxEvaluations = onePass.evaluated;
    CHECK(membudget::plan(request).errors.empty());
}

TEST_CASE("generated hostile plans answer within the budget or are refused before a row is made", "[plan][hostile]") {
    // Valid requests a hostile user can make: tiny models where nearly everything fits, GPU counts and global
    // batches with many divisors, every knob wide open. The work is bounded by what is counted before the search
    // runs; a refusal names the limit and makes no row. (The time itself is measured by bench/ BM_PlanRefused.)
    std::mt19937 random(29);
    auto pick = [&](std::initializer_list<double> values) { return values.begin()[random() % values.size()]; };
    int answered = 0, refused = 0;
    for (int i = 0; i < 24; ++i) {
        const double heads = pick({1, 8, 64, 720});
        const ParsedConfig tiny =
            applyAssignments(std::vector<Assignment>{{"model", "custom"},
                                                     {"params", "0"},
                                                     {"heads", detail::formatNumber(heads)},
                                                     {"kv_heads", detail::formatNumber(heads)},
                                                     {"head_dim", "1"},
                                                     {"hidden", detail::formatNumber(heads * pick({1, 4}))},
                                                     {"layers", detail::formatNumber(pick({1, 60, 720, 5040}))},
                                                     {"ffn", "64"},
                                                     {"vocab", "64"},
                                                     {"experts", detail::formatNumber(pick({0, 0, 8, 720}))},
                                                     {"experts_per_token", "1"},
                                                     {"seq", detail::formatNumber(pick({1, 16, 720}))},
                                                     {"method", std::string(toString(static_cast<Method>(random() % 6)))},
                                                     {"framework", pick({0, 1}) == 0 ? "megatron" : "torchtitan"},
                                                     {"tp", "1"},
                                                     {"dp", "1"}});
        REQUIRE(tiny.problems.empty());
        PlanRequest request;
        request.base = tiny.config;
        request.base.zero = 0;  // torchtitan: 0 or 3
        request.gpus = pick({5040, 55440, 720720});
        request.globalBatch = pick({720720, 735134400});
        request.maxMicroBatch = pick({16, 1024});
        request.maxCp = pick({16, 1024});
        request.tpAcrossNodes = random() % 2 == 0;
        request.includeTight = random() % 2 == 0;
        request.maxEvaluations = 50000;
        const PlanResult plan = membudget::plan(request);
        INFO("request " << i);
        if (plan.errors.empty()) {
            ++answered;
            CHECK(plan.evaluated <= request.maxEvaluations);
            CHECK(plan.evaluated + plan.pruned == plan.candidates);
        } else {
            ++refused;
            INFO(plan.errors[0].message);
            CHECK(plan.errors[0].field == "gpus");
            CHECK(plan.errors[0].message.find("narrow it") != std::string::npos);
            CHECK(plan.rows.empty());
            CHECK(plan.fitting == 0);
        }
    }
    // The generator reaches both outcomes.
    CHECK(answered > 0);
    CHECK(refused > 0);
}

TEST_CASE("a plan counts only the layouts validation accepts", "[plan]") {
    // 2,048 GPUs and 4,096 layers: PP 2,048 would divide both, but PP goes to 1,024 at most.
    PlanRequest request;
    const ParsedConfig tiny = applyAssignments(std::vector<Assignment>{{"model", "custom"},
                                                                       {"params", "0"},
                                                                       {"hidden", "64"},
                                                                       {"heads", "8"},
                                                                       {"kv_heads", "8"},
                                                                       {"layers", "4096"},
                                                                       {"ffn", "64"},
                                                                       {"vocab", "64"},
                                                                       {"seq", "16"},
                                                                       {"method", "membudget"},
                                                                       {"tp", "1"},
                                                                       {"dp", "1"}});
    REQUIRE(tiny.problems.empty());
    request.base = tiny.config;
    request.gpus = 2048;
    request.globalBatch = 2048;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.errors.empty());
    double valid = 0;
    for (double tp : {1, 2, 4, 8})
        for (double cp = 1; cp <= 16; cp *= 2)
            for (double pp = 1; pp <= 2048; pp *= 2) {
                if (std::fmod(2048, tp * cp * pp) != 0) continue;
                Config c = request.base;
                c.tp = tp, c.cp = cp, c.pp = pp, c.dp = 2048 / (tp * cp * pp), c.microbatches = 2048 / c.dp;
                valid += validate(c).empty() ? 1 : 0;
            }
    CHECK(plan.layouts == valid);
    for (const auto& row : plan.rows) CHECK(row.pp <= 1024);
}

TEST_CASE("every published method has a kernel equal to its ledger's peak stage, line for line", "[plan]") {
    std::mt19937_64 rng(20261202);
    std::map<Method, int> checked;
    for (int i = 0; i < 3000; ++i) {
        Config c = randomConfig(rng);
        c.method = std::array{Method::korthikanti, Method::zero, Method::deepspeed, Method::megatron}[static_cast<size_t>(i % 4)];
        if (c.method == Method::megatron && c.vpp > 1) c.vpp = 1;
        if (!validate(c).empty()) continue;
        const Result r = evaluate(c);
        REQUIRE(r.ok());
        const double psi = r.parameterCount;
        const auto stages = detail::peakCandidateStages(c);
        const detail::PeakBytes k = c.method == Method::korthikanti ? detail::korthikantiTrainingPeak(c, stages)
                                    : c.method == Method::zero      ? detail::zeroTrainingPeak(c, psi, stages)
                                    : c.method == Method::deepspeed ? detail::deepspeedTrainingPeak(c, psi, stages)
                                                                    : detail::megatronTrainingPeak(c);
        INFO(encodeQuery(c));
        CHECK(k.totalBytes == r.totalBytes);
        CHECK(k.stage == r.peakStage);
        CHECK(k.parameters == lineBytes(r, "parameters"));
        CHECK(k.gradients == lineBytes(r, "gradients"));
        CHECK(k.optimizer == lineBytes(r, "optimizer"));
        CHECK(k.activations == lineBytes(r, "activations"));
        checked[c.method] += 1;
    }
    for (Method method : {Method::korthikanti, Method::zero, Method::deepspeed, Method::megatron}) CHECK(checked[method] > 500);
}

TEST_CASE("a plan row's columns are declared once: JSON keys, the fields a row sets, and its configuration", "[plan]") {
    std::set<std::string_view> keys;
    for (const PlanColumn& column : planColumns()) {
        INFO(column.key);
        CHECK(keys.insert(column.key).second);
        if (!column.setsField) continue;
        // A column that sets a field is that field, of the same kind.
        const FieldSpec* field = findField(column.key);
        REQUIRE(field != nullptr);
        const FieldKind want = column.kind == PlanColumnKind::boolean  ? FieldKind::boolean
                               : column.kind == PlanColumnKind::choice ? FieldKind::choice
                                                                       : FieldKind::integer;
        CHECK(field->kind == want);
        if (column.kind == PlanColumnKind::choice) CHECK(std::ranges::equal(column.choices, field->choices()));
    }
    PlanRequest request;
    request.base = membudget::test::configFrom({{"model", "llama-3.1-8b"}, {"vpp", 1}});
    request.gpus = 16;
    request.globalBatch = 32;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.rows.size() > 10);
    const auto json = nlohmann::json::parse(planToJson(plan, request));
    for (size_t i = 0; i < plan.rows.size(); ++i) {
        const auto& row = json["rows"][i];
        std::vector<std::string> rowKeys;
        for (const auto& [key, value] : row.items()) rowKeys.push_back(key);
        std::vector<std::string> want(keys.begin(), keys.end());
        want.push_back("query");
        std::sort(rowKeys.begin(), rowKeys.end());
        std::sort(want.begin(), want.end());
        CHECK(rowKeys == want);
        // Every column that sets a field is that field of the row's configuration, written in its query.
        const Config c = planRowConfig(request.base, plan.rows[i]);
        const ParsedConfig parsed = decodeQuery(row["query"].get<std::string>());
        CHECK(parsed.config == c);
        for (const PlanColumn& column : planColumns())
            if (column.setsField)
                CHECK(fieldText(c, *findField(column.key)) == (row[std::string(column.key)].is_string()
                                                                   ? row[std::string(column.key)].get<std::string>()
                                                                   : row[std::string(column.key)].dump()));
    }
}

TEST_CASE("which GPU: every preset plans the same job, each with its own plan's recommended row", "[plan]") {
    Config base;
    applyModelPreset(base, *findModelPreset("llama-3.1-70b"));
    base.seq = 8192;
    base.trainTokens = 15e12;
    base.gpuHourUsd = 2.5;  // one GPU type's price: dropped for the others
    PlanRequest request;
    request.base = base;
    request.gpus = 64;
    request.globalBatch = 256;
    const std::vector<GpuPlan> plans = planEachGpu(request);
    REQUIRE(plans.size() == gpuPresets().size());
    bool someFit = false, someDoNot = false;
    for (size_t i = 0; i < plans.size(); ++i) {
        const GpuPreset& preset = gpuPresets()[i];
        const GpuPlan& gpu = plans[i];
        INFO(preset.id);
        CHECK(gpu.gpu == preset.id);
        CHECK(gpu.capacityBytes == preset.capacityBytes);
        // The same job on this GPU alone: the same counts and the same recommended row.
        PlanRequest alone = request;
        applyGpuPreset(alone.base, preset);
        alone.base.gpuHourUsd = 0;
        const PlanResult whole = plan(alone);
        CHECK(gpu.plan.fitting == whole.fitting);
        CHECK(gpu.plan.evaluated == whole.evaluated);
        if (whole.recommended.index < 0) {
            CHECK(gpu.plan.rows.empty());
            CHECK(gpu.plan.recommended.index == -1);
            someDoNot = true;
            continue;
        }
        someFit = true;
        REQUIRE(gpu.plan.rows.size() == 1);
        const PlanRow& mine = gpu.plan.rows.front();
        const PlanRow& theirs = whole.rows[static_cast<size_t>(whole.recommended.index)];
        CHECK(encodeQuery(planRowConfig(alone.base, mine)) == encodeQuery(planRowConfig(alone.base, theirs)));
        CHECK(mine.stepSeconds == theirs.stepSeconds);
        CHECK(gpu.plan.recommended.reason == whole.recommended.reason);
        CHECK(mine.runDays > 0);
        CHECK(mine.runCostUsd == 0);
    }
    CHECK(someFit);
    CHECK(someDoNot);  // the RTX 4090's 24 GB holds no layout of a 70B model on 64 GPUs
    const auto json = nlohmann::json::parse(gpuPlansToJson(plans, request));
    REQUIRE(json["which_gpu"].size() == plans.size());
    for (size_t i = 0; i < plans.size(); ++i) CHECK(json["which_gpu"][i]["recommended"].is_null() == (plans[i].plan.recommended.index < 0));
}
