// The commands beyond check, in-process: quantity, fix, and check's CI
// formats (node-patch: node_patch_command_test.cc).
#include "lint/cli/commands.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;
using testing::TempDir;
using testing::Testdata;


TEST_CASE("every command is in the main help and teaches with examples", "[cli]") {
  std::string main_help = Run({"--help"}).out;
  for (const Command* command : AllCommands()) {
    std::string name(command->name);
    INFO(name);
    CHECK(main_help.find("gpulint " + name) != std::string::npos);
    Result r = Run({name, "--help"});
    CHECK(r.rc == 0);
    CHECK(r.out.rfind("Usage: gpulint " + name, 0) == 0);
    CHECK(Run({"help", name}).out == r.out);
    if (name != "version" && name != "help") CHECK(r.out.find("Example") != std::string::npos);
  }
}

TEST_CASE("quantity: exact value, canonical form and both unit systems", "[cli][quantity]") {
  Result r = Run({"quantity", "500Gi", "500G", "1024Mi", "0.0015", " 1"});
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "500Gi = 536870912000 bytes = 536.9 GB = 500 GiB\n"
        "500G = 500000000000 bytes = 500 GB = 465.7 GiB\n"
        "1024Mi = 1073741824 bytes = 1.1 GB = 1 GiB; Kubernetes writes it 1Gi\n"
        "0.0015 = 0.0015 (not a whole number: fine for CPU, but memory and GPUs count whole "
        "units); Kubernetes writes it 1500u; stored for a container as 2m\n"
        "1 = 1 bytes; the API server trims the white space around it\n");
  // Incident 1's "memory: 500m": half a byte.
  CHECK(Run({"quantity", "500m"}).out ==
        "500m = 0.5 (not a whole number: fine for CPU, but memory and GPUs count whole units); "
        "as memory, did you mean 500M (500000000 B = 500 MB = 476.8 MiB) or 500Mi (524288000 B = "
        "524.3 MB = 500 MiB)?\n");
}

// What the API server answers, not what ParseQuantity alone would: it trims,
// it reads any magnitude, and it refuses a negative request.
TEST_CASE("quantity: as kube-apiserver reads a request", "[cli][quantity]") {
  Result r = Run({"quantity", "1e100", "123456789012345678901234567890", "1000E", "--", "-1Gi"});
  CHECK(r.rc == 1);
  CHECK(r.out ==
        "1e100 = 1" + std::string(100, '0') + " (far beyond any node); Kubernetes writes it 10e99\n"
        "123456789012345678901234567890 = 123456789012345678901234567890 (far beyond any node)\n"
        "1000E = 1000000000000000000000 bytes = 1000 EB = 867.4 EiB; Kubernetes writes it 1 (not "
        "1000000000000000000000: Kubernetes has no suffix past E and drops the magnitude)\n"
        "-1Gi is not a valid request: negative: the API server refuses a negative request or "
        "limit (must be greater than or equal to 0)\n");
  CHECK(Run({"quantity", "1e2147483647"}).out ==
        "1e2147483647 is not a valid request: the API server gives up on it (Timeout): it accepts "
        "the exponent, but its arithmetic with it outlasts the request's time\n");
}

TEST_CASE("quantity: an invalid input says why, and the exit status is 1", "[cli][quantity]") {
  Result r = Run({"quantity", "8Gi", "500GB", "", "  "});
  CHECK(r.rc == 1);
  CHECK(r.out ==
        "8Gi = 8589934592 bytes = 8.6 GB = 8 GiB\n"
        "500GB is not a valid request: unknown suffix \"GB\" (Kubernetes units have no \"B\"); "
        "did you mean 500G (500000000000 B = 500 GB = 465.7 GiB) or 500Gi (536870912000 B = "
        "536.9 GB = 500 GiB)?\n"
        "\"\" is not a valid request: quantity is empty\n"
        "\"  \" is not a valid request: quantity is empty\n");
}

