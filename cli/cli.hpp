// The membudget command line, as a function over streams so that tests can run it in-process.
#pragma once

#include <iosfwd>

namespace membudget {

// Exit status: 0 the configuration fits, 1 it is tight or does not fit, 2 bad input.
int runCli(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace membudget
