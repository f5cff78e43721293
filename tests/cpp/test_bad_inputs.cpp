// The bad-inputs table (tests/fixtures/bad-inputs.json) through every native entry point: the query
// decoder, the JSON reader and the config.json importer, each followed by validate(); then the CLI
// in-process (--url, --key=value flags, eval -, --config -, --hf-config -), which must exit 2 and report
// exactly the same fields and messages. The wasm module and the page read the same table.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "cli.hpp"
#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;
using membudget::test::fixture;
using nlohmann::json;

namespace {

using Run = membudget::test::CliRun;

Run run(std::vector<std::string> args, const std::string& input = "") { return membudget::test::cliRun(std::move(args), input); }

const json& inputs() { return fixture("bad-inputs")["inputs"]; }

std::string text(const json& entry, const char* key) { return entry.contains(key) ? entry[key].get<std::string>() : ""; }

bool isValid(const json& entry) { return entry.value("valid", false); }

void append(std::vector<Problem>& to, const std::vector<Problem>& more) { to.insert(to.end(), more.begin(), more.end()); }

// What each route reports, in the order the CLI reports it: what could not be read, then validate().
std::vector<Problem> queryProblems(const std::string& query) {
    const ParsedConfig parsed = decodeQuery(query);
    std::vector<Problem> problems = parsed.problems;
    append(problems, validate(parsed.config));
    return problems;
}

std::vector<Problem> jsonProblems(const std::string& document) {
    const AssignmentList list = parseJsonConfig(document);
    const ParsedConfig parsed = applyAssignments(list.assignments);
    std::vector<Problem> problems = list.problems;
    append(problems, parsed.problems);
    append(problems, validate(parsed.config));
    return problems;
}

std::vector<Problem> hfProblems(const std::string& document) {
    const HfImport imported = importHfConfig(document);
    std::vector<Problem> problems = imported.errors;
    append(problems, validate(imported.config));
    return problems;
}

const Problem* expected(const std::vector<Problem>& problems, const json& entry) {
    const std::string field = text(entry, "field"), fragment = text(entry, "message_contains");
    const auto it = std::find_if(problems.begin(), problems.end(),
                                 [&](const Problem& p) { return p.field == field && p.message.find(fragment) != std::string::npos; });
    return it == problems.end() ? nullptr : &*it;
}

std::string listed(const std::vector<Problem>& problems) {
    std::string out;
    for (const auto& p : problems) out += "\n  [" + p.field + "] " + p.message;
    return out.empty() ? " (none)" : out;
}

std::vector<Problem> cliErrors(const std::string& out) {
    std::vector<Problem> problems;
    const json result = json::parse(out);
    for (const auto& e : result["errors"]) problems.push_back({e["field"], e["message"]});
    return problems;
}

// "NaN" or "Infinity" in a text the engine wrote means a number went non-finite ("ZeRO-Infinity" is a name).
bool hasNonFiniteText(std::string s) {
    for (size_t at; (at = s.find("ZeRO-Infinity")) != std::string::npos;) s.erase(at, 13);
    return s.find("NaN") != std::string::npos || s.find("Infinity") != std::string::npos || s == "inf" || s == "-inf" || s == "nan";
}

// Every number of a result's JSON is finite (a NaN would have been written as null) and no text shows one.
void checkFinite(const json& value, const std::string& path = "") {
    if (value.is_object()) {
        for (const auto& [key, item] : value.items()) checkFinite(item, path + "." + key);
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i) checkFinite(value[i], path + "[" + std::to_string(i) + "]");
    } else {
        INFO(path << " = " << value.dump());
        // reserved_bytes is null where the method does not model the allocator (every method but membudget's); run
        // where no token budget is given;
        auto endsWith = [&path](std::string_view tail) { return path.size() >= tail.size() && path.ends_with(tail); };
        // serving.benchmark where no benchmark is asked for (num_prompts unset).
        const bool nullable = endsWith(".reserved_bytes") || path == ".run" || path == ".serving.benchmark";
        if (!nullable) CHECK_FALSE(value.is_null());
        if (value.is_number_float()) CHECK(std::isfinite(value.get<double>()));
        if (value.is_string()) CHECK_FALSE(hasNonFiniteText(value.get<std::string>()));
    }
}

void checkValidResult(const json& entry, const Config& config) {
    const Result result = evaluate(config);
    REQUIRE(result.ok());
    CHECK(toString(result.verdict) == text(entry, "verdict"));
    CHECK(std::isfinite(result.totalBytes));
    CHECK(result.totalBytes > 0);
    checkFinite(json::parse(resultToJson(result, config)));
}

int exitFor(const std::string& verdict) { return verdict == "fits" ? 0 : 1; }

// The query as --key=value flags, where it reads without a notice (flags cannot carry malformed pairs, and
// CLI11 refuses an empty value itself).
std::optional<std::vector<std::string>> asFlags(const std::string& query) {
    const AssignmentList list = parseQuery(query);
    if (!list.problems.empty()) return std::nullopt;
    std::vector<std::string> flags;
    for (const auto& a : list.assignments) {
        if (!findField(a.key) || a.text.empty()) return std::nullopt;
        flags.push_back("--" + a.key + "=" + a.text);
    }
    return flags;
}

std::vector<Problem> sorted(std::vector<Problem> problems) {
    std::sort(problems.begin(), problems.end(),
              [](const Problem& a, const Problem& b) { return std::tie(a.field, a.message) < std::tie(b.field, b.message); });
    return problems;
}

}  // namespace