TEST_CASE("quantity --format json: one object per input", "[cli][quantity]") {
  Result r = Run({"quantity", "--format", "json", "500Gi", "0.0015", "-1", "40g"});
  CHECK(r.rc == 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc == nlohmann::json::parse(R"json([
    {"input": "500Gi", "valid": true, "error": null, "canonical": "500Gi",
     "value": "536870912000", "stored": "500Gi"},
    {"input": "0.0015", "valid": true, "error": null, "canonical": "1500u", "value": "0.0015",
     "stored": "2m"},
    {"input": "-1", "valid": false,
     "error": "negative: the API server refuses a negative request or limit (must be greater than or equal to 0)",
     "canonical": null, "value": null, "stored": null},
    {"input": "40g", "valid": false,
     "error": "unknown suffix \"g\" (suffixes are case-sensitive); did you mean 40G (40000000000 B = 40 GB = 37.3 GiB) or 40Gi (42949672960 B = 42.9 GB = 40 GiB)?",
     "canonical": null, "value": null, "stored": null}])json"));
  CHECK(Run({"quantity", "--format=json", "1"}).rc == 0);
}

// testdata/quantity/apiserver.json: each string of the quantity tests as
// kube-apiserver 1.36.2 answered it (ctest quantity-apiserver asks it again).
TEST_CASE("quantity agrees with the API server on every string of its tests", "[cli][quantity]") {
  std::ifstream file(Testdata("quantity/apiserver.json"));
  REQUIRE(file);
  nlohmann::json table = nlohmann::json::parse(file);
  std::vector<std::string> args = {"quantity", "--format", "json", "--"};
  for (const auto& row : table["strings"]) args.push_back(row["input"].get<std::string>());
  REQUIRE(args.size() > 150);
  nlohmann::json ours = nlohmann::json::parse(Run(args).out);
  REQUIRE(ours.size() == table["strings"].size());
  for (size_t i = 0; i < ours.size(); ++i) {
    const auto& api = table["strings"][i];
    INFO("'" << api["input"].get<std::string>() << "': the API server answered " << api.dump());
    CHECK(ours[i]["valid"] == api["accepted"]);
    if (api["accepted"] == true) CHECK(ours[i]["stored"] == api["stored"]);
  }
}

TEST_CASE("quantity: usage errors", "[cli][quantity]") {
  Result none = Run({"quantity"});
  CHECK(none.rc == 2);
  CHECK(none.err == "gpulint: error: quantity needs a QUANTITY, e.g. 'gpulint quantity 500Gi'\n");
  Result format = Run({"quantity", "--format", "yaml", "1"});
  CHECK(format.rc == 2);
  CHECK(format.err == "gpulint: error: --format: unknown format 'yaml' (choose text or json)\n");
}

constexpr char kHidePod[] = R"(# a CUDA image with no GPU limit: gpu-limit-missing
apiVersion: v1
kind: Pod
metadata: {name: tools}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - name: shell
    image: nvcr.io/nvidia/cuda:12.4.1-base   # keep this comment
)";

constexpr char kHidePodFixed[] = R"(# a CUDA image with no GPU limit: gpu-limit-missing
apiVersion: v1
kind: Pod
metadata: {name: tools}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers:
  - name: shell
    image: nvcr.io/nvidia/cuda:12.4.1-base   # keep this comment
    env:
    - name: NVIDIA_VISIBLE_DEVICES
      value: void
)";

