// Where a pod may land: the ExtendedResourceToleration admission plugin, and
// the scheduler's words for why each node is ruled out.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/engine_test_support.h"
#include "engine/policies.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

using namespace mutate_testing;  // NOLINT: test helpers

// A GPU Deployment that does not tolerate the GPU taint itself.
const char* kUntolerated = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: infer}
spec:
  template:
    spec:
      containers:
      - name: server
        image: nvcr.io/nvidia/tritonserver:24.05-py3
        resources: {limits: {nvidia.com/gpu: 4, memory: 16Gi}}
)";

std::vector<std::string> CandidateNames(const Value& object, const Policy& policy) {
  std::vector<PodInfo> pods = ExtractPods(object, policy, IncidentNodes());
  REQUIRE(pods.size() == 1);
  std::vector<std::string> names;
  for (const Candidate& n : pods[0].candidates) names.emplace_back(n.name);
  return names;
}

TEST_CASE("ExtendedResourceToleration: a pod asking for nvidia.com/gpu tolerates its taint",
          "[inventory][placement]") {
  Value deployment = Yaml(kUntolerated);
  // On by default: the tainted V100 and T4 nodes are candidates.
  CHECK(CandidateNames(deployment, DefaultPolicy()) ==
        std::vector<std::string>{"v100-node", "rtx8000-node", "t4-node", "t4-mps-node",
                                 "cpu-node"});
  // The cluster does not run the plugin: the pod's own tolerations decide.
  Policy off = PolicyWith("  gpuNodes: {extendedResourceToleration: false}\n");
  CHECK(CandidateNames(deployment, off) ==
        std::vector<std::string>{"rtx8000-node", "t4-mps-node", "cpu-node"});
  // Only NoSchedule taints, as the plugin's toleration says.
  Placement p;
  p.tolerated_resources = {"nvidia.com/gpu"};
  CHECK(Tolerates(p, Taint{"nvidia.com/gpu", "present", "NoSchedule"}));
  CHECK_FALSE(Tolerates(p, Taint{"nvidia.com/gpu", "present", "NoExecute"}));
  CHECK_FALSE(Tolerates(p, Taint{"dedicated", "gpu", "NoSchedule"}));
}

TEST_CASE("ExtendedResourceToleration: what the finding says with and without it",
          "[inventory][placement]") {
  // Without the plugin, 4 GPUs fit only on the tainted V100 node: the
  // remaining candidates lack GPUs, and the denial says why each is out.
  Policy off = PolicyWith("  gpuNodes: {extendedResourceToleration: false}\n");
  std::vector<Finding> findings = Evaluate(Yaml(kUntolerated), "", off, IncidentNodes());
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].rule == "exceeds-allocatable");
  CHECK(findings[0].message ==
        "the pod fits on none of its 3 candidate nodes: 1 insufficient memory: node "
        "\"t4-mps-node\": memory request 16Gi (17179869184 B = 17.2 GB = 16 GiB) > allocatable "
        "17413608Ki (17831534592 B = 17.8 GB = 16.6 GiB) - reserved 1965318554 B = 2 GB = 1.8 "
        "GiB [5% of allocatable + 1 GPU × 1Gi] = 15866216038 B = 15.9 GB = 14.8 GiB; 2 "
        "insufficient nvidia.com/gpu: node \"rtx8000-node\": nvidia.com/gpu request 4 > "
        "allocatable 1 (and 1 more); 2 node(s) had untolerated taint {nvidia.com/gpu: present}");
  // Of the GPU nodes it can reach, only the MPS node has 4 GPUs' worth (4 of
  // its 10 replicas: the RTX 8000 node has 1 GPU), and its device plugin would
  // refuse that: an error.
  CHECK(findings[1].rule == "shared-gpu-multiple-replicas");
  CHECK(findings[1].severity == Severity::kError);
  // With it (the default), the V100 node is a candidate and the pod fits:
  // only the MPS warning is left.
  findings = Evaluate(Yaml(kUntolerated), "", DefaultPolicy(), IncidentNodes());
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == "shared-gpu-multiple-replicas");
  CHECK(findings[0].severity == Severity::kWarning);
}

TEST_CASE("exclusion reasons in the scheduler's words, commonest first", "[inventory][placement]") {
  Placement p = PlacementOf(Yaml(R"(nodeSelector: {nvidia.com/gpu.count: "1"}
containers: [{name: a, image: x}]
)"));
  // rtx8000 and t4-mps match; t4 matches but is tainted; v100 and cpu do not match.
  std::vector<NodeClass> nodes = IncidentNodes().Nodes();
  CHECK(ExclusionReason(p, nodes[1]).empty());
  CHECK(ExclusionReason(p, nodes[2]) ==
        "node(s) had untolerated taint {nvidia.com/gpu: present}");
  CHECK(ExclusionSummary(p, IncidentNodes()) ==
        "2 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint "
        "{nvidia.com/gpu: present}");
  Placement named;
  named.node_name = "elsewhere";
  CHECK(ExclusionSummary(named, IncidentNodes()) ==
        "5 node(s) didn't match the requested node name");
}

}  // namespace
}  // namespace gpulint
