// TensorRT-LLM's PyTorch backend (tensorrt_llm/commands/serve.py, tensorrt_llm/bench, tensorrt_llm/llmapi/llm_args.py
// LlmArgs; docs/import.md): a `trtllm-serve` or `trtllm-bench` command, with the extra options YAML it names pasted
// beside it as a here-document (and a prepare_dataset.py token-norm-dist line for the benchmark's lengths), or that
// YAML alone, read into membudget's keys; and a configuration written back as a here-document and a `trtllm-serve`
// command. trtllm.cpp reads the command, trtllm_bench.cpp trtllm-bench and its dataset, trtllm_options.cpp the YAML
// (trtllm_settings.hpp, what they share), trtllm_export.cpp writes. Internal: import.cpp and export.cpp dispatch here.
#pragma once

#include <set>
#include <string_view>

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// Options that take no value (click's is_flag), so that the word after one is not read as its value (Words).
extern const std::set<std::string_view> kTrtllmSwitches;

// Whether a text names a TensorRT-LLM command (trtllm-serve, trtllm-bench, benchmarks/cpp/prepare_dataset.py): its
// words and here-documents are read (ImportSyntax::words_yaml), else it is the extra options YAML alone.
bool namesTrtllmCommand(std::string_view text);

// Whether a YAML mapping is TensorRT-LLM's extra options alone: a line that opens one of LlmArgs' own keys
// (kv_cache_config:, cuda_graph_config:, enable_attention_dp:, …, or a pre-1.0 one such as use_cuda_graph:).
bool looksLikeTrtllmOptions(std::string_view text);

// The command's words (input.lines) and its here-documents (input.values under heredocs[i].file and
// heredocs[i].yaml, as cli/import_parse.cpp and web/src/import-parse.ts hand them over), or the YAML alone
// (input.values from its root), onto membudget's keys.
void importTrtllm(const ImportInput& input, Mapping& m);

// `c` as a here-document of the extra options and a `trtllm-serve` command that names it.
ExportResult exportTrtllm(const Config& c);

}  // namespace membudget::detail
