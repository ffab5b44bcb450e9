#include "engine/workload/workload.h"

#include <algorithm>

#include "engine/base/objects.h"
#include "engine/base/path.h"
#include "engine/base/resource_names.h"
#include "engine/workload/dra_fit.h"
#include "engine/workload/headroom_record.h"
#include "engine/workload/node_agent.h"
#include "engine/workload/quantity_field.h"

namespace gpulint {
namespace {

// Parses one resource list (requests or limits) as the API server would store it.
std::vector<ResourceEntry> ParseResources(const Value* list, const std::string& path) {
  std::vector<ResourceEntry> out;
  if (!list || !list->is_mapping()) return out;
  for (const auto& [name, value] : list->members()) {
    ResourceEntry e;
    e.name = name;
    e.value = &value;
    e.path = AppendKey(path, name);
    if (ReadQuantityField(value, &e.quantity, &e.error)) {
      e.valid = true;
      e.quantity = e.quantity.Stored();
    }
    out.push_back(std::move(e));
  }
  return out;
}

// "repository:tag" for an image written as a mapping (NVIDIA NIMService).
std::string ImageOf(const Value& node) {
  const Value* image = node.Find("image");
  if (!image || !image->is_mapping()) return std::string(node.StringAt("image"));
  std::string out(image->StringAt("repository"));
  if (std::string_view tag = image->StringAt("tag"); !tag.empty()) out += ":" + std::string(tag);
  return out;
}

// `resources`: the field holding requests and limits.
ContainerInfo ReadContainer(const Value& node, const FieldRef& at, ContainerRole role,
                            std::string_view resources = "resources") {
  ContainerInfo c;
  c.node = &node;
  c.path = at.path;
  c.pointer = at.pointer;
  c.role = role;
  c.name = std::string(node.StringAt("name"));
  c.image = ImageOf(node);
  c.resources_field = std::string(resources);
  if (const Value* res = node.Find(resources)) {
    std::string at_resources = AppendKey(c.path, resources);
    c.requests = ParseResources(res->Find("requests"), at_resources + ".requests");
    c.limits = ParseResources(res->Find("limits"), at_resources + ".limits");
  }
  return c;
}

// Init containers first (they run first), then app containers.
void ReadContainers(const Value& spec, PodInfo* pod) {
  auto read = [&](const char* list, auto role_of) {
    ForEachAtPath(spec, std::string(list) + ".*", [&](const Value& c, const FieldRef& at) {
      if (!c.is_mapping()) return;
      FieldRef full{JoinPath(pod->path, at.path), pod->pointer + at.pointer};
      pod->containers.push_back(ReadContainer(c, full, role_of(c)));
    });
  };
  read("initContainers", [](const Value& c) {
    return c.StringAt("restartPolicy") == "Always" ? ContainerRole::kSidecar : ContainerRole::kInit;
  });
  read("containers", [](const Value&) { return ContainerRole::kApp; });
}

// The resources Kubernetes accepts at pod level (resourcehelper's
// IsSupportedPodLevelResource); others are refused by validation.
bool IsPodLevelResource(std::string_view name) {
  return name == "cpu" || name == "memory" || IsHugePages(name);
}

// spec.resources: the pod-level requests and limits.
void ReadPodResources(const Value& spec, PodInfo* pod) {
  // spec.overhead: what the RuntimeClass admission plugin adds for the
  // sandbox (Kata, gVisor); the scheduler adds it to the pod's requests.
  pod->overhead = ParseResources(spec.Find("overhead"), JoinPath(pod->path, "overhead"));
  const Value* res = spec.Find("resources");
  if (!res || !res->is_mapping()) return;
  auto read = [&](const char* list, std::vector<ResourceEntry>* out) {
    *out = ParseResources(res->Find(list), JoinPath(pod->path, std::string("resources.") + list));
    out->erase(std::remove_if(out->begin(), out->end(),
                              [](const ResourceEntry& e) { return !IsPodLevelResource(e.name); }),
               out->end());
  };
  read("requests", &pod->requests);
  read("limits", &pod->limits);
}

bool Contains(const std::vector<std::string>& list, std::string_view key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

// The names of the pod's claims that `c` uses, each with the one request it
// names ("" for all of the claim's requests; a firstAvailable subrequest
// "gpu/a100" counts as its request "gpu").
std::vector<std::pair<std::string, std::string>> ClaimsUsed(const ContainerInfo& c) {
  std::vector<std::pair<std::string, std::string>> used;
  const Value* res = c.node->Find("resources");
  const Value* claims = res ? res->Find("claims") : nullptr;
  if (!claims || !claims->is_sequence()) return used;
  for (const Value& claim : claims->items()) {
    std::string request(claim.StringAt("request"));
    used.emplace_back(claim.StringAt("name"), request.substr(0, request.find('/')));
  }
  return used;
}

// Gives each container the GPU device requests its DRA claims reach, and
// records the used claims whose spec is not in view (see PodInfo).
void ResolveClaims(const Value& spec, std::string_view ns, const Policy& policy,
                   const DeviceClaims* catalog, PodInfo* pod) {
  ForEachAtPath(spec, "resourceClaims.*", [&](const Value& claim, const FieldRef& at) {
    std::string name(claim.StringAt("name"));
    std::string_view from_template = claim.StringAt("resourceClaimTemplateName");
    std::string_view from_claim = claim.StringAt("resourceClaimName");
    if (name.empty() || (from_template.empty() && from_claim.empty())) return;
    const std::vector<DeviceRequest>* requests = nullptr;
    if (catalog)
      requests = from_template.empty() ? catalog->Claim(ns, from_claim)
                                       : catalog->Template(ns, from_template);
    bool used = false;
    for (ContainerInfo& c : pod->containers) {
      for (const auto& [claim_name, request] : ClaimsUsed(c)) {
        if (claim_name != name) continue;
        used = true;
        if (!requests) continue;
        for (const DeviceRequest& r : *requests)
          if ((request.empty() || r.name == request) && IsGpuRequest(r, policy.gpu_device_classes))
            c.gpu_claims.push_back({name, r});
      }
    }
    if (requests) pod->claims.push_back({name, *requests});
    if (used && !requests) {
      std::string source = from_template.empty()
                               ? "ResourceClaim \"" + std::string(from_claim) + "\""
                               : "ResourceClaimTemplate \"" + std::string(from_template) + "\"";
      pod->unresolved_claims.push_back({&claim, JoinPath(pod->path, at.path), name, source});
    }
  });
}

// Keys that required node affinity selects on (NotIn and DoesNotExist select away).
std::vector<std::string> AffinityKeys(const Placement& placement) {
  std::vector<std::string> keys;
  const Value* terms = placement.required_affinity
                           ? placement.required_affinity->Find("nodeSelectorTerms")
                           : nullptr;
  if (!terms || !terms->is_sequence()) return keys;
  for (const Value& term : terms->items()) {
    const Value* exprs = term.Find("matchExpressions");
    if (!exprs || !exprs->is_sequence()) continue;
    for (const Value& e : exprs->items()) {
      std::string_view op = e.StringAt("operator");
      if (op != "NotIn" && op != "DoesNotExist") keys.emplace_back(e.StringAt("key"));
    }
  }
  return keys;
}

// Why a pod can reach a GPU node, or "" when nothing says it can.
std::string GpuReachReason(const PodInfo& pod, const Policy& policy) {
  for (const ContainerInfo& c : pod.containers)
    if (c.UsesGpus(policy)) return "its pod requests GPUs";
  for (const Candidate& n : pod.candidates)
    if (n.node->has_gpu()) return "its pod can be scheduled on GPU node " + std::string(n.name);
  // Any toleration of a GPU taint key counts, whatever its value or effect.
  for (const Toleration& t : pod.placement.tolerations) {
    if (t.key.empty() && t.op == "Exists") return "its pod tolerates every taint";
    if (Contains(policy.gpu_taint_keys, t.key)) return "its pod tolerates the " + t.key + " taint";
  }
  for (const auto& [key, value] : pod.placement.node_selector)
    if (Contains(policy.gpu_node_label_keys, key))
      return "its pod selects GPU nodes (nodeSelector " + key + ")";
  for (const std::string& key : AffinityKeys(pod.placement))
    if (Contains(policy.gpu_node_label_keys, key))
      return "its pod selects GPU nodes (node affinity " + key + ")";
  return "";
}

// Names of the extended resources the pod's containers ask for, which the
// ExtendedResourceToleration admission plugin turns into tolerations. Limits
// count too: defaulting copies them into requests before admission.
std::vector<std::string> ExtendedResourcesOf(const std::vector<ContainerInfo>& containers) {
  std::vector<std::string> names;
  for (const ContainerInfo& c : containers)
    for (const auto* list : {&c.requests, &c.limits})
      for (const ResourceEntry& e : *list)
        if (IsExtendedResource(e.name) && !Contains(names, e.name)) names.push_back(e.name);
  return names;
}

// Takes the mutation's recorded headroom back out of the memory it was added
// to (see ExtractPods). The record is trusted only up to the per-GPU headroom
// of the container's GPUs, so a hand-written annotation cannot shrink a pod
// further than the mutation itself would have grown it; and a recorded text is
// quoted only when it is the value that is left. A record that keeps the
// user's texts holds only for memory that is still what the mutation left
// (what the user wrote plus what was added): an in-place resize changes the
// memory but not the annotation, and the resized memory is the user's own.
void TakeOutHeadroom(const Policy& policy, PodInfo* pod) {
  auto reserve = policy.reserved.find("memory");
  const Value* note = pod->Annotation(policy.headroom_annotation);
  HeadroomRecord recorded;
  if (reserve == policy.reserved.end() || !note || !note->is_string() ||
      !ReadHeadroomRecord(note->text(), &recorded))
    return;
  for (ContainerInfo& c : pod->containers) {
    const HeadroomEntry* record = FindHeadroomEntry(recorded, c.name);
    Quantity added;
    QuantityError bad;
    if (!record || !record->added || !Quantity::Parse(*record->added, &added, &bad)) continue;
    Quantity headroom = std::min(added, reserve->second.per_gpu * c.GpuCount(policy).Value());
    if (headroom.sign() <= 0) continue;
    bool keeps_texts = record->requests || record->limits;
    // A request the API server defaulted from the limit was the limit's text.
    const std::optional<std::string>& request_text =
        record->requests ? record->requests : record->limits;
    for (auto [text, entries] :
         {std::pair{&request_text, &c.requests}, std::pair{&record->limits, &c.limits}}) {
      for (ResourceEntry& e : *entries) {
        if (e.name != "memory" || !e.valid || e.quantity < headroom) continue;
        Quantity written;
        bool parsed = *text && Quantity::Parse(**text, &written, &bad);
        if (keeps_texts && (!parsed || written.Stored() + added != e.quantity)) continue;
        e.quantity = e.quantity - headroom;
        e.unmutated = parsed && written.Stored() == e.quantity ? **text : e.quantity.Canonical();
      }
    }
  }
}

// `tmpl` is the template holding `spec` (with `tmpl_at` its place), or null.
// Returns the pod added, or null when `spec` is not a mapping or is a pod already.
PodInfo* AddPod(const Value* tmpl, const FieldRef& tmpl_at, const Value& spec,
                const FieldRef& spec_at, std::vector<PodInfo>* out) {
  if (!spec.is_mapping()) return nullptr;
  // A spec reached by two template paths is one pod.
  for (const PodInfo& p : *out)
    if (p.spec == &spec) return nullptr;
  PodInfo pod;
  pod.template_node = tmpl;
  pod.template_pointer = tmpl_at.pointer;
  const Value* metadata = tmpl ? tmpl->Find("metadata") : nullptr;
  pod.metadata = metadata && metadata->is_mapping() ? metadata : nullptr;
  pod.spec = &spec;
  pod.path = spec_at.path;
  pod.pointer = spec_at.pointer;
  ReadContainers(spec, &pod);
  pod.placement = PlacementOf(spec);
  out->push_back(std::move(pod));  // completed by Settle once all its containers are in
  return &out->back();
}

// Calls fn(node, at, holder) for every value at `pattern` and the mapping or
// list that holds it (the object itself for a one-segment path).
void ForEachWithHolder(const Value& object, std::string_view pattern,
                       const std::function<void(const Value&, const FieldRef&, const Value&)>& fn) {
  size_t dot = pattern.rfind('.');
  std::string_view parent = dot == std::string_view::npos ? "" : pattern.substr(0, dot);
  std::string_view last = dot == std::string_view::npos ? pattern : pattern.substr(dot + 1);
  ForEachAtPath(object, parent, [&](const Value& holder, const FieldRef& at) {
    auto visit = [&](const Value& child, std::string_view key) {
      fn(child, {AppendKey(at.path, key), at.pointer + "/" + EscapePointerSegment(key)}, holder);
    };
    if (last == "*" && holder.is_sequence()) {
      for (size_t i = 0; i < holder.items().size(); ++i) {
        std::string n = std::to_string(i);
        fn(holder.items()[i], {at.path + "[" + n + "]", at.pointer + "/" + n}, holder);
      }
    } else if (last == "*" && holder.is_mapping()) {
      for (const auto& [key, child] : holder.members()) visit(child, key);
    } else if (const Value* child = holder.is_mapping() ? holder.Find(last) : nullptr) {
      visit(*child, last);
    }
  });
}

bool HasPlacement(const Value& node) {
  for (const char* key : {"nodeName", "nodeSelector", "affinity", "tolerations"})
    if (node.Find(key)) return true;
  return false;
}

// The pod a container found by a `containers` or `containerLists` path runs
// in: the one whose spec encloses it (the deepest), else a new pod placed by
// the container itself when it says where it runs (NIMService's spec), else
// by the mapping that holds it (an Argo template beside its container).
PodInfo* PodOf(const Value& container, const FieldRef& at, const Value& holder,
               const FieldRef& holder_at, std::vector<PodInfo>* pods) {
  PodInfo* best = nullptr;
  for (PodInfo& p : *pods) {
    bool encloses = at.pointer.compare(0, p.pointer.size(), p.pointer) == 0 &&
                    (at.pointer.size() == p.pointer.size() || at.pointer[p.pointer.size()] == '/');
    if (encloses && (!best || p.pointer.size() > best->pointer.size())) best = &p;
  }
  if (best) return best;
  bool own = HasPlacement(container) || !holder.is_mapping();
  return AddPod(nullptr, FieldRef{}, own ? container : holder, own ? at : holder_at, pods);
}

// The parent of a dotted path and pointer ("a.b[2]" -> "a.b"): where the
// holder ForEachWithHolder passes sits.
FieldRef ParentOf(const FieldRef& at) {
  size_t p = at.path.find_last_of(".[");
  size_t q = at.pointer.rfind('/');
  return {at.path.substr(0, p == std::string::npos ? 0 : p),
          at.pointer.substr(0, q == std::string::npos ? 0 : q)};
}

void AddContainer(const Value& node, const FieldRef& at, std::string_view resources,
                  PodInfo* pod) {
  ContainerInfo c = ReadContainer(node, at, ContainerRole::kApp, resources);
  if (c.name.empty()) {
    // Unnamed (KServe's predictor.model, Argo's script): the field's name,
    // with its index for an item of a list (kthena's "workers[0]").
    size_t end = at.path.back() == ']' ? at.path.rfind('[') : at.path.size();
    size_t dot = at.path.find_last_of(".[", end == 0 ? 0 : end - 1);
    c.name = at.path.substr(dot == std::string::npos ? 0 : dot + 1);
  }
  pod->containers.push_back(std::move(c));
}

// A pod that no container was found in and whose spec names no containers is
// not a pod (an Argo steps template read as a pod spec).
void DropEmptyPods(std::vector<PodInfo>* pods) {
  pods->erase(std::remove_if(pods->begin(), pods->end(),
                             [](const PodInfo& p) {
                               return p.containers.empty() && !p.spec->Find("containers");
                             }),
              pods->end());
}

// What depends on all of a pod's containers: the memory as the user wrote it,
// the tolerations admission adds, where it can run, whether it is a node agent.
void Settle(const Value& object, const Policy& policy, const Inventory& inventory,
            std::string_view ns, const DeviceClaims* claims, PodInfo* pod) {
  ResolveClaims(*pod->spec, ns, policy, claims, pod);
  TakeOutHeadroom(policy, pod);
  if (policy.extended_resource_toleration)
    pod->placement.tolerated_resources = ExtendedResourcesOf(pod->containers);
  pod->candidates = Candidates(pod->placement, inventory);
  for (const Candidate& c : pod->candidates) {
    std::vector<DeviceDemand> demands = DeviceDemandsOf(*pod, *c.node, inventory);
    pod->device_fits.push_back(demands.empty() ? DeviceFit{}
                                               : FitDevicesOnGroup(demands, *c.group));
  }
  pod->gpu_reach_reason = GpuReachReason(*pod, policy);
  pod->can_reach_gpu_node = !pod->gpu_reach_reason.empty();
  pod->node_agent = NodeAgentReason(object, *pod, policy);
}

}  // namespace

std::vector<PodInfo> ExtractPods(const Value& object, const Policy& policy,
                                 const Inventory& inventory, const DeviceClaims* claims) {
  std::vector<PodInfo> pods;
  const std::string ns = RefOf(object).namespace_name;
  const WorkloadKind* kind =
      policy.FindWorkload(object.StringAt("apiVersion"), object.StringAt("kind"));
  if (!kind) return pods;
  for (const std::string& path : kind->templates) {
    ForEachAtPath(object, path, [&](const Value& tmpl, const FieldRef& at) {
      if (const Value* spec = tmpl.Find("spec"))
        if (PodInfo* pod =
                AddPod(&tmpl, at, *spec, {JoinPath(at.path, "spec"), at.pointer + "/spec"}, &pods))
          ReadPodResources(*spec, pod);  // pod-level resources: only a real pod spec has them
    });
  }
  for (const std::string& path : kind->pod_specs) {
    ForEachAtPath(object, path, [&](const Value& spec, const FieldRef& at) {
      if (PodInfo* pod = AddPod(nullptr, FieldRef{}, spec, at, &pods)) ReadPodResources(spec, pod);
    });
  }
  auto add = [&](const Value& c, const FieldRef& at, const Value& holder, const FieldRef& hat) {
    if (!c.is_mapping()) return;
    PodInfo* pod = PodOf(c, at, holder, hat, &pods);
    if (!pod) return;
    for (const ContainerInfo& known : pod->containers)
      if (known.node == &c) return;  // reached by two paths
    AddContainer(c, at, kind->container_resources, pod);
  };
  for (const std::string& path : kind->containers)
    ForEachWithHolder(object, path, [&](const Value& c, const FieldRef& at, const Value& holder) {
      add(c, at, holder, ParentOf(at));
    });
  for (const std::string& path : kind->container_lists)
    ForEachWithHolder(object, path, [&](const Value& list, const FieldRef& at, const Value& holder) {
      if (!list.is_sequence()) return;
      for (size_t i = 0; i < list.items().size(); ++i) {
        std::string n = std::to_string(i);
        add(list.items()[i], {at.path + "[" + n + "]", at.pointer + "/" + n}, holder,
            ParentOf(at));
      }
    });
  DropEmptyPods(&pods);
  for (PodInfo& pod : pods) {
    pod.partial = kind->partial;
    Settle(object, policy, inventory, ns, claims, &pod);
  }
  return pods;
}

}  // namespace gpulint
