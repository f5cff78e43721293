// What every fuzz target checks besides the sanitizers: a broken invariant prints what broke and the
// values involved, then aborts, which libFuzzer reports as a crash with the input saved.
#pragma once

#include <sanitizer/common_interface_defs.h>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

namespace membudget::fuzz {

inline void check(bool holds, std::string_view what, std::string_view detail = {}) {
    if (holds) return;
    // Through the sanitizers' report channel: scripts/fuzz.sh closes the target's stdout and stderr
    // (-close_fd_mask=3), and libFuzzer keeps that channel open for its crash reports.
    const std::string message = "membudget fuzz: invariant broken: " + std::string(what) + "\n" + std::string(detail);
    __sanitizer_report_error_summary(message.c_str());
    std::abort();
}

inline bool finiteNonNegative(double bytes) { return std::isfinite(bytes) && bytes >= 0; }

// Every warning of a result names a field of the table, or none when it is about the whole configuration.
// (Problems from reading a query or a file may name a key the table does not have: the unknown key.)
inline void checkProblemsNameFields(const std::vector<Problem>& problems, std::string_view what) {
    for (const auto& problem : problems) {
        check(!problem.message.empty(), what, "a problem without a message");
        check(problem.field.empty() || findField(problem.field) != nullptr, what, problem.field + ": " + problem.message);
    }
}

// evaluate()'s contract: a valid configuration gives finite, non-negative bytes everywhere; an invalid one
// gives no lines and errors that each name a field of the table.
inline void checkEvaluation(const Config& config, const Result& result) {
    const std::vector<Problem> errors = validate(config);
    if (!errors.empty()) {
        check(!result.ok() && result.lines.empty(), "an invalid configuration evaluated without errors");
        for (const auto& error : result.errors)
            check(!error.field.empty() && findField(error.field) != nullptr && !error.message.empty(),
                  "a validation error that names no field", error.field + ": " + error.message);
        return;
    }
    const std::string query = encodeQuery(config);
    check(result.ok(), "a valid configuration evaluated with errors",
          query + "\n" + (result.errors.empty() ? std::string() : result.errors.front().message));
    check(!result.lines.empty() && !result.stages.empty(), "a valid configuration without lines or stages", query);
    double sumBytes = 0;
    for (const auto& line : result.lines) {
        check(finiteNonNegative(line.bytes), "a line's bytes are negative or not finite",
              query + "\n" + std::string(toString(line.id)) + " = " + std::to_string(line.bytes));
        sumBytes += line.bytes;
    }
    check(finiteNonNegative(result.totalBytes), "the total is negative or not finite", query + "\n" + std::to_string(result.totalBytes));
    check(sumBytes == result.totalBytes, "the total is not the sum of the peak stage's lines", query);
    check(finiteNonNegative(result.parameterCount) && finiteNonNegative(result.activeParameterCount),
          "a parameter count is negative or not finite", query);
    check(std::isfinite(result.capacityBytes) && result.capacityBytes > 0 && finiteNonNegative(result.usableBytes) &&
              result.usableBytes <= result.capacityBytes,
          "capacity or usable bytes out of order", query);
    check(result.verdict.has_value() && isValid(*result.verdict), "an unknown verdict",
          query + "\n" + std::string(toString(result.verdict)));
    for (const auto& stage : result.stages) {
        check(finiteNonNegative(stage.totalBytes) && stage.totalBytes <= result.totalBytes, "a stage total out of range", query);
        check(stage.lineBytes.size() == result.lines.size(), "a stage with a different set of lines", query);
        for (double bytes : stage.lineBytes) check(finiteNonNegative(bytes), "a stage line is negative or not finite", query);
    }
    for (const auto& tensor : result.tensors)
        check(finiteNonNegative(tensor.bytes) && finiteNonNegative(tensor.bytesPerCopy) && finiteNonNegative(tensor.copies),
              "a tensor's bytes are negative or not finite", query + "\n" + tensor.name);
    for (const auto& phase : result.phases)
        check(finiteNonNegative(phase.totalBytes), "a phase total is negative or not finite",
              query + "\n" + std::string(toString(phase.name)));
    check(finiteNonNegative(result.cpuBytesPerNode), "CPU bytes per node negative or not finite", query);
    for (const auto& line : result.cpuLines)
        check(finiteNonNegative(line.bytes), "a CPU line is negative or not finite", query + "\n" + std::string(toString(line.id)));
    check(finiteNonNegative(result.maxSequences) && finiteNonNegative(result.maxContextTokens),
          "an inference capacity answer is negative or not finite", query);
    checkProblemsNameFields(result.warnings, "a warning naming an unknown field");
}

}  // namespace membudget::fuzz
