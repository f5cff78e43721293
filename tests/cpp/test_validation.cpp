// membudget's own method against published measured peaks (tests/fixtures/measured/*.json: Megatron-LM CI
// golden values, torchtitan's benchmarks, torchtune's tables, vLLM's start-up logs). Like is compared with
// like: an allocator counter (max_allocated, active) never sees the CUDA context or NCCL's buffers, so the
// allowance lines are left out of the prediction; max_reserved is compared with the predicted reserved bytes;
// nvidia-smi sees everything, so it is compared with the full total; a file that names `measured_lines` (vLLM's
// weights and profiling peak) is compared with those lines only. scripts/validation-table.mjs prints the same
// comparison as docs/accuracy.md's table.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/error_band.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/config.hpp"
#include "membudget/plan/plan.hpp"

using nlohmann::json;

namespace {

struct Row {
    std::string file;
    std::string metric;
    bool complete = false;
    double measuredBytes = 0;
    double predictedBytes = 0;
    double error = 0;  // (predicted − measured) / measured
    json fixture;
};

bool allocatorMetric(const std::string& metric) { return metric == "max_allocated" || metric == "max_reserved" || metric == "active"; }

// The prediction the metric can see: the named pipeline stage's total (else the peak stage's), less the
// allowance lines for an allocator counter.
double predictedFor(const membudget::Result& result, const json& fixture) {
    const std::string metric = fixture["metric"].get<std::string>();
    const bool allocator = allocatorMetric(metric);
    const json& stageIndex = fixture["pipeline_stage"];
    if (fixture.contains("measured_lines")) {
        const membudget::Stage& stage =
            result.stages.at(stageIndex.is_null() ? static_cast<size_t>(result.peakStage) : stageIndex.get<size_t>());
        double bytes = 0;
        for (const auto& id : fixture["measured_lines"])
            for (size_t i = 0; i < result.lines.size(); ++i)
                if (toString(result.lines[i].id) == id.get<std::string>()) bytes += stage.lineBytes[i];
        return bytes;
    }
    if (metric == "max_reserved" && result.reservedBytes > 0)
        return stageIndex.is_null() ? result.reservedBytes : result.stages.at(stageIndex.get<size_t>()).reservedBytes;
    if (stageIndex.is_null()) {
        double bytes = result.totalBytes;
        if (allocator)
            for (const auto& line : result.lines)
                if (line.origin == std::nullopt) bytes -= line.bytes;
        return bytes;
    }
    const auto index = stageIndex.get<size_t>();
    REQUIRE(index < result.stages.size());
    const membudget::Stage& stage = result.stages[index];
    REQUIRE(stage.lineBytes.size() == result.lines.size());
    double bytes = stage.totalBytes;
    if (allocator)
        for (size_t i = 0; i < result.lines.size(); ++i)
            if (result.lines[i].origin == std::nullopt) bytes -= stage.lineBytes[i];
    return bytes;
}

std::vector<Row> rows() {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(MEMBUDGET_FIXTURES_DIR) + "/measured"))
        if (entry.path().extension() == ".json") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    std::vector<Row> out;
    for (const auto& path : paths) {
        INFO(path.filename().string());
        std::ifstream stream(path);
        REQUIRE(stream.good());
        std::stringstream text;
        text << stream.rdbuf();
        const json fixture = json::parse(text.str(), nullptr, false);
        REQUIRE_FALSE(fixture.is_discarded());
        REQUIRE(fixture.contains("metric"));
        REQUIRE(fixture.contains("measured_bytes"));
        REQUIRE(fixture.contains("pipeline_stage"));
        REQUIRE(fixture.contains("complete"));
        const std::string metric = fixture["metric"].get<std::string>();
        REQUIRE((allocatorMetric(metric) || metric == "nvidia_smi"));
        membudget::Config config = membudget::test::configFrom(fixture["config"]);
        config.method = membudget::Method::membudget;
        const membudget::Result result = membudget::evaluate(config);
        for (const auto& e : result.errors) INFO(e.field << ": " << e.message);
        REQUIRE(result.ok());
        Row row;
        row.file = path.filename().string();
        row.metric = metric;
        row.complete = fixture["complete"].get<bool>();
        // An incomplete row says what membudget cannot express (issue 15); a complete one has nothing to say.
        INFO(row.file);
        if (row.complete)
            CHECK_FALSE(fixture.contains("not_expressible"));
        else
            CHECK((fixture.contains("not_expressible") && !fixture["not_expressible"].get<std::string>().empty()));
        row.measuredBytes = fixture["measured_bytes"].get<double>();
        REQUIRE(row.measuredBytes > 0);
        row.predictedBytes = predictedFor(result, fixture);
        row.error = (row.predictedBytes - row.measuredBytes) / row.measuredBytes;
        row.fixture = fixture;
        out.push_back(std::move(row));
    }
    return out;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string percent(double fraction, const char* format = "%+.1f%%") {
    char text[32];
    std::snprintf(text, sizeof text, format, fraction * 100);
    return text;
}

}  // namespace

