// Values reach the objects they are meant for, and values that would make a
// broken or unsafe install are refused before anything is applied.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/base/finding.h"
#include "engine/policies.h"
#include "tests/chart/chart_support.h"

namespace gpulint::chart_test {
namespace {

const ValueSet& Production() {
  for (const ValueSet& set : ValueSets())
    if (set.name == "production values") return set;
  FAIL("no production value set");
  return ValueSets().front();
}

// A --set the render refuses, and a line of helm's message.
struct Refusal {
  std::string set;
  std::string error;
};

void CheckRefused(const Refusal& c) {
  INFO(c.set);
  Rendered r = Render({"--set", c.set}, "gpu-system");
  INFO(r.helm.err);
  CHECK(r.helm.status != 0);
  CHECK(r.helm.err.find(c.error) != std::string::npos);
}

bool HasArg(const json& container, const std::string& arg) {
  return Contains(At(container, "/args"), arg);
}

TEST_CASE("the policy ConfigMap holds a Policy that gpulint loads", "[chart][policy]") {
  struct Case {
    std::vector<std::string> args;
    std::string name;
    size_t node_classes;
  };
  for (const Case& c : std::vector<Case>{{{}, "cluster", DefaultPolicy().node_classes.size()},
                                         {Production().args, "v100-cluster", 1}}) {
    INFO(c.name);
    Rendered r = Render(c.args, "gpulint");
    REQUIRE(r.helm.status == 0);
    const json* config_map = FindObject(r, "ConfigMap", std::string(kRelease) + "-policy");
    REQUIRE(config_map != nullptr);
    Policy policy;
    Error error;
    INFO(Str(At(*config_map, "/data/policy.yaml")));
    REQUIRE(LoadPolicyText(Str(At(*config_map, "/data/policy.yaml")), "policy.yaml", &policy,
                           &error));
    CHECK(policy.name == c.name);
    CHECK(policy.node_classes.size() == c.node_classes);
  }
  Rendered r = Render(Production().args, "gpulint");
  Policy policy;
  Error error;
  REQUIRE(LoadPolicyText(Str(At(*FindObject(r, "ConfigMap"), "/data/policy.yaml")), "policy.yaml",
                         &policy, &error));
  REQUIRE(policy.node_classes.size() == 1);
  CHECK(policy.node_classes[0].name == "v100-4x");
  CHECK(policy.RuleSeverity("gpu-visibility-bypass", Severity::kWarning) == Severity::kInfo);
}

TEST_CASE("production values narrow the network, add exclusions, CRD rules and client certs",
          "[chart]") {
  const ValueSet& set = Production();
  Rendered r = Render(set.args, set.ns);
  REQUIRE(r.helm.status == 0);
  CHECK(At(*FindObject(r, "NetworkPolicy"), "/spec/ingress/0/from") == json::parse(R"([
    {"ipBlock": {"cidr": "10.0.0.0/24"}},
    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}])"));
  std::vector<json> configs = Configurations(r);
  REQUIRE(configs.size() == 2);
  for (const json& config : configs) {
    INFO(config.at("kind"));
    // The deny webhook: production values set mode deny.
    const json& w = At(config, "/webhooks/0");
    CHECK(At(w, "/clientConfig/service/path").get<std::string>().find("/deny") !=
          std::string::npos);
    CHECK(At(w, "/timeoutSeconds") == 3);
    CHECK(At(w, "/namespaceSelector/matchExpressions") == json::parse(R"([
      {"key": "kubernetes.io/metadata.name", "operator": "NotIn",
       "values": ["kube-system", "gpulint", "gpu-operator", "monitoring"]},
      {"key": "gpulint.io/mode", "operator": "NotIn", "values": ["audit", "warn"]},
      {"key": "gpulint.io/webhook", "operator": "NotIn", "values": ["disabled"]}])"));
  }
  auto pytorchjobs = [&](const json& config) {
    for (const json& rule : At(config, "/webhooks/0/rules"))
      if (Contains(rule.at("resources"), "pytorchjobs")) return true;
    return false;
  };
  CHECK(pytorchjobs(configs[0]));
  CHECK_FALSE(pytorchjobs(configs[1]));

