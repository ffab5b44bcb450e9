// The audit CronJob (audit.enabled): off by default; when on, `gpulint audit`
// with the webhook's policy, as a service account whose ClusterRole grants
// only what the audit reads and writes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "tests/chart/chart_support.h"

namespace gpulint::chart_test {
namespace {

const std::string kAudit = std::string(kRelease) + "-audit";

Rendered RenderAudit(std::vector<std::string> args = {}) {
  args.insert(args.begin(), {"--set", "audit.enabled=true"});
  Rendered r = Render(args, "gpu-system");
  INFO(r.helm.err);
  REQUIRE(r.helm.status == 0);
  return r;
}

const json& Container(const Rendered& r) {
  const json* cron = FindObject(r, "CronJob", kAudit);
  REQUIRE(cron != nullptr);
  return At(*cron, "/spec/jobTemplate/spec/template/spec/containers/0");
}

// The verbs the audit's ClusterRole grants on `resource` of `group`.
std::vector<std::string> Verbs(const Rendered& r, const std::string& group,
                               const std::string& resource) {
  const json* role = FindObject(r, "ClusterRole", kAudit);
  REQUIRE(role != nullptr);
  std::vector<std::string> verbs;
  for (const json& rule : At(*role, "/rules"))
    if (Contains(rule["apiGroups"], group) && Contains(rule["resources"], resource))
      for (const json& v : rule["verbs"]) verbs.push_back(v);
  std::sort(verbs.begin(), verbs.end());
  return verbs;
}

TEST_CASE("the audit is off by default", "[chart][audit]") {
  Rendered r = Render({}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  CHECK(FindObject(r, "CronJob") == nullptr);
  CHECK(FindObject(r, "ClusterRole", kAudit) == nullptr);
}

TEST_CASE("the audit CronJob runs gpulint audit with the webhook's policy", "[chart][audit]") {
  Rendered r = RenderAudit();
  const json* cron = FindObject(r, "CronJob", kAudit);
  REQUIRE(cron != nullptr);
  CHECK(At(*cron, "/spec/concurrencyPolicy") == "Forbid");
  const json& pod = At(*cron, "/spec/jobTemplate/spec/template/spec");
  CHECK(pod["serviceAccountName"] == kAudit);
  CHECK(pod["restartPolicy"] == "Never");
  const json& c = Container(r);
  CHECK(c["command"] == json::array({"gpulint"}));
  CHECK(c["args"] == json::parse(R"(["audit", "--policy=/etc/gpulint/policy/policy.yaml",
      "--format=text", "--page-size=500", "--fail-on=none", "--timeout=25m",
      "--request-timeout=60s", "--policy-report"])"));
  CHECK(At(pod, "/volumes/0/configMap/name") == std::string(kRelease) + "-policy");
  CHECK(At(c, "/securityContext/readOnlyRootFilesystem") == true);
  // Its pods are no endpoints of the webhook's Service, nor counted by its
  // PodDisruptionBudget.
  const json& labels = At(*cron, "/spec/jobTemplate/spec/template/metadata/labels");
  CHECK_FALSE(Selects(At(*FindObject(r, "Service"), "/spec/selector"), labels));
  CHECK_FALSE(Selects(At(*FindObject(r, "PodDisruptionBudget"), "/spec/selector"), labels));

  Rendered plain = RenderAudit({"--set", "audit.policyReport=false", "--set", "audit.format=json",
                                "--set", "audit.extraArgs={--context=prod}"});
  const json& args = Container(plain)["args"];
  CHECK_FALSE(Contains(args, "--policy-report"));
  CHECK(Contains(args, "--format=json"));
  CHECK(Contains(args, "--context=prod"));
  CHECK(Verbs(plain, "wgpolicyk8s.io", "policyreports").empty());
}

TEST_CASE("the audit's ClusterRole: list what it reads, and write only its reports",
          "[chart][audit]") {
  Rendered r = RenderAudit();
  using V = std::vector<std::string>;
  CHECK(Verbs(r, "", "nodes") == V{"list"});
  CHECK(Verbs(r, "", "pods") == V{"list"});
  CHECK(Verbs(r, "apps", "deployments") == V{"list"});
  CHECK(Verbs(r, "wgpolicyk8s.io", "policyreports") == V{"create", "delete", "list", "patch"});
  CHECK(Verbs(r, "wgpolicyk8s.io", "clusterpolicyreports") ==
        V{"create", "delete", "list", "patch"});
  const json* role = FindObject(r, "ClusterRole", kAudit);
  for (const json& rule : At(*role, "/rules")) {
    INFO(rule.dump());
    for (const json& verb : rule["verbs"])
      CHECK((verb == "list" || Contains(rule["apiGroups"], "wgpolicyk8s.io")));
    CHECK_FALSE(Contains(rule["resources"], "*"));
  }
  // Every workload kind of the built-in policy's table is listed: a kind the
  // audit reads and the role leaves out would be refused, and fail the job.
  // (Resources are the kinds' plural names; extensions/ is served by no
  // supported Kubernetes.)
  for (const WorkloadKind& w : DefaultPolicy().workloads) {
    if (w.group == "extensions") continue;
    std::string resource;
    for (char ch : w.kind)
      resource += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    resource += "s";
    INFO(w.group + "/" + w.kind);
    CHECK(Verbs(r, w.group, resource) == V{"list"});
  }
  const json* binding = FindObject(r, "ClusterRoleBinding", kAudit);
  REQUIRE(binding != nullptr);
  CHECK(At(*binding, "/subjects/0/name") == kAudit);
  CHECK(At(*binding, "/subjects/0/namespace") == "gpu-system");
}

TEST_CASE("audit values that would break the job are refused", "[chart][audit]") {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"--set", "audit.enabled=true", "--set", "audit.extraArgs={--policy-report}"},
       "audit.extraArgs: --policy-report is set by the chart from audit.policyReport"},
      {{"--set", "audit.enabled=true", "--set", "audit.extraArgs={--fail-on=warning}"},
       "audit.extraArgs: --fail-on is set by the chart from audit.failOn"},
      {{"--set", "audit.schedule=hourly"}, "/audit/schedule"},
      {{"--set", "audit.format=yaml"}, "/audit/format"},
      {{"--set", "audit.failOn=critical"}, "/audit/failOn"},
  };
  for (const Case& c : cases) {
    INFO(c.error);
    Rendered r = Render(c.args, "gpu-system");
    CHECK(r.helm.status != 0);
    CHECK(r.helm.err.find(c.error) != std::string::npos);
  }
  CHECK(Lint({"--set", "audit.enabled=true", "--set", "audit.schedule=@daily"}, "gpu-system")
            .status == 0);
}

}  // namespace
}  // namespace gpulint::chart_test
