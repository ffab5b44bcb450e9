// What must hold for every value set: the webhook comes up hardened, the API
// server can reach it, and it can never block kube-system or itself.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/chart/chart_support.h"

namespace gpulint::chart_test {
namespace {

// Some rule sends `op` on `group`/`resource` to the webhook.
bool Covers(const json& rules, const std::string& group, const std::string& resource,
            const std::string& op) {
  for (const json& rule : rules)
    if (Contains(rule.at("apiGroups"), group) && Contains(rule.at("resources"), resource) &&
        (Contains(rule.at("operations"), op) || Contains(rule.at("operations"), "*")))
      return true;
  return false;
}

// The value of `--flag=VALUE` in the container's args, or "" when absent.
std::string Flag(const json& container, const std::string& flag) {
  for (const json& arg : At(container, "/args")) {
    std::string a = arg.get<std::string>();
    if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
  }
  return "";
}

// The volume mounted at the directory holding `file`, or null.
const json& VolumeFor(const json& pod, const json& container, const std::string& file) {
  static const json kNone;
  std::string dir = file.substr(0, file.rfind('/'));
  for (const json& mount : At(container, "/volumeMounts")) {
    if (mount.at("mountPath") != dir) continue;
    for (const json& volume : At(pod, "/volumes"))
      if (volume.at("name") == mount.at("name")) return volume;
  }
  return kNone;
}

const json& WebhookContainer(const json& deployment) {
  return At(deployment, "/spec/template/spec/containers/0");
}

void CheckHardenedPod(const json& deployment) {
  const json& pod = At(deployment, "/spec/template/spec");
  const json& c = WebhookContainer(deployment);
  CHECK(At(deployment, "/spec/replicas").get<int>() >= 2);
  CHECK(At(pod, "/securityContext/runAsNonRoot") == true);
  CHECK(At(pod, "/securityContext/runAsUser").get<int>() > 0);
  CHECK(At(pod, "/securityContext/seccompProfile/type") == "RuntimeDefault");
  CHECK(At(c, "/securityContext/readOnlyRootFilesystem") == true);
  CHECK(At(c, "/securityContext/allowPrivilegeEscalation") == false);
  CHECK(At(c, "/securityContext/capabilities/drop") == json{"ALL"});
  for (const char* r : {"/resources/requests/cpu", "/resources/requests/memory",
                        "/resources/limits/memory"}) {
    INFO(r);
    CHECK(At(c, r).is_string());
  }
  bool spread_over_nodes = false;
  for (const json& t : At(pod, "/topologySpreadConstraints"))
    spread_over_nodes |= t.at("topologyKey") == "kubernetes.io/hostname" &&
                         Selects(At(t, "/labelSelector/matchLabels"),
                                 At(deployment, "/spec/template/metadata/labels"));
  CHECK(spread_over_nodes);
}

void CheckProbesAndShutdown(const json& deployment) {
  const json& c = WebhookContainer(deployment);
  CHECK(At(c, "/ports/0/name") == "https");
  CHECK(At(c, "/livenessProbe/httpGet") ==
        json{{"path", "/healthz"}, {"port", "https"}, {"scheme", "HTTPS"}});
  CHECK(At(c, "/readinessProbe/httpGet") ==
        json{{"path", "/readyz"}, {"port", "https"}, {"scheme", "HTTPS"}});
  // No hook: the image has no shell or sleep to run one (Dockerfile). The
  // webhook's own drain keeps it serving while it leaves the endpoints: as
  // long as the 5 s preStop pause and 5 s drain it replaced.
  CHECK_FALSE(c.contains("lifecycle"));
  int drain = std::stoi(Flag(c, "--drain-seconds"));
  CHECK(drain >= 10);
  // kubelet kills the pod at the grace period: the drain and one request
  // (10 s read timeout) must fit in it.
  CHECK(At(deployment, "/spec/template/spec/terminationGracePeriodSeconds").get<int>() >=
        drain + 10);
}

void CheckMounts(const Rendered& r, const json& deployment) {
  const json& pod = At(deployment, "/spec/template/spec");
  const json& c = WebhookContainer(deployment);
  std::string cert = Flag(c, "--cert"), key = Flag(c, "--key"), policy = Flag(c, "--policy");
  CHECK(cert.substr(cert.rfind('/')) == "/tls.crt");
  CHECK(key.substr(key.rfind('/')) == "/tls.key");
  const json& tls = VolumeFor(pod, c, cert);
  CHECK(At(tls, "/secret/secretName") == std::string(kRelease) + "-tls");
  CHECK(VolumeFor(pod, c, key) == tls);
  const json& policy_volume = VolumeFor(pod, c, policy);
  const json* config_map = FindObject(r, "ConfigMap", Str(At(policy_volume, "/configMap/name")));
  REQUIRE(config_map != nullptr);
  CHECK(At(*config_map, "/data").contains(policy.substr(policy.rfind('/') + 1)));
  CHECK(FindObject(r, "ServiceAccount", Str(At(pod, "/serviceAccountName"))) != nullptr);
}

// The expression of `selector` on `key`, or null.
const json* Expression(const json& selector, const std::string& key) {
  for (const json& e : At(selector, "/matchExpressions"))
    if (e.at("key") == key) return &e;
  return nullptr;
}

// The path a configuration's webhooks call: /mutate, or /admit when the
// mutating webhook judges pods too (webhook.mutating.validatePods).
std::string EndpointOf(const json& config, const ValueSet& set) {
  if (At(config, "/kind") == "ValidatingWebhookConfiguration") return "validate";
  return set.validate_pods ? "admit" : "mutate";
}

// A webhook's name, [MODE.][update.]NAME.gpulint.io, taken apart.
struct WebhookName {
  std::string mode = "deny";
  bool update = false;  // for the operations past CREATE
  std::string name;
};
WebhookName ParseName(std::string full) {
  WebhookName n;
  for (const char* mode : {"warn", "audit"})
    if (full.rfind(std::string(mode) + ".", 0) == 0)
      n.mode = mode, full.erase(0, n.mode.size() + 1);
  if (full.rfind("update.", 0) == 0) n.update = true, full.erase(0, 7);
  n.name = full;
  return n;
}

// Every rule of a configuration's webhooks for `mode`.
json RulesOf(const json& config, const std::string& mode) {
  json rules = json::array();
  for (const json& w : At(config, "/webhooks"))
    if (ParseName(w.at("name")).mode == mode)
      for (const json& rule : At(w, "/rules")) rules.push_back(rule);
  return rules;
}

// One configuration: per mode a webhook for CREATE, and, where the rules
// reach past CREATE (validating), one named update.* for the rest, the only
// one with the matchConditions; each reached at /ENDPOINT/MODE. The cluster's
// mode takes every namespace not labelled with another mode.
void CheckWebhooks(const Rendered& r, const ValueSet& set, const json& config,
                   const std::string& name) {
  std::string endpoint = EndpointOf(config, set);
  bool validating = name == "validate";
  REQUIRE(At(config, "/webhooks").size() == (validating ? 6 : 3));
  for (const json& w : At(config, "/webhooks")) {
    WebhookName parsed = ParseName(w.at("name"));
    const std::string& mode = parsed.mode;
    INFO(w.at("name"));
    CHECK(parsed.name == name + ".gpulint.io");
    CHECK(parsed.update == !At(w, "/matchConditions").is_null());
    for (const json& rule : At(w, "/rules"))
      for (const json& op : At(rule, "/operations")) CHECK((op == "CREATE") != parsed.update);
    CHECK(w.at("sideEffects") == "None");
    CHECK(w.at("admissionReviewVersions") == json{"v1"});
    // Only deny refuses; a webhook that only allows must not block when down.
    CHECK(w.at("failurePolicy") == (mode == "deny" ? set.failure_policy : "Ignore"));
    CHECK(w.at("timeoutSeconds").get<int>() >= 1);
    CHECK(w.at("timeoutSeconds").get<int>() <= 10);
    CHECK(At(w, "/clientConfig/service/path") == "/" + endpoint + "/" + mode);
    CHECK(At(w, "/clientConfig/service/namespace") == set.ns);
    const json* service = FindObject(r, "Service", Str(At(w, "/clientConfig/service/name")));
    REQUIRE(service != nullptr);
    CHECK(At(*service, "/spec/ports/0/port") == At(w, "/clientConfig/service/port"));
    CHECK(At(*service, "/spec/ports/0/targetPort") == "https");
    const json* excluded = Expression(At(w, "/namespaceSelector"), "kubernetes.io/metadata.name");
    REQUIRE(excluded != nullptr);
    CHECK(excluded->at("operator") == "NotIn");
    CHECK(Contains(excluded->at("values"), "kube-system"));
    CHECK(Contains(excluded->at("values"), set.ns));
    const json* label = Expression(At(w, "/namespaceSelector"), "gpulint.io/mode");
    REQUIRE(label != nullptr);
    if (mode == set.mode) {
      json others = json::array();
      for (const char* m : {"audit", "warn", "deny"})
        if (m != mode) others.push_back(m);
      CHECK(*label == json{{"key", "gpulint.io/mode"}, {"operator", "NotIn"}, {"values", others}});
    } else {
      CHECK(*label == json{{"key", "gpulint.io/mode"}, {"operator", "In"}, {"values", {mode}}});
    }
    // Pod CREATEs go to both configurations, or, with validatePods, to the mutating one alone.
    if (!parsed.update)
      CHECK(Covers(w.at("rules"), "", "pods", "CREATE") == !(validating && set.validate_pods));
    // With selfRegister the webhook sets the CA itself, from the TLS Secret.
    CHECK(At(w, "/clientConfig/caBundle").is_string() == (!set.self_register && !set.cert_manager));
    if (!validating) CHECK(w.at("reinvocationPolicy") == (mode == "deny" ? "IfNeeded" : "Never"));
  }
  bool injected = At(config, "/metadata/annotations").contains("cert-manager.io/inject-ca-from");
  CHECK(injected == (set.cert_manager && !set.self_register));
}

void CheckWebhookConfigurations(const Rendered& r, const ValueSet& set) {
  std::vector<json> configs = Configurations(r);
  REQUIRE(configs.size() == 2);
  CHECK(At(configs[0], "/kind") == "ValidatingWebhookConfiguration");
  CHECK(At(configs[1], "/kind") == "MutatingWebhookConfiguration");
  CheckWebhooks(r, set, configs[0], "validate");
  CheckWebhooks(r, set, configs[1], "mutate");
  // What helm itself creates: empty configurations the webhook fills in, or
  // the whole ones.
  for (const json& config : configs) {
    const json* rendered = FindObject(r, Str(At(config, "/kind")), Str(At(config, "/metadata/name")));
    REQUIRE(rendered != nullptr);
    if (set.self_register) {
      CHECK(At(*rendered, "/webhooks") == json::array());
      CHECK(At(*rendered, "/metadata/labels") == At(config, "/metadata/labels"));
    } else {
      CHECK(*rendered == config);
    }
  }
  const json rules = RulesOf(configs[0], "deny");
  for (const auto& [group, resource] : std::vector<std::pair<std::string, std::string>>{
           {"apps", "deployments"}, {"apps", "replicasets"}, {"apps", "statefulsets"},
           {"apps", "daemonsets"}, {"batch", "jobs"}, {"batch", "cronjobs"},
           {"", "replicationcontrollers"}, {"", "podtemplates"}}) {
    INFO(group << "/" << resource);
    CHECK(Covers(rules, group, resource, "CREATE"));
    CHECK(Covers(rules, group, resource, "UPDATE"));
  }
  // An in-place resize is validated on the pod's node; a pod's other updates
  // (a label, a finalizer) and its other subresources are not sent.
  CHECK(Covers(rules, "", "pods/resize", "UPDATE"));
  CHECK_FALSE(Covers(rules, "", "pods", "UPDATE"));
  // DRA claims and their templates, whose spec cannot change, on CREATE.
  for (const char* resource : {"resourceclaims", "resourceclaimtemplates"}) {
    INFO(resource);
    CHECK(Covers(rules, "resource.k8s.io", resource, "CREATE"));
    CHECK_FALSE(Covers(At(configs[1], "/webhooks/0/rules"), "resource.k8s.io", resource, "CREATE"));
  }
  CHECK_FALSE(Covers(rules, "", "pods/status", "UPDATE"));
  CHECK_FALSE(Covers(RulesOf(configs[1], "deny"), "", "pods/resize", "UPDATE"));
}

// With selfRegister the webhook reads the configurations from their
// ConfigMap and their CA from the TLS Secret's ca.crt.
void CheckRegistration(const Rendered& r, const ValueSet& set, const json& deployment) {
  const json& pod = At(deployment, "/spec/template/spec");
  const json& c = WebhookContainer(deployment);
  std::string file = Flag(c, "--register"), ca = Flag(c, "--ca-bundle");
  CHECK(file.empty() == !set.self_register);
  CHECK(ca.empty() == !set.self_register);
  if (!set.self_register) return;
  CHECK(At(VolumeFor(pod, c, ca), "/secret/secretName") == std::string(kRelease) + "-tls");
  CHECK(ca.substr(ca.rfind('/')) == "/ca.crt");
  CHECK(At(VolumeFor(pod, c, file), "/configMap/name") == std::string(kRelease) + "-webhooks");
  CHECK(file.substr(file.rfind('/')) == "/webhooks.yaml");
  CHECK(At(pod, "/automountServiceAccountToken") == true);
}

// Whether a namespace with `labels` matches `selector` (matchExpressions), as
// the API server decides.
bool Matches(const json& selector, const json& labels) {
  for (const json& e : At(selector, "/matchExpressions")) {
    std::string key = e.at("key"), op = e.at("operator");
    bool has = labels.contains(key);
    bool in = has && Contains(e.value("values", json::array()), labels.at(key));
    if ((op == "In" && !in) || (op == "NotIn" && in) || (op == "Exists" && !has) ||
        (op == "DoesNotExist" && has))
      return false;
  }
  return true;
}

void CheckRbacAndNetwork(const Rendered& r, const ValueSet& set, const json& deployment) {
  const json& pod_labels = At(deployment, "/spec/template/metadata/labels");
  std::vector<const json*> roles = FindObjects(r, "ClusterRole");
  REQUIRE(roles.size() == 1);
  // Every value set keeps vram.enabled on: the VRAM advertiser patches one
  // key of a node's status, and nothing else is written.
  json rules = json::parse(R"([{"apiGroups": [""], "resources": ["nodes"],
                                "verbs": ["get", "list", "watch"]},
                               {"apiGroups": ["resource.k8s.io"],
                                "resources": ["deviceclasses", "resourceslices"],
                                "verbs": ["get", "list", "watch"]},
                               {"apiGroups": [""], "resources": ["nodes/status"],
                                "verbs": ["patch"]}])");
  // With selfRegister, its own two configurations, by name; never create.
  if (set.self_register)
    rules.push_back(json::parse(R"({"apiGroups": ["admissionregistration.k8s.io"],
        "resources": ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
        "resourceNames": ["gpulint-webhook"], "verbs": ["get", "patch"]})"));
  CHECK(At(*roles[0], "/rules") == rules);
  CHECK(FindObjects(r, "Role").empty());
  const json* binding = FindObject(r, "ClusterRoleBinding");
  REQUIRE(binding != nullptr);
  CHECK(At(*binding, "/roleRef/name") == At(*roles[0], "/metadata/name"));
  CHECK(At(*binding, "/subjects/0/name") == At(deployment, "/spec/template/spec/serviceAccountName"));

