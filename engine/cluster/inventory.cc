// Node classes from real Node objects, and the scheduler's filters (nodeName,
// nodeSelector, required node affinity, taints and tolerations) the way
// kube-scheduler and kubelet apply them.
#include "engine/cluster/inventory.h"

#include <algorithm>
#include <charconv>

#include "engine/base/decoder.h"
#include "engine/base/path.h"

namespace gpulint {
namespace {

// The resources device plugins advertise whole GPUs as, in the order a node's
// GPU count is read from them when no GFD count label says: NVIDIA's (count ×
// replicas on a shared node), AMD's, Intel's. The built-in policy's
// gpuResources names the same (policies/default.yaml).
constexpr std::string_view kGpuResources[] = {"nvidia.com/gpu", "amd.com/gpu",
                                              "gpu.intel.com/i915", "gpu.intel.com/xe"};
constexpr std::string_view kProductLabel = "nvidia.com/gpu.product";
constexpr std::string_view kCountLabel = "nvidia.com/gpu.count";
constexpr std::string_view kMemoryLabel = "nvidia.com/gpu.memory";  // MiB per GPU
constexpr std::string_view kReplicasLabel = "nvidia.com/gpu.replicas";
constexpr std::string_view kSharingLabel = "nvidia.com/gpu.sharing-strategy";
constexpr std::string_view kMpsCapableLabel = "nvidia.com/mps.capable";
constexpr std::string_view kMigStrategyLabel = "nvidia.com/mig.strategy";

// A whole number as Go's strconv.ParseInt(s, 10, 64) reads it.
bool ParseInt64(std::string_view s, int64_t* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string SourceOf(const std::string& file, const Mark& mark) {
  if (mark.line == 0) return file;
  return file + ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
}

const std::string* Label(const NodeClass& node, std::string_view key) {
  auto it = node.labels.find(std::string(key));
  return it == node.labels.end() ? nullptr : &it->second;
}

// A GFD label holding a whole number of at least `min`; *out is left alone
// when the node has no such label.
bool ReadNumberLabel(StrictDecoder& d, const Value& labels, const NodeClass& node,
                     std::string_view key, int64_t min, int64_t* out) {
  const std::string* text = Label(node, key);
  if (!text) return true;
  int64_t n = 0;
  if (ParseInt64(*text, &n) && n >= min) {
    *out = n;
    return true;
  }
  return d.Fail(
      *labels.Find(key), AppendKey("metadata.labels", key),
      "expected a whole number of at least " + std::to_string(min) + ", got \"" + *text + "\"");
}

GpuSharing SharingOf(const NodeClass& node, int64_t replicas) {
  if (const std::string* s = Label(node, kSharingLabel)) {
    if (*s == "mps") return GpuSharing::kMps;
    if (*s == "time-slicing") return GpuSharing::kTimeSlicing;
    if (*s == "none") return GpuSharing::kNone;
  }
  // Older GPU Feature Discovery releases set no strategy label.
  if (replicas <= 1) return GpuSharing::kNone;
  const std::string* mps = Label(node, kMpsCapableLabel);
  return mps && *mps == "true" ? GpuSharing::kMps : GpuSharing::kTimeSlicing;
}

bool ReadGpuLabels(StrictDecoder& d, const Value& labels, const ResourceList& capacity,
                   NodeClass* node) {
  GpuInfo& gpu = node->gpu;
  if (const std::string* product = Label(*node, kProductLabel)) gpu.model = *product;
  if (!ReadNumberLabel(d, labels, *node, kReplicasLabel, 1, &gpu.replicas)) return false;
  int64_t mib = 0;
  if (!ReadNumberLabel(d, labels, *node, kMemoryLabel, 1, &mib)) return false;
  // Bytes must fit an int64: no card has 8 EiB, so a larger label is garbage.
  if (mib > (int64_t{1} << 42))
    return d.Fail(*labels.Find(kMemoryLabel), AppendKey("metadata.labels", kMemoryLabel),
                  "expected at most " + std::to_string(int64_t{1} << 42) + " MiB, got \"" +
                      *Label(*node, kMemoryLabel) + "\"");
  if (mib > 0) gpu.vram_per_gpu = Quantity::FromInt(mib * 1024 * 1024, QuantityFormat::kBinarySI);
  gpu.sharing = SharingOf(*node, gpu.replicas);
  // GFD's single MIG strategy: every nvidia.com/gpu is a slice, and the
  // product names its profile.
  const std::string* strategy = Label(*node, kMigStrategyLabel);
  gpu.mig_slice = strategy && *strategy == "single" && gpu.model.find("-MIG-") != std::string::npos;
  gpu.count = -1;
  if (!ReadNumberLabel(d, labels, *node, kCountLabel, 0, &gpu.count)) return false;
  if (gpu.count >= 0) return true;
  // No count label: the device plugin advertises count × replicas. Capacity
  // keeps replicas that allocatable may leave out (an unhealthy slice).
  const Quantity* advertised = nullptr;
  const ResourceList& allocatable = node->allocatable;
  for (std::string_view resource : kGpuResources) {
    for (const ResourceList* list : {&capacity, &allocatable}) {
      auto it = list->find(std::string(resource));
      if (it != list->end() && !advertised) advertised = &it->second;
    }
  }
  gpu.count = advertised ? advertised->ScaledUp(1, gpu.replicas).Value() : 0;
  return true;
}

bool ReadResources(StrictDecoder& d, const Value* list, const std::string& path,
                   ResourceList* out) {
  if (!list) return true;
  if (!d.ExpectMapping(*list, path)) return false;
  for (const auto& [name, q] : list->members())
    if (!d.ReadQuantity(q, AppendKey(path, name), &(*out)[name])) return false;
  return true;
}

bool ReadTaints(StrictDecoder& d, const Value* taints, NodeClass* node) {
  if (!taints) return true;
  if (!d.ExpectSequence(*taints, "spec.taints")) return false;
  for (size_t i = 0; i < taints->items().size(); ++i) {
    const Value& t = taints->items()[i];
    std::string path = "spec.taints[" + std::to_string(i) + "]";
    if (!d.ExpectMapping(t, path)) return false;
    Taint taint;
    for (auto [field, target] : {std::pair{"key", &taint.key}, std::pair{"value", &taint.value},
                                 std::pair{"effect", &taint.effect}})
      if (const Value* v = t.Find(field); v && !d.ReadString(*v, path + "." + field, target))
        return false;
    node->taints.push_back(std::move(taint));
  }
  return true;
}

bool ReadLabels(StrictDecoder& d, const Value* labels, NodeClass* node) {
  if (!labels) return true;
  if (!d.ExpectMapping(*labels, "metadata.labels")) return false;
  for (const auto& [key, v] : labels->members()) {
    if (!v.is_scalar())
      return d.Fail(v, AppendKey("metadata.labels", key), "expected a string label value");
    node->labels[key] = v.text();
  }
  return true;
}

}  // namespace

const char* GpuSharingName(GpuSharing s) {
  switch (s) {
    case GpuSharing::kTimeSlicing:
      return "time-slicing";
    case GpuSharing::kMps:
      return "mps";
    case GpuSharing::kNone:
      break;
  }
  return "none";
}

bool NodeClassFromNode(const Value& node, const std::string& file, NodeClass* out, Error* error) {
  StrictDecoder d(file, error);
  if (!node.is_mapping())
    return d.Fail(node, "", "expected a Node object, got " + std::string(TypeName(node.type())));
  std::string_view kind = node.StringAt("kind", "Node");  // NodeList items carry no kind
  if (kind != "Node")
    return d.Fail(*node.Find("kind"), "kind", "expected a Node, got \"" + std::string(kind) + "\"");
  const Value* metadata = node.Find("metadata");
  const Value* name = metadata ? metadata->Find("name") : nullptr;
  if (!name) return d.Fail(metadata ? *metadata : node, "metadata.name", "a Node needs a name");
  NodeClass c;
  if (!d.ReadNonEmptyString(*name, "metadata.name", &c.name)) return false;
  c.source = SourceOf(file, node.mark());
  const Value* spec = node.Find("spec");
  const Value* status = node.Find("status");
  const Value* labels = metadata->Find("labels");
  ResourceList capacity;
  bool ok =
      ReadLabels(d, labels, &c) && ReadTaints(d, spec ? spec->Find("taints") : nullptr, &c) &&
      ReadResources(d, status ? status->Find("allocatable") : nullptr, "status.allocatable",
                    &c.allocatable) &&
      ReadResources(d, status ? status->Find("capacity") : nullptr, "status.capacity", &capacity) &&
      ReadGpuLabels(d, labels ? *labels : Value(), capacity, &c);
  if (!ok) return false;
  *out = std::move(c);
  return true;
}

Placement PlacementOf(const Value& pod_spec) {
  Placement p;
  p.node_name = std::string(pod_spec.StringAt("nodeName"));
  if (const Value* selector = pod_spec.Find("nodeSelector"); selector && selector->is_mapping())
    for (const auto& [key, v] : selector->members())
      if (v.is_scalar()) p.node_selector[key] = v.text();
  if (const Value* affinity = pod_spec.Find("affinity"))
    if (const Value* node_affinity = affinity->Find("nodeAffinity"))
      p.required_affinity = node_affinity->Find("requiredDuringSchedulingIgnoredDuringExecution");
  if (const Value* tolerations = pod_spec.Find("tolerations");
      tolerations && tolerations->is_sequence())
    for (const Value& t : tolerations->items()) {
      if (!t.is_mapping()) continue;
      p.tolerations.push_back(
          Toleration{std::string(t.StringAt("key")), std::string(t.StringAt("operator")),
                     std::string(t.StringAt("value")), std::string(t.StringAt("effect"))});
    }
  return p;
}

namespace {

// Taints the node lifecycle controller and cloud providers add and remove on
// their own: the API server puts not-ready on every new node, so a recorded
// inventory would otherwise admit nothing.
bool IsTransientTaint(std::string_view key) {
  return key.starts_with("node.kubernetes.io/") ||
         key == "node.cloudprovider.kubernetes.io/uninitialized";
}

// Kubernetes' Toleration.ToleratesTaint, case for case.
bool ToleratesTaint(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op.empty() || t.op == "Equal") return t.value == taint.value;
  return t.op == "Exists";
}

std::vector<std::string> ValuesOf(const Value& requirement) {
  std::vector<std::string> values;
  if (const Value* list = requirement.Find("values"); list && list->is_sequence())
    for (const Value& v : list->items())
      if (v.is_scalar() && !v.is_null()) values.push_back(v.text());
  return values;
}

// One matchExpressions entry against a label value (null when the label is
// absent). A requirement Kubernetes would refuse to build matches nothing.
bool MatchesRequirement(const Value& requirement, const std::string* label) {
  std::string_view op = requirement.StringAt("operator");
  std::vector<std::string> values = ValuesOf(requirement);
  auto contains = [&] {
    return label && std::find(values.begin(), values.end(), *label) != values.end();
  };
  if (op == "In") return !values.empty() && contains();
  if (op == "NotIn") return !values.empty() && !contains();
  if (op == "Exists") return values.empty() && label;
  if (op == "DoesNotExist") return values.empty() && !label;
  if (op == "Gt" || op == "Lt") {
    int64_t have = 0, bound = 0;
    if (values.size() != 1 || !label || !ParseInt64(values[0], &bound) ||
        !ParseInt64(*label, &have))
      return false;
    return op == "Gt" ? have > bound : have < bound;
  }
  return false;
}

// A node as the filters read it: a whole NodeClass, or a group's shape with
// one member's name and per-node labels.
struct NodeView {
  const NodeClass& shape;
  std::string_view name;
  const std::map<std::string, std::string>* own_labels = nullptr;

