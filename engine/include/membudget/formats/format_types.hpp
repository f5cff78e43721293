// The types every format shares: what a parser hands a mapping (ImportInput), what an import gives (ImportResult)
// and an export writes (ExportResult), and what either could not map (Unmapped). Apart from the dispatchers
// (import.hpp, export.hpp) so that each framework's file in engine/src/formats depends on these alone, never on the
// list of every format.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget {

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
extern const RecordTable kUnmappedRecord;

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
// `membudget import --json`: {format, config: {key: value typed by its field}, unmapped, warnings, assumed}, or
// {format, errors}.
extern const RecordTable kImportResultRecord;

// A configuration in a framework's own form: the text, and what the format cannot say (key, value, why), which
// the text also lists as comments where the format has them.
struct ExportResult {
    ImportFormat format = ImportFormat::megatron;
    std::string text;
    std::vector<Unmapped> notExported;
};
// `membudget export --json`: {format, text, not_exported}.
extern const RecordTable kExportResultRecord;

// What the page calls each format, and whether membudget also writes it (the CLI's export; no config.json: the Hub's
// own file is the source), in the engine's order of ImportFormat.
struct FormatInfo {
    ImportFormat id;
    std::string_view label;  // "Megatron-LM flags", "torchtitan TOML", …
    bool exports = false;
};
extern const RecordTable kFormatInfoRecord;
std::span<const FormatInfo> formatInfos();

}  // namespace membudget
