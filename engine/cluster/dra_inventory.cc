#include "engine/cluster/dra_inventory.h"

#include <algorithm>
#include <tuple>

#include "engine/cluster/inventory.h"

namespace gpulint {
namespace {

// Every selector of `c` must select the device.
CelVerdict ClassVerdict(const DeviceClassInfo& c, const PublishedDevice& d) {
  CelVerdict verdict;
  if (!d.info->problem.empty()) {
    verdict.why = d.info->problem;
    return verdict;
  }
  CelVerdict result;
  result.answer = CelVerdict::Answer::kYes;
  CelDevice device = d.Cel();
  for (const CelSelector& s : c.selectors) {
    CelVerdict v = s.Matches(device);
    if (v.no()) return v;
    if (v.cannot_tell() && !result.cannot_tell()) {
      result = v;
      result.why = "selector \"" + s.expression() + "\" of DeviceClass " + c.name + ": " + v.why;
    }
  }
  return result;
}

void Append(std::string* key, std::string_view field) {
  *key += std::to_string(field.size());
  *key += ':';
  *key += field;
}

// A scalar attribute's value, typed, for a node's identity.
std::string Render(const CelValue& v) {
  switch (v.type()) {
    case CelValue::Type::kBool:
      return v.boolean() ? "b:true" : "b:false";
    case CelValue::Type::kInt:
      return "i:" + std::to_string(v.integer());
    case CelValue::Type::kString:
      return "s:" + v.text();
    case CelValue::Type::kSemver: {
      const Semver& s = v.semver();
      std::string out = "v:" + std::to_string(s.major) + "." + std::to_string(s.minor) + "." +
                        std::to_string(s.patch);
      for (const std::string& p : s.pre) out += "-" + p;
      return out;
    }
    default:
      return "e:" + v.text();
  }
}

// What rules read of a device: its driver, each class's verdict (and why it
// cannot tell), its capacities and how they are shared.
std::string DeviceKey(const PublishedDevice& d) {
  std::string key;
  Append(&key, d.driver);
  for (const CelVerdict& v : d.classes) {
    Append(&key, v.yes() ? "y" : v.no() ? "n" : "?");
    if (v.cannot_tell()) Append(&key, v.why);
  }
  for (const auto& [domain, capacities] : d.info->capacity)
    for (const auto& [name, q] : capacities) Append(&key, domain + "/" + name + "=" + q.Canonical());
  for (const auto& [name, p] : d.info->policies) {
    Append(&key, name);
    for (const auto* q : {&p.default_request, &p.min, &p.max, &p.step})
      Append(&key, *q ? (*q)->Canonical() : "-");
    for (const Quantity& q : p.valid_values) Append(&key, q.Canonical());
  }
  Append(&key, d.info->shared ? "shared" : "");
  Append(&key, d.info->tainted ? "tainted" : "");
  return key;
}

std::string DeviceIdentity(const PublishedDevice& d) {
  std::string id;
  Append(&id, d.pool);
  Append(&id, d.info->name);
  for (const auto& [domain, attributes] : d.info->attributes)
    for (const auto& [name, value] : attributes) Append(&id, domain + "/" + name + "=" + Render(value));
  return id;
}

// Whether class `a` owns an extended resource name both name (the
// scheduler's preference: the newest, then the first by name).
bool Prefer(const DeviceClassInfo& a, const DeviceClassInfo& b) {
  if (a.created != b.created) return a.created > b.created;
  return a.name < b.name;
}

}  // namespace

namespace {

bool SameClasses(const std::vector<DeviceClassInfo>& a, const std::vector<DeviceClassInfo>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].selectors.size() != b[i].selectors.size()) return false;
    for (size_t j = 0; j < a[i].selectors.size(); ++j)
      if (a[i].selectors[j].expression() != b[i].selectors[j].expression()) return false;
  }
  return true;
}

