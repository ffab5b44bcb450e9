#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/base/decoder.h"
#include "engine/base/objects.h"
#include "engine/base/path.h"
#include "engine/policies.h"
#include "engine/policy/policy_test_support.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

using namespace policy_testing;  // NOLINT: test helpers

// The V100 node of incident 1: MemTotal 527787256 kB, 4 GPUs.
NodeClass V100Node() {
  NodeClass node;
  node.name = "v100-4x";
  node.source = "policy";
  node.allocatable["memory"] = Q("527787256Ki");
  node.allocatable["cpu"] = Q("48");
  node.allocatable["nvidia.com/gpu"] = Q("4");
  node.gpu.count = 4;
  return node;
}

TEST_CASE("the default policy loads and holds the documented defaults", "[policy]") {
  const Policy& p = DefaultPolicy();
  CHECK(p.name == "default");
  CHECK(p.vram_resource == "gpulint.io/vram");
  CHECK(p.vram_annotation == "gpulint.io/vram");
  CHECK(p.headroom_annotation == "gpulint.io/headroom-added");
  CHECK(p.gpu_resources == std::vector<std::string>{"nvidia.com/gpu", "amd.com/gpu",
                                                    "gpu.intel.com/i915", "gpu.intel.com/xe"});
  CHECK(p.gpu_taint_keys == std::vector<std::string>{"nvidia.com/gpu"});
  CHECK(p.node_classes.empty());
  CHECK(p.exempt_namespaces.empty());
  CHECK(p.ignore_annotation_prefix == "ignore.gpulint.io/");
  // The one opt-in rule.
  REQUIRE(p.rules.size() == 1);
  CHECK_FALSE(p.RuleEnabled("limits-missing-on-gpu-node"));
  CHECK(p.mutations.vram);
  CHECK(p.mutations.headroom);
  CHECK(p.mutations.hide_gpus);
  REQUIRE(p.reserved.count("memory") == 1);
  const Reserve& memory = p.reserved.at("memory");
  CHECK(memory.fixed.is_zero());
  CHECK(memory.percent_milli == 5000);
  CHECK(memory.per_gpu == Q("1Gi"));
  CHECK(p.reserved.size() == 1);
  for (const char* key : {"nvidia.com/gpu.present", "cloud.google.com/gke-accelerator", "gpus"}) {
    INFO(key);
    CHECK(std::find(p.gpu_node_label_keys.begin(), p.gpu_node_label_keys.end(), key) !=
          p.gpu_node_label_keys.end());
  }
  CHECK(p.cuda_images.size() == p.cuda_images.texts().size());
  CHECK(p.cuda_images.size() == 10);
}

TEST_CASE("the compiled-in text is policies/default.yaml", "[policy]") {
  std::vector<Document> docs;
  Error error;
  REQUIRE(LoadYamlFile(
      testing::SourceDir() + "/policies/default.yaml", LoadLimits{},
      [&](Document&& d) {
        docs.push_back(std::move(d));
        return true;
      },
      &error));
  std::vector<Document> compiled;
  REQUIRE(LoadYamlString(
      DefaultPolicyText(), "<default>", LoadLimits{},
      [&](Document&& d) {
        compiled.push_back(std::move(d));
        return true;
      },
      &error));
  REQUIRE(docs.size() == 1);
  REQUIRE(compiled.size() == 1);
  CHECK(ToJson(docs[0].root) == ToJson(compiled[0].root));
}

// Incident 1: a 500Gi job on the V100 node hung it; 440G is what fits.
TEST_CASE("default reserve denies incident 1's 500Gi job and passes 440G", "[policy][reserved]") {
  const Policy& p = DefaultPolicy();
  NodeClass node = V100Node();
  Quantity allocatable = node.allocatable["memory"];
  CHECK(allocatable == Quantity::FromInt(540454150144));
  // ceil(5% of 540454150144 = 27022707507.2) + 4 × 1Gi
  Quantity reserved = p.ReservedOn("memory", node);
  CHECK(reserved == Quantity::FromInt(27022707508 + 4 * int64_t{1073741824}));
  Quantity room = allocatable - reserved;
  CHECK(room == Quantity::FromInt(509136475340));
  CHECK(Q("500Gi") == Quantity::FromInt(536870912000));
  CHECK(Q("500Gi") > room);
  CHECK(Q("440G") <= room);
  // The per-GPU share is what a 4-GPU node adds to the 5%.
  NodeClass no_gpus = node;
  no_gpus.gpu.count = 0;
  CHECK(p.ReservedOn("memory", no_gpus) == Quantity::FromInt(27022707508));
}

