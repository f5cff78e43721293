// The published sources' shared pieces (memory/sources/published.hpp).
#include "memory/sources/published.hpp"

#include "membudget/base/choices.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

Line filledIn(Line line, std::string_view source) {
    line.note = "Not modelled by " + std::string(source) + "; membudget's estimate: " + line.note;
    line.origin = Method::membudget;
    return line;
}

sources::Recompute recomputeOf(const Config& c) {
    return c.ckpt == Checkpointing::full        ? sources::Recompute::full
           : c.ckpt == Checkpointing::selective ? sources::Recompute::selective
                                                : sources::Recompute::none;
}

const Line& lineOf(const StageOutput& stage, LineId id) {
    return *std::find_if(stage.lines.begin(), stage.lines.end(), [id](const Line& l) { return l.id == id; });
}

}  // namespace membudget::detail
