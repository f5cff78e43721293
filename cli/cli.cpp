#include "cli.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "membudget/detail/text.hpp"
#include "membudget/json.hpp"
#include "membudget/ledger.hpp"
#include "membudget/presets.hpp"

namespace membudget {

namespace {

constexpr int kExitFits = 0, kExitOver = 1, kExitBadInput = 2;

// Terminal columns of a UTF-8 string: our text has only single-width characters (Ψ, ×, ², ·).
size_t displayWidth(std::string_view text) {
    return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string pad(std::string_view text, size_t width) {
    std::string out(text);
    const size_t w = displayWidth(text);
    if (w < width) out.append(width - w, ' ');
    return out;
}

std::string padLeft(std::string_view text, size_t width) {
    const size_t w = displayWidth(text);
    return std::string(w < width ? width - w : 0, ' ') + std::string(text);
}

std::string fixed2(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

struct ReadResult {
    std::string text;
    std::string error;
};

ReadResult readSource(const std::string& path, std::istream& in) {
    std::ostringstream buffer;
    if (path == "-") {
        buffer << in.rdbuf();
        return {buffer.str(), ""};
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) return {"", "cannot read " + path + ": no such file or not readable"};
    buffer << file.rdbuf();
    return {buffer.str(), ""};
}

void printProblems(std::ostream& err, const std::vector<Problem>& problems) {
    for (const auto& p : problems) err << "membudget: error: " << p.message << "\n";
}

void printTable(std::ostream& out, const Result& result, const Config& c, bool gib) {
    const double unitBytes = gib ? kBytesPerGiB : kBytesPerGB;
    const std::string unit = gib ? "GiB" : "GB";
    auto value = [&](double bytes) { return fixed2(bytes / unitBytes); };
    const auto* model = findModelPreset(c.model);
    const auto* gpu = findGpuPreset(c.gpu);

    out << "membudget · method " << result.method << " · " << (model ? model->label : c.model)
        << " · Ψ = " << detail::groupedNumber(result.parameterCount) << " parameters\n";
    const auto g = detail::groupedNumber;
    out << "TP " << g(c.tp) << " · PP " << g(c.pp) << " · DP " << g(c.dp) << " · CP " << g(c.cp)
        << " · SP " << (c.sp ? "on" : "off") << " · ZeRO " << g(c.zero) << " · b_μ " << g(c.mb) << " · s "
        << g(c.seq) << " · ckpt " << c.ckpt << " · micro-batches " << g(c.microbatches) << "\n";
    out << "GPU " << (gpu ? gpu->label : c.gpu) << " · capacity " << value(result.capacityBytes) << " " << unit
        << " · headroom " << detail::formatNumber(c.headroom * 100) << "%\n\n";

    size_t labelWidth = std::string_view("Component").size(), formulaWidth = std::string_view("Formula").size();
    for (const auto& line : result.lines) {
        labelWidth = std::max(labelWidth, displayWidth(line.label));
        formulaWidth = std::max(formulaWidth, displayWidth(line.formula));
    }
    labelWidth = std::max(labelWidth, std::string_view("Usable").size());
    const std::string valueHeader = "Value (" + unit + ")";
    const size_t valueWidth = std::max<size_t>(valueHeader.size(), 10);
    const std::string gap = "  ";

    out << pad("Component", labelWidth) << gap << pad("Formula", formulaWidth) << gap
        << padLeft(valueHeader, valueWidth) << gap << "Note\n";
    for (const auto& line : result.lines) {
        out << pad(line.label, labelWidth) << gap << pad(line.formula, formulaWidth) << gap
            << padLeft(value(line.bytes), valueWidth) << gap << line.note << "\n";
        out << std::string(labelWidth, ' ') << gap << "= " << line.substituted << "\n";
    }
    const std::string rule(labelWidth + formulaWidth + valueWidth + 2 * gap.size(), '-');
    out << rule << "\n";
    auto summary = [&](std::string_view label, std::string_view text, double bytes) {
        out << pad(label, labelWidth) << gap << pad(text, formulaWidth) << gap << padLeft(value(bytes), valueWidth)
            << "\n";
    };
    summary("Total", "sum", result.totalBytes);
    summary("Capacity", gpu ? std::string(gpu->id) : "gpu_gb", result.capacityBytes);
    summary("Usable", "capacity × (1 − " + detail::formatNumber(c.headroom) + ")", result.usableBytes);

    const std::string verdictText = result.verdict == "fits" ? "fits" : result.verdict == "tight" ? "tight" : "does not fit";
    out << "\nVerdict: " << verdictText << " — total " << value(result.totalBytes) << " " << unit << "; ";
    if (result.verdict == "fits")
        out << value(result.usableBytes - result.totalBytes) << " " << unit << " below the headroom line";
    else if (result.verdict == "tight")
        out << value(result.totalBytes - result.usableBytes) << " " << unit << " over the headroom line, "
            << value(result.capacityBytes - result.totalBytes) << " " << unit << " under capacity";
    else
        out << value(result.totalBytes - result.capacityBytes) << " " << unit << " over capacity";
    out << "\n";
    if (!result.warnings.empty()) {
        out << "\nWarnings:\n";
        for (const auto& w : result.warnings) out << "  - " << (w.field.empty() ? "" : w.field + ": ") << w.message << "\n";
    }
    out << "\nLink query: " << encodeQuery(c) << "\n";
}

}  // namespace

int runCli(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err) {
    CLI::App app{"membudget: does this parallel training configuration fit in GPU memory, and what eats it?\n"
                 "Prints the per-GPU verification checklist of the chapter \"Memory Budget Verification\".\n"
                 "Exit status: 0 fits, 1 tight or does not fit, 2 bad input.",
                 "membudget"};
    app.get_formatter()->column_width(34);
    std::string configFile, url;
    bool asJson = false, gib = false;
    app.add_option("--config", configFile, "JSON configuration file ('-' for standard input); flags override it")
        ->type_name("FILE")
        ->group("Input");
    app.add_option("--url", url, "A shared link or its query (tp=8&pp=4); flags override it")
        ->type_name("QUERY")
        ->group("Input");
    app.add_flag("--json", asJson, "Print the result as JSON (the eval format) instead of a table")->group("Output");
    app.add_flag("--gib", gib, "Show GiB (2^30 bytes) instead of GB (10^9 bytes)")->group("Output");

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
        const char* typeName = field.kind == FieldKind::boolean ? "BOOL"
                               : field.kind == FieldKind::choice ? "ID"
                               : field.kind == FieldKind::integer ? "INT"
                                                                  : "NUM";
        flagOptions.push_back(
            app.add_option("--" + std::string(field.key), flagValues[i], help)->type_name(typeName)->group(group));
    }

    std::string evalFile;
    auto* evalCommand = app.add_subcommand("eval", "Read a JSON configuration (FILE or - for standard input) and print "
                                                   "the result as JSON");
    evalCommand->add_option("file", evalFile, "JSON configuration file, or - for standard input")->required();
    evalCommand->fallthrough();
    auto* fieldsCommand = app.add_subcommand("fields", "Print the field table (keys, ranges, defaults, help) as JSON");
    auto* presetsCommand = app.add_subcommand("presets", "Print the model and GPU presets with their sources as JSON");
    app.require_subcommand(0, 1);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e, out, err);
        return code == 0 ? 0 : kExitBadInput;
    }

    if (*fieldsCommand) {
        out << fieldsToJson() << "\n";
        return 0;
    }
    if (*presetsCommand) {
        out << presetsToJson() << "\n";
        return 0;
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

    ParsedConfig parsed = applyAssignments(assignments);
    problems.insert(problems.end(), parsed.problems.begin(), parsed.problems.end());
    Result result = evaluate(parsed.config);
    // Input that could not be read is as bad as input that does not validate: never guess.
    result.errors.insert(result.errors.begin(), problems.begin(), problems.end());

    if (jsonOutput) {
        out << resultToJson(result, parsed.config) << "\n";
    } else if (result.ok()) {
        printTable(out, result, parsed.config, gib);
    }
    if (!result.ok()) {
        if (!jsonOutput) printProblems(err, result.errors);
        return kExitBadInput;
    }
    return result.verdict == "fits" ? kExitFits : kExitOver;
}

}  // namespace membudget
