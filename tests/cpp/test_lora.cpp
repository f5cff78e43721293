// LoRA and QLoRA (issue 18; docs/frameworks.md "Fine-tuning"): adapter counts against PEFT's published trainable
// parameters, a frozen base without gradients or optimizer states, NF4 storage, what frozen linears no longer
// save, formulas that evaluate to their values, and refusals naming the field.
#include <catch2/catch.hpp>

#include "expression.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "model/lora.hpp"
#include "model/rank.hpp"

using namespace membudget;

namespace {

Config lora(std::string model, Finetune mode, std::string targets, double rank) {
    Config c;
    applyModelPreset(c, *findModelPreset(model));
    c.model = model;
    c.method = Method::membudget;
    c.framework = Framework::torchtune;
    c.zero = 0;
    c.tp = 1;
    c.dp = 1;
    c.mb = 2;
    c.seq = 4096;
    c.microbatches = 1;
    c.masterWeights = false;
    c.finetune = mode;
    c.loraTargets = std::move(targets);
    c.loraRank = rank;
    return c;
}

double line(const Result& r, LineId id) {
    for (const auto& l : r.lines)
        if (l.id == id) return l.bytes;
    FAIL("no line");
    return 0;
}

double adapterParams(const Config& c) {
    const detail::Dims x = detail::dimsOf(c);
    return c.layers * detail::loraShape(c, x).denseLayer;
}

}  // namespace

TEST_CASE("LoRA adapters: r × (in + out) per adapted matrix, as PEFT counts them", "[lora]") {
    // PEFT prints "trainable params: 41,943,040" for Llama-3-8B with r = 16 on every linear of the blocks, and
    // 3,407,872 for r = 8 on q_proj and v_proj.
    CHECK(adapterParams(lora("llama-3.1-8b", Finetune::lora, "all_linear", 16)) == 41943040);
    CHECK(adapterParams(lora("llama-3.1-8b", Finetune::lora, "q,v", 8)) == 3407872);
    CHECK(adapterParams(lora("llama-3.1-8b", Finetune::lora, "attention,mlp", 16)) == 41943040);
    // Split by TP as their base matrices are.
    Config tp = lora("llama-3.1-8b", Finetune::lora, "all_linear", 16);
    tp.tp = 4;
    CHECK(adapterParams(tp) == 41943040 / 4.0);
}

TEST_CASE("LoRA: the base frozen in BF16, gradients and optimizer states over the adapters only", "[lora]") {
    Config c = lora("llama-3.1-8b", Finetune::lora, "q,v", 8);
    c.microbatches = 2;  // accumulation: the gradients are held through the peak (one backward frees none yet)
    const Result r = evaluate(c);
    REQUIRE(r.ok());
    CHECK(line(r, LineId::parameters) == 2 * 8030261248.0 + 2 * 3407872.0);
    CHECK(line(r, LineId::gradients) == 2 * 3407872.0);      // BF16 adapters (torchtune)
    CHECK(line(r, LineId::optimizer) == 2 * 2 * 3407872.0);  // AdamW m and v like the adapters: zeros_like
    // PEFT keeps FP32 adapters.
    Config peft = c;
    peft.framework = Framework::hfAccelerate;
    const Result p = evaluate(peft);
    REQUIRE(p.ok());
    CHECK(line(p, LineId::gradients) == 4 * 3407872.0);
    CHECK(line(p, LineId::optimizer) == 8 * 3407872.0);
    // Full fine-tuning of the same model keeps gradients and states for every parameter.
    Config full = c;
    full.finetune = Finetune::full;
    CHECK(line(evaluate(full), LineId::optimizer) > 1000 * line(r, LineId::optimizer));
}

