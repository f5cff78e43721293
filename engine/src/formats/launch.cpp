// launchFormat(): the format each framework's jobs are launched with.
#include "membudget/formats/launch.hpp"

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

ImportFormat launchFormat(const Config& config) {
    if (config.mode == Mode::inference)
        return config.framework == Framework::sglang   ? ImportFormat::sglang
               : config.framework == Framework::trtllm ? ImportFormat::trtllm
                                                       : ImportFormat::vllm;
    switch (config.framework) {
        case Framework::megatron:
            return ImportFormat::megatron;
        case Framework::torchtitan:
            return ImportFormat::torchtitan;
        case Framework::torchtune:
            return ImportFormat::torchtune;
        case Framework::deepspeed:
        case Framework::hfAccelerate:
            return ImportFormat::deepspeed;
        case Framework::vllm:
            return ImportFormat::vllm;
        case Framework::sglang:
            return ImportFormat::sglang;
        case Framework::trtllm:
            return ImportFormat::trtllm;
    }
    return ImportFormat::megatron;
}

}  // namespace membudget
