// What the field table says about a field in one configuration: whether it applies, and the number its 0 stands
// for. The page's form asks these (wasm fieldStates) instead of keeping its own key sets and formulas.
#include <cmath>
#include <optional>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/layout.hpp"

namespace membudget {

namespace {

bool has(Applies set, Applies flag) { return (static_cast<unsigned>(set) & static_cast<unsigned>(flag)) != 0; }

// A finite positive number, else nothing: a derived value of inputs that are out of range says nothing.
std::optional<double> positive(double value) {
    if (std::isfinite(value) && value > 0) return value;
    return std::nullopt;
}

}  // namespace

bool fieldApplies(const FieldSpec& field, const Config& c) {
    const Applies a = field.applies;
    if (has(a, Applies::moe) && !(c.experts > 0)) return false;
    if (has(a, Applies::mla) && !(c.kvLoraRank > 0)) return false;
    if (has(a, Applies::mamba) && c.layerPattern.find('M') == std::string::npos) return false;
    if (has(a, Applies::adapters) && c.finetune == Finetune::full) return false;
    if (has(a, Applies::training) && c.mode != Mode::training) return false;
    if (has(a, Applies::inference) && c.mode != Mode::inference) return false;
    if (has(a, Applies::membudgetMethod) && c.method != Method::membudget) return false;
    return true;
}

std::string_view fieldLabel(const FieldSpec& field, const Config& c) {
    return c.mode == Mode::inference && !field.inferenceLabel.empty() ? field.inferenceLabel : field.label;
}

std::string appliesText(Applies a) {
    std::string out;
    auto add = [&out](const char* words) { out += (out.empty() ? "" : ", ") + std::string(words); };
    if (has(a, Applies::training)) add("training");
    if (has(a, Applies::inference)) add("inference");
    if (has(a, Applies::moe)) add("MoE (experts > 0)");
    if (has(a, Applies::mla)) add("MLA (kv_lora_rank > 0)");
    if (has(a, Applies::mamba)) add("Mamba blocks (M in layer_pattern)");
    if (has(a, Applies::adapters)) add("LoRA / QLoRA");
    if (has(a, Applies::membudgetMethod)) add("method membudget");
    return out;
}

std::optional<double> autoValue(const FieldSpec& field, const Config& c) {
    if (!field.zeroMeansAuto) return std::nullopt;
    const std::string_view key = field.key;
    if (key == "params") return c.hidden > 0 && c.heads > 0 && c.layers > 0 ? positive(derivedParameterCount(c)) : std::nullopt;
    if (key == "head_dim") return c.heads > 0 ? positive(c.hidden / c.heads) : std::nullopt;
    if (key == "qk_nope_dim" || key == "v_head_dim") return c.heads > 0 ? positive(headDimOf(c)) : std::nullopt;
    if (key == "moe_ffn") return positive(c.ffn);
    // The HF Trainer's "auto" (transformers integrations/deepspeed.py, trainer_config_finalize).
    if (key == "reduce_bucket_size") return positive(c.hidden * c.hidden);
    if (key == "stage3_prefetch_bucket_size") return positive(0.9 * c.hidden * c.hidden);
    if (key == "etp") return positive(c.tp);
    if (key == "gpus") return positive(worldSize(c));
    if (key == "loss_chunks") return lossChunksOf(c);
    if (key == "fp8_matmul_efficiency") return positive(c.matmulEfficiency);
    if (key == "power_limit_w") return positive(c.tdpW);
    if (key == "first_stage_layers" || key == "last_stage_layers") {
        // The engine's split (stageLayers) when PP is a stage count it can make: whole, and no more than the layers.
        const bool splits = c.pp >= 1 && c.pp <= c.layers && c.layers <= 10000 && std::floor(c.pp) == c.pp &&
                            std::floor(c.layers) == c.layers && c.firstStageLayers >= 0 && c.lastStageLayers >= 0 &&
                            c.firstStageLayers + c.lastStageLayers < c.layers;
        if (!splits) return std::nullopt;
        const std::vector<double> stages = stageLayers(c);
        return positive(key == "first_stage_layers" ? stages.front() : stages.back());
    }
    return std::nullopt;  // 0 names a mode (experts: a dense model), not a number
}

}  // namespace membudget