  const json* pdb = FindObject(r, "PodDisruptionBudget");
  REQUIRE(pdb != nullptr);
  CHECK(Selects(At(*pdb, "/spec/selector/matchLabels"), pod_labels));
  CHECK(At(*pdb, "/spec/maxUnavailable") == 1);

  const json* policy = FindObject(r, "NetworkPolicy");
  REQUIRE(policy != nullptr);
  CHECK(Selects(At(*policy, "/spec/podSelector/matchLabels"), pod_labels));
  CHECK(At(*policy, "/spec/policyTypes") == json{"Ingress"});
  for (const json& rule : At(*policy, "/spec/ingress")) {
    CHECK(rule.at("ports") == json::parse(R"([{"port": "https", "protocol": "TCP"}])"));
    CHECK(!At(rule, "/from").empty());  // no peers would mean every source
  }
}

TEST_CASE("helm lint --strict passes with every value set", "[chart]") {
  for (const ValueSet& set : ValueSets()) {
    INFO(set.name);
    Output lint = Lint(set.args, set.ns);
    INFO(lint.out << lint.err);
    CHECK(lint.status == 0);
    CHECK(lint.out.find("1 chart(s) linted, 0 chart(s) failed") != std::string::npos);
  }
}

TEST_CASE("every value set renders a hardened webhook that spares kube-system and itself",
          "[chart]") {
  for (const ValueSet& set : ValueSets()) {
    INFO(set.name);
    Rendered r = Render(set.args, set.ns);
    INFO(r.helm.err);
    REQUIRE(r.helm.status == 0);
    REQUIRE(r.errors.empty());
    const json* deployment = FindObject(r, "Deployment", kRelease);
    REQUIRE(deployment != nullptr);
    for (const json& object : r.objects) {
      bool cluster_scoped = object.at("kind").get<std::string>().rfind("Cluster", 0) == 0 ||
                            object.at("kind").get<std::string>().find("WebhookConfiguration") !=
                                std::string::npos;
      INFO(object.at("kind"));
      CHECK(At(object, "/metadata/namespace") == (cluster_scoped ? json() : json(set.ns)));
    }
    CheckHardenedPod(*deployment);
    CheckProbesAndShutdown(*deployment);
    CheckMounts(r, *deployment);
    CheckWebhookConfigurations(r, set);
    CheckRegistration(r, set, *deployment);
    CheckRbacAndNetwork(r, set, *deployment);
  }
}

