// A torchtune YAML as torchtune reads it: OmegaConf.load, PyYAML's SafeLoader with OmegaConf's loader
// (omegaconf/_utils.py get_yaml_loader). The YAML parsers on both sides (yaml-cpp in the CLI, `yaml` on the page)
// hand over each unquoted scalar as written, type "plain"; what it means is decided here, once, for both.
#pragma once

#include <string_view>
#include <vector>

#include "membudget/model/assignments.hpp"

namespace membudget::detail {

// An unquoted scalar as OmegaConf's loader resolves it: YAML 1.1's booleans (yes, no, on, off, true, false in
// three cases), null (~, null, empty), integers (decimal, 0o-less octal 010, 0x hex, 0b binary, sexagesimal 1:30,
// underscores) and floats (PyYAML's, with OmegaConf's additions: 1e-5 and 1e5 without a dot; .inf, .nan), else a
// string (dates stay strings: OmegaConf drops PyYAML's timestamp resolver). Returns {type, text} as the JSON
// reader types them ("boolean", "null", "number", "string").
JsonValue resolveYamlPlain(std::string_view key, std::string_view text);

// Every "plain" value resolved, then OmegaConf's interpolations: a value that is exactly ${a.b} (absolute) or
// ${.b} / ${..b} (relative to its own node) takes the type and text of the value it names; one inside a string is
// replaced by its text. Bounded: ten levels of references, 1 MiB per string, 16 MiB written in all. What cannot be resolved (a resolver
// such as ${oc.env:HOME}, a key that is not there) is left as written, and the mapping says it does not read.
void resolveOmegaConf(std::vector<JsonValue>& values);

}  // namespace membudget::detail