  // A class from the policy stands for nodes whose names are unknown.
  bool is_class() const { return shape.source == "policy"; }
  const std::string* Label(const std::string& key) const {
    if (own_labels) {
      auto it = own_labels->find(key);
      if (it != own_labels->end()) return &it->second;
    }
    auto it = shape.labels.find(key);
    return it == shape.labels.end() ? nullptr : &it->second;
  }
};

// matchFields can only name metadata.name, with In or NotIn and exactly one
// value. A class from the policy is not filtered by it.
bool MatchesField(const Value& requirement, const NodeView& node) {
  std::string_view op = requirement.StringAt("operator");
  if (requirement.StringAt("key") != "metadata.name" || (op != "In" && op != "NotIn") ||
      ValuesOf(requirement).size() != 1)
    return false;
  std::string name(node.name);
  return node.is_class() || MatchesRequirement(requirement, &name);
}

// Requirements within a term are ANDed; a term with none matches nothing.
bool MatchesTerm(const Value& term, const NodeView& node) {
  const Value* expressions = term.Find("matchExpressions");
  const Value* fields = term.Find("matchFields");
  size_t count = 0;
  if (expressions && expressions->is_sequence()) {
    for (const Value& r : expressions->items()) {
      ++count;
      if (!MatchesRequirement(r, node.Label(std::string(r.StringAt("key"))))) return false;
    }
  }
  if (fields && fields->is_sequence()) {
    for (const Value& r : fields->items()) {
      ++count;
      if (!MatchesField(r, node)) return false;
    }
  }
  return count > 0;
}

// nodeSelectorTerms are ORed.
bool MatchesNodeSelector(const Value& selector, const NodeView& node) {
  const Value* terms = selector.Find("nodeSelectorTerms");
  if (!terms || !terms->is_sequence()) return false;
  return std::any_of(terms->items().begin(), terms->items().end(),
                     [&](const Value& term) { return MatchesTerm(term, node); });
}

// Why a node is ruled out, without building the words: most nodes of a large
// inventory are ruled out, and for the same few reasons.
struct Verdict {
  enum class Why { kNone, kName, kSelector, kTaint } why = Why::kNone;
  const Taint* taint = nullptr;
  bool operator==(const Verdict&) const = default;
};

Verdict Judge(const Placement& p, const NodeView& node) {
  using Why = Verdict::Why;
  bool named = !p.node_name.empty();
  if (named && !node.is_class() && p.node_name != node.name) return {Why::kName};
  for (const auto& [key, value] : p.node_selector) {
    const std::string* label = node.Label(key);
    if (!label || *label != value) return {Why::kSelector};
  }
  if (p.required_affinity && !MatchesNodeSelector(*p.required_affinity, node))
    return {Why::kSelector};
  for (const Taint& taint : node.shape.taints) {
    // A pod with nodeName skips the scheduler; kubelet admits it past every
    // taint but NoExecute.
    if (named && taint.effect != "NoExecute") continue;
    if (!Tolerates(p, taint)) return {Why::kTaint, &taint};
  }
  return {};
}

std::string ReasonText(const Verdict& v) {
  switch (v.why) {
    case Verdict::Why::kName:
      return "node(s) didn't match the requested node name";
    case Verdict::Why::kSelector:
      return "node(s) didn't match Pod's node affinity/selector";
    case Verdict::Why::kTaint:
      return "node(s) had untolerated taint {" + v.taint->key + ": " + v.taint->value + "}";
    case Verdict::Why::kNone:
      break;
  }
  return "";
}

// Whether nodes of one group can differ for `p`: it names nodes, or reads a
// label that each node has its own value of.
bool ReadsNodeIdentity(const Placement& p) {
  if (!p.node_name.empty()) return true;
  for (const auto& [key, value] : p.node_selector)
    if (IsPerNodeLabel(key)) return true;
  const Value* terms = p.required_affinity ? p.required_affinity->Find("nodeSelectorTerms") : nullptr;
  if (!terms || !terms->is_sequence()) return false;
  for (const Value& term : terms->items()) {
    if (const Value* fields = term.Find("matchFields"); fields && fields->is_sequence() &&
                                                        !fields->items().empty())
      return true;
    if (const Value* exprs = term.Find("matchExpressions"); exprs && exprs->is_sequence())
      for (const Value& e : exprs->items())
        if (IsPerNodeLabel(e.StringAt("key"))) return true;
  }
  return false;
}

// Calls visit(member, verdict, count) for the nodes of `group`: once for the
// whole group when no node of it can differ for `p`, else node by node.
template <typename Visit>
void JudgeGroup(const Placement& p, bool per_node, const NodeGroup& group, Visit visit) {
  if (group.members.empty()) return;
  if (!per_node || group.members.size() == 1) {
    const NodeMember& first = *group.members.front();
    visit(first, Judge(p, {group.shape, first.name, &first.own_labels}), group.members.size());
    return;
  }
  for (const auto& m : group.members) visit(*m, Judge(p, {group.shape, m->name, &m->own_labels}), 1);
}

}  // namespace

bool IsExtendedResource(std::string_view name) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view domain = name.substr(0, slash);
  bool kube = domain == "kubernetes.io" ||
              (domain.size() > 14 && domain.substr(domain.size() - 14) == ".kubernetes.io");
  return !kube && name.substr(slash + 1, 8) != "requests";
}

