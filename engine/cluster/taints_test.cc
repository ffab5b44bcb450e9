// Taints and tolerations as the scheduler reads them.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/cluster/inventory.h"

namespace gpulint {
namespace {

TEST_CASE("Tolerates follows Kubernetes' ToleratesTaint", "[inventory][taints]") {
  struct Case {
    const char* what;
    Toleration toleration;
    Taint taint;
    bool tolerated;
  };
  const Taint gpu{"nvidia.com/gpu", "present", "NoSchedule"};
  for (const Case& c : std::vector<Case>{
           {"Exists with no key tolerates every taint", {"", "Exists", "", ""}, gpu, true},
           {"Exists with no key, NoExecute only", {"", "Exists", "", "NoExecute"}, gpu, false},
           {"Exists on the key, any effect", {"nvidia.com/gpu", "Exists", "", ""}, gpu, true},
           {"Exists ignores the value", {"nvidia.com/gpu", "Exists", "absent", ""}, gpu, true},
           {"Exists on another key", {"example.com/gpu", "Exists", "", ""}, gpu, false},
           {"Equal with the same value",
            {"nvidia.com/gpu", "Equal", "present", "NoSchedule"},
            gpu,
            true},
           {"Equal with another value",
            {"nvidia.com/gpu", "Equal", "true", "NoSchedule"},
            gpu,
            false},
           {"no operator means Equal", {"nvidia.com/gpu", "", "present", ""}, gpu, true},
           {"no operator, no value", {"nvidia.com/gpu", "", "", ""}, gpu, false},
           {"Equal, both values empty", {"k", "Equal", "", ""}, {"k", "", "NoSchedule"}, true},
           {"another effect", {"nvidia.com/gpu", "Exists", "", "NoExecute"}, gpu, false},
           {"an unknown operator", {"nvidia.com/gpu", "exists", "", ""}, gpu, false},
           {"NoExecute tolerated", {"k", "Exists", "", "NoExecute"}, {"k", "", "NoExecute"}, true},
           {"PreferNoSchedule never filters",
            {"other", "Exists", "", ""},
            {"k", "", "PreferNoSchedule"},
            true},
           {"not-ready is transient",
            {"other", "Exists", "", ""},
            {"node.kubernetes.io/not-ready", "", "NoSchedule"},
            true},
           {"unreachable is transient",
            {"other", "Exists", "", ""},
            {"node.kubernetes.io/unreachable", "", "NoExecute"},
            true},
           {"unschedulable is transient",
            {"other", "Exists", "", ""},
            {"node.kubernetes.io/unschedulable", "", "NoSchedule"},
            true},
           {"memory-pressure is transient",
            {"other", "Exists", "", ""},
            {"node.kubernetes.io/memory-pressure", "", "NoSchedule"},
            true},
           {"uninitialized is transient",
            {"other", "Exists", "", ""},
            {"node.cloudprovider.kubernetes.io/uninitialized", "true", "NoSchedule"},
            true},
       }) {
    INFO(c.what);
    Placement p;
    p.tolerations.push_back(c.toleration);
    CHECK(Tolerates(p, c.taint) == c.tolerated);
  }
  CHECK_FALSE(Tolerates(Placement{}, gpu));
  CHECK(Tolerates(Placement{}, Taint{"k", "", "PreferNoSchedule"}));
}

TEST_CASE("GpuSharingName", "[inventory]") {
  CHECK(std::string(GpuSharingName(GpuSharing::kNone)) == "none");
  CHECK(std::string(GpuSharingName(GpuSharing::kTimeSlicing)) == "time-slicing");
  CHECK(std::string(GpuSharingName(GpuSharing::kMps)) == "mps");
}

}  // namespace
}  // namespace gpulint
