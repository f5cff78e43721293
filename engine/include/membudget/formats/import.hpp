// Configurations users already have (a Megatron-LM launch script, a torchtitan TOML, a torchtune YAML or
// `tune run` command, a DeepSpeed JSON, a Hugging Face config.json, a `vllm serve` or SGLang launch command) read into
// membudget's keys, and a configuration written back in each framework's own form (docs/import.md).
//
// The engine parses nothing here: the CLI (nlohmann/json, toml++, yaml-cpp, a shell tokenizer) and the page
// (JSON.parse, smol-toml, yaml, shell-quote) each parse the text and hand over the same ImportInput, and one
// mapping per format, in its framework's file of engine/src/formats/ (megatron.cpp, torchtitan.cpp, torchtune.cpp,
// deepspeed.cpp, vllm.cpp, sglang.cpp, hf.cpp), turns it into assignments, so the two cannot disagree.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
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

// What the parser made of the text. Structured syntaxes: every node with its path ("parallelism.tensor_parallel_degree",
// "model.converters[0]"), its JSON type and its text (numbers as shortest decimals; an array's first string),
// rootType "object" when the document is a mapping. Words: each logical line's words (continuations joined,
// quotes removed, comments and operators dropped, `$NAME` and `${NAME}` kept as written for the mapping to
// resolve). `error`: the parser's own message (with line and column where it gives them).
struct ImportInput {
    ImportFormat format = ImportFormat::megatron;
    std::string rootType = "object";
    std::string error;
    std::vector<JsonValue> values;
    std::vector<std::vector<std::string>> lines;
};

// A key or flag of the file that changes memory but that membudget could not map, with its value and why.
struct Unmapped {
    std::string key;
    std::string value;
    std::string reason;

    bool operator==(const Unmapped&) const = default;
};

struct ImportResult {
    ImportFormat format = ImportFormat::megatron;
    std::vector<Assignment> assignments;  // membudget keys in the field table's order, values as field text
    std::vector<Unmapped> unmapped;
    std::vector<std::string> warnings;
    std::vector<Problem> errors;  // the text could not be read as the format (field "import")
    // What the result depends on that the file does not say (the world size, so DP; the micro-batches of a global
    // batch; the batch; the sequence length): each field and why, computed with the value the field then holds
    // (a default, or one the importer had to take) and shown as needing the user's input, never taken silently.
    std::vector<Problem> assumed;

    bool ok() const { return errors.empty(); }
};

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

}  // namespace membudget
