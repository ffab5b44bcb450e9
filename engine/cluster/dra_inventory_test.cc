#include "engine/cluster/dra_inventory.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/cluster/inventory.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

// The DeviceClasses and ResourceSlices of `text` (YAML documents), which must read.
DraObjects Objects(std::string_view text) {
  DraObjects objects;
  Error error;
  bool ok = LoadYamlString(
      text, "dra.yaml", LoadLimits{},
      [&](Document&& d) {
        REQUIRE(d.ok);
        if (d.root.is_null()) return true;
        Error e;
        bool read = ReadDraObject(d.root, "dra.yaml", &objects, &e);
        INFO(e.ToString());
        REQUIRE(read);
        return true;
      },
      &error);
  REQUIRE(ok);
  return objects;
}

// The error reading the one object of `text`.
std::string Refusal(std::string_view text) {
  std::string out;
  Error error;
  LoadYamlString(
      text, "dra.yaml", LoadLimits{},
      [&](Document&& d) {
        DraObjects objects;
        Error e;
        if (!ReadDraObject(d.root, "dra.yaml", &objects, &e)) out = e.ToString();
        return true;
      },
      &error);
  return out;
}

NodeClass Node(const std::string& name, std::map<std::string, std::string> labels = {}) {
  NodeClass n;
  n.name = name;
  n.labels = std::move(labels);
  return n;
}

constexpr char kClasses[] = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  extendedResourceName: nvidia.com/gpu
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: a-newer-gpu-class, creationTimestamp: "2026-02-01T00:00:00Z"}
spec:
  extendedResourceName: nvidia.com/gpu
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata: {name: mig.nvidia.com}
spec:
  selectors:
  - cel: {expression: "device.attributes['gpu.nvidia.com'].type == 'mig'"}
)";

TEST_CASE("DRA: which class backs an extended resource, as the scheduler maps it", "[dra]") {
  auto dra = DraInventory::Make(Objects(kClasses));
  // The newest class owns an explicit name; each class its implicit one.
  CHECK(dra->ClassForResource("nvidia.com/gpu") == dra->ClassIndex("a-newer-gpu-class"));
  CHECK(dra->ClassForResource("deviceclass.resource.kubernetes.io/gpu.nvidia.com") ==
        dra->ClassIndex("gpu.nvidia.com"));
  CHECK(dra->ClassForResource("deviceclass.resource.kubernetes.io/mig.nvidia.com") ==
        dra->ClassIndex("mig.nvidia.com"));
  CHECK(dra->ClassForResource("amd.com/gpu") == -1);
  // Created at the same time: the first by name.
  std::string same = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: b}
spec: {extendedResourceName: example.com/gpu}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: a}
spec: {extendedResourceName: example.com/gpu}
)";
  auto tie = DraInventory::Make(Objects(same));
  CHECK(tie->ClassForResource("example.com/gpu") == tie->ClassIndex("a"));
}

constexpr char kSlices[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-gpu}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 2, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {type: {string: gpu}, uuid: {string: GPU-a0}}
    capacity: {memory: {value: 80Gi}}
  - name: mig-0
    attributes: {type: {string: mig}}
    capacity: {memory: {value: 10Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-gpu-old}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: stale
    attributes: {type: {string: gpu}}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: b-gpu}
spec:
  driver: gpu.nvidia.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {type: {string: gpu}, uuid: {string: GPU-b0}}
      capacity: {memory: {value: 80Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: gpu.nvidia.com
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: rack, operator: In, values: [r1]}]
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices:
  - name: channel-0
    attributes: {type: {string: channel}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: per-device}
spec:
  driver: gpu.nvidia.com
  perDeviceNodeSelection: true
  pool: {name: shared, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: d-0, nodeName: node-b, attributes: {type: {string: gpu}}}
  - {name: d-1, allNodes: true, attributes: {type: {string: other}}}
)";

