// torchtune (recipes/configs/*.yaml; recipes/full_finetune_*.py; docs/import.md): a recipe config or a `tune run`
// command read into membudget's keys, and a configuration written back as a `tune run` command with overrides.
// Internal: import.cpp and export.cpp dispatch here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// What a `tune run` command says beyond the config: the GPUs it runs on and the recipe it runs
// (full_finetune_distributed, lora_finetune_single_device, …); both absent for a YAML file alone.
struct TorchtuneLaunch {
    std::optional<double> world;
    std::string recipe;
};

// A torchtune recipe config onto membudget's keys, under the launch the command states.
void importTorchtune(Document& d, Mapping& m, const TorchtuneLaunch& launch);

// A `tune run [--nproc_per_node N] RECIPE --config NAME key=value …` command as a document of its overrides.
std::vector<JsonValue> torchtuneOverrides(Words& w, TorchtuneLaunch& launch);

// `c` as a `tune run` command with key=value overrides.
ExportResult exportTorchtune(const Config& c);

}  // namespace membudget::detail
