// The live progress line on a terminal: stratum, request k/n, live ITL P50. Silent when stderr
// is not a terminal (piped output stays clean). Called from the runner's completion path under
// its lock, never on the per-token path.
#pragma once

#include <iosfwd>
#include <vector>

#include "run/runner.hpp"

namespace tokscope::cli {

class ProgressLine {
 public:
  ProgressLine(std::ostream& err, bool enabled) : err_(err), enabled_(enabled) {}
  void update(const run::Progress& p);
  void finish();

 private:
  std::ostream& err_;
  bool enabled_;
  bool drawn_ = false;
  std::uint32_t stratum_ = 0;
  std::vector<double> request_itl_p50_ms_;  // measured requests of the current stratum
};

}  // namespace tokscope::cli
