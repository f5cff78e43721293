// Properties over many configurations: sharding never adds memory, activations scale with b and s,
// and the link codec loses nothing.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"
#include "memory/tensors.hpp"

using namespace membudget;

namespace {

// Random valid configurations over every model preset and every knob, reproducible from the seed.
Config randomConfig(std::mt19937& rng) {
    auto pick = [&rng](std::initializer_list<double> values) {
        std::uniform_int_distribution<size_t> index(0, values.size() - 1);
        return *(values.begin() + index(rng));
    };
    const auto models = modelPresets();
    const auto gpus = gpuPresets();
    Config c;
    applyModelPreset(c, models[std::uniform_int_distribution<size_t>(0, models.size() - 1)(rng)]);
    applyGpuPreset(c, gpus[std::uniform_int_distribution<size_t>(0, gpus.size() - 1)(rng)]);
    c.tp = pick({1, 2, 4, 8});
    c.pp = pick({1, 2, 4, 8});
    c.dp = pick({1, 2, 8, 64, 512});
    c.cp = pick({1, 2, 4});
    c.sp = pick({0, 1}) == 1;
    c.zero = pick({0, 1, 2, 3});
    c.mb = pick({1, 2, 4});
    c.seq = pick({2048, 4096, 8192, 131072});
    c.ckpt = static_cast<Checkpointing>(pick({0, 1, 2}));
    c.actFormula = pick({0, 1}) == 1 ? ActFormula::worked : ActFormula::table;
    c.microbatches = pick({1, 2, 4, 16, 64});
    c.staticBytes = pick({16, 18, 20});
    c.headroom = pick({0, 0.1, 0.15});
    c.attention = pick({0, 1}) == 1 ? Attention::eager : Attention::flash;
    c.dropout = pick({0, 1}) == 1;
    c.method = static_cast<Method>(std::uniform_int_distribution<size_t>(0, ChoiceNames<Method>::names.size() - 1)(rng));
    return c;
}

Config randomChapterConfig(std::mt19937& rng) {
    Config c = randomConfig(rng);
    c.method = Method::chapter;
    return c;
}

void checkNoLineGrows(const Config& before, const Config& after, const char* what) {
    const Result a = evaluate(before), b = evaluate(after);
    if (!a.ok() || !b.ok()) return;  // growing a degree can make it invalid (TP beyond the heads)
    REQUIRE(a.lines.size() == b.lines.size());
    for (size_t i = 0; i < a.lines.size(); ++i) {
        INFO(what << ": line " << a.lines[i].id << " " << encodeQuery(before) << " → " << encodeQuery(after));
        CHECK(b.lines[i].bytes <= a.lines[i].bytes);
    }
    CHECK(b.totalBytes <= a.totalBytes);
}

double activationBytes(const Config& c) {
    for (const auto& line : evaluate(c).lines)
        if (toString(line.id) == "activations") return line.bytes;
    return -1;
}

}  // namespace

TEST_CASE("chapter: no line grows when TP, PP, DP or the ZeRO stage grows", "[properties]") {
    std::mt19937 rng(20261130);
    int checked = 0;
    for (int i = 0; i < 2000; ++i) {
        const Config c = randomChapterConfig(rng);
        if (!evaluate(c).ok()) continue;
        ++checked;
        Config more = c;
        more.tp *= 2;
        checkNoLineGrows(c, more, "TP × 2");
        more = c;
        more.pp *= 2;
        checkNoLineGrows(c, more, "PP × 2");
        more = c;
        more.dp *= 2;
        checkNoLineGrows(c, more, "DP × 2");
        if (c.zero < 3) {
            more = c;
            more.zero += 1;
            checkNoLineGrows(c, more, "ZeRO + 1");
        }
    }
    CHECK(checked > 1000);
}