  const json& deployment = *FindObject(r, "Deployment");
  CHECK(At(deployment, "/spec/replicas") == 3);
  CHECK(At(deployment, "/spec/template/spec/priorityClassName") == "system-cluster-critical");
  const json& container = At(deployment, "/spec/template/spec/containers/0");
  CHECK(HasArg(container, "--client-ca=/etc/gpulint/client-ca/ca.crt"));
  bool client_ca_mounted = false;
  for (const json& volume : At(deployment, "/spec/template/spec/volumes"))
    client_ca_mounted |= At(volume, "/configMap/name") == "apiserver-client-ca";
  CHECK(client_ca_mounted);
}

// A webhook's rules, as "group/resource OPERATION" lines, sorted.
std::vector<std::string> Reaches(const json& webhook) {
  std::vector<std::string> out;
  for (const json& rule : At(webhook, "/rules"))
    for (const json& group : At(rule, "/apiGroups"))
      for (const json& resource : At(rule, "/resources"))
        for (const json& op : At(rule, "/operations"))
          out.push_back(Str(group) + "/" + Str(resource) + " " + Str(op));
  std::sort(out.begin(), out.end());
  return out;
}

// The deletion match condition costs the API server a conversion of the whole
// object per call, and only an UPDATE (a finalizer removed) can need it: the
// operations past CREATE get a webhook of their own (update.*), the only one
// that carries it.
TEST_CASE("matchConditions are set only on the webhooks for operations past CREATE", "[chart]") {
  const json kCondition = json::parse(
      R"j([{"name": "not-being-deleted",
           "expression": "object == null || !has(object.metadata.deletionTimestamp)"}])j");
  Rendered defaults = Render({}, "gpulint");
  REQUIRE(defaults.helm.status == 0);
  std::vector<json> configs = Configurations(defaults);
  REQUIRE(configs.size() == 2);
  const json& validating = At(configs[0], "/webhooks");
  REQUIRE(validating.size() == 6);
  CHECK(At(validating, "/0/name") == "validate.gpulint.io");
  CHECK(At(validating, "/0/matchConditions").is_null());
  CHECK(Reaches(validating[0]) ==
        std::vector<std::string>{"/pods CREATE", "/podtemplates CREATE",
                                 "/replicationcontrollers CREATE", "apps/daemonsets CREATE",
                                 "apps/deployments CREATE", "apps/replicasets CREATE",
                                 "apps/statefulsets CREATE", "batch/cronjobs CREATE",
                                 "batch/jobs CREATE", "resource.k8s.io/resourceclaims CREATE",
                                 "resource.k8s.io/resourceclaimtemplates CREATE"});
  CHECK(At(validating, "/1/name") == "update.validate.gpulint.io");
  CHECK(At(validating, "/1/matchConditions") == kCondition);
  CHECK(Reaches(validating[1]) ==
        std::vector<std::string>{
            "/pods/resize UPDATE", "/podtemplates UPDATE", "/replicationcontrollers UPDATE",
            "apps/daemonsets UPDATE", "apps/deployments UPDATE", "apps/replicasets UPDATE",
            "apps/statefulsets UPDATE", "batch/cronjobs UPDATE", "batch/jobs UPDATE"});
  // The mutating webhook is sent pod CREATEs only: nothing to split.
  for (const json& w : At(configs[1], "/webhooks")) CHECK(At(w, "/matchConditions").is_null());
  CHECK(At(configs[1], "/webhooks").size() == 3);

  // "*" is every operation: CREATE apart, the rest with the conditions.
  Rendered updates = Render({"--set", "webhook.mutating.extraRules[0].apiGroups[0]=kubeflow.org",
                             "--set", "webhook.mutating.extraRules[0].apiVersions[0]=v1", "--set",
                             "webhook.mutating.extraRules[0].resources[0]=notebooks", "--set",
                             "webhook.mutating.extraRules[0].operations[0]=*"},
                            "gpulint");
  REQUIRE(updates.helm.status == 0);
  configs = Configurations(updates);
  REQUIRE(configs.size() == 2);
  const json& mutating = At(configs[1], "/webhooks");
  REQUIRE(mutating.size() == 6);
  CHECK(At(mutating, "/0/matchConditions").is_null());
  CHECK(Reaches(mutating[0]) ==
        std::vector<std::string>{"/pods CREATE", "kubeflow.org/notebooks CREATE"});
  CHECK(At(mutating, "/1/name") == "update.mutate.gpulint.io");
  CHECK(At(mutating, "/1/matchConditions") == kCondition);
  CHECK(Reaches(mutating[1]) == std::vector<std::string>{"kubeflow.org/notebooks CONNECT",
                                                         "kubeflow.org/notebooks DELETE",
                                                         "kubeflow.org/notebooks UPDATE"});

  // No conditions: one webhook per mode, every rule whole.
  Rendered none = Render({"--set", "webhook.matchConditions=null"}, "gpulint");
  REQUIRE(none.helm.status == 0);
  configs = Configurations(none);
  REQUIRE(configs.size() == 2);
  REQUIRE(At(configs[0], "/webhooks").size() == 3);
  CHECK(At(configs[0], "/webhooks/0/matchConditions").is_null());
  CHECK(Reaches(At(configs[0], "/webhooks/0")).size() == 20);
}

