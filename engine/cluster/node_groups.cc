// Groups of alike nodes (inventory.h): the key that says two nodes are alike,
// and the copy-on-write updates a node watch makes one node at a time.
#include <algorithm>

#include "engine/cluster/inventory.h"

namespace gpulint {
namespace {

// Label keys that hold one value per node. Only speed depends on this list:
// a pod that reads one of them is judged node by node (inventory.cc).
constexpr std::string_view kPerNodeLabels[] = {
    "kubernetes.io/hostname",    // kubelet: the node's host name
    "nvidia.com/gfd.timestamp",  // GPU Feature Discovery: when it last labelled the node
};

void Append(std::string* key, std::string_view field) {
  // Length-prefixed, so no value can forge a separator.
  *key += std::to_string(field.size());
  *key += ':';
  *key += field;
}

void AppendQuantity(std::string* key, const Quantity& q) {
  Append(key, q.Canonical());
  Append(key, std::to_string(static_cast<int>(q.format())));
}

// Everything of `shape` a rule or a message reads: labels (per-node ones are
// already out), taints, allocatable and the GPUs. Names and sources are the
// members' own.
std::string KeyOf(const NodeClass& shape, const NodeMember& member) {
  std::string key;
  // A class from the policy stands alone: it is no node, and nodeName passes it.
  if (shape.source == "policy") {
    Append(&key, "policy");
    Append(&key, std::to_string(member.order));
    return key;
  }
  Append(&key, std::to_string(shape.labels.size()));
  for (const auto& [k, v] : shape.labels) Append(&key, k), Append(&key, v);
  Append(&key, std::to_string(shape.taints.size()));
  for (const Taint& t : shape.taints) Append(&key, t.key), Append(&key, t.value), Append(&key, t.effect);
  Append(&key, std::to_string(shape.allocatable.size()));
  for (const auto& [name, q] : shape.allocatable) Append(&key, name), AppendQuantity(&key, q);
  const GpuInfo& gpu = shape.gpu;
  Append(&key, gpu.model);
  Append(&key, std::to_string(gpu.count));
  Append(&key, gpu.vram_per_gpu ? "v" : "-");
  if (gpu.vram_per_gpu) AppendQuantity(&key, *gpu.vram_per_gpu);
  Append(&key, gpu.reserved_per_gpu ? "r" : "-");
  if (gpu.reserved_per_gpu) AppendQuantity(&key, *gpu.reserved_per_gpu);
  Append(&key, GpuSharingName(gpu.sharing));
  Append(&key, std::to_string(gpu.replicas));
  Append(&key, gpu.mig_slice ? "mig" : "-");
  Append(&key, gpu.unified_memory ? "unified" : "-");
  Append(&key, shape.devices ? shape.devices->key : "-");
  return key;
}

// Splits `node` into what its group shares and what is its own.
std::pair<NodeClass, NodeMember> Split(NodeClass node, uint64_t order) {
  NodeMember member;
  member.name = std::move(node.name);
  member.source = node.source;
  member.order = order;
  member.devices = node.devices;
  for (auto it = node.labels.begin(); it != node.labels.end();) {
    if (IsPerNodeLabel(it->first)) {
      member.own_labels.insert(node.labels.extract(it++));
    } else {
      ++it;
    }
  }
  node.name.clear();
  if (node.source != "policy") node.source.clear();
  return {std::move(node), std::move(member)};
}

bool SameMember(const NodeMember& a, const NodeMember& b) {
  auto identity = [](const NodeMember& m) {
    return m.devices ? std::string_view(m.devices->identity) : std::string_view();
  };
  return a.name == b.name && a.source == b.source && a.own_labels == b.own_labels &&
         a.order == b.order && identity(a) == identity(b);
}

}  // namespace

bool IsPerNodeLabel(std::string_view key) {
  return std::find(std::begin(kPerNodeLabels), std::end(kPerNodeLabels), key) !=
         std::end(kPerNodeLabels);
}

bool Before(const NodeMember& a, const NodeMember& b) {
  return a.order != b.order ? a.order < b.order : a.name < b.name;
}

namespace {

// The node `member` of a group of `shape`, whole.
NodeClass Rebuild(const NodeClass& shape, const NodeMember& member) {
  NodeClass n = shape;
  n.name = member.name;
  n.source = member.source;
  n.devices = member.devices;
  for (const auto& [k, v] : member.own_labels) n.labels[k] = v;
  return n;
}

}  // namespace

std::vector<NodeClass> Inventory::Nodes() const {
  std::vector<std::pair<const NodeMember*, const NodeClass*>> all;
  for (const auto& g : groups)
    for (const auto& m : g->members) all.push_back({m.get(), &g->shape});
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return Before(*a.first, *b.first); });
  std::vector<NodeClass> out;
  for (const auto& [member, shape] : all) out.push_back(Rebuild(*shape, *member));
  return out;
}

