// Warnings and labels that must not say something false: each is checked where it holds and where it must
// not appear.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"

using namespace membudget;

namespace {

bool warns(const Result& r, const std::string& field, const std::string& text) {
    return std::any_of(r.warnings.begin(), r.warnings.end(),
                       [&](const Problem& p) { return p.field == field && p.message.find(text) != std::string::npos; });
}

Config preset(std::string_view id) {
    Config c;
    applyModelPreset(c, *findModelPreset(id));
    c.method = Method::membudget;
    return c;
}

}  // namespace

TEST_CASE("the ZeRO warning: nothing sharded only when DP × CP is 1", "[warnings]") {
    Config c = preset("llama-3.1-70b");
    c.zero = 3;
    c.dp = 1;
    c.cp = 8;
    c.tp = 8;
    Result r = evaluate(c);
    REQUIRE(r.ok());
    CHECK_FALSE(warns(r, "zero", "nothing is sharded"));
    // And the ledger does shard over the 8 CP ranks: the optimizer is an eighth of ZeRO-0's.
    Config unsharded = c;
    unsharded.zero = 0;
    double sharded = 0, whole = 0;
    for (const auto& l : r.lines) sharded += toString(l.id) == "optimizer" ? l.bytes : 0;
    for (const auto& l : evaluate(unsharded).lines) whole += toString(l.id) == "optimizer" ? l.bytes : 0;
    CHECK(sharded == Approx(whole / 8).epsilon(1e-6));
    c.cp = 1;
    CHECK(warns(evaluate(c), "zero", "nothing is sharded"));
}

TEST_CASE("the PP remainder warning only where the split is a remainder", "[warnings]") {
    Config c = preset("llama-3.1-8b");  // 32 layers
    c.pp = 3;
    CHECK(warns(evaluate(c), "pp", "not divisible by pp"));
    c.firstStageLayers = 10;  // 10 + 11 + 11
    const Result r = evaluate(c);
    REQUIRE(r.ok());
    CHECK_FALSE(warns(r, "pp", "not divisible"));
    c.firstStageLayers = 0;
    c.lastStageLayers = 8;
    CHECK_FALSE(warns(evaluate(c), "pp", "not divisible"));
}

TEST_CASE("the tensor list names the precision's type and sizes FP32 activations at 4 bytes", "[warnings][tensors]") {
    Config c = preset("llama-3.1-8b");
    c.ckpt = Checkpointing::none;
    c.tp = 1;
    for (const std::string precision : {"bf16", "fp16", "fp32"}) {
        c.precision = membudget::test::choice<membudget::Precision>(precision);
        const Result r = evaluate(c);
        REQUIRE(r.ok());
        for (const auto& t : r.tensors) {
            INFO(precision << " " << t.name << " " << t.dtype);
            // Activations at the training precision; statistics, ids and masks at their own types.
            CHECK((t.dtype == precision || t.dtype == "fp32" || t.dtype == "int64" || t.dtype == "uint8" || t.dtype == "mixed" ||
                   t.dtype == precision + " + fp32"));
            if (precision != "bf16") CHECK(t.dtype.find("bf16") == std::string::npos);
        }
    }
    // An FP32 run keeps every activation tensor at twice BF16's bytes.
    c.precision = Precision::bf16;
    const Result bf16 = evaluate(c);
    c.precision = Precision::fp32;
    c.masterWeights = false;
    const Result fp32 = evaluate(c);
    REQUIRE(bf16.tensors.size() == fp32.tensors.size());
    for (size_t i = 0; i < bf16.tensors.size(); ++i) {
        INFO(bf16.tensors[i].name);
        if (bf16.tensors[i].dtype == "bf16")
            CHECK(fp32.tensors[i].bytes == 2 * bf16.tensors[i].bytes);
        else if (bf16.tensors[i].dtype != "mixed" && bf16.tensors[i].dtype != "bf16 + fp32")
            CHECK(fp32.tensors[i].bytes == bf16.tensors[i].bytes);
    }
}

TEST_CASE("the tensor list says RoPE only for rotary models", "[warnings][tensors]") {
    Config rotary = preset("llama-3.1-8b");
    rotary.ckpt = Checkpointing::none;
    Config learned = preset("gpt-3-175b");  // learned absolute positions
    learned.ckpt = Checkpointing::none;
    learned.tp = 8;
    auto mentionsRope = [](const Result& r) {
        return std::any_of(r.tensors.begin(), r.tensors.end(), [](const Tensor& t) { return t.name.find("RoPE") != std::string::npos; });
    };
    CHECK(mentionsRope(evaluate(rotary)));
    CHECK_FALSE(mentionsRope(evaluate(learned)));
}

TEST_CASE("the optimizer note names the ZeRO stage it shards by", "[warnings]") {
    Config c = preset("llama-3.1-70b");
    for (double zero : {1, 2, 3}) {
        c.zero = zero;
        const Result r = evaluate(c);
        const auto optimizer = std::find_if(r.lines.begin(), r.lines.end(), [](const Line& l) { return toString(l.id) == "optimizer"; });
        REQUIRE(optimizer != r.lines.end());
        INFO(optimizer->note);
        CHECK(optimizer->note.find(zero == 1 ? "ZeRO-1" : "ZeRO-" + std::to_string(static_cast<int>(zero))) != std::string::npos);
        if (zero > 1) CHECK(optimizer->note.find("ZeRO-1") == std::string::npos);
    }
}

TEST_CASE("the pipeline-bubble warning states the step time's bubble", "[warnings]") {
    Config c = preset("llama-3.1-70b");
    c.tp = 8;
    c.pp = 4;
    c.dp = 1;
    c.microbatches = 2;
    Result r = evaluate(c);
    REQUIRE(r.ok());
    // (PP − 1) / (m + PP − 1) = 3 / 5, one formula (membudget/model/layout.hpp) for the warning and the step time
    CHECK(warns(r, "microbatches", "(PP − 1) / (m + PP − 1) is 60%"));
    CHECK(r.stepTime.bubbleFraction == Approx(0.6));
    // Interleaving needs m to be a multiple of PP, so the warning cannot arise there; the bubble divides by v.
    c.microbatches = 4;
    c.vpp = 2;
    r = evaluate(c);
    REQUIRE(r.ok());
    CHECK_FALSE(warns(r, "microbatches", "bubble"));
    CHECK(r.stepTime.bubbleFraction == Approx(3.0 / 11));
}