// One call per pod: the mutating webhook calls /admit, which judges as
// /validate does, and the validating webhook is no longer sent pod CREATEs;
// it still judges resizes and workloads.
TEST_CASE("webhook.mutating.validatePods sends pod CREATEs to /admit alone", "[chart]") {
  // Off, the default: a pod CREATE calls /mutate, then /validate.
  Rendered defaults = Render({"--set", "mode=deny"}, "gpulint");
  REQUIRE(defaults.helm.status == 0);
  std::vector<json> configs = Configurations(defaults);
  REQUIRE(configs.size() == 2);
  for (const json& w : At(configs[1], "/webhooks")) {
    INFO(w.at("name"));
    CHECK(Str(At(w, "/clientConfig/service/path")).rfind("/mutate/", 0) == 0);
  }
  std::vector<std::string> judged = Reaches(At(configs[0], "/webhooks/0"));
  CHECK(std::count(judged.begin(), judged.end(), "/pods CREATE") == 1);

  Rendered r =
      Render({"--set", "webhook.mutating.validatePods=true", "--set", "mode=deny"}, "gpulint");
  REQUIRE(r.helm.status == 0);
  configs = Configurations(r);
  REQUIRE(configs.size() == 2);
  for (const json& w : At(configs[1], "/webhooks")) {
    INFO(w.at("name"));
    CHECK(Str(At(w, "/clientConfig/service/path")).rfind("/admit/", 0) == 0);
    CHECK(Reaches(w) == std::vector<std::string>{"/pods CREATE"});
  }
  CHECK(At(configs[1], "/webhooks/0/name") == "mutate.gpulint.io");
  const json& validating = At(configs[0], "/webhooks");
  REQUIRE(validating.size() == 6);
  std::vector<std::string> create = Reaches(validating[0]), update = Reaches(validating[1]);
  CHECK(std::count(create.begin(), create.end(), "/pods CREATE") == 0);
  CHECK(create.size() == 10);
  CHECK(std::count(update.begin(), update.end(), "/pods/resize UPDATE") == 1);
  CHECK(update.size() == 9);

  // A rule naming pods beside another resource keeps that one's CREATE.
  Rendered shared = Render({"--set", "webhook.mutating.validatePods=true", "--set-json",
                            R"(webhook.validating.rules=[{"apiGroups": [""], "apiVersions": ["v1"],
                               "resources": ["pods", "podtemplates"],
                               "operations": ["CREATE", "UPDATE"]}])"},
                           "gpulint");
  REQUIRE(shared.helm.status == 0);
  configs = Configurations(shared);
  REQUIRE(configs.size() == 2);
  CHECK(Reaches(At(configs[0], "/webhooks/0")) == std::vector<std::string>{"/podtemplates CREATE"});
  CHECK(Reaches(At(configs[0], "/webhooks/1")) ==
        std::vector<std::string>{"/pods UPDATE", "/podtemplates UPDATE"});
}