TEST_CASE("validation: every measured fixture parses and evaluates", "[validation]") {
    const auto all = rows();
    CHECK(all.size() >= 30);
    for (const auto& row : all) {
        INFO(row.file);
        CHECK(std::isfinite(row.error));
        CHECK(row.predictedBytes > 0);
    }
}

TEST_CASE("validation: complete configurations within issue 15's median and worst error, and each row's bound", "[validation]") {
    const auto all = rows();
    std::vector<double> errors;
    std::string summary;
    for (const auto& row : all) {
        summary += row.file + " " + row.metric + " " + percent(row.error) + (row.complete ? "" : " (incomplete)") + "\n";
        if (!row.complete) continue;
        errors.push_back(std::abs(row.error));
        // The bound is the error observed when the fixture was written, rounded up to a whole percent: a
        // change to the engine that moves a row further from its measurement fails here.
        INFO(row.file << ": predicted " << row.predictedBytes << " B, measured " << row.measuredBytes << " B, error "
                      << percent(row.error));
        REQUIRE(row.fixture.contains("expected_error_bound"));
        const double boundPercent = row.fixture["expected_error_bound"].get<double>();
        CHECK(std::abs(row.error) * 100 <= boundPercent);
    }
    REQUIRE(errors.size() >= 10);
    const double medianError = median(errors);
    const double worstError = *std::max_element(errors.begin(), errors.end());
    summary += "complete rows: median |error| " + percent(medianError, "%.1f%%") + ", worst " + percent(worstError, "%.1f%%");
    INFO(summary);
    CHECK(medianError <= 0.03);  // issue 15's goals
    CHECK(worstError <= 0.08);
    WARN(summary);
}

TEST_CASE("measurableLines: the lines compare-measured compares, for the page's measured column", "[validation][measured]") {
    // The page puts a measured file next to measurableLines(); the CLI rebuilds the same lines from the
    // forward/backward phase's total and the tensor sub-ledger. Two derivations, one answer.
    for (const double seq : {128.0, 1024.0}) {
        json file = membudget::test::fixture("measured-sample");
        file["config"]["seq"] = seq;  // 128: the optimizer step peaks; 1024: forward/backward does
        INFO("seq " << seq);
        const auto comparison = membudget::compareMeasured(file.dump());
        REQUIRE(comparison.ok());
        const auto lines = membudget::measurableLines(comparison.config);
        REQUIRE(lines.size() == comparison.result.lines.size());
        for (size_t i = 0; i < lines.size(); ++i) {
            INFO(lines[i].id);
            CHECK(toString(lines[i].id) == comparison.lines[i].id);
            REQUIRE(comparison.lines[i].predictedBytes);
            CHECK(lines[i].bytes == Approx(*comparison.lines[i].predictedBytes).margin(1));
        }
        if (seq == 128.0) {
            REQUIRE(comparison.result.peakPhase == membudget::StepPhase::optimizerStep);
            REQUIRE(lines[2].id == membudget::LineId::optimizer);
            REQUIRE(lines[3].id == membudget::LineId::activations);
            // Differs from the ledger's own lines exactly where the step adds its FP32 gradient copy.
            CHECK(lines[2].bytes < comparison.result.lines[2].bytes);
            CHECK(lines[3].bytes > 0);
            CHECK(comparison.result.lines[3].bytes == 0);
        }
    }
    membudget::Config invalid;
    invalid.tp = 0;
    CHECK(membudget::measurableLines(invalid).empty());
}