bool Tolerates(const Placement& p, const Taint& t) {
  if (IsTransientTaint(t.key) || t.effect == "PreferNoSchedule") return true;
  if (t.effect == "NoSchedule" && std::find(p.tolerated_resources.begin(),
                                            p.tolerated_resources.end(),
                                            t.key) != p.tolerated_resources.end())
    return true;
  return std::any_of(p.tolerations.begin(), p.tolerations.end(),
                     [&](const Toleration& tol) { return ToleratesTaint(tol, t); });
}

std::string ExclusionReason(const Placement& p, const NodeClass& node) {
  return ReasonText(Judge(p, {node, node.name}));
}

bool CanLandOn(const Placement& p, const NodeClass& node) {
  return Judge(p, {node, node.name}).why == Verdict::Why::kNone;
}

bool MatchesNodeSelector(const Value& selector, const NodeClass& node) {
  return MatchesNodeSelector(selector, NodeView{node, node.name});
}

std::vector<Candidate> Candidates(const Placement& p, const Inventory& inv) {
  bool per_node = ReadsNodeIdentity(p);
  std::vector<std::pair<const NodeMember*, Candidate>> found;
  for (const auto& group : inv.groups) {
    const NodeMember* first = nullptr;
    size_t count = 0;
    JudgeGroup(p, per_node, *group, [&](const NodeMember& m, const Verdict& v, size_t n) {
      if (v.why != Verdict::Why::kNone) return;
      if (!first) first = &m;  // members are in inventory order
      count += n;
    });
    if (first) found.push_back({first, Candidate{&group->shape, first->name, count, group.get()}});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return Before(*a.first, *b.first); });
  std::vector<Candidate> out;
  out.reserve(found.size());
  for (const auto& [first, candidate] : found) out.push_back(candidate);
  return out;
}

