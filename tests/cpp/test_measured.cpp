// `membudget compare-measured`: a measured file (tests/fixtures/measured-sample.json, hand-written around a
// CPU run of tools/measure/measure.py) against the engine's prediction for its configuration.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/config.hpp"

using nlohmann::json;

namespace {

using Run = membudget::test::CliRun;

Run run(std::vector<std::string> args, const std::string& input = "") { return membudget::test::cliRun(std::move(args), input); }

const json& sample() { return membudget::test::fixture("measured-sample"); }

// The engine's own prediction for a measured file's configuration (method membudget: the sample names none).
membudget::Result predicted(const json& file = sample()) {
    membudget::Config config = membudget::test::configFrom(file["config"]);
    config.method = membudget::Method::membudget;
    return membudget::evaluate(config);
}

double allowanceBytes(const membudget::Result& result) {
    double bytes = 0;
    for (const auto& line : result.lines)
        if (line.origin == std::nullopt) bytes += line.bytes;
    return bytes;
}

double phaseBytes(const membudget::Result& result, const std::string& name) {
    for (const auto& phase : result.phases)
        if (toString(phase.name) == name) return phase.totalBytes;
    FAIL("no phase " << name);
    return 0;
}

double predictedOf(const membudget::MeasuredComparison& comparison, const std::string& id) {
    for (const auto& line : comparison.lines)
        if (line.id == id && line.predictedBytes) return *line.predictedBytes;
    FAIL("no predicted line " << id);
    return 0;
}

double predictedLine(const membudget::Result& result, const std::string& id) {
    for (const auto& line : result.lines)
        if (toString(line.id) == id) return line.bytes;
    FAIL("no predicted line " << id);
    return 0;
}

const json& row(const json& output, const std::string& id) {
    for (const auto& line : output["lines"])
        if (line["id"] == id) return line;
    FAIL("no line " << id);
    static const json none;
    return none;
}

}  // namespace

TEST_CASE("compare-measured: the engine and PyTorch count the same parameter and gradient bytes", "[measured]") {
    // The sample's static lines are what measure.py summed over real tensors of the same architecture:
    // BF16 weights and gradients, FP32 master + Adam m and v (+ Adam's step counters, 4 bytes a tensor).
    const auto comparison = membudget::compareMeasured(sample().dump());
    REQUIRE(comparison.ok());
    CHECK(comparison.result.method == membudget::Method::membudget);
    const auto result = predicted();
    REQUIRE(result.ok());
    const auto& lines = sample()["lines"];
    CHECK(lines["parameters"].get<double>() == predictedLine(result, "parameters"));
    CHECK(lines["gradients"].get<double>() == predictedLine(result, "gradients"));
    const double stepCounters = lines["optimizer"].get<double>() - predictedOf(comparison, "optimizer");
    // torch's AdamW keeps one FP32 step counter per parameter tensor: 9 a layer (Q, K, V, O, gate, up, down,
    // two norms), the embedding, the final norm and the output layer.
    CHECK(stepCounters == 4 * (9 * sample()["config"]["layers"].get<double>() + 3));
}

TEST_CASE("compare-measured: the lines at forward/backward, where measure.py measures them", "[measured]") {
    // The sample is small enough that the optimizer step (with its FP32 gradient copy) is the predicted peak:
    // its ledger then shows the step, and the comparison rebuilds the forward/backward lines.
    const auto step = predicted();
    REQUIRE(step.peakPhase == membudget::StepPhase::optimizerStep);
    const auto atStep = membudget::compareMeasured(sample().dump());
    REQUIRE(atStep.ok());
    CHECK(atStep.linePhase == membudget::StepPhase::forwardBackward);
    double activations = 0;
    for (const auto& tensor : step.tensors) activations += tensor.bytes;
    CHECK(predictedOf(atStep, "activations") == activations);
    CHECK(predictedOf(atStep, "optimizer") < predictedLine(step, "optimizer"));
    CHECK(predictedOf(atStep, "parameters") + predictedOf(atStep, "gradients") + predictedOf(atStep, "optimizer") + activations +
              predictedOf(atStep, "workspace") ==
          Approx(phaseBytes(step, "forward/backward") - allowanceBytes(step)));
    CHECK(atStep.predictedTotalBytes == step.totalBytes);

    // With longer sequences forward/backward is the peak, and the rebuilt lines are the ledger's own.
    json longer = sample();
    longer["config"]["seq"] = 1024;
    const auto fb = predicted(longer);
    REQUIRE(fb.peakPhase == membudget::StepPhase::forwardBackward);
    const auto atForwardBackward = membudget::compareMeasured(longer.dump());
    REQUIRE(atForwardBackward.ok());
    for (const auto& line : fb.lines) CHECK(predictedOf(atForwardBackward, std::string(toString(line.id))) == line.bytes);

    json inference = sample();
    inference["config"]["mode"] = "inference";
    CHECK(membudget::compareMeasured(inference.dump()).linePhase.has_value() == false);
}