TEST_CASE("QLoRA: the blocks' linear weights in NF4 with double-quantised constants, one matrix dequantised", "[lora]") {
    CHECK(detail::kNf4BytesPerParam == 0.515869140625);  // (4 + 8/64 + 32/(64·256)) bits / 8
    const Config c = lora("llama-3.1-70b", Finetune::qlora, "q,v", 8);
    const Result r = evaluate(c);
    REQUIRE(r.ok());
    const double linear = 80 * (2.0 * 8192 * 8192 + 2.0 * 8192 * 1024 + 3.0 * 8192 * 28672);
    const double rest = 70553706496.0 - linear;
    const double adapters = 80 * 8 * ((8192.0 + 8192) + (8192.0 + 1024));
    const double largest = 8192.0 * 28672;
    CHECK(line(r, LineId::parameters) == Approx(std::ceil(0.515869140625 * linear + 2 * rest + 2 * adapters + 2 * largest)).margin(1));
    CHECK(line(r, LineId::parameters) < 45e9);  // "QLoRA fits 70B on one 80 GB GPU"
}

TEST_CASE("LoRA activations: frozen linears save no input; adapters save their r-wide intermediate", "[lora]") {
    Config full = lora("llama-3.1-8b", Finetune::lora, "q,v", 8);
    full.finetune = Finetune::full;
    full.ckpt = Checkpointing::none;
    Config adapted = full;
    adapted.finetune = Finetune::lora;
    const double b = 2, s = 4096, h = 4096, f = 14336;
    // q,v adapted: the norm output stays (q and v read it); the SwiGLU product (down's input) and the MLP norm
    // output (gate/up's input) are no longer saved; two r-wide intermediates are.
    const double perLayer = 2 * b * s * h + 2 * b * s * f - 2 * 2 * b * s * 8;
    const double difference = line(evaluate(full), LineId::activations) - line(evaluate(adapted), LineId::activations);
    CHECK(difference == Approx(32 * perLayer).epsilon(1e-9));
    // With dropout each adapted matrix saves a mask and its dropped input instead of the shared one.
    Config dropout = adapted;
    dropout.loraDropout = true;
    CHECK(line(evaluate(dropout), LineId::activations) > line(evaluate(adapted), LineId::activations));
}

TEST_CASE("LoRA lines: every substituted formula evaluates to its value", "[lora][formulas]") {
    for (const Finetune mode : {Finetune::lora, Finetune::qlora})
        for (const double zero : {0.0, 3.0})
            for (const char* targets : {"q,v", "all_linear", "mlp,output"}) {
                Config c = lora("llama-3.1-70b", mode, targets, 16);
                c.zero = zero;
                c.dp = zero == 3 ? 8 : 1;
                const Result r = evaluate(c);
                REQUIRE(r.ok());
                for (const auto& l : r.lines) {
                    INFO(l.label << ": " << l.substituted);
                    const auto value = test::evaluateExpression(l.substituted).value;
                    REQUIRE(value.has_value());
                    CHECK(*value == Approx(l.bytes).epsilon(1e-3).margin(1));
                }
            }
}

TEST_CASE("LoRA: bad input names the field", "[lora][bad]") {
    auto field = [](Config c) {
        const auto errors = validate(c);
        return errors.empty() ? std::string() : errors.front().field;
    };
    Config c = lora("llama-3.1-8b", Finetune::lora, "q,v", 8);
    CHECK(field(c).empty());
    c.loraRank = 5000;
    CHECK(field(c) == "lora_rank");
    c.loraRank = 8;
    c.loraTargets = "q,x";
    CHECK(field(c) == "lora_targets");
    c.loraTargets = "q,v";
    c.finetune = Finetune::qlora;
    c.precision = Precision::fp32;
    CHECK(field(c) == "finetune");
    Config gpt = lora("gpt-3-175b", Finetune::lora, "gate", 8);
    CHECK(field(gpt) == "lora_targets");
    Config chapter = lora("llama-3.1-8b", Finetune::lora, "q,v", 8);
    chapter.method = Method::chapter;
    CHECK(field(chapter) == "finetune");
}
