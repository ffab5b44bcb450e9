// The audit without a cluster: objects in, a report out.
#include "lint/cli/audit.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/policies.h"
#include "engine/policy/policy_test_support.h"
#include "engine/yaml/loader.h"
#include "lint/cli/audit_output.h"
#include "lint/cli/audit_policy_report.h"

namespace gpulint {
namespace {

Value Yaml(const std::string& text) {
  Value root;
  Error error;
  bool got = false;
  LoadYamlString(
      text, "test.yaml", LoadLimits{},
      [&](Document&& doc) {
        REQUIRE(doc.ok);
        root = std::move(doc.root);
        got = true;
        return false;
      },
      &error);
  REQUIRE(got);
  return root;
}

// A node with `memory` allocatable and `gpus` GPUs (V100, 32 GiB each), and
// `extra` labels (YAML flow pairs).
Value Node(const std::string& name, const std::string& memory, int gpus,
           const std::string& extra_labels = "", const std::string& extra_allocatable = "") {
  std::string labels = "kubernetes.io/hostname: " + name;
  std::string allocatable = "cpu: '48', memory: " + memory + ", pods: '110'";
  if (gpus > 0) {
    labels += ", nvidia.com/gpu.product: Tesla-V100-SXM2-32GB, nvidia.com/gpu.count: '" +
              std::to_string(gpus) + "', nvidia.com/gpu.memory: '32768'";
    allocatable += ", nvidia.com/gpu: '" + std::to_string(gpus) + "'";
  }
  if (!extra_labels.empty()) labels += ", " + extra_labels;
  if (!extra_allocatable.empty()) allocatable += ", " + extra_allocatable;
  return Yaml("apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: {" + labels +
              "}}\nstatus: {allocatable: {" + allocatable + "}}\n");
}

// A pod in namespace ml with `spec` (YAML, indented two spaces), `owner` an
// ownerReferences entry (flow YAML) or "".
Value Pod(const std::string& name, const std::string& owner, const std::string& spec,
          const std::string& phase = "Running") {
  std::string meta = "metadata:\n  name: " + name + "\n  namespace: ml\n  uid: uid-" + name + "\n";
  if (!owner.empty()) meta += "  ownerReferences: [" + owner + "]\n";
  return Yaml("apiVersion: v1\nkind: Pod\n" + meta + "spec:\n" + spec + "status: {phase: " + phase +
              "}\n");
}

std::string Controller(const std::string& api_version, const std::string& kind,
                       const std::string& name) {
  return "{apiVersion: " + api_version + ", kind: " + kind + ", name: " + name + ", uid: uid-" +
         name + ", controller: true}";
}

// A container "main" with `resources` (flow YAML).
std::string Containers(const std::string& resources, const std::string& node = "") {
  std::string out;
  if (!node.empty()) out += "  nodeName: " + node + "\n";
  return out + "  containers:\n  - name: main\n    image: app\n    resources: " + resources + "\n";
}

// The node called `name` of a report, which holds it.
const NodeReport& NodeNamed(const AuditReport& report, const std::string& name) {
  for (const NodeReport& node : report.nodes)
    if (node.node.name == name) return node;
  FAIL("no node " << name);
  return report.nodes.front();
}

const Finding* FindRule(const std::vector<Finding>& findings, const std::string& rule) {
  for (const Finding& f : findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

TEST_CASE("audit: pods are reported once, under the Deployment that owns their ReplicaSet",
          "[audit]") {
  ClusterAudit audit(DefaultPolicy());
  audit.AddNode(Node("gpu-1", "503Gi", 4), "api-server");
  // A GPU container with no memory limit: memory-limit-missing, for the
  // template and for each pod alike.
  std::string resources = "{limits: {nvidia.com/gpu: 1}, requests: {memory: 8Gi}}";
  std::string tmpl =
      "spec:\n  template:\n    spec:\n      containers: [{name: main, image: app, "
      "resources: " +
      resources + "}]\n";
  audit.AddWorkload(
      Yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: train, "
           "namespace: ml, uid: uid-train}\n" +
           tmpl));
  audit.AddWorkload(
      Yaml("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: train-5d8f\n"
           "  namespace: ml\n  uid: uid-train-5d8f\n  ownerReferences: [" +
           Controller("apps/v1", "Deployment", "train") + "]\n" + tmpl));
  for (const char* name : {"train-5d8f-a", "train-5d8f-b"})
    audit.AddPod(Pod(name, Controller("apps/v1", "ReplicaSet", "train-5d8f"),
                     Containers(resources, "gpu-1")));
  AuditReport report = audit.Finish();
  REQUIRE(report.workloads.size() == 1);
  const WorkloadReport& w = report.workloads[0];
  CHECK(w.object.kind == "Deployment");
  CHECK(w.object.name == "train");
  CHECK(w.pods == 2);
  CHECK(w.owned == 3);  // the ReplicaSet and its two pods
  CHECK(FindRule(w.next_pod.findings, "memory-limit-missing"));
  CHECK(w.running.empty());  // the pods say what the template says
  CHECK(report.workloads_judged == 1);
  CHECK(report.objects == 2);
  CHECK(report.pods == 2);
}

TEST_CASE("audit: a bound pod is judged on its own node, its next pod on every node", "[audit]") {
  ClusterAudit audit(DefaultPolicy());
  audit.AddNode(Node("small", "16Gi", 0), "api-server");
  audit.AddNode(Node("big", "256Gi", 0), "api-server");
  std::string resources = "{requests: {memory: 100Gi}, limits: {memory: 100Gi}}";
  audit.AddWorkload(Yaml(
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: etl, namespace: ml, uid: uid-etl}\n"
      "spec:\n  template:\n    spec:\n      containers: [{name: main, image: app, resources: " +
      resources + "}]\n"));
  // Bound to the small node by hand (spec.nodeName set at creation).
  audit.AddPod(Pod("etl-x", Controller("batch/v1", "Job", "etl"), Containers(resources, "small")));
  AuditReport report = audit.Finish();
  REQUIRE(report.workloads.size() == 1);
  const WorkloadReport& w = report.workloads[0];
  CHECK(FindRule(w.next_pod.findings, "exceeds-allocatable") == nullptr);  // fits on "big"
  REQUIRE(w.running.size() == 1);
  CHECK(w.running[0].finding.rule == "exceeds-allocatable");
  CHECK(w.running[0].pod == "etl-x");
  CHECK(w.running[0].node == "small");
  CHECK(w.running[0].finding.message.find("the pod fits on none of its 1 candidate node: 1 "
                                          "insufficient memory: node \"small\"") == 0);
}

TEST_CASE("audit: a pod of its own is a workload, finished pods are left out", "[audit]") {
  ClusterAudit audit(DefaultPolicy());
  audit.AddNode(Node("gpu-1", "503Gi", 4), "api-server");
  std::string gpu = "{limits: {nvidia.com/gpu: 1}}";
  audit.AddPod(Pod("notebook", "", Containers(gpu, "gpu-1")));
  audit.AddPod(Pod("done", "", Containers(gpu, "gpu-1"), "Succeeded"));
  audit.AddPod(Pod("waiting", "", Containers("{limits: {memory: 1Gi}}")));
  // Owned by a kind nobody listed: it stands on its own.
  audit.AddPod(Pod("rollout-1", Controller("argoproj.io/v1alpha1", "Rollout", "web"),
                   Containers(gpu, "gpu-1")));
  AuditReport report = audit.Finish();
  CHECK(report.pods == 3);
  CHECK(report.pods_pending == 1);
  CHECK(report.workloads_judged == 3);
  std::vector<std::string> names;
  for (const WorkloadReport& w : report.workloads) {
    CHECK(w.bare_pod);
    names.push_back(w.object.name);
  }
  CHECK(names == std::vector<std::string>{"notebook", "rollout-1", "waiting"});
  // "waiting" breaks no rule; /mutate would hide the GPUs of the node it may
  // land on from it.
  const NextPod& waiting = report.workloads[2].next_pod;
  CHECK(waiting.findings.empty());
  CHECK(waiting.changes ==
        std::vector<std::string>{
            "container \"main\": NVIDIA_VISIBLE_DEVICES=void (it asks for no GPU)"});
  CHECK(waiting.patch.find("NVIDIA_VISIBLE_DEVICES") != std::string::npos);
  CHECK(std::string(VerdictName(waiting.deny)) + VerdictName(waiting.warn) == "allowwarn");
  CHECK(report.nodes[0].usage.pods == 2);
}

TEST_CASE("audit: what each webhook mode would do to the next pod", "[audit]") {
  Finding error, warning;
  error.severity = Severity::kError;
  warning.severity = Severity::kWarning;
  auto verdicts = [](std::vector<Finding> findings, std::vector<std::string> changes) {
    NextPod next;
    next.findings = std::move(findings);
    next.changes = std::move(changes);
    SetVerdicts(&next);
    return std::string(VerdictName(next.deny)) + " " + VerdictName(next.warn) + " " +
           VerdictName(next.audit);
  };
  CHECK(verdicts({error, warning}, {}) == "deny warn allow");
  CHECK(verdicts({warning}, {}) == "warn warn allow");
  CHECK(verdicts({}, {"container \"main\": memory +4Gi"}) == "allow warn allow");
  CHECK(verdicts({}, {}) == "allow allow allow");
}

// One pod bound to `node`, with `spec_tail` after its containers.
NodeUsage UsageOf(const std::string& spec) {
  ClusterAudit audit(DefaultPolicy());
  audit.AddNode(Node("node-1", "64Gi", 0), "api-server");
  audit.AddPod(Pod("p", "", "  nodeName: node-1\n" + spec));
  for (const Error& e : audit.node_errors()) FAIL(e.ToString());
  return audit.Finish().nodes.at(0).usage;
}

std::string Memory(const ResourceList& list) {
  auto it = list.find("memory");
  return it == list.end() ? "none" : it->second.Canonical();
}

TEST_CASE("audit: a node's sums count as the scheduler counts", "[audit][node-sums]") {
  struct Case {
    const char* what;
    const char* spec;
    const char* requests;
    const char* limits;
    size_t unbounded;  // pods with no memory limit
  } cases[] = {
      {"init containers: the largest of them, or the app containers' sum",
       "  initContainers:\n"
       "  - {name: fetch, image: a, resources: {requests: {memory: 6Gi}, limits: {memory: 6Gi}}}\n"
       "  containers:\n"
       "  - {name: a, image: a, resources: {requests: {memory: 2Gi}, limits: {memory: 3Gi}}}\n"
       "  - {name: b, image: a, resources: {requests: {memory: 1Gi}, limits: {memory: 1Gi}}}\n",
       "6Gi", "6Gi", 0},
      // fetch 4Gi + proxy 1Gi, more than a 2Gi + proxy 1Gi
      {"native sidecars run beside the init containers started after them",
       "  initContainers:\n"
       "  - {name: proxy, image: a, restartPolicy: Always, resources: {requests: {memory: 1Gi}}}\n"
       "  - {name: fetch, image: a, resources: {requests: {memory: 4Gi}}}\n"
       "  containers:\n"
       "  - {name: a, image: a, resources: {requests: {memory: 2Gi}}}\n",
       "5Gi", "none", 1},
      {"pod overhead is added to requests, and to limits that are set",
       "  overhead: {memory: 512Mi}\n"
       "  containers:\n"
       "  - {name: a, image: a, resources: {requests: {memory: 2Gi}, limits: {memory: 4Gi}}}\n",
       "2560Mi", "4608Mi", 0},
      // The pod-level limit bounds the container that sets none.
      {"pod-level resources replace the containers' sum",
       "  resources: {requests: {memory: 10Gi}, limits: {memory: 12Gi}}\n"
       "  containers:\n"
       "  - {name: a, image: a, resources: {requests: {memory: 2Gi}}}\n"
       "  - {name: b, image: a}\n",
       "10Gi", "12Gi", 0},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    NodeUsage u = UsageOf(c.spec);
    CHECK(Memory(u.requests) == c.requests);
    CHECK(Memory(u.limits) == c.limits);
    CHECK(u.pods_without_memory_limit == c.unbounded);
  }
}

TEST_CASE("audit: the V100 node of incident 1, requests at 99% of allocatable",
          "[audit][node-sums][incident]") {
  ClusterAudit audit(DefaultPolicy());
  // MemTotal 527787256 kB; kubelet reserves nothing, as there.
  audit.AddNode(Node("v100-1", "527787256Ki", 4), "api-server");
  // The node's pods in any order and unit: the sum is in binary units.
  audit.AddPod(Pod("flannel", "",
                   Containers("{requests: {memory: 64M}, limits: {memory: 500M}}", "v100-1")));
  audit.AddPod(Pod("job", "",
                   Containers("{requests: {memory: 500Gi, nvidia.com/gpu: 4}, limits: {memory: "
                              "500Gi, nvidia.com/gpu: 4}}",
                              "v100-1")));
  audit.AddPod(Pod("fluentd", "",
                   Containers("{requests: {memory: 1000Mi}, limits: {memory: 1000Mi}}", "v100-1")));
  AuditReport report = audit.Finish();
  const NodeReport& node = report.nodes.at(0);
  CHECK(node.usage.pods == 3);
  const Finding* requests = FindRule(node.findings, "node-memory-requests");
  REQUIRE(requests);
  CHECK(requests->severity == Severity::kError);
  CHECK(requests->object.kind == "Node");
  CHECK(requests->object.name == "v100-1");
  CHECK(requests->message ==
        "memory requests of its 3 pods 525374500Ki (537983488000 B = 538 GB = 501 GiB), 99% of "
        "allocatable, > allocatable 527787256Ki (540454150144 B = 540.5 GB = 503.3 GiB) - "
        "reserved 31317674804 B = 31.3 GB = 29.2 GiB [5% of allocatable + 4 GPUs × 1Gi] = "
        "509136475340 B = 509.1 GB = 474.2 GiB: 28847012660 B = 28.8 GB = 26.9 GiB over");
  const Finding* limits = FindRule(node.findings, "node-memory-limits");
  REQUIRE(limits);
  CHECK(limits->severity == Severity::kWarning);
}

// On a Grace Hopper (unified memory) the VRAM the pods declare is the node's
// memory too; on a discrete GPU it is the card's.
TEST_CASE("audit: a unified-memory node sums its pods' GPU memory with their memory",
          "[audit][node-sums]") {
  ClusterAudit audit(DefaultPolicy());
  const std::string gh200 =
      "nvidia.com/gpu.product: NVIDIA-GH200-480GB, nvidia.com/gpu.count: '1', "
      "nvidia.com/gpu.memory: '97871'";
  audit.AddNode(Node("gh200-0", "450Gi", 0, gh200, "nvidia.com/gpu: '1'"), "api-server");
  audit.AddNode(Node("v100-0", "450Gi", 1), "api-server");
  // 400Gi of memory and 64Gi of VRAM (with its context, as the mutation
  // writes it: 64915Mi declared) on each.
  for (const char* node : {"gh200-0", "v100-0"})
    audit.AddPod(Pod(std::string("train-") + node, "",
                     Containers("{requests: {memory: 400Gi}, limits: {memory: 400Gi, "
                                "nvidia.com/gpu: 1, gpulint.io/vram: 65536Mi}}",
                                node)));
  AuditReport report = audit.Finish();
  REQUIRE(report.nodes.size() == 2);
  const NodeReport& unified = NodeNamed(report, "gh200-0");
  const NodeReport& discrete = NodeNamed(report, "v100-0");
  CHECK(unified.usage.gpu_memory == policy_testing::Q("64915Mi"));
  CHECK(discrete.usage.gpu_memory.is_zero());
  const Finding* requests = FindRule(unified.findings, "node-memory-requests");
  REQUIRE(requests);
  CHECK(requests->message ==
        "memory requests of its 1 pod 400Gi (429496729600 B = 429.5 GB = 400 GiB) and 64915Mi "
        "(68068311040 B = 68.1 GB = 63.4 GiB) of GPU memory they declare (on this unified-memory "
        "GPU the node's memory, which no cgroup counts), 102% of allocatable, > allocatable 450Gi "
        "(483183820800 B = 483.2 GB = 450 GiB) - reserved 25232932864 B = 25.2 GB = 23.5 GiB [5% "
        "of allocatable + 1 GPU × 1Gi] = 457950887936 B = 458 GB = 426.5 GiB: 39614152704 B = "
        "39.6 GB = 36.9 GiB over");
  CHECK(FindRule(discrete.findings, "node-memory-requests") == nullptr);
}

TEST_CASE("audit: a GPU node's VRAM not advertised, shared GPUs over-committed",
          "[audit][node-sums]") {
  ClusterAudit audit(DefaultPolicy());
  audit.AddNode(Node("v100-plain", "256Gi", 2), "api-server");
  audit.AddNode(Node("t4-shared", "64Gi", 1,
                     "nvidia.com/gpu.replicas: '4', nvidia.com/gpu.sharing-strategy: time-slicing",
                     "gpulint.io/vram: 32Gi"),
                "api-server");
  // Two replicas, each declaring 20Gi: 40Gi on a 32 GiB card.
  for (const char* name : {"a", "b"})
    audit.AddPod(Pod(name, "",
                     "  nodeName: t4-shared\n  containers:\n  - name: main\n    image: app\n"
                     "    resources: {limits: {nvidia.com/gpu: 1, gpulint.io/vram: 20Gi, memory: "
                     "4Gi}}\n"));
  AuditReport report = audit.Finish();
  REQUIRE(report.nodes.size() == 2);
  const NodeReport& shared = NodeNamed(report, "t4-shared");
  const NodeReport& plain = NodeNamed(report, "v100-plain");
  const Finding* advertised = FindRule(plain.findings, "node-vram-not-advertised");
  REQUIRE(advertised);
  CHECK(advertised->message ==
        "its 2 GPUs (Tesla-V100-SXM2-32GB) hold 67427631104 B = 67.4 GB = 62.8 GiB of VRAM for "
        "pods, and it does not advertise gpulint.io/vram while the policy's VRAM mutation is on: "
        "VRAM is not scheduled on it");
  CHECK(FindRule(shared.findings, "node-vram-not-advertised") == nullptr);
  const Finding* sharing = FindRule(shared.findings, "node-gpu-sharing");
  REQUIRE(sharing);
  CHECK(sharing->message ==
        "its pods declare 42949672960 B = 42.9 GB = 40 GiB of VRAM (a replica's share where they "
        "declare none) on GPUs shared by time-slicing that hold 33713815552 B = 33.7 GB = 31.4 GiB: "
        "9235857408 B = 9.2 GB = 8.6 GiB over");
  CHECK(shared.usage.gpu_replicas == 2);
}

TEST_CASE("audit text: every size in both unit systems, never a bare number of bytes",
          "[audit]") {
  ClusterAudit audit(DefaultPolicy());
  // A GPU cut into 10 time-sliced replicas: one replica brings a tenth of the
  // policy's 1Gi of driver headroom, 107374182.4 bytes, rounded up.
  audit.AddNode(Node("t4-shared", "64Gi", 1,
                     "nvidia.com/gpu.replicas: '10', nvidia.com/gpu.sharing-strategy: time-slicing"),
                "api-server");
  audit.AddPod(Pod("infer", "",
                   "  nodeName: t4-shared\n  containers:\n  - name: main\n    image: app\n"
                   "    resources: {limits: {nvidia.com/gpu: 1, memory: 60Gi}}\n"));
  AuditReport report = audit.Finish();
  ClusterRead read;
  AuditContext context{"https://127.0.0.1:6443", "kubeconfig test", "built-in", &DefaultPolicy(),
                       "", ""};
  std::ostringstream out;
  WriteAudit("text", report, read, context, false, out);
  std::string text = out.str();
  INFO(text);
  CHECK(text.find("would change: container \"main\": memory +107374183 B = 107.4 MB = 102.4 MiB "
                  "(headroom for the GPU driver)") != std::string::npos);
  CHECK(text.find("requests memory 60Gi = 64.4 GB = 60 GiB, nvidia.com/gpu 1") !=
        std::string::npos);
  // No size is a bare number: a figure of six or more digits is followed by
  // a unit ("B"), or is a quantity with its suffix.
  CHECK_FALSE(std::regex_search(text, std::regex(R"([0-9]{6,}(?![0-9]| B|[KMGTPE]i?\b))")));
}

// A node at 99% of its memory, its pods in two namespaces: ml's Deployment
// with gpu-limit-missing, a bare pod in ops that sees every GPU.
AuditReport TwoNamespaces(bool sum_nodes) {
  ClusterAudit audit(DefaultPolicy(), sum_nodes);
  audit.AddNode(Node("gpu-1", "64Gi", 4), "api-server");
  audit.AddWorkload(
      Yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: train, namespace: ml, uid: "
           "uid-train}\nspec:\n  template:\n    spec:\n      containers: [{name: main, image: "
           "nvcr.io/nvidia/pytorch:24.05-py3, resources: {limits: {memory: 60Gi}}}]\n"));
  audit.AddPod(Pod("train-a", Controller("apps/v1", "Deployment", "train"),
                   Containers("{limits: {memory: 60Gi}}", "gpu-1")));
  audit.AddPod(Yaml(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: agent, namespace: ops, uid: uid-agent}\n"
      "spec:\n  nodeName: gpu-1\n  containers:\n  - name: main\n    image: app\n"
      "    env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]\n"
      "    resources: {limits: {memory: 1Gi}}\nstatus: {phase: Running}\n"));
  return audit.Finish();
}