std::vector<std::string> Names(const std::shared_ptr<const NodeDevices>& devices) {
  std::vector<std::string> names;
  if (devices)
    for (const PublishedDevice* d : devices->devices) names.push_back(d->pool + "/" + d->info->name);
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("DRA: the devices a node can be given, from each pool's newest generation", "[dra]") {
  DraObjects objects = Objects(kClasses);
  DraObjects slices = Objects(kSlices);
  objects.slices = slices.slices;
  auto dra = DraInventory::Make(objects);
  CHECK(Names(dra->DevicesOf(Node("node-a"))) ==
        std::vector<std::string>{"node-a/gpu-0", "node-a/mig-0", "shared/d-1"});
  CHECK(Names(dra->DevicesOf(Node("node-b"))) ==
        std::vector<std::string>{"node-b/gpu-0", "shared/d-0", "shared/d-1"});
  CHECK(Names(dra->DevicesOf(Node("node-c", {{"rack", "r1"}}))) ==
        std::vector<std::string>{"fabric/channel-0", "shared/d-1"});
  CHECK(Names(dra->DevicesOf(Node("node-c", {{"rack", "r2"}}))) ==
        std::vector<std::string>{"shared/d-1"});
  CHECK(dra->devices().size() == 6);  // the stale generation left out

  // Each class's verdict, once per device.
  const PublishedDevice* gpu = nullptr;
  std::shared_ptr<const NodeDevices> on_a = dra->DevicesOf(Node("node-a"));
  for (const PublishedDevice* d : on_a->devices)
    if (d->info->name == "gpu-0") gpu = d;
  REQUIRE(gpu);
  CHECK(gpu->classes[static_cast<size_t>(dra->ClassIndex("gpu.nvidia.com"))].yes());
  CHECK(gpu->classes[static_cast<size_t>(dra->ClassIndex("mig.nvidia.com"))].no());
  CHECK(gpu->info->capacity.at("gpu.nvidia.com").at("memory") == Quantity::FromInt(80LL << 30));
}

TEST_CASE("DRA: alike nodes share a group, whatever their devices' names and uuids", "[dra]") {
  DraObjects objects = Objects(kClasses);
  objects.slices = Objects(kSlices).slices;
  auto dra = DraInventory::Make(objects);
  NodeClass a = Node("node-a"), b = Node("node-b"), c = Node("node-c");
  a.devices = dra->DevicesOf(a);
  b.devices = dra->DevicesOf(b);
  // node-a has a MIG device node-b lacks: other groups.
  CHECK(a.devices->key != b.devices->key);
  // Two nodes that differ only by uuid: one group, each its own identity.
  std::string two = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-x}
spec:
  driver: gpu.nvidia.com
  nodeName: node-x
  pool: {name: node-x, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {type: {string: gpu}, uuid: {string: GPU-x}}, capacity: {memory: {value: 80Gi}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-y}
spec:
  driver: gpu.nvidia.com
  nodeName: node-y
  pool: {name: node-y, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-7, attributes: {type: {string: gpu}, uuid: {string: GPU-y}}, capacity: {memory: {value: 80Gi}}}]
)";
  DraObjects alike = Objects(kClasses);
  alike.slices = Objects(two).slices;
  auto dra2 = DraInventory::Make(alike);
  NodeGroups groups;
  NodeClass x = Node("node-x"), y = Node("node-y");
  x.devices = dra2->DevicesOf(x);
  y.devices = dra2->DevicesOf(y);
  CHECK(x.devices->key == y.devices->key);
  CHECK(x.devices->identity != y.devices->identity);
  groups.Add(x, 0);
  groups.Add(y, 1);
  CHECK(groups.inventory().groups.size() == 1);
  // The same node put again with the same devices changes nothing.
  NodeClass x_again = Node("node-x");
  x_again.devices = dra2->DevicesOf(x_again);
  CHECK_FALSE(groups.Put(x_again, 0));
}

TEST_CASE("DRA: an inventory built after a change keeps what it made of the slices that did not",
          "[dra]") {
  DraObjects objects = Objects(kClasses);
  objects.slices = Objects(kSlices).slices;
  auto first = DraInventory::Make(objects);
  auto second = DraInventory::Make(objects, first.get());
  CHECK(second->DevicesOf(Node("node-b"))->slices.front() ==
        first->DevicesOf(Node("node-b"))->slices.front());
  // Other classes: every device is judged again.
  DraObjects changed = objects;
  changed.classes.pop_back();
  auto third = DraInventory::Make(changed, second.get());
  CHECK(third->DevicesOf(Node("node-b"))->slices.front() !=
        second->DevicesOf(Node("node-b"))->slices.front());
  CHECK(third->DevicesOf(Node("node-b"))->devices.front()->classes.size() == 2);
}

TEST_CASE("DRA objects that no API server serves are refused with their position", "[dra]") {
  CHECK(Refusal("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {}\n") ==
        "dra.yaml:3:11: metadata.name: a DeviceClass needs a name");
  CHECK(Refusal("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n"
                "spec: {selectors: [{cel: {}}]}\n") ==
        "dra.yaml:4:20: spec.selectors[0].cel.expression: a selector needs an expression");
  CHECK(Refusal("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                "spec: {driver: d, devices: [{name: x, capacity: {memory: {value: 80GB}}}]}\n") ==
        "dra.yaml:4:66: spec.devices[0].capacity.memory.value: invalid quantity \"80GB\": "
        "unknown suffix \"GB\" (Kubernetes units have no \"B\") (did you mean 80G (80000000000 B "
        "= 80 GB = 74.5 GiB) or 80Gi (85899345920 B = 85.9 GB = 80 GiB)?)");
  CHECK(Refusal("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                "spec: {devices: []}\n") == "dra.yaml:4:7: spec.driver: a ResourceSlice needs a driver");
}

TEST_CASE("DRA: a version attribute that does not parse leaves its device cannot-tell", "[dra]") {
  DraObjects objects = Objects(kClasses);
  objects.slices = Objects(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: slice}
spec:
  driver: gpu.nvidia.com
  nodeName: node-n
  pool: {name: node-n, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {type: {string: gpu}, driverVersion: {version: "550"}}}]
)").slices;
  auto dra = DraInventory::Make(objects);
  const CelVerdict& v = dra->devices().front()->classes.front();
  CHECK(v.cannot_tell());
  CHECK(v.why == "attribute spec.devices[0].attributes.driverVersion: \"550\" is no semantic version");
}

}  // namespace
}  // namespace gpulint
