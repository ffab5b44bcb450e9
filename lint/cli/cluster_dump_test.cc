// `gpulint check` on dumps of a real cluster (testdata/cluster-dump, written
// by tests/e2e/cluster_dump.sh from kube-apiserver and the controllers of
// v1.28.7): each finding once, under the object that owns the pod template.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "lint/cli/cli_test_util.h"
#include "tests/golden.h"

namespace gpulint {
namespace {

using testing::Result;
using testing::Run;

std::string Dump(const std::string& name) {
  return testing::SourceDir() + "/testdata/cluster-dump/" + name;
}

// "Kind/name rule" for each finding of a JSON report.
std::multiset<std::string> Findings(const nlohmann::json& report) {
  std::multiset<std::string> out;
  for (const auto& f : report.at("findings"))
    out.insert(f.at("object").at("kind").get<std::string>() + "/" +
               f.at("object").at("name").get<std::string>() + " " +
               f.at("rule").get<std::string>());
  return out;
}

TEST_CASE("a cluster dump reports owned pods once, under their owner", "[cli][owners]") {
  Result r = Run({"check", "--format", "json", Dump("kubectl-get-all.json")});
  CHECK(r.rc == 1);
  nlohmann::json report = nlohmann::json::parse(r.out);
  // The Deployment's template, not its ReplicaSet's nor its two pods'; the
  // Job's, not its pod's; the bare pod's own.
  CHECK(Findings(report) == std::multiset<std::string>{
                                "Deployment/trainer gpu-limit-missing",
                                "Deployment/trainer memory-limit-missing",
                                "Deployment/trainer quantity-milli-memory",
                                "Job/eval memory-limit-missing",
                                "Pod/debug gpu-limit-missing",
                            });
  const nlohmann::json& summary = report.at("summary");
  CHECK(summary.at("objects") == 4);  // Deployment, Job, the bare pod, the kubernetes Service
  CHECK(summary.at("underOwner") == 4);

  Result text = Run({"check", Dump("kubectl-get-all.json")});
  CHECK(text.err ==
        "gpulint: 2 errors, 3 warnings in 4 objects (1 file); 4 objects judged under "
        "their owner; fit and VRAM not checked: no nodes (--nodes); policy: built-in\n");
}

TEST_CASE("pods whose owners are not in the dump are judged, each", "[cli][owners]") {
  Result r = Run({"check", "--format", "json", Dump("kubectl-get-pods.json")});
  CHECK(r.rc == 1);
  nlohmann::json report = nlohmann::json::parse(r.out);
  CHECK(report.at("summary").at("objects") == 4);
  CHECK_FALSE(report.at("summary").contains("underOwner"));
  std::multiset<std::string> findings = Findings(report);
  CHECK(findings.count("Pod/debug gpu-limit-missing") == 1);
  CHECK(findings.count("Pod/eval-f6hmq memory-limit-missing") == 1);
  for (const char* pod : {"trainer-659f47d77c-hrsfm", "trainer-659f47d77c-v29w2"}) {
    INFO(pod);
    CHECK(findings.count("Pod/" + std::string(pod) + " quantity-milli-memory") == 1);
  }
  CHECK(Run({"check", Dump("kubectl-get-pods.json")}).err ==
        "gpulint: 4 errors, 4 warnings in 4 objects (1 file); fit and VRAM not checked: no nodes (--nodes); "
        "policy: built-in\n");
}

}  // namespace
}  // namespace gpulint
