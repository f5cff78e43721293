#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <istream>
#include <ostream>

#include "cli.hpp"
#include "import_parse.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/layout.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"
#include "render.hpp"
#include "terminal.hpp"

namespace membudget {

namespace {

constexpr int kExitFits = 0, kExitOver = 1, kExitBadInput = 2;

struct ReadResult {
    std::string text;
    std::string error;
};

// Every file and standard input is read in chunks up to a limit: a real config.json or measured file is a few
// KB, and /dev/zero or a runaway pipe must stop with a message, not with the machine's memory.
constexpr size_t kMaxInputBytes = 16 * 1024 * 1024;

ReadResult readBounded(std::istream& stream, const std::string& name) {
    std::string text;
    char chunk[65536];
    while (stream) {
        stream.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<size_t>(stream.gcount()));
        if (text.size() > kMaxInputBytes)
            return {"", name + " is larger than 16 MiB (16,777,216 bytes), more than any configuration or measured file"};
    }
    return {std::move(text), ""};
}

ReadResult readSource(const std::string& path, std::istream& in) {
    if (path == "-") return readBounded(in, "standard input");
    std::ifstream file(path, std::ios::binary);
    if (!file) return {"", "cannot read " + path + ": no such file or not readable"};
    return readBounded(file, path);
}

// What the command line asked for: the inputs, the output options, and one option per field of the table.
struct Options {
    std::string configFile, url, hfConfigFile, evalFile, measuredFile, importFile, importFormat, importCommandFile, exportFormat;
    bool asJson = false, gib = false, showTensors = false, paretoOnly = false;
    std::string planSort = "memory";
    size_t planLimit = 25;
    bool whichGpu = false;
    PlanRequest planRequest;
    double ttftLimitMs = 0, tpotLimitMs = 0, maxConcurrency = 1024;
    std::vector<std::string> flagValues;
    std::vector<CLI::Option*> flagOptions;
    cli::ByteUnit unit() const { return cli::byteUnit(gib); }
};

// A file in one of the formats of docs/import.md, read, parsed (import_parse.cpp) and mapped by the engine.
// formatName: "" to detect the format from the text.
ImportResult readImport(const std::string& path, const std::string& formatName, std::istream& in) {
    ImportResult failed;
    const ReadResult source = readSource(path, in);
    if (!source.error.empty()) {
        failed.errors.push_back({"import", source.error});
        return failed;
    }
    std::optional<ImportFormat> format;
    if (!formatName.empty()) {
        format = parseChoice<ImportFormat>(formatName);
        if (!format) {
            failed.errors.push_back(
                {"format",
                 "format must be one of megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang, trtllm; got \"" + formatName + "\""});
            return failed;
        }
    } else {
        format = detectImportFormat(source.text);
        if (!format) {
            failed.errors.push_back({"import", unrecognisedImport(path)});
            return failed;
        }
    }
    return importConfig(cli::parseImport(source.text, *format));
}

// The configuration the input describes (a JSON file, a link, a config.json, then the flags, which override
// them) and its ledger. Input that could not be read is as bad as input that does not validate: its problems
// are the ledger's errors, and nothing is guessed.
struct Loaded {
    ParsedConfig parsed;
    Result result;
};

Loaded loadConfiguration(const Options& o, bool readEvalFile, std::istream& in, std::ostream& err) {
    std::vector<Problem> problems;
    std::vector<Assignment> assignments;
    auto takeJson = [&](const std::string& path) {
        const ReadResult source = readSource(path, in);
        if (!source.error.empty()) {
            problems.push_back({"file", source.error});
            return;
        }
        AssignmentList list = parseJsonConfig(source.text);
        problems.insert(problems.end(), list.problems.begin(), list.problems.end());
        assignments.insert(assignments.end(), list.assignments.begin(), list.assignments.end());
    };
    if (!o.configFile.empty()) takeJson(o.configFile);
    std::vector<Problem> assumed;
    size_t importStart = assignments.size();
    std::optional<ImportResult> launch;  // --import, applied over importBase of what came before it
    if (!o.importFile.empty()) {
        const ImportResult& imported = launch.emplace(readImport(o.importFile, o.importFormat, in));
        assumed = imported.assumed;
        problems.insert(problems.end(), imported.errors.begin(), imported.errors.end());
        std::vector<Problem> warnings;
        for (const auto& w : imported.warnings) warnings.push_back({"", w});
        cli::printProblems(err, warnings, "warning");
        for (size_t i = 0; i < std::min(imported.unmapped.size(), kListedEntries); ++i) {
            const auto& u = imported.unmapped[i];
            err << "membudget: not imported: " << u.key << (u.value.empty() ? "" : " = " + u.value) << " (" << u.reason << ")\n";
        }
        if (imported.unmapped.size() > kListedEntries)
            err << "membudget: not imported: … and "
                << detail::groupedNumber(static_cast<double>(imported.unmapped.size() - kListedEntries))
                << " more, not shown (membudget import FILE lists every one)\n";
        assignments.insert(assignments.end(), imported.assignments.begin(), imported.assignments.end());
    }
    size_t importEnd = assignments.size();
    if (readEvalFile) takeJson(o.evalFile);
    if (!o.url.empty()) {
        AssignmentList list = parseQuery(o.url);
        problems.insert(problems.end(), list.problems.begin(), list.problems.end());
        assignments.insert(assignments.end(), list.assignments.begin(), list.assignments.end());
    }
    const auto table = fields();
    for (size_t i = 0; i < table.size(); ++i)
        if (o.flagOptions[i]->count() > 0) assignments.push_back({std::string(table[i].key), o.flagValues[i]});

    Config base;
    if (!o.hfConfigFile.empty()) {
        // A model preset and a config.json both set the architecture: refuse the pair rather than pick one.
        for (const auto& a : assignments)
            if (a.key == "model")
                problems.push_back({"model", "--hf-config (" + o.hfConfigFile + ") and model = " + a.text +
                                                 " both set the architecture; give one of them"});
        const ReadResult source = readSource(o.hfConfigFile, in);
        if (!source.error.empty()) {
            problems.push_back({"hf_config", source.error});
        } else {
            HfImport imported = importHfConfig(source.text, base);
            problems.insert(problems.end(), imported.errors.begin(), imported.errors.end());
            for (const auto& notice : imported.notices) err << "membudget: warning: " << notice.message << "\n";
            base = imported.config;
        }
    }
    if (launch && launch->ok()) {
        // What the file sets replaces what --config said, and nothing else of it survives (a LoRA base, an uneven
        // split): the file applies over the defaults with the GPU, the method and, when the file names no model, the
        // model of the configuration before it (importBase), as on the page. Later inputs override it as before.
        ParsedConfig before = applyAssignments(std::span(assignments).first(importStart), base);
        problems.insert(problems.end(), before.problems.begin(), before.problems.end());
        const ImportBase over = importBase(before.config, *launch);
        base = over.config;
        if (over.modelKept && importStart > 0)
            err << "membudget: notice: " << o.importFile << " names no model: model = " << base.model
                << " (and its architecture) is kept from the configuration before it\n";
        assignments.erase(assignments.begin(), assignments.begin() + static_cast<std::ptrdiff_t>(importStart));
        importEnd -= importStart;
        importStart = 0;
    }
    Loaded out{applyAssignments(assignments, base), {}};
    // What the launch file does not say is computed with the value the field holds; a later input that sets it
    // (a JSON file, a link, a flag; not the file itself, which may have had to take one) answers it.
    for (const auto& a : assumed) {
        bool answered = false;
        for (size_t i = 0; i < assignments.size(); ++i)
            if ((i < importStart || i >= importEnd) && assignments[i].key == a.field) answered = true;
        const FieldSpec* field = findField(a.field);
        if (answered || !field) continue;
        err << "membudget: needs your input: " << a.field << " = " << fieldText(out.parsed.config, *field) << " is assumed (" << a.message
            << "); set --" << a.field << "\n";
    }
    problems.insert(problems.end(), out.parsed.problems.begin(), out.parsed.problems.end());
    cli::printProblems(err, out.parsed.notices, "notice");
    out.result = evaluate(out.parsed.config);
    out.result.errors.insert(out.result.errors.begin(), problems.begin(), problems.end());
    return out;
}

int exitFor(const Result& result) { return result.verdict == Verdict::fits ? kExitFits : kExitOver; }

// `membudget compare-measured FILE`
int runMeasured(const Options& o, std::istream& in, std::ostream& out, std::ostream& err) {
    const ReadResult source = readSource(o.measuredFile, in);
    if (!source.error.empty()) {
        err << "membudget: error: " << source.error << "\n";
        return kExitBadInput;
    }
    const MeasuredComparison comparison = compareMeasured(source.text);
    if (!comparison.ok()) {
        cli::printProblems(err, comparison.errors);
        return kExitBadInput;
    }
    if (o.asJson)
        out << measuredComparisonToJson(comparison) << "\n";
    else
        cli::printMeasuredComparison(out, comparison, o.unit());
    return kExitFits;
}

// `membudget plan` in inference: the serving planner (docs/inference.md, "Serving plan"); exit 0 when some layout fits.
int runServingPlan(const Options& o, const Config& config, std::ostream& out, std::ostream& err) {
    ServingPlanRequest request;
    request.base = config;
    request.gpus = config.gpus != 0 ? config.gpus : worldSize(config);
    request.ttftLimitSeconds = o.ttftLimitMs / 1e3;
    request.tpotLimitSeconds = o.tpotLimitMs / 1e3;
    request.maxConcurrency = o.maxConcurrency;
    request.tpAcrossNodes = o.planRequest.tpAcrossNodes;
    if (o.whichGpu) {
        const std::vector<GpuServingPlan> plans = planServingEachGpu(request);
        if (plans.empty() || !plans.front().plan.errors.empty()) {
            cli::printProblems(err, plans.empty() ? std::vector<Problem>{{"", "internal error: out of memory while planning"}}
                                                  : plans.front().plan.errors);
            return kExitBadInput;
        }
        if (o.asJson)
            out << gpuServingPlansToJson(plans, request) << "\n";
        else
            cli::printGpuServingPlans(out, plans, request);
        return std::any_of(plans.begin(), plans.end(), [](const GpuServingPlan& p) { return p.plan.recommended >= 0; }) ? kExitFits
                                                                                                                        : kExitOver;
    }
    const ServingPlan plan = planServing(request);
    if (!plan.errors.empty()) {
        cli::printProblems(err, plan.errors);
        return kExitBadInput;
    }
    if (o.asJson)
        out << servingPlanToJson(plan, request) << "\n";
    else
        cli::printServingPlan(out, plan, request, o.unit(), o.planLimit);
    return plan.recommended >= 0 ? kExitFits : kExitOver;
}

// `membudget plan`: exit 0 when some layout fits.
int runPlan(Options& o, const Config& config, std::ostream& out, std::ostream& err) {
    if (config.mode == Mode::inference) return runServingPlan(o, config, out, err);
    PlanRequest& request = o.planRequest;
    request.base = config;
    request.gpus = config.gpus != 0 ? config.gpus : worldSize(config);
    if (request.globalBatch == 0) request.globalBatch = config.dp * config.mb * config.microbatches;
    if (o.whichGpu) {
        const std::vector<GpuPlan> plans = planEachGpu(request);
        // A request every GPU refuses (a bad GPU count or batch) is bad input; a GPU too small is a row of its own.
        const bool allRefused =
            !plans.empty() && std::all_of(plans.begin(), plans.end(), [](const GpuPlan& p) { return !p.plan.errors.empty(); });
        if (plans.empty() || allRefused) {
            cli::printProblems(err, plans.empty() ? std::vector<Problem>{{"", "internal error: out of memory while planning"}}
                                                  : plans.front().plan.errors);
            return kExitBadInput;
        }
        if (o.asJson)
            out << gpuPlansToJson(plans, request) << "\n";
        else
            cli::printGpuPlans(out, plans, request, o.unit());
        const bool anyFits = std::any_of(plans.begin(), plans.end(), [](const GpuPlan& p) { return p.plan.fitting > 0; });
        return anyFits ? kExitFits : kExitOver;
    }
    const PlanResult plan = membudget::plan(request);
    if (!plan.errors.empty()) {
        cli::printProblems(err, plan.errors);
        return kExitBadInput;
    }
    if (o.asJson)
        out << planToJson(plan, request) << "\n";
    else
        cli::printPlan(out, plan, request, o.unit(), o.planLimit, o.paretoOnly, o.planSort);
    return plan.fitting > 0 ? kExitFits : kExitOver;
}

// `membudget advise`
int runAdvise(const Options& o, const Loaded& loaded, std::ostream& out) {
    const auto advice = advise(loaded.parsed.config);
    if (o.asJson)
        out << adviceToJson(advice) << "\n";
    else
        cli::printAdvice(out, advice, loaded.result, o.unit());
    return exitFor(loaded.result);
}

// `membudget compare`
int runCompare(const Options& o, const Loaded& loaded, std::ostream& out) {
    const auto columns = compareMethods(loaded.parsed.config);
    if (o.asJson)
        out << compareToJson(columns, loaded.parsed.config) << "\n";
    else
        cli::printComparison(out, columns, loaded.parsed.config, o.unit());
    return exitFor(loaded.result);
}

// `membudget` and `membudget eval`: the checklist, and when it does not fit, the three best changes.
int runCheck(const Options& o, const Loaded& loaded, bool jsonOutput, std::ostream& out, std::ostream& err) {
    const Result& result = loaded.result;
    if (jsonOutput) {
        out << resultToJson(result, loaded.parsed.config) << "\n";
    } else if (result.ok()) {
        cli::printTable(out, result, loaded.parsed.config, o.unit(), o.showTensors);
        if (result.verdict != Verdict::fits) {
            auto advice = advise(loaded.parsed.config);
            if (advice.size() > 3) advice.resize(3);
            out << "\n";
            cli::printAdvice(out, advice, result, o.unit());
            out << "(membudget advise … for every option)\n";
        }
    }
    if (!result.ok()) {
        if (!jsonOutput) cli::printProblems(err, result.errors);
        return kExitBadInput;
    }
    return exitFor(result);
}

// The options of the input and of the output.
void addInputOptions(CLI::App& app, Options& o) {
    app.add_option("--config", o.configFile, "JSON configuration file ('-' for standard input); flags override it")
        ->type_name("FILE")
        ->group("Input");
    app.add_option("--url", o.url, "A shared link or its query (tp=8&pp=4); flags override it")->type_name("QUERY")->group("Input");
    app.add_option("--hf-config", o.hfConfigFile,
                   "A Hugging Face config.json: fills the architecture fields (method membudget); flags override it")
        ->type_name("FILE")
        ->group("Input");
    app.add_option("--import", o.importFile,
                   "A framework's configuration (Megatron-LM script, torchtitan TOML, torchtune YAML, DeepSpeed JSON, config.json, "
                   "vllm serve, SGLang launch_server, trtllm-serve or trtllm-bench command; docs/import.md); flags override it")
        ->type_name("FILE")
        ->group("Input");
    app.add_option("--import-format", o.importFormat,
                   "The format of --import when its content does not say (megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang, "
                   "trtllm)")
        ->type_name("FORMAT")
        ->group("Input");
    app.add_flag("--json", o.asJson, "Print the result as JSON (the eval format) instead of a table")->group("Output");
    app.add_flag("--gib", o.gib, "Show GiB (2^30 bytes) instead of GB (10^9 bytes)")->group("Output");
    app.add_flag("--tensors", o.showTensors, "List every saved activation tensor (method membudget)")->group("Output");
}

// One option per field of the table, with its range and default in the help.
void addFieldOptions(CLI::App& app, Options& o) {
    const auto table = fields();
    o.flagValues.resize(table.size());
    for (size_t i = 0; i < table.size(); ++i) {
        const auto& field = table[i];
        std::string group(field.group);
        group[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(group[0])));
        std::string help = std::string(field.label) + ". " + std::string(field.help) + ". Allowed: " + describeRange(field);
        if (!field.unit.empty()) help += " (" + std::string(field.unit) + ")";
        help += ". Default: " + fieldText(Config{}, field) + ".";
        const char* typeName = field.kind == FieldKind::boolean   ? "BOOL"
                               : field.kind == FieldKind::text    ? "TEXT"
                               : field.kind == FieldKind::choice  ? "ID"
                               : field.kind == FieldKind::integer ? "INT"
                                                                  : "NUM";
        o.flagOptions.push_back(app.add_option("--" + std::string(field.key), o.flagValues[i], help)->type_name(typeName)->group(group));
    }
}

