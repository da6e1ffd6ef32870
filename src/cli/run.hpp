// Entry point of the command-line interface: parse -> plan -> run -> write.
// Returns the process exit code (spec/cli.md): 0 ok; 1 the run finished but something failed
// or was flagged as blocking; 2 bad usage or bad input. Never calls exit().
#pragma once

#include <iosfwd>

namespace tokscope::cli {

int run(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