TEST_CASE("ReservedOn: fixed, rounded-up percent and per GPU, per resource", "[policy][reserved]") {
  Policy p = MustLoad(kHeader + R"(spec:
  reserved:
    cpu: {fixed: 500m, percent: 2.5}
    nvidia.com/gpu: {fixed: 1}
    ephemeral-storage: {percent: 0.001}
)");
  NodeClass node = V100Node();
  node.allocatable["cpu"] = Q("95690m");
  node.allocatable["ephemeral-storage"] = Q("1001");
  // 2.5% of 95690m = 2392.25m, rounded up to the millicore.
  CHECK(p.ReservedOn("cpu", node) == Q("2893m"));
  CHECK(p.ReservedOn("nvidia.com/gpu", node) == Q("1"));
  // 0.001% of 1001 B = 0.01001 B, rounded up to a whole byte.
  CHECK(p.ReservedOn("ephemeral-storage", node) == Q("1"));
  // Layered: the default memory reserve is still there.
  CHECK(p.ReservedOn("memory", node) == DefaultPolicy().ReservedOn("memory", node));
  CHECK(p.ReservedOn("pods", node).is_zero());
  // A node without the resource in allocatable keeps only fixed + per GPU.
  node.allocatable.erase("memory");
  CHECK(p.ReservedOn("memory", node) == Q("1Gi") * 4);
}

TEST_CASE("a reserve entry replaces the default's entry whole", "[policy][reserved]") {
  Policy p = MustLoad(kHeader + "spec:\n  reserved:\n    memory: {fixed: 2Gi}\n");
  const Reserve& memory = p.reserved.at("memory");
  CHECK(memory.fixed == Q("2Gi"));
  CHECK(memory.percent_milli == 0);
  CHECK(memory.per_gpu.is_zero());
}

TEST_CASE("percent takes up to three decimals", "[policy][reserved]") {
  struct Case {
    const char* text;
    int64_t milli;
  };
  for (const Case& c : std::vector<Case>{{"0", 0},
                                         {"5", 5000},
                                         {"2.5", 2500},
                                         {"2.50", 2500},
                                         {"2.5000", 2500},
                                         {"0.125", 125},
                                         {"100", 100000},
                                         {"100.0", 100000}}) {
    INFO(c.text);
    Policy p = MustLoad(kHeader + "spec:\n  reserved:\n    memory: {percent: " + c.text + "}\n");
    CHECK(p.reserved.at("memory").percent_milli == c.milli);
  }
}