std::shared_ptr<const SliceDevices> EvaluateSlice(std::shared_ptr<const ResourceSliceInfo> slice,
                                             const std::vector<DeviceClassInfo>& classes) {
  auto out = std::make_shared<SliceDevices>();
  out->slice = std::move(slice);
  for (const DeviceInfo& info : out->slice->devices) {
    PublishedDevice d;
    d.info = &info;
    d.driver = out->slice->driver;
    d.pool = out->slice->pool;
    for (const DeviceClassInfo& c : classes) d.classes.push_back(ClassVerdict(c, d));
    out->devices.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::shared_ptr<const DraInventory> DraInventory::Make(DraObjects objects,
                                                       const DraInventory* previous) {
  std::shared_ptr<DraInventory> inv(new DraInventory());
  inv->classes_ = std::move(objects.classes);
  std::map<const ResourceSliceInfo*, std::shared_ptr<const SliceDevices>> known;
  if (previous && SameClasses(previous->classes_, inv->classes_))
    for (const auto& s : previous->slices_) known[s->slice.get()] = s;
  for (auto& slice : objects.slices) {
    auto it = known.find(slice.get());
    inv->slices_.push_back(it != known.end() ? it->second : EvaluateSlice(std::move(slice), inv->classes_));
  }
  // Of each pool, the slices of its newest generation.
  std::map<std::pair<std::string_view, std::string_view>, int64_t> newest;
  for (const auto& s : inv->slices_) {
    const ResourceSliceInfo& info = *s->slice;
    int64_t& g = newest.try_emplace({info.driver, info.pool}, info.generation).first->second;
    g = std::max(g, info.generation);
  }
  for (size_t i = 0; i < inv->slices_.size(); ++i) {
    const SliceDevices& s = *inv->slices_[i];
    if (s.slice->generation != newest[{s.slice->driver, s.slice->pool}]) continue;
    for (const PublishedDevice& d : s.devices) {
      inv->devices_.push_back(&d);
      const DeviceNodes& where = d.info->nodes;
      if (!where.node_name.empty())
        inv->by_node_[where.node_name].push_back({i, &d});
      else if (where.all_nodes || where.node_selector)
        inv->elsewhere_.push_back({i, &d});
    }
  }
  const std::vector<DeviceClassInfo>& classes = inv->classes_;
  for (size_t i = 0; i < classes.size(); ++i)
    inv->class_by_resource_[std::string(kDeviceClassResourcePrefix) + classes[i].name] =
        static_cast<int>(i);
  for (size_t i = 0; i < classes.size(); ++i) {
    const std::string& name = classes[i].extended_resource_name;
    if (name.empty()) continue;
    auto [it, added] = inv->class_by_resource_.try_emplace(name, static_cast<int>(i));
    if (!added && Prefer(classes[i], classes[it->second])) it->second = static_cast<int>(i);
  }
  return inv;
}

int DraInventory::ClassIndex(std::string_view name) const {
  for (size_t i = 0; i < classes_.size(); ++i)
    if (classes_[i].name == name) return static_cast<int>(i);
  return -1;
}

int DraInventory::ClassForResource(std::string_view resource) const {
  auto it = class_by_resource_.find(resource);
  return it == class_by_resource_.end() ? -1 : it->second;
}

std::shared_ptr<const NodeDevices> DraInventory::DevicesOf(const NodeClass& node) const {
  std::vector<Where> found;
  if (auto it = by_node_.find(node.name); it != by_node_.end()) found = it->second;
  for (const Where& w : elsewhere_) {
    const DeviceNodes& where = w.device->info->nodes;
    if (where.all_nodes || (where.node_selector && MatchesNodeSelector(*where.node_selector, node)))
      found.push_back(w);
  }
  if (found.empty()) return nullptr;
  auto out = std::make_shared<NodeDevices>();
  std::vector<std::pair<std::string, const PublishedDevice*>> keyed;
  std::vector<size_t> used;
  for (const Where& w : found) {
    keyed.emplace_back(DeviceKey(*w.device), w.device);
    if (std::find(used.begin(), used.end(), w.slice) == used.end()) used.push_back(w.slice);
  }
  for (size_t i : used) out->slices.push_back(slices_[i]);
  // In key order, so that alike nodes list alike devices alike.
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string identity;
  for (const auto& [key, d] : keyed) {
    out->devices.push_back(d);
    Append(&out->key, key);
    identity += DeviceIdentity(*d);
  }
  out->identity = out->key + identity;
  return out;
}

}  // namespace gpulint
