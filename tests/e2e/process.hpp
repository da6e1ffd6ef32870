// Runs the real tokscope binary for end-to-end tests: spawn with stdout/stderr captured to
// files, wait, signal. POSIX only.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/test_dir.hpp"

extern char** environ;

namespace tokscope::testing {

struct Finished {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Process {
 public:
  Process(const std::vector<std::string>& args, const std::filesystem::path& dir) : dir_(dir) {
    std::vector<char*> argv;
    argv_storage_ = args;
    argv_storage_.insert(argv_storage_.begin(), TOKSCOPE_BINARY);
    for (auto& a : argv_storage_) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, (dir / "stdout").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, (dir / "stderr").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rc, 0) << "cannot spawn " << argv[0];
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }

  void signal(int sig) const { ::kill(pid_, sig); }

  Finished wait() {
    Finished f;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    waited_ = true;
    if (WIFEXITED(status)) f.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
    f.out = slurp(dir_ / "stdout");
    f.err = slurp(dir_ / "stderr");
    return f;
  }

 private:
  std::filesystem::path dir_;
  std::vector<std::string> argv_storage_;
  pid_t pid_ = -1;
  bool waited_ = false;
};

inline Finished run_tokscope(const std::vector<std::string>& args,
                             const std::filesystem::path& dir) {
  Process p(args, dir);
  return p.wait();
}

// Complete lines of a file (a torn last line is not counted).
inline std::size_t complete_lines(const std::filesystem::path& p) {
  const std::string s = slurp(p);
  std::size_t n = 0;
  for (const char c : s) n += c == '\n' ? 1 : 0;
  return n;
}

// Polls until pred() or the timeout; returns pred()'s last value.
template <class Pred>
bool wait_until(Pred pred, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

inline std::filesystem::path fresh_dir() {
  return fresh_test_dir();
}

}  // namespace tokscope::testing
