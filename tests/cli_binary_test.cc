// Drives the built gpulint binary (GPULINT_BINARY) as a user or CI would:
// real argv, real stdin, real exit codes, stdout and stderr kept apart.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/golden.h"
#include "tests/temp_dir.h"

#ifndef GPULINT_BINARY
#error "GPULINT_BINARY must name the gpulint binary under test"
#endif

namespace {

namespace fs = std::filesystem;
using gpulint::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int rc = -1;
  std::string out, err;
};

enum class Stdout { kFile, kTerminal };

struct Options {
  std::string stdin_path = "/dev/null";
  Stdout stdout_kind = Stdout::kFile;
  const char* no_color = nullptr;       // NO_COLOR in the child's environment
  std::string binary = GPULINT_BINARY;  // what is run, as argv[0]
};

// Runs the binary with `args`. With Stdout::kTerminal, stdout is a
// pseudo-terminal, read back after the child exits (the output is small).
Result RunBinary(const TempDir& dir, const std::vector<std::string>& args,
                 const Options& options = {}) {
  std::string out_path = dir.Path(".stdout"), err_path = dir.Path(".stderr");
  int master = -1;
  std::string slave_name;
  if (options.stdout_kind == Stdout::kTerminal) {
    master = posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(master >= 0);
    REQUIRE(grantpt(master) == 0);
    REQUIRE(unlockpt(master) == 0);
    slave_name = ptsname(master);
  }
  std::vector<std::string> argv_storage = {options.binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int in = open(options.stdin_path.c_str(), O_RDONLY);
    int out = options.stdout_kind == Stdout::kTerminal
                  ? open(slave_name.c_str(), O_RDWR | O_NOCTTY)
                  : open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (options.no_color) {
      setenv("NO_COLOR", options.no_color, 1);
    } else {
      unsetenv("NO_COLOR");
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  Result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (master >= 0) {
    char buf[4096];
    ssize_t n;
    // Linux returns EIO once the terminal's other end is closed and drained.
    while ((n = read(master, buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(n));
    close(master);
  } else {
    r.out = ReadFile(out_path);
  }
  r.err = ReadFile(err_path);
  return r;
}

std::string FractionalPod(const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\nspec:\n  containers:\n  - name: train\n    image: nvcr.io/nvidia/pytorch:24.01-py3\n"
         "    resources:\n      limits:\n        nvidia.com/gpu: 1.5\n        memory: 8Gi\n";
}

TEST_CASE("binary: --help and every command's --help exit 0", "[cli][binary]") {
  TempDir dir;
  Result help = RunBinary(dir, {"--help"});
  CHECK(help.rc == 0);
  for (const char* command :
       {"check", "fix", "node-patch", "quantity", "rules", "explain", "version"}) {
    CHECK(help.out.find(std::string("gpulint ") + command) != std::string::npos);
    Result r = RunBinary(dir, {command, "--help"});
    CHECK(r.rc == 0);
    CHECK(r.out.rfind(std::string("Usage: gpulint ") + command, 0) == 0);
  }
}

TEST_CASE("binary: installed as kubectl-gpulint, it is kubectl's plugin and says so",
          "[cli][binary][audit]") {
  // kubectl runs kubectl-gpulint for `kubectl gpulint ARGS...`, with ARGS.
  TempDir dir;
  Options plugin;
  plugin.binary = dir.Path("kubectl-gpulint");
  fs::create_symlink(fs::absolute(GPULINT_BINARY), plugin.binary);
  Result help = RunBinary(dir, {"audit", "--help"}, plugin);
  CHECK(help.rc == 0);
  CHECK(help.out.rfind("Usage: kubectl gpulint audit [OPTIONS]\n", 0) == 0);
  CHECK(help.out.find("\n  kubectl gpulint audit --context prod --format json") !=
        std::string::npos);
  Result main_help = RunBinary(dir, {"--help"}, plugin);
  CHECK(main_help.out.find("\n  kubectl gpulint audit [OPTIONS]") != std::string::npos);
  Result wrong = RunBinary(dir, {"audit", "--kubecontext", "x"}, plugin);
  CHECK(wrong.rc == 2);
  CHECK(wrong.err.rfind("kubectl gpulint: error: ", 0) == 0);
  // Under its own name, nothing changes.
  CHECK(RunBinary(dir, {"audit", "--help"}).out.rfind("Usage: gpulint audit [OPTIONS]\n", 0) == 0);
}

TEST_CASE("binary: exit codes 0, 1 and 2", "[cli][binary]") {
  TempDir dir;
  std::string clean =
      dir.Write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
  std::string pod = dir.Write("pod.yaml", FractionalPod("half"));
  CHECK(RunBinary(dir, {"check", clean}).rc == 0);
  Result dirty = RunBinary(dir, {pod});
  CHECK(dirty.rc == 1);
  CHECK(dirty.out.rfind(pod + ":11:25: error: ", 0) == 0);
  CHECK(dirty.err ==
        "gpulint: " + std::string("1 error, 0 warnings in 1 object (1 file); fit and VRAM not checked: no nodes (--nodes); "
                                 "policy: built-in\n"));
  Result bad = RunBinary(dir, {"check", "--no-such-flag", pod});
  CHECK(bad.rc == 2);
  CHECK(bad.err ==
        "gpulint: error: unknown option '--no-such-flag' (see 'gpulint check --help')\n");
  Result typo = RunBinary(dir, {"check", "--fail-no", "warning", pod});
  CHECK(typo.rc == 2);
  CHECK(typo.err ==
        "gpulint: error: unknown option '--fail-no'; did you mean '--fail-on'? (see 'gpulint "
        "check --help')\n");
  Result missing = RunBinary(dir, {"check", dir.Path("missing.yaml")});
  CHECK(missing.rc == 2);
  CHECK(missing.err.find(dir.Path("missing.yaml")) != std::string::npos);
}

TEST_CASE("binary: stdin is read for -", "[cli][binary]") {
  TempDir dir;
  Options options;
  options.stdin_path = dir.Write("pod.yaml", FractionalPod("piped"));
  Result r = RunBinary(dir, {"check", "--format", "json", "-"}, options);
  CHECK(r.rc == 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  REQUIRE(doc.at("findings").size() >= 1);
  CHECK(doc.at("findings").at(0).at("file") == "<stdin>");
  CHECK(doc.at("findings").at(0).at("object").at("name") == "piped");
}

TEST_CASE("binary: many findings all arrive, across output blocks", "[cli][binary]") {
  TempDir dir;
  std::string text;
  constexpr int kPods = 2000;
  for (int i = 0; i < kPods; ++i) text += "---\n" + FractionalPod("pod-" + std::to_string(i));
  std::string path = dir.Write("many.yaml", text);
  Result r = RunBinary(dir, {"check", "--format=json", path});
  CHECK(r.rc == 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("summary").at("objects") == kPods);
  CHECK(doc.at("findings").size() == doc.at("summary").at("errors").get<size_t>() +
                                         doc.at("summary").at("warnings").get<size_t>() +
                                         doc.at("summary").at("infos").get<size_t>());
  size_t fractional = 0;
  for (const auto& f : doc.at("findings")) fractional += f.at("rule") == "gpu-fractional";
  CHECK(fractional == kPods);

  Result text_run = RunBinary(dir, {"check", path});
  size_t lines = 0;
  for (char c : text_run.out) lines += c == '\n';
  CHECK(lines == doc.at("findings").size());
}

TEST_CASE("binary: colour on a terminal, none with NO_COLOR or a file", "[cli][binary]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", FractionalPod("half"));
  Options tty;
  tty.stdout_kind = Stdout::kTerminal;
  Result colored = RunBinary(dir, {pod}, tty);
  CHECK(colored.rc == 1);
  CHECK(colored.out.find("\x1b[1;31merror:") != std::string::npos);
  tty.no_color = "1";
  Result plain_tty = RunBinary(dir, {pod}, tty);
  CHECK(plain_tty.out.find("error:") != std::string::npos);
  CHECK(plain_tty.out.find('\x1b') == std::string::npos);
  Result file = RunBinary(dir, {pod});
  CHECK(file.out.find('\x1b') == std::string::npos);
}

constexpr char kToolsPod[] = R"(# tools pod: a CUDA image, no GPU limit
apiVersion: v1
kind: Pod
metadata: {name: tools}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - name: shell
    image: nvcr.io/nvidia/cuda:12.4.1-base   # a comment that stays
    resources:
      limits: {memory: "512MiB"}
)";

TEST_CASE("binary: fix --write rewrites files in place, a second run changes nothing",
          "[cli][binary][fix]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kToolsPod);
  Result first = RunBinary(dir, {"fix", "--write", pod});
  CHECK(first.rc == 1);
  CHECK(first.out.empty());
  CHECK(first.err == pod +
                         ":11:24: memory: 512MiB -> 512Mi (the \"i\" makes MiB the binary "
                         "unit Mi, which Kubernetes writes Mi) [quantity-invalid]\n" +
                         pod +
                         ":8:5: spec.containers[0]: add env NVIDIA_VISIBLE_DEVICES=void (no GPU "
                         "limit: it must see no GPU) [gpu-limit-missing]\n"
                         "gpulint: made 2 changes in 1 file; policy: built-in\n");
  CHECK(ReadFile(pod) == R"(# tools pod: a CUDA image, no GPU limit
apiVersion: v1
kind: Pod
metadata: {name: tools}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - name: shell
    image: nvcr.io/nvidia/cuda:12.4.1-base   # a comment that stays
    resources:
      limits: {memory: "512Mi"}
    env:
    - name: NVIDIA_VISIBLE_DEVICES
      value: void
)");
  // The directory holds the file and the test's own captures, nothing else.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path()))
    entries += e.path().filename().string().rfind(".std", 0) != 0;
  CHECK(entries == 1);
  Result second = RunBinary(dir, {"fix", "--write", pod});
  CHECK(second.rc == 0);
  CHECK(second.err == "gpulint: nothing to fix in 1 file; policy: built-in\n");
  // And check no longer reports what fix hid: before, it did.
  Result check = RunBinary(dir, {"check", "--format", "json", pod});
  CHECK(check.rc == 0);
  CHECK(check.out.find("gpu-limit-missing") == std::string::npos);
  dir.Write("before.yaml", kToolsPod);
  Result before = RunBinary(dir, {"check", "--format", "json", dir.Path("before.yaml")});
  CHECK(before.out.find("gpu-limit-missing") != std::string::npos);
}

TEST_CASE("binary: fix - prints to stdout, and --write refuses stdin", "[cli][binary][fix]") {
  TempDir dir;
  Options options;
  options.stdin_path = dir.Write("pod.yaml", kToolsPod);
  Result printed = RunBinary(dir, {"fix", "-q", "-"}, options);
  CHECK(printed.rc == 1);
  CHECK(printed.out.find("    env:\n    - name: NVIDIA_VISIBLE_DEVICES\n      value: void\n") !=
        std::string::npos);
  Result refused = RunBinary(dir, {"fix", "--write", "-"}, options);
  CHECK(refused.rc == 2);
  CHECK(refused.err ==
        "gpulint: error: --write cannot write back to stdin; run 'gpulint fix - > FILE' "
        "instead\n");
}

TEST_CASE("binary: node-patch reads nvidia-smi on stdin", "[cli][binary][node-patch]") {
  TempDir dir;
  Options options;
  options.stdin_path =
      gpulint::testing::SourceDir() + "/testdata/gpu/h200/query-index-name-total-reserved.csv";
  Result r = RunBinary(dir, {"node-patch", "--node", "h200-0"}, options);
  CHECK(r.rc == 0);
  CHECK(r.out == R"([{"op":"add","path":"/status/capacity/gpulint.io~1vram","value":"143155Mi"}])"
                 "\n");
  CHECK(r.err.find("kubectl patch node h200-0 --subresource=status --type=json -p '[") !=
        std::string::npos);
  options.stdin_path = dir.Write("bad.csv", "0, NVIDIA A100-SXM4-80GB, 81920\nGPU 1\n");
  Result bad = RunBinary(dir, {"node-patch"}, options);
  CHECK(bad.rc == 2);
  CHECK(bad.err.rfind("gpulint: error: <stdin>:2:1: expected 4 comma-separated fields", 0) == 0);
}

TEST_CASE("binary: quantity", "[cli][binary][quantity]") {
  TempDir dir;
  Result r = RunBinary(dir, {"quantity", "500Gi"});
  CHECK(r.rc == 0);
  CHECK(r.out == "500Gi = 536870912000 bytes = 536.9 GB = 500 GiB\n");
  Result json = RunBinary(dir, {"quantity", "--format", "json", "500GB"});
  CHECK(json.rc == 1);
  CHECK(nlohmann::json::parse(json.out).at(0).at("valid") == false);
}

TEST_CASE("binary: check --format sarif is one SARIF 2.1.0 document", "[cli][binary]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", FractionalPod("half"));
  Result r = RunBinary(dir, {"check", "--format", "sarif", pod});
  CHECK(r.rc == 1);
  nlohmann::json log = nlohmann::json::parse(r.out);
  CHECK(log.at("version") == "2.1.0");
  const auto& result = log.at("runs").at(0).at("results").at(0);
  CHECK(result.at("ruleId") == "gpu-fractional");
  CHECK(result.at("locations").at(0).at("physicalLocation").at("region") ==
        nlohmann::json::parse(R"({"startLine": 11, "startColumn": 25})"));
}

}  // namespace
