// Which decode batches each serving engine replays as CUDA graphs (docs/inference.md, "Serving speed" and
// "TensorRT-LLM"): the largest batch captured, and TensorRT-LLM's captured sizes.
#pragma once

#include "membudget/model/config.hpp"

namespace membudget::detail {

// The largest decode batch the engine captures a CUDA graph for.
double cudaGraphMaxBatch(const Config& c);

// Whether TensorRT-LLM replays a graph for a decode-only batch of `batch` requests (a captured size, or any size up to
// the largest with cuda_graph_padding).
bool trtllmGraphCaptured(const Config& c, double batch);

}  // namespace membudget::detail
