// The policy: node classes, reserved headroom, the VRAM resource, rule
// severities and exemptions, and where each workload kind keeps its pods.
// One YAML document, apiVersion gpulint.io/v1alpha1, kind Policy. Loading
// validates everything, RE2 patterns included, once; a Policy is immutable and
// safe to share between threads after that.
#ifndef GPULINT_ENGINE_POLICY_POLICY_H_
#define GPULINT_ENGINE_POLICY_POLICY_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/finding.h"
#include "engine/cluster/inventory.h"
#include "engine/quantity/quantity.h"

namespace re2 {
class RE2;
}

namespace gpulint {

// Headroom kept free on a node for one resource, on top of kubelet's own
// reservation: fixed + percent of allocatable + per GPU on the node.
struct Reserve {
  Quantity fixed;
  int64_t percent_milli = 0;  // percent × 1000, so "2.5%" is 2500
  Quantity per_gpu;
};

// Where a kind keeps its pods. Paths are dotted field names; "*" matches every
// value of a mapping or every item of a sequence, e.g.
// "spec.pytorchReplicaSpecs.*.template" or "spec.workerGroupSpecs.*.template".
// `templates` point at PodTemplateSpecs (metadata + spec); `pod_specs` point at
// objects that are pod specs themselves (KServe predictors). `containers` point
// at single containers (a mapping with image and resources: KServe
// predictor.model, Argo templates[].container) and `container_lists` at lists
// of them (Argo containerSet.containers). Such a container joins the pod whose
// spec encloses it (predictor.model joins spec.predictor's pod); else it is a
// pod of its own, placed by the mapping that holds it (its nodeSelector,
// tolerations, affinity), or by the container itself when it carries those.
struct WorkloadKind {
  std::string group;  // API group, "" for core; "*" any
  std::string kind;
  std::vector<std::string> templates;
  std::vector<std::string> pod_specs;
  std::vector<std::string> containers;
  std::vector<std::string> container_lists;
  // The field of a `containers` container that holds its requests and limits
  // (Kubeflow Trainer's trainer: resourcesPerNode, one pod per node).
  std::string container_resources = "resources";
  // Its pods are defaults merged into other objects' pods (KServe and
  // Kubeflow Trainer runtimes), never run as written.
  bool partial = false;
};

struct RuleSetting {
  bool enabled = true;
  std::optional<Severity> severity;  // overrides the rule's default
  Mark mark;  // where the policy names the rule, for an error when no rule has that name
};

// RE2 patterns compiled once when the policy loads; matched anywhere in the text.
class PatternList {
 public:
  PatternList();
  ~PatternList();
  PatternList(PatternList&&) noexcept;
  PatternList& operator=(PatternList&&) noexcept;
  // A pattern that does not compile: its index and RE2's message.
  struct Bad {
    size_t index;
    std::string error;
  };
  // Compiles every pattern; when one is bad, returns false with each bad one
  // in *bad, leaving this list unchanged.
  bool Set(std::vector<std::string> texts, std::vector<Bad>* bad);
  bool Matches(std::string_view text) const;
  const std::vector<std::string>& texts() const { return texts_; }
  size_t size() const { return compiled_.size(); }

 private:
  struct OnePass;  // all of the patterns in one RE2::Set
  std::vector<std::string> texts_;
  std::vector<std::unique_ptr<re2::RE2>> compiled_;
  std::unique_ptr<OnePass> one_pass_;  // null when it could not be compiled
};

// Where an ignore annotation may waive a finding of error severity, which
// deny mode would refuse: in these namespaces, or for these rules ("*" in
// either: all). The annotation is written by the object's author, the very
// person deny mode holds to the rules, so by default it waives no error on an
// object in a namespace; the platform grants waivers here, as Kyverno grants
// PolicyExceptions only in the namespaces it is told.
struct ErrorWaivers {
  std::vector<std::string> namespaces;
  std::vector<std::string> rules;
};

struct Mutations {
  bool vram = true;
  bool headroom = true;
  bool hide_gpus = true;
};

class Policy {
 public:
  Policy();
  ~Policy();
  Policy(Policy&&) noexcept;
  Policy& operator=(Policy&&) noexcept;

  std::string name;
  std::string vram_resource = "gpulint.io/vram";
  std::string vram_annotation = "gpulint.io/vram";
  std::string headroom_annotation = "gpulint.io/headroom-added";
  std::vector<std::string> gpu_resources = {"nvidia.com/gpu"};
  std::map<std::string, Reserve> reserved;  // by resource name: memory, cpu, ...
  std::vector<NodeClass> node_classes;
  std::vector<WorkloadKind> workloads;
  std::map<std::string, RuleSetting, std::less<>> rules;  // looked up by string_view
  Mutations mutations;
  std::vector<std::string> exempt_namespaces;  // read through ExemptNamespace / ExemptObject
  std::string ignore_annotation_prefix = "ignore.gpulint.io/";
  ErrorWaivers waive_errors;

