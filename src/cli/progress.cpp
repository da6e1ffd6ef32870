#include "cli/progress.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

namespace tokscope::cli {

void ProgressLine::update(const run::Progress& p) {
  if (!enabled_ || p.current == nullptr) return;
  const std::string itl =
      std::isfinite(p.last_itl_p50_ms) ? fmt::format("{:.3f} ms", p.last_itl_p50_ms) : "n/a";
  err_ << fmt::format("\r\033[K[stratum {}/{} p={} n={} c={}] request {}/{}{}  ITL P50 {}",
                      p.stratum + 1, p.strata, p.current->prompt_tokens, p.current->output_tokens,
                      p.current->concurrency, p.completed, p.planned,
                      p.failed > 0 ? fmt::format(" ({} failed)", p.failed) : "", itl)
       << std::flush;
  drawn_ = true;
}

void ProgressLine::finish() {
  if (drawn_) err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace tokscope::cli
