// The JSON configuration reader (`membudget eval`, `--config`): any text parses without crashing, every
// problem names a field or the document, and the configuration read back from configToJson is the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

using namespace membudget;

namespace {

void checkRoundTrip(const Config& config) {
    const std::string json = configToJson(config);
    const AssignmentList reread = parseJsonConfig(json);
    fuzz::check(reread.problems.empty(), "configToJson's output does not read back cleanly",
                json + "\n" + (reread.problems.empty() ? std::string() : reread.problems.front().message));
    const ParsedConfig again = applyAssignments(reread.assignments);
    fuzz::check(again.problems.empty() && again.config == config, "configToJson's output reads back as another configuration", json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const AssignmentList list = parseJsonConfig(text);
    // A problem's field is the key it concerns, known or not (an unknown key given twice names that key).
    for (const auto& problem : list.problems) fuzz::check(!problem.message.empty(), "a problem without a message");
    const ParsedConfig parsed = applyAssignments(list.assignments);
    for (const auto& problem : parsed.problems) fuzz::check(!problem.message.empty(), "a problem without a message");

    // Most inputs are not JSON objects and read as the defaults, whose round trip is checked once.
    static const bool defaultsChecked = (checkRoundTrip(Config{}), true);
    if (defaultsChecked && !(parsed.config == Config{})) checkRoundTrip(parsed.config);
    return 0;
}
