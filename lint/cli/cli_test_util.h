// Test helpers for running the CLI in-process: a temporary directory, an
// environment variable set for one test, a current directory for one test,
// and RunCli with captured streams.
// Test-only.
#ifndef GPULINT_LINT_CLI_CLI_TEST_UTIL_H_
#define GPULINT_LINT_CLI_CLI_TEST_UTIL_H_

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lint/cli/cli.h"
#include "tests/golden.h"

namespace gpulint::testing {

class TempDir {
 public:
  TempDir() {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / "gpulint_cli_test.XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(path_ / name, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Sets an environment variable for one test.
class EnvVar {
 public:
  EnvVar(const char* name, const std::string& value) : name_(name) {
    const char* old = getenv(name);
    if (old) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~EnvVar() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Runs in `dir` for one test (relative paths, stdin's policy and a
// baseline's root are found from there), then back.
class InDirectory {
 public:
  explicit InDirectory(const std::string& dir) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InDirectory() { std::filesystem::current_path(old_); }

 private:
  std::filesystem::path old_;
};

struct Result {
  int rc = -1;
  std::string out, err;
};

// `stdin_path`, when given, is opened and handed in as stdin; otherwise stdin
// is closed, so a test that reads it by mistake fails instead of hanging.
inline Result Run(const std::vector<std::string>& args, const std::string& stdin_path = "") {
  std::ostringstream out, err;
  CliIo io{out, err};
  int fd = -1;
  if (!stdin_path.empty()) {
    fd = open(stdin_path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
  }
  io.stdin_fd = fd;
  Result r;
  r.rc = RunCli(args, io);
  if (fd >= 0) close(fd);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A file of testdata/, by its path there.
inline std::string Testdata(const std::string& path) { return SourceDir() + "/testdata/" + path; }

// The lines of a command's output, without their newlines.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace gpulint::testing

#endif  // GPULINT_LINT_CLI_CLI_TEST_UTIL_H_
