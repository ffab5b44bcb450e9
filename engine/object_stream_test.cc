// The one loop from a document to judged objects: what check, fix and the
// goldens share (engine/object_stream.h).
#include "engine/object_stream.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"

namespace gpulint {
namespace {

// A pod asking for half a GPU (gpu-fractional), owned by `owner` when given.
std::string HalfGpuPod(const std::string& name, const std::string& owner_uid) {
  std::string owner =
      owner_uid.empty() ? "" : ", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, "
                               "name: rs, uid: " + owner_uid + ", controller: true}]";
  return "{apiVersion: v1, kind: Pod, metadata: {name: " + name + ", namespace: n, uid: p-" + name +
         owner + "}, spec: {containers: [{name: c, image: busybox, resources: {limits: "
         "{nvidia.com/gpu: 0.5, memory: 1Gi}}}]}}";
}

struct Seen {
  std::string pointer, shown;
  bool kubernetes, under_owner;
  size_t findings;
};

std::vector<Seen> JudgeAll(ObjectStream& stream, const std::string& yaml) {
  Value doc = mutate_testing::Yaml(yaml);
  std::vector<Seen> seen;
  stream.Judge(doc, "f.yaml", [&](JudgedObject& j) {
    seen.push_back({j.pointer, j.shown, j.kubernetes, j.under_owner, j.findings.size()});
    for (const Finding& f : j.findings) CHECK(f.file == "f.yaml");
  });
  return seen;
}

TEST_CASE("the stream folds a List's owned objects under their owner, judges the rest",
          "[engine][stream]") {
  const Policy& policy = DefaultPolicy();
  Inventory inventory = BuildInventory(policy, {});
  ObjectStream stream(policy, inventory);
  std::vector<Seen> seen = JudgeAll(
      stream,
      "{apiVersion: v1, kind: List, items: ["
      "{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs, namespace: n, uid: u-rs}, "
      "spec: {template: {spec: {containers: [{name: c, image: busybox, resources: {limits: "
      "{nvidia.com/gpu: 0.5, memory: 1Gi}}}]}}}}, " +
          HalfGpuPod("owned", "u-rs") + ", 7, " + HalfGpuPod("bare", "") + "]}");
  // The scalar item is skipped; the pod the ReplicaSet owns is folded.
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].pointer == "/items/0");
  CHECK(seen[0].shown == "items[0]");
  CHECK_FALSE(seen[0].under_owner);
  CHECK(seen[0].findings > 0);
  CHECK(seen[1].pointer == "/items/1");
  CHECK(seen[1].under_owner);
  CHECK(seen[1].findings == 0);
  CHECK(seen[2].pointer == "/items/3");
  CHECK_FALSE(seen[2].under_owner);
  CHECK(seen[2].findings == seen[0].findings);
}

TEST_CASE("the stream judges a lone document at its root, owner references or not",
          "[engine][stream]") {
  const Policy& policy = DefaultPolicy();
  Inventory inventory = BuildInventory(policy, {});
  ObjectStream stream(policy, inventory);
  // A document of one object has no owner beside it: judged, not folded.
  std::vector<Seen> seen = JudgeAll(stream, HalfGpuPod("p", "u-rs"));
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].pointer.empty());
  CHECK(seen[0].shown.empty());
  CHECK_FALSE(seen[0].under_owner);
  CHECK(seen[0].findings > 0);
}

TEST_CASE("the stream says a mapping without apiVersion or kind is no Kubernetes object",
          "[engine][stream]") {
  const Policy& policy = DefaultPolicy();
  Inventory inventory = BuildInventory(policy, {});
  ObjectStream stream(policy, inventory);
  // A GitHub workflow: YAML, no object; then a broken object (a kind alone).
  std::vector<Seen> workflow = JudgeAll(stream, "{on: push, jobs: {b: {runs-on: x}}}");
  REQUIRE(workflow.size() == 1);
  CHECK_FALSE(workflow[0].kubernetes);
  CHECK(workflow[0].findings == 0);
  std::vector<Seen> broken = JudgeAll(stream, "{kind: Pod}");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].kubernetes);
}

TEST_CASE("the stream keeps what earlier documents put in view, and asks for repairs when told",
          "[engine][stream]") {
  const Policy& policy = DefaultPolicy();
  Inventory inventory = BuildInventory(policy, {});
  const std::string claim =
      "{apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: gpus, "
      "namespace: n}, spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: "
      "gpu.nvidia.com, count: 2}}]}}}}";
  const std::string pod =
      "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: n}, spec: {resourceClaims: "
      "[{name: g, resourceClaimTemplateName: gpus}], containers: [{name: c, image: busybox, "
      "resources: {claims: [{name: g}], limits: {memory: 8GiB}}}]}}";
  // The pod alone holds a claim whose template no stream has seen; after the
  // template's document, the same stream resolves it, and judges otherwise.
  ObjectStream alone(policy, inventory);
  Value pod_doc = mutate_testing::Yaml(pod);
  std::vector<Finding> unresolved;
  alone.Judge(pod_doc, "f.yaml", [&](JudgedObject& j) { unresolved = j.findings; });
  ObjectStream stream(policy, inventory, /*fixes=*/true);
  JudgeAll(stream, claim);
  std::vector<Finding> resolved;
  bool repairs = false;
  stream.Judge(pod_doc, "f.yaml", [&](JudgedObject& j) {
    resolved = j.findings;
    for (const Finding& f : j.findings) repairs = repairs || f.fix.has_value();
    // Rejudge sees what Judge saw.
    std::vector<Finding> again = stream.Rejudge(j.object, "f.yaml");
    REQUIRE(again.size() == j.findings.size());
    for (size_t i = 0; i < again.size(); ++i) CHECK(again[i].rule == j.findings[i].rule);
  });
  std::vector<std::string> a, b;
  for (const Finding& f : unresolved) a.push_back(f.rule);
  for (const Finding& f : resolved) b.push_back(f.rule);
  CHECK(a != b);
  CHECK(repairs);  // quantity-invalid (8GiB) carries its repair when fixes are asked for
}

}  // namespace
}  // namespace gpulint
