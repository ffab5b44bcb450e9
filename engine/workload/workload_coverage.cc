#include "engine/workload/workload_coverage.h"

#include <algorithm>

#include "engine/base/objects.h"
#include "engine/base/path.h"
#include "engine/workload/removed_apis.h"
#include "engine/workload/workload.h"

namespace gpulint {
namespace {

// One step from an object's root: a mapping key, or an item's index.
struct Step {
  std::string_view key;
  size_t index = 0;
  bool is_item = false;
};

FieldRef RefOfSteps(const std::vector<Step>& steps, size_t n) {
  FieldRef at;
  for (size_t i = 0; i < n; ++i) {
    if (steps[i].is_item) {
      std::string k = std::to_string(steps[i].index);
      at.path += "[" + k + "]";
      at.pointer += "/" + k;
    } else {
      at.path = AppendKey(at.path, steps[i].key);
      at.pointer += "/" + EscapePointerSegment(steps[i].key);
    }
  }
  return at;
}

// The workload-table path for the first `n` steps: items as "*".
std::string PatternOf(const std::vector<Step>& steps, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out = JoinPath(out, steps[i].is_item ? std::string_view("*") : steps[i].key);
  return out;
}

bool Encloses(const std::string& outer, const std::string& inner) {
  return inner.compare(0, outer.size(), outer) == 0 &&
         (inner.size() == outer.size() || inner[outer.size()] == '/');
}

class Walker {
 public:
  Walker(const Policy& policy, const std::vector<PodInfo>& pods,
         std::vector<UncheckedShape>* out)
      : policy_(policy), pods_(pods), out_(out) {}

  void Walk(const Value& node) {
    if (node.is_sequence()) {
      for (size_t i = 0; i < node.items().size(); ++i) {
        steps_.push_back(Step{{}, i, true});
        Walk(node.items()[i]);
        steps_.pop_back();
      }
      return;
    }
    if (!node.is_mapping()) return;
    if (LooksLikePodSpec(node)) {
      FieldRef at = RefOfSteps(steps_, steps_.size());
      if (!IsPodSpec(node, at.pointer)) return AddPodSpec(node, at);
    } else if (LooksLikeContainer(node)) {
      FieldRef at = RefOfSteps(steps_, steps_.size());
      if (!IsContainer(at.pointer)) AddContainer(node, at);
      return;  // nothing in a container holds another
    } else if (std::string gpu = GpuRequested(node); !gpu.empty()) {
      // A container's own resources under another name (a TrainJob's
      // resourcesPerNode) were read with it.
      FieldRef at = RefOfSteps(steps_, steps_.size());
      if (!IsContainer(at.pointer))
        out_->push_back(UncheckedShape{&node, at.path, "", "", "", "", gpu});
      return;
    }
    for (const auto& [key, child] : node.members()) {
      if (steps_.empty() && (key == "metadata" || key == "status")) continue;
      steps_.push_back(Step{key});
      Walk(child);
      steps_.pop_back();
    }
  }

 private:
  // A `containers` list with an item that names an image.
  static bool LooksLikePodSpec(const Value& node) {
    const Value* list = node.Find("containers");
    if (!list || !list->is_sequence()) return false;
    return std::any_of(list->items().begin(), list->items().end(),
                       [](const Value& c) { return c.is_mapping() && c.Find("image"); });
  }

  // An image beside resources, or resources that ask for a GPU.
  bool LooksLikeContainer(const Value& node) const {
    const Value* resources = node.Find("resources");
    if (!resources || !resources->is_mapping()) return false;
    if (node.Find("image")) return true;
    for (const char* list : {"limits", "requests"}) {
      const Value* entries = resources->Find(list);
      if (!entries || !entries->is_mapping()) continue;
      for (const auto& [name, value] : entries->members())
        if (IsGpu(name)) return true;
    }
    return false;
  }

  bool IsGpu(std::string_view name) const {
    return std::find(policy_.gpu_resources.begin(), policy_.gpu_resources.end(), name) !=
               policy_.gpu_resources.end() ||
           policy_.gpu_assignment_resources.Matches(name);
  }

  // The GPU resource a mapping that is no container asks for, or "": limits
  // or requests naming one (llmaz's inference flavours), or a resource named
  // beside its quantity (a SparkApplication's executor.gpu). Quotas (Kueue's
  // nominalQuota, a LimitRange's max) ask for nothing.
  std::string GpuRequested(const Value& node) const {
    for (const char* list : {"limits", "requests"}) {
      const Value* entries = node.Find(list);
      if (!entries || !entries->is_mapping()) continue;
      for (const auto& [name, value] : entries->members())
        if (IsGpu(name)) return std::string(name);
    }
    const Value* name = node.Find("name");
    if (name && name->is_scalar() && node.Find("quantity") && IsGpu(name->text()))
      return std::string(name->text());
    return "";
  }

