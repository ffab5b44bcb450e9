// Fingerprints (lint/output/fingerprint.h), baseline files (lint/cli/baseline.h), and
// `gpulint baseline` / `gpulint check --baseline` end to end.
#include "lint/cli/baseline.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"
#include "lint/output/fingerprint.h"

namespace gpulint {
namespace {

using testing::InDirectory;
using testing::Run;
using testing::TempDir;

// A Pod asking for `gpus` GPUs and no memory limit, after `above` blank lines:
// gpu-fractional and memory-limit-missing fire on it, wherever it sits.
std::string Pod(int above, const std::string& gpus = "0.5") {
  return std::string(above, '\n') +
         "apiVersion: v1\nkind: Pod\nmetadata: {name: train, namespace: ml}\nspec:\n"
         "  containers:\n  - name: c\n    image: busybox\n"
         "    resources: {limits: {nvidia.com/gpu: " +
         gpus + "}}\n";
}

nlohmann::json Json(const std::string& text) {
  INFO(text);
  return nlohmann::json::parse(text);
}

// The fingerprints of `check --format json` over `file`, in output order.
std::vector<std::string> Fingerprints(const std::string& file) {
  testing::Result r = Run({"check", "--format", "json", file});
  std::vector<std::string> out;
  nlohmann::json report = Json(r.out);
  for (const auto& f : report.at("findings")) out.push_back(f.at("fingerprint").get<std::string>());
  return out;
}

Finding SampleFinding() {
  Finding f;
  f.rule = "parse-error";
  f.file = "k8s/a.yaml";
  f.mark = {12, 3};
  f.object = ObjectRef{"v1", "Pod", "ml", "train"};
  f.path = "spec.containers[0]";
  f.message = "did not find expected key (in the mapping that starts at line 6, column 1)";
  return f;
}

// A finding's fingerprint as a run in /repo/`work_dir` names its file.
std::string RepoFingerprint(const Finding& f, const std::string& work_dir = "/repo") {
  return Fingerprint(f, FingerprintFile(f.file, work_dir, "/repo"));
}

TEST_CASE("a fingerprint ignores the line but not what the finding says", "[baseline]") {
  Finding f = SampleFinding();
  const std::string base = RepoFingerprint(f);
  CHECK(base.size() == 16);
  CHECK(base.find_first_not_of("0123456789abcdef") == std::string::npos);
  // Moved: another line and column, and positions quoted in the message.
  Finding moved = f;
  moved.mark = {40, 9};
  moved.message = "did not find expected key (in the mapping that starts at line 34, column 7)";
  CHECK(RepoFingerprint(moved) == base);
  // The same file named another way, or from another directory.
  const std::pair<const char*, const char*> names[] = {
      {"./k8s/a.yaml", "/repo"}, {"k8s//a.yaml", "/repo"},     {"/repo/k8s/a.yaml", "/repo"},
      {"a.yaml", "/repo/k8s"},   {"./a.yaml", "/repo/k8s/"},   {"../k8s/a.yaml", "/repo/k8s"},
      {"repo/k8s/a.yaml", "/"},  {"/repo/k8s/a.yaml", "/tmp"},
  };
  for (const auto& [name, work_dir] : names) {
    Finding renamed = f;
    renamed.file = name;
    INFO(name << " from " << work_dir);
    CHECK(RepoFingerprint(renamed, work_dir) == base);
  }
  // Anything that says which finding this is.
  std::vector<Finding> others(8, f);
  others[0].rule = "quantity-invalid";
  others[1].file = "k8s/b.yaml";
  others[2].object.api_version = "v2";
  others[3].object.kind = "Job";
  others[4].object.namespace_name = "prod";
  others[5].object.name = "infer";
  others[6].path = "spec.containers[1]";
  others[7].message = "did not find expected key";
  for (size_t i = 0; i < others.size(); ++i) {
    INFO(i);
    CHECK(RepoFingerprint(others[i]) != base);
  }
  // Fields do not run into each other.
  Finding a = f, b = f;
  a.object.kind = "Po";
  a.object.namespace_name = "dml";
  CHECK(RepoFingerprint(a) != RepoFingerprint(b));
}

TEST_CASE("FingerprintFile names a file from the root, whatever the directory", "[baseline]") {
  struct Case {
    const char* file;
    const char* work_dir;
    const char* root;
    const char* name;
  };
  const Case cases[] = {
      {"k8s/a.yaml", "/repo", "/repo", "k8s/a.yaml"},
      {"a.yaml", "/repo/k8s", "/repo", "k8s/a.yaml"},
      {"/repo/k8s/a.yaml", "/elsewhere", "/repo/", "k8s/a.yaml"},
      // Outside the root: relative all the same, so that a checkout elsewhere
      // names it alike.
      {"../shared/x.yaml", "/repo", "/repo", "../shared/x.yaml"},
      {"/shared/x.yaml", "/repo/k8s", "/repo", "../shared/x.yaml"},
      {"<stdin>", "/repo/k8s", "/repo", "<stdin>"},
      {"k8s/prod (kustomized)", "/repo", "/repo", "k8s/prod (kustomized)"},
  };
  for (const Case& c : cases) {
    INFO(c.file << " from " << c.work_dir);
    CHECK(FingerprintFile(c.file, c.work_dir, c.root) == c.name);
  }
  // A root reached through a symbolic link names the files under it alike.
  TempDir dir;
  dir.Write("real/repo/k8s/a.yaml", "");
  std::filesystem::create_directory_symlink(dir.path() + "/real", dir.path() + "/link");
  CHECK(FingerprintFile(dir.path() + "/link/repo/k8s/a.yaml", "/",
                        std::filesystem::canonical(dir.path() + "/real/repo").string()) ==
        "k8s/a.yaml");
}

TEST_CASE("findings moved down by inserted lines keep their fingerprints", "[baseline]") {
  TempDir dir;
  std::string file = dir.Write("pod.yaml", Pod(0));
  std::vector<std::string> before = Fingerprints(file);
  REQUIRE(!before.empty());
  dir.Write("pod.yaml", "# a comment\n" + Pod(5));
  CHECK(Fingerprints(file) == before);
  // A changed value is a new finding.
  dir.Write("pod.yaml", Pod(0, "1.5"));
  std::vector<std::string> changed = Fingerprints(file);
  REQUIRE(changed.size() == before.size());
  CHECK(changed != before);
}

TEST_CASE("baseline text is sorted and reads back", "[baseline]") {
  std::vector<BaselineEntry> entries = {
      {"bbbb", "r2", "b.yaml", "Pod/ml/x", "m"},
      {"aaaa", "r1", "a.yaml", "Pod/ml/y", "say \"hi\""},
      {"cccc", "r1", "a.yaml", "Pod/ml/x", "m"},
      {"cccc", "r1", "a.yaml", "Pod/ml/x", "m"},
  };
  std::string text = BaselineText(entries);
  CHECK(text ==
        "{\n  \"version\": 2,\n  \"findings\": [\n"
        "    {\"fingerprint\": \"cccc\", \"rule\": \"r1\", \"file\": \"a.yaml\", \"object\": "
        "\"Pod/ml/x\", \"message\": \"m\"},\n"
        "    {\"fingerprint\": \"cccc\", \"rule\": \"r1\", \"file\": \"a.yaml\", \"object\": "
        "\"Pod/ml/x\", \"message\": \"m\"},\n"
        "    {\"fingerprint\": \"aaaa\", \"rule\": \"r1\", \"file\": \"a.yaml\", \"object\": "
        "\"Pod/ml/y\", \"message\": \"say \\\"hi\\\"\"},\n"
        "    {\"fingerprint\": \"bbbb\", \"rule\": \"r2\", \"file\": \"b.yaml\", \"object\": "
        "\"Pod/ml/x\", \"message\": \"m\"}\n  ]\n}\n");
  CHECK(BaselineText({}) == "{\n  \"version\": 2,\n  \"findings\": []\n}\n");
  Baseline baseline;
  Error error;
  REQUIRE(baseline.Parse(text, "b.json", &error));
  CHECK(baseline.size() == 4);
  // Each entry hides one finding: "cccc" twice, then no more.
  CHECK(baseline.Hide("cccc"));
  CHECK(baseline.Hide("cccc"));
  CHECK_FALSE(baseline.Hide("cccc"));
  CHECK(baseline.Hide("aaaa"));
  CHECK_FALSE(baseline.Hide("dddd"));
}

TEST_CASE("a bad baseline is an error at its position", "[baseline]") {
  const std::pair<const char*, const char*> cases[] = {
      {"", "b.json: empty; 'gpulint baseline' writes a baseline"},
      {"[]",
       "b.json:1:1: a baseline is a JSON object {\"version\": 2, \"findings\": [...]}, as "
       "'gpulint baseline' writes it"},
      {"{\"findings\": []}",
       "b.json:1:1: no \"version\": a baseline is a JSON object {\"version\": 2, \"findings\": "
       "[...]}, as 'gpulint baseline' writes it"},
      {"{\"version\": 3, \"findings\": []}",
       "b.json:1:13: version 3 is not one this gpulint reads (1 or 2); regenerate the baseline "
       "with 'gpulint baseline'"},
      {"{\"version\": \"2\", \"findings\": []}", "b.json:1:13: \"version\" must be a number (2)"},
      {"{\"version\": 1}",
       "b.json:1:1: no \"findings\": a baseline is a JSON object {\"version\": 2, \"findings\": "
       "[...]}, as 'gpulint baseline' writes it"},
      {"{\"version\": 1, \"findings\": {}}", "b.json:1:28: \"findings\" must be an array"},
      {"{\"version\": 1, \"findings\": [\n  \"x\"]}", "b.json:2:3: findings[0] must be an object"},
      {"{\"version\": 1, \"findings\": [\n  {\"fingerprint\": \"a\"},\n  {\"rule\": \"r\"}]}",
       "b.json:3:3: findings[1] has no \"fingerprint\", which is what is matched"},
      {"{\"version\": 1, \"findings\": [\n  {\"fingerprint\": 12}]}",
       "b.json:2:19: findings[0].fingerprint must be a non-empty string"},
      {"{\"version\": 1, \"findings\": [\n  {\"fingerprint\": \"a\", \"rule\": null}]}",
       "b.json:2:32: findings[0].rule must be a string"},
      {"{\"version\": 1, \"findings\": [}", "b.json:1:29: did not find expected node content"},
      {"{\"version\": 1, \"findings\": []}\n---\n{}",
       "b.json:2:1: a baseline is one JSON object; this is a second document"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    Baseline baseline;
    Error error;
    CHECK_FALSE(baseline.Parse(text, "b.json", &error));
    CHECK(error.ToString() == message);
  }
}

TEST_CASE("check --baseline hides exactly the baseline's findings", "[baseline][cli]") {
  TempDir dir;
  dir.Write("k8s/old.yaml", Pod(0));
  std::string baseline = dir.path() + "/baseline.json";
  testing::Result written = Run({"baseline", "--output", baseline, dir.path() + "/k8s"});
  INFO(written.err);
  REQUIRE(written.rc == 0);
  CHECK(written.out.empty());
  CHECK(written.err.find("gpulint: baseline " + baseline + ": ") == 0);
  nlohmann::json accepted = Json(dir.Read("baseline.json"));
  CHECK(accepted.at("version") == 2);
  REQUIRE(!accepted.at("findings").empty());
  for (const auto& entry : accepted.at("findings")) {
    CHECK(entry.at("file") == "k8s/old.yaml");  // from the baseline's directory
    CHECK(entry.at("object") == "Pod/ml/train");
  }
  // The same findings, moved down: all hidden.
  dir.Write("k8s/old.yaml", "\n\n# moved\n" + Pod(2));
  testing::Result clean = Run({"check", "--baseline", baseline, dir.path() + "/k8s"});
  CHECK(clean.rc == 0);
  CHECK(clean.out.empty());
  CHECK(clean.err.find("; " + std::to_string(accepted.at("findings").size()) +
                       " findings hidden by the baseline") != std::string::npos);
  // A new object gets its findings reported; the old ones stay hidden.
  dir.Write("k8s/new.yaml", Pod(0));
  testing::Result fresh =
      Run({"check", "--format", "json", "--baseline", baseline, dir.path() + "/k8s"});
  CHECK(fresh.rc == 1);
  nlohmann::json report = Json(fresh.out);
  CHECK(report.at("summary").at("baselined") == accepted.at("findings").size());
  REQUIRE(!report.at("findings").empty());
  for (const auto& f : report.at("findings")) CHECK(f.at("file") == dir.path() + "/k8s/new.yaml");
  // Without a baseline, nothing is hidden and the summary does not mention one.
  testing::Result all = Run({"check", "--format", "json", dir.path() + "/k8s"});
  CHECK_FALSE(Json(all.out).at("summary").contains("baselined"));
  CHECK(Json(all.out).at("findings").size() ==
        report.at("findings").size() + accepted.at("findings").size());
}

TEST_CASE("gpulint baseline writes to stdout, and refuses bad inputs", "[baseline][cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", Pod(0));
  testing::Result r = Run({"baseline", "-q", pod});
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  CHECK(Json(r.out).at("findings").size() > 0);
  // Another run, or one on more threads, writes the same bytes.
  CHECK(Run({"baseline", "-q", pod}).out == r.out);
  std::string other = dir.Write("other.yaml", Pod(3, "2.5"));
  CHECK(Run({"baseline", "-q", "-j", "2", other, pod}).out ==
        Run({"baseline", "-q", "-j", "1", pod, other}).out);
  // A file that cannot be read: no baseline at all.
  std::string missing = dir.path() + "/missing.yaml";
  testing::Result bad = Run({"baseline", "--output", dir.path() + "/b.json", pod, missing});
  CHECK(bad.rc == 2);
  CHECK(bad.err.find("gpulint: error: no baseline written after an input error") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/b.json"));
  // check's report options are check's.
  CHECK(Run({"baseline", "--format", "json", pod}).rc == 2);
}

TEST_CASE("check --baseline with a bad file is an error with its position", "[baseline][cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", Pod(0));
  std::string baseline = dir.Write("b.json", "{\"version\": 1,\n \"findings\": 3}\n");
  testing::Result r = Run({"check", "--baseline", baseline, pod});
  CHECK(r.rc == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "gpulint: error: " + baseline + ":2:14: \"findings\" must be an array\n");
  testing::Result missing = Run({"check", "--baseline", dir.path() + "/none.json", pod});
  CHECK(missing.rc == 2);
  CHECK(missing.err.find(dir.path() + "/none.json: no such file or directory") !=
        std::string::npos);
}

TEST_CASE("SARIF results carry the fingerprint as partialFingerprints", "[baseline][cli]") {
  TempDir dir;
  std::string pod = dir.Write("pod.yaml", Pod(0));
  std::vector<std::string> fingerprints = Fingerprints(pod);
  testing::Result r = Run({"check", "--format", "sarif", pod});
  nlohmann::json log = Json(r.out);
  const auto& results = log.at("runs").at(0).at("results");
  REQUIRE(results.size() == fingerprints.size());
  for (size_t i = 0; i < results.size(); ++i)
    CHECK(results[i].at("partialFingerprints").at("gpulint/v1") == fingerprints[i]);
}

// The findings `check` hid with a baseline, from its summary line; -1 when it
// failed or reported any.
long Hidden(const testing::Result& r) {
  INFO(r.err << r.out);
  if (r.rc != 0 || !r.out.empty()) return -1;
  size_t end = r.err.find(" findings hidden by the baseline");
  if (end == std::string::npos) return -1;
  size_t begin = r.err.rfind("; ", end);
  return std::stol(r.err.substr(begin + 2, end - begin - 2));
}

TEST_CASE("a baseline matches from any directory, however the inputs are named",
          "[baseline][cli]") {
  TempDir dir;
  dir.Write("repo/.git/HEAD", "ref: refs/heads/main\n");
  dir.Write("repo/k8s/team/pod.yaml", Pod(0));
  dir.Write("repo/ci/README", "");
  const std::string repo = dir.path() + "/repo";
  testing::Result written;
  {
    InDirectory in(repo + "/k8s");
    written = Run({"baseline", "-q", "-o", "../ci/baseline.json", "team"});
  }
  REQUIRE(written.rc == 0);
  nlohmann::json accepted = Json(dir.Read("repo/ci/baseline.json"));
  const long count = static_cast<long>(accepted.at("findings").size());
  REQUIRE(count > 0);
  // Named from the repository root, not from where it was written.
  for (const auto& entry : accepted.at("findings")) CHECK(entry.at("file") == "k8s/team/pod.yaml");
  struct Case {
    std::string cwd;
    std::vector<std::string> args;
  };
  const Case cases[] = {
      {repo, {"--baseline", "ci/baseline.json", "k8s"}},
      {repo + "/k8s/team", {"--baseline", "../../ci/baseline.json", "pod.yaml"}},
      {repo + "/k8s/team", {"--baseline", repo + "/ci/baseline.json", "./pod.yaml"}},
      {repo + "/ci", {"--baseline", "baseline.json", "../k8s/team/../team"}},
      {dir.path(), {"--baseline", "repo/ci/baseline.json", repo + "/k8s/team/pod.yaml"}},
      {"/", {"--baseline", repo + "/ci/baseline.json", repo + "/k8s"}},
  };
  for (const Case& c : cases) {
    InDirectory in(c.cwd);
    std::vector<std::string> args = {"check"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    INFO("from " << c.cwd << ": " << c.args[1] << " " << c.args[2]);
    CHECK(Hidden(Run(args)) == count);
  }
}

TEST_CASE("a baseline that hides none of a run's findings is warned about", "[baseline][cli]") {
  TempDir dir;
  dir.Write("a/pod.yaml", Pod(0));
  dir.Write("b/pod.yaml", Pod(0, "1.5"));
  InDirectory in(dir.path());
  REQUIRE(Run({"baseline", "-q", "-o", "b.json", "a"}).rc == 0);
  const long count = static_cast<long>(Json(dir.Read("b.json")).at("findings").size());
  REQUIRE(count > 0);
  CHECK(Hidden(Run({"check", "--baseline", "b.json", "a"})) == count);
  testing::Result other = Run({"check", "-q", "--baseline", "b.json", "b"});
  CHECK(other.rc == 1);
  const std::string root = std::filesystem::canonical(dir.path()).string();
  CHECK(other.err == "gpulint: warning: the baseline b.json (" + std::to_string(count) +
                         " findings) hid none of the 2 found; it names files from " + root +
                         ": was it written for these files?\n");

  // A version 1 baseline names files from the directory it was written in:
  // here, the same names as version 2 gives them.
  std::string v1 = dir.Read("b.json");
  v1.replace(v1.find("\"version\": 2"), 12, "\"version\": 1");
  dir.Write("v1.json", v1);
  CHECK(Hidden(Run({"check", "--baseline", "v1.json", "a"})) == count);
  InDirectory below(dir.path() + "/a");
  testing::Result moved = Run({"check", "-q", "--baseline", "../v1.json", "pod.yaml"});
  CHECK(moved.rc == 1);
  CHECK(moved.err == "gpulint: warning: the baseline ../v1.json (" + std::to_string(count) +
                         " findings) hid none of the " + std::to_string(count) +
                         " found; it is version 1, which names files from the directory it was "
                         "written in: run check from there, or write it again with 'gpulint "
                         "baseline'\n");
}

}  // namespace
}  // namespace gpulint
