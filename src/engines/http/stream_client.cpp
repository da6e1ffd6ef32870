#include "engines/http/stream_client.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <utility>

#include "platform/clock.hpp"

namespace tokscope::engines::http {
namespace {

constexpr std::size_t kBodyPrefixBytes = 4096;  // of a non-2xx body, for the error message
constexpr int kIdlePollMs = 100;                // run_until_idle()'s wait per poll()

// libcurl demands curl_global_init() once per process before any other call, and it is not
// thread-safe on every libcurl build. A function-local static runs it exactly once (C++ makes
// the initialization thread-safe); it is process-wide state by libcurl's design, not ours, and
// is never cleaned up (libcurl allows skipping curl_global_cleanup at exit).
bool curl_global_ready() noexcept {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  return rc == CURLE_OK;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// The URL as it may appear in a message: no user:password@ and no query (which may carry a key).
std::string display_url(std::string_view url) {
  std::string out(url.substr(0, url.find_first_of("?#")));
  const auto scheme = out.find("://");
  const auto host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const auto host_end = out.find('/', host_start);
  const auto at = out.rfind('@', host_end == std::string::npos ? out.size() : host_end);
  if (at != std::string::npos && at >= host_start) out.erase(host_start, at + 1 - host_start);
  return out;
}

// Values that must never appear in a message: credentials in headers and in the URL.
void collect_secrets(std::string_view url, const std::vector<std::string>& headers,
                     std::vector<std::string>& secrets) {
  secrets.clear();
  static constexpr std::array<std::string_view, 6> kSecretHeaders = {
      "authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "x-auth-token"};
  for (const auto& header : headers) {
    const auto colon = header.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view name = trim(std::string_view(header).substr(0, colon));
    const bool secret = std::any_of(kSecretHeaders.begin(), kSecretHeaders.end(),
                                    [&](std::string_view s) { return iequals(s, name); });
    if (!secret) continue;
    const std::string_view value = trim(std::string_view(header).substr(colon + 1));
    if (value.empty()) continue;
    secrets.emplace_back(value);
    const auto space = value.find(' ');  // "Bearer <token>": the token alone, too
    if (space != std::string_view::npos && !trim(value.substr(space + 1)).empty()) {
      secrets.emplace_back(trim(value.substr(space + 1)));
    }
  }
  const auto query = url.find('?');
  if (query != std::string_view::npos) secrets.emplace_back(url.substr(query + 1));
  const auto scheme = url.find("://");
  const auto host_start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const auto at = url.substr(0, url.find('/', host_start)).rfind('@');
  if (at != std::string_view::npos && at > host_start) {
    secrets.emplace_back(url.substr(host_start, at - host_start));
  }
}

void scrub(std::string& text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.size() < 4) continue;  // too short to be a credential; would mangle the text
    for (auto pos = text.find(secret); pos != std::string::npos;
         pos = text.find(secret, pos + 10)) {
      text.replace(pos, secret.size(), "[redacted]");
    }
  }
}

bool is_2xx(long status) noexcept {
  return status >= 200 && status < 300;
}

long to_curl_ms(std::int64_t ms) noexcept {
  return static_cast<long>(std::clamp<std::int64_t>(ms, 0, LONG_MAX));
}

}  // namespace

struct StreamClient::Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  StreamSink* sink = nullptr;
  StreamClient* client = nullptr;
  StreamId id = 0;
  std::string url;      // as given (libcurl copies it too)
  std::string display;  // display_url(url)
  std::string body;     // POSTFIELDS points here: libcurl does not copy it
  std::vector<std::string> secrets;
  std::string body_prefix;  // of a non-2xx response; capacity kept across reuse
  long status = 0;
  bool status_known = false;
  std::uint64_t body_bytes = 0;
  std::int64_t timeout_ms = 0;
  std::int64_t connect_timeout_ms = 0;
  std::int64_t stall_timeout_ns = 0;
  std::int64_t last_byte_ns = 0;  // start, then the last body byte: the stall clock
  bool in_multi = false;          // added to the multi handle
  bool pending_add = false;       // add_stream() from inside perform: added after it
  bool cancel_pending = false;    // cancel() from inside perform: finished after it
  CURLcode code = CURLE_OK;       // from curl_multi_info_read
  std::array<char, CURL_ERROR_SIZE> errbuf{};
};

enum class StreamClient::End { kCurl, kCancelled, kStopped, kStalled };

