// tests/connect_proxy.py run for one test: a CONNECT proxy on loopback that is
// not gpulint's code, with what it tunnelled and refused in its log.
#ifndef GPULINT_TESTS_CONNECT_PROXY_H_
#define GPULINT_TESTS_CONNECT_PROXY_H_

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

extern char** environ;

namespace gpulint::testing {

class ConnectProxy {
 public:
  // `args`: connect_proxy.py's (--auth USER:PASSWORD, --map HOST=ADDRESS).
  explicit ConnectProxy(std::vector<std::string> args = {}) {
    std::vector<std::string> argv = {"python3", std::string(GPULINT_SOURCE_DIR) +
                                                    "/tests/connect_proxy.py",
                                     "--log", dir_.Path("proxy.log")};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (std::string& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    int out[2];
    REQUIRE(pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    int rc = posix_spawnp(&pid_, "python3", &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    REQUIRE(rc == 0);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    port_ = std::atoi(line.c_str());
    REQUIRE(port_ > 0);
  }
  ~ConnectProxy() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  ConnectProxy(const ConnectProxy&) = delete;
  ConnectProxy& operator=(const ConnectProxy&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // What it tunnelled and refused, a line each.
  std::string Log() const {
    std::ifstream in(dir_.Path("proxy.log"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace gpulint::testing

#endif  // GPULINT_TESTS_CONNECT_PROXY_H_
