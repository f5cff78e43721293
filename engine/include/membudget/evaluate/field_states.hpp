// What the field table says of each field in one configuration, for the page's form: the fields that do not apply,
// the number each 0 that means auto stands for, the labels that differ, and the format it is launched with.
#pragma once

#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

struct FieldAuto {
    std::string_view key;
    double value = 0;
};
struct FieldLabel {
    std::string_view key;
    std::string_view label;
};

struct FieldStates {
    std::vector<std::string_view> hidden;                // the fields that do not apply (FieldSpec::applies)
    std::vector<FieldAuto> autos;                        // what each 0 that means auto stands for (autoValue)
    std::vector<FieldLabel> labels;                      // labels that differ in this configuration (mb in inference: concurrent sequences)
    ImportFormat launchFormat = ImportFormat::megatron;  // the format this configuration is launched with (launchFormat)
};
extern const RecordTable kFieldStatesRecord;

FieldStates fieldStates(const Config& config);

}  // namespace membudget