TEST_CASE("one replica renders no PodDisruptionBudget", "[chart]") {
  // With one replica a budget protects nothing, or blocks every node drain.
  Rendered r = Render({"--set", "replicaCount=1"}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  CHECK(FindObjects(r, "PodDisruptionBudget").empty());
  CHECK(FindObjects(Render({}, "gpu-system"), "PodDisruptionBudget").size() == 1);
}

TEST_CASE("without the node watch there is no RBAC and no service account token", "[chart]") {
  Rendered off = Render({"--set", "nodeWatch.enabled=false", "--set", "vram.enabled=false", "--set",
                         "webhook.selfRegister=false"},
                        "gpu-system");
  Rendered on = Render({}, "gpu-system");
  REQUIRE(off.helm.status == 0);
  REQUIRE(on.helm.status == 0);
  CHECK(FindObjects(off, "ClusterRole").empty());
  CHECK(FindObjects(off, "ClusterRoleBinding").empty());
  const json& pod_off = At(*FindObject(off, "Deployment"), "/spec/template/spec");
  const json& pod_on = At(*FindObject(on, "Deployment"), "/spec/template/spec");
  CHECK(At(pod_off, "/automountServiceAccountToken") == false);
  CHECK(At(pod_on, "/automountServiceAccountToken") == true);
  CHECK_FALSE(HasArg(At(pod_off, "/containers/0"), "--in-cluster"));
  CHECK(HasArg(At(pod_on, "/containers/0"), "--in-cluster"));
  CHECK_FALSE(HasArg(At(pod_off, "/containers/0"), "--advertise-vram"));
}

TEST_CASE("serverLimits become the webhook's limit flags, numbers in full", "[chart]") {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> flags;
  };
  for (const Case& c : std::vector<Case>{
           {{},
            {"--max-body-bytes=3Mi", "--max-buffered-bytes=32Mi", "--max-connections=1024",
             "--review-workers=2", "--max-reviews-in-flight=64", "--parse-budget=12",
             "--read-timeout-seconds=10", "--idle-timeout-seconds=30"}},
           // Numbers as YAML reads them from a values file: floats, printed in full.
           {{"--set-json",
             R"(serverLimits={"maxBodyBytes":4194304,"maxBufferedBytes":"64Mi","maxConnections":1000000,)"
             R"("reviewWorkers":4,"maxReviewsInFlight":128,"parseBudget":0,"readTimeoutSeconds":5,)"
             R"("idleTimeoutSeconds":60})"},
            {"--max-body-bytes=4194304", "--max-buffered-bytes=64Mi", "--max-connections=1000000",
             "--review-workers=4", "--max-reviews-in-flight=128", "--parse-budget=0",
             "--read-timeout-seconds=5", "--idle-timeout-seconds=60"}},
       }) {
    Rendered r = Render(c.args, "gpu-system");
    INFO(r.helm.err);
    REQUIRE(r.helm.status == 0);
    const json& container = At(*FindObject(r, "Deployment"), "/spec/template/spec/containers/0");
    for (const std::string& flag : c.flags) {
      INFO(flag);
      CHECK(HasArg(container, flag));
    }
  }
}

TEST_CASE("webhook.allowExistingViolations becomes --allow-existing-violations, on by default",
          "[chart]") {
  for (const auto& [set, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{}, "--allow-existing-violations=true"},
           {{"--set", "webhook.allowExistingViolations=false"},
            "--allow-existing-violations=false"}}) {
    Rendered r = Render(set, "gpu-system");
    INFO(r.helm.err);
    REQUIRE(r.helm.status == 0);
    CHECK(HasArg(At(*FindObject(r, "Deployment"), "/spec/template/spec/containers/0"), flag));
  }
  Rendered text = Render({"--set-string", "webhook.allowExistingViolations=yes"}, "gpu-system");
  CHECK(text.helm.status != 0);
  CHECK(text.helm.err.find("allowExistingViolations") != std::string::npos);
  Rendered twice =
      Render({"--set", "extraArgs[0]=--allow-existing-violations=false"}, "gpu-system");
  CHECK(twice.helm.status != 0);
  CHECK(twice.helm.err.find("--allow-existing-violations is set by the chart from "
                            "webhook.allowExistingViolations") != std::string::npos);
}

TEST_CASE("extraArgs come after the chart's own flags", "[chart]") {
  Rendered r = Render({"--set", "extraArgs[0]=--nodes=/etc/nodes.yaml"}, "gpu-system");
  REQUIRE(r.helm.status == 0);
  const json& args = At(*FindObject(r, "Deployment"), "/spec/template/spec/containers/0/args");
  REQUIRE(args.size() > 1);
  CHECK(args.back() == "--nodes=/etc/nodes.yaml");
  CHECK(args.front() == "--listen=0.0.0.0:8443");
}

// The policy the rendered ConfigMap holds, loaded by gpulint's own loader.
Policy RenderedPolicy(const Rendered& r) {
  const json* config_map = FindObject(r, "ConfigMap", std::string(kRelease) + "-policy");
  REQUIRE(config_map != nullptr);
  Policy policy;
  Error error;
  INFO(Str(At(*config_map, "/data/policy.yaml")));
  REQUIRE(LoadPolicyText(Str(At(*config_map, "/data/policy.yaml")), "policy.yaml", &policy,
                         &error));
  return policy;
}

