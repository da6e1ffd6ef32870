// libFuzzer target: the `openai` engine's SSE parser and stream-chunk decoder on arbitrary bytes.
//
// Properties checked beyond "no crash, no sanitizer report, no leak, no huge allocation":
//  * the events do not depend on how the stream is split into reads (the first input byte picks
//    a split point; feeding whole and feeding in two or in one-byte pieces give the same events);
//  * no buffer grows past the parser's cap (a small cap, so the error path is exercised too);
//  * every decoder turns every event's data into a chunk or an Error, never an exception, and
//    error messages are printable ASCII (they go into JSON journals).
// Build: the sse_fuzz target of tests/fuzz (TOKSCOPE_FUZZ=ON); run: build-fuzz/tests/fuzz/sse_fuzz
// tests/fuzz/corpus-sse.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engines/openai/sse_parser.hpp"
#include "engines/openai/stream_decoder.hpp"

namespace {

using namespace tokscope::engines::openai;

constexpr std::size_t kCapBytes = 4096;

[[noreturn]] void fail() {
  std::abort();
}

struct Outcome {
  std::vector<std::string> events;  // type + '\0' + data + '\0' + id
  bool failed = false;
  bool operator==(const Outcome&) const = default;
};

Outcome run(std::string_view stream, const std::vector<std::size_t>& cuts) {
  SseParser parser(kCapBytes);
  Outcome out;
  std::size_t begin = 0;
  auto feed = [&](std::size_t end) {
    if (out.failed) return;
    const auto r = parser.feed(stream.substr(begin, end - begin), [&](const SseEvent& e) {
      if (e.data.size() > kCapBytes) fail();
      std::string s(e.type);
      s.push_back('\0');
      s.append(e.data);
      s.push_back('\0');
      s.append(e.id);
      out.events.push_back(std::move(s));
    });
    out.failed = !r.ok();
    begin = end;
  };
  for (const std::size_t cut : cuts) feed(cut);
  feed(stream.size());
  if (parser.buffer_capacity_bytes() > 4 * (kCapBytes + 64)) fail();
  return out;
}

void check_message(const std::string& message) {
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) fail();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t split = stream.empty() ? 0 : data[0] % (stream.size() + 1);

  const Outcome whole = run(stream, {});
  // Events before an oversize error may differ by split (the error fires when the cap is
  // crossed), so equality is required only for streams that parse without error.
  const Outcome halves = run(stream, {split});
  if (!whole.failed && !(halves == whole)) fail();
  if (stream.size() <= 512) {
    std::vector<std::size_t> bytes;
    for (std::size_t i = 1; i < stream.size(); ++i) bytes.push_back(i);
    const Outcome single = run(stream, bytes);
    if (!whole.failed && !(single == whole)) fail();
  }

  for (const std::string& event : whole.events) {
    const std::string_view type(event.data(), event.find('\0'));
    const std::size_t data_begin = type.size() + 1;
    const std::string_view payload(event.data() + data_begin,
                                   event.find('\0', data_begin) - data_begin);
    if (type == "error") check_message(decode_error_event(payload).message);
    for (const StreamApi api : {StreamApi::kChat, StreamApi::kCompletions,
                                StreamApi::kLlamaCppNative, StreamApi::kAxLlm}) {
      const auto chunk = decode_stream_chunk(api, payload);
      if (!chunk.ok()) check_message(chunk.error().message);
    }
  }
  return 0;
}