TEST_CASE("a policy file with node classes, rules and workloads", "[policy]") {
  Policy p;
  Error error;
  bool ok = LoadPolicyFile(kPolicies + "v100.yaml", &p, &error);
  INFO(error.ToString());
  REQUIRE(ok);
  CHECK(p.name == "v100-cluster");
  REQUIRE(p.node_classes.size() == 3);

  const NodeClass& v100 = p.node_classes[0];
  CHECK(v100.name == "v100-4x");
  CHECK(v100.source == "policy");
  CHECK(v100.labels.at("gpus") == "true");
  REQUIRE(v100.taints.size() == 1);
  CHECK(v100.taints[0].key == "nvidia.com/gpu");
  CHECK(v100.taints[0].value == "present");
  CHECK(v100.taints[0].effect == "NoSchedule");
  CHECK(v100.allocatable.at("memory") == Q("527787256Ki"));
  CHECK(v100.allocatable.at("pods") == Q("110"));
  CHECK(v100.gpu.model == "Tesla-V100-SXM2-32GB");
  CHECK(v100.gpu.count == 4);
  CHECK(v100.gpu.vram_per_gpu == Q("32Gi"));
  CHECK(v100.gpu.sharing == GpuSharing::kNone);
  CHECK(v100.gpu.replicas == 1);

  // No count: 4 time-sliced replicas of nvidia.com/gpu are one physical T4.
  const NodeClass& t4 = p.node_classes[1];
  CHECK(t4.gpu.count == 1);
  CHECK(t4.gpu.replicas == 4);
  CHECK(t4.gpu.sharing == GpuSharing::kTimeSlicing);

  const NodeClass& cpu = p.node_classes[2];
  CHECK_FALSE(cpu.has_gpu());
  CHECK(cpu.allocatable.count("nvidia.com/gpu") == 0);

  CHECK(p.reserved.at("cpu").percent_milli == 2500);
  CHECK(p.reserved.count("memory") == 1);  // kept from the default
  CHECK(p.exempt_namespaces == std::vector<std::string>{"kube-system"});
  CHECK_FALSE(p.RuleEnabled("removed-annotation"));
  CHECK(p.RuleEnabled("gpu-visibility-bypass"));
  CHECK(p.RuleSeverity("gpu-visibility-bypass", Severity::kError) == Severity::kInfo);
  CHECK(p.RuleSeverity("removed-annotation", Severity::kWarning) == Severity::kWarning);
  CHECK(p.RuleSeverity("no-such-rule", Severity::kWarning) == Severity::kWarning);
  CHECK(p.RuleEnabled("no-such-rule"));
  // Marks let the caller point at a rule name no rule has.
  CHECK(p.rules.at("gpu-visibility-bypass").mark.line == 24);
  CHECK(p.rules.at("removed-annotation").mark.line == 25);
}

TEST_CASE("ExemptNamespace and ExemptObject: listed namespaces only, never the empty one",
          "[policy]") {
  Policy p = MustLoad(kHeader + "spec:\n  exemptions:\n    namespaces: [kube-system]\n");
  CHECK(p.ExemptNamespace("kube-system"));
  CHECK_FALSE(p.ExemptNamespace("kube-system-2"));
  CHECK_FALSE(p.ExemptNamespace("default"));
  // A cluster-scoped object, or a manifest that names no namespace, is judged.
  CHECK_FALSE(p.ExemptNamespace(""));

  auto object = [](std::string ns) {
    Value metadata = Value(Value::Type::kMapping);
    metadata.mutable_members().emplace_back("namespace", Value::String(std::move(ns)));
    Value o = Value(Value::Type::kMapping);
    o.mutable_members().emplace_back("metadata", std::move(metadata));
    return o;
  };
  CHECK(p.ExemptObject(object("kube-system")));
  CHECK_FALSE(p.ExemptObject(object("ml")));
  CHECK_FALSE(p.ExemptObject(object("")));
  CHECK_FALSE(p.ExemptObject(Value(Value::Type::kMapping)));  // no metadata
  CHECK_FALSE(DefaultPolicy().ExemptNamespace("ml"));
}

TEST_CASE("a count without the GPU resource fills allocatable", "[policy]") {
  Policy p = MustLoad(kHeader + R"(spec:
  nodeClasses:
  - name: mps
    gpu: {count: 2, sharing: mps, replicas: 10}
)");
  REQUIRE(p.node_classes.size() == 1);
  CHECK(p.node_classes[0].allocatable.at("nvidia.com/gpu") == Q("20"));
  CHECK(p.node_classes[0].gpu.sharing == GpuSharing::kMps);
}