TEST_CASE("audit of one namespace: no node's sums, which need every namespace's pods",
          "[audit]") {
  AuditReport all = TwoNamespaces(true);
  REQUIRE(all.nodes.size() == 1);
  CHECK(FindRule(all.nodes[0].findings, "node-memory-requests"));
  AuditReport one = TwoNamespaces(false);
  CHECK_FALSE(one.nodes_summed);
  REQUIRE(one.nodes.size() == 1);
  CHECK(one.nodes[0].findings.empty());
  CHECK(one.nodes[0].usage.pods == 0);
  ClusterRead read;
  AuditContext context{"https://127.0.0.1:6443", "kubeconfig test", "built-in", &DefaultPolicy(),
                       "ml", ""};
  std::ostringstream text;
  WriteAudit("text", one, read, context, false, text);
  CHECK(text.str().find("; namespace ml; policy: built-in\n") != std::string::npos);
  CHECK(text.str().find("\nNodes at risk: not checked (an audit of namespace ml sees its own pods "
                        "only, and a node's sums need them all; without -n every node is "
                        "checked)\n") != std::string::npos);
  std::ostringstream json_out;
  WriteAudit("json", one, read, context, false, json_out);
  nlohmann::json doc = nlohmann::json::parse(json_out.str());
  CHECK(doc["namespace"] == "ml");
  CHECK(doc["summary"]["nodesSummed"] == false);
}

