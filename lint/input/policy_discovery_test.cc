// Policy discovery: .gpulint.yaml up to the repository root, then
// $GPULINT_POLICY, then the built-in policy; --policy over all of them.
#include "lint/input/policy_discovery.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using testing::EnvVar;
using testing::InDirectory;
using testing::Result;
using testing::Run;
using testing::TempDir;

constexpr char kNoFractional[] =
    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
    "  rules:\n    gpu-fractional: {enabled: false}\n";
constexpr char kFractionalInfo[] =
    "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
    "  rules:\n    gpu-fractional: {severity: info}\n";

std::string HalfGpuPod() {
  return testing::ReadFile(testing::SourceDir() + "/testdata/rules/gpu-fractional/fail-half.yaml");
}

// The gpu-fractional findings of a JSON report, by file, and its policies.
struct Report {
  std::vector<std::string> fractional;  // "file severity"
  nlohmann::json summary;
};

Report Parse(const Result& r) {
  INFO(r.err);
  Report out;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& f : doc.at("findings"))
    if (f.at("rule") == "gpu-fractional") {
      std::string entry =
          f.at("file").get<std::string>() + " " + f.at("severity").get<std::string>();
      if (out.fractional.empty() || out.fractional.back() != entry) out.fractional.push_back(entry);
    }
  out.summary = doc.at("summary");
  return out;
}

TEST_CASE("NearestPolicyFile: nearest first, never above the repository root",
          "[policy-discovery]") {
  TempDir dir;
  fs::path root = dir.path();
  dir.Write(".gpulint.yaml", kNoFractional);  // outside the repository
  dir.Write("repo/.git/HEAD", "ref: refs/heads/main\n");
  dir.Write("repo/k8s/team/x.yaml", "");
  dir.Write("plain/k8s/x.yaml", "");
  CHECK(NearestPolicyFile(root / "repo/k8s/team").empty());
  dir.Write("repo/.gpulint.yaml", kNoFractional);
  CHECK(NearestPolicyFile(root / "repo/k8s/team") == root / "repo/.gpulint.yaml");
  dir.Write("repo/k8s/.gpulint.yaml", kNoFractional);
  CHECK(NearestPolicyFile(root / "repo/k8s/team") == root / "repo/k8s/.gpulint.yaml");
  CHECK(NearestPolicyFile(root / "repo") == root / "repo/.gpulint.yaml");
  // With no .git on the way, the search goes on up.
  CHECK(NearestPolicyFile(root / "plain/k8s") == root / ".gpulint.yaml");
  // A worktree's .git is a file, and a root all the same.
  dir.Write("worktree/.git", "gitdir: /elsewhere\n");
  dir.Write("worktree/a/x.yaml", "");
  CHECK(NearestPolicyFile(root / "worktree/a").empty());
}

TEST_CASE("RepositoryRoot: the nearest directory holding .git, a directory or a file",
          "[policy-discovery]") {
  TempDir dir;
  fs::path root = dir.path();
  dir.Write("plain/k8s/x.yaml", "");
  dir.Write("repo/.git/HEAD", "ref: refs/heads/main\n");
  dir.Write("repo/k8s/x.yaml", "");
  dir.Write("repo/wt/.git", "gitdir: ../.git/worktrees/wt\n");  // a worktree
  dir.Write("repo/wt/k8s/x.yaml", "");
  CHECK(RepositoryRoot(root / "plain/k8s").empty());
  CHECK(RepositoryRoot(root / "repo/k8s") == root / "repo");
  CHECK(RepositoryRoot(root / "repo") == root / "repo");
  CHECK(RepositoryRoot(root / "repo/wt/k8s") == root / "repo/wt");
}

TEST_CASE("ShownPath: relative inside the current directory, else absolute", "[policy-discovery]") {
  CHECK(ShownPath("/r/k8s/.gpulint.yaml", "/r") == "k8s/.gpulint.yaml");
  CHECK(ShownPath("/elsewhere/.gpulint.yaml", "/r") == "/elsewhere/.gpulint.yaml");
}

