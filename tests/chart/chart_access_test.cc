// Least privilege in the chart: the access policies (ValidatingAdmissionPolicy,
// Kubernetes 1.30+) and what they read, the audit's narrowed role, the
// NetworkPolicy's default, the staleness and audit limits. What the policies
// refuse on a real API server: tests/e2e scenario r.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/chart/chart_support.h"

namespace gpulint::chart_test {
namespace {

const std::string kVapApi = "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy";

Rendered RenderOn130(std::vector<std::string> args = {}, const std::string& ns = "gpu-system") {
  args.insert(args.begin(), {"--kube-version", "1.30.0", "--api-versions", kVapApi});
  Rendered r = Render(args, ns);
  INFO(r.helm.err);
  REQUIRE(r.helm.status == 0);
  return r;
}

std::set<std::string> Names(const Rendered& r, std::string_view kind) {
  std::set<std::string> out;
  for (const json* o : FindObjects(r, kind)) out.insert(Str(At(*o, "/metadata/name")));
  return out;
}

// The text _access.tpl gives a webhook, written here again from its comment,
// apart from the chart's template: the chart's ConfigMap must hold the same.
std::string Q(const json& s) {
  std::string out = "\"";
  for (char c : Str(s)) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}
std::string L(const json& list) {
  std::string out = "[";
  for (size_t i = 0; list.is_array() && i < list.size(); ++i) out += (i ? "," : "") + Q(list[i]);
  return out + "]";
}
std::string Selector(const json& s) {
  std::string out = std::to_string(s.is_object() && s.contains("matchLabels") ? s["matchLabels"].size() : 0) + " [";
  const json& exprs = s.is_object() && s.contains("matchExpressions") ? s["matchExpressions"] : json::array();
  for (size_t i = 0; i < exprs.size(); ++i)
    out += (i ? "," : "") + Q(exprs[i]["key"]) + " " + Q(exprs[i]["operator"]) + " " +
           L(exprs[i].value("values", json::array()));
  return out + "]";
}
std::string Canonical(const json& w) {
  const json& cc = w["clientConfig"];
  std::string out = Q(w["name"]) + " clientConfig ";
  if (cc.contains("url")) {
    out += "url " + Q(cc["url"]);
  } else {
    const json& s = cc["service"];
    out += "service " + Q(s["namespace"]) + " " + Q(s["name"]) + " " + Q(s.value("path", "")) + " " +
           std::to_string(s.value("port", 443));
  }
  out += " rules [";
  for (size_t i = 0; i < w["rules"].size(); ++i) {
    const json& r = w["rules"][i];
    out += std::string(i ? "," : "") + L(r["apiGroups"]) + L(r["apiVersions"]) + L(r["operations"]) +
           L(r["resources"]) + Q(r.value("scope", "*"));
  }
  out += "] failurePolicy " + Q(w.value("failurePolicy", "Fail")) + " matchPolicy " +
         Q(w.value("matchPolicy", "Equivalent")) + " namespaceSelector " +
         Selector(w.value("namespaceSelector", json::object())) + " objectSelector " +
         Selector(w.value("objectSelector", json::object())) + " sideEffects " +
         Q(w.value("sideEffects", "")) + " timeoutSeconds " +
         std::to_string(w.value("timeoutSeconds", 10)) + " admissionReviewVersions " +
         L(w["admissionReviewVersions"]) + " reinvocationPolicy " +
         Q(w.value("reinvocationPolicy", "")) + " matchConditions [";
  const json& mcs = w.value("matchConditions", json::array());
  for (size_t i = 0; i < mcs.size(); ++i)
    out += std::string(i ? "," : "") + Q(mcs[i]["name"]) + " " + Q(mcs[i]["expression"]);
  return out + "]";
}

TEST_CASE("access policies are rendered only where the cluster serves them", "[chart][access]") {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {}, {"--kube-version", "1.28.7"},
           // 1.28 and 1.29 serve v1beta1 only.
           {"--kube-version", "1.29.0", "--api-versions",
            "admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicy"},
           {"--api-versions", kVapApi, "--set", "accessPolicies.enabled=false"}}) {
    Rendered r = Render(args, "gpu-system");
    REQUIRE(r.helm.status == 0);
    CHECK(FindObjects(r, "ValidatingAdmissionPolicy").empty());
    CHECK(FindObjects(r, "ValidatingAdmissionPolicyBinding").empty());
  }
  Rendered r = RenderOn130();
  std::set<std::string> want = {"gpulint-webhook-writes", "gpulint-webhook-webhook-configurations",
                                "gpulint-webhook-webhook-ca", "gpulint-webhook-node-status"};
  CHECK(Names(r, "ValidatingAdmissionPolicy") == want);
  CHECK(Names(r, "ValidatingAdmissionPolicyBinding") == want);
  for (const json* binding : FindObjects(r, "ValidatingAdmissionPolicyBinding")) {
    INFO(binding->dump());
    CHECK(At(*binding, "/spec/policyName") == At(*binding, "/metadata/name"));
    CHECK(At(*binding, "/spec/validationActions") == json::array({"Deny"}));
  }
  // What the two with parameters read: the registration ConfigMap and the TLS Secret.
  const json* configs = FindObject(r, "ValidatingAdmissionPolicyBinding",
                                   "gpulint-webhook-webhook-configurations");
  CHECK(At(*configs, "/spec/paramRef") == json::parse(R"({"name": "gpulint-webhook-webhooks",
      "namespace": "gpu-system", "parameterNotFoundAction": "Deny"})"));
  CHECK(FindObject(r, "ConfigMap", "gpulint-webhook-webhooks") != nullptr);
  const json* ca = FindObject(r, "ValidatingAdmissionPolicyBinding", "gpulint-webhook-webhook-ca");
  CHECK(At(*ca, "/spec/paramRef/name") == "gpulint-webhook-tls");
  CHECK(FindObject(r, "Secret", "gpulint-webhook-tls") != nullptr);
  // Each holds the webhook's own service account, named as the API server names it.
  for (const json* policy : FindObjects(r, "ValidatingAdmissionPolicy")) {
    INFO(Str(At(*policy, "/metadata/name")));
    CHECK(At(*policy, "/spec/failurePolicy") == "Fail");
    CHECK(At(*policy, "/spec/matchConditions/0/expression") ==
          "request.userInfo.username == \"system:serviceaccount:gpu-system:gpulint-webhook\"");
  }
  // Everything else is refused, but the two writes the other policies hold.
  const json* writes = FindObject(r, "ValidatingAdmissionPolicy", "gpulint-webhook-writes");
  CHECK(At(*writes, "/spec/matchConstraints/resourceRules") == json::parse(R"([
      {"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"], "operations": ["*"]}])"));
  CHECK(At(*writes, "/spec/matchConstraints/excludeResourceRules") == json::parse(R"([
      {"apiGroups": ["admissionregistration.k8s.io"], "apiVersions": ["*"],
       "resources": ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
       "resourceNames": ["gpulint-webhook"], "operations": ["UPDATE"]},
      {"apiGroups": [""], "apiVersions": ["*"], "resources": ["nodes/status"], "operations": ["UPDATE"]}])"));
  CHECK(At(*writes, "/spec/validations/0/expression") == "false");
  // The VRAM key is the policy's.
  Rendered other = RenderOn130({"--set-json", R"(policy.spec={"vram":{"resource":"example.com/vram"}})"});
  const json* node = FindObject(other, "ValidatingAdmissionPolicy", "gpulint-webhook-node-status");
  REQUIRE(node != nullptr);
  CHECK(At(*node, "/spec/variables/0") == json::parse(R"({"name": "vram", "expression": "\"example.com/vram\""})"));
}

