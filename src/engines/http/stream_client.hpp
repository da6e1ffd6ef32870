// StreamClient: many HTTP/1.1 streams (SSE from an OpenAI-compatible server) driven by one
// libcurl multi handle on ONE thread, delivering every received byte to its sink the moment
// libcurl has it, so the harness can stamp each chunk with its own clock.
//
// Contracts:
//  - Thread-safety: every member function is called from the single thread that drives the
//    client (the "owner thread"), including from inside sink callbacks, EXCEPT wakeup() and
//    request_stop(), which are safe from any thread (and from a signal-watching thread).
//  - Every stream accepted by add_stream() gets exactly one on_done() (success, failure,
//    timeout or cancel), called on the owner thread from poll()/cancel()/cancel_all(); the
//    destructor aborts in-flight streams WITHOUT calling on_done() (sinks may already be gone).
//  - on_data() receives only the body of a 2xx response, in order, without copies: the view
//    points into libcurl's receive buffer and is valid only during the call. The hot path does
//    not allocate: transfers, their buffers and curl easy handles are pooled and reused, and
//    the multi handle keeps connections alive for reuse (keep-alive).
//  - Secrets: header values are never logged or put into any message; the value of an
//    Authorization / api-key header is also scrubbed from server-echoed text (body prefix,
//    curl error text) before a result is built. TLS certificates are verified unless
//    StreamRequest::insecure.
//  - Errors are values (Error in StreamResult), never exceptions across callbacks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::engines::http {

struct StreamRequest {
  std::string url;
  std::string body;                  // POST body; empty -> GET
  std::vector<std::string> headers;  // "Name: value"; values are secret (never logged)
  std::int64_t timeout_ms = 0;       // overall deadline from add_stream(); 0 = none
  std::int64_t connect_timeout_ms = 10'000;
  std::int64_t stall_timeout_ms = 0;  // no body byte for this long -> kTimeout; 0 = none
  bool insecure = false;              // skip TLS certificate and host verification (--insecure)
};

struct StreamResult {
  long http_status = 0;          // 0: no HTTP response was received
  std::string curl_error;        // libcurl's text for a transport failure (scrubbed), else ""
  std::string body_prefix;       // first bytes of a non-2xx response body (scrubbed)
  std::uint64_t body_bytes = 0;  // bytes delivered through on_data()
  std::optional<Error> error;    // set when the stream failed; message names the URL and fix
  [[nodiscard]] bool ok() const noexcept { return !error.has_value(); }
};

// Receives one stream's events on the owner thread. Must outlive the stream (until on_done()
// or the client's destruction).
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  virtual void on_data(std::string_view bytes) noexcept = 0;
  virtual void on_done(const StreamResult& result) noexcept = 0;
};

using StreamId = std::uint64_t;  // never 0 for an accepted stream; never reused by a client

class StreamClient {
 public:
  StreamClient();
  ~StreamClient();
  StreamClient(const StreamClient&) = delete;
  StreamClient& operator=(const StreamClient&) = delete;

  // Starts a stream. Fails (kUsage / kInternal) only when the request cannot be configured,
  // e.g. an empty URL; network failures arrive later through on_done(). Safe from callbacks.
  Expected<StreamId> add_stream(StreamRequest request, StreamSink& sink);

  // Cancels a stream: its on_done() gets kCancelled. Called outside callbacks it is removed
  // and notified at once; from inside a callback it stops at the end of the current poll().
  // Unknown or finished ids are ignored.
  void cancel(StreamId id);
  void cancel_all();

  // Waits up to max_wait_ms for network activity (or a wakeup), then transfers what is ready,
  // delivering on_data()/on_done(). Returns the number of streams still in flight; returns 0 at
  // once, without waiting, when none is.
  std::size_t poll(int max_wait_ms);
  // Polls until no stream is in flight (or a stop request cancelled them all).
  void run_until_idle();
  [[nodiscard]] std::size_t active() const noexcept;

  // Thread-safe: interrupts a poll() in progress (or the next one).
  void wakeup() noexcept;
  // Thread-safe: the next poll() cancels every stream in flight ("stop requested"), then the
  // client is usable again.
  void request_stop() noexcept;

  struct Transfer;  // one in-flight request; defined in stream_client.cpp

 private:
  enum class End;  // why a stream ended; defined in stream_client.cpp
  void start(Transfer& t);
  void finish(Transfer& t, End end, int curl_code);
  void stop_all();
  void process_deferred();
  void check_stalls(std::int64_t now_ns);
  int wait_budget_ms(int max_wait_ms, std::int64_t now_ns) const;

  void* multi_ = nullptr;                                  // CURLM*
  std::vector<std::unique_ptr<Transfer>> transfers_;       // owns every transfer ever made
  std::vector<Transfer*> active_;                          // added to the multi handle
  std::vector<Transfer*> idle_;                            // ready for reuse (easy handle kept)
  std::vector<std::pair<Transfer*, StreamId>> finishing_;  // poll()'s scratch, capacity kept
  StreamId next_id_ = 1;
  bool in_perform_ = false;  // inside curl_multi_perform: curl forbids re-entering the multi
  bool deferred_ = false;    // a cancel or add waits for the end of perform
  std::atomic<bool> stop_requested_{false};
};

struct HttpResponse {
  long status = 0;
  std::string body;
};

struct PostOptions {
  std::vector<std::string> headers;  // added to "Content-Type: application/json"
  std::int64_t timeout_ms = 30'000;
  std::int64_t connect_timeout_ms = 10'000;
  bool insecure = false;
  std::size_t max_body_bytes = 16u << 20;  // a larger 2xx body fails (kEngine)
};

// Blocking POST of a small JSON body (tokenize, health checks); GET when body is empty.
// Any HTTP answer is a value (check status); an Error means no usable answer arrived
// (refused, reset, timeout, TLS, too large).
Expected<HttpResponse> post_json(const std::string& url, std::string body,
                                 const PostOptions& options = {});

// The Error for an HTTP error status: names the URL, the status, the (already scrubbed) body
// prefix, and the likely fix (401/403: the API key; 404: the URL path; 5xx: the server log).
Error http_status_error(std::string_view url, long status, std::string_view body_prefix);

}  // namespace tokscope::engines::http
