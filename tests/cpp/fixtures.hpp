// Access to the shared fixtures in tests/fixtures/, read by the native, wasm and browser tests alike.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "membudget/config.hpp"

namespace membudget::test {

const nlohmann::json& fixture(const std::string& name);  // tests/fixtures/<name>.json, parsed once

// A fixture's "config" object, through the same JSON reader the CLI uses; fails the test on a problem.
Config configFrom(const nlohmann::json& object);

// The command line run in-process (runCli over strings): its exit status, standard output and error.
struct CliRun {
    int status;
    std::string out, err;
};
CliRun cliRun(std::vector<std::string> args, const std::string& input = "");

}  // namespace membudget::test