// For the other methods PP and ZeRO are not monotone, and that is physics, not a bug: stage 0 keeps
// the inputs of min(PP, m) micro-batches in flight, and ZeRO-3 adds gathered-layer buffers that outweigh
// its sharding when DP is small. Per line, the peak stage or phase can move. TP and DP never add memory.
void checkTotalAndStaticDoNotGrow(const Config& before, const Config& after, const char* what) {
    const Result a = evaluate(before), b = evaluate(after);
    if (!a.ok() || !b.ok()) return;
    INFO(before.method << " " << what << ": " << encodeQuery(before));
    CHECK(b.totalBytes <= a.totalBytes);
    // Stage by stage (the peak stage may move): parameters and gradients. The optimizer line is left out
    // because at the optimizer-step peak it carries the step's FP32 gradient copy, which moves with the phase.
    REQUIRE(a.stages.size() == b.stages.size());
    for (size_t s = 0; s < a.stages.size(); ++s)
        for (size_t i = 0; i < 2; ++i) {
            INFO("stage " << s << " line " << a.lines[i].id);
            CHECK(b.stages[s].lineBytes[i] <= a.stages[s].lineBytes[i] * (1 + 1e-12));
        }
}

TEST_CASE("every method: neither the total nor any stage's parameters or gradients grow when TP or DP grows", "[properties]") {
    std::mt19937 rng(99);
    int checked = 0;
    for (int i = 0; i < 3000; ++i) {
        const Config c = randomConfig(rng);
        if (!evaluate(c).ok()) continue;
        ++checked;
        Config more = c;
        more.tp *= 2;
        checkTotalAndStaticDoNotGrow(c, more, "TP × 2");
        more = c;
        more.dp *= 2;
        checkTotalAndStaticDoNotGrow(c, more, "DP × 2");
    }
    CHECK(checked > 1000);
}

TEST_CASE("chapter: activations grow with the micro-batch and the sequence length", "[properties]") {
    std::mt19937 rng(7);
    for (int i = 0; i < 1000; ++i) {
        const Config c = randomChapterConfig(rng);
        if (!evaluate(c).ok()) continue;
        INFO(encodeQuery(c));
        Config bigger = c;
        bigger.mb *= 2;
        // Every term of every mode is linear in b.
        CHECK(activationBytes(bigger) == 2 * activationBytes(c));
        bigger = c;
        bigger.seq *= 2;
        CHECK(activationBytes(bigger) >= 2 * activationBytes(c));
        if (c.ckpt == Checkpointing::none) CHECK(activationBytes(bigger) > 2 * activationBytes(c));  // the s² scores
    }
}

TEST_CASE("membudget: every saved tensor is linear in b; eager attention adds s² terms", "[properties]") {
    std::mt19937 rng(11);
    for (int i = 0; i < 600; ++i) {
        Config c = randomConfig(rng);
        c.method = Method::membudget;
        c.pp = 1;
        c.vpp = 1;
        const Result a = evaluate(c);
        if (!a.ok()) continue;
        INFO(encodeQuery(c));
        Config bigger = c;
        bigger.mb *= 2;
        const Result b = evaluate(bigger);
        REQUIRE(a.tensors.size() == b.tensors.size());
        for (size_t t = 0; t < a.tensors.size(); ++t) {
            INFO(a.tensors[t].name);
            CHECK(b.tensors[t].bytes == 2 * a.tensors[t].bytes);
        }
        if (c.ckpt == Checkpointing::none && c.attention == Attention::eager) {
            Config longer = c;
            longer.seq *= 2;
            double before = 0, after = 0;
            for (const auto& t : a.tensors) before += t.bytes;
            for (const auto& t : evaluate(longer).tensors) after += t.bytes;
            CHECK(after > 2 * before);
        }
    }
}

