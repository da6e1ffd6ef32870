// ScriptedServer: a loopback HTTP/1.1 server for transport tests. It binds 127.0.0.1:0, runs
// one thread per connection, and answers every request with a scripted response: an SSE stream
// (Content-Type: text/event-stream, chunked or close-delimited) whose frames are written at
// planned instants (first after ttft_ms, then one every itl_ms), or a fault (reset mid-stream,
// HTTP error with a body, stall, malformed bytes). Keep-alive: chunked responses leave the
// connection open for the next request. It records every request and the planned and actual
// send instant of every frame (platform::monotonic_now_ns, CLOCK_MONOTONIC) for assertions.
//
// Thread-safety: all public members may be called from any thread while the server runs.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "platform/clock.hpp"

namespace tokscope::testing {

enum class Fault {
  kNone,       // the whole script
  kReset,      // after reset_after_frames frames: close with SO_LINGER 0 (TCP RST)
  kHttpError,  // error_status with error_body (JSON), Content-Length, keep-alive
  kStall,      // headers, reset_after_frames frames, then nothing until the client leaves
  kMalformed,  // malformed_bytes instead of a response, then close
};

struct Script {
  std::vector<std::string> frames;  // each written with one send(), e.g. "data: {...}\n\n"
  double ttft_ms = 0;               // request received -> first frame
  double itl_ms = 0;                // between frames
  bool chunked = true;              // else close-delimited (Connection: close)
  std::string content_type = "text/event-stream";
  Fault fault = Fault::kNone;
  std::size_t reset_after_frames = 0;  // kReset / kStall
  int error_status = 500;
  std::string error_body = R"({"error":{"message":"scripted failure","type":"server_error"}})";
  bool echo_headers_in_error = false;  // kHttpError: append the request's headers to the body
  std::string malformed_bytes = "GARBAGE 42 not http\r\n\r\n";
};

struct ReceivedRequest {
  std::string method, path, body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  [[nodiscard]] std::string header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return {};
  }
};

// One answered request: what was planned and what was sent, in monotonic_now_ns().
struct ResponseLog {
  ReceivedRequest request;
  std::int64_t received_ns = 0;
  std::vector<std::int64_t> planned_ns, sent_ns;  // per frame written
  std::string payload;                            // frames sent, concatenated (no chunk framing)
};

// A port nothing listens on (bound, then closed): connections to it are refused.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("closed_port: cannot bind a loopback socket");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

class ScriptedServer {
 public:
  using Scripter = std::function<Script(const ReceivedRequest&)>;

