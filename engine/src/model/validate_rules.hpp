// validate()'s groups of rules beyond the layout (validate_features.cpp), each appending its errors in the order
// validate() has always given them.
#pragma once

#include <vector>

#include "membudget/base/problem.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// Decides whether each framework behaviour is asked of a framework that has it: FSDP2's sharding, checkpointing
// policies, offloading, FP8 gathers and torch.compile.
void checkFrameworkBehaviours(const Config& config, std::vector<Problem>& errors);
// Decides whether LoRA and QLoRA adapt a base membudget models: the method, the framework, the precision, the
// targets and the rank.
void checkAdapters(const Config& config, std::vector<Problem>& errors);
// Decides whether the attention variants go together: local windows and chunks, MLA, QK norms and the indexer.
void checkAttentionVariants(const Config& config, std::vector<Problem>& errors);
// Decides whether linear attention (Gated DeltaNet) can be split over TP and is modelled in this mode.
void checkLinearAttention(const Config& config, std::vector<Problem>& errors);
// Decides whether a served request fits the model and the serving engine: lengths within seq and the context
// window, a serving framework and method.
void checkServing(const Config& config, std::vector<Problem>& errors);
// A hybrid stack (layer_pattern): one known character a layer, as many as layers, beside nothing else that changes
// what a layer is; the Mamba-2 heads split over TP as vLLM's MambaMixer2 splits them.
void checkLayerPattern(const Config& config, std::vector<Problem>& errors);

}  // namespace membudget::detail