TEST_CASE("compare-measured: every predicted and every measured line is listed, differences are measured − predicted", "[measured]") {
    json file = sample();
    file["config"]["seq"] = 1024;      // forward/backward peaks: the ledger's lines are the ones compared
    file["lines"]["kv_cache"] = 4096;  // measured but not predicted in a training run
    const Run r = run({"compare-measured", "-", "--json"}, file.dump());
    REQUIRE(r.status == 0);
    const json output = json::parse(r.out);
    const auto result = predicted(file);
    REQUIRE(result.peakPhase == membudget::StepPhase::forwardBackward);
    REQUIRE(output["lines"].size() == result.lines.size() + 1);
    for (size_t i = 0; i < result.lines.size(); ++i) {
        const auto& line = output["lines"][i];
        CHECK(line["id"] == toString(result.lines[i].id));
        CHECK(line["predicted_bytes"].get<double>() == result.lines[i].bytes);
        if (file["lines"].contains(toString(result.lines[i].id))) {
            const double measured = file["lines"][toString(result.lines[i].id)].get<double>();
            CHECK(line["measured_bytes"].get<double>() == measured);
            CHECK(line["difference_bytes"].get<double>() == measured - result.lines[i].bytes);
            CHECK(line["difference_percent"].get<double>() == Approx((measured - result.lines[i].bytes) / result.lines[i].bytes * 100));
        } else {
            CHECK(line["measured_bytes"].is_null());
            CHECK(line["difference_bytes"].is_null());
        }
    }
    CHECK(output["lines"].back()["id"] == "kv_cache");
    CHECK(output["lines"].back()["predicted_bytes"].is_null());
    CHECK(output["not_predicted"] == json::array({"kv_cache"}));
    // The allowances are predicted but never measured: the allocator does not see the context or NCCL.
    CHECK(output["not_measured"] == json::array({"workspace", "buffers", "cuda_context"}));
    CHECK(row(output, "buffers")["allowance"] == true);
    CHECK(row(output, "parameters")["allowance"] == false);
}

TEST_CASE("compare-measured: totals against the peaks the file has", "[measured]") {
    const auto result = predicted();
    const double withoutAllowances = result.totalBytes - allowanceBytes(result);
    const Run r = run({"compare-measured", "-", "--json"}, sample().dump());
    REQUIRE(r.status == 0);
    const json output = json::parse(r.out);
    CHECK(output["predicted_total_bytes"].get<double>() == result.totalBytes);
    CHECK(output["predicted_without_allowances_bytes"].get<double>() == withoutAllowances);
    REQUIRE(output["totals"].size() == 4);
    const double allocated = sample()["peak"]["allocated_bytes"].get<double>(), reserved = sample()["peak"]["reserved_bytes"].get<double>();
    CHECK(output["totals"][0] == json{{"predicted", "total"},
                                      {"measured", "peak_allocated"},
                                      {"predicted_bytes", static_cast<std::int64_t>(result.totalBytes)},
                                      {"measured_bytes", static_cast<std::int64_t>(allocated)},
                                      {"difference_bytes", static_cast<std::int64_t>(allocated - result.totalBytes)},
                                      {"difference_percent", (allocated - result.totalBytes) / result.totalBytes * 100}});
    CHECK(output["totals"][1]["predicted"] == "total_without_allowances");
    CHECK(output["totals"][1]["difference_bytes"].get<double>() == allocated - withoutAllowances);
    CHECK(output["totals"][3]["measured"] == "peak_reserved");
    CHECK(output["totals"][3]["measured_bytes"].get<double>() == reserved);

    // Each predicted phase against the peak of the matching phases of the last measured step (3).
    REQUIRE(output["phases"].size() == 2);
    double forwardBackwardPeak = 0, optimizerPeak = 0;
    for (const auto& phase : sample()["phases"]) {
        if (phase["step"] != 3) continue;
        const double peak = phase["peak_allocated_bytes"].get<double>();
        if (phase["phase"] == "optimizer")
            optimizerPeak = peak;
        else
            forwardBackwardPeak = std::max(forwardBackwardPeak, peak);
    }
    CHECK(output["phases"][0]["predicted"] == "forward/backward");
    CHECK(output["phases"][0]["predicted_bytes"].get<double>() == Approx(phaseBytes(result, "forward/backward") - allowanceBytes(result)));
    CHECK(output["phases"][0]["measured_bytes"].get<double>() == forwardBackwardPeak);
    CHECK(output["phases"][1]["predicted"] == "optimizer step");
    CHECK(output["phases"][1]["predicted_bytes"].get<double>() == Approx(phaseBytes(result, "optimizer step") - allowanceBytes(result)));
    CHECK(output["phases"][1]["measured_bytes"].get<double>() == optimizerPeak);

    json noPeak = sample();
    noPeak.erase("peak");  // a CPU dry run has none
    const Run dry = run({"compare-measured", "-", "--json"}, noPeak.dump());
    REQUIRE(dry.status == 0);
    CHECK(json::parse(dry.out)["totals"].empty());
    const Run dryText = run({"compare-measured", "-"}, noPeak.dump());
    CHECK(dryText.out.find("no peak in the file") != std::string::npos);
}

