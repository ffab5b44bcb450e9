// The policy format's table (policy_schema.h), and beside it the checks a
// JSON Schema cannot express. Each object's fields are listed in the order
// "did you mean" weighs them. policies/README.md explains the fields at
// length; its field reference is generated from the descriptions here.
#include "engine/policy/policy_schema.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/base/decoder.h"
#include "engine/cluster/inventory.h"
#include "engine/policy/policy.h"

namespace gpulint {
namespace {

// ---- Checks beside the table ----

std::string NotExtendedResource(std::string_view text) {
  return "\"" + std::string(text) +
         "\" is not an extended resource name: use a domain prefix, e.g. gpulint.io/vram";
}
// An extended resource name has a domain prefix.
constexpr TextRule kExtendedResource = {"/", NotExtendedResource};

std::string NotDottedPath(std::string_view text) {
  return "invalid path \"" + std::string(text) +
         "\": expected dotted field names such as spec.template (\"*\" for every key or item, "
         "\"\" for the object itself)";
}
// "spec.tasks.*.template": dotted names, "*" for any key or item; "" is the
// object itself.
constexpr TextRule kDottedPath = {"^([^.]+(\\.[^.]+)*)?$", NotDottedPath};

std::string NotAbsolutePath(std::string_view text) {
  return "\"" + std::string(text) + "\" is not an absolute path";
}
constexpr TextRule kAbsolutePath = {"^/", NotAbsolutePath};

bool CheckGpu(StrictDecoder& d, const Value& v, const std::string& path, void* target) {
  const GpuInfo& gpu = *static_cast<GpuInfo*>(target);
  if (gpu.replicas > 1 && gpu.sharing == GpuSharing::kNone)
    return d.Fail(*v.Find("replicas"), path + ".replicas",
                  "more than 1 replica per GPU needs sharing: time-slicing or mps");
  return true;
}

bool FinishNodeClass(StrictDecoder& d, const Value& v, const std::string& path, void* target) {
  static_cast<NodeClass*>(target)->source = "policy";
  return true;
}

bool UniqueNodeClassName(StrictDecoder& d, const Value& list, size_t index, const std::string& path,
                         void* container) {
  const auto& classes = *static_cast<std::vector<NodeClass>*>(container);
  const std::string& name = classes[index].name;
  for (size_t i = 0; i < index; ++i)
    if (classes[i].name == name)
      return d.Fail(*list.items()[index].Find("name"), path + ".name",
                    "duplicate node class name \"" + name + "\"");
  return true;
}

// A class's GPU count and its GPU resource in allocatable are two views of the
// device plugin's advertisement (count × replicas); fill whichever is missing.
// After the whole spec, whatever the order of gpuResources and nodeClasses.
void ReconcileGpuCount(const Policy& p, bool has_count, NodeClass* c) {
  const std::string& resource = p.gpu_resources.front();
  auto it = c->allocatable.find(resource);
  if (!has_count && it != c->allocatable.end()) {
    Quantity physical = it->second.ScaledUp(1, c->gpu.replicas);
    c->gpu.count = physical.Value();
  } else if (has_count && it == c->allocatable.end() && c->gpu.count > 0) {
    c->allocatable[resource] = Quantity::FromInt(c->gpu.count * c->gpu.replicas);
  }
}

bool ReconcileGpuCounts(StrictDecoder& d, const Value& spec, const std::string& path,
                        void* target) {
  Policy& p = *static_cast<Policy*>(target);
  const Value* classes = spec.Find("nodeClasses");
  if (classes == nullptr) return true;  // the classes before this document are reconciled
  for (size_t i = 0; i < classes->items().size(); ++i) {
    const Value* gpu = classes->items()[i].Find("gpu");
    ReconcileGpuCount(p, gpu != nullptr && gpu->Find("count") != nullptr, &p.node_classes[i]);
  }
  return true;
}

// Workloads merge with the table before them by group and kind; one document
// names each pair once.
bool MergeWorkload(StrictDecoder& d, const Value& list, size_t index, const std::string& path,
                   void* container) {
  auto& all = *static_cast<std::vector<WorkloadKind>*>(container);
  WorkloadKind w = std::move(all.back());
  all.pop_back();
  for (size_t i = 0; i < index; ++i) {
    const Value& earlier = list.items()[i];
    if (earlier.StringAt("group") == w.group && earlier.StringAt("kind") == w.kind)
      return d.Fail(list.items()[index], path,
                    "duplicate entry for kind " + w.kind + " in group \"" + w.group + "\"");
  }
  auto same = [&](const WorkloadKind& o) { return o.group == w.group && o.kind == w.kind; };
  auto it = std::find_if(all.begin(), all.end(), same);
  if (it != all.end())
    *it = std::move(w);
  else
    all.push_back(std::move(w));
  return true;
}

// Where the policy names a rule, for an error when no rule has that name.
bool MarkRule(StrictDecoder& d, const Value& v, const std::string& path, void* target) {
  static_cast<RuleSetting*>(target)->mark = v.mark();
  return true;
}

}  // namespace

// ---- The table ----

namespace schema {
namespace {

constexpr std::string_view kApiVersions[] = {kPolicyApiVersion};
constexpr std::string_view kKinds[] = {kPolicyKind};
// In the order of the enums they are read into (a test holds them to it).
constexpr std::string_view kSharing[] = {"none", "time-slicing", "mps"};
constexpr std::string_view kSeverities[] = {"info", "warning", "error"};
constexpr std::string_view kEffects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

constexpr Field kMetadataFields[] = {
    String<&Policy::name>("name", "Names the policy in reports."),
    Ignored<Policy>(FieldType::kStringMap, "labels",
                    "Accepted and ignored, so the file can sit beside Kubernetes objects."),
    Ignored<Policy>(FieldType::kStringMap, "annotations", "Accepted and ignored."),
};

constexpr Field kVramFields[] = {
    NonEmptyString<&Policy::vram_resource>(
        "resource",
        "The extended resource (bytes) the VRAM mutation adds to GPU containers; it needs a "
        "domain prefix.",
        &kExtendedResource),
    NonEmptyString<&Policy::vram_annotation>(
        "annotation",
        "The annotation that asks for VRAM: <annotation> on the pod, "
        "<annotation>.<container> for one container, e.g. \"12Gi\"."),
};

constexpr Field kReserveFields[] = {
    QuantityField<&Reserve::fixed>("fixed", QuantityBound::kNonNegative,
                                   "An amount kept free on every node."),
    Percent<&Reserve::percent_milli>(
        "percent",
        "A percent of allocatable kept free, rounded up to whole units (bytes, millicores); up "
        "to three decimals."),
    QuantityField<&Reserve::per_gpu>(
        "perGpu", QuantityBound::kNonNegative,
        "An amount kept free per physical GPU on the node: host memory the driver takes "
        "outside every cgroup."),
};

constexpr Field kGpuNodeFields[] = {
    StringList<&Policy::gpu_taint_keys>(
        "taintKeys", "A pod that tolerates a taint with one of these keys can reach a GPU node."),
    StringList<&Policy::gpu_node_label_keys>(
        "labelKeys",
        "A pod whose nodeSelector or required node affinity uses one of these label keys can "
        "reach a GPU node."),
    PatternListField<&Policy::cuda_images>(
        "cudaImages",
        "RE2 patterns, matched anywhere in the image reference, of images that set "
        "NVIDIA_VISIBLE_DEVICES=all: a pod running one can reach a GPU node."),
    PatternListField<&Policy::agent_images>(
        "agentImages",
        "RE2 patterns of images of GPU node agents that must see every GPU and mount none of "
        "agentHostPaths: no mutation changes their pods, no GPU-visibility rule reports them."),
    StringList<&Policy::agent_host_paths>(
        "agentHostPaths", &kAbsolutePath,
        "Host directories only GPU node agents mount (the kubelet's device-plugins and "
        "pod-resources): a pod with a hostPath volume at or below one is a node agent."),
    Bool<&Policy::extended_resource_toleration>(
        "extendedResourceToleration",
        "The API server runs the ExtendedResourceToleration admission plugin: a pod that "
        "requests an extended resource tolerates the NoSchedule taint of that name."),
};

constexpr Field kOtherGpuAssignmentFields[] = {
    PatternListField<&Policy::gpu_assignment_resources>(
        "resources",
        "RE2 patterns of resources that give a container GPUs (MIG slices, GPU-sharing device "
        "plugins)."),
    StringList<&Policy::gpu_assignment_pod_keys>(
        "podKeys",
        "Pod label or annotation keys of schedulers that assign GPUs themselves (KAI's "
        "gpu-fraction)."),
    StringList<&Policy::gpu_device_classes>(
        "deviceClasses",
        "DRA device classes whose devices are GPUs: a container whose claims reach one uses "
        "GPUs."),
};

constexpr Field kTaintFields[] = {
    NonEmptyString<&Taint::key>("key", "The taint's key.").Required(),
    String<&Taint::value>("value", "The taint's value, if it has one."),
    Enum<&Taint::effect>("effect", kEffects, "The taint's effect.").Required(),
};

constexpr Field kGpuFields[] = {
    String<&GpuInfo::model>("model", "The GPU model, for messages."),
    Int<&GpuInfo::count>(
        "count", 0, 1024,
        "Physical GPUs per node. Nodes advertise count × replicas of the first gpuResources "
        "entry: of count and that allocatable entry, one left out is worked out from the "
        "other."),
    QuantityField<&GpuInfo::vram_per_gpu>(
        "memoryPerGpu", QuantityBound::kPositive,
        "VRAM per GPU: it sizes the VRAM mutation and the VRAM capacity patch."),
    Enum<&GpuInfo::sharing>("sharing", kSharing,
                            "How pods share a GPU: none (the default), time-slicing or mps."),
    Int<&GpuInfo::replicas>("replicas", 1, 1024,
                            "Slices per GPU. More than 1 needs time-slicing or mps."),
};

constexpr Field kNodeClassFields[] = {
    NonEmptyString<&NodeClass::name>("name", "Unique among the classes; denials name it.")
        .Required(),
    StringMap<&NodeClass::labels>(
        "labels", "The labels the nodes carry, for nodeSelector and node affinity."),
    ObjectList<&NodeClass::taints>("taints", kTaintFields, "The taints the nodes carry."),
    QuantityMap<&NodeClass::allocatable>(
        "allocatable", QuantityBound::kNonNegative,
        "The nodes' allocatable resources, as kubectl get node -o yaml shows them."),
    Object<&NodeClass::gpu>("gpu", kGpuFields, "The nodes' GPUs.").Check(CheckGpu),
};

constexpr Field kRuleFields[] = {
    Bool<&RuleSetting::enabled>("enabled", "false turns the rule off."),
    Enum<&RuleSetting::severity>("severity", kSeverities,
                                 "The severity of the rule's findings, in place of its default."),
};

constexpr Field kMutationFields[] = {
    Bool<&Policy::mutations, &Mutations::vram>(
        "vram", "Add the vram resource to GPU containers, toward nodes that advertise it."),
    Bool<&Policy::mutations, &Mutations::headroom>(
        "headroom", "Raise GPU containers' memory by reserved memory perGpu, per physical GPU."),
    Bool<&Policy::mutations, &Mutations::hide_gpus>(
        "hideGpus",
        "Set NVIDIA_VISIBLE_DEVICES=void in containers that could see GPUs but set no GPU "
        "limit."),
    NonEmptyString<&Policy::headroom_annotation>(
        "headroomAnnotation",
        "The annotation that records what headroom added, so that it is added once."),
};

constexpr Field kErrorWaiverFields[] = {
    StringList<&Policy::waive_errors, &ErrorWaivers::namespaces>(
        "namespaces",
        "Namespaces where an ignore annotation waives any rule's errors; * for every namespace."),
    RuleList<&Policy::waive_errors, &ErrorWaivers::rules>(
        "rules", "Rules whose errors an ignore annotation waives in any namespace; * for every rule."),
};

constexpr Field kExemptionFields[] = {
    StringList<&Policy::exempt_namespaces>(
        "namespaces", "Namespaces whose objects are neither checked nor mutated."),
    NonEmptyString<&Policy::ignore_annotation_prefix>(
        "ignoreAnnotationPrefix",
        "An annotation <prefix><rule>: \"<reason>\" turns that rule off for the object that "
        "carries it: its warnings always, its errors where waiveErrors allows."),
    Section<Policy>(
        "waiveErrors", kErrorWaiverFields,
        "Where an ignore annotation may waive an error, which deny mode would refuse. Empty by "
        "default: the object's author writes the annotation, so in a namespace it waives no error "
        "unless listed here. Objects with no namespace (a manifest not yet applied) are always "
        "waived. Each waiver is logged, counted and recorded in the audit log by the webhook."),
};

constexpr Field kWorkloadFields[] = {
    String<&WorkloadKind::group>(
        "group", "The API group: \"\" for the core group, * for any group no entry names."),
    NonEmptyString<&WorkloadKind::kind>("kind", "The kind.").Required(),
    StringList<&WorkloadKind::templates>(
        "templates", &kDottedPath,
        "Dotted paths to pod templates (metadata + spec); * is every key or item, \"\" the "
        "object itself (as Pod is listed)."),
    StringList<&WorkloadKind::pod_specs>("podSpecs", &kDottedPath,
                                         "Dotted paths to pod specs (KServe predictors)."),
    StringList<&WorkloadKind::containers>(
        "containers", &kDottedPath,
        "Dotted paths to single containers, an image beside its resources (KServe "
        "spec.predictor.model, Argo spec.templates.*.container)."),
    StringList<&WorkloadKind::container_lists>(
        "containerLists", &kDottedPath,
        "Dotted paths to lists of containers (Argo spec.templates.*.containerSet.containers, "
        "Pod spec.ephemeralContainers)."),
    NonEmptyString<&WorkloadKind::container_resources>(
        "containerResources",
        "The field of a containers container that holds its requests and limits: resources "
        "unless written (Kubeflow Trainer's resourcesPerNode)."),
    Bool<&WorkloadKind::partial>(
        "partial",
        "Its pods are never run as written: their containers are defaults merged into another "
        "object's pods (a KServe ServingRuntime into an InferenceService's predictor). Rules "
        "about what a pod leaves out or where it lands do not judge them."),
};

constexpr Field kSpecFields[] = {
    Section<Policy>("vram", kVramFields, "The VRAM mutation's resource and annotation."),
    StringList<&Policy::gpu_resources>(
        "gpuResources",
        "Extended resources that allocate whole GPUs; a node class's GPU count is advertised "
        "as the first.",
        "must name at least one resource, e.g. nvidia.com/gpu"),
    ObjectMap<&Policy::reserved>(
        "reserved", kReserveFields,
        "Headroom kept free on every node on top of kubelet's own, by resource (memory, cpu): "
        "fixed + percent of allocatable + perGpu × physical GPUs.",
        KeySet::kAny, "resource"),
    Section<Policy>("gpuNodes", kGpuNodeFields,
                    "How to tell, with no node inventory, that a pod can reach a GPU node."),
    Section<Policy>("otherGpuAssignments", kOtherGpuAssignmentFields,
                    "Ways a container is given GPUs other than gpuResources: gpu-limit-missing "
                    "does not report them."),
    ObjectList<&Policy::node_classes>(
        "nodeClasses", kNodeClassFields,
        "Kinds of node that fit is checked against when real nodes cannot be read.")
        .Check(FinishNodeClass)
        .CheckItem(UniqueNodeClassName),
    ObjectMap<&Policy::rules>("rules", kRuleFields,
                              "Rules by name ('gpulint rules' lists them): off, or another "
                              "severity.",
                              KeySet::kRules, "rule")
        .Check(MarkRule),
    Section<Policy>("mutations", kMutationFields,
                    "What the mutating webhook (and gpulint fix --mutations) changes."),
    Section<Policy>("exemptions", kExemptionFields, "What is not checked."),
    ObjectList<&Policy::workloads>(
        "workloads", kWorkloadFields,
        "Where each kind keeps its pods; entries merge with the default table by group and "
        "kind.",
        /*merge=*/true)
        .CheckItem(MergeWorkload),
};

constexpr Field kDocumentFields[] = {
    Constant<Policy>("apiVersion", kApiVersions, "The policy format's version."),
    Constant<Policy>("kind", kKinds, "Always Policy."),
    Section<Policy>("metadata", kMetadataFields, "The policy's name."),
    Section<Policy>("spec", kSpecFields,
                    "What differs from the built-in policy: a field written replaces the "
                    "default's, a field left out keeps it.")
        .Check(ReconcileGpuCounts),
};

static_assert(WellTyped(kDocumentFields, internal::Tag<Policy>()),
              "a table's fields must write to the C++ type its parent field decodes into");

}  // namespace
}  // namespace schema

FieldList PolicyDocumentFields() { return schema::kDocumentFields; }

}  // namespace gpulint