bool NodeGroups::Find(const std::string& name, NodeClass* out) const {
  auto key = key_of_.find(name);
  if (key == key_of_.end()) return false;
  const NodeGroup& group = *inventory_.groups[by_key_.at(key->second)];
  for (const auto& m : group.members) {
    if (m->name != name) continue;
    *out = Rebuild(group.shape, *m);
    return true;
  }
  return false;
}

void Inventory::Append(const Inventory& other) {
  groups.insert(groups.end(), other.groups.begin(), other.groups.end());
  nodes += other.nodes;
  if (other.dra) dra = other.dra;
}

NodeGroup* NodeGroups::Writable(size_t index) {
  std::shared_ptr<const NodeGroup>& slot = inventory_.groups[index];
  // Copy on write: an inventory handed out keeps the group it had. A group
  // no one else holds (a list being read) is changed in place, or reading
  // n nodes into a group would copy it n times. Every group is made here,
  // non-const, so changing it is sound; another holder can only let go
  // meanwhile, which costs a needless copy at worst.
  if (slot.use_count() == 1) return const_cast<NodeGroup*>(slot.get());
  auto copy = std::make_shared<NodeGroup>(*slot);
  NodeGroup* group = copy.get();
  slot = std::move(copy);
  return group;
}

void NodeGroups::Insert(const std::string& key, NodeClass shape,
                        std::shared_ptr<const NodeMember> member) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) {
    auto group = std::make_shared<NodeGroup>();
    group->shape = std::move(shape);
    for (const auto& [k, v] : member->own_labels) ++group->own_label_keys[k];
    group->members.push_back(std::move(member));
    by_key_[key] = inventory_.groups.size();
    inventory_.groups.push_back(std::move(group));
  } else {
    NodeGroup* group = Writable(it->second);
    for (const auto& [k, v] : member->own_labels) ++group->own_label_keys[k];
    auto at = std::upper_bound(group->members.begin(), group->members.end(), member,
                               [](const auto& a, const auto& b) { return Before(*a, *b); });
    group->members.insert(at, std::move(member));
  }
  ++inventory_.nodes;
}

void NodeGroups::Erase(const std::string& key, const NodeMember& member) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  size_t index = it->second;
  const NodeGroup& old = *inventory_.groups[index];
  auto at = std::find_if(old.members.begin(), old.members.end(),
                         [&](const auto& m) { return m->name == member.name; });
  if (at == old.members.end()) return;
  --inventory_.nodes;
  if (old.members.size() > 1) {
    size_t offset = at - old.members.begin();
    NodeGroup* group = Writable(index);
    for (const auto& [k, v] : group->members[offset]->own_labels)
      if (--group->own_label_keys[k] == 0) group->own_label_keys.erase(k);
    group->members.erase(group->members.begin() + offset);
    return;
  }
  // The group's last node: move the last group into its place.
  by_key_.erase(it);
  size_t last = inventory_.groups.size() - 1;
  if (index != last) {
    inventory_.groups[index] = std::move(inventory_.groups[last]);
    for (auto& [k, i] : by_key_)
      if (i == last) {
        i = index;
        break;
      }
  }
  inventory_.groups.pop_back();
}

void NodeGroups::Add(NodeClass node, uint64_t order) {
  auto [shape, member] = Split(std::move(node), order);
  std::string key = KeyOf(shape, member);
  key_of_[member.name] = key;
  Insert(key, std::move(shape), std::make_shared<const NodeMember>(std::move(member)));
}

bool NodeGroups::Put(NodeClass node, uint64_t order) {
  auto [shape, member] = Split(std::move(node), order);
  std::string key = KeyOf(shape, member);
  auto old = key_of_.find(member.name);
  if (old != key_of_.end()) {
    if (old->second == key) {
      const NodeGroup& group = *inventory_.groups[by_key_.at(key)];
      for (const auto& m : group.members)
        if (m->name == member.name && SameMember(*m, member)) return false;
    }
    Erase(old->second, member);
  }
  key_of_[member.name] = key;
  Insert(key, std::move(shape), std::make_shared<const NodeMember>(std::move(member)));
  return true;
}

bool NodeGroups::Remove(const std::string& name) {
  auto old = key_of_.find(name);
  if (old == key_of_.end()) return false;
  NodeMember member;
  member.name = name;
  Erase(old->second, member);
  key_of_.erase(old);
  return true;
}

void NodeGroups::Clear() {
  inventory_ = Inventory();
  by_key_.clear();
  key_of_.clear();
}

}  // namespace gpulint
