#include "engine/workload/vram.h"

#include "engine/cluster/gpu_memory.h"

namespace gpulint {

std::vector<MigSlices> MigSlicesOf(const ContainerInfo& c) {
  std::vector<MigSlices> out;
  for (const auto* list : {&c.limits, &c.requests}) {
    for (const ResourceEntry& e : *list) {
      std::string_view profile = MigProfileOf(e.name);
      if (profile.empty() || !e.valid || e.quantity.sign() <= 0 || !e.quantity.is_whole())
        continue;
      // A limit stands for the request too (requests equal limits for
      // extended resources).
      if (list == &c.requests && c.Limit(e.name)) continue;
      out.push_back({profile, e.quantity.Value(), &e});
    }
  }
  return out;
}

int64_t GpuDevices(const ContainerInfo& c, const Policy& policy) {
  Quantity gpus = c.GpuCount(policy);
  int64_t devices = gpus.sign() > 0 ? gpus.Value() : 0;
  for (const MigSlices& m : MigSlicesOf(c)) devices += m.count;
  return devices;
}

std::optional<VramAnnotation> AnnotatedVram(const PodInfo& pod, const ContainerInfo& c,
                                            const Policy& policy, int64_t gpus) {
  bool pod_annotation_applies =
      gpus > 0 || (!pod.AsksForGpus(policy) && pod.OnlyAppContainer() == &c);
  for (const std::string& key : {policy.vram_annotation + "." + c.name, policy.vram_annotation}) {
    if (key == policy.vram_annotation && !pod_annotation_applies) break;
    const Value* v = pod.Annotation(key);
    if (!v) continue;
    VramAnnotation out{Quantity(), v, key};
    QuantityError error;
    out.valid = v->is_string() && Quantity::Parse(v->text(), &out.quantity, &error) &&
                out.quantity.sign() >= 0;
    return out;
  }
  return std::nullopt;
}

}  // namespace gpulint