namespace {

// libcurl's write callback: the body bytes straight from its receive buffer to the sink.
std::size_t on_write(char* ptr, std::size_t size, std::size_t nmemb, void* user) noexcept {
  auto& t = *static_cast<StreamClient::Transfer*>(user);
  const std::size_t n = size * nmemb;
  if (t.cancel_pending) return 0;  // makes libcurl abort the transfer (CURLE_WRITE_ERROR)
  t.last_byte_ns = platform::monotonic_now_ns();
  if (!t.status_known) {
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.status);
    t.status_known = true;
  }
  if (!is_2xx(t.status)) {
    const std::size_t room = kBodyPrefixBytes - std::min(kBodyPrefixBytes, t.body_prefix.size());
    t.body_prefix.append(ptr, std::min(room, n));
    return n;
  }
  t.body_bytes += n;
  t.sink->on_data(std::string_view(ptr, n));
  return t.cancel_pending ? 0 : n;
}

Error transport_error(CURLcode code, const StreamClient::Transfer& t, std::string_view text) {
  const std::string& url = t.display;
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      return make_error(ErrorKind::kEngine,
                        fmt::format("connection refused: is the server running at {}? start it "
                                    "or pass --url ({})",
                                    url, text));
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return make_error(ErrorKind::kEngine,
                        fmt::format("cannot resolve the host of {}: check --url ({})", url, text));
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      if (t.status == 0 && t.body_bytes == 0 && text.find("HTTP/0.9") == std::string_view::npos) {
        return make_error(ErrorKind::kUsage, fmt::format("cannot use the URL {}: pass --url like "
                                                         "http://127.0.0.1:8080 ({})",
                                                         url, text));
      }
      [[fallthrough]];
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
      return make_error(ErrorKind::kEngine,
                        fmt::format("{} sent a malformed HTTP response ({}): is it an "
                                    "OpenAI-compatible server? check --url",
                                    url, text));
    case CURLE_OPERATION_TIMEDOUT:
      if (t.status == 0 && t.body_bytes == 0 &&
          text.find("onnect") != std::string_view::npos) {  // "Connection timed out after"
        return make_error(ErrorKind::kTimeout,
                          fmt::format("could not connect to {} within {} ms: is the server up "
                                      "and reachable? check --url ({})",
                                      url, t.connect_timeout_ms, text));
      }
      return make_error(ErrorKind::kTimeout,
                        fmt::format("request to {} timed out after {} ms with {} body bytes "
                                    "received: the server is too slow or hung; raise --timeout-s "
                                    "or check the server ({})",
                                    url, t.timeout_ms, t.body_bytes, text));
    case CURLE_GOT_NOTHING:
      return make_error(ErrorKind::kEngine,
                        fmt::format("{} closed the connection without answering: did the server "
                                    "crash? check its log ({})",
                                    url, text));
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
      if (text.find("chunk") != std::string_view::npos) {
        return make_error(ErrorKind::kEngine,
                          fmt::format("{} sent a malformed chunked body after {} bytes ({}): "
                                      "is it an OpenAI-compatible server? check --url",
                                      url, t.body_bytes, text));
      }
      return make_error(ErrorKind::kEngine,
                        fmt::format("connection to {} reset mid-stream after {} body bytes ({}): "
                                    "did the server crash or restart? check its log",
                                    url, t.body_bytes, text));
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
      return make_error(ErrorKind::kEngine,
                        fmt::format("TLS with {} failed ({}): fix the server's certificate, or "
                                    "pass --insecure to skip verification (trusted network only)",
                                    url, text));
    default:
      return make_error(ErrorKind::kEngine, fmt::format("request to {} failed: {} (curl error {})",
                                                        url, text, static_cast<int>(code)));
  }
}

}  // namespace

Error http_status_error(std::string_view url, long status, std::string_view body_prefix) {
  std::string_view fix = "check the server's log";
  if (status == 401 || status == 403) {
    fix = "check the API key (--api-key-env names the environment variable holding it)";
  } else if (status == 404) {
    fix = "check the path of --url (an OpenAI-compatible server serves /v1/chat/completions)";
  } else if (status >= 400 && status < 500) {
    fix = "the server rejected the request; check --url and the engine's options";
  } else if (status < 200 || (status >= 300 && status < 400)) {
    fix = "point --url at the server itself (redirects are not followed)";
  }
  const std::string_view body = trim(body_prefix);
  return make_error(ErrorKind::kEngine,
                    fmt::format("{} answered HTTP {}{}{}: {}", display_url(url), status,
                                body.empty() ? "" : " with body ", body, fix));
}

