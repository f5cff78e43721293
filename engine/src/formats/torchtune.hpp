// torchtune (recipes/configs/*.yaml; recipes/full_finetune_*.py; docs/import.md): a recipe config or a `tune run`
// command read into membudget's keys, and a configuration written back as a `tune run` command with overrides.
// Internal: import.cpp and export.cpp dispatch here.
#pragma once

#include <optional>
#include <vector>

#include "formats/reader.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// A torchtune recipe config onto membudget's keys; `world`: the GPUs it runs on, where the command says.
void importTorchtune(Document& d, Mapping& m, std::optional<double> world);

// A `tune run [--nproc_per_node N] RECIPE --config NAME key=value …` command as a document of its overrides.
std::vector<JsonValue> torchtuneOverrides(Words& w, std::optional<double>& world);

// `c` as a `tune run` command with key=value overrides.
ExportResult exportTorchtune(const Config& c);

}  // namespace membudget::detail
