#include "tests/chart/chart_support.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include "engine/base/value.h"
#include "engine/yaml/loader.h"

#ifndef GPULINT_SOURCE_DIR
#error "GPULINT_SOURCE_DIR must name the source tree"
#endif

namespace gpulint::chart_test {
namespace {

std::string& HelmStorage() {
  static std::string path;
  return path;
}

// A temporary file that is read back and removed.
class CaptureFile {
 public:
  CaptureFile() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpulint_chart.XXXXXX";
    fd_ = mkstemp(path_.data());
  }
  ~CaptureFile() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  std::string Read() const {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

void SetHelm(std::string path) { HelmStorage() = std::move(path); }
const std::string& Helm() { return HelmStorage(); }
std::string SourceDir() { return GPULINT_SOURCE_DIR; }
std::string ChartDir() { return SourceDir() + "/charts/gpulint-webhook"; }

Output RunCommand(const std::vector<std::string>& argv) {
  Output result;
  CaptureFile out, err;
  if (argv.empty() || out.fd() < 0 || err.fd() < 0) return result;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out.fd(), 1);
    dup2(err.fd(), 2);
    execv(args[0], args.data());
    std::perror(args[0]);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return result;
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = out.Read();
  result.err = err.Read();
  return result;
}

std::vector<json> YamlObjects(const std::string& text) {
  std::vector<json> objects;
  Error io_error;
  bool read = LoadYamlString(
      text, "yaml", LoadLimits{},
      [&objects](Document&& doc) {
        INFO(doc.error.ToString());
        REQUIRE(doc.ok);
        if (!doc.root.is_null()) objects.push_back(json::parse(ToJson(doc.root)));
        return true;
      },
      &io_error);
  INFO(io_error.ToString());
  REQUIRE(read);
  return objects;
}

std::vector<json> Configurations(const Rendered& rendered) {
  if (const json* registered =
          FindObject(rendered, "ConfigMap", std::string(kRelease) + "-webhooks"))
    return YamlObjects(Str(At(*registered, "/data/webhooks.yaml")));
  std::vector<json> out;
  for (const char* kind : {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"})
    if (const json* config = FindObject(rendered, kind)) out.push_back(*config);
  return out;
}

Rendered Render(const std::vector<std::string>& args, const std::string& ns) {
  std::vector<std::string> argv = {Helm(), "template", kRelease, ChartDir(), "--namespace", ns};
  argv.insert(argv.end(), args.begin(), args.end());
  Rendered rendered;
  rendered.helm = RunCommand(argv);
  if (rendered.helm.status != 0) return rendered;
  Error io_error;
  bool read = LoadYamlString(
      rendered.helm.out, "helm-template", LoadLimits{},
      [&rendered](Document&& doc) {
        if (!doc.ok) {
          rendered.errors.push_back(doc.error.ToString());
        } else if (!doc.root.is_null()) {
          rendered.objects.push_back(json::parse(ToJson(doc.root)));
        }
        return true;
      },
      &io_error);
  if (!read) rendered.errors.push_back(io_error.ToString());
  return rendered;
}

Output Lint(const std::vector<std::string>& args, const std::string& ns) {
  std::vector<std::string> argv = {Helm(), "lint", "--strict", ChartDir(), "--namespace", ns};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

const std::vector<ValueSet>& ValueSets() {
  static const std::vector<ValueSet> sets = {
      {"defaults", {}},
      {"cert-manager with its own CA", {"--set", "certManager.enabled=true"}, "gpu-system", true},
      {"cert-manager with a ClusterIssuer",
       {"--set", "certManager.enabled=true", "--set", "certManager.issuerRef.name=corp-ca",
        "--set", "certManager.issuerRef.kind=ClusterIssuer"},
       "gpu-system",
       true},
      {"ServiceMonitor", {"--set", "serviceMonitor.enabled=true"}},
      {"failurePolicy Ignore", {"--set", "webhook.failurePolicy=Ignore"}, "gpu-system", false,
       "Ignore"},
      {"another namespace", {}, "ml-platform"},
      {"production values", {"-f", SourceDir() + "/tests/chart/values-production.yaml"}, "gpulint",
       false, "Fail", true, "deny"},
      {"helm registers the webhooks", {"--set", "webhook.selfRegister=false"}, "gpu-system",
       false, "Fail", false},
      {"helm registers the webhooks, cert-manager injects the CA",
       {"--set", "webhook.selfRegister=false", "--set", "certManager.enabled=true"}, "gpu-system",
       true, "Fail", false},
      {"warn mode", {"--set", "mode=warn"}, "gpu-system", false, "Fail", true, "warn"},
      {"one call per pod", {"--set", "webhook.mutating.validatePods=true"}, "gpu-system", false,
       "Fail", true, "audit", true},
  };
  return sets;
}

const json* FindObject(const Rendered& rendered, std::string_view kind, std::string_view name) {
  for (const json& object : rendered.objects) {
    if (object.value("kind", "") != kind) continue;
    if (name.empty() || Str(At(object, "/metadata/name")) == name) return &object;
  }
  return nullptr;
}

std::vector<const json*> FindObjects(const Rendered& rendered, std::string_view kind) {
  std::vector<const json*> found;
  for (const json& object : rendered.objects)
    if (object.value("kind", "") == kind) found.push_back(&object);
  return found;
}

const json& At(const json& value, const std::string& pointer) {
  static const json kAbsent;
  json::json_pointer p(pointer);
  return value.contains(p) ? value.at(p) : kAbsent;
}

bool Selects(const json& selector, const json& labels) {
  if (!selector.is_object() || selector.empty() || !labels.is_object()) return false;
  for (const auto& [key, value] : selector.items())
    if (!labels.contains(key) || labels.at(key) != value) return false;
  return true;
}

bool Contains(const json& list, const json& item) {
  if (!list.is_array()) return false;
  for (const json& x : list)
    if (x == item) return true;
  return false;
}

std::string Base64Decode(const std::string& text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  size_t padding = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++padding;
  out.resize(n < 0 ? 0 : static_cast<size_t>(n) - padding);
  return out;
}

std::string Str(const json& value) { return value.is_string() ? value.get<std::string>() : ""; }

}  // namespace gpulint::chart_test
