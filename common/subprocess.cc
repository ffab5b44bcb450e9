#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace gpulint {
namespace {

class Pipe {
 public:
  Pipe() { ok_ = pipe2(fds_, O_CLOEXEC) == 0; }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  bool ok() const { return ok_; }
  int read_fd() const { return fds_[0]; }
  int write_fd() const { return fds_[1]; }
  void CloseRead() { Close(0); }
  void CloseWrite() { Close(1); }

 private:
  void Close(int i) {
    if (fds_[i] >= 0) close(fds_[i]);
    fds_[i] = -1;
  }
  int fds_[2] = {-1, -1};
  bool ok_ = false;
};

// Reads what is there from `fd` into `out`, keeping at most `max` bytes
// (`over` is set past it). Returns false at end of file or on an error.
bool Drain(int fd, size_t max, std::string* out, bool* over) {
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  size_t room = out->size() < max ? max - out->size() : 0;
  out->append(buf, std::min(room, static_cast<size_t>(n)));
  if (static_cast<size_t>(n) > room) *over = true;
  return true;
}

// This process's environment with `env` set over it.
std::vector<std::string> Environment(const std::vector<std::string>& env) {
  std::vector<std::string> out;
  auto name = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool replaced = std::any_of(env.begin(), env.end(),
                                [&](const std::string& x) { return name(x) == name(entry); });
    if (!replaced) out.emplace_back(entry);
  }
  out.insert(out.end(), env.begin(), env.end());
  return out;
}

}  // namespace

std::string ToolRun::FailureText(const ToolLimits& limits) const {
  if (timed_out) {
    auto ms = limits.timeout.count();
    return "no answer in " +
           (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms");
  }
  if (too_much_output) {
    return "more than " + std::to_string(limits.max_stdout >> 20) + " MiB of output";
  }
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return "exit status " + std::to_string(exit_status);
}

std::string FindOnPath(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + std::string(name);
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

bool RunTool(const std::vector<std::string>& argv, const ToolLimits& limits, ToolRun* run,
             std::string* error, const std::vector<std::string>& env) {
  // The tool's stdin is a pipe with no writer, which reads as empty, as
  // /dev/null would: a root with no /dev (an empty chroot) runs tools too.
  Pipe in, out, err;
  in.CloseWrite();
  if (argv.empty() || !in.ok() || !out.ok() || !err.ok()) {
    *error = "cannot start a tool: " + std::string(std::strerror(errno));
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read_fd(), 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_fd(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write_fd(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout stops whatever it started too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment;
  std::vector<char*> envp;
  if (!env.empty()) {
    environment = Environment(env);
    for (std::string& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  pid_t pid = 0;
  int rc =
      posix_spawn(&pid, args[0], &actions, &attr, args.data(), env.empty() ? environ : envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    *error = argv[0] + ": " + std::strerror(rc);
    return false;
  }
  out.CloseWrite();
  err.CloseWrite();

  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  bool out_open = true, err_open = true, err_over = false;
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run->timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out.read_fd() : -1, POLLIN, 0},
                     {err_open ? err.read_fd() : -1, POLLIN, 0}};
    int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (out_open && fds[0].revents != 0) {
      out_open = Drain(out.read_fd(), limits.max_stdout, &run->out, &run->too_much_output);
      if (run->too_much_output) break;
    }
    if (err_open && fds[1].revents != 0) {
      err_open = Drain(err.read_fd(), limits.max_stderr, &run->err, &err_over);
    }
  }
  if (out_open || err_open) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) run->exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run->signal = WTERMSIG(status);
  return true;
}

}  // namespace gpulint