  // A pod spec read as one, or a mapping whose containers were read as a list
  // of containers (an Argo containerSet).
  bool IsPodSpec(const Value& node, const std::string& pointer) const {
    for (const PodInfo& p : pods_)
      if (p.pointer == pointer) return true;
    const std::vector<Value>& items = node.Find("containers")->items();
    for (size_t i = 0; i < items.size(); ++i)
      if (items[i].is_mapping() && items[i].Find("image") &&
          !IsContainer(pointer + "/containers/" + std::to_string(i)))
        return false;
    return true;
  }
  bool IsContainer(const std::string& pointer) const {
    for (const PodInfo& p : pods_)
      for (const ContainerInfo& c : p.containers)
        if (Encloses(c.pointer, pointer)) return true;
    return false;
  }

  // A pod spec under "spec" is a template's: the template is what to name.
  void AddPodSpec(const Value& node, const FieldRef& at) {
    size_t n = steps_.size();
    if (n > 0 && !steps_[n - 1].is_item && steps_[n - 1].key == "spec")
      Add(node, at, "templates", PatternOf(steps_, n - 1));
    else
      Add(node, at, "podSpecs", PatternOf(steps_, n));
  }

  // An item of a list is one of a list of containers.
  void AddContainer(const Value& node, const FieldRef& at) {
    size_t n = steps_.size();
    if (n > 0 && steps_[n - 1].is_item)
      Add(node, at, "containerLists", PatternOf(steps_, n - 1));
    else
      Add(node, at, "containers", PatternOf(steps_, n));
  }

  void Add(const Value& node, const FieldRef& at, std::string field, std::string pattern) {
    for (const UncheckedShape& s : *out_)
      if (s.field == field && s.pattern == pattern) return;
    out_->push_back(UncheckedShape{&node, at.path, std::move(field), std::move(pattern), "", ""});
  }

  const Policy& policy_;
  const std::vector<PodInfo>& pods_;
  std::vector<UncheckedShape>* out_;
  std::vector<Step> steps_;
};

// Configured paths that reach a value of the wrong shape: skipped by
// ExtractPods, reported here.
void CheckConfiguredPaths(const Value& object, const WorkloadKind& kind,
                          std::vector<UncheckedShape>* out) {
  auto bad = [&](const Value& v, const FieldRef& at, const char* expected) {
    if (v.is_null()) return;  // written as empty: nothing there
    out->push_back(
        UncheckedShape{&v, at.path, "", "", std::string("a ") + TypeName(v.type()), expected});
  };
  for (const std::string& path : kind.templates)
    ForEachAtPath(object, path, [&](const Value& t, const FieldRef& at) {
      if (!t.is_mapping()) return bad(t, at, "a pod template (metadata and spec)");
      if (const Value* spec = t.Find("spec"); spec && !spec->is_mapping())
        bad(*spec, {JoinPath(at.path, "spec"), at.pointer + "/spec"}, "a pod spec");
    });
  for (const std::string& path : kind.pod_specs)
    ForEachAtPath(object, path, [&](const Value& s, const FieldRef& at) {
      if (!s.is_mapping()) bad(s, at, "a pod spec");
    });
  for (const std::string& path : kind.containers)
    ForEachAtPath(object, path, [&](const Value& c, const FieldRef& at) {
      if (!c.is_mapping()) bad(c, at, "a container");
    });
  for (const std::string& path : kind.container_lists)
    ForEachAtPath(object, path, [&](const Value& list, const FieldRef& at) {
      if (!list.is_sequence()) return bad(list, at, "a list of containers");
      for (size_t i = 0; i < list.items().size(); ++i)
        if (!list.items()[i].is_mapping())
          bad(list.items()[i], {at.path + "[" + std::to_string(i) + "]", ""}, "a container");
    });
}

}  // namespace

std::vector<UncheckedShape> FindUncheckedShapes(const Value& object, const Policy& policy,
                                                const std::vector<PodInfo>& pods) {
  std::vector<UncheckedShape> out;
  if (!object.is_mapping() || object.StringAt("kind").empty()) return out;
  // A CustomResourceDefinition describes a kind, a PodSpec in its schema
  // included; it is never a workload. And an object of an API no server
  // serves is refused before any pod exists: removed-api-version says so.
  std::string_view api_version = object.StringAt("apiVersion");
  std::string_view kind_name = object.StringAt("kind");
  if ((kind_name == "CustomResourceDefinition" &&
       ApiGroupOf(api_version) == "apiextensions.k8s.io") ||
      FindRemovedApi(api_version, kind_name))
    return out;
  if (const WorkloadKind* kind =
          policy.FindWorkload(object.StringAt("apiVersion"), object.StringAt("kind")))
    CheckConfiguredPaths(object, *kind, &out);
  Walker(policy, pods, &out).Walk(object);
  std::stable_sort(out.begin(), out.end(), [](const UncheckedShape& a, const UncheckedShape& b) {
    return std::make_pair(a.node->mark().line, a.node->mark().column) <
           std::make_pair(b.node->mark().line, b.node->mark().column);
  });
  return out;
}

}  // namespace gpulint
