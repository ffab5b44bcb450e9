#include "engine/mutate/node_vram.h"

#include <tuple>
#include <utility>
#include <vector>

#include "engine/base/path.h"

namespace gpulint {
namespace {

using ResourceMap = std::optional<std::map<std::string, std::string>>;

ResourceMap TextMap(const Value* list) {
  if (!list || !list->is_mapping()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& [name, v] : list->members())
    if (v.is_scalar()) out[name] = v.text();
  return out;
}

// Whether `list` holds `resource` at exactly `want`; sizes compare as
// quantities, so "48Gi" and "51539607552" are the same.
bool Says(const ResourceMap& list, const std::string& resource, const Quantity& want) {
  if (!list) return false;
  auto it = list->find(resource);
  Quantity have;
  return it != list->end() && Quantity::Parse(it->second, &have, nullptr) && have == want;
}

Value MapOf(const std::string& key, const Value& value) {
  Value map(Value::Type::kMapping);
  map.mutable_members().emplace_back(key, value);
  return map;
}

}  // namespace

PatchOp AddNodeVramOp(const std::string& field, const std::string& resource, const Quantity& vram) {
  return PatchOp{"add", "/status/" + field + "/" + EscapePointerSegment(resource),
                 Value::String(vram.Canonical())};
}

std::string NodeCapacityVramPatch(const std::string& resource, const Quantity& vram) {
  return PatchToJson({AddNodeVramOp("capacity", resource, vram)});
}

NodeVramFacts ReadNodeVramFacts(const Value& object, const NodeClass* node, const Error& error) {
  NodeVramFacts facts;
  if (const Value* meta = object.Find("metadata")) {
    facts.name = std::string(meta->StringAt("name"));
    facts.resource_version = std::string(meta->StringAt("resourceVersion"));
  }
  if (node)
    facts.gpu = node->gpu;
  else
    facts.problem = error.ToString();
  const Value* status = object.Find("status");
  facts.has_status = status && status->is_mapping();
  if (facts.has_status) {
    facts.capacity = TextMap(status->Find("capacity"));
    facts.allocatable = TextMap(status->Find("allocatable"));
  }
  return facts;
}

std::optional<Quantity> NodeVramFacts::Vram(const GpuMemoryModel& model) const {
  return gpu ? AdvertisedVram(*gpu, model) : std::nullopt;
}

std::string VramPatch(const NodeVramFacts& facts, const VramTarget& target) {
  const std::string& resource = target.resource;
  std::optional<Quantity> vram = facts.Vram(target.model);
  if (!vram || resource.empty()) return "";
  bool capacity_right = Says(facts.capacity, resource, *vram);
  bool allocatable_right = Says(facts.allocatable, resource, *vram);
  if (capacity_right && allocatable_right) return "";
  Value value = Value::String(vram->Canonical());
  std::vector<PatchOp> ops;
  bool whole_map = false;
  if (!facts.has_status) {
    Value status(Value::Type::kMapping);
    status.mutable_members().emplace_back("capacity", MapOf(resource, value));
    status.mutable_members().emplace_back("allocatable", MapOf(resource, value));
    ops.push_back(PatchOp{"add", "/status", std::move(status)});
    whole_map = true;
  } else {
    for (auto [field, list, right] :
         {std::tuple{"capacity", &facts.capacity, capacity_right},
          std::tuple{"allocatable", &facts.allocatable, allocatable_right}}) {
      if (right) continue;
      std::string path = std::string("/status/") + field;
      if (*list) {
        ops.push_back(AddNodeVramOp(field, resource, *vram));
      } else {
        ops.push_back(PatchOp{"add", path, MapOf(resource, value)});
        whole_map = true;
      }
    }
  }
  if (whole_map && !facts.resource_version.empty())
    ops.insert(ops.begin(),
               PatchOp{"test", "/metadata/resourceVersion", Value::String(facts.resource_version)});
  return PatchToJson(ops);
}

}  // namespace gpulint
