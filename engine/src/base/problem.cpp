// A problem's columns (membudget/base/record.hpp): {field, message} in the JSON and on the page.
#include "membudget/base/problem.hpp"

namespace membudget {

namespace {

using record::member;

constexpr Column kColumns[] = {
    member<&Problem::field>("field", RECORD_JSON("field"),
                            {.doc = RECORD_DOC("A key of the field table, or \"\" for the configuration as a whole.")}),
    member<&Problem::message>("message", RECORD_JSON("message")),
};

}  // namespace

constinit const RecordTable kProblemRecord{RECORD_NAME("Problem"), kColumns, kAlways, kAlways,
                                           RECORD_DOC("What is wrong with an input, or what the engine chose: the field and a message.")};

}  // namespace membudget
