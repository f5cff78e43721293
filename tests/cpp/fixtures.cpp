#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "cli.hpp"
#include "fixtures.hpp"
#include "membudget/io/json.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"

namespace membudget::test {

const nlohmann::json& fixture(const std::string& name) {
    static std::map<std::string, nlohmann::json> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        std::ifstream file(std::string(MEMBUDGET_FIXTURES_DIR) + "/" + name + ".json");
        REQUIRE(file.good());
        std::stringstream text;
        text << file.rdbuf();
        it = cache.emplace(name, nlohmann::json::parse(text.str())).first;
    }
    return it->second;
}

double stageLine(const Result& r, const Stage& stage, const std::string& id) {
    for (size_t i = 0; i < r.lines.size(); ++i)
        if (toString(r.lines[i].id) == id) return stage.lineBytes[i];
    return -1;
}

std::string refusedAt(const Config& config) {
    const auto problems = validate(config);
    return problems.empty() ? std::string("(valid)") : problems.front().field;
}

Config configFrom(const nlohmann::json& object) {
    AssignmentList list = parseJsonConfig(object.dump());
    REQUIRE(list.problems.empty());
    ParsedConfig parsed = applyAssignments(list.assignments);
    REQUIRE(parsed.problems.empty());
    return parsed.config;
}

const nlohmann::json& hfCase(std::string_view prefix, const char* list) {
    for (const auto& c : fixture("hf-configs")[list])
        if (c["name"].get<std::string>().rfind(prefix, 0) == 0) return c;
    FAIL("hf-configs.json has no case named " << prefix << "…");
    throw std::logic_error("unreachable");
}

void checkHfExpect(const Config& imported, const nlohmann::json& expect) {
    for (const auto& [key, value] : expect.items()) {
        INFO(key);
        if (key == "parameter_count") {
            CHECK(evaluate(imported).parameterCount == value.get<double>());
            continue;
        }
        const FieldSpec* field = findField(key);
        REQUIRE(field != nullptr);
        const std::string want = value.is_string()    ? value.get<std::string>()
                                 : value.is_boolean() ? (value.get<bool>() ? "true" : "false")
                                                      : value.dump();
        CHECK(fieldText(imported, *field) == want);
    }
}

CliRun cliRun(std::vector<std::string> args, const std::string& input) {
    args.insert(args.begin(), "membudget");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::istringstream in(input);
    std::ostringstream out, err;
    const int status = runCli(static_cast<int>(argv.size()), argv.data(), in, out, err);
    return {status, out.str(), err.str()};
}

// A MoE preset trained by `framework` with balanced routing on one node of 8 GPUs: EP 8, one micro-batch of mb × 4,096
// tokens (Megatron-LM: the distributed optimizer; the others: FSDP2).
Config balancedMoeRun(const char* preset, Framework framework, double mb, Checkpointing ckpt) {
    Config c;
    applyModelPreset(c, *findModelPreset(preset));
    c.method = Method::membudget;
    c.framework = framework;
    c.tp = 1;
    c.pp = 1;
    c.dp = 8;
    c.ep = 8;
    c.zero = framework == Framework::megatron ? 1 : 3;
    c.mb = mb;
    c.seq = 4096;
    c.microbatches = 1;
    c.moeForceBalance = true;
    c.ckpt = ckpt;
    return c;
}

}  // namespace membudget::test
