// An advice's columns (membudget/base/record.hpp): the CLI's `advise --json` and the page's Advice.
#include "membudget/base/record.hpp"
#include "membudget/plan/advice.hpp"

namespace membudget {

namespace {

using record::member;

constexpr Column kColumns[] = {
    member<&Advice::change>("change", RECORD_JSON("change"), {.doc = RECORD_DOC("e.g. \"zero = 3\"")}),
    member<&Advice::query>("query", RECORD_JSON("query"), {.doc = RECORD_DOC("The keys it sets, as a link query (zero=3&…).")}),
    member<&Advice::totalBytes>("totalBytes", RECORD_JSON("total_bytes")),
    member<&Advice::savedBytes>("savedBytes", RECORD_JSON("saved_bytes")),
    member<&Advice::verdict>("verdict", RECORD_JSON("verdict"), {.none = ""}),
    member<&Advice::stepTimeChange>(
        "stepTimeChange", RECORD_JSON("step_time_change"),
        {.kind = CellKind::fraction,
         .doc = RECORD_DOC("Estimated step time after ÷ before − 1 (0.12: 12% slower); 0 when either has no estimate.")}),
    member<&Advice::keepsTask>(
        "keepsTask", RECORD_JSON("keeps_task"),
        {.doc = RECORD_DOC("False for LoRA or QLoRA instead of training every weight: offered after the changes that keep the task.")}),
    member<&Advice::cost>("cost", RECORD_JSON("cost")),
};

}  // namespace

constinit const RecordTable kAdviceRecord{RECORD_NAME("Advice"), kColumns, kAlways, kAlways,
                                          RECORD_DOC("One change that lowers the peak (the CLI's `advise`).")};

}  // namespace membudget