TEST_CASE("check: each input gets the nearest .gpulint.yaml, named in the output",
          "[policy-discovery][cli]") {
  TempDir dir;
  const std::string repo = dir.path() + "/repo";
  dir.Write("repo/.git/HEAD", "");
  std::string team = dir.Write("repo/team/pod.yaml", HalfGpuPod());
  std::string other = dir.Write("repo/other/pod.yaml", HalfGpuPod());
  std::string policy = dir.Write("repo/team/.gpulint.yaml", kNoFractional);

  Report both = Parse(Run({"check", "--format", "json", team, other}));
  CHECK(both.fractional == std::vector<std::string>{other + " error"});
  CHECK(both.summary.at("policies") == nlohmann::json::array({policy, "built-in"}));
  CHECK_FALSE(both.summary.contains("policy"));
  Result text = Run({"check", team});
  CHECK(text.err.find("in 1 object (1 file); fit and VRAM not checked: no nodes (--nodes); policy: " + policy + "\n") != std::string::npos);
  Result sarif = Run({"check", "--format", "sarif", team, other});
  CHECK(nlohmann::json::parse(sarif.out).at("runs").at(0).at("properties").at("policies") ==
        nlohmann::json::array({policy, "built-in"}));

  // A policy at the repository root applies below it, the nearer one first.
  std::string root_policy = dir.Write("repo/.gpulint.yaml", kFractionalInfo);
  Report layered = Parse(Run({"check", "--format", "json", repo}));
  CHECK(layered.fractional == std::vector<std::string>{other + " info"});
  CHECK(layered.summary.at("policies") == nlohmann::json::array({root_policy, policy}));
  // The policies themselves are not manifests.
  CHECK(layered.summary.at("files") == 2);

  // --policy wins over every .gpulint.yaml.
  std::string flag = dir.Write("flag.yaml", kFractionalInfo);
  Report forced = Parse(Run({"check", "--format", "json", "--policy", flag, team, other}));
  CHECK(forced.fractional == std::vector<std::string>{team + " info", other + " info"});
  CHECK(forced.summary.at("policy") == flag);
}

TEST_CASE(
    "check: $GPULINT_POLICY where no .gpulint.yaml is found, and for stdin the current "
    "directory",
    "[policy-discovery][cli]") {
  TempDir dir;
  dir.Write("repo/.git/HEAD", "");
  std::string pod = dir.Write("repo/pod.yaml", HalfGpuPod());
  std::string env_policy = dir.Write("env.yaml", kNoFractional);
  {
    EnvVar env(kPolicyEnvVar, env_policy);
    Report r = Parse(Run({"check", "--format", "json", pod}));
    CHECK(r.fractional.empty());
    CHECK(r.summary.at("policy") == env_policy);
    // A .gpulint.yaml in the repository comes first.
    std::string repo_policy = dir.Write("repo/.gpulint.yaml", kFractionalInfo);
    Report repo = Parse(Run({"check", "--format", "json", pod}));
    CHECK(repo.fractional == std::vector<std::string>{pod + " info"});
    CHECK(repo.summary.at("policy") == repo_policy);
  }
  InDirectory in(dir.path() + "/repo");
  Report piped = Parse(Run({"check", "--format", "json", "-"}, pod));
  CHECK(piped.fractional == std::vector<std::string>{"<stdin> info"});
  CHECK(piped.summary.at("policy") == ".gpulint.yaml");
}

TEST_CASE("check and fix: a .gpulint.yaml that does not load is an error with its position",
          "[policy-discovery][cli]") {
  TempDir dir;
  dir.Write("repo/.git/HEAD", "");
  std::string pod = dir.Write("repo/pod.yaml", HalfGpuPod());
  std::string policy = dir.Write("repo/.gpulint.yaml",
                                 "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
                                 "  reserved:\n    memory: {perGPU: 8Gi}\n");
  for (const char* command : {"check", "fix"}) {
    INFO(command);
    Result r = Run({command, pod});
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpulint: error: " + policy +
                       ":5:22: spec.reserved.memory: unknown field \"perGPU\" (did you mean "
                       "\"perGpu\"?)\n");
  }
}

TEST_CASE("fix: uses the discovered policy, and names it", "[policy-discovery][cli][fix]") {
  TempDir dir;
  dir.Write("repo/.git/HEAD", "");
  std::string pod = dir.Write("repo/pod.yaml",
                              "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                              "  containers:\n  - name: c\n"
                              "    image: nvcr.io/nvidia/cuda:12.4.1-base\n");
  Result built_in = Run({"fix", pod});
  CHECK(built_in.rc == 1);
  std::string policy = dir.Write("repo/.gpulint.yaml",
                                 "apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec:\n"
                                 "  rules:\n    gpu-limit-missing: {enabled: false}\n");
  Result r = Run({"fix", pod});
  CHECK(r.rc == 0);
  CHECK(r.err == "gpulint: nothing to fix in 1 file; policy: " + policy + "\n");
}

}  // namespace
}  // namespace gpulint
