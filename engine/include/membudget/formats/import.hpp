// Configurations users already have (a Megatron-LM launch script, a torchtitan TOML, a torchtune YAML or
// `tune run` command, a DeepSpeed JSON, a Hugging Face config.json, a `vllm serve` or SGLang launch command) read into
// membudget's keys, and a configuration written back in each framework's own form (docs/import.md).
//
// The engine parses nothing here: the CLI (nlohmann/json, toml++, yaml-cpp, a shell tokenizer) and the page
// (JSON.parse, smol-toml, yaml, shell-quote) each parse the text and hand over the same ImportInput, and one
// mapping per format, in its framework's file of engine/src/formats/ (megatron.cpp, torchtitan.cpp, torchtune.cpp,
// deepspeed.cpp, vllm.cpp, sglang.cpp, hf.cpp), turns it into assignments, so the two cannot disagree. The types the
// formats share are in format_types.hpp.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget {

// Files larger than this are refused before they are parsed (bytes).
inline constexpr size_t kMaxImportBytes = 16 * 1024 * 1024;

// The format a text looks like, from cheap signs in its content (a DeepSpeed or config.json key, an
// `sglang.launch_server`, `vllm serve` or `tune run` command, Megatron-LM flags, a TOML table header, YAML keys);
// nullopt when none fits.
std::optional<ImportFormat> detectImportFormat(std::string_view text);

// What to say when no format fits `subject` (a path, or "The text"), the same in the CLI and on the page.
std::string unrecognisedImport(std::string_view subject);

// How a text of `format` is written: torchtune is YAML unless the text is a `tune run` command or a list of
// key=value overrides (words).
ImportSyntax importSyntax(ImportFormat format, std::string_view text);

// The text mapped by its format's mapping (input.format): membudget's keys, and what could not be mapped.
ImportResult importConfig(const ImportInput& input);

// What an import applies over, so that it sets what the file says and nothing of the previous configuration
// survives: the defaults, with what no launch file states but the caller already knows, the GPU (capacity, speed
// figures, allowances, the headroom kept) and the method, and the model (with its experts' stored format) only when the file names none
// (`modelKept`, which the report says). The keys the file sets then apply over it (applyAssignments). A config.json
// is a model, not a launch: it applies over the configuration in use.
struct ImportBase {
    Config config;
    bool modelKept = false;
};
ImportBase importBase(const Config& current, const ImportResult& result);

// What the file maps that membudget cannot take, as `--import` refuses it: each key the file sets, applied over
// importBase(current, result), against its field's range (validateRanges). The rules between fields wait for what
// the file leaves unsaid (`assumed`: the world size, the micro-batches), which `--import` asks for. An import with
// any is refused whole, in the CLI and on the page: none of its keys is applied.
std::vector<Problem> importProblems(const ImportResult& result, const Config& current = Config{});

// An import applied over the configuration in use, as the page applies it and `--import` refuses it: the file's keys
// over importBase(current, imported), all or nothing (any of importProblems refuses the whole file).
struct AppliedImport {
    ImportResult imported;
    Config config;                  // the keys applied; `current` itself where the file has errors or problems
    std::vector<Problem> problems;  // importProblems: what the file maps that the configuration cannot take
    std::string modelKept;          // the model kept because the file names none ("" where it names one)
};
extern const RecordTable kAppliedImportRecord;
AppliedImport applyImport(const Config& current, ImportResult imported);

}  // namespace membudget
