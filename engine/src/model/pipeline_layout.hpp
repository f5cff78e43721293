// Megatron-LM's custom pipeline layout (--pipeline-model-parallel-layout): which layers each virtual pipeline stage
// builds, read as Megatron-LM reads it (megatron/core/transformer/pipeline_parallel_layer_layout.py,
// PipelineParallelLayerLayout.parse_str_to_list).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace membudget::detail {

// What one virtual stage builds: decoder layers (t), MTP layers (m), the embedding (E) and the loss (L).
struct LayoutChunk {
    double decoder = 0, mtp = 0, embedding = 0, loss = 0;
};

// The virtual stages in Megatron-LM's order (index v·PP + r is pipeline rank r's v-th model chunk), or the reason the
// text is not a layout. Commas are cosmetic; "(…)*n" repeats a group (not nested) and "x*n" one character, as
// Megatron-LM's regular expressions unroll them; '|' separates stages. The unrolled text is bounded
// (kMaxLayoutExpansion characters, each step's: far above any real layout, whose layers are at most 10,000), so a
// short text cannot grow without limit. The last text read is kept (per thread): evaluate() asks once a stage, and
// a pathological text is read once, not once a stage.
inline constexpr double kMaxLayoutExpansion = 100'000;
struct ParsedLayout {
    std::vector<LayoutChunk> chunks;
    char first = 0, last = 0;  // the first and the last layer in Megatron-LM's flattened order (E … L when valid)
    std::string error;         // empty when parsed
};
const ParsedLayout& parsePipelineLayout(std::string_view text);

}  // namespace membudget::detail