TEST_CASE("access policies follow what the webhook does", "[chart][access]") {
  // No VRAM advertiser: no node-status policy, and nodes/status is refused too.
  Rendered no_vram = RenderOn130({"--set", "vram.enabled=false"});
  CHECK(Names(no_vram, "ValidatingAdmissionPolicy").count("gpulint-webhook-node-status") == 0);
  const json* writes = FindObject(no_vram, "ValidatingAdmissionPolicy", "gpulint-webhook-writes");
  CHECK(At(*writes, "/spec/matchConstraints/excludeResourceRules").size() == 1);
  CHECK(Str(At(*writes, "/spec/validations/0/message")).find("VRAM") == std::string::npos);
  // helm registering the webhooks: the service account may write none.
  Rendered helm = RenderOn130({"--set", "webhook.selfRegister=false"});
  CHECK(Names(helm, "ValidatingAdmissionPolicy") ==
        std::set<std::string>{"gpulint-webhook-writes", "gpulint-webhook-node-status"});
  // No token at all: nothing for the webhook's service account.
  Rendered none = RenderOn130({"--set", "nodeWatch.enabled=false", "--set", "vram.enabled=false",
                               "--set", "webhook.selfRegister=false"});
  CHECK(FindObjects(none, "ValidatingAdmissionPolicy").empty());
  // The audit's: its reports, labelled as its own.
  Rendered audit = RenderOn130({"--set", "audit.enabled=true", "--set", "serviceAccount.name=gw"});
  const json* reports = FindObject(audit, "ValidatingAdmissionPolicy", "gpulint-webhook-audit-reports");
  REQUIRE(reports != nullptr);
  CHECK(At(*reports, "/spec/matchConditions/0/expression") ==
        "request.userInfo.username == \"system:serviceaccount:gpu-system:gpulint-webhook-audit\"");
  CHECK(At(*reports, "/spec/matchConstraints/resourceRules/0/operations") ==
        json::array({"CREATE", "UPDATE", "DELETE"}));
  CHECK(At(*FindObject(audit, "ValidatingAdmissionPolicy", "gpulint-webhook-writes"),
           "/spec/matchConditions/0/expression") ==
        "request.userInfo.username == \"system:serviceaccount:gpu-system:gw\"");
  Rendered no_reports = RenderOn130({"--set", "audit.enabled=true", "--set", "audit.policyReport=false"});
  CHECK(FindObject(no_reports, "ValidatingAdmissionPolicy", "gpulint-webhook-audit-reports") == nullptr);
}

