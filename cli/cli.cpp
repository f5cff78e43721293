#include "cli.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "columns.hpp"
#include "measured.hpp"
#include "membudget/detail/text.hpp"
#include "membudget/json.hpp"
#include "membudget/ledger.hpp"
#include "membudget/plan.hpp"
#include "membudget/presets.hpp"
#include "membudget/sources.hpp"
#include "terminal.hpp"

namespace membudget {

namespace {

constexpr int kExitFits = 0, kExitOver = 1, kExitBadInput = 2;

using cli::displayWidth;
using cli::pad;
using cli::padLeft;

std::string fixed2(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

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

void printProblems(std::ostream& err, const std::vector<Problem>& problems) {
    for (const auto& p : problems) err << "membudget: error: " << p.message << "\n";
}

void printTable(std::ostream& out, const Result& result, const Config& c, bool gib, bool showTensors) {
    const double unitBytes = gib ? kBytesPerGiB : kBytesPerGB;
    const std::string unit = gib ? "GiB" : "GB";
    auto value = [&](double bytes) { return fixed2(bytes / unitBytes); };
    const auto* model = findModelPreset(c.model);
    const auto* gpu = findGpuPreset(c.gpu);

    out << "membudget · method " << result.method << " · "
        << (!c.name.empty() ? std::string_view(c.name)
            : model         ? model->label
                            : std::string_view("custom architecture"))
        << " · Ψ = " << detail::groupedNumber(result.parameterCount) << " parameters"
        << (result.activeParameterCount != result.parameterCount
                ? " (" + detail::groupedNumber(result.activeParameterCount) + " active per token)"
                : "")
        << "\n";
    const auto g = detail::groupedNumber;
    if (c.mode == Mode::inference)
        out << "inference · TP " << g(c.tp) << " · PP " << g(c.pp) << " · " << g(c.mb) << " sequences × " << g(c.seq)
            << " tokens · weights " << c.weightDtype << " · KV cache " << c.kvDtype << "\n";
    else
        out << "TP " << g(c.tp) << " · PP " << g(c.pp) << " · DP " << g(c.dp) << " · CP " << g(c.cp) << " · SP " << (c.sp ? "on" : "off")
            << " · ZeRO " << g(c.zero) << " · b_μ " << g(c.mb) << " · s " << g(c.seq) << " · ckpt " << c.ckpt << " · micro-batches "
            << g(c.microbatches) << "\n";
    out << "GPU " << (gpu ? gpu->label : c.gpu) << " · capacity " << value(result.capacityBytes) << " " << unit << " · headroom "
        << detail::formatNumber(c.headroom * 100) << "%\n\n";

    size_t labelWidth = std::string_view("Component").size(), formulaWidth = std::string_view("Formula").size();
    for (const auto& line : result.lines) {
        labelWidth = std::max(labelWidth, displayWidth(line.label));
        formulaWidth = std::max(formulaWidth, displayWidth(line.formula));
    }
    labelWidth = std::max(labelWidth, std::string_view("Usable").size());
    const std::string valueHeader = "Value (" + unit + ")";
    const size_t valueWidth = std::max<size_t>(valueHeader.size(), 10);
    const std::string gap = "  ";

    out << pad("Component", labelWidth) << gap << pad("Formula", formulaWidth) << gap << padLeft(valueHeader, valueWidth) << gap
        << "Note\n";
    for (const auto& line : result.lines) {
        out << pad(line.label, labelWidth) << gap << pad(line.formula, formulaWidth) << gap << padLeft(value(line.bytes), valueWidth) << gap
            << line.note << "\n";
        out << std::string(labelWidth, ' ') << gap << "= " << line.substituted << "\n";
    }
    const std::string rule(labelWidth + formulaWidth + valueWidth + 2 * gap.size(), '-');
    out << rule << "\n";
    auto summary = [&](std::string_view label, std::string_view text, double bytes) {
        out << pad(label, labelWidth) << gap << pad(text, formulaWidth) << gap << padLeft(value(bytes), valueWidth) << "\n";
    };
    summary("Total", "sum", result.totalBytes);
    summary("Capacity", gpu ? std::string(gpu->id) : "gpu_gb", result.capacityBytes);
    summary("Usable", "capacity × (1 − " + detail::formatNumber(c.headroom) + ")", result.usableBytes);

    const std::string verdictText = result.verdict == Verdict::fits ? "fits" : result.verdict == Verdict::tight ? "tight" : "does not fit";
    out << "\nVerdict: " << verdictText << " — total " << value(result.totalBytes) << " " << unit << "; ";
    if (result.verdict == Verdict::fits)
        out << value(result.usableBytes - result.totalBytes) << " " << unit << " below the headroom line";
    else if (result.verdict == Verdict::tight)
        out << value(result.totalBytes - result.usableBytes) << " " << unit << " over the headroom line, "
            << value(result.capacityBytes - result.totalBytes) << " " << unit << " under capacity";
    else
        out << value(result.totalBytes - result.capacityBytes) << " " << unit << " over capacity";
    out << "\n";
    if (result.stages.size() > 1) {
        out << "\nStages (the peak decides the verdict):\n";
        for (const auto& stage : result.stages)
            out << (stage.index == result.peakStage ? "  * " : "    ") << "stage " << detail::groupedNumber(stage.index) << ": "
                << detail::formatNumber(stage.layers) << " layers, " << detail::formatNumber(stage.inFlightMicrobatches)
                << " micro-batches in flight, " << value(stage.totalBytes) << " " << unit << "\n";
    }
    if (!result.phases.empty()) {
        out << "\nPhases:";
        for (const auto& phase : result.phases) out << " " << phase.name << " " << value(phase.totalBytes) << " " << unit << ";";
        out << " the peak is the " << result.peakPhase << "\n";
    }
    if (showTensors && !result.tensors.empty()) {
        out << "\nActivation tensors on stage " << detail::groupedNumber(result.peakStage) << " (per copy × copies):\n";
        for (const auto& t : result.tensors)
            out << "  " << pad(t.name, 46) << pad(t.shape, 34) << pad(t.dtype, 6) << padLeft(value(t.bytes), 10) << " " << unit << "  ("
                << detail::groupedNumber(std::round(t.bytesPerCopy)) << " B × " << detail::formatNumber(t.copies) << ") " << t.sharding
                << "\n";
    }
    if (c.mode == Mode::inference)
        out << "\nFits under the headroom line: up to " << detail::groupedNumber(result.maxSequences) << " concurrent sequences of "
            << detail::groupedNumber(c.seq) << " tokens; with " << detail::groupedNumber(c.mb) << " sequences, up to "
            << detail::groupedNumber(result.maxContextTokens) << " tokens each\n";
    if (result.cpuBytesPerNode > 0) {
        out << "\nCPU memory per node (offloaded): " << value(result.cpuBytesPerNode) << " " << unit << "\n";
        for (const auto& line : result.cpuLines)
            out << "  " << pad(line.label, 26) << padLeft(value(line.bytes), 10) << " " << unit << "  " << line.note << "\n";
    }
    if (!result.warnings.empty()) {
        out << "\nWarnings:\n";
        for (const auto& w : result.warnings) out << "  - " << (w.field.empty() ? "" : w.field + ": ") << w.message << "\n";
    }
    out << "\nLink query: " << encodeQuery(c) << "\n";
}

void printComparison(std::ostream& out, const std::vector<MethodColumn>& columns, const Config& c, bool gib) {
    const double unitBytes = gib ? kBytesPerGiB : kBytesPerGB;
    const std::string unit = gib ? "GiB" : "GB";
    auto value = [&](double bytes) { return fixed2(bytes / unitBytes); };
    const size_t labelWidth = 20, width = 12;
    out << "Per-GPU memory by method (" << unit << "; * = the configured method, " << c.method << ")\n\n";
    out << pad("", labelWidth);
    for (const auto& column : columns) out << padLeft(std::string(toString(column.method)) + (column.method == c.method ? "*" : ""), width);
    out << "\n";
    const MethodColumn* base = nullptr;
    for (const auto& column : columns)
        if (column.method == c.method) base = &column;
    if (!base || !base->result.ok()) return;
    for (size_t i = 0; i < base->result.lines.size(); ++i) {
        out << pad(base->result.lines[i].label, labelWidth);
        for (const auto& column : columns) {
            if (!column.result.ok() || i >= column.result.lines.size()) {
                out << padLeft("—", width);
                continue;
            }
            const auto& line = column.result.lines[i];
            // A value the source does not model itself is shown in brackets.
            const std::string text =
                line.origin == toString(column.method) || line.origin == "allowance" ? value(line.bytes) : "(" + value(line.bytes) + ")";
            out << padLeft(text, width);
        }
        out << "\n";
    }
    auto row = [&](std::string_view label, auto get) {
        out << pad(label, labelWidth);
        for (const auto& column : columns) out << padLeft(column.result.ok() ? get(column) : "—", width);
        out << "\n";
    };
    row("Total", [&](const MethodColumn& m) { return value(m.result.totalBytes); });
    row("Source's own figure", [&](const MethodColumn& m) { return value(m.sourceBytes); });
    row("Verdict", [&](const MethodColumn& m) {
        return m.result.verdict == Verdict::doesNotFit ? std::string("over") : std::string(toString(m.result.verdict));
    });
    out << "\n(values in brackets are membudget's estimate where the source has no formula)\n";
    out << "\nWhy they differ from " << c.method << ":\n";
    for (const auto& column : columns) {
        if (&column == base || !column.result.ok()) continue;
        for (size_t i = 0; i < column.result.lines.size() && i < base->result.lines.size(); ++i) {
            const auto& line = column.result.lines[i];
            const double delta = line.bytes - base->result.lines[i].bytes;
            if (std::fabs(delta) < 0.005 * std::max(1.0, base->result.lines[i].bytes) || line.origin == "allowance") continue;
            out << "  " << pad(toString(column.method), 12) << pad(line.label, 13) << padLeft((delta > 0 ? "+" : "") + value(delta), 8)
                << " " << unit << "  " << differenceReason(line.origin == "membudget" ? Method::membudget : column.method, line.id) << "\n";
        }
    }
}

std::string percent(double fraction) { return detail::percentText(fraction); }

void printPlan(std::ostream& out, const PlanResult& plan, const PlanRequest& request, bool gib, size_t limit, bool paretoOnly) {
    const double scale = gib ? 1073741824.0 : 1e9;
    const std::string unit = gib ? "GiB" : "GB";
    auto value = [&](double bytes) { return fixed2(bytes / scale); };
    const Config& c = request.base;
    out << "membudget plan: " << c.model << " on " << detail::groupedNumber(request.gpus) << " × " << c.gpu << " ("
        << value(std::round(c.gpuGb * 1e9)) << " " << unit << ", " << detail::groupedNumber(c.gpusPerNode) << " per node), seq "
        << detail::groupedNumber(c.seq) << ", global batch " << detail::groupedNumber(request.globalBatch) << " sequences, method "
        << c.method << "\n";
    out << detail::groupedNumber(plan.layouts) << " layouts (TP, CP, PP" << (c.experts != 0 ? ", EP" : "") << "), "
        << detail::groupedNumber(plan.candidates) << " configurations: " << detail::groupedNumber(plan.evaluated) << " evaluated, "
        << detail::groupedNumber(plan.pruned) << " pruned (a smaller micro-batch already did not fit); "
        << detail::groupedNumber(plan.fitting) << " fit";
    size_t front = 0;
    for (const auto& row : plan.rows) front += row.pareto ? 1 : 0;
    out << ", " << front << " on the Pareto front\n\n";
    if (plan.rows.empty()) {
        out << "Nothing fits. Try more GPUs, a larger GPU, a shorter sequence or a smaller global batch.\n";
        return;
    }
    out << "  TP  PP  CP     DP" << (c.experts != 0 ? "  EP" : "") << "  ZeRO  SP  ckpt        mb      m  " << padLeft("peak " + unit, 9)
        << "  " << padLeft("headroom", 9) << "  recompute  bubble  notes\n";
    size_t shown = 0;
    for (const auto& row : plan.rows) {
        if (shown >= limit || (paretoOnly && !row.pareto)) break;
        ++shown;
        std::string notes = row.pareto ? "Pareto" : "";
        auto note = [&](const std::string& text) { notes += (notes.empty() ? "" : ", ") + text; };
        if (row.tpCrossesNode) note("TP crosses nodes");
        if (row.cpCrossesNode) note("CP crosses nodes");
        if (std::fmod(c.layers, row.pp) != 0) note("uneven stages");
        if (row.verdict == Verdict::tight) note("tight");
        out << padLeft(detail::groupedNumber(row.tp), 4) << padLeft(detail::groupedNumber(row.pp), 4)
            << padLeft(detail::groupedNumber(row.cp), 4) << padLeft(detail::groupedNumber(row.dp), 7);
        if (c.experts != 0) out << padLeft(detail::groupedNumber(row.ep), 4);
        out << padLeft(detail::groupedNumber(row.zero), 6) << padLeft(row.sp ? "on" : "off", 4) << "  " << pad(toString(row.ckpt), 10)
            << padLeft(detail::groupedNumber(row.mb), 4) << padLeft(detail::groupedNumber(row.microbatches), 7) << "  "
            << padLeft(value(row.peakBytes), 9) << "  " << padLeft(value(row.headroomBytes), 9) << "  "
            << padLeft(percent(row.recomputeOverhead), 9) << "  " << padLeft(percent(row.bubble), 6) << "  " << notes << "\n";
    }
    if (shown < plan.rows.size()) out << "\n(" << shown << " of " << plan.rows.size() << " rows; --limit N for more, --json for all)\n";
    out << "\nrecompute: extra step compute of the checkpointing mode; bubble: (PP − 1) / (m + PP − 1); headroom: what is left "
           "under the "
        << detail::formatNumber(std::round((1 - c.headroom) * 100)) << "% line\n";
}

void printAdvice(std::ostream& out, const std::vector<Advice>& advice, const Result& before, bool gib) {
    const double scale = gib ? 1073741824.0 : 1e9;
    const std::string unit = gib ? "GiB" : "GB";
    if (advice.empty()) {
        out << "No single or paired change of zero, ckpt, sp, mb, tp, pp, cp or offload lowers the peak.\n";
        return;
    }
    out << "What to change (now " << fixed2(before.totalBytes / scale) << " " << unit << ", " << before.verdict << "):\n";
    for (const auto& a : advice)
        out << "  " << pad(a.change, 34) << padLeft(fixed2(a.totalBytes / scale), 8) << " " << unit << "  saves "
            << padLeft(fixed2(a.savedBytes / scale), 7) << " " << unit << "  " << pad(toString(a.verdict), 12) << "  " << a.cost << "\n";
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
    std::string configFile, url, hfConfigFile;
    bool asJson = false, gib = false, showTensors = false;
    app.add_option("--config", configFile, "JSON configuration file ('-' for standard input); flags override it")
        ->type_name("FILE")
        ->group("Input");
    app.add_option("--url", url, "A shared link or its query (tp=8&pp=4); flags override it")->type_name("QUERY")->group("Input");
    app.add_option("--hf-config", hfConfigFile,
                   "A Hugging Face config.json: fills the architecture fields (method membudget); flags override it")
        ->type_name("FILE")
        ->group("Input");
    app.add_flag("--json", asJson, "Print the result as JSON (the eval format) instead of a table")->group("Output");
    app.add_flag("--gib", gib, "Show GiB (2^30 bytes) instead of GB (10^9 bytes)")->group("Output");
    app.add_flag("--tensors", showTensors, "List every saved activation tensor (method membudget)")->group("Output");

    const auto table = fields();
    std::vector<std::string> flagValues(table.size());
    std::vector<CLI::Option*> flagOptions;
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
        flagOptions.push_back(app.add_option("--" + std::string(field.key), flagValues[i], help)->type_name(typeName)->group(group));
    }

    std::string evalFile;
    auto* evalCommand = app.add_subcommand("eval",
                                           "Read a JSON configuration (FILE or - for standard input) and print "
                                           "the result as JSON");
    evalCommand->add_option("file", evalFile, "JSON configuration file, or - for standard input")->required();
    evalCommand->fallthrough();
    auto* compareCommand = app.add_subcommand("compare",
                                              "Every method's ledger for the same configuration, side by side, "
                                              "with why they differ");
    compareCommand->fallthrough();
    std::string measuredFile;
    auto* measuredCommand = app.add_subcommand("compare-measured",
                                               "Compare a run measured by tools/measure/measure.py (FILE or -) "
                                               "with the prediction for its configuration, line by line");
    measuredCommand->add_option("file", measuredFile, "Measured JSON (format membudget-measured/1), or - for standard input")->required();
    measuredCommand->fallthrough();
    auto* planCommand = app.add_subcommand("plan",
                                           "Every layout of TP, PP, CP, DP (and EP), ZeRO stage, SP, checkpointing and "
                                           "micro-batch that fits on --gpus GPUs, Pareto front first");
    PlanRequest planRequest;
    size_t planLimit = 25;
    bool paretoOnly = false;
    planCommand
        ->add_option("--global-batch", planRequest.globalBatch,
                     "Sequences per optimizer step (DP × mb × microbatches); default: the configuration's")
        ->check(CLI::PositiveNumber);
    planCommand->add_option("--max-mb", planRequest.maxMicroBatch, "Largest micro-batch to try (default 16)")->check(CLI::Range(1, 1024));
    planCommand->add_option("--max-cp", planRequest.maxCp, "Largest context-parallel size to try (default 16)")->check(CLI::Range(1, 1024));
    planCommand->add_flag("--tp-across-nodes", planRequest.tpAcrossNodes, "Allow TP groups larger than gpus_per_node");
    planCommand->add_flag("!--no-uneven", planRequest.unevenPipeline, "Only PP sizes that divide the layers");
    planCommand->add_flag("--tight", planRequest.includeTight, "Also list configurations over the headroom line but under capacity");
    planCommand->add_option("--limit", planLimit, "Rows to print in the table (default 25; --json prints all)");
    planCommand->add_flag("--pareto", paretoOnly, "Print only the Pareto front");
    planCommand->fallthrough();
    auto* adviseCommand = app.add_subcommand("advise",
                                             "The smallest changes that make the configuration fit, with what each "
                                             "saves and costs");
    adviseCommand->fallthrough();
    auto* fieldsCommand = app.add_subcommand("fields", "Print the field table (keys, ranges, defaults, help) as JSON");
    auto* presetsCommand = app.add_subcommand("presets", "Print the model and GPU presets with their sources as JSON");
    app.require_subcommand(0, 1);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e, out, err);
        return code == 0 ? 0 : kExitBadInput;
    }