StreamClient::StreamClient() {
  if (curl_global_ready()) multi_ = curl_multi_init();
  if (multi_ != nullptr) {
    // HTTP/1.1 only: one request per connection, connections kept alive and reused.
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_NOTHING);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, 1024L);
  }
}

StreamClient::~StreamClient() {
  for (auto& t : transfers_) {
    if (t->in_multi) curl_multi_remove_handle(multi_, t->easy);
    if (t->easy != nullptr) curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->headers);
  }
  if (multi_ != nullptr) curl_multi_cleanup(multi_);
}

std::size_t StreamClient::active() const noexcept {
  return active_.size();
}

void StreamClient::wakeup() noexcept {
  if (multi_ != nullptr) curl_multi_wakeup(multi_);
}

void StreamClient::request_stop() noexcept {
  stop_requested_.store(true);
  wakeup();
}

Expected<StreamId> StreamClient::add_stream(StreamRequest request, StreamSink& sink) {
  if (multi_ == nullptr) {
    return make_error(ErrorKind::kInternal, "libcurl failed to initialise (curl_multi_init)");
  }
  if (request.url.empty()) {
    return make_error(ErrorKind::kUsage, "no URL to send the request to: pass --url");
  }
  Transfer* t = nullptr;
  if (!idle_.empty()) {
    t = idle_.back();
    idle_.pop_back();
    curl_easy_reset(t->easy);  // keeps the easy handle's caches; options are set again below
  } else {
    auto owned = std::make_unique<Transfer>();
    owned->easy = curl_easy_init();
    if (owned->easy == nullptr) {
      return make_error(ErrorKind::kInternal, "libcurl failed to create a handle (out of memory?)");
    }
    owned->client = this;
    owned->body_prefix.reserve(kBodyPrefixBytes);
    t = owned.get();
    transfers_.push_back(std::move(owned));
  }
  t->id = next_id_++;
  t->sink = &sink;
  t->url = std::move(request.url);
  t->display = display_url(t->url);
  t->body = std::move(request.body);
  collect_secrets(t->url, request.headers, t->secrets);
  t->body_prefix.clear();
  t->status = 0;
  t->status_known = false;
  t->body_bytes = 0;
  t->timeout_ms = request.timeout_ms;
  t->connect_timeout_ms = request.connect_timeout_ms;
  t->stall_timeout_ns = std::max<std::int64_t>(request.stall_timeout_ms, 0) * 1'000'000;
  t->last_byte_ns = platform::monotonic_now_ns();
  t->cancel_pending = false;
  t->code = CURLE_OK;
  t->errbuf[0] = '\0';

  curl_slist_free_all(t->headers);
  t->headers = nullptr;
  bool headers_ok = true;
  for (const auto& h : request.headers) {
    curl_slist* next = curl_slist_append(t->headers, h.c_str());
    if (next == nullptr)
      headers_ok = false;
    else
      t->headers = next;
  }
  // No "Expect: 100-continue" round trip before the body.
  curl_slist* next = curl_slist_append(t->headers, "Expect:");
  if (next == nullptr)
    headers_ok = false;
  else
    t->headers = next;

  CURL* e = t->easy;
  bool ok = headers_ok;
  ok = ok && curl_easy_setopt(e, CURLOPT_URL, t->url.c_str()) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_PRIVATE, t) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_write) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_WRITEDATA, t) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf.data()) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_USERAGENT, "tokscope") == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                              to_curl_ms(request.connect_timeout_ms)) == CURLE_OK;
  ok = ok && curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, to_curl_ms(request.timeout_ms)) == CURLE_OK;
  if (t->body.empty()) {
    ok = ok && curl_easy_setopt(e, CURLOPT_HTTPGET, 1L) == CURLE_OK;
  } else {
    ok = ok && curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.data()) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                                static_cast<curl_off_t>(t->body.size())) == CURLE_OK;
  }
  if (request.insecure) {
    ok = ok && curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L) == CURLE_OK;
    ok = ok && curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L) == CURLE_OK;
  }
  if (!ok) {
    t->sink = nullptr;
    idle_.push_back(t);
    return make_error(ErrorKind::kInternal,
                      fmt::format("libcurl rejected the options of the request to {}", t->display));
  }
  active_.push_back(t);
  if (in_perform_) {
    t->pending_add = true;  // libcurl forbids curl_multi_add_handle from its callbacks
    deferred_ = true;
  } else {
    start(*t);
  }
  return t->id;
}