TEST_CASE("the query codec round-trips every field", "[properties][codec]") {
    const Config defaults;
    for (const auto& field : fields()) {
        INFO(field.key);
        Config c;
        switch (field.kind) {
            case FieldKind::boolean:
                c.*std::get<bool Config::*>(field.member) ^= true;
                break;
            case FieldKind::choice: {
                const std::string value(choiceText(c, field));
                const auto choices = field.choices();
                const auto other =
                    std::find_if(choices.begin(), choices.end(), [&value](std::string_view choice) { return choice != value; });
                if (other == choices.end()) continue;  // a single choice (method, for now) has no other value
                REQUIRE(setChoiceText(c, field, *other));
                break;
            }
            case FieldKind::integer:
                c.*std::get<double Config::*>(field.member) = field.allowed.empty() ? field.max : field.allowed.back();
                break;
            case FieldKind::number:
                c.*std::get<double Config::*>(field.member) = field.min + (field.max - field.min) / 3;
                break;
            case FieldKind::text:
                c.*std::get<std::string Config::*>(field.member) = "Org/Model-7B v2 (ü & ?=#)";
                break;
        }
        if (field.key == "mode") c.method = Method::membudget;          // the only method of inference
        if (field.key == "finetune") c.method = Method::membudget;      // adapters are membudget's model
        if (field.key == "gpus") c.dp = c.gpus / (c.tp * c.pp * c.cp);  // a GPU count the layout multiplies to
        const std::string query = encodeQuery(c);
        if (field.key == "model" || field.key == "gpu") {
            // A preset id also moves the fields it fills; the rest of the record still round-trips.
            const ParsedConfig parsed = decodeQuery(query);
            CHECK(parsed.problems.empty());
            CHECK(parsed.config.*std::get<std::string Config::*>(field.member) == c.*std::get<std::string Config::*>(field.member));
            continue;
        }
        CHECK_FALSE(query.empty());
        const ParsedConfig parsed = decodeQuery(query);
        CHECK(parsed.problems.empty());
        CHECK(parsed.config == c);
        CHECK(fieldText(parsed.config, field) != fieldText(defaults, field));
    }
}

// Any value a field allows: its bounds, 0 where 0 means auto, log-uniform integers, arbitrary doubles.
void randomizeField(Config& c, const FieldSpec& field, std::mt19937& rng) {
    std::uniform_real_distribution<double> unit(0, 1);
    const double r = unit(rng);
    switch (field.kind) {
        case FieldKind::boolean:
            c.*std::get<bool Config::*>(field.member) = r < 0.5;
            return;
        case FieldKind::choice:
            setChoiceText(c, field, field.choices()[std::uniform_int_distribution<size_t>(0, field.choices().size() - 1)(rng)]);
            return;
        case FieldKind::text: {
            static const std::array<std::string, 4> names{"", "meta-llama/Llama-3.1-8B", "Qwen2MoeForCausalLM", "a & b = c ? #d"};
            c.*std::get<std::string Config::*>(field.member) = names[std::uniform_int_distribution<size_t>(0, names.size() - 1)(rng)];
            return;
        }
        case FieldKind::integer:
        case FieldKind::number:
            break;
    }
    double& value = c.*std::get<double Config::*>(field.member);
    if (!field.allowed.empty()) {
        value = field.allowed[std::uniform_int_distribution<size_t>(0, field.allowed.size() - 1)(rng)];
    } else if (r < 0.1) {
        value = field.min;
    } else if (r < 0.2) {
        value = field.max;
    } else if (r < 0.3 && field.zeroMeansAuto) {
        value = 0;
    } else if (field.kind == FieldKind::number) {
        value = field.min + unit(rng) * (field.max - field.min);
    } else {
        const double low = std::log(std::max(field.min, 1.0)), high = std::log(field.max);
        value = std::clamp(std::floor(std::exp(low + unit(rng) * (high - low))), field.min, field.max);
    }
}

TEST_CASE("the query codec round-trips 10,000 random valid configurations exactly", "[properties][codec]") {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> unit(0, 1);
    int valid = 0, attempts = 0;
    while (valid < 10000) {
        REQUIRE(++attempts < 1000000);
        // A preset's configuration with random knobs, then about one field in six set to any value it allows.
        Config c = randomConfig(rng);
        c.headroom = unit(rng) * 0.99;
        for (const auto& field : fields())
            if (unit(rng) < 0.16) randomizeField(c, field, rng);
        if (!validate(c).empty()) continue;
        ++valid;
        const std::string query = encodeQuery(c);
        const ParsedConfig parsed = decodeQuery(query);
        INFO(query);
        REQUIRE(parsed.problems.empty());
        REQUIRE(parsed.config == c);
        REQUIRE(encodeQuery(parsed.config) == query);
    }
}
