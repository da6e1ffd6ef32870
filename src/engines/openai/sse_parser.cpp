#include "engines/openai/sse_parser.hpp"

#include <algorithm>

namespace tokscope::engines::openai {

namespace {

constexpr std::size_t kInitialLineBytes = 4096;
constexpr std::size_t kInitialDataBytes = 4096;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// The `retry:` rule: only ASCII digits, else ignored. Saturates instead of overflowing.
std::optional<std::uint64_t> parse_retry(std::string_view value) {
  if (value.empty()) return std::nullopt;
  std::uint64_t ms = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    ms = ms > (UINT64_MAX - digit) / 10 ? UINT64_MAX : ms * 10 + digit;
  }
  return ms;
}

}  // namespace

SseParser::SseParser(std::size_t max_line_bytes)
    : max_line_bytes_(std::max<std::size_t>(max_line_bytes, 1)) {
  line_.reserve(std::min(kInitialLineBytes, max_line_bytes_));
  data_.reserve(std::min(kInitialDataBytes, max_line_bytes_) + 1);
  event_type_.reserve(32);
  last_id_.reserve(64);
}

bool SseParser::has_pending_event() const noexcept {
  return !line_.empty() || !data_.empty() || !event_type_.empty();
}

std::size_t SseParser::buffer_capacity_bytes() const noexcept {
  return line_.capacity() + data_.capacity() + event_type_.capacity() + last_id_.capacity();
}

Error SseParser::fail(std::string_view what, std::size_t bytes) {
  failed_ = true;
  error_ =
      make_error(ErrorKind::kEngine,
                 "SSE stream: " + std::string(what) + " of more than " +
                     std::to_string(max_line_bytes_) + " bytes (at least " + std::to_string(bytes) +
                     "): the response is not an event stream, or a frame is larger than the "
                     "parser's cap; raise the cap if the server really sends such frames");
  line_.clear();
  data_.clear();
  return error_;
}

Expected<void> SseParser::feed_impl(std::string_view bytes, EventFn fn, void* ctx) {
  if (failed_) return error_;
  std::size_t pos = 0;
  if (skip_lf_ && !bytes.empty()) {
    if (bytes.front() == '\n') pos = 1;
    skip_lf_ = false;
  }
  while (pos < bytes.size()) {
    const std::size_t end = bytes.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) {  // an unfinished line: keep it for the next feed()
      const std::size_t rest = bytes.size() - pos;
      if (line_.size() + rest > max_line_bytes_) return fail("a line", line_.size() + rest);
      line_.append(bytes.substr(pos));
      break;
    }
    const std::string_view piece = bytes.substr(pos, end - pos);
    if (line_.size() + piece.size() > max_line_bytes_) {
      return fail("a line", line_.size() + piece.size());
    }
    std::string_view line = piece;
    if (!line_.empty()) {  // the line began in an earlier feed()
      line_.append(piece);
      line = line_;
    }
    if (auto r = process_line(line, fn, ctx); !r.ok()) return r;
    line_.clear();
    std::size_t next = end + 1;
    if (bytes[end] == '\r') {
      if (next < bytes.size()) {
        if (bytes[next] == '\n') ++next;
      } else {
        skip_lf_ = true;
      }
    }
    pos = next;
  }
  return {};
}

Expected<void> SseParser::process_line(std::string_view line, EventFn fn, void* ctx) {
  if (at_stream_start_) {
    at_stream_start_ = false;
    if (line.substr(0, kUtf8Bom.size()) == kUtf8Bom) line.remove_prefix(kUtf8Bom.size());
  }
  if (line.empty()) {
    dispatch(fn, ctx);
    return {};
  }
  if (line.front() == ':') {
    ++comments_;
    return {};
  }
  std::string_view field = line;
  std::string_view value;
  if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "error") {  // llama.cpp's mid-stream failure: see the header
    event_type_.assign("error");
    field = "data";
  }
  if (field == "data") {
    if (data_.size() + value.size() + 1 > max_line_bytes_ + 1) {
      return fail("an event's data", data_.size() + value.size());
    }
    data_.append(value);
    data_.push_back('\n');
  } else if (field == "event") {
    event_type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (auto ms = parse_retry(value)) retry_ms_ = ms;
  }
  return {};
}

void SseParser::dispatch(EventFn fn, void* ctx) {
  if (data_.empty()) {  // no data line: nothing to dispatch (the spec's rule)
    event_type_.clear();
    return;
  }
  SseEvent event;
  event.type = event_type_.empty() ? std::string_view("message") : std::string_view(event_type_);
  event.data = std::string_view(data_).substr(0, data_.size() - 1);  // drop the last '\n'
  event.id = last_id_;
  ++events_;
  fn(ctx, event);
  data_.clear();
  event_type_.clear();
}

}  // namespace tokscope::engines::openai
