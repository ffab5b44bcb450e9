// Hostile input for the gpulint binary: what is not a manifest file (/dev/zero,
// a FIFO, a directory, an unreadable file, symlink loops), empty files, a long
// stream, and the engine's hostile documents (tests/hostile_lint_test.cc) as a
// user would pass them. Each run ends in a clear error or a correct verdict,
// with memory bounded by RLIMIT_AS in the child and time by ctest's TIMEOUT.
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/yaml/loader.h"
#include "tests/temp_dir.h"

#ifndef GPULINT_BINARY
#error "GPULINT_BINARY must name the gpulint binary under test"
#endif

// ASan reserves terabytes of address space for its shadow memory, so RLIMIT_AS
// cannot bound a sanitized binary; there ASan's own RSS limit bounds it.
#if defined(__SANITIZE_ADDRESS__)
#define GPULINT_HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPULINT_HOSTILE_ASAN 1
#endif
#endif

namespace gpulint {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A GPU pod with one finding (gpu-fractional) and no other.
std::string FractionalPod(const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\nspec:\n  containers:\n  - name: train\n    image: nvcr.io/nvidia/pytorch:24.01-py3\n"
         "    resources:\n      limits:\n        nvidia.com/gpu: 1.5\n        memory: 8Gi\n";
}

struct Result {
  int rc = -1;
  std::string out, err;
};

struct RunOptions {
  std::string stdin_path = "/dev/null";
  bool as_nobody = false;  // drop root privileges before exec
};

// Exit status the child uses when it could not become `nobody` or exec.
constexpr int kCannotRun = 125;

// Runs the binary in a child with bounded memory. A child killed by a signal
// (RLIMIT_AS turns runaway allocation into std::bad_alloc or SIGSEGV) returns
// 128 + the signal, which no case accepts.
Result RunBinary(const TempDir& dir, const std::vector<std::string>& args,
                 const RunOptions& options = {}) {
  std::string out_path = dir.Path(".stdout"), err_path = dir.Path(".stderr");
  std::vector<std::string> argv_storage = {GPULINT_BINARY};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
#ifdef GPULINT_HOSTILE_ASAN
  std::string asan = "ASAN_OPTIONS=";
  if (const char* inherited = getenv("ASAN_OPTIONS")) asan += std::string(inherited) + ":";
  asan += "hard_rss_limit_mb=1024";
#endif

  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int in = open(options.stdin_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(kCannotRun);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
#ifdef GPULINT_HOSTILE_ASAN
    putenv(asan.data());
#else
    constexpr rlim_t kBinaryMemory = rlim_t{512} << 20;
    struct rlimit memory = {kBinaryMemory, kBinaryMemory};
    if (setrlimit(RLIMIT_AS, &memory) != 0) _exit(kCannotRun);
#endif
    if (options.as_nobody && getuid() == 0) {
      if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
        _exit(kCannotRun);
    }
    unsetenv("NO_COLOR");
    execv(argv[0], argv.data());
    _exit(kCannotRun);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  Result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  return r;
}

nlohmann::json JsonOf(const Result& r) {
  INFO(r.err);
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  return doc;
}

size_t CountRule(const nlohmann::json& doc, const std::string& rule) {
  size_t n = 0;
  for (const auto& f : doc.at("findings")) n += f.at("rule") == rule;
  return n;
}

// ---- streams ---------------------------------------------------------------

TEST_CASE("hostile: the engine's hostile documents through the binary, one file",
          "[hostile][lint][binary]") {
  TempDir dir;
  // Each broken document is reported at its fault; the pod after them is
  // still judged. The alias bomb would be 387 million nodes expanded.
  std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) bomb += (k ? ", " : "") + prev;
    bomb += "]\n";
  }
  std::string text = "\xEF\xBB\xBF" + std::string(50000, '[') + std::string(50000, ']') + "\n---\n" +
                     bomb + "---\na: &a [*a]\n---\na: &a\n  <<: *a\n---\nk: 1\nk: 2\n---\n" +
                     FractionalPod("after");
  std::string path = dir.Write("hostile.yaml", text);
  Result r = RunBinary(dir, {"check", path});
  CHECK(r.rc == 1);
  const std::string errors =
      path + ":1:257: error: nesting is deeper than 256 levels [parse-error]\n" + path +
      ":8:10: error: aliases expand to more than 100000 nodes [parse-error]\n" + path +
      ":14:8: error: alias *a refers to a node that contains it [parse-error]\n" + path +
      ":17:7: error: alias *a refers to a node that contains it [parse-error]\n" + path +
      ":20:1: error: duplicate key \"k\" (first at line 19) [parse-error]\n";
  CHECK(r.out.substr(0, errors.size()) == errors);
  std::string last = r.out.substr(std::min(errors.size(), r.out.size()));
  CHECK_THAT(last, Catch::StartsWith(path + ":32:25: error: container \"train\": nvidia.com/gpu "
                                            "1500m (1.5) is not a whole number"));
  CHECK_THAT(last, Catch::EndsWith("[gpu-fractional]\n"));
  CHECK(r.err == "gpulint: 6 errors, 0 warnings in 1 object (1 file); fit and VRAM not checked: no nodes (--nodes); "
                 "policy: built-in\n");
}

