// Every number of the chapter, from tests/fixtures/chapter.json.
#include <catch2/catch.hpp>
#include <cmath>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/memory/chapter.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "memory/sources/published.hpp"

using namespace membudget;
using membudget::test::configFrom;
using membudget::test::fixture;

namespace {

const Line& lineOf(const Result& result, const std::string& id) {
    for (const auto& line : result.lines)
        if (toString(line.id) == id) return line;
    FAIL("no ledger line " << id);
    throw;  // unreachable: FAIL throws
}

double totalOf(const Result& result) {
    double sum = 0;
    for (const auto& line : result.lines) sum += line.bytes;
    return sum;
}

void checkExpectation(const nlohmann::json& example) {
    INFO(example["name"].get<std::string>() << " (" << example["section"].get<std::string>() << ")");
    const Result result = evaluate(configFrom(example["config"]));
    REQUIRE(result.ok());
    const auto& expect = example["expect"];
    if (expect.contains("lines"))
        for (const auto& [id, bytes] : expect["lines"].items()) {
            INFO("line " << id);
            CHECK(lineOf(result, id).bytes == bytes.get<double>());
        }
    if (expect.contains("total_bytes")) CHECK(result.totalBytes == expect["total_bytes"].get<double>());
    if (expect.contains("verdict")) CHECK(toString(result.verdict) == expect["verdict"].get<std::string>());
    if (expect.contains("warning_fields"))
        for (const auto& field : expect["warning_fields"]) {
            const auto match = std::find_if(result.warnings.begin(), result.warnings.end(), [&](const Problem& w) {
                return w.field == field.get<std::string>() &&
                       w.message.find(expect["warning_contains"].get<std::string>()) != std::string::npos;
            });
            CHECK(match != result.warnings.end());
        }
    CHECK(result.totalBytes == totalOf(result));
}

}  // namespace

TEST_CASE("static memory tables: 16Ψ, 18Ψ and 20Ψ (§1, self-check 13B)", "[chapter]") {
    for (const auto& table : fixture("chapter")["static_tables"]) {
        INFO(table["name"].get<std::string>());
        const double psi = table["params"].get<double>();
        const auto perParam = staticBytesPerParam(table["static_bytes"].get<double>());
        const auto& expect = table["expect_bytes"];
        CHECK(perParam.parameters * psi == expect["parameters"].get<double>());
        CHECK(perParam.gradients * psi == expect["gradients"].get<double>());
        CHECK(perParam.master * psi == expect["master"].get<double>());
        CHECK(perParam.adamM * psi == expect["adam_m"].get<double>());
        CHECK(perParam.adamV * psi == expect["adam_v"].get<double>());
        CHECK(perParam.total() * psi == expect["total"].get<double>());
        CHECK(perParam.total() == table["static_bytes"].get<double>());
        if (table.contains("chapter_prints_gb")) CHECK(perParam.total() * psi / 1e9 == table["chapter_prints_gb"]["total"].get<double>());

        // The same numbers through the ledger with no sharding at all.
        Config config;
        config.params = psi;
        config.staticBytes = table["static_bytes"].get<double>();
        config.tp = config.pp = config.dp = 1;
        config.zero = 0;
        const Result result = evaluate(config);
        REQUIRE(result.ok());
        CHECK(lineOf(result, "parameters").bytes + lineOf(result, "gradients").bytes + lineOf(result, "optimizer").bytes ==
              expect["total"].get<double>());
    }
}

TEST_CASE("optimizer states are 12 of the 16 bytes per parameter (self-check)", "[chapter]") {
    const auto perParam = staticBytesPerParam(16);
    CHECK(perParam.master + perParam.adamM + perParam.adamV == 12);
    CHECK(perParam.total() == 16);
}

