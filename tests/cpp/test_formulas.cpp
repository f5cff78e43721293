// The ledger's promise, line by line: the formula with this configuration's numbers (`substituted`) is an
// arithmetic expression that evaluates to the value beside it, for every line (GPU and CPU) of every method,
// every preset, both modes and thousands of random configurations; membudget's own lines are whole bytes.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "expression.hpp"
#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;
using membudget::test::evaluateExpression;

namespace {

struct Tally {
    int lines = 0, results = 0;
};

void checkLines(const Config& c, const std::vector<Line>& lines, Tally& tally) {
    for (const auto& line : lines) {
        INFO(encodeQuery(c) << "\nline " << line.id << ": " << line.substituted << " = " << line.bytes);
        const auto evaluated = evaluateExpression(line.substituted);
        INFO(evaluated.error);
        CHECK(evaluated.value.has_value());
        if (!evaluated.value) {
            ++tally.lines;
            continue;
        }
        const double want = line.bytes, got = *evaluated.value;
        CHECK(std::fabs(got - want) <= 1e-3 * std::fabs(want) + 1e-9);
        // Only the published sources may compute fractions of a byte; membudget's lines are whole bytes.
        if (line.origin == membudget::Method::membudget || c.method == Method::membudget) CHECK(std::floor(want) == want);
        ++tally.lines;
    }
}

void checkResult(const Config& c, Tally& tally) {
    const Result r = evaluate(c);
    INFO(encodeQuery(c));
    REQUIRE(r.ok());
    checkLines(c, r.lines, tally);
    checkLines(c, r.cpuLines, tally);
    ++tally.results;
}

Config randomConfig(std::mt19937_64& rng) {
    const auto presets = modelPresets();
    auto pick = [&](auto const& values) { return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)]; };
    for (;;) {
        Config c;
        applyModelPreset(c, presets[std::uniform_int_distribution<size_t>(0, presets.size() - 1)(rng)]);
        if (pick(std::array<bool, 2>{false, true})) c.params = 0;
        c.mode =
            membudget::test::choice<membudget::Mode>(pick(std::array<const char*, 4>{"training", "training", "training", "inference"}));
        c.method = c.mode == Mode::inference ? Method::membudget
                                             : membudget::test::choice<Method>(pick(std::array<const char*, 7>{
                                                   "membudget", "membudget", "chapter", "korthikanti", "megatron", "zero", "deepspeed"}));
        c.tp = pick(std::array<double, 5>{1, 2, 4, 8, 16});
        c.pp = pick(std::array<double, 6>{1, 2, 3, 4, 8, 16});
        c.dp = pick(std::array<double, 6>{1, 2, 8, 32, 128, 1024});
        c.cp = pick(std::array<double, 3>{1, 2, 4});
        c.vpp = pick(std::array<double, 4>{1, 1, 1, 2});
        c.zero = pick(std::array<double, 4>{0, 1, 2, 3});
        c.sp = pick(std::array<bool, 2>{false, true});
        c.ckpt = membudget::test::choice<membudget::Checkpointing>(pick(std::array<const char*, 3>{"none", "selective", "full"}));
        c.mb = pick(std::array<double, 4>{1, 2, 3, 8});
        c.seq = pick(std::array<double, 5>{2048, 4096, 8192, 32768, 1000});
        c.microbatches = pick(std::array<double, 5>{1, 2, 8, 32, 256});
        c.precision = membudget::test::choice<membudget::Precision>(pick(std::array<const char*, 4>{"bf16", "fp16", "fp8", "fp32"}));
        c.optimizer = membudget::test::choice<membudget::Optimizer>(
            pick(std::array<const char*, 5>{"adamw", "adamw_8bit", "adafactor", "sgd", "muon"}));
        c.staticBytes = pick(std::array<double, 3>{16, 18, 20});
        c.actFormula = membudget::test::choice<membudget::ActFormula>(pick(std::array<const char*, 2>{"table", "worked"}));
        c.attention = membudget::test::choice<membudget::Attention>(pick(std::array<const char*, 2>{"flash", "eager"}));
        c.dropout = pick(std::array<bool, 2>{false, true});
        c.offload = membudget::test::choice<membudget::Offload>(pick(std::array<const char*, 4>{"none", "none", "optimizer", "all"}));
        c.masterWeights = pick(std::array<bool, 3>{true, true, false});
        c.weightDtype =
            membudget::test::choice<membudget::WeightDtype>(pick(std::array<const char*, 5>{"bf16", "fp16", "fp8", "int8", "int4"}));
        c.kvDtype = membudget::test::choice<membudget::KvDtype>(pick(std::array<const char*, 3>{"bf16", "fp16", "fp8"}));
        c.workspaceTokens = pick(std::array<double, 3>{512, 8192, 65536});
        c.cudaGraphsGb = pick(std::array<double, 2>{0, 1.5});
        if (c.experts != 0) {
            c.ep = pick(std::array<double, 3>{1, 2, 8});
            c.etp = pick(std::array<double, 3>{0, 0, 1});
        }
        if (c.pp > 2 && pick(std::array<bool, 3>{false, false, true})) c.firstStageLayers = 1;
        if (validate(c).empty()) return c;
    }
}

}  // namespace