TEST_CASE("the registration ConfigMap holds each rendered webhook's text", "[chart][access]") {
  // A matchCondition with quotes and a backslash: escaped, never taken for a field's end.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"--set", "mode=deny", "--set", "webhook.mutating.validatePods=true"},
           {"--set-json",
            R"(webhook.matchConditions=[{"name":"tricky","expression":"object == null || object.metadata.name != \"a\\\\\" b\""}])",
            "--set-json",
            R"(webhook.validating.extraRules=[{"apiGroups":["kubeflow.org"],"apiVersions":["*"],"resources":["pytorchjobs"],"operations":["*"],"scope":"Namespaced"}])"}}) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    INFO(joined);
    Rendered r = Render(args, "gpu-system");
    INFO(r.helm.err);
    REQUIRE(r.helm.status == 0);
    const json* cm = FindObject(r, "ConfigMap", "gpulint-webhook-webhooks");
    REQUIRE(cm != nullptr);
    std::set<std::string> keys;
    for (const auto& [key, value] : At(*cm, "/data").items())
      if (key != "webhooks.yaml") keys.insert(key);
    std::set<std::string> want;
    for (const json& config : Configurations(r)) {
      std::string resource = Str(config["kind"]) == "ValidatingWebhookConfiguration"
                                 ? "validatingwebhookconfigurations"
                                 : "mutatingwebhookconfigurations";
      for (const json& w : config["webhooks"]) {
        std::string key = resource + "." + Str(w["name"]);
        want.insert(key);
        INFO(key);
        CHECK(At(*cm, "/data/" + key) == Canonical(w));
      }
    }
    CHECK(keys == want);
  }
}