TEST_CASE("fix: prints the fixed manifest and exits 1, --write writes it, then 0", "[cli][fix]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kHidePod);
  REQUIRE(chmod(pod.c_str(), 0604) == 0);
  Result dry = Run({"fix", pod});
  CHECK(dry.rc == 1);
  CHECK(dry.out == kHidePodFixed);
  CHECK(dry.err == pod +
                       ":8:5: spec.containers[0]: add env NVIDIA_VISIBLE_DEVICES=void (no GPU "
                       "limit: it must see no GPU) [gpu-limit-missing]\n"
                       "gpulint: 1 change to make in 1 file (run with --write to make them); "
                       "policy: built-in\n");
  CHECK(dir.Read("pod.yaml") == kHidePod);

  Result write = Run({"fix", "--write", pod});
  CHECK(write.rc == 1);
  CHECK(write.out.empty());
  CHECK(write.err.find("gpulint: made 1 change in 1 file; policy: built-in\n") !=
        std::string::npos);
  CHECK(dir.Read("pod.yaml") == kHidePodFixed);
  struct stat st;
  REQUIRE(stat(pod.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0604);

  Result again = Run({"fix", "--write", "-q", pod});
  CHECK(again.rc == 0);
  CHECK(again.err.empty());
  CHECK(dir.Read("pod.yaml") == kHidePodFixed);
  CHECK(Run({"fix", pod}).err == "gpulint: nothing to fix in 1 file; policy: built-in\n");
  // And check agrees: what fix hid is no longer reported.
  Result check = Run({"check", "--format", "json", pod});
  CHECK(check.rc == 0);
  CHECK(check.out.find("gpu-limit-missing") == std::string::npos);
}

TEST_CASE("fix: stdin, several files, directories", "[cli][fix]") {
  TempDir dir;
  std::string pod = dir.Write("k8s/a/pod.yaml", kHidePod);
  std::string cm = dir.Write("k8s/cm.json", R"({"apiVersion": "v1", "kind": "ConfigMap"})");
  Result piped = Run({"fix", "-q", "-"}, pod);
  CHECK(piped.rc == 1);
  CHECK(piped.out == kHidePodFixed);
  Result several = Run({"fix", "-q", dir.path() + "/k8s"});
  CHECK(several.rc == 1);
  CHECK(several.out == "# Source: " + pod + "\n" + kHidePodFixed + "---\n# Source: " + cm + "\n" +
                           R"({"apiVersion": "v1", "kind": "ConfigMap"})" + "\n");
  Result written = Run({"fix", "--write", dir.path() + "/k8s"});
  CHECK(written.rc == 1);
  CHECK(written.err.find("gpulint: made 1 change in 1 file; 1 file unchanged; policy: "
                         "built-in\n") != std::string::npos);
  CHECK(dir.Read("k8s/cm.json") == R"({"apiVersion": "v1", "kind": "ConfigMap"})");
}

TEST_CASE("fix: a broken document is reported and left alone, the rest is fixed", "[cli][fix]") {
  TempDir dir;
  std::string text = std::string(kHidePod) + "---\nkind: Pod\nmetadata: {name: [x}\n";
  std::string path = dir.Write("two.yaml", text);
  Result r = Run({"fix", "--write", "-q", path});
  CHECK(r.rc == 2);
  CHECK(r.err.rfind("gpulint: error: " + path + ":12:", 0) == 0);
  CHECK(r.err.find(": not fixed, left as it was: ") != std::string::npos);
  CHECK(dir.Read("two.yaml") ==
        std::string(kHidePodFixed) + "---\nkind: Pod\nmetadata: {name: [x}\n");
}

TEST_CASE("fix: usage errors", "[cli][fix]") {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"fix"},
       "gpulint: error: no input: give a PATH, or - to read stdin (see 'gpulint fix "
       "--help')\n"},
      {{"fix", "--write", "-"},
       "gpulint: error: --write cannot write back to stdin; run 'gpulint fix - > FILE' "
       "instead\n"},
      {{"fix", "--nodes", "-", "-"}, "gpulint: error: stdin ('-') can be read only once\n"},
      {{"fix", "--wirte", "x.yaml"},
       "gpulint: error: unknown option '--wirte'; did you mean '--write'? (see 'gpulint fix "
       "--help')\n"},
      {{"fix", "--write", "--diff", "x.yaml"},
       "gpulint: error: --write and --diff: choose one (--diff shows what --write would "
       "change)\n"},
      {{"fix", "--only", "gpu-limit-misssing", "x.yaml"},
       "gpulint: error: --only: unknown rule 'gpu-limit-misssing' (did you mean "
       "gpu-limit-missing?)\n"},
      {{"fix", "--only", "quantity-invalid,", "x.yaml"},
       "gpulint: error: --only: unknown rule '' (see 'gpulint rules')\n"},
      {{"fix", "--only=exceeds-allocatable", "x.yaml"},
       "gpulint: error: --only: gpulint fix does not repair exceeds-allocatable (it repairs "
       "quantity-invalid, quantity-milli-memory, gpu-limit-missing, "
       "gpu-request-limit-mismatch); 'gpulint explain exceeds-allocatable' says how to fix it\n"},
  };
  for (const Case& c : cases) {
    INFO(c.args.back());
    Result r = Run(c.args);
    CHECK(r.rc == 2);
    CHECK(r.err == c.err);
  }
}

