// The URL query codec: a configuration as `tp=8&pp=4`, and back.
#pragma once

#include <string>
#include <string_view>

#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// Keys that belong to the page's view (`embed`, `unit`) and to the Hub file its model came from (`hf`,
// `hf_revision`, `hf_file`), not to the configuration; the codec passes over them without a notice.
bool isViewKey(std::string_view key);

// URL query codec: `tp=8&pp=4`, keys in canonical order, only fields that differ from presetBaseline.
// parseQuery takes a bare query, one starting with '?', or a whole URL.
std::string encodeQuery(const Config& config);
AssignmentList parseQuery(std::string_view query);
ParsedConfig decodeQuery(std::string_view query);
// A query over a configuration (an advice's change, `zero=3&ckpt=full`): decoded as decodeQuery decodes a link,
// percent-decoding and presets first included, with the keys the query leaves out kept from `base`. What could
// not be read is in problems and left unapplied, as in a link; decodeQuery is applyQuery over the defaults.
ParsedConfig applyQuery(const Config& base, std::string_view query);

}  // namespace membudget