TEST_CASE("a namespace's mode label sends it to exactly one webhook of each configuration",
          "[chart][mode]") {
  for (const ValueSet& set : ValueSets()) {
    INFO(set.name);
    Rendered r = Render(set.args, set.ns);
    REQUIRE(r.helm.status == 0);
    struct Case {
      json labels;
      std::string mode;  // the webhook it reaches
    };
    for (const Case& c : std::vector<Case>{
             {json::object(), set.mode},
             {{{"gpulint.io/mode", "audit"}}, "audit"},
             {{{"gpulint.io/mode", "warn"}}, "warn"},
             {{{"gpulint.io/mode", "deny"}}, "deny"},
             {{{"gpulint.io/mode", "enforce"}}, set.mode},  // not a mode: the cluster's
         }) {
      json labels = c.labels;
      labels["kubernetes.io/metadata.name"] = "team-a";
      INFO(labels.dump());
      for (const json& config : Configurations(r)) {
        // Each operation on a resource reaches one webhook, of the label's mode.
        std::map<std::string, int> reached;
        for (const json& w : At(config, "/webhooks")) {
          if (!Matches(At(w, "/namespaceSelector"), labels)) continue;
          CHECK(At(w, "/clientConfig/service/path") ==
                "/" + EndpointOf(config, set) + "/" + c.mode);
          for (const json& rule : At(w, "/rules"))
            for (const json& group : At(rule, "/apiGroups"))
              for (const json& resource : At(rule, "/resources"))
                for (const json& op : At(rule, "/operations"))
                  ++reached[Str(group) + "/" + Str(resource) + " " + Str(op)];
        }
        CHECK_FALSE(reached.empty());
        for (const auto& [what, webhooks] : reached) {
          INFO(what);
          CHECK(webhooks == 1);
        }
      }
    }
    // kube-system and the release's namespace reach none, labelled or not.
    for (const std::string& ns : {std::string("kube-system"), set.ns}) {
      json labels = {{"kubernetes.io/metadata.name", ns}, {"gpulint.io/mode", "deny"}};
      for (const json& config : Configurations(r))
        for (const json& w : At(config, "/webhooks"))
          CHECK_FALSE(Matches(At(w, "/namespaceSelector"), labels));
    }
  }
}

}  // namespace
}  // namespace gpulint::chart_test
