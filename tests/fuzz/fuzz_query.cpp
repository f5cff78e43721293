// The URL query codec: any text decodes without crashing, and the configuration it decodes to (problems
// or not) re-encodes to a canonical query that decodes, without problems, to the same configuration.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/query.hpp"

using namespace membudget;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view query(reinterpret_cast<const char*>(data), size);
    const ParsedConfig decoded = decodeQuery(query);
    for (const auto& problem : decoded.problems) fuzz::check(!problem.message.empty(), "a problem without a message");

    const std::string encoded = encodeQuery(decoded.config);
    const ParsedConfig again = decodeQuery(encoded);
    fuzz::check(again.problems.empty(), "the canonical query does not decode cleanly",
                encoded + "\n" + (again.problems.empty() ? std::string() : again.problems.front().message));
    fuzz::check(again.config == decoded.config, "the canonical query decodes to another configuration", encoded);
    fuzz::check(encodeQuery(again.config) == encoded, "the canonical query is not canonical", encoded);
    return 0;
}