TEST_CASE("user workloads add to and override the default table", "[policy][workloads]") {
  Policy p;
  Error error;
  REQUIRE(LoadPolicyFile(kPolicies + "v100.yaml", &p, &error));
  CHECK(p.workloads.size() == DefaultPolicy().workloads.size() + 1);

  const WorkloadKind* pytorch = p.FindWorkload("kubeflow.org/v1", "PyTorchJob");
  REQUIRE(pytorch);
  CHECK(pytorch->templates == std::vector<std::string>{"spec.replicas.*.template"});
  const WorkloadKind* custom = p.FindWorkload("example.com/v2", "TrainingTask");
  REQUIRE(custom);
  CHECK(custom->templates == std::vector<std::string>{"spec.workers.*.podTemplate"});
  // An entry with no paths turns the kind off.
  const WorkloadKind* ray = p.FindWorkload("ray.io/v1", "RayService");
  REQUIRE(ray);
  CHECK(ray->templates.empty());
  CHECK(ray->pod_specs.empty());
  // Untouched defaults stay.
  REQUIRE(p.FindWorkload("ray.io/v1", "RayCluster"));
  CHECK(p.FindWorkload("ray.io/v1", "RayCluster")->templates.size() == 2);
}

TEST_CASE("FindWorkload matches by API group and kind", "[policy][workloads]") {
  struct Case {
    const char* api_version;
    const char* kind;
    std::vector<std::string> templates;  // empty: not found
  };
  const Policy& p = DefaultPolicy();
  for (const Case& c : std::vector<Case>{
           {"v1", "Pod", {""}},
           {"v1", "PodTemplate", {"template"}},
           {"v1", "ReplicationController", {"spec.template"}},
           {"apps/v1", "Deployment", {"spec.template"}},
           {"apps/v1beta2", "StatefulSet", {"spec.template"}},
           {"extensions/v1beta1", "DaemonSet", {"spec.template"}},
           {"batch/v1", "Job", {"spec.template"}},
           {"batch/v1beta1", "CronJob", {"spec.jobTemplate.spec.template"}},
           {"batch.volcano.sh/v1alpha1", "Job", {"spec.tasks.*.template"}},
           {"kubeflow.org/v1", "TFJob", {"spec.tfReplicaSpecs.*.template"}},
           {"kubeflow.org/v2beta1", "MPIJob", {"spec.mpiReplicaSpecs.*.template", "spec.template"}},
           {"ray.io/v1",
            "RayJob",
            {"spec.rayClusterSpec.headGroupSpec.template",
             "spec.rayClusterSpec.workerGroupSpecs.*.template", "spec.submitterPodTemplate"}},
           {"jobset.x-k8s.io/v1alpha2", "JobSet", {"spec.replicatedJobs.*.template.spec.template"}},
           {"leaderworkerset.x-k8s.io/v1",
            "LeaderWorkerSet",
            {"spec.leaderWorkerTemplate.leaderTemplate",
             "spec.leaderWorkerTemplate.workerTemplate"}},
           {"v1", "Service", {}},
           {"example.com/v1", "Pod", {}},  // a CRD named Pod is not a Pod
           {"apps/v1", "Job", {}},
           {"v1", "pod", {}},  // kinds are case-sensitive
       }) {
    INFO(c.api_version << " " << c.kind);
    const WorkloadKind* w = p.FindWorkload(c.api_version, c.kind);
    if (c.templates.empty()) {
      CHECK(w == nullptr);
    } else {
      REQUIRE(w);
      CHECK(w->templates == c.templates);
    }
  }
  const WorkloadKind* isvc = p.FindWorkload("serving.kserve.io/v1beta1", "InferenceService");
  REQUIRE(isvc);
  CHECK(isvc->templates.empty());
  CHECK(isvc->pod_specs == std::vector<std::string>{"spec.predictor", "spec.transformer",
                                                     "spec.explainer", "spec.predictor.workerSpec"});
  CHECK(isvc->containers.size() == 13);
  CHECK(isvc->containers[0] == "spec.predictor.model");
  const WorkloadKind* workflow = p.FindWorkload("argoproj.io/v1alpha1", "Workflow");
  REQUIRE(workflow);
  CHECK(workflow->container_lists == std::vector<std::string>{
                                         "spec.templates.*.containerSet.containers",
                                         "spec.templates.*.sidecars"});
}

// Pod specs anywhere under `v`: mappings with a containers list.
int CountPodSpecs(const Value& v) {
  int n = v.is_mapping() && v.Find("containers") && v.Find("containers")->is_sequence() ? 1 : 0;
  for (const auto& member : v.members()) n += CountPodSpecs(member.second);
  for (const Value& item : v.items()) n += CountPodSpecs(item);
  return n;
}

