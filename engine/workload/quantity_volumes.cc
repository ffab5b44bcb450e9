#include "engine/workload/quantity_volumes.h"

#include <string>

#include "engine/base/path.h"
#include "engine/workload/quantity_field.h"

namespace gpulint {
namespace {

void Add(VolumeQuantity::Kind kind, const char* name, const Value* value, std::string path,
         std::vector<VolumeQuantity>* out) {
  if (!value) return;
  VolumeQuantity v{kind, {}};
  v.entry.name = name;
  v.entry.value = value;
  v.entry.path = std::move(path);
  v.entry.valid = ReadQuantityField(*value, &v.entry.quantity, &v.entry.error);
  out->push_back(std::move(v));
}

// A PersistentVolumeClaimSpec at `path`.
void AddClaim(const Value& spec, const std::string& path, std::vector<VolumeQuantity>* out) {
  const Value* resources = spec.is_mapping() ? spec.Find("resources") : nullptr;
  if (!resources || !resources->is_mapping()) return;
  for (auto [list, kind] : {std::pair{"requests", VolumeQuantity::Kind::kClaimRequest},
                            std::pair{"limits", VolumeQuantity::Kind::kClaimLimit}}) {
    const Value* entries = resources->Find(list);
    if (entries && entries->is_mapping())
      Add(kind, "storage", entries->Find("storage"),
          JoinPath(path, std::string("resources.") + list + ".storage"), out);
  }
}

void AddPodVolumes(const PodInfo& pod, std::vector<VolumeQuantity>* out) {
  ForEachAtPath(*pod.spec, "volumes.*", [&](const Value& volume, const FieldRef& at) {
    if (!volume.is_mapping()) return;
    const std::string path = JoinPath(pod.path, at.path);
    // sizeLimit is a pointer: null leaves it unset (no limit), unlike a null
    // in a resource list, which decodes to zero.
    const Value* empty_dir = volume.Find("emptyDir");
    const Value* size_limit =
        empty_dir && empty_dir->is_mapping() ? empty_dir->Find("sizeLimit") : nullptr;
    if (size_limit && !size_limit->is_null())
      Add(VolumeQuantity::Kind::kSizeLimit, "emptyDir.sizeLimit", size_limit,
          path + ".emptyDir.sizeLimit", out);
    ForEachAtPath(volume, "ephemeral.volumeClaimTemplate.spec",
                  [&](const Value& spec, const FieldRef& claim_at) {
                    AddClaim(spec, JoinPath(path, claim_at.path), out);
                  });
  });
}

}  // namespace

std::vector<VolumeQuantity> VolumeQuantities(const Value& object,
                                             const std::vector<PodInfo>& pods) {
  std::vector<VolumeQuantity> out;
  if (object.StringAt("kind") == "PersistentVolumeClaim" && object.StringAt("apiVersion") == "v1") {
    if (const Value* spec = object.Find("spec")) AddClaim(*spec, "spec", &out);
  }
  if (!pods.empty()) {
    ForEachAtPath(object, "spec.volumeClaimTemplates.*.spec",
                  [&](const Value& spec, const FieldRef& at) { AddClaim(spec, at.path, &out); });
  }
  for (const PodInfo& pod : pods)
    if (pod.spec) AddPodVolumes(pod, &out);
  return out;
}

}  // namespace gpulint