TEST_CASE("every substituted formula evaluates to its value: presets × methods × modes × layouts", "[formulas]") {
    Tally tally;
    const auto methods = findField("method")->choices();
    for (const auto& preset : modelPresets())
        for (const std::string mode : {"training", "inference"})
            for (const auto& method : methods)
                for (const auto& [tp, pp, dp, zero] :
                     std::array<std::array<double, 4>, 5>{{{1, 1, 1, 0}, {8, 1, 32, 1}, {8, 4, 8, 3}, {2, 2, 4, 2}, {4, 3, 16, 3}}}) {
                    if (mode == "inference" && method != "membudget") continue;
                    Config c;
                    applyModelPreset(c, preset);
                    c.mode = membudget::test::choice<membudget::Mode>(mode);
                    if (c.mode == membudget::Mode::inference) c.framework = membudget::Framework::vllm;
                    c.method = membudget::test::choice<membudget::Method>(method);
                    c.tp = tp, c.pp = pp, c.dp = dp, c.zero = zero;
                    if (c.experts != 0) c.ep = 2;
                    if (!validate(c).empty()) continue;
                    checkResult(c, tally);
                }
    CHECK(tally.results > 300);
    WARN("presets × methods × modes × layouts: " << tally.lines << " lines of " << tally.results << " ledgers evaluated");
}

TEST_CASE("every substituted formula evaluates to its value: 3,000 random configurations", "[formulas]") {
    std::mt19937_64 rng(20261201);
    Tally tally;
    for (int i = 0; i < 3000; ++i) checkResult(randomConfig(rng), tally);
    CHECK(tally.results == 3000);
    WARN("random configurations: " << tally.lines << " lines of " << tally.results << " ledgers evaluated");
}

TEST_CASE("the expression evaluator reads the column's grammar and nothing else", "[formulas]") {
    CHECK(*evaluateExpression("80 × 71,804,108.8 + 315,621,376").value == Approx(80 * 71804108.8 + 315621376));
    CHECK(*evaluateExpression("2 × 10⁹").value == 2e9);
    CHECK(*evaluateExpression("⌈7 / 2⌉ + ⌊7 / 2⌋ − min(1, 2, 3) + max(4, 5)").value == 4 + 3 - 1 + 5);
    CHECK(*evaluateExpression("(80 / 1) × min(1, 32) × 2 B").value == 160);
    CHECK(*evaluateExpression("12 / (2 × 3)").value == 2);
    CHECK_FALSE(evaluateExpression("80 layer-copies (40 layers)").value);
    CHECK_FALSE(evaluateExpression("compute_activation_memory_without_sp").value);
    CHECK_FALSE(evaluateExpression("P = 4,409,606,656, G = 4").value);
    CHECK_FALSE(evaluateExpression("4,096 tokens per forward pass").value);
}