// `membudget plan` and its options.
CLI::App* addPlanCommand(CLI::App& app, Options& o) {
    auto* planCommand = app.add_subcommand("plan",
                                           "Every layout of TP, PP, CP, DP (and EP), ZeRO stage, SP, checkpointing and "
                                           "micro-batch that fits on --gpus GPUs, Pareto front first");
    planCommand
        ->add_option("--global-batch", o.planRequest.globalBatch,
                     "Sequences per optimizer step (DP × mb × microbatches); default: the configuration's")
        ->check(CLI::PositiveNumber);
    planCommand->add_option("--max-mb", o.planRequest.maxMicroBatch, "Largest micro-batch to try (default 16)")->check(CLI::Range(1, 1024));
    planCommand->add_option("--max-cp", o.planRequest.maxCp, "Largest context-parallel size to try (default 16)")
        ->check(CLI::Range(1, 1024));
    planCommand->add_flag("--tp-across-nodes", o.planRequest.tpAcrossNodes, "Allow TP groups larger than gpus_per_node");
    planCommand->add_flag("!--no-uneven", o.planRequest.unevenPipeline, "Only PP sizes that divide the layers");
    planCommand->add_flag("--tight", o.planRequest.includeTight, "Also list configurations over the headroom line but under capacity");
    planCommand->add_option("--limit", o.planLimit, "Rows to print in the table (default 25; --json prints all)");
    planCommand->add_flag("--pareto", o.paretoOnly, "Print only the Pareto front");
    planCommand->add_flag("--which-gpu", o.whichGpu,
                          "Plan the same job on every GPU preset: each GPU's fastest layout that fits, its speed and run");
    planCommand
        ->add_option("--sort", o.planSort, "Order of the table after the recommended row: memory (Pareto first, then peak), speed or mfu")
        ->check(CLI::IsMember({"memory", "speed", "mfu"}));
    planCommand->add_option("--ttft-ms", o.ttftLimitMs, "Inference: the most time to first token a row may take, ms (default: no target)");
    planCommand->add_option("--tpot-ms", o.tpotLimitMs,
                            "Inference: the most time per output token a row may take, ms (default: no target)");
    planCommand->add_option("--max-concurrency", o.maxConcurrency, "Inference: the most requests one replica runs at once (default 1024)");
    planCommand->fallthrough();
    return planCommand;
}