TEST_CASE("hostile: a stream of 10,000 documents, some broken", "[hostile][lint]") {
  TempDir dir;
  constexpr int kDocs = 10000;
  std::string text;
  for (int i = 0; i < kDocs; ++i) {
    text += "---\n";
    text += i % 100 == 99 ? "broken: [\n" : FractionalPod("pod-" + std::to_string(i));
  }
  std::string path = dir.Write("stream.yaml", text);
  Result r = RunBinary(dir, {"check", "--format=json", path});
  CHECK(r.rc == 1);
  nlohmann::json doc = JsonOf(r);
  CHECK(doc.at("summary").at("objects") == kDocs - kDocs / 100);
  CHECK(CountRule(doc, "gpu-fractional") == kDocs - kDocs / 100);
  CHECK(CountRule(doc, "parse-error") == kDocs / 100);
  CHECK(doc.at("findings").size() == kDocs);
}

// Read without complaint, but a PATH that holds no document is an input
// error; --allow-empty makes it a warning.
TEST_CASE("hostile: empty files and files of comments and markers", "[hostile][lint]") {
  TempDir dir;
  for (const char* text : {"", "\n\n", "# nothing\n", "---\n", "---\n...\n---\n", "\xEF\xBB\xBF"}) {
    INFO(text);
    std::string path = dir.Write("empty.yaml", text);
    const std::string nothing = path + ": no manifests found (no YAML or JSON document in it)\n";
    const std::string summary =
        "gpulint: 0 errors, 0 warnings in 0 objects (1 file); policy: built-in\n";
    Result r = RunBinary(dir, {"check", path});
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpulint: error: " + nothing + summary);
    Result allowed = RunBinary(dir, {"check", "--allow-empty", path});
    CHECK(allowed.rc == 0);
    CHECK(allowed.out.empty());
    CHECK(allowed.err == "gpulint: warning: " + nothing + summary);
  }
}

// ---- what is not a manifest file ---------------------------------------

TEST_CASE("hostile: /dev/zero, as a path and as stdin", "[hostile][lint]") {
  TempDir dir;
  Result path = RunBinary(dir, {"check", "/dev/zero"});
  CHECK(path.rc == 2);
  CHECK(path.out.empty());
  CHECK(path.err.find("gpulint: error: /dev/zero: is a character device, not a file\n") == 0);
  // Endless input without a newline ends at the document size limit, in
  // bounded memory (the child runs under RLIMIT_AS).
  RunOptions zero;
  zero.stdin_path = "/dev/zero";
  Result in = RunBinary(dir, {"check", "-"}, zero);
  CHECK(in.rc == 1);
  CHECK(in.out ==
        "<stdin>:1:1: error: document is larger than 64 MiB; the rest of the input is skipped "
        "[parse-error]\n");
}

TEST_CASE("hostile: a FIFO is read as a stream, one met in a directory is skipped",
          "[hostile][lint]") {
  TempDir dir;
  std::string fifo = dir.Path("pipe.yaml");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  pid_t writer = fork();
  REQUIRE(writer >= 0);
  if (writer == 0) {
    int fd = open(fifo.c_str(), O_WRONLY);
    std::string text = FractionalPod("piped");
    bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    _exit(ok ? 0 : 1);
  }
  Result named = RunBinary(dir, {"check", "--format=json", fifo});
  int status = 0;
  REQUIRE(waitpid(writer, &status, 0) == writer);
  CHECK(WIFEXITED(status));
  CHECK(named.rc == 1);
  nlohmann::json doc = JsonOf(named);
  CHECK(CountRule(doc, "gpu-fractional") == 1);
  CHECK(doc.at("findings").at(0).at("file") == fifo);

  // Nothing writes to it now: opening it would block, so a walk must skip it.
  dir.Write("pod.yaml", FractionalPod("file"));
  Result walked = RunBinary(dir, {"check", "--format=json", dir.path().string()});
  CHECK(walked.rc == 1);
  nlohmann::json walked_doc = JsonOf(walked);
  CHECK(walked_doc.at("summary").at("files") == 1);
  CHECK(CountRule(walked_doc, "gpu-fractional") == 1);
}