  // How to tell, with no node inventory, that a pod can reach a GPU node.
  std::vector<std::string> gpu_taint_keys = {"nvidia.com/gpu"};
  std::vector<std::string> gpu_node_label_keys;  // nodeSelector/affinity keys that select GPU nodes
  // Whether the cluster runs the ExtendedResourceToleration admission plugin
  // (many managed offerings do): a pod then tolerates NoSchedule taints named
  // after the extended resources it requests (nvidia.com/gpu).
  bool extended_resource_toleration = true;
  PatternList cuda_images;   // images that set NVIDIA_VISIBLE_DEVICES=all
  PatternList agent_images;  // node agents (device plugins, drivers, exporters)
  // Host directories that only node agents mount (the kubelet's device-plugin
  // and pod-resources sockets): a pod mounting one is a GPU node agent
  // (engine/workload/node_agent.h). Absolute paths; subdirectories count.
  std::vector<std::string> agent_host_paths;
  bool MatchesCudaImage(std::string_view image) const { return cuda_images.Matches(image); }

  // Other ways a container is given GPUs than gpu_resources: resources of
  // GPU-sharing device plugins (HAMi, Aliyun, Volcano, MIG), DRA claims, and
  // pod label/annotation keys of schedulers that assign GPUs themselves.
  PatternList gpu_assignment_resources;
  std::vector<std::string> gpu_assignment_pod_keys;
  // DRA device classes whose devices are GPUs (NVIDIA's DRA driver: whole GPUs
  // and MIG slices).
  std::vector<std::string> gpu_device_classes = {"gpu.nvidia.com", "mig.nvidia.com"};

  const WorkloadKind* FindWorkload(std::string_view api_version, std::string_view kind) const;
  // The effective setting for a rule (enabled, severity).
  bool RuleEnabled(std::string_view rule) const;
  Severity RuleSeverity(std::string_view rule, Severity fallback) const;
  // Whether nothing in namespace `ns` is judged or mutated: validation, the
  // mutation, `gpulint fix` and the webhook's log all ask here. The empty
  // namespace (a cluster-scoped object, or a manifest that names none) is
  // never exempt.
  bool ExemptNamespace(std::string_view ns) const;
  // The same for an object, by its metadata.namespace.
  bool ExemptObject(const Value& object) const;
  // Whether an ignore annotation waives a finding of `rule` at `severity` on
  // an object in namespace `ns`: a warning or info always (silencing one
  // grants nothing); an error where waive_errors allows it, or when the
  // object names no namespace (a manifest not yet applied anywhere, or a
  // cluster-scoped object, which only cluster administrators write).
  bool WaiverHonoured(std::string_view ns, std::string_view rule, Severity severity) const;
  // Headroom to keep on `node` for `resource`.
  Quantity ReservedOn(const std::string& resource, const NodeClass& node) const;
};

// A name a policy may use and a line about it.
struct KeyName {
  std::string_view name;
  std::string_view description;
};
// The names a policy may use that are defined above the policy: the rules.
// The policy is read by the rules, so it cannot list them itself; the
// engine's front door hands in the registry's (engine/policies.h).
struct PolicyNames {
  std::vector<KeyName> rules;
};

// Parses and validates a policy document, layered on the default one. On
// failure *errors holds every error found, in file order, each with the
// position of the offending field ("policy.yaml:12:7:
// spec.reserved.memory.percent: ..."); YAML that does not parse is one error
// alone (policy_loader.cc says what else stops the reading). Callers outside
// the engine use the front door's versions (engine/policies.h), which hand in
// the rules' names.
bool LoadPolicy(const Value& doc, const std::string& file, const PolicyNames& names, Policy* out,
                std::vector<Error>* errors);
bool LoadPolicyFile(const std::string& path, const PolicyNames& names, Policy* out,
                    std::vector<Error>* errors);
bool LoadPolicyText(std::string_view text, const std::string& name, const PolicyNames& names,
                    Policy* out, std::vector<Error>* errors);
// The policy compiled into both binaries (policies/default.yaml), as text.
std::string_view DefaultPolicyText();

}  // namespace gpulint

#endif  // GPULINT_ENGINE_POLICY_POLICY_H_