// `membudget import`: the file's keys as JSON, or its problems.
int runImport(const Options& o, std::istream& in, std::ostream& out, std::ostream& err) {
    const ImportResult imported = readImport(o.importCommandFile, o.importFormat, in);
    if (!imported.ok()) {
        cli::printProblems(err, imported.errors);
        return kExitBadInput;
    }
    // A value membudget cannot take (a negative micro-batch, a padded vocabulary that is not a number) is an
    // error here as under --import, not a mapping shown as if it held.
    if (const std::vector<Problem> problems = importProblems(imported); !problems.empty()) {
        cli::printProblems(err, problems);
        return kExitBadInput;
    }
    out << importToJson(imported) << "\n";
    return kExitFits;
}

// `membudget export`: the configuration in a framework's own form, what it cannot say on standard error.
int runExport(const Options& o, const Config& config, cli::EscapedStream& safeOut, std::ostream& out, std::ostream& err) {
    const auto format = parseChoice<ImportFormat>(o.exportFormat);
    if (!format || *format == ImportFormat::hf) {
        cli::printProblems(err,
                           {{"format", "--format must be one of megatron, torchtitan, torchtune, deepspeed, vllm, sglang, trtllm; got \"" +
                                           o.exportFormat + "\""}});
        return kExitBadInput;
    }
    const ExportResult exported = exportConfig(*format, config);
    if (o.asJson) {
        safeOut.setJsonStrings(true);
        out << exportToJson(exported) << "\n";
    } else {
        out << exported.text;
        for (const auto& u : exported.notExported)
            err << "membudget: not exported: " << u.key << (u.value.empty() ? "" : " = " + u.value) << " (" << u.reason << ")\n";
    }
    return kExitFits;
}

}  // namespace

