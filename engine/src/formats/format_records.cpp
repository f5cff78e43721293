// The columns of what the importers and exporters give (membudget/base/record.hpp): the CLI's `import --json` and
// `export --json`, and the page's imports and exports, and the list of formats (apart from the dispatchers, so that
// the page's module, which lists the formats, links no importer).
#include "membudget/base/record.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/formats/hf.hpp"

namespace membudget {

namespace {

using record::member;

constexpr Column kUnmappedColumns[] = {
    member<&Unmapped::key>("key", RECORD_JSON("key")),
    member<&Unmapped::value>("value", RECORD_JSON("value")),
    member<&Unmapped::reason>("reason", RECORD_JSON("reason")),
};

constexpr std::uint8_t kImportErrors = 1;
constexpr Column kImportColumns[] = {
    member<&ImportResult::format>("format", RECORD_JSON("format"), {.flags = kKeepOnError}),
    member<&ImportResult::errors>("errors", RECORD_JSON("errors"),
                                  {.flags = kOmitIfAbsent,
                                   .child = &kProblemRecord,
                                   .presentIf = kImportErrors,
                                   .doc = RECORD_DOC("The text could not be read as the format.")}),
    member<&ImportResult::assignments>(
        "assignments", RECORD_JSON("config"),
        {.kind = CellKind::settings, .doc = RECORD_DOC("membudget's keys the file set, in the field table's order, as field text.")}),
    member<&ImportResult::unmapped>("unmapped", RECORD_JSON("unmapped"), {.child = &kUnmappedRecord}),
    member<&ImportResult::warnings>("warnings", RECORD_JSON("warnings")),
    member<&ImportResult::assumed>(
        "assumed", RECORD_JSON("assumed"),
        {.child = &kProblemRecord,
         .doc = RECORD_DOC("What the result depends on that the file does not say, each field and why: computed with the field's value.")}),
};
static_assert(record::at(kImportColumns, "errors") == kImportErrors);

constexpr Column kExportColumns[] = {
    member<&ExportResult::format>("format", RECORD_JSON("format")),
    member<&ExportResult::text>("text", RECORD_JSON("text")),
    member<&ExportResult::notExported>("notExported", RECORD_JSON("not_exported"), {.child = &kUnmappedRecord}),
};

constexpr Column kHfColumns[] = {
    member<&HfImport::config>("config", RECORD_JSON("config"),
                              {.kind = CellKind::config, .doc = RECORD_DOC("With errors, the base unchanged.")}),
    member<&HfImport::errors>("errors", RECORD_JSON("errors"), {.child = &kProblemRecord}),
    member<&HfImport::notices>(
        "notices", RECORD_JSON("notices"),
        {.child = &kProblemRecord, .doc = RECORD_DOC("Fields that change memory but are not modelled yet, each named.")}),
};

constexpr Column kFormatColumns[] = {
    member<&FormatInfo::id>("id", RECORD_JSON("id")),
    member<&FormatInfo::label>("label", RECORD_JSON("label"),
                               {.doc = RECORD_DOC("What the page calls it: \"Megatron-LM flags\", \"torchtitan TOML\", …")}),
    member<&FormatInfo::exports>("exports", RECORD_JSON("exports"), {.doc = RECORD_DOC("membudget also writes it (the CLI's export).")}),
};

// A format added to ImportFormat without its line here fails the static_assert.
constexpr FormatInfo kFormats[] = {
    {ImportFormat::megatron, "Megatron-LM flags", true},          {ImportFormat::torchtitan, "torchtitan TOML", true},
    {ImportFormat::torchtune, "torchtune YAML / tune run", true}, {ImportFormat::deepspeed, "DeepSpeed JSON", true},
    {ImportFormat::hf, "Hugging Face config.json", false},        {ImportFormat::vllm, "vllm serve", true},
    {ImportFormat::sglang, "SGLang launch_server", true},         {ImportFormat::trtllm, "TensorRT-LLM trtllm-serve / trtllm-bench", true},
};
static_assert(std::size(kFormats) == ChoiceNames<ImportFormat>::names.size());

}  // namespace

std::span<const FormatInfo> formatInfos() { return kFormats; }

constinit const RecordTable kFormatInfoRecord{RECORD_NAME("Format"), kFormatColumns, kAlways, kAlways,
                                              RECORD_DOC("A format membudget imports (every one) and, where `exports`, also writes.")};
constinit const RecordTable kHfImportRecord{RECORD_NAME("HfImport"), kHfColumns, kAlways, kAlways,
                                            RECORD_DOC("A Hugging Face config.json mapped onto a configuration.")};
constinit const RecordTable kUnmappedRecord{
    RECORD_NAME("Unmapped"), kUnmappedColumns, kAlways, kAlways,
    RECORD_DOC("A key or flag of an imported file that changes memory but could not be mapped, with its value and why.")};
constinit const RecordTable kImportResultRecord{RECORD_NAME("ImportResult"), kImportColumns, kAlways, kImportErrors,
                                                RECORD_DOC("What a framework's file says, in membudget's keys.")};
constinit const RecordTable kExportResultRecord{RECORD_NAME("ConfigExport"), kExportColumns, kAlways, kAlways,
                                                RECORD_DOC("A configuration in a framework's own form, with what the form cannot say.")};

}  // namespace membudget
