#include "cli/progress.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "core/stats.hpp"

namespace tokscope::cli {

void ProgressLine::update(const run::Progress& p) {
  if (!enabled_ || p.current == nullptr) return;
  if (p.stratum != stratum_) {
    stratum_ = p.stratum;
    request_itl_p50_ms_.clear();
  }
  if (!p.warmup && std::isfinite(p.last_itl_p50_ms)) {
    request_itl_p50_ms_.push_back(p.last_itl_p50_ms);
  }
  // Live figure: the median over measured requests so far of each request's median ITL (the
  // final statistic pools every interval; this is close and cheap).
  const std::string itl =
      request_itl_p50_ms_.empty()
          ? (p.warmup ? "warming up" : "n/a")
          : fmt::format("{:.3f} ms", core::percentile(request_itl_p50_ms_, 0.5));
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
