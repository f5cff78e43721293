// What is wrong with an input, or what the engine chose for the user: the field it is about and a message.
#pragma once

#include <cstddef>
#include <string>

#include "membudget/base/record.hpp"

namespace membudget {

// A report (the CLI's errors, notices and "not imported" lines; the page's notices and import lists) shows this
// many entries of a list, then how many more there are: a link can hold 150,000 keys, a file 200,000 unmapped
// values. `membudget import` lists every unmapped value in its JSON.
inline constexpr size_t kListedEntries = 100;

struct Problem {
    std::string field;  // a key of the field table, or "" for the configuration as a whole
    std::string message;

    bool operator==(const Problem&) const = default;
};
extern const RecordTable kProblemRecord;

}  // namespace membudget