TEST_CASE("hostile: a directory", "[hostile][lint]") {
  TempDir dir;
  fs::create_directories(dir.path() / "empty");
  fs::create_directories(dir.path() / "tree" / "looks-like.yaml");
  dir.Write("tree/looks-like.yaml/pod.yml", FractionalPod("inside"));

  RunOptions stdin_dir;
  stdin_dir.stdin_path = dir.path().string();
  Result in = RunBinary(dir, {"check", "-"}, stdin_dir);
  CHECK(in.rc == 2);
  CHECK(in.err.find("gpulint: error: <stdin>: read failed: is a directory\n") == 0);

  Result empty = RunBinary(dir, {"check", dir.Path("empty")});
  CHECK(empty.rc == 2);
  CHECK(empty.err == "gpulint: error: " + dir.Path("empty") +
                         ": no manifests found (looked for *.yaml, *.yml and *.json)\n"
                         "gpulint: 0 errors, 0 warnings in 0 objects (0 files)\n");

  // A directory named like a manifest is walked, not read.
  Result tree = RunBinary(dir, {"check", "--format=json", dir.Path("tree")});
  CHECK(tree.rc == 1);
  CHECK(CountRule(JsonOf(tree), "gpu-fractional") == 1);

  Error error;
  CHECK_FALSE(LoadYamlFile(
      dir.Path("empty"), {}, [](Document&&) { return true; }, &error));
  CHECK(error.ToString() == dir.Path("empty") + ": is a directory");
}

TEST_CASE("hostile: an unreadable file", "[hostile][lint]") {
  TempDir dir;
  std::string secret = dir.Write("secret.yaml", FractionalPod("secret"));
  REQUIRE(chmod(secret.c_str(), 0) == 0);
  // Root reads anything: the binary then runs as nobody, which needs to reach
  // the directory and the binary.
  bool root = getuid() == 0;
  if (root) fs::permissions(dir.path(), fs::perms::all, fs::perm_options::replace);
  RunOptions nobody;
  nobody.as_nobody = true;
  Result r = RunBinary(dir, {"check", secret}, nobody);
  if (root && r.rc == kCannotRun) {
    WARN("skipped: running as root and cannot run " GPULINT_BINARY " as nobody");
    return;
  }
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("gpulint: error: " + secret + ": permission denied\n") == 0);
  if (root) {
    WARN("running as root: LoadYamlFile on an unreadable file is checked only through the binary");
  } else {
    Error error;
    CHECK_FALSE(LoadYamlFile(
        secret, {}, [](Document&&) { return true; }, &error));
    CHECK(error.ToString() == secret + ": permission denied");
  }
}

// As a walk meets it: one input error, in the document of JSON and SARIF
// too, and no "no manifests found" on top of it.
TEST_CASE("hostile: an unreadable directory", "[hostile][lint]") {
  TempDir dir;
  fs::create_directories(dir.path() / "locked");
  dir.Write("locked/pod.yaml", FractionalPod("locked"));
  std::string locked = dir.Path("locked");
  REQUIRE(chmod(locked.c_str(), 0) == 0);
  if (getuid() == 0) fs::permissions(dir.path(), fs::perms::all, fs::perm_options::replace);
  RunOptions nobody;
  nobody.as_nobody = true;
  Result json = RunBinary(dir, {"check", "--format=json", locked}, nobody);
  if (json.rc == kCannotRun) {
    WARN("skipped: running as root and cannot run " GPULINT_BINARY " as nobody");
    return;
  }
  CHECK(json.rc == 2);
  CHECK(json.err == "gpulint: error: " + locked + ": permission denied\n");
  CHECK(JsonOf(json).at("errors") ==
        nlohmann::json::parse(R"([{"message": "permission denied", "file": ")" + locked +
                              R"(", "line": 0, "column": 0}])"));
  Result sarif = RunBinary(dir, {"check", "--format=sarif", locked}, nobody);
  CHECK(sarif.rc == 2);
  nlohmann::json invocation = JsonOf(sarif).at("runs").at(0).at("invocations").at(0);
  CHECK(invocation.at("executionSuccessful") == false);
  CHECK(invocation.at("toolExecutionNotifications").size() == 1);
  REQUIRE(chmod(locked.c_str(), 0755) == 0);  // for TempDir to remove
}

TEST_CASE("hostile: symlink loops", "[hostile][lint]") {
  TempDir dir;
  fs::create_directories(dir.path() / "d");
  dir.Write("d/pod.yaml", FractionalPod("once"));
  fs::create_directory_symlink(".", dir.path() / "d" / "self");
  fs::create_directory_symlink("..", dir.path() / "d" / "up");
  fs::create_symlink("b.yaml", dir.path() / "a.yaml");
  fs::create_symlink("a.yaml", dir.path() / "b.yaml");

  Result named = RunBinary(dir, {"check", dir.Path("a.yaml")});
  CHECK(named.rc == 2);
  CHECK(named.err.find("gpulint: error: " + dir.Path("a.yaml") +
                       ": too many levels of symbolic links\n") == 0);

  // A walk reports the looping links by name and reads every real file once.
  Result walked = RunBinary(dir, {"check", "--format=json", dir.path().string()});
  CHECK(walked.rc == 2);
  CHECK(walked.err.find(dir.Path("a.yaml") + ": too many levels of symbolic links") !=
        std::string::npos);
  CHECK(walked.err.find(dir.Path("b.yaml") + ": too many levels of symbolic links") !=
        std::string::npos);
  nlohmann::json doc = JsonOf(walked);
  CHECK(CountRule(doc, "gpu-fractional") == 1);
  CHECK(doc.at("summary").at("files") == 1);
}

}  // namespace
}  // namespace gpulint