    // JSON on standard output: C1 controls inside its strings become \u00NN, which keeps the document valid.
    safeOut.setJsonStrings(asJson || *evalCommand || *fieldsCommand || *presetsCommand);
    if (*fieldsCommand) {
        out << fieldsToJson() << "\n";
        return 0;
    }
    if (*presetsCommand) {
        out << presetsToJson() << "\n";
        return 0;
    }

    if (*measuredCommand) {
        const ReadResult source = readSource(measuredFile, in);
        if (!source.error.empty()) {
            err << "membudget: error: " << source.error << "\n";
            return kExitBadInput;
        }
        const MeasuredComparison comparison = compareMeasured(source.text);
        if (!comparison.ok()) {
            printProblems(err, comparison.errors);
            return kExitBadInput;
        }
        if (asJson)
            out << measuredComparisonToJson(comparison) << "\n";
        else
            printMeasuredComparison(out, comparison, gib);
        return kExitFits;
    }

    const bool jsonOutput = asJson || *evalCommand;
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
    if (!configFile.empty()) takeJson(configFile);
    if (*evalCommand) takeJson(evalFile);
    if (!url.empty()) {
        AssignmentList list = parseQuery(url);
        problems.insert(problems.end(), list.problems.begin(), list.problems.end());
        assignments.insert(assignments.end(), list.assignments.begin(), list.assignments.end());
    }
    for (size_t i = 0; i < table.size(); ++i)
        if (flagOptions[i]->count() > 0) assignments.push_back({std::string(table[i].key), flagValues[i]});

