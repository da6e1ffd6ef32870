// SseParser: a Server-Sent Events (text/event-stream) parser following the W3C / WHATWG
// EventSource "interpreting an event stream" rules, built for the per-token path of the `openai`
// engine.
//
// Contract:
//  * feed(bytes, on_event) accepts the stream in pieces split anywhere: a frame may span reads,
//    one read may hold several frames, and a CR at the end of one read followed by an LF at the
//    start of the next is one line end. Line ends are LF, CRLF or CR.
//  * Lines starting with ':' (comments, keep-alives) are ignored. `data:` values lose one leading
//    space; several data lines of one event are joined with '\n'. `event`, `id` and `retry`
//    fields are kept; unknown fields are ignored. A blank line dispatches the event, and an event
//    without any data line is not dispatched (the spec's rule). A UTF-8 BOM at the very start of
//    the stream is skipped.
//  * One deliberate extension: llama.cpp's server reports a failure mid-stream as an
//    `error: {json}` line (a field the spec would ignore). It is read as `event: error` plus
//    `data: {json}`, so the failure reaches the caller as an event of type "error".
//  * on_event receives each dispatched event synchronously, as string_views into the parser's
//    own buffers: valid only during the call. It must not call feed() on the same parser.
//  * Bounds: a line, and an event's joined data, longer than max_line_bytes put the parser into
//    a sticky error state (ErrorKind::kEngine, the message names the cap); no buffer grows past
//    the cap. Every later feed() returns the same error.
//  * Allocation: the buffers are reserved at construction and reused (cleared, never shrunk), so
//    once they have grown to the stream's largest frame, feed() does not allocate (except to build
//    the error message when the cap is hit).
//  * Thread-safety: none. One parser per stream, used by one thread at a time.
//  * End of stream: an event still pending when the stream ends is discarded, as the spec says;
//    has_pending_event() tells the caller that the stream was cut in the middle of a frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/expected.hpp"

namespace tokscope::engines::openai {

struct SseEvent {
  std::string_view type;  // the `event:` field, "message" when absent
  std::string_view data;  // the data lines joined with '\n' (no trailing '\n')
  std::string_view id;    // the last event id seen on the stream (persists across events)

  // OpenAI-style end-of-stream sentinel: `data: [DONE]`.
  [[nodiscard]] bool is_done() const noexcept { return data == "[DONE]"; }
};

class SseParser {
 public:
  static constexpr std::size_t kDefaultMaxLineBytes = std::size_t{1} << 20;  // 1 MiB

  explicit SseParser(std::size_t max_line_bytes = kDefaultMaxLineBytes);

  // Parses `bytes` and calls on_event(const SseEvent&) for each completed event. Returns the
  // (sticky) error once a line or an event exceeds the cap.
  template <class OnEvent>
  Expected<void> feed(std::string_view bytes, OnEvent&& on_event) {
    using Fn = std::remove_reference_t<OnEvent>;
    void* context = const_cast<void*>(static_cast<const void*>(std::addressof(on_event)));
    return feed_impl(
        bytes, [](void* ctx, const SseEvent& event) { (*static_cast<Fn*>(ctx))(event); }, context);
  }

  // True when bytes of an undispatched event (or an unfinished line) are buffered.
  [[nodiscard]] bool has_pending_event() const noexcept;
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  // The last valid `retry:` value of the stream, in milliseconds.
  [[nodiscard]] std::optional<std::uint64_t> retry_ms() const noexcept { return retry_ms_; }
  [[nodiscard]] std::uint64_t events_dispatched() const noexcept { return events_; }
  [[nodiscard]] std::uint64_t comment_lines() const noexcept { return comments_; }
  // Sum of the internal buffers' capacities: stays constant once warmed up (tests check the
  // no-allocation claim with it).
  [[nodiscard]] std::size_t buffer_capacity_bytes() const noexcept;
  [[nodiscard]] std::size_t max_line_bytes() const noexcept { return max_line_bytes_; }

 private:
  using EventFn = void (*)(void*, const SseEvent&);

  Expected<void> feed_impl(std::string_view bytes, EventFn fn, void* ctx);
  Expected<void> process_line(std::string_view line, EventFn fn, void* ctx);
  void dispatch(EventFn fn, void* ctx);
  Error fail(std::string_view what, std::size_t bytes);

  std::size_t max_line_bytes_;
  std::string line_;        // an unfinished line carried over from the previous feed()
  std::string data_;        // data lines of the pending event, each followed by '\n'
  std::string event_type_;  // `event:` of the pending event
  std::string last_id_;     // `id:` (persists across events)
  std::optional<std::uint64_t> retry_ms_;
  std::uint64_t events_ = 0;
  std::uint64_t comments_ = 0;
  bool skip_lf_ = false;  // the previous feed() ended with CR: a leading LF belongs to it
  bool at_stream_start_ = true;
  bool failed_ = false;
  Error error_;
};

}  // namespace tokscope::engines::openai