TEST_CASE("vram.enabled turns the VRAM advertiser and the VRAM mutation on and off together",
          "[chart][vram]") {
  const json patch_status =
      json::parse(R"({"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch"]})");
  struct Case {
    std::string name;
    std::vector<std::string> args;
    bool on;
    size_t node_classes;
    bool headroom;
  };
  for (const Case& c : std::vector<Case>{
           {"defaults", {}, true, DefaultPolicy().node_classes.size(), true},
           {"off", {"--set", "vram.enabled=false"}, false, DefaultPolicy().node_classes.size(),
            true},
           {"off, with a policy of its own",
            {"-f", Production().args[1], "--set", "vram.enabled=false", "--set",
             "policy.spec.mutations.headroom=false"},
            false, 1, false},
       }) {
    INFO(c.name);
    Rendered r = Render(c.args, "gpu-system");
    INFO(r.helm.err);
    REQUIRE(r.helm.status == 0);
    const json& container = At(*FindObject(r, "Deployment"), "/spec/template/spec/containers/0");
    CHECK(HasArg(container, "--advertise-vram") == c.on);
    CHECK(HasArg(container, "--in-cluster"));
    std::vector<const json*> roles = FindObjects(r, "ClusterRole");
    REQUIRE(roles.size() == 1);
    CHECK(Contains(At(*roles[0], "/rules"), patch_status) == c.on);
    CHECK(At(*roles[0], "/rules/0/verbs") == json{"get", "list", "watch"});
    Policy policy = RenderedPolicy(r);
    CHECK(policy.mutations.vram == c.on);
    CHECK(policy.node_classes.size() == c.node_classes);
    // The policy's other mutations are its own.
    CHECK(policy.mutations.headroom == c.headroom);
    CHECK(policy.mutations.hide_gpus);
    Output lint = Lint(c.args, "gpu-system");
    INFO(lint.out << lint.err);
    CHECK(lint.status == 0);
  }
}

