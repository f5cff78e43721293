// The format a configuration is launched with, which the page's "Copy as" offers first. Apart from export.hpp so
// that the page's module, which writes no format itself, does not link the exporters (3.6 KB gzipped).
#pragma once

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// The serving engine's command for inference (`vllm serve`, or `python -m sglang.launch_server` for sglang), else
// the framework's own (HF accelerate launches through DeepSpeed's JSON when it shards, the format membudget writes
// for it).
ImportFormat launchFormat(const Config& config);

}  // namespace membudget