TEST_CASE("the error band: the compiled-in table is the engine's own prediction of every measured row", "[validation][band]") {
    const auto all = rows();
    const auto& runs = membudget::validationRuns();
    REQUIRE(runs.size() == all.size());
    for (size_t i = 0; i < all.size(); ++i) {
        const auto& row = all[i];
        INFO(row.file);
        const auto* run = &runs[i];  // the same order: the fixtures' file names
        CHECK(run->error == Approx(row.error).margin(1e-6));
        CHECK(run->complete == row.complete);
        membudget::Config config = membudget::test::configFrom(row.fixture["config"]);
        config.method = membudget::Method::membudget;
        const membudget::RunFamily family = membudget::runFamily(config);
        CHECK(run->framework == family.framework);
        CHECK(run->features == family.features);
    }
}

TEST_CASE("the error band: runs like it give the band, a margin inside it is tight, and what was not measured says so",
          "[validation][band]") {
    using namespace membudget;
    const auto& runs = validationRuns();
    // A Megatron-LM dense layout without PP or CP: the complete rows of that family give the band.
    Config c;
    c.method = Method::membudget;
    c.tp = 8;
    c.dp = 4;
    c.pp = 1;
    double n = 0, low = 1, high = -1;
    for (const auto& r : runs)
        if (r.complete && r.framework == "megatron" && r.features == 0) {
            ++n;
            low = std::min(low, r.error);
            high = std::max(high, r.error);
        }
    REQUIRE(n > 0);
    const Result result = evaluate(c);
    REQUIRE(result.ok());
    CHECK(result.errorBand.validated);
    CHECK(result.errorBand.runs == n);
    CHECK(result.errorBand.lowError == low);
    CHECK(result.errorBand.highError == high);
    CHECK(result.errorBand.text.find("validated on") == 0);
    // Under the headroom line by less than the worst under-prediction: tight; with room beyond it: fits.
    REQUIRE(low < 0);
    Config close = c;
    close.gpuGb = result.totalBytes * (1 + 0.5 * -low) / (1 - c.headroom) / 1e9;
    const Result inside = evaluate(close);
    CHECK(inside.totalBytes <= inside.usableBytes);
    CHECK(inside.verdict == Verdict::tight);
    Config roomy = c;
    roomy.gpuGb = result.totalBytes * (1 + 2 * -low) / (1 - c.headroom) / 1e9;
    CHECK(evaluate(roomy).verdict == Verdict::fits);
    // Another method, a framework with no complete run, a family not measured: each says it is not validated.
    Config chapter = c;
    chapter.method = Method::chapter;
    CHECK_FALSE(evaluate(chapter).errorBand.validated);
    CHECK(evaluate(chapter).errorBand.text.find("not validated") == 0);
    Config titan = c;
    titan.framework = Framework::torchtitan;
    titan.tp = 1;
    titan.dp = 32;
    titan.zero = 3;
    const ErrorBand titanBand = evaluate(titan).errorBand;
    CHECK_FALSE(titanBand.validated);
    CHECK(titanBand.text.find("not validated for torchtitan, dense") == 0);
    Config experts = c;
    experts.experts = 8;
    experts.ep = 4;
    experts.dp = 4;
    const ErrorBand expertBand = errorBand(experts);
    CHECK_FALSE(expertBand.validated);
    CHECK(expertBand.text.find("nearest:") != std::string::npos);
    // The planner reads the same band: no row it calls a fit lies inside it.
    PlanRequest request;
    request.base = c;
    request.gpus = 32;
    request.globalBatch = 128;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.errors.empty());
    for (const auto& row : plan.rows) {
        if (row.verdict != Verdict::fits) continue;
        const Config loaded = planRowConfig(request.base, row);
        CHECK(bandPeakBytes(loaded, row.peakBytes) <= evaluate(loaded).usableBytes);
    }
}
