// What is wrong with an input, or what the engine chose for the user: the field it is about and a message.
#pragma once

#include <string>

namespace membudget {

struct Problem {
    std::string field;  // a key of the field table, or "" for the configuration as a whole
    std::string message;

    bool operator==(const Problem&) const = default;
};

}  // namespace membudget
