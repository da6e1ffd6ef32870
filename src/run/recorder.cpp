#include "run/recorder.hpp"

#include <algorithm>

namespace tokscope::run {
namespace {
constexpr std::size_t kErrorMessageCapacity = 512;
}

Recorder::Recorder(const platform::Clock& clock, const std::atomic<bool>& interrupted,
                   std::size_t capacity_chunks)
    : clock_(clock), interrupted_(interrupted), chunks_(capacity_chunks) {
  error_message_.reserve(kErrorMessageCapacity);
}

void Recorder::reset(std::size_t capacity_chunks, std::int64_t deadline_ns) {
  if (chunks_.size() < capacity_chunks) chunks_.resize(capacity_chunks);
  n_chunks_ = 0;
  overflow_chunks_ = 0;
  deadline_ns_ = deadline_ns;
  t_request_ns_ = t_tokenized_ns_ = t_submit_ns_ = t_done_ns_ = 0;
  has_error_ = false;
  error_kind_ = ErrorKind::kInternal;
  error_message_.clear();
  engine_stats_ = nullptr;  // frees a previous request's stats; allocates nothing
  have_submit_ = have_first_token_ = have_done_ = false;
}

void Recorder::on_submit() noexcept {
  t_submit_ns_ = clock_.now_ns();
  if (counters_ != nullptr) {
    at_submit_ = counters_->read();
    have_submit_ = true;
  }
}

void Recorder::on_done() noexcept {
  t_done_ns_ = clock_.now_ns();
  if (counters_ != nullptr && !have_done_) {
    at_done_ = counters_->read();
    have_done_ = true;
  }
}

void Recorder::on_tokens(std::uint32_t count) noexcept {
  const std::int64_t t = clock_.now_ns();
  if (count == 0) return;  // not a token (contract says engines never send it; be safe)
  if (counters_ != nullptr && !have_first_token_) {  // once per request: fd reads, no allocation
    at_first_token_ = counters_->read();
    have_first_token_ = true;
  }
  if (n_chunks_ < chunks_.size()) {
    chunks_[n_chunks_++] = core::Chunk{t, count};
  } else if (n_chunks_ > 0) {
    chunks_[n_chunks_ - 1].tokens += count;  // keeps the count right; the request is flagged
    ++overflow_chunks_;
  } else {
    ++overflow_chunks_;
  }
}

void Recorder::on_error(ErrorKind kind, std::string_view message) noexcept {
  if (t_done_ns_ == 0) on_done();
  if (has_error_) return;  // the first error is the cause
  has_error_ = true;
  error_kind_ = kind;
  // Truncate to the reserved capacity: no allocation here.
  error_message_.assign(message.substr(0, std::min(message.size(), kErrorMessageCapacity)));
}

bool Recorder::should_stop() const noexcept {
  if (interrupted_.load(std::memory_order_relaxed)) return true;
  return deadline_ns_ > 0 && clock_.now_ns() >= deadline_ns_;
}

core::TimelineView Recorder::timeline(std::uint32_t prompt_tokens) const noexcept {
  core::TimelineView view;
  view.t_request_ns = t_request_ns_;
  view.t_tokenized_ns = t_tokenized_ns_;
  view.t_submit_ns = t_submit_ns_;
  view.t_done_ns = t_done_ns_;
  view.prompt_tokens = prompt_tokens;
  view.chunks = std::span<const core::Chunk>(chunks_.data(), n_chunks_);
  return view;
}

}  // namespace tokscope::run