TEST_CASE("the NetworkPolicy admits the private ranges by default, widened by a value",
          "[chart][access]") {
  Rendered r = Render({}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  CHECK(At(*FindObject(r, "NetworkPolicy"), "/spec/ingress/0/from") == json::parse(R"([
    {"ipBlock": {"cidr": "10.0.0.0/8"}}, {"ipBlock": {"cidr": "172.16.0.0/12"}},
    {"ipBlock": {"cidr": "192.168.0.0/16"}}, {"ipBlock": {"cidr": "100.64.0.0/10"}},
    {"ipBlock": {"cidr": "fc00::/7"}}])"));
  Rendered wide = Render({"--set-json", R"(networkPolicy.apiServerCIDRs=["0.0.0.0/0","::/0"])"},
                         "gpu-system");
  REQUIRE(wide.helm.status == 0);
  CHECK(At(*FindObject(wide, "NetworkPolicy"), "/spec/ingress/0/from") == json::parse(R"([
    {"ipBlock": {"cidr": "0.0.0.0/0"}}, {"ipBlock": {"cidr": "::/0"}}])"));
}

TEST_CASE("staleness and the audit's limits are values, each flag set once", "[chart][access]") {
  Rendered r = Render({"--set", "nodeWatch.staleAfter=90s"}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  const json& args = At(*FindObject(r, "Deployment"), "/spec/template/spec/containers/0/args");
  CHECK(Contains(args, "--watch-stale-after=90s"));
  Rendered audit = Render({"--set", "audit.enabled=true", "--set", "audit.timeout=20m"}, "gpu-system");
  REQUIRE(audit.helm.status == 0);
  const json& audit_args =
      At(*FindObject(audit, "CronJob"), "/spec/jobTemplate/spec/template/spec/containers/0/args");
  CHECK(Contains(audit_args, "--timeout=20m"));
  CHECK(Contains(audit_args, "--request-timeout=60s"));
  // The audit's role: its reports by name, and list.
  const json* role = FindObject(audit, "ClusterRole", "gpulint-webhook-audit");
  REQUIRE(role != nullptr);
  bool named = false, listed = false;
  for (const json& rule : At(*role, "/rules")) {
    if (!Contains(rule["apiGroups"], "wgpolicyk8s.io")) continue;
    INFO(rule.dump());
    if (rule["verbs"] == json::array({"list"})) {
      listed = !rule.contains("resourceNames");
    } else {
      CHECK(rule["verbs"] == json::array({"create", "patch", "delete"}));
      CHECK(rule["resourceNames"] == json::array({"gpulint-audit"}));
      named = true;
    }
  }
  CHECK(named);
  CHECK(listed);
  struct Case {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"--set", "extraArgs={--watch-stale-after=1m}"},
       "extraArgs: --watch-stale-after is set by the chart from nodeWatch.staleAfter"},
      {{"--set", "audit.enabled=true", "--set", "audit.extraArgs={--timeout=1h}"},
       "audit.extraArgs: --timeout is set by the chart from audit.timeout"},
      {{"--set", "nodeWatch.staleAfter=5min"}, "/nodeWatch/staleAfter"},
      {{"--set", "audit.requestTimeout=1.5m"}, "/audit/requestTimeout"},
  };
  for (const Case& c : cases) {
    INFO(c.error);
    Rendered bad = Render(c.args, "gpu-system");
    CHECK(bad.helm.status != 0);
    CHECK(bad.helm.err.find(c.error) != std::string::npos);
  }
}

}  // namespace
}  // namespace gpulint::chart_test