TEST_CASE("values that would make a broken or unsafe install are refused", "[chart]") {
  const std::vector<Refusal> cases = {
      {"webhook.timeoutSeconds=31", "- at '/webhook/timeoutSeconds': maximum: got 31, want 30"},
      {"webhook.failurePolicy=fail",
       "- at '/webhook/failurePolicy': value must be one of 'Fail', 'Ignore'"},
      {"webhok.timeoutSeconds=5", "- at '': additional properties 'webhok' not allowed"},
      {"securityContext.runAsNonRoot=false",
       "- at '/securityContext/runAsNonRoot': value must be true"},
      {"securityContext.allowPrivilegeEscalation=true",
       "- at '/securityContext/allowPrivilegeEscalation': value must be false"},
      {"networkPolicy.apiServerCIDRs=null",
       "networkPolicy: apiServerCIDRs and apiServerPeers are both empty; an ingress rule with no "
       "peers admits every source. List the API server's addresses, or set "
       "networkPolicy.enabled=false"},
      {"nodeWatch.enabled=false,vram.enabled=false",
       "webhook.selfRegister needs nodeWatch.enabled: the webhook reaches the API server, to "
       "register its configurations, through the node watch's service account. Set "
       "nodeWatch.enabled=true, or webhook.selfRegister=false to have helm register the "
       "configurations"},
      {"mode=enforce", "- at '/mode': value must be one of 'audit', 'warn', 'deny'"},
      {"extraArgs[0]=--register=/w.yaml",
       "extraArgs: --register is set by the chart from webhook.selfRegister; set that value "
       "instead (gpulint-webhook refuses a flag given twice)"},
      {"nodeWatch.enabled=false",
       "vram.enabled needs nodeWatch.enabled: the VRAM advertiser learns the GPU nodes from the "
       "node watch, and without it GPU pods would ask for a VRAM resource that no node "
       "advertises. Set nodeWatch.enabled=true, or vram.enabled=false as well"},
      {"policy.spec.mutations.vram=false",
       "policy.spec.mutations.vram is false but vram.enabled is true: leave "
       "policy.spec.mutations.vram out and set vram.enabled, which turns the VRAM mutation and "
       "the VRAM advertiser on and off together"},
      {"vram.enabled=yes", "- at '/vram/enabled': got string, want boolean"},
      {"extraArgs[0]=--nodes=/n.yaml,extraArgs[1]=--workers=8",
       "extraArgs: --workers is set by the chart from workers; set that value instead "
       "(gpulint-webhook refuses a flag given twice)"},
      {"serverLimits.maxConnections=0",
       "- at '/serverLimits/maxConnections': minimum: got 0, want 1"},
      {"serverLimits.maxBodyBytes=3MB",
       "- at '/serverLimits/maxBodyBytes': '3MB' does not match pattern "
       "'^[0-9]+(Ki|Mi|Gi|Ti|k|M|G|T)?$'"},
      {"extraArgs[0]=--parse-budget=3",
       "extraArgs: --parse-budget is set by the chart from serverLimits.parseBudget; set that "
       "value instead (gpulint-webhook refuses a flag given twice)"},
      {"extraArgs[0]=--in-cluster",
       "extraArgs: --in-cluster is set by the chart from nodeWatch.enabled; set that value "
       "instead (gpulint-webhook refuses a flag given twice)"},
      // Pods would go unjudged: the validating webhook leaves them to a
      // mutating webhook that is not there, or not sent them.
      {"webhook.mutating.validatePods=true,webhook.mutating.enabled=false",
       "webhook.mutating.validatePods needs webhook.mutating.enabled and a webhook.mutating rule "
       "for pods on CREATE: the validating webhook no longer judges pod CREATEs, so the mutating "
       "one must receive them"},
      {"webhook.mutating.validatePods=true,webhook.mutating.rules[0].resources[0]=podtemplates,"
       "webhook.mutating.rules[0].apiGroups[0]=,webhook.mutating.rules[0].apiVersions[0]=v1,"
       "webhook.mutating.rules[0].operations[0]=CREATE",
       "webhook.mutating.validatePods needs webhook.mutating.enabled and a webhook.mutating rule "
       "for pods on CREATE: the validating webhook no longer judges pod CREATEs, so the mutating "
       "one must receive them"},
      {"webhook.mutating.validatePods=true,webhook.validating.enabled=false",
       "webhook.mutating.validatePods needs webhook.validating.enabled: pod resizes and "
       "workloads are still judged by the validating webhook"},
      {"webhook.mutating.validatePods=yes",
       "- at '/webhook/mutating/validatePods': got string, want boolean"},
  };
  for (const Refusal& c : cases) CheckRefused(c);
}

// values.schema.json's `policy` is generated from the policy loader's table
// (scripts/update-chart-schema), so helm refuses what the webhook would refuse
// to load; a webhook with no valid policy would cost every admission.
TEST_CASE("an invalid policy is refused at render, naming the field", "[chart][policy]") {
  const std::vector<Refusal> cases = {
      {"policy.spec.rules.foo.severity=info",
       "- at '/policy/spec/rules': additional properties 'foo' not allowed"},
      {"policy.spec.reserverd.memory.percent=5",
       "- at '/policy/spec': additional properties 'reserverd' not allowed"},
      {"policy.spec.mutations.hideGpus=yes",
       "- at '/policy/spec/mutations/hideGpus': got string, want boolean"},
      {"policy.spec.rules.gpu-fractional.severity=fatal",
       "- at '/policy/spec/rules/gpu-fractional/severity': value must be one of 'info', "
       "'warning', 'error'"},
      {"policy.spec.reserved.memory.perGpu=1GB",
       "- at '/policy/spec/reserved/memory/perGpu': '1GB' does not match pattern"},
      {"policy.spec.nodeClasses[0].labels.a=b",
       "- at '/policy/spec/nodeClasses/0': missing property 'name'"},
      {"policy.spec.gpuNodes.cudaImages[0]=(",
       "- at '/policy/spec/gpuNodes/cudaImages/0': '(' is not valid regex"},
  };
  for (const Refusal& c : cases) CheckRefused(c);
  // What the chart's own values and the production example hold still renders.
  for (const ValueSet& set : ValueSets()) {
    INFO(set.name);
    CHECK(Render(set.args, set.ns).helm.status == 0);
  }
  CHECK(Render({"--set", "policy.spec.rules.gpu-fractional.severity=info"}, "gpu-system")
            .helm.status == 0);
}

}  // namespace
}  // namespace gpulint::chart_test