// The table is configuration, so check it against real manifests: every pod
// spec in the corpus must be reached through its kind's paths.
TEST_CASE("the default workload table reaches every pod in the corpus", "[policy][workloads]") {
  const Policy& p = DefaultPolicy();
  std::filesystem::path corpus = std::filesystem::path(testing::SourceDir()) / "testdata/corpus";
  REQUIRE(std::filesystem::is_directory(corpus));
  int objects_with_pods = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus)) {
    std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml")) continue;
    std::vector<Document> docs;
    Error error;
    REQUIRE(LoadYamlFile(
        entry.path().string(), LoadLimits{},
        [&](Document&& d) {
          docs.push_back(std::move(d));
          return true;
        },
        &error));
    for (const Document& doc : docs) {
      if (!doc.ok) continue;  // a few corpus files are templates, not YAML
      ForEachObject(doc.root, [&](const Value& object) {
        int expected = CountPodSpecs(object);
        if (expected == 0) return;
        ++objects_with_pods;
        INFO(entry.path().filename().string()
             << ": " << object.StringAt("apiVersion") << " " << object.StringAt("kind"));
        const WorkloadKind* w =
            p.FindWorkload(object.StringAt("apiVersion"), object.StringAt("kind"));
        REQUIRE(w);
        int found = 0;
        for (const std::string& path : w->templates)
          ForEachAtPath(object, path, [&](const Value& tpl, const FieldRef&) {
            const Value* spec = tpl.Find("spec");
            if (spec && spec->Find("containers")) ++found;
          });
        for (const std::string& path : w->pod_specs)
          ForEachAtPath(object, path, [&](const Value& spec, const FieldRef&) {
            if (spec.Find("containers")) ++found;
          });
        CHECK(found == expected);
      });
    }
  }
  CHECK(objects_with_pods > 100);
}

TEST_CASE("a group of * matches kinds no entry names the group of", "[policy][workloads]") {
  Policy p = MustLoad(kHeader + R"(spec:
  workloads:
  - {group: "*", kind: Job, templates: [spec.anything]}
)");
  CHECK(p.FindWorkload("batch/v1", "Job")->templates[0] == "spec.template");
  CHECK(p.FindWorkload("batch.volcano.sh/v1alpha1", "Job")->templates[0] ==
        "spec.tasks.*.template");
  REQUIRE(p.FindWorkload("example.com/v1", "Job"));
  CHECK(p.FindWorkload("example.com/v1", "Job")->templates[0] == "spec.anything");
}

TEST_CASE("layering: what a policy leaves out keeps the default", "[policy]") {
  Policy p = MustLoad(kHeader + R"(metadata: {name: mine}
spec:
  gpuNodes: {labelKeys: [gpu-pool]}
  mutations: {hideGpus: false}
  vram: {resource: example.com/vram}
)");
  const Policy& d = DefaultPolicy();
  CHECK(p.name == "mine");
  CHECK(p.gpu_node_label_keys == std::vector<std::string>{"gpu-pool"});
  CHECK(p.gpu_taint_keys == d.gpu_taint_keys);
  CHECK(p.cuda_images.texts() == d.cuda_images.texts());
  CHECK(p.MatchesCudaImage("nvidia/cuda:12.2.0-base-ubuntu22.04"));
  CHECK_FALSE(p.mutations.hide_gpus);
  CHECK(p.mutations.vram);
  CHECK(p.vram_resource == "example.com/vram");
  CHECK(p.vram_annotation == "gpulint.io/vram");
  CHECK(p.workloads.size() == d.workloads.size());

  Policy cleared = MustLoad(kHeader + "spec:\n  gpuNodes: {cudaImages: []}\n");
  CHECK(cleared.cuda_images.size() == 0);
  CHECK_FALSE(cleared.MatchesCudaImage("nvidia/cuda:12.2.0-base-ubuntu22.04"));
}

}  // namespace
}  // namespace gpulint