std::string ExclusionSummary(const Placement& p, const Inventory& inv) {
  struct Count {
    std::string reason;
    size_t nodes;
    const NodeMember* first;  // the first node ruled out for it, in inventory order
  };
  std::vector<Count> counts;
  bool per_node = ReadsNodeIdentity(p);
  for (const auto& group : inv.groups) {
    Verdict last;
    std::string text;
    JudgeGroup(p, per_node, *group, [&](const NodeMember& m, const Verdict& v, size_t n) {
      if (v.why == Verdict::Why::kNone) return;
      if (text.empty() || !(v == last)) text = ReasonText(v), last = v;
      auto it = std::find_if(counts.begin(), counts.end(),
                             [&](const Count& c) { return c.reason == text; });
      if (it == counts.end()) {
        counts.push_back({text, n, &m});
      } else {
        it->nodes += n;
        if (Before(m, *it->first)) it->first = &m;
      }
    });
  }
  // In the order the scheduler meets them, then the commonest reason first.
  std::sort(counts.begin(), counts.end(),
            [](const Count& a, const Count& b) { return Before(*a.first, *b.first); });
  std::stable_sort(counts.begin(), counts.end(),
                   [](const Count& a, const Count& b) { return a.nodes > b.nodes; });
  std::string out;
  for (const Count& c : counts)
    out += (out.empty() ? "" : ", ") + std::to_string(c.nodes) + " " + c.reason;
  return out;
}

}  // namespace gpulint
