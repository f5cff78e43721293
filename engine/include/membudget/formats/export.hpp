// A configuration written back in a framework's own form (docs/import.md).
#pragma once

#include "membudget/base/choices.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// `config` in `format`: Megatron-LM flags (a torchrun command), a torchtitan TOML job config, a `tune run`
// command with overrides, a DeepSpeed JSON config, a `vllm serve` command, a `python -m sglang.launch_server`
// command, a config.json (hf). What the format cannot say is listed in `notExported` (key, value, why) and, where the
// format has comments, as comments.
ExportResult exportConfig(ImportFormat format, const Config& config);

}  // namespace membudget
