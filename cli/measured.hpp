// `membudget compare-measured FILE`: a run measured by tools/measure/measure.py against the engine's
// prediction for the configuration it ran, line by line and in total. The reader and the comparison are the
// engine's (membudget/measured.hpp); this is the JSON parsing and the output.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "membudget/measured.hpp"

namespace membudget {

// Parses a measured file and compares it (readMeasuredFile, compareMeasured).
MeasuredComparison compareMeasured(std::string_view text);

std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent = 2);
void printMeasuredComparison(std::ostream& out, const MeasuredComparison& comparison, bool gib);

}  // namespace membudget