TEST_CASE("fix --mutations --nodes: the VRAM of the nodes a pod can land on", "[cli][fix]") {
  const std::string job = Testdata("mutations/nodes-v100-job.yaml");
  Result r = Run({"fix", "-q", "--mutations", "--nodes", Testdata("nodes/incidents.yaml"), job});
  CHECK(r.rc == 1);
  CHECK(r.out.find("gpulint.io/vram: 128608Mi") != std::string::npos);
  // Without --mutations: no capacity is added to a job with no mistakes.
  Result plain = Run({"fix", "-q", "--nodes", Testdata("nodes/incidents.yaml"), job});
  CHECK(plain.rc == 0);
  CHECK(plain.out == testing::ReadFile(job));
}

TEST_CASE("fix --diff: a unified diff, nothing written, exit 1 if anything would change",
          "[cli][fix]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", kHidePod);
  std::string cm = dir.Write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\n");
  Result r = Run({"fix", "--diff", "-q", pod, cm});
  CHECK(r.rc == 1);
  CHECK(r.out == "--- a/" + pod + "\n+++ b/" + pod +
                     "\n"
                     "@@ -7,3 +7,6 @@\n"
                     "   containers:\n"
                     "   - name: shell\n"
                     "     image: nvcr.io/nvidia/cuda:12.4.1-base   # keep this comment\n"
                     "+    env:\n"
                     "+    - name: NVIDIA_VISIBLE_DEVICES\n"
                     "+      value: void\n");
  CHECK(dir.Read("pod.yaml") == kHidePod);
  Result clean = Run({"fix", "--diff", cm});
  CHECK(clean.rc == 0);
  CHECK(clean.out.empty());
}

TEST_CASE("check --format sarif|junit|github over a file in the current directory",
          "[cli][formats]") {
  // Tests run from the repository root: the file's URI is its relative path.
  const std::string file = "testdata/rules/gpu-fractional/fail-half.yaml";
  Result text = Run({"check", "-q", file});
  REQUIRE(text.rc == 1);
  size_t first_colon = text.out.find(':', file.size() + 1);
  std::string line = text.out.substr(file.size() + 1, first_colon - file.size() - 1);

  Result sarif = Run({"check", "--format", "sarif", file});
  CHECK(sarif.rc == 1);
  CHECK(sarif.err == "gpulint: 2 errors, 0 warnings in 1 object (1 file); fit and VRAM not checked: no nodes (--nodes); "
                     "policy: built-in\n");
  nlohmann::json log = nlohmann::json::parse(sarif.out);
  CHECK(log["runs"][0]["properties"]["policies"] == nlohmann::json::array({"built-in"}));
  const auto& result = log["runs"][0]["results"][0];
  CHECK(result["ruleId"] == "gpu-fractional");
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == file);
  CHECK(result["locations"][0]["physicalLocation"]["region"]["startLine"] == std::stoi(line));

  Result junit = Run({"check", "--format=junit", "-q", file});
  CHECK(junit.rc == 1);
  CHECK(junit.out.find("<testsuite name=\"" + file + "\" tests=\"1\" failures=\"1\"") !=
        std::string::npos);
  Result github = Run({"check", "--format", "github", "-q", file});
  CHECK(github.rc == 1);
  CHECK(github.out.rfind("::error file=" + file + ",line=" + line + ",col=", 0) == 0);
}

}  // namespace
}  // namespace gpulint