TEST_CASE("the bad-inputs table: at least 60 inputs, each well-formed, every kind of bad value present", "[bad-inputs]") {
    REQUIRE(inputs().size() >= 60);
    std::set<std::string> names;
    size_t invalid = 0, valid = 0;
    for (const auto& entry : inputs()) {
        INFO(entry.dump());
        CHECK(names.insert(text(entry, "name")).second);
        CHECK((entry.contains("query") || entry.contains("json") || entry.contains("hf")));
        if (isValid(entry)) {
            ++valid;
            CHECK((text(entry, "verdict") == "fits" || text(entry, "verdict") == "tight" || text(entry, "verdict") == "does_not_fit"));
        } else {
            ++invalid;
            CHECK(entry.contains("field"));
            CHECK_FALSE(text(entry, "message_contains").empty());
        }
    }
    CHECK(invalid >= 60);
    CHECK(valid >= 1);
    // The kinds the validator must refuse, each written at least once.
    std::string all;
    for (const auto& entry : inputs()) all += text(entry, "query") + " " + text(entry, "json") + "\n";
    for (const char* kind :
         {"tp=-8 ", "tp=0 ", "pp=2.5 ", "=NaN ", "=Infinity ", "1e308 ", "1e999 ", "1e400}", "{\"tp\": \"4\"}", "tp= ", "tp=4&tp=2 ",
          "\"tp\": 4, \"pp\": 2, \"tp\": 8", "bogus=1 ", "model=gpt-7 ", "gpus=100 ", "first_stage_layers=", "vpp=3"}) {
        INFO("an input containing " << kind);
        CHECK(all.find(kind) != std::string::npos);
    }
}

TEST_CASE("bad inputs through the query decoder and validate", "[bad-inputs][codec]") {
    for (const auto& entry : inputs()) {
        if (!entry.contains("query")) continue;
        const std::string query = text(entry, "query");
        INFO(text(entry, "name") << ": ?" << query);
        const auto problems = queryProblems(query);
        INFO("reported:" << listed(problems));
        if (isValid(entry)) {
            CHECK(problems.empty());
            checkValidResult(entry, decodeQuery(query).config);
        } else {
            CHECK(expected(problems, entry) != nullptr);
        }
    }
}

TEST_CASE("bad inputs through the JSON reader and validate", "[bad-inputs][json]") {
    for (const auto& entry : inputs()) {
        if (!entry.contains("json")) continue;
        const std::string document = text(entry, "json");
        INFO(text(entry, "name") << ": " << document);
        const auto problems = jsonProblems(document);
        INFO("reported:" << listed(problems));
        if (isValid(entry)) {
            CHECK(problems.empty());
            const AssignmentList list = parseJsonConfig(document);
            checkValidResult(entry, applyAssignments(list.assignments).config);
        } else {
            CHECK(expected(problems, entry) != nullptr);
        }
    }
}

TEST_CASE("bad inputs through the config.json importer and validate", "[bad-inputs][hf]") {
    for (const auto& entry : inputs()) {
        if (!entry.contains("hf")) continue;
        INFO(text(entry, "name") << ": " << text(entry, "hf"));
        const auto problems = hfProblems(text(entry, "hf"));
        INFO("reported:" << listed(problems));
        CHECK(expected(problems, entry) != nullptr);
        CHECK(importHfConfig(text(entry, "hf")).config == Config{});  // all or nothing
    }
}

TEST_CASE("bad inputs through the CLI: exit 2 with the same fields and messages, by every route", "[bad-inputs][cli]") {
    for (const auto& entry : inputs()) {
        INFO(text(entry, "name"));
        if (entry.contains("query")) {
            const std::string query = text(entry, "query");
            INFO("--url " << query);
            const Run asJson = run({"--json", "--url", query});
            if (isValid(entry)) {
                CHECK(asJson.status == exitFor(text(entry, "verdict")));
                checkFinite(json::parse(asJson.out));
                CHECK(run({"--url", query}).status == exitFor(text(entry, "verdict")));
                continue;
            }
            const auto problems = queryProblems(query);
            CHECK(asJson.status == 2);
            CHECK(cliErrors(asJson.out) == problems);
            const Run table = run({"--url", query});
            CHECK(table.status == 2);
            CHECK(table.out.empty());
            if (const Problem* p = expected(problems, entry))
                CHECK_THAT(table.err, Catch::Contains("membudget: error: " + p->message + "\n"));
            if (const auto flags = asFlags(query)) {
                auto args = *flags;
                args.push_back("--json");
                const Run viaFlags = run(args);
                INFO("flags: " << asJson.out);
                CHECK(viaFlags.status == 2);
                CHECK(sorted(cliErrors(viaFlags.out)) == sorted(problems));
            }
        }
        if (entry.contains("json")) {
            const std::string document = text(entry, "json");
            INFO("eval - <<< " << document);
            const Run evalRun = run({"eval", "-"}, document);
            const Run configRun = run({"--config", "-", "--json"}, document);
            if (isValid(entry)) {
                CHECK(evalRun.status == exitFor(text(entry, "verdict")));
                checkFinite(json::parse(evalRun.out));
                CHECK(configRun.out == evalRun.out);
                continue;
            }
            CHECK(evalRun.status == 2);
            CHECK(cliErrors(evalRun.out) == jsonProblems(document));
            CHECK(configRun.status == 2);
            CHECK(configRun.out == evalRun.out);
        }
        if (entry.contains("hf")) {
            INFO("--hf-config - <<< " << text(entry, "hf"));
            const Run hf = run({"--json", "--hf-config", "-"}, text(entry, "hf"));
            CHECK(hf.status == 2);
            CHECK(cliErrors(hf.out) == hfProblems(text(entry, "hf")));
        }
    }
}