  explicit ScriptedServer(Scripter scripter) : scripter_(std::move(scripter)) {
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (stop_fd_ < 0 || listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 256) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("ScriptedServer: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~ScriptedServer() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(stop_fd_, &one, sizeof one);
    acceptor_.join();
    {
      std::lock_guard lock(mu_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : connections_) t.join();
    ::close(listen_fd_);
    ::close(stop_fd_);
  }

  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string url(std::string_view path = "/v1/chat/completions") const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  [[nodiscard]] int accepted_connections() const { return accepted_.load(); }
  [[nodiscard]] std::vector<ResponseLog> responses() const {
    std::lock_guard lock(mu_);
    return responses_;
  }

 private:
  void accept_loop() {
    while (true) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
      if ((fds[1].revents & POLLIN) != 0) return;
      if ((fds[0].revents & POLLIN) == 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      accepted_.fetch_add(1);
      std::lock_guard lock(mu_);
      open_fds_.push_back(fd);
      connections_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // Waits until `deadline_ns` or the server stops; false when it stops.
  bool wait_until(std::int64_t deadline_ns) const {
    while (true) {
      const std::int64_t left_ns = deadline_ns - platform::monotonic_now_ns();
      if (left_ns <= 0) return true;
      timespec ts{static_cast<time_t>(left_ns / 1'000'000'000),
                  static_cast<long>(left_ns % 1'000'000'000)};
      pollfd fd{stop_fd_, POLLIN, 0};
      const int rc = ::ppoll(&fd, 1, &ts, nullptr);
      if (rc > 0) return false;
    }
  }

  // Waits until the peer closes or the server stops (a stalled response).
  void wait_for_close(int fd) const {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    char buf[256];
    while (::poll(fds, 2, -1) >= 0) {
      if ((fds[1].revents & POLLIN) != 0) return;
      if (fds[0].revents != 0 && ::recv(fd, buf, sizeof buf, 0) <= 0) return;
    }
  }

  static bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Reads one request into `req`; false when the peer closed or the server stops.
  bool read_request(int fd, std::string& buffer, ReceivedRequest& req) const {
    std::size_t header_end = std::string::npos;
    std::size_t content_length = 0;
    while (true) {
      if (header_end == std::string::npos) {
        header_end = buffer.find("\r\n\r\n");
        if (header_end != std::string::npos) {
          parse_head(std::string_view(buffer).substr(0, header_end), req);
          const std::string cl = req.header("content-length");
          content_length = cl.empty() ? 0 : std::stoul(cl);
        }
      }
      if (header_end != std::string::npos && buffer.size() >= header_end + 4 + content_length) {
        req.body = buffer.substr(header_end + 4, content_length);
        buffer.erase(0, header_end + 4 + content_length);
        return true;
      }
      pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) return false;
      if ((fds[1].revents & POLLIN) != 0) return false;
      char chunk[4096];
      const auto n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }

  static void parse_head(std::string_view head, ReceivedRequest& req) {
    auto line_end = head.find("\r\n");
    const std::string_view first = head.substr(0, line_end);
    const auto sp1 = first.find(' ');
    const auto sp2 = first.find(' ', sp1 + 1);
    req.method = std::string(first.substr(0, sp1));
    req.path = std::string(first.substr(sp1 + 1, sp2 - sp1 - 1));
    while (line_end != std::string_view::npos) {
      const auto start = line_end + 2;
      line_end = head.find("\r\n", start);
      const std::string_view line = head.substr(start, line_end - start);
      const auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string name(line.substr(0, colon));
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      req.headers.emplace_back(std::move(name), std::string(value));
    }
  }

  static std::string chunk_of(std::string_view frame) {
    char size[32];
    const int n = std::snprintf(size, sizeof size, "%zx\r\n", frame.size());
    std::string out(size, static_cast<std::size_t>(n));
    out.append(frame);
    out.append("\r\n");
    return out;
  }

  static void reset(int fd) {
    const linger hard{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);  // close() now sends RST
  }

  // Answers one request; false when the connection must close.
  bool respond(int fd, const ReceivedRequest& req, std::int64_t received_ns, bool& hard_reset) {
    const Script script = scripter_(req);
    ResponseLog log;
    log.request = req;
    log.received_ns = received_ns;
    const auto record = [&] {
      std::lock_guard lock(mu_);
      responses_.push_back(log);
    };
    if (script.fault == Fault::kMalformed) {
      send_all(fd, script.malformed_bytes);
      record();
      return false;
    }
    if (script.fault == Fault::kHttpError) {
      std::string body = script.error_body;
      if (script.echo_headers_in_error) {
        for (const auto& [k, v] : req.headers) body += " " + k + ": " + v;
      }
      const std::string head = "HTTP/1.1 " + std::to_string(script.error_status) +
                               " Scripted Error\r\nContent-Type: application/json\r\n"
                               "Content-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n";
      log.payload = body;
      record();
      return send_all(fd, head + body);
    }
    std::string head = "HTTP/1.1 200 OK\r\nContent-Type: " + script.content_type +
                       "\r\nCache-Control: no-cache\r\n";
    head += script.chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Connection: close\r\n\r\n";
    if (!send_all(fd, head)) return false;
    const bool cut = script.fault == Fault::kReset || script.fault == Fault::kStall;
    const std::size_t frames =
        cut ? std::min(script.reset_after_frames, script.frames.size()) : script.frames.size();
    bool alive = true;
    for (std::size_t i = 0; i < frames && alive; ++i) {
      const double offset_ms = script.ttft_ms + static_cast<double>(i) * script.itl_ms;
      const std::int64_t planned = received_ns + static_cast<std::int64_t>(offset_ms * 1e6);
      if (!wait_until(planned)) return false;
      alive = send_all(fd, script.chunked ? chunk_of(script.frames[i]) : script.frames[i]);
      log.sent_ns.push_back(platform::monotonic_now_ns());
      log.planned_ns.push_back(planned);
      log.payload += script.frames[i];
    }
    record();
    if (!alive) return false;
    if (script.fault == Fault::kReset) {
      hard_reset = true;
      return false;
    }
    if (script.fault == Fault::kStall) {
      wait_for_close(fd);
      return false;
    }
    if (!script.chunked) return false;
    return send_all(fd, "0\r\n\r\n");
  }

  void serve(int fd) {
    std::string buffer;
    bool hard_reset = false;
    while (true) {
      ReceivedRequest req;
      if (!read_request(fd, buffer, req)) break;
      if (!respond(fd, req, platform::monotonic_now_ns(), hard_reset)) break;
    }
    std::lock_guard lock(mu_);
    if (hard_reset) reset(fd);
    open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
    ::close(fd);
  }

  Scripter scripter_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;  // guards everything below
  std::vector<std::thread> connections_;
  std::vector<int> open_fds_;
  std::vector<ResponseLog> responses_;
};

}  // namespace tokscope::testing