void StreamClient::start(Transfer& t) {
  t.pending_add = false;
  if (curl_multi_add_handle(multi_, t.easy) != CURLM_OK) {
    finish(t, End::kCurl, CURLE_FAILED_INIT);
    return;
  }
  t.in_multi = true;
}

void StreamClient::finish(Transfer& t, End end, int curl_code) {
  if (t.in_multi) curl_multi_remove_handle(multi_, t.easy);
  t.in_multi = false;
  t.pending_add = false;
  if (const auto it = std::find(active_.begin(), active_.end(), &t); it != active_.end()) {
    active_.erase(it);
  }

  StreamResult result;
  if (!t.status_known) curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.status);
  result.http_status = t.status;
  result.body_bytes = t.body_bytes;
  if (end == End::kCancelled) {
    result.error = make_error(
        ErrorKind::kCancelled,
        fmt::format("request to {} cancelled after {} body bytes", t.display, t.body_bytes));
  } else if (end == End::kStopped) {
    result.error = make_error(ErrorKind::kCancelled,
                              fmt::format("request to {} stopped (stop requested) after {} body "
                                          "bytes",
                                          t.display, t.body_bytes));
  } else if (end == End::kStalled) {
    result.error = make_error(
        ErrorKind::kTimeout,
        fmt::format("stream from {} stalled: no bytes for {} ms after {} body bytes; the server "
                    "hung or is overloaded: check its log or raise the stall timeout",
                    t.display, t.stall_timeout_ns / 1'000'000, t.body_bytes));
  } else {
    const auto code = static_cast<CURLcode>(curl_code);
    result.body_prefix = t.body_prefix;
    scrub(result.body_prefix, t.secrets);
    if (code != CURLE_OK) {
      result.curl_error = t.errbuf[0] != '\0' ? std::string(t.errbuf.data())
                                              : std::string(curl_easy_strerror(code));
      scrub(result.curl_error, t.secrets);
    }
    if (t.status != 0 && !is_2xx(t.status)) {
      result.error = http_status_error(t.display, t.status, result.body_prefix);
    } else if (code != CURLE_OK) {
      result.error = transport_error(code, t, result.curl_error);
    }
  }
  if (result.error) scrub(result.error->message, t.secrets);

  StreamSink* sink = t.sink;
  t.sink = nullptr;
  t.cancel_pending = false;
  t.id = 0;  // a later cancel(id) must not find it
  idle_.push_back(&t);
  sink->on_done(result);  // may add streams, which may reuse t: nothing of t is used after this
}

void StreamClient::cancel(StreamId id) {
  if (id == 0) return;
  const auto it =
      std::find_if(active_.begin(), active_.end(), [id](const Transfer* t) { return t->id == id; });
  if (it == active_.end()) return;
  if (in_perform_) {
    (*it)->cancel_pending = true;
    deferred_ = true;
  } else {
    finish(**it, End::kCancelled, CURLE_OK);
  }
}

void StreamClient::cancel_all() {
  if (in_perform_) {
    for (auto* t : active_) t->cancel_pending = true;
    deferred_ = true;
    return;
  }
  // finish() may run sinks that add streams: cancel only those in flight now.
  const StreamId last = next_id_;
  while (true) {
    const auto it = std::find_if(active_.begin(), active_.end(),
                                 [last](const Transfer* t) { return t->id < last; });
    if (it == active_.end()) break;
    finish(**it, End::kCancelled, CURLE_OK);
  }
}

void StreamClient::process_deferred() {
  while (deferred_) {
    deferred_ = false;
    for (std::size_t i = 0; i < active_.size();) {
      Transfer* t = active_[i];
      if (t->cancel_pending) {
        finish(*t, End::kCancelled, CURLE_OK);  // removes active_[i]; callbacks may append more
      } else {
        if (t->pending_add) start(*t);
        ++i;
      }
    }
  }
}

