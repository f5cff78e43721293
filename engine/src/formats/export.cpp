// A configuration written in a framework's own form (docs/import.md), the inverse of that framework's import
// mapping: import(export(config)) gives the configuration back for every key the format can say. exportConfig
// hands the configuration to the framework's file (megatron_export.cpp, torchtitan.cpp, torchtune.cpp, deepspeed.cpp,
// vllm.cpp, sglang.cpp, trtllm.cpp), each written over the shared writer (writer.cpp).
#include "membudget/formats/export.hpp"

#include "formats/deepspeed.hpp"
#include "formats/megatron.hpp"
#include "formats/sglang.hpp"
#include "formats/torchtitan.hpp"
#include "formats/torchtune.hpp"
#include "formats/trtllm.hpp"
#include "formats/vllm.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

namespace {

ExportResult exportIn(ImportFormat format, const Config& config) {
    switch (format) {
        case ImportFormat::megatron:
            return detail::exportMegatron(config);
        case ImportFormat::torchtitan:
            return detail::exportTorchtitan(config);
        case ImportFormat::torchtune:
            return detail::exportTorchtune(config);
        case ImportFormat::deepspeed:
            return detail::exportDeepspeed(config);
        case ImportFormat::vllm:
            return detail::exportVllm(config);
        case ImportFormat::sglang:
            return detail::exportSglang(config);
        case ImportFormat::trtllm:
            return detail::exportTrtllm(config);
        case ImportFormat::hf:
            break;
    }
    ExportResult r;
    r.notExported.push_back({"format", "hf", "membudget writes no config.json: the Hub's own file is the source"});
    return r;
}

}  // namespace

ExportResult exportConfig(ImportFormat format, const Config& config) {
    ExportResult out = exportIn(format, config);
    out.format = format;
    return out;
}

}  // namespace membudget