    Config base;
    // A model preset and a config.json both set the architecture: refuse the pair rather than pick one.
    if (!hfConfigFile.empty())
        for (const auto& a : assignments)
            if (a.key == "model")
                problems.push_back(
                    {"model", "--hf-config (" + hfConfigFile + ") and model = " + a.text + " both set the architecture; give one of them"});
    if (!hfConfigFile.empty()) {
        const ReadResult source = readSource(hfConfigFile, in);
        if (!source.error.empty()) {
            problems.push_back({"hf_config", source.error});
        } else {
            HfImport imported = importHfConfig(source.text, base);
            problems.insert(problems.end(), imported.errors.begin(), imported.errors.end());
            for (const auto& notice : imported.notices) err << "membudget: warning: " << notice.message << "\n";
            base = imported.config;
        }
    }
    ParsedConfig parsed = applyAssignments(assignments, base);
    problems.insert(problems.end(), parsed.problems.begin(), parsed.problems.end());
    for (const auto& notice : parsed.notices) err << "membudget: notice: " << notice.message << "\n";
    Result result = evaluate(parsed.config);
    // Input that could not be read is as bad as input that does not validate: never guess.
    result.errors.insert(result.errors.begin(), problems.begin(), problems.end());

    if (*planCommand && result.ok()) {
        planRequest.base = parsed.config;
        planRequest.gpus =
            parsed.config.gpus != 0 ? parsed.config.gpus : parsed.config.tp * parsed.config.pp * parsed.config.cp * parsed.config.dp;
        if (planRequest.globalBatch == 0) planRequest.globalBatch = parsed.config.dp * parsed.config.mb * parsed.config.microbatches;
        const PlanResult plan = membudget::plan(planRequest);
        if (!plan.errors.empty()) {
            printProblems(err, plan.errors);
            return kExitBadInput;
        }
        if (asJson)
            out << planToJson(plan, planRequest) << "\n";
        else
            printPlan(out, plan, planRequest, gib, planLimit, paretoOnly);
        return plan.fitting > 0 ? kExitFits : kExitOver;
    }
    if (*adviseCommand && result.ok()) {
        const auto advice = advise(parsed.config);
        if (asJson)
            out << adviceToJson(advice) << "\n";
        else
            printAdvice(out, advice, result, gib);
        return result.verdict == Verdict::fits ? kExitFits : kExitOver;
    }
    if (*compareCommand && result.ok()) {
        const auto columns = compareMethods(parsed.config);
        if (asJson)
            out << compareToJson(columns, parsed.config) << "\n";
        else
            printComparison(out, columns, parsed.config, gib);
        return result.verdict == Verdict::fits ? kExitFits : kExitOver;
    }
    if (jsonOutput) {
        out << resultToJson(result, parsed.config) << "\n";
    } else if (result.ok()) {
        printTable(out, result, parsed.config, gib, showTensors);
        if (result.verdict != Verdict::fits) {
            auto advice = advise(parsed.config);
            if (advice.size() > 3) advice.resize(3);
            out << "\n";
            printAdvice(out, advice, result, gib);
            out << "(membudget advise … for every option)\n";
        }
    }
    if (!result.ok()) {
        if (!jsonOutput) printProblems(err, result.errors);
        return kExitBadInput;
    }
    return result.verdict == Verdict::fits ? kExitFits : kExitOver;
}

}  // namespace membudget
