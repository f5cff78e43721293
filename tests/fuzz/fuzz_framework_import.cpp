// Importing a framework's configuration (docs/import.md): any text, read as each format by the CLI's parsers
// (cli/import_parse.cpp) and mapped by the engine, answers without crashing; an import without errors sets only
// keys of the field table, and the configuration it gives exports and imports again without errors.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "import_parse.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/fields.hpp"

using namespace membudget;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)detectImportFormat(text);
    for (const ImportFormat format : {ImportFormat::megatron, ImportFormat::torchtitan, ImportFormat::torchtune, ImportFormat::deepspeed,
                                      ImportFormat::hf, ImportFormat::vllm}) {
        const ImportResult result = importConfig(cli::parseImport(text, format));
        for (const auto& e : result.errors) fuzz::check(!e.message.empty(), "an import error without a message");
        if (!result.ok()) {
            fuzz::check(result.assignments.empty(), "a failed import set keys");
            continue;
        }
        for (const auto& a : result.assignments) fuzz::check(findField(a.key) != nullptr, "an import set an unknown key", a.key);
        const ParsedConfig parsed = applyAssignments(result.assignments);
        if (format == ImportFormat::hf || !parsed.problems.empty()) continue;
        const ExportResult exported = exportConfig(format, parsed.config);
        const ImportResult again = importConfig(cli::parseImport(exported.text, format));
        fuzz::check(again.ok(), "an export did not import again", exported.text);
    }
    return 0;
}