TEST_CASE("audit SARIF: every result on the stated file, each with an identity of its own",
          "[audit][sarif]") {
  AuditReport report = TwoNamespaces(true);
  ClusterRead read;
  AuditContext context{"https://127.0.0.1:6443", "kubeconfig test", "built-in", &DefaultPolicy(),
                       "", "deploy/prod.yaml"};
  std::ostringstream out;
  WriteAudit("sarif", report, read, context, false, out);
  nlohmann::json log = nlohmann::json::parse(out.str());
  const nlohmann::json& results = log["runs"][0]["results"];
  REQUIRE(results.size() >= 3);  // the node's, the Deployment's, the agent's
  std::set<std::string> hashes;
  for (const nlohmann::json& r : results) {
    INFO(r.dump());
    const nlohmann::json& physical = r["locations"][0]["physicalLocation"];
    CHECK(physical["artifactLocation"]["uri"] == "deploy/prod.yaml");
    CHECK(physical["region"]["startLine"] == 1);
    CHECK(r["locations"][0]["logicalLocations"][0]["kind"] == "resource");
    hashes.insert(r["partialFingerprints"]["primaryLocationLineHash"].get<std::string>());
  }
  CHECK(hashes.size() == results.size());
}

TEST_CASE("OpenReports hold the PolicyReports' results, in their own API", "[audit]") {
  AuditReport report = TwoNamespaces(true);
  std::vector<PolicyReportObject> wg = PolicyReports(report, 1700000000, {&kWgPolicyReports, ""});
  std::vector<PolicyReportObject> open = PolicyReports(report, 1700000000, {&kOpenReports, ""});
  REQUIRE(wg.size() == 3);  // ml, ops, the cluster-wide one last
  REQUIRE(open.size() == wg.size());
  for (size_t i = 0; i < wg.size(); ++i) {
    nlohmann::json a = nlohmann::json::parse(wg[i].json), b = nlohmann::json::parse(open[i].json);
    INFO(b.dump());
    CHECK(a["apiVersion"] == "wgpolicyk8s.io/v1alpha2");
    CHECK(b["apiVersion"] == "openreports.io/v1alpha1");
    CHECK(b["kind"] == (wg[i].namespace_name.empty() ? "ClusterReport" : "Report"));
    CHECK(a["kind"] == (wg[i].namespace_name.empty() ? "ClusterPolicyReport" : "PolicyReport"));
    CHECK(b["source"] == "gpulint");
    CHECK_FALSE(a.contains("source"));
    CHECK(a["metadata"] == b["metadata"]);
    CHECK(a["summary"] == b["summary"]);
    CHECK(a["results"] == b["results"]);
    CHECK_FALSE(b["results"].empty());
  }
  CHECK(open.back().namespace_name.empty());
  // One namespace's audit writes that namespace's report alone.
  std::vector<PolicyReportObject> ml = PolicyReports(report, 1700000000, {&kOpenReports, "ml"});
  REQUIRE(ml.size() == 1);
  CHECK(ml[0].namespace_name == "ml");
  CHECK(FindReportApi("openreports") == &kOpenReports);
  CHECK(FindReportApi("kyverno") == nullptr);
}

}  // namespace
}  // namespace gpulint
