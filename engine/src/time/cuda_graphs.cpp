// Which decode batches each serving engine replays as CUDA graphs (cuda_graphs.hpp).
#include "time/cuda_graphs.hpp"

#include <cmath>

#include "membudget/base/choices.hpp"

namespace membudget::detail {

// The largest decode batch each engine captures a CUDA graph for: vLLM's max_cudagraph_capture_size (512 by default,
// vllm/config/compilation.py); SGLang's cuda_graph_max_bs, set by the GPU's memory and TP
// (server_args.py ServerArgs._handle_gpu_memory_settings, read at 001067ff): under 20 GiB 8; under 35 GiB 24 (TP < 4)
// or 80; under 60 GiB 32 or 160; under 160 GiB 256 or 512; above, 512.
// TensorRT-LLM's cuda_graph_config.max_batch_size, 0 → 128 (llm_args.py validate_cuda_graph_config). cuda_graph_max_batch
// overrides each engine's own.
double cudaGraphMaxBatch(const Config& c) {
    if (c.cudaGraphMaxBatch > 0) return c.cudaGraphMaxBatch;
    if (c.framework == Framework::trtllm) return 128;
    if (c.framework != Framework::sglang) return 512;
    const double gib = c.gpuGb * 1e9 / 1073741824.0;
    const bool wide = c.tp >= 4;
    return gib < 20 ? 8 : gib < 35 ? (wide ? 80 : 24) : gib < 60 ? (wide ? 160 : 32) : gib < 160 ? (wide ? 512 : 256) : 512;
}

// Whether TensorRT-LLM replays a graph for a decode batch of `batch` requests: only decode-only batches
// (cuda_graph_runner.py: can_run_cuda_graph is `not context_requests`), of a captured size or, with
// cuda_graph_config.enable_padding, padded to the next one. Without padding it captures 1 to 31, 32, 64 and 128, the
// powers of 2 from 256 up to the largest, and the largest (llm_args.py _generate_cuda_graph_batch_sizes).
bool trtllmGraphCaptured(const Config& c, double batch) {
    const double largest = cudaGraphMaxBatch(c);
    if (batch > largest) return false;
    if (c.cudaGraphPadding || batch <= 32 || batch == largest) return true;
    const double power = std::exp2(std::round(std::log2(batch)));
    return power == batch && (batch == 64 || batch == 128 || batch >= 256);
}

}  // namespace membudget::detail
