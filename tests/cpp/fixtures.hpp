// Access to the shared fixtures in tests/fixtures/, read by the native, wasm and browser tests alike.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// A choice compared with or written into a test's JSON must be its id (toString): nlohmann/json would
// otherwise take the enumerator's number, and a comparison with the fixture's id would fail silently.
template <class E>
requires requires { ChoiceNames<E>::names; }
void to_json(nlohmann::json& out, E value) = delete;

}  // namespace membudget

namespace membudget::test {

const nlohmann::json& fixture(const std::string& name);  // tests/fixtures/<name>.json, parsed once

// A MoE preset trained by `framework` with balanced routing on one node of 8 GPUs: EP 8, one micro-batch of mb × 4,096
// tokens (Megatron-LM: the distributed optimizer; the others: FSDP2).
Config balancedMoeRun(const char* preset, Framework framework, double mb, Checkpointing ckpt);

// One stage's bytes on a ledger line (by its id), -1 when the result has no such line.
double stageLine(const Result& r, const Stage& stage, const std::string& id);

// The field validate() names first for a configuration, or "(valid)".
std::string refusedAt(const Config& config);

// A fixture's "config" object, through the same JSON reader the CLI uses; fails the test on a problem.
Config configFrom(const nlohmann::json& object);

// The case of tests/fixtures/hf-configs.json whose name starts with `prefix`, in `list` ("cases" or
// "inference_cases"); fails the test when there is none.
const nlohmann::json& hfCase(std::string_view prefix, const char* list = "cases");

// Checks a config.json case's "expect" against what was imported: each field's text as the field table writes it
// (strings as they are, booleans as true/false, numbers as JSON writes them), and parameter_count as evaluated.
void checkHfExpect(const Config& imported, const nlohmann::json& expect);

// The command line run in-process (runCli over strings): its exit status, standard output and error.
struct CliRun {
    int status;
    std::string out, err;
};
CliRun cliRun(std::vector<std::string> args, const std::string& input = "");

// A choice by its id, as fixtures and generated configurations name them; an unknown id throws (a test bug).
template <class E>
E choice(std::string_view id) {
    if (const auto value = parseChoice<E>(id)) return *value;
    throw std::invalid_argument("no such choice: " + std::string(id));
}

}  // namespace membudget::test