void StreamClient::check_stalls(std::int64_t now_ns) {
  for (std::size_t i = 0; i < active_.size();) {
    Transfer* t = active_[i];
    if (t->stall_timeout_ns > 0 && now_ns - t->last_byte_ns > t->stall_timeout_ns) {
      finish(*t, End::kStalled, CURLE_OK);
    } else {
      ++i;
    }
  }
}

int StreamClient::wait_budget_ms(int max_wait_ms, std::int64_t now_ns) const {
  std::int64_t budget_ms = std::max(max_wait_ms, 0);
  for (const Transfer* t : active_) {
    if (t->stall_timeout_ns <= 0) continue;
    const std::int64_t left_ns = t->last_byte_ns + t->stall_timeout_ns - now_ns;
    budget_ms = std::min(budget_ms, std::max<std::int64_t>((left_ns + 999'999) / 1'000'000, 0));
  }
  return static_cast<int>(budget_ms);
}

std::size_t StreamClient::poll(int max_wait_ms) {
  if (multi_ == nullptr) return 0;
  if (stop_requested_.exchange(false)) stop_all();
  if (active_.empty()) return 0;

  int numfds = 0;
  curl_multi_poll(multi_, nullptr, 0, wait_budget_ms(max_wait_ms, platform::monotonic_now_ns()),
                  &numfds);
  if (stop_requested_.exchange(false)) {
    stop_all();
    return active_.size();
  }

  int running = 0;
  in_perform_ = true;
  curl_multi_perform(multi_, &running);
  in_perform_ = false;

  // Collect first: info_read's messages die with curl_multi_remove_handle (in finish()).
  finishing_.clear();
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    void* priv = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
    auto* t = static_cast<Transfer*>(priv);
    t->code = msg->data.result;
    finishing_.emplace_back(t, t->id);
  }
  // Each finish() runs a sink, which may cancel or add streams: finish only a transfer that is
  // still the one that completed (in the multi handle, not recycled by a new add_stream()).
  for (const auto& [t, id] : finishing_) {
    if (t->id != id || !t->in_multi) continue;
    if (t->cancel_pending)
      finish(*t, End::kCancelled, CURLE_OK);
    else
      finish(*t, End::kCurl, t->code);
  }
  process_deferred();
  check_stalls(platform::monotonic_now_ns());
  return active_.size();
}

void StreamClient::stop_all() {
  // Sinks may add streams from on_done(): those are new work, not stopped here.
  const StreamId last = next_id_;
  while (true) {
    const auto it = std::find_if(active_.begin(), active_.end(),
                                 [last](const Transfer* t) { return t->id < last; });
    if (it == active_.end()) break;
    finish(**it, End::kStopped, CURLE_OK);
  }
}

void StreamClient::run_until_idle() {
  while (poll(kIdlePollMs) > 0) {
  }
}

namespace {

class CollectingSink final : public StreamSink {
 public:
  explicit CollectingSink(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  void on_data(std::string_view bytes) noexcept override {
    if (body.size() + bytes.size() > max_bytes_) {
      too_large = true;
      return;
    }
    body.append(bytes);
  }
  void on_done(const StreamResult& r) noexcept override { result = r; }
  std::string body;
  bool too_large = false;
  StreamResult result;

 private:
  std::size_t max_bytes_;
};

}  // namespace

Expected<HttpResponse> post_json(const std::string& url, std::string body,
                                 const PostOptions& options) {
  StreamRequest request;
  request.url = url;
  if (!body.empty()) request.headers.emplace_back("Content-Type: application/json");
  request.headers.insert(request.headers.end(), options.headers.begin(), options.headers.end());
  request.body = std::move(body);
  request.timeout_ms = options.timeout_ms;
  request.connect_timeout_ms = options.connect_timeout_ms;
  request.insecure = options.insecure;

  StreamClient client;
  CollectingSink sink(options.max_body_bytes);
  auto id = client.add_stream(std::move(request), sink);
  if (!id) return id.error();
  client.run_until_idle();
  const StreamResult& r = sink.result;
  if (r.http_status != 0 && !is_2xx(r.http_status)) {
    return HttpResponse{r.http_status, r.body_prefix};
  }
  if (r.error) return *r.error;
  if (sink.too_large) {
    return make_error(ErrorKind::kEngine,
                      fmt::format("{} answered more than {} bytes: is --url the right server?",
                                  display_url(url), options.max_body_bytes));
  }
  return HttpResponse{r.http_status, std::move(sink.body)};
}

}  // namespace tokscope::engines::http