TEST_CASE("compare-measured: the table names every line, its unit and what was not measured", "[measured]") {
    const auto result = predicted();
    const Run gb = run({"compare-measured", "-"}, sample().dump());
    REQUIRE(gb.status == 0);
    CHECK(gb.err.empty());
    for (const auto& line : result.lines) CHECK(gb.out.find(line.label) != std::string::npos);
    CHECK(gb.out.find("Predicted (GB)") != std::string::npos);
    CHECK(gb.out.find("not measured (an allowance") != std::string::npos);
    CHECK(gb.out.find("Predicted, not measured: workspace, buffers, cuda_context") != std::string::npos);
    CHECK(gb.out.find("peak allocated") != std::string::npos);
    CHECK(gb.out.find("peak reserved") != std::string::npos);
    CHECK(gb.out.find(sample()["source"].get<std::string>()) != std::string::npos);
    const Run gib = run({"compare-measured", "-", "--gib"}, sample().dump());
    CHECK(gib.out.find("Predicted (GiB)") != std::string::npos);
    CHECK(gib.out.find("Predicted (GB)") == std::string::npos);
}

TEST_CASE("compare-measured: method membudget unless the configuration names one", "[measured]") {
    json file = sample();
    file["config"]["method"] = "chapter";
    const Run chapter = run({"compare-measured", "-", "--json"}, file.dump());
    REQUIRE(chapter.status == 0);
    CHECK(json::parse(chapter.out)["method"] == "chapter");
    file["config"]["method"] = "membudget";
    file["config"]["model"] = "chapter-70b";  // a preset whose own method is chapter: explicit keys still win
    file["config"].erase("method");
    const Run preset = run({"compare-measured", "-", "--json"}, file.dump());
    REQUIRE(preset.status == 0);
    CHECK(json::parse(preset.out)["method"] == "membudget");
}

TEST_CASE("compare-measured: a bad file exits 2 and names the field", "[measured]") {
    auto bad = [](const std::string& text, const std::string& expected) {
        const Run r = run({"compare-measured", "-"}, text);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK_THAT(r.err, Catch::Contains(expected));
    };
    bad("{not json", "not JSON");
    bad("[1, 2]", "must be a JSON object; got an array");
    json file = sample();
    file["format"] = "membudget-measured/2";
    bad(file.dump(), "format must be \"membudget-measured/1\"");
    file = sample();
    file.erase("config");
    bad(file.dump(), "config must be the object");
    file = sample();
    file.erase("lines");
    bad(file.dump(), "lines must be an object");
    file = sample();
    file["lines"]["gradients"] = "3.7 GB";
    bad(file.dump(), "lines.gradients must be a whole number of bytes");
    file = sample();
    file["lines"]["optimizer"] = -1;
    bad(file.dump(), "lines.optimizer must be a whole number of bytes");
    file = sample();
    file["peak"]["allocated_bytes"] = 1.5;
    bad(file.dump(), "peak.allocated_bytes must be a whole number");
    file = sample();
    file["config"]["tp"] = 0;
    bad(file.dump(), "config: tp must be an integer from 1");
    file = sample();
    file["config"]["tensor_parallel"] = 2;
    bad(file.dump(), "tensor_parallel");
    file = sample();
    file["config"]["heads"] = 5;  // kv_heads 2 no longer divides heads: the engine's own validation
    bad(file.dump(), "config: ");

    const Run missing = run({"compare-measured", "/nonexistent/measured.json"});
    CHECK(missing.status == 2);
    CHECK_THAT(missing.err, Catch::Contains("cannot read /nonexistent/measured.json"));
}

TEST_CASE("compare-measured: the errors carry their field", "[measured]") {
    json file = sample();
    file["lines"]["gradients"] = true;
    const auto comparison = membudget::compareMeasured(file.dump());
    REQUIRE(comparison.errors.size() == 1);
    CHECK(comparison.errors[0].field == "lines.gradients");
    file = sample();
    file["phases"][2]["peak_allocated_bytes"] = "lots";
    const auto phase = membudget::compareMeasured(file.dump());
    REQUIRE(phase.errors.size() == 1);
    CHECK(phase.errors[0].field == "phases[2].peak_allocated_bytes");
    file = sample();
    file["config"]["seq"] = "long";
    const auto config = membudget::compareMeasured(file.dump());
    REQUIRE_FALSE(config.ok());
    CHECK(config.errors[0].field == "config.seq");
}
