// The fields' states of one configuration (membudget/evaluate/field_states.hpp) and their columns.
#include "membudget/evaluate/field_states.hpp"

#include "membudget/formats/launch.hpp"
#include "membudget/model/fields.hpp"

namespace membudget {

FieldStates fieldStates(const Config& config) {
    FieldStates out;
    for (const auto& f : fields()) {
        if (!fieldApplies(f, config)) out.hidden.push_back(f.key);
        if (const auto value = autoValue(f, config)) out.autos.push_back({f.key, *value});
        if (const std::string_view label = fieldLabel(f, config); label != f.label) out.labels.push_back({f.key, label});
    }
    out.launchFormat = launchFormat(config);
    return out;
}

namespace {

using record::member;

constexpr Column kAutoColumns[] = {
    member<&FieldAuto::key>("key", RECORD_JSON("key"), {.flags = kFieldKey}),
    member<&FieldAuto::value>("value", RECORD_JSON("value")),
};
constinit const RecordTable kAuto{RECORD_NAME("FieldAuto"), kAutoColumns};

constexpr Column kLabelColumns[] = {
    member<&FieldLabel::key>("key", RECORD_JSON("key"), {.flags = kFieldKey}),
    member<&FieldLabel::label>("label", RECORD_JSON("label")),
};
constinit const RecordTable kLabel{RECORD_NAME("FieldLabel"), kLabelColumns};

constexpr Column kColumns[] = {
    member<&FieldStates::hidden>("hidden", RECORD_JSON("hidden"),
                                 {.flags = kFieldKey, .doc = RECORD_DOC("The fields that do not apply to the configuration.")}),
    member<&FieldStates::autos>("auto", RECORD_JSON("auto"),
                                {.flags = kByKey, .child = &kAuto, .doc = RECORD_DOC("What each 0 that means auto stands for in it.")}),
    member<&FieldStates::labels>("labels", RECORD_JSON("labels"),
                                 {.flags = kByKey,
                                  .child = &kLabel,
                                  .doc = RECORD_DOC("Labels that differ in this configuration (mb in inference: concurrent sequences).")}),
    member<&FieldStates::launchFormat>(
        "launchFormat", RECORD_JSON("launch_format"),
        {.doc = RECORD_DOC("The format this configuration is launched with (membudget/formats/launch.hpp).")}),
};

}  // namespace

constinit const RecordTable kFieldStatesRecord{RECORD_NAME("FieldStates"), kColumns, kAlways, kAlways,
                                               RECORD_DOC("What the field table says of each field in one configuration.")};

}  // namespace membudget