int runCli(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
    // Nothing from the input reaches the terminal raw: both streams escape control characters (terminal.hpp).
    cli::EscapedStream safeErr(err, false);
    cli::EscapedStream safeOut(out, false);
    CLI::App app{
        "membudget: does this parallel training configuration fit in GPU memory, and what eats it?\n"
        "Prints the per-GPU verification checklist of the chapter \"Memory Budget Verification\".\n"
        "Exit status: 0 fits, 1 tight or does not fit, 2 bad input.",
        "membudget"};
    app.get_formatter()->column_width(34);
    Options o;
    addInputOptions(app, o);
    addFieldOptions(app, o);

    auto* evalCommand = app.add_subcommand("eval",
                                           "Read a JSON configuration (FILE or - for standard input) and print "
                                           "the result as JSON");
    evalCommand->add_option("file", o.evalFile, "JSON configuration file, or - for standard input")->required();
    evalCommand->fallthrough();
    auto* compareCommand = app.add_subcommand("compare",
                                              "Every method's ledger for the same configuration, side by side, "
                                              "with why they differ");
    compareCommand->fallthrough();
    auto* measuredCommand = app.add_subcommand("compare-measured",
                                               "Compare a run measured by tools/measure/measure.py (FILE or -) "
                                               "with the prediction for its configuration, line by line");
    measuredCommand->add_option("file", o.measuredFile, "Measured JSON (format membudget-measured/1), or - for standard input")->required();
    measuredCommand->fallthrough();
    auto* planCommand = addPlanCommand(app, o);
    auto* adviseCommand = app.add_subcommand("advise",
                                             "The smallest changes that make the configuration fit, with what each "
                                             "saves and costs");
    adviseCommand->fallthrough();
    auto* importCommand = app.add_subcommand("import",
                                             "Read a framework's configuration (FILE or -) and print membudget's keys for it as JSON, "
                                             "with what could not be mapped (docs/import.md)");
    importCommand->add_option("file", o.importCommandFile, "The configuration file, or - for standard input")->required();
    importCommand->add_option("--format", o.importFormat,
                              "megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang or trtllm (default: detected)");
    auto* exportCommand =
        app.add_subcommand("export",
                           "Write the configuration in a framework's own form: Megatron-LM flags, a torchtitan TOML, "
                           "a tune run command, a DeepSpeed JSON, a vllm serve, SGLang launch_server or trtllm-serve command");
    exportCommand->add_option("--format", o.exportFormat, "megatron, torchtitan, torchtune, deepspeed, vllm, sglang or trtllm")->required();
    exportCommand->fallthrough();
    auto* fieldsCommand = app.add_subcommand("fields", "Print the field table (keys, ranges, defaults, help) as JSON");
    auto* presetsCommand = app.add_subcommand("presets", "Print the model and GPU presets with their sources as JSON");
    auto* stepPartsCommand =
        app.add_subcommand("step-parts", "Print the step-time estimate's parts, their formulas and its assumptions as JSON");
    auto* recordsCommand = app.add_subcommand("records", "Print every output record's columns, the choices and the keys' types as JSON");
    app.require_subcommand(0, 1);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e, out, err);
        return code == 0 ? 0 : kExitBadInput;
    }

    // JSON on standard output: C1 controls inside its strings become \u00NN, which keeps the document valid.
    safeOut.setJsonStrings(o.asJson || *evalCommand || *fieldsCommand || *presetsCommand || *stepPartsCommand || *recordsCommand);
    if (*stepPartsCommand || *recordsCommand) {
        out << (*recordsCommand ? recordTablesToJson() : stepPartsToJson()) << "\n";
        return kExitFits;
    }
    if (*fieldsCommand) {
        out << fieldsToJson() << "\n";
        return kExitFits;
    }
    if (*presetsCommand) {
        out << presetsToJson() << "\n";
        return kExitFits;
    }
    if (*measuredCommand) return runMeasured(o, in, out, err);
    if (*importCommand) {
        safeOut.setJsonStrings(true);
        return runImport(o, in, out, err);
    }

    const Loaded loaded = loadConfiguration(o, evalCommand->parsed(), in, err);
    if (loaded.result.ok()) {
        if (*planCommand) return runPlan(o, loaded.parsed.config, out, err);
        if (*adviseCommand) return runAdvise(o, loaded, out);
        if (*compareCommand) return runCompare(o, loaded, out);
        if (*exportCommand) return runExport(o, loaded.parsed.config, safeOut, out, err);
    }
    return runCheck(o, loaded, o.asJson || *evalCommand, out, err);
}

}  // namespace membudget
