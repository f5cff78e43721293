// The importer's entry points (docs/import.md): which format a text looks like, how it is written, and
// importConfig, which hands what a parser made of the file (ImportInput) to that framework's mapping
// (megatron.cpp, torchtitan.cpp, torchtune.cpp, deepspeed.cpp, vllm.cpp, sglang.cpp, trtllm.cpp, hf.cpp), each written once over the
// shared reader (reader.cpp), so that the CLI and the page import identically.
#include "membudget/formats/import.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/deepspeed.hpp"
#include "formats/hf.hpp"
#include "formats/megatron.hpp"
#include "formats/megatron_flags.hpp"
#include "formats/omegaconf.hpp"
#include "formats/reader.hpp"
#include "formats/sglang.hpp"
#include "formats/torchtitan.hpp"
#include "formats/torchtune.hpp"
#include "formats/trtllm.hpp"
#include "formats/vllm.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/validate.hpp"

namespace membudget {

using detail::anyLine;
using detail::contains;
using detail::Document;
using detail::importDeepspeed;
using detail::importHf;
using detail::importMegatron;
using detail::importSglang;
using detail::importTorchtitan;
using detail::importTorchtune;
using detail::importTrtllm;
using detail::importVllm;
using detail::inCode;
using detail::isIdentifier;
using detail::kMegatronSwitches;
using detail::kSglangSwitches;
using detail::kVllmSwitches;
using detail::looksLikeTrtllmOptions;
using detail::Mapping;
using detail::namesTrtllmCommand;
using detail::startsWith;
using detail::torchtuneOverrides;
using detail::vllmFlagSpelling;
using detail::Words;

std::optional<ImportFormat> detectImportFormat(std::string_view text) {
    std::string_view t = text;
    if (startsWith(t, "\xEF\xBB\xBF")) t.remove_prefix(3);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    if (t.empty()) return std::nullopt;
    if (t.front() == '{') {
        for (std::string_view key :
             {"\"zero_optimization\"", "\"train_micro_batch_size_per_gpu\"", "\"train_batch_size\"", "\"gradient_accumulation_steps\""})
            if (contains(t, key)) return ImportFormat::deepspeed;
        for (std::string_view key : {"\"model_type\"", "\"architectures\"", "\"hidden_size\"", "\"n_embd\"", "\"num_hidden_layers\""})
            if (contains(t, key)) return ImportFormat::hf;
        return std::nullopt;
    }
    // TensorRT-LLM's commands first: their options are underscored (--tp_size), and a pasted here-document may hold anything.
    if (inCode(t, "trtllm-serve") || inCode(t, "trtllm-bench")) return ImportFormat::trtllm;
    // SGLang before vLLM: its parser takes vLLM's --tensor-parallel-size too (server_args.py ServerArgs.tp_size aliases).
    if (inCode(t, "sglang.launch_server") || inCode(t, "sglang serve") ||
        (inCode(t, "--model-path") && (inCode(t, "--tp-size") || inCode(t, "--mem-fraction-static"))))
        return ImportFormat::sglang;
    if (inCode(t, "vllm serve") || inCode(t, "vllm.entrypoints") || inCode(t, "--tensor-parallel-size") || inCode(t, "--max-model-len"))
        return ImportFormat::vllm;
    if (inCode(t, "tune run")) return ImportFormat::torchtune;
    for (std::string_view flag : {"--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--num-layers", "--micro-batch-size",
                                  "--num-attention-heads", "pretrain_gpt"})
        if (inCode(t, flag)) return ImportFormat::megatron;
    // TensorRT-LLM's extra options YAML alone, by a key of LlmArgs' own (before torchtune's YAML, which has none of them).
    if (looksLikeTrtllmOptions(t)) return ImportFormat::trtllm;
    if (anyLine(t, [](std::string_view line) {
            return line.size() > 2 && line.front() == '[' && line.back() == ']' && line.find('=') == std::string_view::npos;
        }))
        return ImportFormat::torchtitan;
    if (contains(t, "_component_") || anyLine(t, [](std::string_view line) {
            const size_t colon = line.find(':');
            return colon != std::string_view::npos && colon > 0 && isIdentifier(line.substr(0, colon));
        }))
        return ImportFormat::torchtune;
    return std::nullopt;
}

std::string unrecognisedImport(std::string_view subject) {
    return std::string(subject) +
           " is not a configuration membudget can read: expected a Megatron-LM script, a torchtitan TOML, a torchtune YAML or tune run "
           "command, a DeepSpeed JSON, a config.json, a vllm serve command, an SGLang launch_server command or a TensorRT-LLM trtllm-serve "
           "or "
           "trtllm-bench command (name its format)";
}

ImportSyntax importSyntax(ImportFormat format, std::string_view text) {
    switch (format) {
        case ImportFormat::megatron:
        case ImportFormat::vllm:
        case ImportFormat::sglang:
            return ImportSyntax::words;
        case ImportFormat::torchtitan:
            return ImportSyntax::toml;
        case ImportFormat::deepspeed:
        case ImportFormat::hf:
            return ImportSyntax::json;
        case ImportFormat::trtllm:
            // A command with the here-documents beside it, or the extra options YAML alone (no command, no --flag line).
            if (namesTrtllmCommand(text) || anyLine(text, [](std::string_view line) { return startsWith(line, "--"); }))
                return ImportSyntax::words_yaml;
            return ImportSyntax::yaml;
        case ImportFormat::torchtune:
            // A `tune run` command, or overrides (key=value words) and no YAML mapping.
            if (inCode(text, "tune run")) return ImportSyntax::words;
            if (!anyLine(text,
                         [](std::string_view line) {
                             return !line.empty() && line.front() != '#' && line.find(": ") != std::string_view::npos;
                         }) &&
                !anyLine(text, [](std::string_view line) { return !line.empty() && line.back() == ':'; }) && contains(text, "="))
                return ImportSyntax::words;
            return ImportSyntax::yaml;
    }
    return ImportSyntax::json;
}

ImportResult importConfig(const ImportInput& input) {
    Mapping m;
    const ImportFormat format = input.format;
    const std::string name(toString(format));
    // (A config.json that is not JSON is named by the Hugging Face mapping itself, as --hf-config names it.)
    if (!input.error.empty() && format != ImportFormat::hf) {
        m.error("not " +
                std::string(format == ImportFormat::torchtitan                                    ? "TOML"
                            : format == ImportFormat::torchtune || format == ImportFormat::trtllm ? "YAML"
                                                                                                  : "JSON") +
                " (" + name + "): " + input.error);
        return std::move(m).finish(format);
    }
    switch (format) {
        case ImportFormat::megatron: {
            Words w(input.lines, kMegatronSwitches);
            importMegatron(w, m);
            break;
        }
        case ImportFormat::vllm: {
            Words w(vllmFlagSpelling(input.lines), kVllmSwitches);
            importVllm(w, m);
            break;
        }
        case ImportFormat::sglang: {
            Words w(input.lines, kSglangSwitches);
            importSglang(w, m);
            break;
        }
        case ImportFormat::torchtune: {
            if (!input.lines.empty()) {
                Words w(input.lines, {});
                detail::TorchtuneLaunch launch;
                std::vector<JsonValue> values = torchtuneOverrides(w, launch);
                if (values.empty() && !launch.world && launch.recipe.empty()) {
                    m.error("no tune run command and no key=value overrides in the text");
                    break;
                }
                detail::resolveOmegaConf(values);
                Document d(values);
                importTorchtune(d, m, launch);
                break;
            }
            if (input.rootType != "object") {
                m.error("a torchtune config is a YAML mapping; got " + jsonTypeWords(input.rootType));
                break;
            }
            // Read as torchtune reads it: OmegaConf's loader types the unquoted scalars and resolves ${…}.
            std::vector<JsonValue> values = input.values;
            detail::resolveOmegaConf(values);
            Document d(values);
            importTorchtune(d, m, {});
            break;
        }
        case ImportFormat::torchtitan:
        case ImportFormat::deepspeed: {
            if (input.rootType != "object") {
                m.error(std::string(format == ImportFormat::torchtitan ? "a torchtitan job config is a TOML document"
                                                                       : "a DeepSpeed config is a JSON object") +
                        "; got " + jsonTypeWords(input.rootType));
                break;
            }
            Document d(input.values);
            if (format == ImportFormat::torchtitan) {
                if (!d.present("parallelism") && !d.present("training") && !d.present("model"))
                    m.error("not a torchtitan job config: no [model], [training] or [parallelism] table");
                else
                    importTorchtitan(d, m);
            } else {
                importDeepspeed(d, m);
            }
            break;
        }
        case ImportFormat::hf:
            importHf(input, m);
            break;
        case ImportFormat::trtllm:
            importTrtllm(input, m);
            break;
    }
    return std::move(m).finish(format);
}

std::vector<Problem> importProblems(const ImportResult& result, const Config& current) {
    const ParsedConfig applied = applyAssignments(result.assignments, importBase(current, result).config);
    std::vector<Problem> out = applied.problems;
    for (Problem& problem : validateRanges(applied.config)) {
        const bool mapped =
            std::any_of(result.assignments.begin(), result.assignments.end(), [&](const Assignment& a) { return a.key == problem.field; });
        const bool said = std::any_of(out.begin(), out.end(), [&](const Problem& p) { return p.field == problem.field; });
        if (mapped && !said) out.push_back(std::move(problem));
    }
    return out;
}

ImportBase importBase(const Config& current, const ImportResult& result) {
    ImportBase out;
    // A config.json is a model's architecture, not a launch: it fills the model fields over the layout in use.
    if (result.format == ImportFormat::hf) {
        out.config = current;
        return out;
    }
    const auto groupOf = [](std::string_view key) {
        const FieldSpec* field = findField(key);
        return field ? field->group : std::string_view();
    };
    out.modelKept =
        std::none_of(result.assignments.begin(), result.assignments.end(), [&](const Assignment& a) { return groupOf(a.key) == "model"; });
    for (const FieldSpec& field : fields()) {
        // The hardware group holds two settings of the job, not of the GPU: they start from the defaults.
        const bool hardware = field.group == "hardware" && field.key != "offload" && field.key != "zero_init";
        // The routed experts' stored format (gpt-oss's MXFP4) is the checkpoint's, kept with its model.
        const bool checkpoint = field.group == "model" || field.key == "expert_weight_dtype";
        if (hardware || field.key == "method" || (out.modelKept && checkpoint)) setFieldText(out.config, field, fieldText(current, field));
    }
    return out;
}

AppliedImport applyImport(const Config& current, ImportResult imported) {
    AppliedImport out;
    // The file's keys over the defaults, keeping only the GPU, the method and (when the file names none) the model.
    const ImportBase start = importBase(current, imported);
    const ParsedConfig parsed = applyAssignments(imported.assignments, start.config);
    if (start.modelKept && imported.ok()) out.modelKept = current.name.empty() ? current.model : current.name;
    out.problems = importProblems(imported, current);
    out.config = imported.ok() && out.problems.empty() ? parsed.config : current;
    out.imported = std::move(imported);
    return out;
}

namespace {

using record::member;

constexpr Column kAppliedColumns[] = {
    member<&AppliedImport::imported>("", RECORD_JSON(""), {.child = &kImportResultRecord}),
    member<&AppliedImport::config>(
        "config", RECORD_JSON("config"),
        {.kind = CellKind::config,
         .doc = RECORD_DOC("The keys applied over the configuration in use; it unchanged where there are errors or problems.")}),
    member<&AppliedImport::problems>(
        "problems", RECORD_JSON("problems"),
        {.child = &kProblemRecord,
         .doc = RECORD_DOC(
             "What the file maps that the configuration cannot take (a value outside its field's range): any refuses the whole import.")}),
    member<&AppliedImport::modelKept>(
        "modelKept", RECORD_JSON("model_kept"),
        {.doc = RECORD_DOC(
             "The model kept because the file names none (a DeepSpeed JSON, a vLLM command for the loaded model); \"\" otherwise.")}),
};

}  // namespace

constinit const RecordTable kAppliedImportRecord{RECORD_NAME("ConfigImport"), kAppliedColumns, kAlways, kAlways,
                                                 RECORD_DOC("A framework's configuration mapped by the engine and applied over the base.")};

}  // namespace membudget