TEST_CASE("per-layer activations: the worked example and the table (§2)", "[chapter]") {
    for (const auto& example : fixture("chapter")["activations_per_layer"]) {
        INFO(example["name"].get<std::string>());
        const double b = example["b"], s = example["s"], h = example["h"], a = example["a"], ffn = example["ffn"];
        const std::string formula = example["formula"];
        const double expected = example["expect_bytes"];
        if (formula == "(14h + 6·d_ff)·b·s")
            CHECK(workedActivationBytesPerLayer(b, s, h, 0, ffn) == expected);
        else if (formula == "3·a·s²·b")
            CHECK(workedActivationBytesPerLayer(b, s, 0, a, 0) == expected);
        else if (formula == "22bsh + 2bas²")
            CHECK(tableActivationBytesPerLayer(b, s, h, a, ffn) == expected);
        else
            FAIL("unknown formula " << formula);
        if (example.contains("chapter_prints_gb")) CHECK(std::round(expected / 1e8) / 10 == example["chapter_prints_gb"].get<double>());
    }
}

TEST_CASE("the worked checklists and examples (§2, §4)", "[chapter]") {
    for (const auto& example : fixture("chapter")["checklists"]) checkExpectation(example);
}

TEST_CASE("the checklist's printed totals: where the chapter slips", "[chapter]") {
    const auto& checklists = fixture("chapter")["checklists"];
    // 70B: the chapter prints 42.6 GB; its components sum to 41.95 GB.
    const Result r70 = evaluate(configFrom(checklists[0]["config"]));
    CHECK(std::round(r70.totalBytes / 1e7) / 100 == 41.95);
    CHECK(checklists[0]["chapter_prints_gb"]["total"].get<double>() == 42.6);
    // 405B: 74.7 GB and tight (over 72 GB, the 10% headroom line, under 80 GB).
    const Result r405 = evaluate(configFrom(checklists[1]["config"]));
    CHECK(std::round(r405.totalBytes / 1e8) / 10 == 74.7);
    CHECK(r405.usableBytes == 72e9);
    CHECK(r405.verdict == membudget::Verdict::tight);
}

TEST_CASE("full checkpointing: 357 GB → 5.4 GB, a 66× reduction (§2)", "[chapter]") {
    const auto& reduction = fixture("chapter")["checkpointing_reduction"];
    const auto& checklists = fixture("chapter")["checklists"];
    const Result none = evaluate(configFrom(checklists[3]["config"]));
    const Result full = evaluate(configFrom(checklists[4]["config"]));
    const double ratio = lineOf(none, "activations").bytes / lineOf(full, "activations").bytes;
    CHECK(ratio == reduction["expect_ratio"].get<double>());
    CHECK(std::round(ratio) == reduction["chapter_prints"].get<double>());
    CHECK(std::round(lineOf(full, "activations").bytes / 1e8) / 10 == 5.4);
}

TEST_CASE("the pitfalls table (§5)", "[chapter][pitfalls]") {
    for (const auto& example : fixture("chapter")["pitfalls"]) checkExpectation(example);
}

TEST_CASE("pitfall: forgetting optimizer states turns 'plenty of room' into does-not-fit", "[pitfalls]") {
    Config config;
    config.zero = 0;
    const Result result = evaluate(config);
    // Parameters alone would be 17.5 GB, the story's "plenty of room".
    CHECK(lineOf(result, "parameters").bytes == 17.5e9);
    CHECK(lineOf(result, "parameters").bytes < result.usableBytes);
    CHECK(result.verdict == membudget::Verdict::doesNotFit);
}

TEST_CASE("pitfall: fragmentation headroom moves the verdict between fits and tight", "[pitfalls]") {
    const auto& example = fixture("chapter")["checklists"][1];
    Config config = configFrom(example["config"]);
    config.headroom = 0.15;  // the chapter's upper suggestion
    CHECK(evaluate(config).verdict == membudget::Verdict::tight);
    config.headroom = 0.0;
    CHECK(evaluate(config).verdict == membudget::Verdict::fits);
    config.gpuGb = 70;
    CHECK(evaluate(config).verdict == membudget::Verdict::doesNotFit);
}
